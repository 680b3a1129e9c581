/* Serial console keys and the poll rate limiter (see console_keys.h). */
#include "console_keys.h"

enum ckey_action ckey_decode(int byte)
{
	switch (byte) {
	case 'v':
		return CKEY_VPROF_DUMP;
	case 'w':
		return CKEY_STATE_DUMP;
	case '?':
		return CKEY_HELP;
	case 's':
		return CKEY_SCHED_MENU;
	case 'm':
		return CKEY_VM_MENU;
	default:
		return CKEY_NONE;
	}
}

const char *ckey_help(void)
{
	return "console: keys: v = dump every VM's vProfile, w = watchdog state dump (scheduler, interrupts, timers, vProfile), s = switch the scheduling policy (s then the policy's key), m = move one VM to another policy (m, the VM id 0-9, the policy's key), ? = this list\n";
}

char ckey_policy_key(unsigned i)
{
	return i < 10 ? (char)('0' + i) : i < 36 ? (char)('a' + i - 10) : 0;
}

static int ckey_policy_index(int byte)
{
	return byte >= '0' && byte <= '9' ? byte - '0' : byte >= 'a' && byte <= 'z' ? byte - 'a' + 10
										: -1;
}

enum ckey_action ckey_feed(struct ckey_seq *s, int byte, int *arg)
{
	if (s->vm == 1) {
		s->vm = byte >= '0' && byte <= '9' ? 2 : 0;
		s->vm_id = (uint8_t)(byte - '0');
		*arg = s->vm_id;
		return s->vm ? CKEY_VM_PICKED : CKEY_SCHED_CANCEL;
	}
	if (s->vm == 2) {
		int i = ckey_policy_index(byte);

		s->vm = 0;
		if (i < 0)
			return CKEY_SCHED_CANCEL;
		*arg = s->vm_id << 8 | i;
		return CKEY_VM_MOVE;
	}
	if (s->sched) {
		s->sched = false;
		if (byte >= '0' && byte <= '9') {
			*arg = byte - '0';
			return CKEY_SCHED_SWITCH;
		}
		if (byte >= 'a' && byte <= 'z') {
			*arg = byte - 'a' + 10;
			return CKEY_SCHED_SWITCH;
		}
		return CKEY_SCHED_CANCEL;
	}
	if (ckey_decode(byte) == CKEY_SCHED_MENU)
		s->sched = true;
	if (ckey_decode(byte) == CKEY_VM_MENU)
		s->vm = 1;
	return ckey_decode(byte);
}

void ckey_rate_init(struct ckey_rate *r, stime_t period, stime_t now)
{
	r->period = period > 0 ? period : 1;
	r->next = now;
}

/* After a long gap (idle, a dump) the next poll is one period from now,
 * not a burst of catch-up polls. */
bool ckey_rate_due(struct ckey_rate *r, stime_t now)
{
	if (now < r->next)
		return false;
	r->next = now + r->period;
	return true;
}
