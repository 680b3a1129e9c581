/* KVM paravirtual ABI, the pure part: pvclock scale and records, steal-time
 * records, the KVM MSRs on guest memory reached through a map callback, and
 * PV send-IPI through the vintc. No privileged instruction: host-testable.
 * Records follow the odd/even version protocol of pvclock-abi.h: the host
 * makes version odd, writes, then makes it even; x86 keeps stores in order,
 * so a compiler barrier between the steps is enough (SDM vol. 3A §9.2.2). */
#include "vmx/kvm_pv.h"
#include "dev/intc.h"
#include "errno.h"
#include "log.h"

#define NS_PER_S 1000000000ull

uint32_t kvm_pv_features(void)
{
	uint32_t f = BIT(KVM_FEATURE_CLOCKSOURCE) | BIT(KVM_FEATURE_CLOCKSOURCE2) |
		     BIT(KVM_FEATURE_CLOCKSOURCE_STABLE_BIT) | BIT(KVM_FEATURE_NOP_IO_DELAY) |
		     BIT(KVM_FEATURE_STEAL_TIME);

	/* PV EOI saves the EOI exit without virtual-interrupt delivery; with it
	 * the bit is never set and the guest's EOI write does not exit anyway. */
	f |= BIT(KVM_FEATURE_PV_EOI);
	if (KVM_PV_OFFER_SEND_IPI)
		f |= BIT(KVM_FEATURE_PV_SEND_IPI);
	if (KVM_PV_HOOK_UNHALT)
		f |= BIT(KVM_FEATURE_PV_UNHALT);
	if (KVM_PV_HOOK_TLB_FLUSH)
		f |= BIT(KVM_FEATURE_PV_TLB_FLUSH);
	if (KVM_PV_HOOK_YIELD_TO)
		f |= BIT(KVM_FEATURE_PV_SCHED_YIELD);
	return f;
}

/* mul * 2^shift / 2^32 = 1e9 / tsc_hz, with mul normalised into [2^31, 2^32)
 * (full 32-bit precision; KVM's kvm_get_time_scale makes the same trade). */
int kvm_pvclock_scale_init(uint64_t tsc_hz, struct kvm_pvclock_scale *s)
{
	int shift = 0;

	if (!tsc_hz)
		return -EINVAL;
	while (shift > -32 && shift < 32) {
		unsigned __int128 m = ((unsigned __int128)NS_PER_S << (32 - shift)) / tsc_hz;

		if (m >= BIT(32))
			shift++;
		else if (m < BIT(31))
			shift--;
		else {
			s->mul = (uint32_t)m;
			s->shift = (int8_t)shift;
			return 0;
		}
	}
	return -EINVAL;
}

uint64_t kvm_pvclock_scale_delta(uint64_t delta, struct kvm_pvclock_scale s)
{
	unsigned __int128 d = delta;

	d = s.shift < 0 ? d >> -s.shift : d << s.shift;
	return (uint64_t)((d * s.mul) >> 32);
}

/* The records' versions: odd while the host writes, whatever the guest left. */
#define VERSION_BEGIN(rec, ver) do { \
		(ver) = ((rec)->version + 1) | 1; \
		(rec)->version = (ver); \
		barrier(); \
	} while (0)
#define VERSION_END(rec, ver) do { \
		barrier(); \
		(rec)->version = (ver) + 1; \
	} while (0)

void kvm_pvclock_publish(struct pvclock_vcpu_time_info *p, uint64_t tsc, uint64_t tsc_epoch,
			 struct kvm_pvclock_scale s)
{
	volatile struct pvclock_vcpu_time_info *vp = p;
	uint64_t step = BIT(32 - s.shift) - 1;
	uint64_t since = tsc > tsc_epoch ? (tsc - tsc_epoch) & ~step : 0;
	uint32_t ver;

	VERSION_BEGIN(vp, ver);

	vp->tsc_timestamp = tsc_epoch + since;
	vp->system_time = kvm_pvclock_scale_delta(since, s);
	vp->tsc_to_system_mul = s.mul;
	vp->tsc_shift = s.shift;
	vp->flags = PVCLOCK_TSC_STABLE_BIT;   /* one TSC for all vCPUs, offset 0 */
	VERSION_END(vp, ver);
}

