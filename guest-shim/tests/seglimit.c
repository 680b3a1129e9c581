/* Segment limits and types on the memory operands the hypervisor emulates
 * (issue 10): REP OUTSB/INSB (every element is done by the hypervisor after
 * the I/O exit) and REP MOVSD on an MMIO hole (the hypervisor does the
 * elements after the first EPT violation). In 32-bit protected mode each
 * must fault at the element that leaves the segment (SDM vol. 3 §5.3: #GP(0),
 * #SS(0) through SS; expand-down with B=0 ends at 0xFFFF), with ECX/ESI/EDI
 * counting the elements done, and INSB into a read-only or null ES faults
 * (§3.4.5.1, §5.4.1), as does OUTSB through an execute-only CS. The 64-bit
 * build loads the same selectors and checks that nothing faults and ES/DS
 * bases are ignored (vol. 1 §3.4.2.1). */
#include "guest.h"

const char test_name[] = "seglimit";

#define PORT      0x3ff           /* COM1 scratch register: reads back the last byte */
#define HOLE      0xd0000000u     /* below 4 GiB, outside RAM and devices: MMIO */
#define X86_SS    12
#define SEL_FLAT  0x10
#define SEL_LIM   0x20            /* data RW, base buf, limit 0xff */
#define SEL_RO    0x28            /* data read-only, flat */
#define SEL_DN32  0x30            /* expand-down RW, B=1, base buf - 0x1000, limit 0x1003 */
#define SEL_DN16  0x38            /* expand-down RW, B=0, base buf - 0xf000, limit 0x0fff */
#define SEL_SS    0x40            /* data RW, base 0, limit ss_limit (4 KiB granular) */
#define SEL_MMIO  0x48            /* data RW, base HOLE, limit 0xfff */
#define SEL_XO    0x50            /* 32-bit code, execute-only, flat */
#define NDESC     11

struct dtr { uint16_t limit; uintptr_t base; } __attribute__((packed));
struct res { uintptr_t fault, cx, si, di; };

static uint64_t gdt[NDESC] __attribute__((aligned(16)));
static uint8_t buf[0x2000] __attribute__((aligned(4096)));
static uint32_t ram_src[8];
#ifndef __x86_64__
static uint32_t ram_dst[8];
#endif
static uintptr_t ss_limit;
/* RDI at the last #GP/#SS: the fault fixup overwrites it with the vector. */
volatile uintptr_t seg_fault_di;

static uint64_t desc(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)flags << 52) |
	       ((uint64_t)(base >> 24) << 56);
}

/* #GP and #SS go through these first: record RDI, and in the 32-bit build
 * make DS/ES flat again for the library's handler (a same-privilege
 * exception keeps the data segments), then the usual stub. */
void seg_stub_gp(void);
void seg_stub_ss(void);
#ifdef __x86_64__
__asm__(".text\n"
	"seg_stub_gp: movq %rdi, seg_fault_di(%rip)\n\tjmp isr_stubs + 13 * 16\n"
	"seg_stub_ss: movq %rdi, seg_fault_di(%rip)\n\tjmp isr_stubs + 12 * 16\n");
#else
__asm__(".text\n"
	"seg_stub_gp: push %eax\n\tmov $0x10, %eax\n\tmov %eax, %ds\n\tmov %eax, %es\n\t"
	"pop %eax\n\tmovl %edi, seg_fault_di\n\tjmp isr_stubs + 13 * 16\n"
	"seg_stub_ss: push %eax\n\tmov $0x10, %eax\n\tmov %eax, %ds\n\tmov %eax, %es\n\t"
	"pop %eax\n\tmovl %edi, seg_fault_di\n\tjmp isr_stubs + 12 * 16\n");
#endif

static void gate_set(unsigned v, uintptr_t fn)
{
	struct dtr idtr;
	uint16_t *g;

	__asm__ volatile("sidt %0" : "=m"(idtr));
	g = (uint16_t *)(idtr.base + v * (sizeof(void *) == 8 ? 16 : 8));
	g[0] = (uint16_t)fn;
	g[3] = (uint16_t)(fn >> 16);
#ifdef __x86_64__
	*(uint32_t *)&g[4] = (uint32_t)(fn >> 32);
#endif
}

static void setup(void)
{
	struct dtr old, now;
	extern char __bss_end[];
	uint32_t b = (uint32_t)(uintptr_t)buf;

	__asm__ volatile("sgdt %0" : "=m"(old));
	for (unsigned i = 0; i < 4 && i * 8 < old.limit; i++)
		gdt[i] = ((const uint64_t *)old.base)[i];
	/* SS covers the image and its stacks, and 64 KiB of free RAM after it. */
	ss_limit = (((uintptr_t)__bss_end + 0xfff) & ~(uintptr_t)0xfff) + 0xffff;
	gdt[SEL_LIM >> 3] = desc(b, 0xff, 0x93, 0x4);
	gdt[SEL_RO >> 3] = desc(0, 0xfffff, 0x91, 0xc);
	gdt[SEL_DN32 >> 3] = desc(b - 0x1000, 0x1003, 0x97, 0x4);
	gdt[SEL_DN16 >> 3] = desc(b - 0xf000, 0x0fff, 0x97, 0x0);
	gdt[SEL_SS >> 3] = desc(0, (uint32_t)(ss_limit >> 12), 0x93, 0xc);
	gdt[SEL_MMIO >> 3] = desc(HOLE, 0xfff, 0x93, 0x4);
	gdt[SEL_XO >> 3] = desc(0, 0xfffff, 0x99, 0xc);
	now.limit = sizeof(gdt) - 1;
	now.base = (uintptr_t)gdt;
	__asm__ volatile("lgdt %0" :: "m"(now) : "memory");
	gate_set(13, (uintptr_t)seg_stub_gp);
	gate_set(12, (uintptr_t)seg_stub_ss);
}

