/* Token bucket for guest-triggered console output (docs/security.md): a VM
 * may print `burst` messages at once and one more every `interval` ns; what
 * exceeds that is dropped and counted. Pure; the caller serialises calls
 * (vm->lock). */
#ifndef HV_LIB_RATELIMIT_H
#define HV_LIB_RATELIMIT_H
#include "types.h"

struct ratelimit {
	stime_t interval;         /* ns per token */
	uint32_t burst;           /* bucket size */
	uint32_t tokens;
	stime_t t_refill;         /* time the bucket was last refilled to */
	uint64_t dropped;         /* messages refused so far */
	uint64_t reported;        /* dropped count already printed */
};

void ratelimit_init(struct ratelimit *rl, uint32_t burst, stime_t interval, stime_t now);
/* true: the message may go out (a token is taken); false: counted as dropped. */
bool ratelimit_take(struct ratelimit *rl, stime_t now);
/* Drops not yet reported (and mark them reported): the caller prints them. */
uint64_t ratelimit_unreported(struct ratelimit *rl);
#endif