uint64_t kvm_pvclock_read(const struct pvclock_vcpu_time_info *p, uint64_t tsc)
{
	uint64_t delta = tsc - p->tsc_timestamp;
	struct kvm_pvclock_scale s = { p->tsc_to_system_mul, p->tsc_shift };

	/* The guest shifts in 64 bits (pvclock_scale_delta): mirror that. */
	delta = s.shift < 0 ? delta >> -s.shift : delta << s.shift;
	return p->system_time + (uint64_t)(((unsigned __int128)delta * s.mul) >> 32);
}

void kvm_pvclock_wall_publish(struct pvclock_wall_clock *w, int64_t wall_ns)
{
	volatile struct pvclock_wall_clock *vw = w;
	uint64_t ns = wall_ns > 0 ? (uint64_t)wall_ns : 0;
	uint32_t ver;

	VERSION_BEGIN(vw, ver);
	vw->sec = (uint32_t)(ns / NS_PER_S);
	vw->nsec = (uint32_t)(ns % NS_PER_S);
	VERSION_END(vw, ver);
}

void kvm_steal_publish(struct kvm_pv_vcpu *k)
{
	volatile struct kvm_steal_time *st = k->steal;
	uint32_t ver;

	if (!st)
		return;
	VERSION_BEGIN(st, ver);
	if (k->steal_ns > k->steal_published)
		st->steal += k->steal_ns - k->steal_published;
	k->steal_published = k->steal_ns;
	VERSION_END(st, ver);
}

void kvm_pv_preempted_set(struct kvm_pv_vcpu *k, bool preempted)
{
	struct kvm_steal_time *st = k->steal;
	uint8_t old;

	if (!st)
		return;
	if (preempted) {
		__atomic_store_n(&st->preempted, KVM_VCPU_PREEMPTED, __ATOMIC_SEQ_CST);
		return;
	}
	/* The guest sets FLUSH_TLB with a cmpxchg while PREEMPTED is set
	 * (kvm_flush_tlb_multi): take both in one atomic exchange. */
	old = __atomic_exchange_n(&st->preempted, 0, __ATOMIC_SEQ_CST);
	if (old & KVM_VCPU_FLUSH_TLB) {
		k->flush_tlb = true;
		k->flushes++;
	}
}

static bool has(uint32_t features, unsigned bit)
{
	return features & BIT(bit);
}

int kvm_pv_msr_read(const struct kvm_pv_vcpu *k, uint32_t features, uint32_t msr, uint64_t *val)
{
	switch (msr) {
	case MSR_KVM_SYSTEM_TIME:
	case MSR_KVM_WALL_CLOCK:
		if (!has(features, KVM_FEATURE_CLOCKSOURCE))
			return -EINVAL;
		break;
	case MSR_KVM_SYSTEM_TIME_NEW:
	case MSR_KVM_WALL_CLOCK_NEW:
		if (!has(features, KVM_FEATURE_CLOCKSOURCE2))
			return -EINVAL;
		break;
	case MSR_KVM_STEAL_TIME:
		if (!has(features, KVM_FEATURE_STEAL_TIME))
			return -EINVAL;
		*val = k->steal_msr;
		return 0;
	case MSR_KVM_PV_EOI_EN:
		if (!has(features, KVM_FEATURE_PV_EOI))
			return -EINVAL;
		*val = k->pv_eoi_msr;
		return 0;
	default:
		return -EINVAL;
	}
	*val = msr == MSR_KVM_SYSTEM_TIME || msr == MSR_KVM_SYSTEM_TIME_NEW ? k->system_time_msr
									   : k->wall_clock_msr;
	return 0;
}

static bool log_ok(const struct kvm_pv_env *e)
{
	return !e->log_ok || e->log_ok(e->ctx);
}

static int system_time_write(struct kvm_pv_vcpu *k, const struct kvm_pv_env *e, uint64_t val)
{
	k->system_time_msr = val;
	k->clock = NULL;
	if (!(val & KVM_MSR_ENABLED))
		return 0;
	k->clock = e->map(e->ctx, val & ~KVM_MSR_ENABLED, sizeof(*k->clock));
	if (!k->clock) {
		if (log_ok(e))
			pr_warn("kvm: kvmclock record at %#lx is not in guest RAM; clock off\n",
				(unsigned long)val);
		return 0;
	}
	kvm_pvclock_publish(k->clock, e->tsc, e->tsc_epoch, e->scale);
	k->clock_updates++;
	return 0;
}

