/* Instructions other than MOV on device memory (the hypervisor decodes and
 * emulates them: hv/vmx/decode.c, hv/vm/mmio.c). The scratch register is the
 * low half of the last IOAPIC redirection entry, read and written through
 * IOWIN (writable bits 0x1afff; the mask bit 16 stays set so it never
 * fires): read-modify-write ALU forms with register and immediate sources
 * (01/09/21/29/31/39, 03/3B, 81/83, 85/F7, FF), XCHG, CMPXCHG, XADD,
 * BT/BTS/BTR/BTC,
 * MOVZX/MOVSX (on a hole, which reads all ones), MOVS/STOS/LODS with REP in both directions (longer than the
 * hypervisor's per-exit batch), and RSP as the register operand. Each check
 * compares the value and the arithmetic flags with what the SDM defines
 * (the same on bare QEMU). 1 vCPU. */
#include "guest.h"

const char test_name[] = "mmio";

#define FL_CF 0x001ul
#define FL_PF 0x004ul
#define FL_ZF 0x040ul
#define FL_SF 0x080ul
#define FL_OF 0x800ul
#define FL_ARITH (FL_CF | FL_PF | FL_ZF | FL_SF | FL_OF)   /* AF left out */
#define RTE_MASKED 0x10000u
#define IOWIN 0x10
#define LONG_REP 200
#define HOLE 0xd0000000ul   /* below 4 GiB, outside RAM and devices */   /* > MMIO_STRING_BATCH: the REP resumes */

static volatile uint32_t *sel, *win;
static uint32_t ram_buf[4];
static uint8_t byte_buf[LONG_REP + 8];

static void rte_set(uint32_t v)
{
	*win = v;
}

static uint32_t rte_get(void)
{
	return *win;
}

#define FLAGS(fl) __asm__ volatile("pushf\n\tpop %0" : "=r"(fl) :: "memory")

static bool check_val_flags(const char *name, uint32_t got, uint32_t want, unsigned long fl,
			    unsigned long want_fl)
{
	return test_check(name, got == want && (fl & FL_ARITH) == want_fl,
			  "value %#x (want %#x) flags %#lx (want %#lx)", got, want,
			  fl & FL_ARITH, want_fl);
}

