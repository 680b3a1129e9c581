/* Internal to the vLAPIC model (vlapic.c, vlapic_timer.c, vlapic_regs.c):
 * register-page helpers, interrupt acceptance and the calls between the
 * three files. Not for other users (they have dev/vlapic.h). The helpers are
 * static inline so each file compiles them as the one-file model did. */
#ifndef HV_DEV_VLAPIC_IMPL_H
#define HV_DEV_VLAPIC_IMPL_H
#include "dev/vlapic.h"

/* Inline forms of vlapic_hw_enabled/sw_enabled/eoi for the other two files
 * (in one file the compiler inlined the global ones; a call across files
 * showed as +10..+50 Bochs cycles on the apicv=off rows of make bench-exits). */
static inline bool vlapic_hw_enabled_inl(const struct vlapic *l)
{
	return l->mode != VLAPIC_DISABLED;
}

static inline bool vlapic_sw_enabled_inl(const struct vlapic *l)
{
	return vlapic_hw_enabled_inl(l) && (vlapic_reg(l, APIC_SVR) & APIC_SVR_ENABLE);
}

#define LVT_TIMER_BITS 0x000700ffu  /* vector, mask, mode 18:17 */
#define LVT_DM_BITS    0x000107ffu  /* vector, delivery mode, mask (thermal, perf) */
#define LVT_LINT_BITS  0x0001a7ffu  /* + polarity 13, trigger 15 */
#define LVT_ERR_BITS   0x000100ffu
#define ICR_LO_BITS    0x000ccfffu  /* vector, dm, dest mode, level, trigger, shorthand */

static inline uint32_t *reg(struct vlapic *l, unsigned off)
{
	return &l->regs[off >> 2];
}

static inline uint32_t *vec_word(struct vlapic *l, unsigned base, uint8_t v)
{
	return reg(l, base + ((unsigned)v >> 5) * 16);
}

/* IRR bits are set with a locked OR: the CPU may update the same virtual-APIC
 * page concurrently (SDM §30.2.2 virtual-interrupt delivery clears VIRR bits). */
static inline void vec_set(struct vlapic *l, unsigned base, uint8_t v)
{
	__atomic_fetch_or(vec_word(l, base, v), 1u << (v & 31), __ATOMIC_SEQ_CST);
}

static inline void vec_clear(struct vlapic *l, unsigned base, uint8_t v)
{
	__atomic_fetch_and(vec_word(l, base, v), ~(1u << (v & 31)), __ATOMIC_SEQ_CST);
}

static inline int vec_highest(const struct vlapic *l, unsigned base)
{
	for (int w = 7; w >= 0; w--) {
		uint32_t x = READ_ONCE(l->regs[(base + (unsigned)w * 16) >> 2]);
		if (x)
			return w * 32 + 31 - __builtin_clz(x);
	}
	return -1;
}

/* Logical x2APIC ID: cluster in 31:16, one bit of 16 in 15:0 (SDM §11.12.10.2). */
static inline uint32_t x2apic_ldr(uint32_t id)
{
	return ((id >> 4) << 16) | (1u << (id & 0xf));
}

/* PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4]:0 (SDM §11.8.3.1). */
static inline uint8_t ppr_update(struct vlapic *l)
{
	uint8_t tpr = (uint8_t)vlapic_reg(l, APIC_TPR);
	int isrv = vec_highest(l, APIC_ISR);
	uint8_t isr_class = isrv < 0 ? 0 : (uint8_t)(isrv & 0xf0);
	uint8_t ppr = (tpr & 0xf0) >= isr_class ? tpr : isr_class;

	*reg(l, APIC_PPR) = ppr;
	return ppr;
}

static inline void accept_fixed(struct vlapic *l, uint8_t vec, bool level);

/* Record an error and raise the error LVT if it is new (SDM §11.5.3). The
 * "is new" test bounds the recursion when the error vector itself is illegal. */
static inline void lapic_error(struct vlapic *l, uint32_t bit)
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
static inline void accept_fixed(struct vlapic *l, uint8_t vec, bool level)
{
	if (vec < 16) {
		lapic_error(l, APIC_ESR_RECV_ILLEGAL);
		return;
	}
	if (!vlapic_sw_enabled_inl(l))
		return;
	if (level)
		vec_set(l, APIC_TMR, vec);
	else
		vec_clear(l, APIC_TMR, vec);
	vec_set(l, APIC_IRR, vec);
	l->ops->kick(l->ops->ctx, l->vcpu);
}

/* Raise a local interrupt through an LVT entry (SDM §11.5.1). */
static inline void lvt_fire(struct vlapic *l, unsigned off)
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

static inline void timer_disarm(struct vlapic *l)
{
	l->timer_deadline = STIME_NEVER;
	l->timer_period = 0;
	l->tscdl = 0;
}

static inline void vlapic_eoi_inl(struct vlapic *l)
{
	int v = vec_highest(l, APIC_ISR);

	if (v < 0)
		return;
	vec_clear(l, APIC_ISR, (uint8_t)v);
	ppr_update(l);
	if (vlapic_vec_test(l, APIC_TMR, (uint8_t)v))
		l->ops->eoi(l->ops->ctx, (uint8_t)v);
}

static inline stime_t lapic_now(struct vlapic *l)
{
	return l->ops->now(l->ops->ctx);
}

/* vlapic.c: power-up / INIT register values (id preserved). */
void vlapic_regs_reset(struct vlapic *l, uint32_t id);
/* vlapic_timer.c: (re)start the count-down timer from TMICT and TDCR; the
 * current count (CCR); a TSC-deadline MSR write. */
void vlapic_timer_load(struct vlapic *l, stime_t now);
uint32_t vlapic_timer_current(const struct vlapic *l, stime_t now);
void vlapic_tscdl_write(struct vlapic *l, uint64_t tsc);
#endif
