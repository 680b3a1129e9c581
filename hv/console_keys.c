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
	default:
		return CKEY_NONE;
	}
}

const char *ckey_help(void)
{
	return "console: keys: v = dump every VM's vProfile, w = watchdog state dump (scheduler, interrupts, timers, vProfile), ? = this list\n";
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
