/* Exception-table lookup (see extable.h). The table is small (one entry per
 * inlined safe MSR access), so a linear search on the rare fault is enough. */
#include "arch/x86/extable.h"
#include "arch/x86/trap.h"

HV_SECTION_BOUNDS(const struct extable_entry, extable);

static uint64_t extable_taken;

bool extable_fixup(struct trap_frame *f)
{
	for (const struct extable_entry *e = __start_hv_extable; e < __stop_hv_extable; e++) {
		if (e->insn != f->rip)
			continue;
		f->rip = e->fixup;
		__atomic_fetch_add(&extable_taken, 1, __ATOMIC_RELAXED);
		return true;
	}
	return false;
}

uint64_t extable_fixups_taken(void)
{
	return __atomic_load_n(&extable_taken, __ATOMIC_RELAXED);
}
