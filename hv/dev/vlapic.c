/* Virtual local APIC: register semantics of the xAPIC page and x2APIC MSRs,
 * interrupt acceptance and priority, EOI, the timer and IPI generation.
 * References: Intel SDM vol. 3A ch. 11 (APIC), vol. 3C ch. 30 (APIC virtualization). */
#include "dev/vlapic.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"
#include "load/loader.h"

_Static_assert(APIC_SELF_IPI < PAGE_SIZE, "register page is one 4 KiB page");
_Static_assert(APIC_TMR - APIC_ISR == 0x80 && APIC_IRR - APIC_TMR == 0x80,
	       "256-bit registers are 8 words 16 bytes apart");

#define LVT_TIMER_BITS 0x000700ffu  /* vector, mask, mode 18:17 */
#define LVT_DM_BITS    0x000107ffu  /* vector, delivery mode, mask (thermal, perf) */
#define LVT_LINT_BITS  0x0001a7ffu  /* + polarity 13, trigger 15 */
#define LVT_ERR_BITS   0x000100ffu
#define ICR_LO_BITS    0x000ccfffu  /* vector, dm, dest mode, level, trigger, shorthand */

static uint32_t *reg(struct vlapic *l, unsigned off)
{
	return &l->regs[off >> 2];
}

static uint32_t *vec_word(struct vlapic *l, unsigned base, uint8_t v)
{
	return reg(l, base + ((unsigned)v >> 5) * 16);
}

/* IRR bits are set with a locked OR: the CPU may update the same virtual-APIC
 * page concurrently (SDM §30.2.2 virtual-interrupt delivery clears VIRR bits). */
static void vec_set(struct vlapic *l, unsigned base, uint8_t v)
{
	__atomic_fetch_or(vec_word(l, base, v), 1u << (v & 31), __ATOMIC_SEQ_CST);
}

static void vec_clear(struct vlapic *l, unsigned base, uint8_t v)
{
	__atomic_fetch_and(vec_word(l, base, v), ~(1u << (v & 31)), __ATOMIC_SEQ_CST);
}

static int vec_highest(const struct vlapic *l, unsigned base)
{
	for (int w = 7; w >= 0; w--) {
		uint32_t x = READ_ONCE(l->regs[(base + (unsigned)w * 16) >> 2]);
		if (x)
			return w * 32 + 31 - __builtin_clz(x);
	}
	return -1;
}

bool vlapic_hw_enabled(const struct vlapic *l)
{
	return l->mode != VLAPIC_DISABLED;
}

bool vlapic_sw_enabled(const struct vlapic *l)
{
	return vlapic_hw_enabled(l) && (vlapic_reg(l, APIC_SVR) & APIC_SVR_ENABLE);
}

uint32_t vlapic_id(const struct vlapic *l)
{
	uint32_t id = vlapic_reg(l, APIC_ID);

	return l->mode == VLAPIC_X2APIC ? id : id >> 24;
}

/* Logical x2APIC ID: cluster in 31:16, one bit of 16 in 15:0 (SDM §11.12.10.2). */
static uint32_t x2apic_ldr(uint32_t id)
{
	return ((id >> 4) << 16) | (1u << (id & 0xf));
}

/* PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4]:0 (SDM §11.8.3.1). */
static uint8_t ppr_update(struct vlapic *l)
{
	uint8_t tpr = (uint8_t)vlapic_reg(l, APIC_TPR);
	int isrv = vec_highest(l, APIC_ISR);
	uint8_t isr_class = isrv < 0 ? 0 : (uint8_t)(isrv & 0xf0);
	uint8_t ppr = (tpr & 0xf0) >= isr_class ? tpr : isr_class;

	*reg(l, APIC_PPR) = ppr;
	return ppr;
}

static void accept_fixed(struct vlapic *l, uint8_t vec, bool level);

/* Record an error and raise the error LVT if it is new (SDM §11.5.3). The
 * "is new" test bounds the recursion when the error vector itself is illegal. */
static void lapic_error(struct vlapic *l, uint32_t bit)
{
	uint32_t lvt = vlapic_reg(l, APIC_LVT_ERROR);

	if (l->esr_pending & bit)
		return;
	l->esr_pending |= bit;
	if (!(lvt & APIC_LVT_MASKED))
		accept_fixed(l, (uint8_t)lvt, false);
}

/* Fixed-interrupt acceptance (SDM §11.8.4): vectors 0-15 are illegal
 * (§11.5.2); a software-disabled APIC drops them (§11.4.7.2). */
static void accept_fixed(struct vlapic *l, uint8_t vec, bool level)
{
	if (vec < 16) {
		lapic_error(l, APIC_ESR_RECV_ILLEGAL);
		return;
	}
	if (!vlapic_sw_enabled(l))
		return;
	if (level)
		vec_set(l, APIC_TMR, vec);
	else
		vec_clear(l, APIC_TMR, vec);
	vec_set(l, APIC_IRR, vec);
	l->ops->kick(l->ops->ctx, l->vcpu);
}

