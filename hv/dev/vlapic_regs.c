/* Virtual local APIC: register access (xAPIC page, APIC-write exits),
 * ICR sends and the x2APIC MSRs (SDM §11.4, §11.6.1, §11.12). */
#include "dev/vlapic_impl.h"
#include "errno.h"
#include "log.h"

/* ICR write (SDM §11.6.1, x2APIC §11.12.9): decode and hand to the owner. */
static void icr_send(struct vlapic *l)
{
	bool x2 = l->mode == VLAPIC_X2APIC;
	uint32_t lo = vlapic_reg(l, APIC_ICR_LO);
	uint32_t hi = vlapic_reg(l, x2 ? APIC_ICR_X2HI : APIC_ICR_HI);
	struct apic_msg m = {
		.vector = (uint8_t)lo,
		.mode = (lo >> 8) & 7,
		.logical = (lo >> 11) & 1,
		.assert = (lo >> 14) & 1,
		.level_trig = (lo >> 15) & 1,
		.shorthand = (lo >> 18) & 3,
		.x2apic_dest = x2,
	};

	m.dest = m.x2apic_dest ? hi : hi >> 24;
	if (m.mode != APIC_DM_INIT)
		m.level_trig = false;   /* the trigger bit only qualifies INIT de-assert */
	if ((m.mode == APIC_DM_FIXED || m.mode == APIC_DM_LOWEST) && m.vector < 16) {
		lapic_error(l, APIC_ESR_SEND_ILLEGAL);
		return;
	}
	if (m.mode == APIC_DM_INIT && !m.assert && (lo & BIT(15)))
		return;
	l->ops->ipi(l->ops->ctx, l, &m);
}

/* ------------------------------------------------------------ register access */

static bool is_lvt(unsigned off)
{
	return off >= APIC_LVT_TIMER && off <= APIC_LVT_ERROR;
}

static bool is_vec_reg(unsigned off)
{
	return off >= APIC_ISR && off < APIC_ESR;
}

/* Register read; -EINVAL for registers absent or write-only in this mode. */
static int reg_read(struct vlapic *l, unsigned off, uint32_t *val)
{
	bool x2 = l->mode == VLAPIC_X2APIC;

	switch (off) {
	case APIC_ID: case APIC_VERSION: case APIC_TPR: case APIC_LDR: case APIC_SVR:
	case APIC_ESR: case APIC_ICR_LO: case APIC_TMICT: case APIC_TDCR:
		break;
	case APIC_PPR:
		ppr_update(l);
		break;
	case APIC_TMCCT:
		*val = vlapic_timer_current(l, lapic_now(l));
		return 0;
	case APIC_DFR: case APIC_ICR_HI:
		if (x2)
			return -EINVAL;
		break;
	case APIC_APR: case APIC_EOI: case APIC_RRD:
		if (x2)
			return -EINVAL;
		*val = 0;
		return 0;
	default:
		if (!is_lvt(off) && !is_vec_reg(off))
			return -EINVAL;
		break;
	}
	*val = vlapic_reg(l, off);
	return 0;
}

static void svr_write(struct vlapic *l, uint32_t val)
{
	*reg(l, APIC_SVR) = val & 0x3ff;
	if (val & APIC_SVR_ENABLE)
		return;
	/* software disable masks every LVT (SDM §11.4.7.2) */
	for (unsigned off = APIC_LVT_TIMER; off <= APIC_LVT_ERROR; off += 16)
		*reg(l, off) |= APIC_LVT_MASKED;
}

static void lvt_write(struct vlapic *l, unsigned off, uint32_t val)
{
	static const uint32_t bits[] = { LVT_TIMER_BITS, LVT_DM_BITS, LVT_DM_BITS,
					 LVT_LINT_BITS, LVT_LINT_BITS, LVT_ERR_BITS };
	val &= bits[(off - APIC_LVT_TIMER) >> 4];
	if (!vlapic_sw_enabled_inl(l))
		val |= APIC_LVT_MASKED;
	*reg(l, off) = val;
	if (off == APIC_LVT_TIMER) {
		uint8_t mode = (val >> 17) & 3;

		if (mode == 3)
			mode = APIC_TIMER_ONESHOT;   /* reserved encoding */
		/* entering or leaving TSC-deadline mode disarms (SDM §11.5.4.1) */
		if ((mode == APIC_TIMER_TSCDL) != (l->timer_mode == APIC_TIMER_TSCDL)) {
			timer_disarm(l);
			*reg(l, APIC_TMICT) = 0;
		}
		l->timer_mode = mode;
	}
}

