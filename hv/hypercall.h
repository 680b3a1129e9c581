/* Hypercall table: each subsystem registers its numbers (hv/abi.h). */
#ifndef HV_HYPERCALL_H
#define HV_HYPERCALL_H
#include "compiler.h"

struct vcpu;
typedef int64_t (*hcall_fn)(struct vcpu *v, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3);

struct hcall_desc {
	uint64_t nr;
	hcall_fn fn;
	const char *name;
};

#define HCALL_REGISTER(num, func) \
	static const struct hcall_desc hcall_##func HV_REGISTER(hcall) = { \
		.nr = (num), .fn = (func), .name = #func }

struct vm;
struct ratelimit;
/* Console output a VM causes by hypercall (HC_TEST_RESULT lines,
 * HC_CONSOLE_PUTS, vProfile dumps) is rate limited per VM unless the VM is
 * privileged (priv=on); docs/security.md. */
void hcall_limits_init(struct vm *vm);
/* true: the output may go out; false: dropped and counted. The first output
 * after drops is preceded by a line with their number. Caller holds vm->lock. */
bool hcall_output_allowed(struct vm *vm, struct ratelimit *rl, const char *what);
/* Drops not yet reported, for the end-of-run summary (under vm->lock). */
void hcall_limits_report(struct vm *vm);

/* Run hypercall nr for v at privilege level cpl; returns the value for RAX. */
int64_t hcall_dispatch(struct vcpu *v, unsigned cpl, uint64_t nr, uint64_t a0, uint64_t a1,
		       uint64_t a2, uint64_t a3);
#endif
