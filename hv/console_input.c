/* Serial console input poll on the BSP (see console_input.h): reads COM1's
 * line status at a bounded rate and acts on console_keys.c's keys. */
#include "console_input.h"
#include "console_keys.h"
#include "cmdline.h"
#include "log.h"
#include "errno.h"
#include "arch/x86/serial.h"
#include "arch/x86/time.h"
#include "trace/vprof.h"
#include "sched/sched.h"
#include "lib/string.h"
#include "lib/fmt.h"

/* Key w's dump (vm/watchdog.c watchdog_dump), registered by hv/vm at init:
 * the console sits below hv/vm and names none of its symbols. */
static void (*state_dump)(const char *why, stime_t now);

void console_input_set_state_dump(void (*fn)(const char *why, stime_t now))
{
	state_dump = fn;
}

static bool console_keys = true;
CMDLINE_BOOL(console_keys, console_keys,
	     "read keys on COM1 (v: vProfile dump, w: state dump, s: policy switch, m: move a VM, ?: list); off: input never read");

/* Touched by pCPU 0 only: no lock. next = 0 makes the first poll due. */
static struct ckey_rate console_rate = { .period = CKEY_PERIOD_NS };

/* vprof_dump_all() takes vProfile's dump_lock, which serialises it with the
 * stop, VM-end and shutdown dumps other pCPUs may be writing; it reads every
 * vCPU's totals at one instant while they keep recording (hv/trace/dump.c).
 * Safe before or without vprof_init(): no profile is then active. */
static void console_key_dump(void)
{
	int n = vprof_dump_all(VPD_KEY, time_now());

	if (n > 0)
		pr_info("console: key v: %d vProfile dump%s written\n", n, n > 1 ? "s" : "");
	else
		pr_info("console: key v: no VM is being profiled\n");
}

/* 's': the policies and their keys; the next key switches (hv/sched/switch.c). */
static void console_sched_menu(void)
{
	char line[160];
	size_t n = 0;
	const char *name;

	for (unsigned i = 0; (name = sched_policy_by_index(i)) && ckey_policy_key(i); i++) {
		size_t l = strlen(name);

		if (n + l + 4 >= sizeof(line))
			break;
		line[n++] = ' ';
		line[n++] = ckey_policy_key(i);
		line[n++] = '=';
		memcpy(line + n, name, l);
		n += l;
	}
	line[n] = '\0';
	pr_info("console: key s: policy now '%s'; press a key to switch:%s (any other: cancel)\n",
		sched_policy_name(), line);
}

static void console_sched_switch(int idx)
{
	const char *name = sched_policy_by_index((unsigned)idx);
	int rc = name ? sched_policy_switch(name, NULL, time_now()) : -ENOENT;

	if (rc)
		pr_info("console: key s: no switch (%d)\n", rc);
	else
		pr_info("console: key s: switching to '%s'\n", name);
}

/* 'm' <vm> <key>: move that VM alone (hv/sched/vmpolicy.c), the host's
 * options; the menu is the same as 's' prints. */
static void console_vm_move(int arg)
{
	const char *name = sched_policy_by_index((unsigned)(arg & 0xff));
	char opts[16];
	int rc;

	fmt_snprintf(opts, sizeof(opts), "vm=%d", arg >> 8);
	rc = name ? sched_policy_switch(name, opts, time_now()) : -ENOENT;
	if (rc)
		pr_info("console: key m: vm%d not moved (%d)\n", arg >> 8, rc);
	else
		pr_info("console: key m: vm%d now '%s'\n", arg >> 8, name);
}

static struct ckey_seq console_seq;   /* pCPU 0 only */

static void console_key(int byte)
{
	int arg = 0;

	switch (ckey_feed(&console_seq, byte, &arg)) {
	case CKEY_SCHED_MENU:
		console_sched_menu();
		break;
	case CKEY_SCHED_SWITCH:
		console_sched_switch(arg);
		break;
	case CKEY_SCHED_CANCEL:
		pr_info("console: key s/m: cancelled\n");
		break;
	case CKEY_VM_MENU:
		pr_info("console: key m: press the VM id (0-9)\n");
		break;
	case CKEY_VM_PICKED: {
		struct sched_vm *vm = sched_vm_find((unsigned)arg);

		if (vm)
			pr_info("console: key m: vm%d runs '%s' (host '%s', key %c); press its new "
				"policy's key (as 's' lists them)\n", arg, sched_vm_policy_name(vm),
				sched_policy_name(),
				ckey_policy_key((unsigned)sched_policy_index(sched_policy_name())));
		else
			pr_info("console: key m: no vm%d (any key: cancel)\n", arg);
		break;
	}
	case CKEY_VM_MOVE:
		console_vm_move(arg);
		break;
	case CKEY_VPROF_DUMP:
		console_key_dump();
		break;
	case CKEY_STATE_DUMP:
		if (state_dump)
			state_dump("key w", time_now());
		break;
	case CKEY_HELP:
		pr_info("%s", ckey_help());
		break;
	case CKEY_NONE:
		break;
	}
}

void console_input_poll(unsigned cpu, stime_t now)
{
	if (cpu != 0 || !console_keys || !ckey_rate_due(&console_rate, now))
		return;
	for (unsigned i = 0; i < CKEY_MAX_BYTES; i++) {
		int c = serial_getc(COM1_PORT);

		if (c < 0)
			break;
		console_key(c);
	}
}

stime_t console_input_deadline(unsigned cpu)
{
	if (cpu != 0 || !console_keys)
		return INT64_MAX;
	return console_rate.next;
}
