/* CPUID filter (SDM vol. 2A, CPUID instruction reference, and vol. 3A §9.11
 * topology enumeration). Hides what the hypervisor does not virtualise
 * (VMX, MONITOR/MWAIT, PMU, MCE/MTRR, speculation-control MSRs, SGX, PT),
 * shows what it emulates (x2APIC, TSC-deadline, ARAT, hypervisor bit) and
 * makes the topology a single package of nr_vcpus cores, one thread each. */
#include "vmx/cpuid_filter.h"
#include "vmx/xcr0.h"
#include "compiler.h"
#include "abi.h"
#include "lib/string.h"

/* Leaf 1 ECX / EDX (SDM vol. 2A Table 3-10, 3-11). */
#define L1_ECX_DTES64     BIT(2)
#define L1_ECX_MONITOR    BIT(3)
#define L1_ECX_DSCPL      BIT(4)
#define L1_ECX_VMX        BIT(5)
#define L1_ECX_SMX        BIT(6)
#define L1_ECX_EST        BIT(7)
#define L1_ECX_TM2        BIT(8)
#define L1_ECX_SDBG       BIT(11)
#define L1_ECX_XTPR       BIT(14)
#define L1_ECX_PDCM       BIT(15)
#define L1_ECX_DCA        BIT(18)
#define L1_ECX_X2APIC     BIT(21)
#define L1_ECX_TSC_DEADLINE BIT(24)
#define L1_ECX_OSXSAVE    BIT(27)
#define L1_ECX_RDRAND     BIT(30)
#define L1_ECX_HYPERVISOR BIT(31)
#define L1_EDX_MCE        BIT(7)
#define L1_EDX_APIC       BIT(9)
#define L1_EDX_MTRR       BIT(12)
#define L1_EDX_MCA        BIT(14)
#define L1_EDX_PSN        BIT(18)
#define L1_EDX_DS         BIT(21)
#define L1_EDX_ACPI       BIT(22)
#define L1_EDX_HTT        BIT(28)
#define L1_EDX_TM         BIT(29)
#define L1_EDX_PBE        BIT(31)

/* Leaf 7 subleaf 0. */
#define L7_EBX_TSC_ADJUST BIT(1)
#define L7_EBX_SGX        BIT(2)
#define L7_EBX_INVPCID    BIT(10)
#define L7_EBX_RDT_M      BIT(12)
#define L7_EBX_MPX        BIT(14)
#define L7_EBX_RDT_A      BIT(15)
#define L7_EBX_RDSEED     BIT(18)
#define L7_EBX_PT         BIT(25)
#define L7_ECX_PKU        BIT(3)
#define L7_ECX_OSPKE      BIT(4)
#define L7_ECX_WAITPKG    BIT(5)
#define L7_ECX_SGX_LC     BIT(30)
#define L7_EDX_FSRM       BIT(4)
#define L7_EDX_SPEC_MASK  (BIT(10) | BIT(26) | BIT(27) | BIT(28) | BIT(29) | BIT(31))

#define L6_EAX_ARAT       BIT(2)
#define LD1_EAX_XSAVEC    BIT(1)
#define LD1_EAX_XSAVES    BIT(3)
#define X1_ECX_SVM        BIT(2)
#define X1_EDX_RDTSCP     BIT(27)

#define CPUID_MIN_BASIC   0xbu   /* leaf 0xB is always synthesised (x2APIC IDs) */
#define CPUID_MIN_TSC     0x16u  /* 0x15/0x16 synthesised when the TSC rate is known */
#define XCR0_PKRU         BIT(9)
#define HV_LEAF_BASE      0x40000000u
#define HV_LEAF_KVM_FEAT  0x40000001u
#define HV_LEAF_OURS_ALT  0x40000100u
#define HV_LEAF_FEAT_OFF  1u     /* BASE + 1: paravirtual ABI (hv/abi.h HV_PV_*) */
#define HV_LEAF_END       0x4fffffffu

/* Topology level types in leaf 0xB/0x1F ECX[15:8]. */
#define TOPO_SMT  1
#define TOPO_CORE 2

static void cpuid_set(uint32_t *reg, uint64_t bits, bool on)
{
	if (on)
		*reg |= (uint32_t)bits;
	else
		*reg &= ~(uint32_t)bits;
}

static void cpuid_zero(struct cpuid_regs *r)
{
	memset(r, 0, sizeof(*r));
}