/* Raise a local interrupt through an LVT entry (SDM §11.5.1). */
static void lvt_fire(struct vlapic *l, unsigned off)
{
	uint32_t lvt = vlapic_reg(l, off);
	unsigned dm = off == APIC_LVT_TIMER || off == APIC_LVT_ERROR ? 0 : (lvt >> 8) & 7;

	if (lvt & APIC_LVT_MASKED)
		return;
	if (dm == APIC_DM_NMI) {
		vlapic_nmi_raise(l);
	} else if (dm == APIC_DM_FIXED) {
		accept_fixed(l, (uint8_t)lvt, off != APIC_LVT_TIMER && (lvt & APIC_LVT_LEVEL));
	}
}

/* ------------------------------------------------------------ reset */

static void timer_disarm(struct vlapic *l)
{
	l->timer_deadline = STIME_NEVER;
	l->timer_period = 0;
	l->tscdl = 0;
}

/* Power-up / INIT register values (SDM §11.4.7.1, §11.12.5): IRR/ISR/TMR/ICR/
 * LDR/TPR/timer zero, DFR all ones, LVTs masked, SVR 0xff; id is preserved. */
static void regs_reset(struct vlapic *l, uint32_t id)
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
	regs_reset(l, vcpu << 24);
}

void vlapic_set_maxphyaddr(struct vlapic *l, unsigned bits)
{
	if (bits >= 32 && bits < 52)   /* the LAPIC page (below 4 GiB) stays addressable */
		l->base_addr = APIC_BASE_ADDR & ((1ull << bits) - 1);
}

void vlapic_init_signal(struct vlapic *l)
{
	regs_reset(l, vlapic_reg(l, APIC_ID));
	l->sipi_armed = true;
}

/* ------------------------------------------------------------ timer (SDM §11.5.4) */

static unsigned timer_divide(const struct vlapic *l)
{
	uint32_t d = vlapic_reg(l, APIC_TDCR);
	unsigned v = ((d >> 1) & 4) | (d & 3);

	return v == 7 ? 1 : 2u << v;
}

static void timer_load(struct vlapic *l, stime_t now)
{
	uint32_t count = vlapic_reg(l, APIC_TMICT);

	l->timer_div = timer_divide(l);
	l->timer_start = now;
	l->timer_period = (stime_t)count * l->timer_div;
	l->timer_deadline = count ? now + l->timer_period : STIME_NEVER;
}

static uint32_t timer_current(const struct vlapic *l, stime_t now)
{
	stime_t el;

	if (l->timer_mode == APIC_TIMER_TSCDL || l->timer_deadline == STIME_NEVER ||
	    l->timer_period <= 0)
		return 0;
	el = now - l->timer_start;
	if (el < 0)
		el = 0;
	if (l->timer_mode == APIC_TIMER_PERIODIC)
		el %= l->timer_period;
	else if (el >= l->timer_period)
		return 0;
	return (uint32_t)((l->timer_period - el + l->timer_div - 1) / l->timer_div);
}

stime_t vlapic_timer_next(const struct vlapic *l)
{
	return l->timer_deadline;
}

/* Fire at most once per call: periods missed while the vCPU was not running
 * are coalesced, as a real APIC's IRR would coalesce them. A periodic timer
 * re-arms no sooner than VLAPIC_MIN_PERIOD (as KVM's min_timer_period_us):
 * a 1-tick period would otherwise fire at every VM entry and livelock the
 * vCPU in its handler while its pCPU does nothing but exits. */
void vlapic_timer_advance(struct vlapic *l, stime_t now)
{
	if (now < l->timer_deadline)
		return;
	if (l->timer_mode == APIC_TIMER_PERIODIC && l->timer_period > 0) {
		stime_t p = MAX(l->timer_period, (stime_t)VLAPIC_MIN_PERIOD);

		l->timer_start += (now - l->timer_start) / p * p;
		l->timer_deadline = l->timer_start + p;
	} else {
		l->timer_deadline = STIME_NEVER;
		l->tscdl = 0;   /* SDM §11.5.4.1: the MSR reads 0 once it fired */
	}
	l->timer_fired++;
	lvt_fire(l, APIC_LVT_TIMER);
}

static stime_t lapic_now(struct vlapic *l)
{
	return l->ops->now(l->ops->ctx);
}

static void tscdl_write(struct vlapic *l, uint64_t tsc)
{
	if (!vlapic_hw_enabled(l) || l->timer_mode != APIC_TIMER_TSCDL) {
		l->tscdl_ignored += tsc != 0;
		return;   /* ignored outside TSC-deadline mode (SDM §11.5.4.1) */
	}
	l->tscdl = tsc;
	l->timer_deadline = tsc ? l->ops->tsc_to_ns(l->ops->ctx, tsc) : STIME_NEVER;
	if (tsc)
		vlapic_timer_advance(l, lapic_now(l));
}

/* ------------------------------------------------------------ EOI and injection */

void vlapic_eoi(struct vlapic *l)
{
	int v = vec_highest(l, APIC_ISR);

	if (v < 0)
		return;
	vec_clear(l, APIC_ISR, (uint8_t)v);
	ppr_update(l);
	if (vlapic_vec_test(l, APIC_TMR, (uint8_t)v))
		l->ops->eoi(l->ops->ctx, (uint8_t)v);
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
		*val = timer_current(l, lapic_now(l));
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
	if (!vlapic_sw_enabled(l))
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
		vlapic_eoi(l);
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
		timer_load(l, lapic_now(l));
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
		tscdl_write(l, val);
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
	regs_reset(l, l->vcpu << 24);
	return 0;
}
