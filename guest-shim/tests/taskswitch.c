/* A hardware task switch (issue 10): every task switch exits (SDM vol. 3
 * §26.1.2) and the hypervisor does not emulate them, so it must stop this
 * VM, and only this VM, with a line that says so. gate=0: JMP to a TSS
 * descriptor; gate=1: INT 0x80 through a task gate in the IDT, a task
 * switch during event delivery (IDT-vectoring information valid, §28.2.4).
 * The output ends at the "taskswitch:" line; run beside timer (run_hv).
 * 32-bit only (IA-32e mode has no task switching); the 64-bit build passes
 * one trivial check. Skipped bare: there the switch would happen. */
#include "guest.h"

const char test_name[] = "taskswitch";

#ifndef __x86_64__
#define SEL_TSS_CUR 0x20
#define SEL_TSS_NEW 0x28

struct tss32 {
	uint16_t link, r0;
	uint32_t esp0;
	uint16_t ss0, r1;
	uint32_t esp1;
	uint16_t ss1, r2;
	uint32_t esp2;
	uint16_t ss2, r3;
	uint32_t cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint16_t es, r4, cs, r5, ss, r6, ds, r7, fs, r8, gs, r9, ldt, r10, trap, iomap;
} __attribute__((packed));
_Static_assert(sizeof(struct tss32) == 104, "32-bit TSS (SDM vol. 3 §9.2.1)");

struct dtr { uint16_t limit; uint32_t base; } __attribute__((packed));

static uint64_t gdt[6] __attribute__((aligned(16)));
static struct tss32 tss_cur, tss_new;
static uint8_t task_stack[4096] __attribute__((aligned(16)));

static uint64_t tss_desc(uint32_t base)
{
	/* Available 32-bit TSS (type 9), present, limit 0x67. */
	return 0x67 | ((uint64_t)(base & 0xffffff) << 16) | (0x89ull << 40) |
	       ((uint64_t)(base >> 24) << 56);
}

static void new_task(void)
{
	test_check("kept_running", false, "the task switch was carried out");
	test_finish();
}

static void setup(void)
{
	struct dtr old, now;
	uint32_t cr3;

	__asm__ volatile("sgdt %0" : "=m"(old));
	for (unsigned i = 0; i < 4; i++)
		gdt[i] = ((const uint64_t *)(uintptr_t)old.base)[i];
	gdt[SEL_TSS_CUR >> 3] = tss_desc((uint32_t)(uintptr_t)&tss_cur);
	gdt[SEL_TSS_NEW >> 3] = tss_desc((uint32_t)(uintptr_t)&tss_new);
	now.limit = sizeof(gdt) - 1;
	now.base = (uint32_t)(uintptr_t)gdt;
	__asm__ volatile("lgdt %0\n\tltr %w1" :: "m"(now), "r"(SEL_TSS_CUR) : "memory");
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	tss_new.cr3 = cr3;
	tss_new.eip = (uint32_t)(uintptr_t)new_task;
	tss_new.eflags = 2;
	tss_new.esp = (uint32_t)(uintptr_t)(task_stack + sizeof(task_stack));
	tss_new.cs = 0x08;
	tss_new.ds = tss_new.es = tss_new.ss = tss_new.fs = tss_new.gs = 0x10;
	tss_new.iomap = sizeof(struct tss32);
}

void test_main(void)
{
	struct dtr idtr;

	setup();
	if (!boot_arg_num("gate", 0)) {
		con_printf("taskswitch: JMP to TSS selector %#x\n", SEL_TSS_NEW);
		__asm__ volatile("ljmp $0x28, $0" ::: "memory");
	} else {
		/* Vector 0x80: a task gate (type 5, present) to the new TSS. */
		__asm__ volatile("sidt %0" : "=m"(idtr));
		((volatile uint64_t *)(uintptr_t)idtr.base)[0x80] = ((uint64_t)SEL_TSS_NEW << 16) |
								     (0x85ull << 40);
		con_printf("taskswitch: INT 0x80 through a task gate to TSS selector %#x\n",
			   SEL_TSS_NEW);
		__asm__ volatile("int $0x80" ::: "memory");
	}
	test_check("kept_running", false, "returned from the task switch");
}
#else
void test_main(void)
{
	test_check("only_32bit", true, "IA-32e mode has no task switching");
}
#endif
