/* Guest-visible conformance (issue 18): what a guest reads must match the SDM
 * and what KVM offers. EFER writes in long mode, CPUID bits that mirror CR4,
 * RFLAGS.RF in the frame of a fault the hypervisor injects, XSAVE leaf 0xD
 * consistency (as Linux checks it), IA32_APIC_BASE reserved bits from
 * MAXPHYADDR, the LAPIC timer rate of CPUID 0x15, IA32_MISC_ENABLE, MCG_CAP,
 * the multiboot1 entry GDT. */
#include "guest.h"

const char test_name[] = "conform";

#define EFER_SCE        (1ull << 0)
#define EFER_LMA        (1ull << 10)
#define EFER_NXE        (1ull << 11)
#define CR4_VMXE        (1ul << 13)
#define CR4_OSXSAVE     (1ul << 18)
#define CR4_PKE         (1ul << 22)
#define RFLAGS_RF       (1ul << 16)
#define MSR_MCG_CAP     0x179
#define MSR_MCG_STATUS  0x17a
#define MSR_MISC_ENABLE 0x1a0
#define MISC_FAST_STRINGS (1ull << 0)
#define MISC_LIMIT_CPUID  (1ull << 22)
#define MISC_XD_DISABLE   (1ull << 34)
#define MSR_UNKNOWN     0x4e0badu

static int xsetbv_safe(uint64_t v)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: xsetbv\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault) : "c"(0), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
	return (int)fault;
}

/* Item 1: with paging on in IA-32e mode, setting EFER.NXE/SCE keeps LMA (the
 * VM used to die at the next entry); changing LME there is #GP (SDM 10.8.5). */
static void check_efer(void)
{
	uint64_t efer = rdmsr(MSR_EFER), set = EFER_SCE, got = 0;
	int f1, f2, f3;

	if (sizeof(void *) != 8)
		return;   /* the 32-bit build runs with paging off */
	if (cpuid(0x80000001, 0).d & (1u << 20))
		set |= EFER_NXE;
	f1 = wrmsr_safe(MSR_EFER, efer | set);
	f2 = rdmsr_safe(MSR_EFER, &got);
	wrmsr_safe(MSR_EFER, efer);
	test_check("efer_write_long_mode", !f1 && !f2 && (got & set) == set && (got & EFER_LMA),
		   "EFER 0x%llx | 0x%llx -> faults %d/%d, read 0x%llx", (unsigned long long)efer,
		   (unsigned long long)set, f1, f2, (unsigned long long)got);
	f3 = wrmsr_safe(MSR_EFER, efer & ~(uint64_t)EFER_LME);
	test_check("efer_lme_clear_gp", f3 == FAULT(X86_GP), "clearing LME with paging on -> fault %d",
		   f3);
	if (!f3)
		wrmsr_safe(MSR_EFER, efer);
}

/* Item 1 (32-bit build, paging off): a MOV to CR0 that sets PG while
 * EFER.LME=1 and CR4.PAE=0 is #GP. Setting CD in the same write makes it a
 * CR0 exit (CD is host-owned), so the hypervisor decides; it used to enter
 * IA-32e mode without PAE and fail the VM entry. */
static void check_pg_without_pae(void)
{
	uint64_t efer = rdmsr(MSR_EFER);
	unsigned long cr0 = read_cr0();
	int f;

	if (sizeof(void *) == 8 || !(cpuid(0x80000001, 0).d & (1u << 29)))
		return;
	wrmsr(MSR_EFER, efer | EFER_LME);
	f = write_cr0_safe(cr0 | CR0_PG | (1ul << 30));   /* PG | CD */
	if (!f)
		write_cr0_safe(cr0);
	wrmsr(MSR_EFER, efer);
	test_check("cr0_pg_lme_without_pae_gp", f == FAULT(X86_GP), "fault %d", f);
}

/* Item 2: CPUID.1:ECX.OSXSAVE and CPUID.7:ECX.OSPKE mirror the guest's CR4. */
static bool cpuid_bit(uint32_t leaf, unsigned reg, unsigned bit)
{
	struct cpuid_regs r = cpuid(leaf, 0);
	uint32_t v = reg == 2 ? r.c : r.d;

	return (v >> bit) & 1;
}