/* Register write with the mode's validity already checked by the caller. */
static int reg_write(struct vlapic *l, unsigned off, uint32_t val)
{
	switch (off) {
	case APIC_ID:
		*reg(l, off) = val & 0xff000000u;
		break;
	case APIC_TPR:
		*reg(l, off) = val & 0xff;
		ppr_update(l);
		break;
	case APIC_EOI:
		vlapic_eoi_inl(l);
		break;
	case APIC_LDR:
		*reg(l, off) = val & 0xff000000u;
		break;
	case APIC_DFR:
		*reg(l, off) = val | 0x0fffffffu;
		break;
	case APIC_SVR:
		svr_write(l, val);
		break;
	case APIC_ESR:          /* a write latches the collected errors (§11.5.3) */
		*reg(l, off) = l->esr_pending;
		l->esr_pending = 0;
		break;
	case APIC_ICR_LO:
		*reg(l, off) = val & ICR_LO_BITS;
		icr_send(l);
		break;
	case APIC_ICR_HI:
		*reg(l, off) = val & 0xff000000u;
		break;
	case APIC_TMICT:
		if (l->timer_mode == APIC_TIMER_TSCDL)
			break;      /* ignored in TSC-deadline mode */
		*reg(l, off) = val;
		vlapic_timer_load(l, lapic_now(l));
		break;
	case APIC_TDCR:
		*reg(l, off) = val & 0xb;
		break;
	case APIC_SELF_IPI:
		accept_fixed(l, (uint8_t)val, false);
		break;
	default:
		if (!is_lvt(off))
			return -EINVAL;
		lvt_write(l, off, val);
		break;
	}
	return 0;
}

int vlapic_mmio_read(struct vlapic *l, unsigned off, unsigned size, uint32_t *val)
{
	uint32_t v = 0;
	unsigned shift = (off & 3) * 8;

	if (l->mode != VLAPIC_XAPIC)
		return -ENOENT;
	if (off >= PAGE_SIZE || (size != 1 && size != 2 && size != 4) || (off & 0xf) + size > 4)
		return -EINVAL;
	if (reg_read(l, off & ~0xfu, &v) < 0) {
		lapic_error(l, APIC_ESR_ILLEGAL_REG);
		v = 0;
	}
	*val = size == 4 ? v : (v >> shift) & ((1u << (size * 8)) - 1);
	return 0;
}

int vlapic_mmio_write(struct vlapic *l, unsigned off, unsigned size, uint32_t val)
{
	if (l->mode != VLAPIC_XAPIC)
		return -ENOENT;
	if (off >= PAGE_SIZE || size != 4 || (off & 0xf))
		return -EINVAL;
	if (off == APIC_SELF_IPI || reg_write(l, off, val) < 0)
		lapic_error(l, APIC_ESR_ILLEGAL_REG);   /* read-only or reserved: ignored */
	return 0;
}

int vlapic_apic_write_exit(struct vlapic *l, unsigned off)
{
	off &= 0xff0;
	if (off == APIC_ICR_LO && l->mode == VLAPIC_X2APIC) {
		icr_send(l);    /* the CPU stored all 64 bits at 0x300 */
		return 0;
	}
	return reg_write(l, off, vlapic_reg(l, off));
}

/* ------------------------------------------------------------ MSRs */

/* Reserved bits that make an x2APIC WRMSR fault (SDM §11.12.1.3). */
static int x2apic_write_check(unsigned off, uint64_t val)
{
	switch (off) {
	case APIC_ICR_LO:
		return (val & 0xffffffffu & ~(uint64_t)(ICR_LO_BITS | BIT(12))) ? -EINVAL : 0;
	case APIC_EOI: case APIC_ESR:
		return val ? -EINVAL : 0;
	case APIC_TPR: case APIC_SELF_IPI:
		return val > 0xff ? -EINVAL : 0;
	case APIC_SVR:
		return val & ~0x3ffULL ? -EINVAL : 0;
	case APIC_TDCR:
		return val & ~0xbULL ? -EINVAL : 0;
	case APIC_TMICT:
		return val >> 32 ? -EINVAL : 0;
	default:
		if (!is_lvt(off))
			return -EINVAL;   /* read-only or absent */
		return val >> 32 ? -EINVAL : 0;
	}
}

