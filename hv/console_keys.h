/* Keys read from the serial console (COM1 input) and the rate at which the
 * BSP looks for them. Pure logic: the poll itself is console_input.c. */
#ifndef HV_CONSOLE_KEYS_H
#define HV_CONSOLE_KEYS_H
#include "types.h"

/* How often the BSP reads the UART's line status: one IN of LSR costs about
 * a microsecond on hardware; every 10 ms is 0.01 % of one CPU and still
 * answers a key at once for a human. */
#define CKEY_PERIOD_NS   10000000ll
/* Bytes taken per poll: a flood of input cannot hold the BSP for long. */
#define CKEY_MAX_BYTES   16u

enum ckey_action {
	CKEY_NONE,          /* any other byte: ignored */
	CKEY_VPROF_DUMP,    /* 'v': dump every VM's vProfile (reason "key") */
	CKEY_STATE_DUMP,    /* 'w': the watchdog's full state dump (hvrun's timeout) */
	CKEY_HELP,          /* '?': one line listing the keys */
	CKEY_SCHED_MENU,    /* 's': list the policies, the next key picks one */
	CKEY_SCHED_SWITCH,  /* 's' then 0-9/a-z: switch the host to that policy */
	CKEY_SCHED_CANCEL,  /* 's' then any other byte; 'm' then a wrong byte */
	CKEY_VM_MENU,       /* 'm': move one VM; the next key (0-9) picks the VM id */
	CKEY_VM_PICKED,     /* 'm' then 0-9: the VM (*arg); the next key picks its policy */
	CKEY_VM_MOVE,       /* 'm', the VM, the policy key: *arg = vm << 8 | policy index */
};

enum ckey_action ckey_decode(int byte);

/* Key sequences: 's' <key> switches the scheduling policy at run time
 * (hv/sched/switch.c): <key> 0-9 then a-z is the policy's registry index
 * (the menu 's' prints lists them). 'm' <vm 0-9> <key> moves that VM alone
 * to the policy of that key (hv/sched/vmpolicy.c). Feed every byte; *arg gets the index
 * for CKEY_SCHED_SWITCH. Single keys act as ckey_decode says. */
struct ckey_seq {
	bool sched;         /* 's' seen: the next byte picks a policy */
	uint8_t vm;         /* 'm' seen: 1 = the next byte picks the VM, 2 = its policy */
	uint8_t vm_id;
};
enum ckey_action ckey_feed(struct ckey_seq *s, int byte, int *arg);
/* The key that picks policy index i in the menu (0 if none). */
char ckey_policy_key(unsigned i);
/* The line '?' prints (with its newline). */
const char *ckey_help(void);

/* A poll is due at most once per period of the caller's clock (ns). */
struct ckey_rate {
	stime_t period;
	stime_t next;       /* first instant the next poll is due */
};
void ckey_rate_init(struct ckey_rate *r, stime_t period, stime_t now);
/* True when due at now; then the next poll is due one period later. */
bool ckey_rate_due(struct ckey_rate *r, stime_t now);
#endif