static void check_cr4_mirror(const char *name, unsigned long cr4_bit, uint32_t leaf, unsigned bit)
{
	unsigned long cr4 = read_cr4();
	int f1 = write_cr4_safe(cr4 | cr4_bit);
	bool on = cpuid_bit(leaf, 2, bit);
	int f2 = write_cr4_safe(cr4 & ~cr4_bit);
	bool off = cpuid_bit(leaf, 2, bit);

	write_cr4_safe(cr4);
	test_check(name, !f1 && !f2 && on && !off, "CR4 bit %u set: CPUID bit %u, clear: %u "
		   "(faults %d/%d)", __builtin_ctzl(cr4_bit), on, off, f1, f2);
}

/* Item 4: a fault-class exception pushes RF=1 (SDM 6.13), also when the
 * hypervisor injects it (#GP for an unknown MSR, for CR4.VMXE). */
static void check_rf(void)
{
	uint64_t v;
	int f;

	exc_last_flags = 0;
	f = rdmsr_safe(MSR_UNKNOWN, &v);
	test_check("rf_gp_rdmsr", f == FAULT(X86_GP) && (exc_last_flags & RFLAGS_RF),
		   "fault %d, pushed RFLAGS 0x%lx", f, (unsigned long)exc_last_flags);
	if (!hv_is_ours())
		return;   /* bare QEMU TCG hangs after setting CR4.VMXE */
	exc_last_flags = 0;
	f = write_cr4_safe(read_cr4() | CR4_VMXE);
	if (!f)
		write_cr4_safe(read_cr4() & ~CR4_VMXE);
	test_check("rf_gp_cr4_vmxe", f == FAULT(X86_GP) && (exc_last_flags & RFLAGS_RF),
		   "fault %d, pushed RFLAGS 0x%lx", f, (unsigned long)exc_last_flags);
}

/* Item 6: leaf 0xD as Linux's paranoid_xstate_size_valid() reads it: every
 * offered user component has a size, ECX is the end of the last one, EBX
 * the end of the last enabled one (SDM vol. 1 13.2). */
static void check_xsave(void)
{
	struct cpuid_regs d0 = cpuid(0xd, 0);
	uint64_t sup = ((uint64_t)d0.d << 32) | d0.a, bad = 0;
	uint32_t end_all = 576, end_on = 576;
	unsigned long cr4 = read_cr4();
	int f;

	for (unsigned i = 2; i < 63; i++) {
		struct cpuid_regs s;

		if (!((sup >> i) & 1))
			continue;
		s = cpuid(0xd, i);
		if (!s.a || s.b < 576)
			bad |= 1ull << i;
		if (s.a + s.b > end_all)
			end_all = s.a + s.b;
	}
	test_check("xsave_sizes", !bad && d0.c == end_all,
		   "XCR0 mask 0x%llx, components without a size 0x%llx, ECX %u, computed %u",
		   (unsigned long long)sup, (unsigned long long)bad, d0.c, end_all);
	/* Enable every offered component, as Linux does, and check EBX. */
	write_cr4_safe(cr4 | CR4_OSXSAVE);
	f = xsetbv_safe(sup & ~bad);
	for (unsigned i = 2; i < 63; i++) {
		struct cpuid_regs s;

		if (((sup & ~bad) >> i) & 1) {
			s = cpuid(0xd, i);
			if (s.a + s.b > end_on)
				end_on = s.a + s.b;
		}
	}
	d0 = cpuid(0xd, 0);
	xsetbv_safe(3);
	write_cr4_safe(cr4);
	test_check("xsave_enabled_size", !f && d0.b == end_on, "XSETBV 0x%llx fault %d, EBX %u, "
		   "computed %u", (unsigned long long)(sup & ~bad), f, d0.b, end_on);
}

/* Item 7: IA32_APIC_BASE bits at and above MAXPHYADDR are reserved (SDM
 * 11.4.4); the LAPIC timer counts at the crystal rate CPUID 0x15 reports. */
static unsigned maxphyaddr(void)
{
	if (cpuid(0x80000000, 0).a >= 0x80000008)
		return cpuid(0x80000008, 0).a & 0xff;
	return 36;
}

static void check_apic_base(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	unsigned m = maxphyaddr();
	int f = m < 52 ? wrmsr_safe(MSR_APIC_BASE, base | (1ull << m)) : FAULT(X86_GP);

	if (!f)
		wrmsr_safe(MSR_APIC_BASE, base);
	test_check("apic_base_maxphyaddr_gp", f == FAULT(X86_GP),
		   "MAXPHYADDR %u: setting bit %u -> fault %d", m, m, f);
}

