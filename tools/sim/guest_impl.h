/* Private to the simulated guest (guest.c, guest_prog.c, guest_pv.c,
 * guest_balance.c): the guest scheduler's helpers the other files use, and
 * the program and PV steps guest_event runs. */
#ifndef SIM_GUEST_IMPL_H
#define SIM_GUEST_IMPL_H
#include "sim.h"
#include "vmx/exit_reasons.h"

/* guest.c */
void rq_push(struct sim_vcpu *v, struct sim_thread *t);
void rq_remove(struct sim_vcpu *v, struct sim_thread *t);
void thread_set_vcpu(struct sim *s, struct sim_thread *t, struct sim_vcpu *to);
void vcpu_kick(struct sim *s, struct sim_vcpu *v);
void make_ready(struct sim *s, struct sim_thread *t);
void guest_trace_exit(struct sim *s, struct sim_vcpu *v, enum exit_reason r);

/* guest_prog.c: what thread_step left the thread doing. */
enum step { NEED_TIME, LEFT_CPU, YIELDED };
enum step thread_step(struct sim *s, struct sim_thread *t);
stime_t ple_spin(struct sim *s, struct sim_vcpu *v);

/* guest_balance.c */
bool guest_idle(const struct sim_vcpu *v);
struct sim_vcpu *wake_target(struct sim *s, struct sim_thread *t);
bool guest_pull(struct sim *s, struct sim_vcpu *v, int min_gap);

/* guest_pv.c */
void guest_pv_take_irq(struct sim *s, struct sim_vcpu *v);
void guest_pv_sa_finish(struct sim *s, struct sim_vcpu *v);
void guest_pv_pull_back(struct sim *s, struct sim_vcpu *v);
bool guest_pv_balloon_step(struct sim *s, struct sim_vcpu *v);
#endif