static int wall_clock_write(struct kvm_pv_vcpu *k, const struct kvm_pv_env *e, uint64_t val)
{
	struct pvclock_wall_clock *w = e->map(e->ctx, val, sizeof(*w));

	k->wall_clock_msr = val;
	if (w)
		kvm_pvclock_wall_publish(w, e->wall_ns_at_epoch);
	return 0;
}

static int steal_time_write(struct kvm_pv_vcpu *k, const struct kvm_pv_env *e, uint64_t val)
{
	if (val & KVM_STEAL_RESERVED_MASK)
		return -EINVAL;   /* KVM: #GP on reserved bits */
	k->steal_msr = val;
	k->steal = NULL;
	if (!(val & KVM_MSR_ENABLED))
		return 0;
	k->steal = e->map(e->ctx, val & KVM_STEAL_GPA_MASK, sizeof(*k->steal));
	if (!k->steal) {
		if (log_ok(e))
			pr_warn("kvm: steal-time record at %#lx is not in guest RAM; off\n",
				(unsigned long)val);
		return 0;
	}
	/* The guest's `steal` keeps counting from what it holds now. */
	k->steal_published = k->steal_ns;
	kvm_steal_publish(k);
	return 0;
}

/* A word outside guest RAM is refused with #GP, as KVM does. The guest
 * zeroes it before enabling; nothing is armed until the next entry. */
static int pv_eoi_write(struct kvm_pv_vcpu *k, const struct kvm_pv_env *e, uint64_t val)
{
	volatile uint8_t *p = NULL;

	if (val & KVM_PV_EOI_RESERVED)
		return -EINVAL;
	if (val & KVM_MSR_ENABLED) {
		p = e->map(e->ctx, val & ~3ull, 4);
		if (!p) {
			if (log_ok(e))
				pr_warn("kvm: PV EOI word at %#lx is not in guest RAM; #GP\n",
					(unsigned long)val);
			return -EINVAL;
		}
	}
	k->pv_eoi_msr = val;
	k->pv_eoi = p;
	k->pv_eoi_armed = false;
	return 0;
}

void kvm_pv_eoi_arm(struct kvm_pv_vcpu *k)
{
	*k->pv_eoi |= KVM_PV_EOI_PENDING;
	k->pv_eoi_armed = true;
}

bool kvm_pv_eoi_disarm(struct kvm_pv_vcpu *k)
{
	uint8_t b = *k->pv_eoi;

	k->pv_eoi_armed = false;
	if (!(b & KVM_PV_EOI_PENDING)) {
		k->pv_eois++;
		return true;
	}
	*k->pv_eoi = (uint8_t)(b & ~KVM_PV_EOI_PENDING);
	return false;
}

int kvm_pv_msr_write(struct kvm_pv_vcpu *k, const struct kvm_pv_env *e, uint32_t msr,
		     uint64_t val)
{
	switch (msr) {
	case MSR_KVM_SYSTEM_TIME:
		return has(e->features, KVM_FEATURE_CLOCKSOURCE) ? system_time_write(k, e, val)
								 : -EINVAL;
	case MSR_KVM_SYSTEM_TIME_NEW:
		return has(e->features, KVM_FEATURE_CLOCKSOURCE2) ? system_time_write(k, e, val)
								  : -EINVAL;
	case MSR_KVM_WALL_CLOCK:
		return has(e->features, KVM_FEATURE_CLOCKSOURCE) ? wall_clock_write(k, e, val)
								 : -EINVAL;
	case MSR_KVM_WALL_CLOCK_NEW:
		return has(e->features, KVM_FEATURE_CLOCKSOURCE2) ? wall_clock_write(k, e, val)
								  : -EINVAL;
	case MSR_KVM_STEAL_TIME:
		return has(e->features, KVM_FEATURE_STEAL_TIME) ? steal_time_write(k, e, val)
								: -EINVAL;
	case MSR_KVM_PV_EOI_EN:
		return has(e->features, KVM_FEATURE_PV_EOI) ? pv_eoi_write(k, e, val) : -EINVAL;
	default:
		return -EINVAL;   /* async PF, poll control: not offered */
	}
}

