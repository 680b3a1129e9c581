/* Token bucket (see ratelimit.h). */
#include "lib/ratelimit.h"

void ratelimit_init(struct ratelimit *rl, uint32_t burst, stime_t interval, stime_t now)
{
	rl->interval = interval > 0 ? interval : 1;
	rl->burst = burst;
	rl->tokens = burst;
	rl->t_refill = now;
	rl->dropped = rl->reported = 0;
}

bool ratelimit_take(struct ratelimit *rl, stime_t now)
{
	if (now > rl->t_refill) {
		stime_t n = (now - rl->t_refill) / rl->interval;

		if (n >= (stime_t)(rl->burst - rl->tokens)) {
			rl->tokens = rl->burst;
			rl->t_refill = now;
		} else {
			rl->tokens += (uint32_t)n;
			rl->t_refill += n * rl->interval;
		}
	}
	if (rl->tokens) {
		rl->tokens--;
		return true;
	}
	rl->dropped++;
	return false;
}

uint64_t ratelimit_unreported(struct ratelimit *rl)
{
	uint64_t n = rl->dropped - rl->reported;

	rl->reported = rl->dropped;
	return n;
}
