/* Virtual local APIC: register semantics of the xAPIC page and x2APIC MSRs,
 * interrupt acceptance and priority, EOI, the timer and IPI generation.
 * Split by mechanism: this file holds the state, reset, acceptance, EOI and
 * injection and the interrupt messages; vlapic_timer.c the timer (§11.5.4);
 * vlapic_regs.c register access, ICR sends and the x2APIC MSRs.
 * References: Intel SDM vol. 3A ch. 11 (APIC), vol. 3C ch. 30 (APIC virtualization). */
#include "dev/vlapic_impl.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"
#include "load/loader.h"

_Static_assert(APIC_SELF_IPI < PAGE_SIZE, "register page is one 4 KiB page");
_Static_assert(APIC_TMR - APIC_ISR == 0x80 && APIC_IRR - APIC_TMR == 0x80,
	       "256-bit registers are 8 words 16 bytes apart");

bool vlapic_hw_enabled(const struct vlapic *l)
{
	return vlapic_hw_enabled_inl(l);
}

bool vlapic_sw_enabled(const struct vlapic *l)
{
	return vlapic_sw_enabled_inl(l);
}

uint32_t vlapic_id(const struct vlapic *l)
{
	uint32_t id = vlapic_reg(l, APIC_ID);

	return l->mode == VLAPIC_X2APIC ? id : id >> 24;
}

/* ------------------------------------------------------------ reset */

/* Power-up / INIT register values (SDM §11.4.7.1, §11.12.5): IRR/ISR/TMR/ICR/
 * LDR/TPR/timer zero, DFR all ones, LVTs masked, SVR 0xff; id is preserved. */
void vlapic_regs_reset(struct vlapic *l, uint32_t id)
{
	static const unsigned lvts[] = { APIC_LVT_TIMER, APIC_LVT_THERM, APIC_LVT_PERF,
					 APIC_LVT_LINT0, APIC_LVT_LINT1, APIC_LVT_ERROR };

	memset(l->regs, 0, PAGE_SIZE);
	*reg(l, APIC_ID) = id;
	*reg(l, APIC_VERSION) = VLAPIC_VERSION;
	*reg(l, APIC_DFR) = 0xffffffffu;
	*reg(l, APIC_SVR) = 0xff;
	for (unsigned i = 0; i < ARRAY_SIZE(lvts); i++)
		*reg(l, lvts[i]) = APIC_LVT_MASKED;
	if (l->mode == VLAPIC_X2APIC)
		*reg(l, APIC_LDR) = x2apic_ldr(id);
	l->esr_pending = 0;
	l->nmi_pending = 0;
	l->timer_mode = APIC_TIMER_ONESHOT;
	timer_disarm(l);
}

void vlapic_init(struct vlapic *l, void *page, unsigned vcpu, const struct vlapic_ops *ops)
{
	ASSERT(IS_ALIGNED((uintptr_t)page, PAGE_SIZE));
	memset(l, 0, sizeof(*l));
	l->regs = page;
	l->ops = ops;
	l->vcpu = vcpu;
	l->mode = VLAPIC_XAPIC;
	l->apic_base = GUEST_LAPIC_BASE | APIC_BASE_EN | (vcpu == 0 ? APIC_BASE_BSP : 0);
	l->base_addr = APIC_BASE_ADDR;
	l->sipi_armed = vcpu != 0;
	vlapic_regs_reset(l, vcpu << 24);
}

void vlapic_set_maxphyaddr(struct vlapic *l, unsigned bits)
{
	if (bits >= 32 && bits < 52)   /* the LAPIC page (below 4 GiB) stays addressable */
		l->base_addr = APIC_BASE_ADDR & ((1ull << bits) - 1);
}

void vlapic_init_signal(struct vlapic *l)
{
	vlapic_regs_reset(l, vlapic_reg(l, APIC_ID));
	l->sipi_armed = true;
}

/* ------------------------------------------------------------ EOI and injection */

void vlapic_eoi(struct vlapic *l)
{
	vlapic_eoi_inl(l);
}

int vlapic_pv_eoi_vector(const struct vlapic *l)
{
	int v = vec_highest(l, APIC_ISR);

	if (v < 0 || vec_highest(l, APIC_IRR) >= 0 || vlapic_vec_test(l, APIC_TMR, (uint8_t)v))
		return -1;
	return v;
}

void vlapic_eoi_exit(struct vlapic *l, uint8_t vector)
{
	ppr_update(l);
	if (vlapic_vec_test(l, APIC_TMR, vector))
		l->ops->eoi(l->ops->ctx, vector);
}

/* vlapic_pending() without the PPR store: for a vCPU that may be running on
 * another pCPU meanwhile. With APIC virtualization PPR is a virtualized
 * register of the virtual-APIC page, which software must not write while a
 * logical processor runs the guest (SDM §30.1: only the other fields may be
 * modified then); the CPU recomputes it (PPR virtualization, §30.1.3) at
 * EOI, at delivery and at VM entry. */
