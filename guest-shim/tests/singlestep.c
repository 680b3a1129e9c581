/* Single-stepping over instructions the hypervisor emulates (CPUID, OUT, IN,
 * RDMSR, VMCALL): with RFLAGS.TF set, the #DB trap must come right after the
 * emulated instruction, as on hardware (SDM Vol. 3 §18.3.1.4), not one
 * instruction late and not never. Each step runs
 *     POPF (sets TF); 1: <insn>; 2: NOP; 3: JMP 5; 4: MOV $1,ESI; 5:
 * with exception-table entries 2 -> 4 (trap in the right place: ESI = 1) and
 * 3 -> 5 (a late trap); the guest library's fixup clears TF. */
#include "guest.h"
#include "abi.h"

const char test_name[] = "singlestep";

#ifdef __x86_64__
#define SET_TF "pushf\n\torl $0x100, (%%rsp)\n\tpopf\n"
#else
#define SET_TF "pushf\n\torl $0x100, (%%esp)\n\tpopf\n"
#endif
#define STEP_TAIL "2: nop\n3: jmp 5f\n4: mov $1, %%esi\n5:\n\t" EX_ENTRY(2b, 4b) EX_ENTRY(3b, 5b)

static void report(const char *name, unsigned long on_time, uint32_t db_before)
{
	test_check(name, on_time == 1, "trap after the instruction: %s (%u #DB)",
		   on_time == 1 ? "yes" : "no", exc_counts[1] - db_before);
}

void test_main(void)
{
	unsigned long si, di;
	uint32_t a, b, c, d, db;

	db = exc_counts[1];
	si = 0, di = 0, a = 0, c = 0;
	__asm__ volatile(SET_TF "1: cpuid\n" STEP_TAIL
			 : "+S"(si), "+D"(di), "+a"(a), "=b"(b), "+c"(c), "=d"(d) :: "memory", "cc");
	report("cpuid", si, db);

	db = exc_counts[1];
	si = 0, di = 0;
	__asm__ volatile(SET_TF "1: outb %%al, $0x80\n" STEP_TAIL
			 : "+S"(si), "+D"(di) : "a"(0x5a) : "memory", "cc");
	report("out", si, db);

	db = exc_counts[1];
	si = 0, di = 0;
	__asm__ volatile(SET_TF "1: inb $0x61, %%al\n" STEP_TAIL
			 : "+S"(si), "+D"(di), "=a"(a) :: "memory", "cc");
	report("in", si, db);

	db = exc_counts[1];
	si = 0, di = 0, c = 0x1b;   /* IA32_APIC_BASE */
	__asm__ volatile(SET_TF "1: rdmsr\n" STEP_TAIL
			 : "+S"(si), "+D"(di), "=a"(a), "=d"(d) : "c"(c) : "memory", "cc");
	report("rdmsr", si, db);

	if (hv_is_ours()) {
		unsigned long ax = HC_VERSION;

		db = exc_counts[1];
		si = 0, di = 0;
		__asm__ volatile(SET_TF "1: vmcall\n" STEP_TAIL
				 : "+S"(si), "+D"(di), "+a"(ax) : "b"(0), "c"(0), "d"(0) : "memory", "cc");
		report("vmcall", si, db);
	}
}