int vlapic_msr_read(struct vlapic *l, uint32_t msr, uint64_t *val)
{
	unsigned off = (msr - MSR_X2APIC_FIRST) << 4;
	uint32_t v;

	if (msr == MSR_IA32_APIC_BASE) {
		*val = l->apic_base;
		return 0;
	}
	if (msr == MSR_IA32_TSC_DEADLINE) {
		*val = l->timer_mode == APIC_TIMER_TSCDL ? l->tscdl : 0;
		return 0;
	}
	if (msr < MSR_X2APIC_FIRST || msr > MSR_X2APIC_LAST)
		return -ENOENT;
	if (l->mode != VLAPIC_X2APIC)
		return -EINVAL;     /* x2APIC MSRs fault outside x2APIC mode (§11.12.1.2) */
	if (off == APIC_ICR_LO) {
		*val = (uint64_t)vlapic_reg(l, APIC_ICR_X2HI) << 32 | vlapic_reg(l, APIC_ICR_LO);
		return 0;
	}
	if (reg_read(l, off, &v) < 0)
		return -EINVAL;
	*val = v;
	return 0;
}

int vlapic_msr_write(struct vlapic *l, uint32_t msr, uint64_t val)
{
	unsigned off = (msr - MSR_X2APIC_FIRST) << 4;

	if (msr == MSR_IA32_APIC_BASE)
		return vlapic_base_write(l, val);
	if (msr == MSR_IA32_TSC_DEADLINE) {
		vlapic_tscdl_write(l, val);
		return 0;
	}
	if (msr < MSR_X2APIC_FIRST || msr > MSR_X2APIC_LAST)
		return -ENOENT;
	if (l->mode != VLAPIC_X2APIC || x2apic_write_check(off, val) < 0)
		return -EINVAL;
	if (off == APIC_ICR_LO) {
		*reg(l, APIC_ICR_X2HI) = (uint32_t)(val >> 32);
		*reg(l, APIC_ICR_LO) = (uint32_t)val & ICR_LO_BITS;
		icr_send(l);
		return 0;
	}
	return reg_write(l, off, (uint32_t)val);
}

/* IA32_APIC_BASE (SDM §11.4.4) with the x2APIC state machine of §11.12.5:
 * xAPIC->x2APIC and any->disabled are legal; x2APIC->xAPIC, disabled->x2APIC
 * and EN=0/EXTD=1 fault. Leaving or entering the disabled state resets the
 * registers, so re-enabling yields the power-up state. */
int vlapic_base_write(struct vlapic *l, uint64_t val)
{
	enum vlapic_mode to, from = l->mode;

	if (val & ~(l->base_addr | APIC_BASE_BSP | APIC_BASE_EXTD | APIC_BASE_EN))
		return -EINVAL;
	if ((val & APIC_BASE_EXTD) && !(val & APIC_BASE_EN))
		return -EINVAL;
	to = !(val & APIC_BASE_EN) ? VLAPIC_DISABLED :
	     (val & APIC_BASE_EXTD) ? VLAPIC_X2APIC : VLAPIC_XAPIC;
	if ((from == VLAPIC_X2APIC && to == VLAPIC_XAPIC) ||
	    (from == VLAPIC_DISABLED && to == VLAPIC_X2APIC))
		return -EINVAL;
	l->apic_base = (val & ~APIC_BASE_BSP) | (l->apic_base & APIC_BASE_BSP);
	if (to == from)
		return 0;
	l->mode = to;
	if (to == VLAPIC_X2APIC) {          /* ID widens, LDR derived (§11.12.5) */
		*reg(l, APIC_ID) = l->vcpu;
		*reg(l, APIC_LDR) = x2apic_ldr(l->vcpu);
		*reg(l, APIC_ICR_HI) = 0;
		*reg(l, APIC_ICR_X2HI) = 0;
		return 0;
	}
	vlapic_regs_reset(l, l->vcpu << 24);
	return 0;
}