/* Bits needed to number nr_vcpus APIC IDs (SDM §9.11: ID field widths). */
static unsigned cpuid_id_bits(unsigned n)
{
	unsigned b = 0;

	while ((1u << b) < n)
		b++;
	return b;
}

void cpuid_policy_init(struct cpuid_policy *p, unsigned nr_vcpus, uint32_t host_max_basic)
{
	memset(p, 0, sizeof(*p));
	p->nr_vcpus = nr_vcpus ? nr_vcpus : 1;
	p->host_max_basic = host_max_basic;
	p->pv_features = HV_PV_F_ALL;
}

static void cpuid_leaf1(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			struct cpuid_regs *r)
{
	unsigned span = 1u << cpuid_id_bits(p->nr_vcpus);

	/* EBX[31:24] initial APIC ID, [23:16] addressable logical IDs. */
	r->ebx = (r->ebx & 0xffff) | ((v->index & 0xff) << 24) | (MIN(span, 255u) << 16);
	r->ecx &= ~(uint32_t)(L1_ECX_DTES64 | L1_ECX_MONITOR | L1_ECX_DSCPL | L1_ECX_VMX |
			      L1_ECX_SMX | L1_ECX_EST | L1_ECX_TM2 | L1_ECX_SDBG |
			      L1_ECX_XTPR | L1_ECX_PDCM | L1_ECX_DCA);
	r->ecx |= (uint32_t)(L1_ECX_X2APIC | L1_ECX_TSC_DEADLINE | L1_ECX_HYPERVISOR);
	cpuid_set(&r->ecx, L1_ECX_OSXSAVE, v->cr4_osxsave);
	/* Hidden unless asked for: Bochs answers RDRAND/RDSEED from the C
	 * library's rand() seeded with the host time, and Linux mixes them
	 * into its boot: two identical runs diverged (issue 17). */
	if (!p->rdrand)
		r->ecx &= ~(uint32_t)L1_ECX_RDRAND;
	r->edx &= ~(uint32_t)(L1_EDX_MCE | L1_EDX_MTRR | L1_EDX_MCA | L1_EDX_PSN |
			      L1_EDX_DS | L1_EDX_ACPI | L1_EDX_TM | L1_EDX_PBE);
	cpuid_set(&r->edx, L1_EDX_APIC, v->apic_enabled);
	cpuid_set(&r->edx, L1_EDX_HTT, p->nr_vcpus > 1);
}

/* Deterministic cache parameters (SDM vol. 2A CPUID leaf 04H): one core per
 * vCPU; the last-level cache (L3, or the host's highest level when it has no
 * L3) shared by all vCPUs of the VM, so a guest puts them all in one LLC
 * domain (Linux: cpu_llc_id = APIC ID >> order(EAX[25:14] + 1), which is 0
 * for every vCPU since EAX[25:14] + 1 covers the whole APIC ID span). */
static void cpuid_leaf4(const struct cpuid_policy *p, struct cpuid_regs *r)
{
	uint32_t cores = MIN(1u << cpuid_id_bits(p->nr_vcpus), 64u) - 1;
	uint32_t level = (r->eax >> 5) & 7;
	uint32_t llc = p->llc_level ? p->llc_level : 3;
	uint32_t sharing = level >= llc ? MIN(cores, 0xfffu) : 0;

	if ((r->eax & 0x1f) == 0)
		return;   /* no more caches */
	r->eax = (r->eax & 0x3fff) | (sharing << 14) | (cores << 26);
}

static void cpuid_leaf7(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			uint32_t subleaf, struct cpuid_regs *r)
{
	if (subleaf != 0) {
		cpuid_zero(r);
		return;
	}
	r->eax = 0;   /* no further subleaves */
	r->ebx &= ~(uint32_t)(L7_EBX_TSC_ADJUST | L7_EBX_SGX | L7_EBX_RDT_M | L7_EBX_MPX |
			      L7_EBX_RDT_A | L7_EBX_PT);
	if (!p->invpcid)
		r->ebx &= ~(uint32_t)L7_EBX_INVPCID;
	if (!p->rdrand)
		r->ebx &= ~(uint32_t)L7_EBX_RDSEED;
	r->ecx &= ~(uint32_t)(L7_ECX_WAITPKG | L7_ECX_SGX_LC);
	/* PKRU is switched between vCPUs only as an XSAVE component (vmx/fpu.c). */
	if (p->xcr0 && !(p->xcr0 & XCR0_PKRU))
		r->ecx &= ~(uint32_t)L7_ECX_PKU;
	cpuid_set(&r->ecx, L7_ECX_OSPKE, v->cr4_pke && (r->ecx & L7_ECX_PKU));
	/* FSRM hidden: Bochs reports it with fast strings off (notes/linux-guest.md). */
	r->edx &= ~(uint32_t)(L7_EDX_FSRM | L7_EDX_SPEC_MASK);
}