static void check_lapic_rate(void)
{
	struct cpuid_regs r = cpuid(0x15, 0);
	uint64_t t0, t1, cyc, lapic_hz, tsc_hz, c0, c1;

	if (cpuid(0, 0).a < 0x15 || !r.a || !r.b || !r.c) {
		test_check("lapic_rate_cpuid15", false, "max leaf 0x%x, leaf 0x15 %u/%u crystal %u Hz",
			   cpuid(0, 0).a, r.a, r.b, r.c);
		return;
	}
	tsc_hz = (uint64_t)r.c * r.b / r.a;
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | 0xee);
	apic_write(APIC_TDCR, 0xb);          /* divide by 1 */
	apic_write(APIC_TMICT, 0xffffffffu);
	t0 = rdtsc();
	c0 = apic_read(APIC_TMCCT);
	delay_us(20000);
	c1 = apic_read(APIC_TMCCT);
	t1 = rdtsc();
	apic_timer_stop();
	cyc = t1 - t0;
	lapic_hz = cyc ? (c0 - c1) * tsc_khz * 1000 / cyc : 0;
	test_check("lapic_rate_cpuid15", lapic_hz > r.c / 100 * 95 && lapic_hz < r.c / 100 * 105,
		   "crystal (LAPIC) %u Hz, measured %llu Hz", r.c, (unsigned long long)lapic_hz);
	test_check("tsc_rate_cpuid15", tsc_hz / 1000 > tsc_khz * 95 / 100 &&
		   tsc_hz / 1000 < tsc_khz * 105 / 100, "CPUID 0x15 TSC %llu kHz, calibrated %llu kHz",
		   (unsigned long long)(tsc_hz / 1000), (unsigned long long)tsc_khz);
}

/* Item 9: IA32_MISC_ENABLE reads like KVM's (fast strings on, no CPUID
 * limit, XD not disabled) and keeps what the guest writes to fast strings;
 * MCG_CAP/MCG_STATUS read without #GP. */
static void check_misc_mcg(void)
{
	uint64_t misc = 0, got = 0, cap = 0, st = 0;
	int f = rdmsr_safe(MSR_MISC_ENABLE, &misc), f2, f3;

	test_check("misc_enable_bits", !f && (misc & MISC_FAST_STRINGS) &&
		   !(misc & (MISC_LIMIT_CPUID | MISC_XD_DISABLE)), "0x%llx fault %d",
		   (unsigned long long)misc, f);
	f2 = wrmsr_safe(MSR_MISC_ENABLE, misc & ~MISC_FAST_STRINGS);
	f3 = rdmsr_safe(MSR_MISC_ENABLE, &got);
	wrmsr_safe(MSR_MISC_ENABLE, misc);
	test_check("misc_enable_write", !f2 && !f3 && got == (misc & ~MISC_FAST_STRINGS),
		   "wrote 0x%llx (fault %d), read 0x%llx", (unsigned long long)(misc & ~MISC_FAST_STRINGS),
		   f2, (unsigned long long)got);
	f = rdmsr_safe(MSR_MCG_CAP, &cap);
	f2 = rdmsr_safe(MSR_MCG_STATUS, &st);
	test_check("mcg_cap_read", !f && !f2, "MCG_CAP 0x%llx (fault %d), MCG_STATUS 0x%llx (fault %d)",
		   (unsigned long long)cap, f, (unsigned long long)st, f2);
}

/* Item 10: the multiboot1 loader leaves a GDT whose CS/DS descriptors are
 * flat 32-bit code and data (what GRUB and QEMU leave; spec 3.2 requires only
 * the segment registers). */
static bool desc_flat(uint64_t d, bool code)
{
	uint32_t limit = (uint32_t)(d & 0xffff) | (uint32_t)((d >> 32) & 0xf0000);
	uint32_t base = (uint32_t)((d >> 16) & 0xffffff) | (uint32_t)((d >> 32) & 0xff000000);
	unsigned type = (unsigned)(d >> 40) & 0x1f, p = (d >> 47) & 1, g = (d >> 55) & 1,
		 db = (d >> 54) & 1;

	return p && g && db && base == 0 && limit == 0xfffff &&
	       (code ? (type & 0x1a) == 0x1a : (type & 0x1a) == 0x12);
}