static void check_alu(void)
{
	unsigned long fl;
	uint32_t r;

	rte_set(RTE_MASKED | 0x20);
	__asm__ volatile("orl %2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) : "r"(0x05u) : "cc");
	check_val_flags("or_reg", rte_get(), RTE_MASKED | 0x25, fl, 0);
	__asm__ volatile("orl $0x100,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) :: "cc");
	check_val_flags("or_imm32", rte_get(), RTE_MASKED | 0x125, fl, 0);
	__asm__ volatile("andl $-16,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) :: "cc");
	check_val_flags("and_imm8", rte_get(), RTE_MASKED | 0x120, fl, 0);
	__asm__ volatile("addl %2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) : "r"(0x1fu) : "cc");
	check_val_flags("add_reg", rte_get(), RTE_MASKED | 0x13f, fl, FL_PF);
	__asm__ volatile("subl $0x40,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) :: "cc");
	check_val_flags("sub_imm8", rte_get(), RTE_MASKED | 0xff, fl, FL_PF);
	__asm__ volatile("xorl %2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) : "r"(0xffu) : "cc");
	check_val_flags("xor_reg_zero_low", rte_get(), RTE_MASKED, fl, FL_PF);
	__asm__ volatile("cmpl $0x10000,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) :: "cc");
	check_val_flags("cmp_equal", rte_get(), RTE_MASKED, fl, FL_ZF | FL_PF);
	__asm__ volatile("cmpl %2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) : "r"(0x10001u) : "cc");
	check_val_flags("cmp_below", rte_get(), RTE_MASKED, fl, FL_CF | FL_SF | FL_PF);
	r = 5;
	__asm__ volatile("addl %2,%0\n\tpushf\n\tpop %1" : "+r"(r), "=r"(fl) : "m"(*win) : "cc");
	check_val_flags("add_to_reg", r, RTE_MASKED + 5, fl, FL_PF);
	r = 0x20000;
	__asm__ volatile("cmpl %2,%0\n\tpushf\n\tpop %1" : "+r"(r), "=r"(fl) : "m"(*win) : "cc");
	check_val_flags("cmp_reg_mem", r, 0x20000, fl, FL_PF);
	__asm__ volatile("testl $0x10000,%1\n\tpushf\n\tpop %0" : "=r"(fl) : "m"(*win) : "cc");
	check_val_flags("test_imm_set", rte_get(), RTE_MASKED, fl, FL_PF);
	__asm__ volatile("testl %1,%2\n\tpushf\n\tpop %0" : "=r"(fl) : "r"(0x8000u), "m"(*win) : "cc");
	check_val_flags("test_reg_clear", rte_get(), RTE_MASKED, fl, FL_ZF | FL_PF);
	rte_set(RTE_MASKED | 0x7f);
	__asm__ volatile("incl %0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) :: "cc");
	check_val_flags("inc", rte_get(), RTE_MASKED | 0x80, fl, 0);
	__asm__ volatile("lock decl %0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) :: "cc");
	check_val_flags("lock_dec", rte_get(), RTE_MASKED | 0x7f, fl, 0);
}

static void check_xchg_bt_movx(void)
{
	unsigned long fl;
	uint32_t r = RTE_MASKED | 0x33, hole_ones, acc;

	rte_set(RTE_MASKED | 0x44);
	__asm__ volatile("xchgl %0,%1" : "+r"(r), "+m"(*win));
	test_check("xchg", r == (RTE_MASKED | 0x44) && rte_get() == (RTE_MASKED | 0x33),
		   "reg %#x mem %#x", r, rte_get());
	r = RTE_MASKED | 0x22;
	rte_set(RTE_MASKED | 0x11);
	acc = RTE_MASKED | 0x11;
	__asm__ volatile("lock cmpxchgl %3,%0\n\tpushf\n\tpop %1"
			 : "+m"(*win), "=r"(fl), "+a"(acc) : "r"(r) : "cc");
	test_check("cmpxchg_equal", (fl & FL_ZF) && acc == (RTE_MASKED | 0x11) &&
		   rte_get() == (RTE_MASKED | 0x22), "flags %#lx eax %#x mem %#x", fl, acc, rte_get());
	acc = RTE_MASKED | 0x99;
	r = RTE_MASKED | 0x33;
	__asm__ volatile("lock cmpxchgl %3,%0\n\tpushf\n\tpop %1"
			 : "+m"(*win), "=r"(fl), "+a"(acc) : "r"(r) : "cc");
	test_check("cmpxchg_unequal", !(fl & FL_ZF) && acc == (RTE_MASKED | 0x22) &&
		   rte_get() == (RTE_MASKED | 0x22), "flags %#lx eax %#x mem %#x", fl, acc, rte_get());
	r = 5;
	__asm__ volatile("lock xaddl %2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl), "+r"(r) :: "cc");
	test_check("xadd", r == (RTE_MASKED | 0x22) && rte_get() == (RTE_MASKED | 0x27) &&
		   (fl & FL_ARITH) == FL_PF, "reg %#x mem %#x flags %#lx", r, rte_get(), fl & FL_ARITH);
	rte_set(RTE_MASKED | 0x33);
	__asm__ volatile("btl $16,%1\n\tpushf\n\tpop %0" : "=r"(fl) : "m"(*win) : "cc");
	test_check("bt_imm", fl & FL_CF, "flags %#lx", fl);
	__asm__ volatile("btsl $2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) :: "cc");
	test_check("bts_imm", !(fl & FL_CF) && rte_get() == (RTE_MASKED | 0x37), "flags %#lx mem %#x",
		   fl, rte_get());
	__asm__ volatile("btrl %2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) : "r"(4u) : "cc");
	test_check("btr_reg", (fl & FL_CF) && rte_get() == (RTE_MASKED | 0x27), "flags %#lx mem %#x",
		   fl, rte_get());
	__asm__ volatile("lock btcl %2,%0\n\tpushf\n\tpop %1" : "+m"(*win), "=r"(fl) : "r"(7u) : "cc");
	test_check("btc_reg", !(fl & FL_CF) && rte_get() == (RTE_MASKED | 0xa7), "flags %#lx mem %#x",
		   fl, rte_get());
	/* The IOAPIC takes only 32-bit accesses (QEMU reads others as 0): a
	 * hole outside RAM and devices reads all ones under this hypervisor
	 * (docs/vmx.md), 0 on QEMU. */
	hole_ones = hv_is_ours() ? ~0u : 0;
	__asm__ volatile("movsbl %1,%0" : "=r"(r) : "m"(*(volatile uint8_t *)HOLE));
	test_check("movsx_byte", r == hole_ones, "%#x want %#x", r, hole_ones);
	__asm__ volatile("movzwl %1,%0" : "=r"(r) : "m"(*(volatile uint16_t *)HOLE));
	test_check("movzx_word", r == (hole_ones & 0xffff), "%#x want %#x", r, hole_ones & 0xffff);
}

/* RSP as the register operand of an MMIO MOV (its value is in the VMCS,
 * not among the registers the hypervisor saves). IOREGSEL keeps 8 bits. */
static void check_rsp(void)
{
	uintptr_t sp, got, saved_sel = *sel;

	*sel = 0x3c;
#ifdef __x86_64__
	__asm__ volatile("cli\n\tmov %%rsp,%%rbx\n\tmovzbl %1,%%esp\n\tmov %%esp,%k0\n\t"
			 "mov %%rbx,%%rsp\n\tsti" : "=r"(got) : "m"(*sel) : "rbx", "memory");
#else
	__asm__ volatile("cli\n\tmov %%esp,%%ebx\n\tmovzbl %1,%%esp\n\tmov %%esp,%0\n\t"
			 "mov %%ebx,%%esp\n\tsti" : "=r"(got) : "m"(*sel) : "ebx", "memory");
#endif
	test_check("load_to_rsp", got == 0x3c, "rsp got %#lx", (unsigned long)got);
	__asm__ volatile("mov %%esp,%1\n\tmov %%esp,%k0" : "=r"(sp), "=m"(*sel) :: "memory");
	got = *sel;
	test_check("store_from_rsp", got == (sp & 0xff), "ioregsel %#lx, rsp low byte %#lx",
		   (unsigned long)got, (unsigned long)(sp & 0xff));
	*sel = (uint32_t)saved_sel;
}

static void check_strings(void)
{
	uintptr_t si, di, cx;
	uint32_t v = RTE_MASKED | 0x55, r;
	/* IOAPIC offsets 0x20-0xff hold no register: they read 0 (also on QEMU,
	 * which aliases the page every 0x100 bytes). */
	volatile uint8_t *zeros = (volatile uint8_t *)((uintptr_t)sel + 0x20);
	bool ok = true;

	si = (uintptr_t)&v, di = (uintptr_t)win;
	__asm__ volatile("cld\n\tmovsl" : "+S"(si), "+D"(di) :: "memory");
	test_check("movs_to_mmio", rte_get() == v && si == (uintptr_t)&v + 4 &&
		   di == (uintptr_t)win + 4, "rte %#x", rte_get());
	si = (uintptr_t)win;
	__asm__ volatile("cld\n\tlodsl" : "=a"(r), "+S"(si) :: "memory");
	test_check("lods", r == v && si == (uintptr_t)win + 4, "eax %#x", r);

	di = (uintptr_t)win, cx = 1;
	__asm__ volatile("cld\n\trep stosl" : "+D"(di), "+c"(cx) : "a"(RTE_MASKED | 0x66) : "memory");
	test_check("rep_stos_to_mmio", rte_get() == (RTE_MASKED | 0x66) && cx == 0 &&
		   di == (uintptr_t)win + 4, "rte %#x cx %lu", rte_get(), (unsigned long)cx);

	/* Backwards: IOWIN first, then 0x0c (ignored by the IOAPIC). */
	di = (uintptr_t)win, cx = 2;
	__asm__ volatile("std\n\trep stosl\n\tcld" : "+D"(di), "+c"(cx) : "a"(RTE_MASKED | 0x77) : "memory");
	test_check("rep_stos_backwards", rte_get() == (RTE_MASKED | 0x77) && cx == 0 &&
		   di == (uintptr_t)win - 8, "rte %#x cx %lu di-win %ld", rte_get(), (unsigned long)cx,
		   (long)(di - (uintptr_t)win));

	for (unsigned i = 0; i < ARRAY_SIZE(byte_buf); i++)
		byte_buf[i] = 0x5a;
	si = (uintptr_t)zeros, di = (uintptr_t)byte_buf, cx = LONG_REP;
	__asm__ volatile("cld\n\trep movsb" : "+S"(si), "+D"(di), "+c"(cx) :: "memory");
	for (unsigned i = 0; i < LONG_REP; i++)
		ok &= byte_buf[i] == 0;
	test_check("rep_movs_long_from_mmio", ok && byte_buf[LONG_REP] == 0x5a && cx == 0 &&
		   si == (uintptr_t)zeros + LONG_REP && di == (uintptr_t)&byte_buf[LONG_REP],
		   "cx %lu, buffer %s", (unsigned long)cx, ok ? "zeroed" : "not zeroed");

	ram_buf[0] = RTE_MASKED | 0x11, ram_buf[1] = RTE_MASKED | 0x22;
	si = (uintptr_t)&ram_buf[1], di = (uintptr_t)win, cx = 2;   /* win, then 0x0c */
	__asm__ volatile("std\n\trep movsl\n\tcld" : "+S"(si), "+D"(di), "+c"(cx) :: "memory");
	test_check("rep_movs_backwards_to_mmio", rte_get() == (RTE_MASKED | 0x22) && cx == 0 &&
		   si == (uintptr_t)ram_buf - 4 && di == (uintptr_t)win - 8, "rte %#x cx %lu",
		   rte_get(), (unsigned long)cx);
}

void test_main(void)
{
	unsigned pin = ioapic_nr_pins() - 1;

	sel = (volatile uint32_t *)acpi_ioapic_base();
	win = (volatile uint32_t *)((uintptr_t)sel + IOWIN);
	*sel = 0x10 + 2 * pin;       /* IOWIN = low half of the last RTE */
	rte_set(RTE_MASKED);
	check_alu();
	check_xchg_bt_movx();
	check_strings();
	*sel = 0x10 + 2 * pin;
	rte_set(RTE_MASKED);
	check_rsp();
}