/* Extended topology (SDM §9.11.1 leaf 0BH): SMT level of 1 thread, core level of nr_vcpus. */
static void cpuid_leaf_topo(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			    uint32_t subleaf, struct cpuid_regs *r)
{
	r->edx = v->index;
	r->ecx = subleaf & 0xff;
	if (subleaf == 0) {
		r->eax = 0;
		r->ebx = 1;
		r->ecx |= TOPO_SMT << 8;
	} else if (subleaf == 1) {
		r->eax = cpuid_id_bits(p->nr_vcpus);
		r->ebx = p->nr_vcpus;
		r->ecx |= TOPO_CORE << 8;
	} else {
		r->eax = 0;
		r->ebx = 0;
	}
}

void cpuid_policy_xsave(struct cpuid_policy *p, uint64_t host_xcr0, const struct cpuid_regs *sub)
{
	uint64_t x = host_xcr0 & (BIT(CPUID_XSAVE_COMPS) - 1);

	for (unsigned i = 2; i < CPUID_XSAVE_COMPS; i++)
		if (!sub[i].eax || sub[i].ebx < CPUID_XSAVE_LEGACY)
			x &= ~BIT(i);
	/* Groups enabled only together (xcr0_valid()): all or none of each. */
	if ((x & XCR0_AVX512) != XCR0_AVX512 || !(x & XCR0_AVX))
		x &= ~XCR0_AVX512;
	if ((x & (XCR0_BNDREGS | XCR0_BNDCSR)) != (XCR0_BNDREGS | XCR0_BNDCSR))
		x &= ~(XCR0_BNDREGS | XCR0_BNDCSR);
	if ((x & (XCR0_XTILECFG | XCR0_XTILEDATA)) != (XCR0_XTILECFG | XCR0_XTILEDATA))
		x &= ~(XCR0_XTILECFG | XCR0_XTILEDATA);
	if (!(x & XCR0_SSE))
		x &= ~XCR0_AVX;
	p->xcr0 = x & (XCR0_X87 | XCR0_SSE) ? x | XCR0_X87 : 0;
	p->xsave_align64 = 0;
	for (unsigned i = 2; i < CPUID_XSAVE_COMPS; i++) {
		p->xsave_size[i] = (p->xcr0 >> i) & 1 ? sub[i].eax : 0;
		p->xsave_off[i] = (p->xcr0 >> i) & 1 ? sub[i].ebx : 0;
		if ((p->xcr0 >> i) & 1 && (sub[i].ecx & 2))   /* ECX[1]: 64-byte aligned */
			p->xsave_align64 |= BIT(i);
	}
	p->xsave_max = cpuid_xsave_size(p, p->xcr0);
}

uint32_t cpuid_xsave_size(const struct cpuid_policy *p, uint64_t xcr0)
{
	uint32_t end = CPUID_XSAVE_LEGACY;

	for (unsigned i = 2; i < CPUID_XSAVE_COMPS; i++)
		if ((xcr0 & p->xcr0) >> i & 1)
			end = MAX(end, p->xsave_off[i] + p->xsave_size[i]);
	return end;
}

uint32_t cpuid_xsave_compacted_size(const struct cpuid_policy *p, uint64_t xcr0)
{
	uint32_t end = CPUID_XSAVE_LEGACY;

	/* Components follow each other in bit order, each at the next 64-byte
	 * boundary if its ECX[1] says so (SDM vol. 1 §13.4.3). */
	for (unsigned i = 2; i < CPUID_XSAVE_COMPS; i++) {
		if (!((xcr0 & p->xcr0) >> i & 1))
			continue;
		if (p->xsave_align64 & BIT(i))
			end = (end + 63) & ~63u;
		end += p->xsave_size[i];
	}
	return end;
}

/* Leaf 0xD (SDM vol. 2A CPUID, vol. 1 §13.2): subleaf 0 from the offered
 * components, subleaf i >= 2 zero for a user component not offered. */