static void check_entry_gdt(void)
{
	struct gdtr32 g = boot_entry_gdtr;
	unsigned cs = boot_entry_cs, ds = boot_entry_ds;
	const uint64_t *gdt = (const uint64_t *)(uintptr_t)g.base;
	bool ok = g.limit >= 0x17 && (cs & ~7u) && (ds & ~7u) && (cs | 7u) <= g.limit &&
		  (ds | 7u) <= g.limit;

	ok = ok && desc_flat(gdt[cs >> 3], true) && desc_flat(gdt[ds >> 3], false);
	test_check("mb1_entry_gdt", ok, "GDTR base 0x%x limit 0x%x, CS 0x%x DS 0x%x", g.base,
		   g.limit, cs, ds);
}

#ifdef __x86_64__
/* SMAP (SDM vol. 3 §5.6.1) for the accesses the hypervisor makes for the
 * guest: a CPL-0 REP OUTSB reading a user page with CR4.SMAP set and
 * RFLAGS.AC clear must #PF, as the CPU's own read would; with STAC it works.
 * The user page is a 2 MiB alias (PDPT[10]) of the region holding smap_src;
 * everything else stays supervisor. */
#define CR4_SMAP (1ul << 21)
static uint64_t smap_pd[512] __attribute__((aligned(4096)));
static uint8_t smap_src[8] = "smapsmap";

static int outsb_safe(const void *src, unsigned long n)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: rep outsb\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault), "+S"(src), "+c"(n) : "d"(0x3ff) : "memory");
	return (int)fault;
}

static void check_smap(void)
{
	uint64_t cr3, *pml4, *pdpt, src = (uintptr_t)smap_src;
	const uint8_t *alias = (const uint8_t *)(uintptr_t)((10ull << 30) + (src & 0x1fffff));
	unsigned long cr4 = read_cr4();
	int denied, allowed;

	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	pml4 = (uint64_t *)(uintptr_t)(cr3 & 0x000ffffffffff000ull);
	pdpt = (uint64_t *)(uintptr_t)(pml4[0] & 0x000ffffffffff000ull);
	smap_pd[0] = (src & ~0x1fffffull) | 0x87;          /* P W U, 2 MiB */
	pdpt[10] = (uintptr_t)smap_pd | 7;
	pml4[0] |= 4;                                       /* U here; lower levels decide */
	__asm__ volatile("mov %0, %%cr3" :: "r"(cr3) : "memory");
	(void)write_cr4_safe(cr4 | CR4_SMAP);
	__asm__ volatile("clac" ::: "memory");
	denied = outsb_safe(alias, sizeof(smap_src));
	__asm__ volatile("stac" ::: "memory");
	allowed = outsb_safe(alias, sizeof(smap_src));
	__asm__ volatile("clac" ::: "memory");
	(void)write_cr4_safe(cr4);
	pdpt[10] = 0;
	pml4[0] &= ~4ull;
	__asm__ volatile("mov %0, %%cr3" :: "r"(cr3) : "memory");
	test_check("smap_string_io", denied == FAULT(X86_PF) && allowed == 0,
		   "REP OUTSB from a user page at CPL 0: AC=0 -> %d (want %d, #PF), AC=1 -> %d",
		   denied, FAULT(X86_PF), allowed);
}
#endif

void test_main(void)
{
	struct cpuid_regs l1 = cpuid(1, 0), l7 = cpuid(7, 0);

	check_entry_gdt();
	check_efer();
	check_pg_without_pae();
	if (l1.c & (1u << 26))                /* XSAVE */
		check_cr4_mirror("osxsave_follows_cr4", CR4_OSXSAVE, 1, 27);
	if (cpuid(0, 0).a >= 7 && (l7.c & (1u << 3)))   /* PKU */
		check_cr4_mirror("ospke_follows_cr4", CR4_PKE, 7, 4);
	check_rf();
	if (l1.c & (1u << 26))
		check_xsave();
	check_apic_base();
	check_lapic_rate();
	check_misc_mcg();
#ifdef __x86_64__
	if (cpuid(0, 0).a >= 7 && (l7.b & (1u << 20)))   /* SMAP */
		check_smap();
#endif
}