int vlapic_pending_peek(const struct vlapic *l)
{
	uint8_t tpr = (uint8_t)vlapic_reg(l, APIC_TPR), ppr;
	int isrv, v;

	if (!vlapic_hw_enabled(l))
		return -1;
	isrv = vec_highest(l, APIC_ISR);
	ppr = (tpr & 0xf0) >= (isrv < 0 ? 0 : (isrv & 0xf0)) ? tpr : (uint8_t)(isrv & 0xf0);
	v = vec_highest(l, APIC_IRR);
	if (v < 0 || (v & 0xf0) <= (ppr & 0xf0))
		return -1;
	return v;
}

int vlapic_pending(struct vlapic *l)
{
	uint8_t ppr;
	int v;

	if (!vlapic_hw_enabled(l))
		return -1;
	ppr = ppr_update(l);
	v = vec_highest(l, APIC_IRR);
	if (v < 0 || (v & 0xf0) <= (ppr & 0xf0))
		return -1;
	return v;
}

int vlapic_ack(struct vlapic *l, uint8_t vector)
{
	if (!vlapic_vec_test(l, APIC_IRR, vector))
		return -EINVAL;
	vec_clear(l, APIC_IRR, vector);
	vec_set(l, APIC_ISR, vector);
	ppr_update(l);
	return 0;
}

void vlapic_nmi_raise(struct vlapic *l)
{
	if (l->nmi_pending < 2)
		l->nmi_pending++;
	l->ops->kick(l->ops->ctx, l->vcpu);
}

bool vlapic_nmi_take(struct vlapic *l, bool blocked)
{
	if (blocked) {
		l->nmi_pending = MIN(l->nmi_pending, (uint8_t)1);
		return false;
	}
	if (!l->nmi_pending)
		return false;
	l->nmi_pending--;
	return true;
}

bool vlapic_accepts_extint(const struct vlapic *l)
{
	uint32_t lvt = vlapic_reg(l, APIC_LVT_LINT0);

	if (!vlapic_hw_enabled(l))
		return true;
	return !(lvt & APIC_LVT_MASKED) && ((lvt >> 8) & 7) == APIC_DM_EXTINT;
}

uint8_t vlapic_tpr_threshold(struct vlapic *l)
{
	int v = vec_highest(l, APIC_IRR);

	return v < 0 ? 0 : (uint8_t)(v >> 4);
}

uint16_t vlapic_intr_status(struct vlapic *l)
{
	int rvi = vec_highest(l, APIC_IRR), svi = vec_highest(l, APIC_ISR);

	return (uint16_t)((svi < 0 ? 0 : svi) << 8 | (rvi < 0 ? 0 : rvi));
}

/* ------------------------------------------------------------ messages */

bool vlapic_match_dest(const struct vlapic *l, const struct apic_msg *m)
{
	uint32_t ldr = vlapic_reg(l, APIC_LDR), d = m->dest;
	uint8_t l8 = (uint8_t)(ldr >> 24), d8 = (uint8_t)d;

	if (!vlapic_hw_enabled(l))
		return false;
	if (m->x2apic_dest && l->mode == VLAPIC_X2APIC) {     /* SDM §11.12.10 */
		if (d == 0xffffffffu)
			return true;
		if (!m->logical)
			return vlapic_id(l) == d;
		return (ldr >> 16) == (d >> 16) && (ldr & d & 0xffff);
	}
	if (m->x2apic_dest && d > 0xff)
		return d == 0xffffffffu;
	if (d8 == 0xff)                                         /* SDM §11.6.2.3 */
		return true;
	if (!m->logical)                                        /* SDM §11.6.2.1 */
		return vlapic_id(l) == d8;
	if (l->mode == VLAPIC_X2APIC)
		return false;   /* 8-bit logical destinations need interrupt remapping */
	if ((vlapic_reg(l, APIC_DFR) >> 28) == 0xf)             /* flat, §11.6.2.2 */
		return (l8 & d8) != 0;
	return (l8 >> 4) == (d8 >> 4) && (l8 & d8 & 0xf);       /* cluster */
}

void vlapic_accept_msg(struct vlapic *l, const struct apic_msg *m)
{
	if (!vlapic_hw_enabled(l))
		return;
	switch (m->mode) {
	case APIC_DM_FIXED:
	case APIC_DM_LOWEST:
		accept_fixed(l, m->vector, m->level_trig);
		break;
	case APIC_DM_NMI:
		vlapic_nmi_raise(l);
		break;
	case APIC_DM_INIT:          /* SDM §11.4.7.3: INIT enters wait-for-SIPI */
		if (!m->assert && m->level_trig)
			break;      /* INIT level de-assert: no effect (§11.6.1) */
		vlapic_init_signal(l);
		l->ops->start(l->ops->ctx, l->vcpu, -1);
		break;
	case APIC_DM_SIPI:          /* only a vCPU in wait-for-SIPI starts */
		if (!l->sipi_armed)
			break;
		l->sipi_armed = false;
		l->ops->start(l->ops->ctx, l->vcpu, m->vector);
		break;
	case APIC_DM_EXTINT:        /* the vector comes from the 8259 at INTA */
		l->ops->kick(l->ops->ctx, l->vcpu);
		break;
	default:
		pr_debug("vlapic%u: delivery mode %u ignored\n", l->vcpu, m->mode);
		break;
	}
}