static void cpuid_leaf_xsave(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			     uint32_t subleaf, struct cpuid_regs *r)
{
	if (subleaf == 1 && !p->xsaves)
		r->eax &= ~(uint32_t)LD1_EAX_XSAVES;
	/* XSAVES shares XSAVEC's layout: both hidden, and Linux and glibc's
	 * ld.so save with XSAVEOPT/XSAVE in the standard format. */
	if (subleaf == 1 && p->no_xsavec)
		r->eax &= ~(uint32_t)(LD1_EAX_XSAVEC | LD1_EAX_XSAVES);
	if (!p->xcr0)
		return;
	if (subleaf == 0) {
		r->eax = (uint32_t)p->xcr0;
		r->edx = (uint32_t)(p->xcr0 >> 32);
		r->ecx = p->xsave_max;
		r->ebx = cpuid_xsave_size(p, v->xcr0);
	} else if (subleaf == 1) {
		/* EBX: the compacted size for XCR0 | IA32_XSS. The host's CPUID
		 * answers for the host's XCR0 (2688 in Bochs, against the 2432 a
		 * guest with XCR0 0xe7 computes: Linux 6.1 warned "XSAVE
		 * consistency problem" and tainted itself). IA32_XSS is 0 for
		 * guests (no supervisor component is offered). */
		r->ebx = cpuid_xsave_compacted_size(p, v->xcr0);
		r->ecx = r->edx = 0;
	} else if (subleaf >= 2 && subleaf < 63 && !(r->ecx & 1) &&   /* ECX[0]: supervisor */
		   !(subleaf < CPUID_XSAVE_COMPS && (p->xcr0 >> subleaf & 1))) {
		cpuid_zero(r);
	}
}

/* Leaves 0x15/0x16 (SDM vol. 2A CPUID): TSC = crystal * EBX / EAX, with the
 * LAPIC timer's input clock as the crystal (Linux takes its LAPIC period from
 * ECX: arch/x86/kernel/tsc.c native_calibrate_tsc()). */
