/* hvsched-bench: drive the real scheduler through many decisions on a fake
 * machine (no event queue) so callgrind can count instructions per call of
 * sched_schedule / sched_wake / sched_timer_fire (tools/sim/bench_sched.py).
 * usage: hvsched-bench NVCPUS NPCPUS NDECISIONS [policy [CON_EVERY]]
 * (CON_EVERY=k: every k-th 4-vCPU VM is type=con, for the co-scheduling
 * variants; 0 = all HIT). */
#include <stdio.h>
#include <stdlib.h>
#include "sched/policy.h"
#include "sched/cosched.h"

static stime_t now;
static stime_t b_now(void *c) { return now; }
static void b_timer(void *c, unsigned cpu, stime_t t) { }
static void b_kick(void *c, unsigned cpu) { }

static const struct sched_platform bench_plat = { .now = b_now, .timer_arm = b_timer,
						  .kick = b_kick };

int main(int argc, char **argv)
{
	int nv, np, n, nblocked = 0, decisions = 0, wakes = 0;
	struct sched_pcpu *pc;
	struct sched_vm *vm;
	struct sched_vcpu *v, **blocked;
	uint64_t rng = 88172645463325252ULL;

	if (argc < 4)
		return 2;
	nv = atoi(argv[1]);
	np = atoi(argv[2]);
	n = atoi(argv[3]);
	if (nv < 1 || np < 1 || np > SCHED_MAX_PCPUS || n < 1)
		return 2;
	pc = calloc((size_t)np, sizeof(*pc));
	vm = calloc((size_t)(nv + 3) / 4, sizeof(*vm));
	v = calloc((size_t)nv, sizeof(*v));
	blocked = calloc((size_t)nv, sizeof(*blocked));
	sched_platform_set(&bench_plat);
	if (sched_init(argc > 4 ? argv[4] : "credit"))
		return 1;
	for (int i = 0; i < np; i++)
		sched_pcpu_add(&pc[i], (unsigned)i, 0);
	for (int i = 0; i < (nv + 3) / 4; i++) {
		int every = argc > 5 ? atoi(argv[5]) : 0;
		struct sched_vm_params prm = { .weight = 256,
			.type = every > 0 && i % every == 0 ? SCHED_TYPE_CON : SCHED_TYPE_HIT };

		sched_vm_add(&vm[i], (uint16_t)i, &prm);
	}
	for (int i = 0; i < nv; i++) {
		sched_vcpu_add(&v[i], &vm[i / 4], (uint16_t)(i % 4), 0);
		sched_vcpu_start(&v[i], 0);
	}
	/* Every step: one pCPU's timer fires and it schedules; every 3rd step
	 * its vCPU blocks first (HLT) and a blocked vCPU is woken (interrupt). */
	for (int i = 0; i < n; i++) {
		struct sched_pcpu *p = &pc[i % np];
		struct sched_vcpu *cur;
		stime_t until;

		now += 1000000 / np + 1;
		sched_timer_fire(p, now);
		cur = p->curr;
		if (cur && i % 3 == 0 && cur->state == SCHED_RUNNING) {
			sched_block(cur, now);
			blocked[nblocked++] = cur;
		}
		sched_schedule(p, now, &until);
		decisions++;
		if (nblocked && i % 3 == 1) {
			rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
			int k = (int)(rng % (uint64_t)nblocked);
			sched_wake(blocked[k], now);
			blocked[k] = blocked[--nblocked];
			wakes++;
		}
	}
	printf("decisions=%d wakes=%d timers=%d cosched_ops=%llu cosched_signals=%llu "
	       "codesched=%llu refused=%llu\n", decisions, wakes, n,
	       (unsigned long long)cosched_stats.ops, (unsigned long long)cosched_stats.signals,
	       (unsigned long long)cosched_stats.codesched, (unsigned long long)cosched_stats.refused);
	return 0;
}
