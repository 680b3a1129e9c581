/* vCPU placement and per-pCPU run lists (see place.h). */
#include "vm/place.h"
#include "arch/x86/percpu.h"
#include "lib/fmt.h"
#include "log.h"

static struct vcpu *runlist[MAX_CPUS];
static unsigned next_pcpu;

unsigned place_vcpu(int requested)
{
	if (requested >= 0 && (unsigned)requested < nr_cpus_online)
		return (unsigned)requested;
	if (requested >= 0)
		pr_warn("vm: pcpus= names cpu%d, which is not online; placing elsewhere\n", requested);
	return next_pcpu++ % nr_cpus_online;
}

void place_commit(struct vm *vm)
{
	for (unsigned i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = vm->vcpu[i], **pp = &runlist[v->pcpu];

		while (*pp)
			pp = &(*pp)->next_on_pcpu;
		*pp = v;
	}
}

struct vcpu *place_first(unsigned pcpu)
{
	return runlist[pcpu];
}

static bool can_run(struct vcpu *v)
{
	if (v->vm->state != VM_RUNNING)
		return false;
	switch (READ_ONCE(v->state)) {
	case VCPU_RUNNABLE:
		return true;
	case VCPU_HALTED:
		return vcpu_has_wakeup(v);
	case VCPU_WAIT_SIPI:
		return READ_ONCE(v->sipi_vector) >= 0 || READ_ONCE(v->init_pending);
	default:
		return false;
	}
}

struct vcpu *place_pick(unsigned pcpu, struct vcpu *last)
{
	struct vcpu *start = last && last->next_on_pcpu ? last->next_on_pcpu : runlist[pcpu];
	struct vcpu *v = start;

	if (!v)
		return NULL;
	do {
		if (can_run(v))
			return v;
		v = v->next_on_pcpu ? v->next_on_pcpu : runlist[pcpu];
	} while (v != start);
	return NULL;
}

void vm_print_exits(struct vm *vm)
{
	for (unsigned i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = vm->vcpu[i];
		char line[256];
		int n = 0;

		for (unsigned r = 0; r < EXIT_REASON_MAX && n < 200; r++)
			if (v->exits[r])
				n += fmt_snprintf(line + n, sizeof(line) - (size_t)n, " %u:%lu", r,
						  v->exits[r]);
		line[n] = '\0';
		pr_info("summary:   %s vcpu%u exits by reason:%s\n", vm->p.name, i, line);
	}
}