/* One string instruction with segment register sreg loaded with sel for
 * its duration (the caller has interrupts off: their handlers expect flat
 * segments). The result: the fault's vector + 1 or 0 (CF says which path
 * was taken), and the registers after the instruction. */
#define SEG_RUN(sreg, insn, selv, si0, di0, cx0) ({ \
	uintptr_t __d = (di0), __si = (si0), __cx = (cx0); \
	unsigned __save; \
	bool __flt; \
	__asm__ volatile("mov %%" sreg ", %[save]\n\t" \
			 "mov %[sel], %%" sreg "\n\t" \
			 "1: " insn "\n\t" \
			 "clc\n\tjmp 3f\n" \
			 "2: stc\n" \
			 "3: mov %[save], %%" sreg "\n\t" EX_ENTRY(1b, 2b) \
			 : "+D"(__d), "+S"(__si), "+c"(__cx), [save] "=&r"(__save), "=@ccc"(__flt) \
			 : [sel] "r"(selv), "d"(PORT) : "memory"); \
	(struct res){ .fault = __flt ? __d : 0, .cx = __cx, .si = __si, \
		      .di = __flt ? seg_fault_di : __d }; })

static unsigned long irq_off(void)
{
	unsigned long fl;

	__asm__ volatile("pushf\n\tpop %0\n\tcli" : "=r"(fl) :: "memory");
	return fl;
}

static void irq_restore(unsigned long fl)
{
	__asm__ volatile("push %0\n\tpopf" :: "r"(fl) : "memory", "cc");
}

static bool want(const char *name, struct res r, uintptr_t fault, uintptr_t cx, uintptr_t si,
		 uintptr_t di)
{
	return test_check(name, r.fault == fault && r.cx == cx && r.si == si && r.di == di,
			  "fault %lu cx %#lx si %#lx di %#lx (want fault %lu cx %#lx si %#lx di %#lx)",
			  (unsigned long)r.fault, (unsigned long)r.cx, (unsigned long)r.si,
			  (unsigned long)r.di, (unsigned long)fault, (unsigned long)cx,
			  (unsigned long)si, (unsigned long)di);
}

#ifndef __x86_64__
/* REP OUTSB with a CS override, run from an execute-only code segment
 * (far-called, so the fixup path returns from it too): a data read through
 * CS needs a readable code segment (SDM vol. 3 §3.4.5.1). */
static struct res outsb_cs_execute_only(uintptr_t si, uintptr_t cx)
{
	uintptr_t d = 0;
	bool flt;

	__asm__ volatile("lcall $0x50, $1f\n\t"
			 "jmp 3f\n"
			 "1: .byte 0x2e\n\trep outsb\n\t"
			 "clc\n\tlret\n"
			 "2: stc\n\tlret\n"
			 "3:\n\t" EX_ENTRY(1b, 2b)
			 : "+S"(si), "+c"(cx), "+D"(d), "=@ccc"(flt) : "d"(PORT) : "memory");
	return (struct res){ .fault = flt ? d : 0, .cx = cx, .si = si };
}