static int apic_to_vcpu_locked(struct vintc *ic, uint64_t apic_id)
{
	for (unsigned i = 0; i < ic->nr_vcpus; i++) {
		struct vlapic *l = ic->lapic[i];

		if (l && vlapic_hw_enabled(l) && vlapic_id(l) == apic_id)
			return (int)i;
	}
	return -1;
}

int kvm_pv_apic_to_vcpu(struct vintc *ic, uint64_t apic_id)
{
	int r;

	spin_lock(&ic->lock);
	r = apic_to_vcpu_locked(ic, apic_id);
	spin_unlock(&ic->lock);
	return r;
}

/* ICR fields (SDM vol. 3A §11.6.1): vector 7:0, delivery mode 10:8,
 * destination mode 11, level 14, trigger mode 15, shorthand 19:18. */
#define ICR_DEST_LOGICAL BIT(11)
#define ICR_ASSERT       BIT(14)
#define ICR_LEVEL        BIT(15)
#define ICR_SHORTHAND    (3ull << 18)

/* Whether the message counts as sent, as KVM's __apic_accept_irq() answers
 * it (the value kvm_pv_send_ipi() sums): fixed and lowest-priority only to a
 * software-enabled LAPIC, and only legal vectors (a vector below 16 is
 * refused by the receiver, SDM §11.5.2, so ICR 0 sends nothing); NMI, INIT
 * and SIPI always (INIT unless a de-assert); SMI, ExtINT and the reserved modes never. */
static bool pv_ipi_accepted(const struct vlapic *l, const struct apic_msg *m)
{
	switch (m->mode) {
	case APIC_DM_FIXED:
	case APIC_DM_LOWEST:
		return m->vector >= 16 && vlapic_sw_enabled(l);
	case APIC_DM_INIT:
		return m->assert;   /* INIT level de-assert does nothing */
	case APIC_DM_NMI:
	case APIC_DM_SIPI:
		return true;
	default:
		return false;
	}
}

/* KVM's ABI (Linux arch/x86/kvm/lapic.c kvm_pv_send_ipi, hypercalls.rst):
 * -EINVAL only for a logical destination or a shorthand; every other
 * request returns the number of vCPUs that accepted the message, skipping
 * APIC IDs that name no vCPU and messages the target refuses. min is 32
 * bits; the low bitmap covers min.., the high one starts cluster (the
 * caller's word size, 64 or 32 bits) later, that start wrapping at 32 bits
 * as in KVM. A 32-bit caller's arguments are 32 bits. */
int64_t kvm_pv_send_ipi(struct vintc *ic, uint64_t lo, uint64_t hi, uint64_t min, uint64_t icr,
			unsigned cluster)
{
	uint64_t wmask = cluster == 32 ? 0xffffffffull : ~0ull;
	struct apic_msg m = {
		.vector = (uint8_t)icr, .mode = (uint8_t)((icr >> 8) & 7),
		.level_trig = (icr & ICR_LEVEL) != 0,
		.assert = (icr & ICR_ASSERT) || !(icr & ICR_LEVEL), .x2apic_dest = true,
	};
	uint64_t bits[2] = { lo & wmask, hi & wmask };
	uint32_t part_min = (uint32_t)min;
	int64_t count = 0;

	if ((icr & wmask) & (ICR_DEST_LOGICAL | ICR_SHORTHAND))
		return -EINVAL;
	spin_lock(&ic->lock);
	for (unsigned w = 0; w < 2; w++, part_min += cluster) {
		while (bits[w]) {
			unsigned b = (unsigned)__builtin_ctzll(bits[w]);
			uint64_t id = (uint64_t)part_min + b;
			int i = apic_to_vcpu_locked(ic, id);

			bits[w] &= bits[w] - 1;
			if (i < 0 || !pv_ipi_accepted(ic->lapic[i], &m))
				continue;
			m.dest = (uint32_t)id;
			vlapic_accept_msg(ic->lapic[i], &m);
			ic->ipis++;
			count++;
		}
	}
	spin_unlock(&ic->lock);
	return count;
}