static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Linux computes crystal_khz * EBX / EAX in 32 bits (crystal_khz = ECX /
 * 1000; native_calibrate_tsc()): with the vLAPIC's 1 GHz clock, EBX =
 * tsc_khz (50000 in Bochs) overflowed it and a kvm=off guest took its 50 MHz
 * TSC for 2.756 MHz (issue 17's measurements: its clock ran 18 times fast).
 * So the ratio is reduced, and if it still overflows, EBX is the largest
 * that fits and EAX rounds (within 1 / (2 EAX), 0.04% at 3 GHz). */
static void cpuid_tsc_ratio(uint32_t tsc_khz, uint32_t crystal_khz, uint32_t *eax,
			    uint32_t *ebx)
{
	uint32_t g = gcd32(tsc_khz, crystal_khz);

	*eax = crystal_khz / g;
	*ebx = tsc_khz / g;
	if ((uint64_t)crystal_khz * *ebx > UINT32_MAX) {
		*ebx = UINT32_MAX / crystal_khz;
		*eax = (uint32_t)(((uint64_t)crystal_khz * *ebx + tsc_khz / 2) / tsc_khz);
		if (!*eax)
			*eax = 1;
	}
}

static void cpuid_leaf_tsc(const struct cpuid_policy *p, uint32_t leaf, struct cpuid_regs *r)
{
	cpuid_zero(r);
	if (leaf == 0x15) {
		/* TSC Hz = lapic_hz * EBX / EAX = crystal_khz * EBX / EAX kHz */
		cpuid_tsc_ratio(p->tsc_khz, p->lapic_hz / 1000, &r->eax, &r->ebx);
		r->ecx = p->lapic_hz;
	} else {
		r->eax = r->ebx = p->tsc_khz / 1000;   /* base, max MHz */
		r->ecx = p->lapic_hz / 1000000;        /* bus (reference) MHz */
	}
}

static void cpuid_hv_sig(struct cpuid_regs *r, uint32_t max)
{
	r->eax = max;
	r->ebx = HV_CPUID_SIG_EBX;
	r->ecx = HV_CPUID_SIG_ECX;
	r->edx = HV_CPUID_SIG_EDX;
}

/* Our paravirtual ABI leaf BASE + 1 (docs/pv-abi.md "Discovery"). */
static void cpuid_hv_feat(const struct cpuid_policy *p, struct cpuid_regs *r)
{
	r->eax = p->pv_features;
	r->ebx = HV_PV_ABI_VERSION;
	r->ecx = HV_PV_SHARED_PAGE_SIZE;
	r->edx = 0;
}

/* Hypervisor range: ours alone, or KVM's ABI first with ours at 0x40000100
 * (Linux's kvm_cpuid_base() scans in steps of 0x100). Ours is BASE (the
 * signature, EAX = BASE + 1) and BASE + 1 (features, cpuid_hv_feat). */
static void cpuid_leaf_hv(const struct cpuid_policy *p, uint32_t leaf, struct cpuid_regs *r)
{
	uint32_t base = p->kvm_sig ? HV_LEAF_OURS_ALT : HV_LEAF_BASE;

	cpuid_zero(r);
	if (leaf == base) {
		cpuid_hv_sig(r, base + HV_LEAF_FEAT_OFF);
		return;
	}
	if (leaf == base + HV_LEAF_FEAT_OFF) {
		cpuid_hv_feat(p, r);
		return;
	}
	if (!p->kvm_sig)
		return;
	if (leaf == HV_LEAF_BASE) {
		r->eax = HV_LEAF_KVM_FEAT;
		r->ebx = CPUID_KVM_SIG_EBX;
		r->ecx = CPUID_KVM_SIG_ECX;
		r->edx = CPUID_KVM_SIG_EDX;
	} else if (leaf == HV_LEAF_KVM_FEAT) {
		r->eax = p->kvm_features;
		r->edx = p->kvm_hints;
	}
}

static bool cpuid_tsc_known(const struct cpuid_policy *p)
{
	return p->tsc_khz && p->lapic_hz >= 1000000;
}

static uint32_t cpuid_max_basic(const struct cpuid_policy *p)
{
	return cpuid_tsc_known(p) ? CPUID_MIN_TSC : CPUID_MIN_BASIC;
}

/* Basic leaves answered without the host's (past its maximum too). */
static bool cpuid_synth_basic(const struct cpuid_policy *p, uint32_t leaf)
{
	return leaf == 0xb || ((leaf == 0x15 || leaf == 0x16) && cpuid_tsc_known(p));
}

static void cpuid_leaf_basic(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			     uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	switch (leaf) {
	case 0x1: cpuid_leaf1(p, v, r); break;
	case 0x4: cpuid_leaf4(p, r); break;
	case 0x6:   /* thermal/power: only ARAT (APIC timer runs in all C-states) */
		cpuid_zero(r);
		r->eax = (uint32_t)L6_EAX_ARAT;
		break;
	case 0x7: cpuid_leaf7(p, v, subleaf, r); break;
	case 0xb:
	case 0x1f: cpuid_leaf_topo(p, v, subleaf, r); break;
	case 0xd: cpuid_leaf_xsave(p, v, subleaf, r); break;
	case 0x15:
	case 0x16:
		if (cpuid_tsc_known(p))
			cpuid_leaf_tsc(p, leaf, r);
		break;
	case 0x5:   /* MONITOR/MWAIT */
	case 0xa:   /* architectural PMU */
	case 0xf: case 0x10:   /* RDT */
	case 0x12:  /* SGX */
	case 0x14:  /* processor trace */
		cpuid_zero(r);
		break;
	default:
		break;
	}
}

static void cpuid_leaf_ext(const struct cpuid_policy *p, uint32_t leaf, struct cpuid_regs *r)
{
	if (leaf != 0x80000001u)
		return;
	r->ecx &= ~(uint32_t)X1_ECX_SVM;
	if (!p->rdtscp)
		r->edx &= ~(uint32_t)X1_EDX_RDTSCP;
}

void cpuid_filter_apply(const struct cpuid_policy *p, const struct cpuid_vcpu *v,
			uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	if (leaf >= HV_LEAF_BASE && leaf <= HV_LEAF_END)
		cpuid_leaf_hv(p, leaf, r);
	else if (leaf == 0)
		r->eax = MAX(r->eax, cpuid_max_basic(p));
	else if (leaf < HV_LEAF_BASE && leaf > p->host_max_basic && !cpuid_synth_basic(p, leaf))
		cpuid_zero(r);   /* would alias the host's last basic leaf */
	else if (leaf < HV_LEAF_BASE)
		cpuid_leaf_basic(p, v, leaf, subleaf, r);
	else
		cpuid_leaf_ext(p, leaf, r);
}