static void check_limits32(void)
{
	struct res r;

	/* REP OUTSB through DS: bytes 0xfc-0xff go out, 0x100 is past it. */
	for (unsigned i = 0; i < 8; i++)
		buf[0xfc + i] = (uint8_t)(i + 1);
	outb(PORT, 0);
	r = SEG_RUN("ds", "rep outsb", SEL_LIM, 0xfc, 0, 8);
	want("outsb_ds_limit", r, FAULT(X86_GP), 4, 0x100, 0);
	test_check("outsb_ds_limit_last", inb(PORT) == 4, "last byte out %u (want 4)", inb(PORT));

	/* Within the limit nothing faults. */
	r = SEG_RUN("ds", "rep outsb", SEL_LIM, 0xf0, 0, 16);
	want("outsb_ds_within", r, 0, 0, 0x100, 0);

	/* REP INSB through ES: 0xfe and 0xff are written, 0x100 is not. */
	buf[0xfe] = buf[0xff] = buf[0x100] = 0x55;
	outb(PORT, 0x77);
	r = SEG_RUN("es", "rep insb", SEL_LIM, 0, 0xfe, 4);
	want("insb_es_limit", r, FAULT(X86_GP), 2, 0, 0x100);
	test_check("insb_es_limit_mem", buf[0xfe] == 0x77 && buf[0xff] == 0x77 && buf[0x100] == 0x55,
		   "bytes %#x %#x %#x", buf[0xfe], buf[0xff], buf[0x100]);

	/* Expand-down, B=1, backwards (DF=1): offsets <= 0x1003 are outside. */
	buf[3] = buf[4] = buf[5] = 0x55;
	__asm__ volatile("std");
	r = SEG_RUN("es", "rep insb", SEL_DN32, 0, 0x1005, 4);
	__asm__ volatile("cld");
	want("insb_expand_down", r, FAULT(X86_GP), 2, 0, 0x1003);
	test_check("insb_expand_down_mem", buf[5] == 0x77 && buf[4] == 0x77 && buf[3] == 0x55,
		   "bytes %#x %#x %#x", buf[5], buf[4], buf[3]);

	/* Expand-down, B=0: the segment ends at 0xFFFF, not 0xFFFFFFFF. */
	r = SEG_RUN("es", "rep insw", SEL_DN16, 0, 0xfffc, 3);
	want("insw_expand_down_b0", r, FAULT(X86_GP), 1, 0, 0x10000);

	/* INS writes ES: a read-only data segment and a null selector fault
	 * at the first element. */
	buf[0] = 0x55;
	r = SEG_RUN("es", "rep insb", SEL_RO, 0, (uintptr_t)buf, 1);
	want("insb_readonly_es", r, FAULT(X86_GP), 1, 0, (uintptr_t)buf);
	r = SEG_RUN("es", "rep insb", 0, 0, (uintptr_t)buf, 1);
	want("insb_null_es", r, FAULT(X86_GP), 1, 0, (uintptr_t)buf);
	test_check("insb_readonly_mem", buf[0] == 0x55, "byte %#x", buf[0]);

	/* A read through an execute-only CS faults at the first element. */
	r = outsb_cs_execute_only((uintptr_t)buf, 4);
	want("outsb_cs_execute_only", r, FAULT(X86_GP), 4, (uintptr_t)buf, 0);

	/* Through SS (override on OUTSB): #SS, not #GP. */
	r = SEG_RUN("ss", ".byte 0x36\n\trep outsb", SEL_SS, ss_limit - 1, 0, 4);
	want("outsb_ss_limit", r, FAULT(X86_SS), 2, ss_limit + 1, 0);

	/* REP MOVSD to MMIO: the hole at ES base HOLE, limit 0xfff; four
	 * dwords fit, the fifth faults. */
	r = SEG_RUN("es", "rep movsl", SEL_MMIO, (uintptr_t)ram_src, 0xff0, 8);
	want("movs_mmio_es_limit", r, FAULT(X86_GP), 4, (uintptr_t)ram_src + 16, 0x1000);

	/* REP MOVSD from MMIO through FS (override): two dwords of all ones,
	 * the third is past the limit. */
	for (unsigned i = 0; i < 8; i++)
		ram_dst[i] = 0x55555555;
	r = SEG_RUN("fs", ".byte 0x64\n\trep movsl", SEL_MMIO, 0xff8, (uintptr_t)ram_dst, 4);
	want("movs_mmio_fs_limit", r, FAULT(X86_GP), 2, 0x1000, (uintptr_t)ram_dst + 8);
	test_check("movs_mmio_fs_limit_mem", ram_dst[0] == 0xffffffffu && ram_dst[1] == 0xffffffffu &&
		   ram_dst[2] == 0x55555555u, "dwords %#x %#x %#x", ram_dst[0], ram_dst[1],
		   ram_dst[2]);
}
#else
/* 64-bit mode: no limit or type checks, ES/DS/SS bases are 0. */
static void check_limits64(void)
{
	uintptr_t b = (uintptr_t)buf;
	struct res r;

	for (unsigned i = 0; i < 16; i++)
		buf[0xf8 + i] = (uint8_t)(i + 1);
	r = SEG_RUN("ds", "rep outsb", SEL_LIM, b + 0xf8, 0, 16);
	want("outsb_64_no_limit", r, 0, 0, b + 0x108, 0);
	test_check("outsb_64_last", inb(PORT) == 16, "last byte out %u (want 16)", inb(PORT));
	buf[0x100] = buf[0x101] = 0x55;
	outb(PORT, 0x77);
	r = SEG_RUN("es", "rep insb", SEL_RO, 0, b + 0xfe, 4);
	want("insb_64_readonly_flat", r, 0, 0, 0, b + 0x102);
	test_check("insb_64_mem", buf[0x100] == 0x77 && buf[0x101] == 0x77, "bytes %#x %#x",
		   buf[0x100], buf[0x101]);
	r = SEG_RUN("es", "rep movsl", SEL_MMIO, (uintptr_t)ram_src, HOLE + 0xff0, 8);
	want("movs_64_mmio_flat", r, 0, 0, (uintptr_t)ram_src + 32, HOLE + 0x1010);
}
#endif

void test_main(void)
{
	unsigned long fl;

	setup();
	fl = irq_off();
#ifdef __x86_64__
	check_limits64();
#else
	check_limits32();
#endif
	irq_restore(fl);
}
