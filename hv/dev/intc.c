/* Interrupt routing glue for one VM: vLAPIC <-> vLAPIC IPIs, vIOAPIC -> vLAPIC
 * messages, vLAPIC EOI -> vIOAPIC, 8259 ExtINT -> vCPU 0's LINT0 (the PC's
 * virtual-wire wiring, MP spec 1.4 §3.6.2.2 / SDM vol. 3A §11.5.1). */
#include "dev/intc.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"
#include "load/loader.h"

#define MMIO_PAGE 0x1000ULL

static struct vlapic *intc_lapic(struct vintc *ic, unsigned vcpu)
{
	return vcpu < ic->nr_vcpus ? ic->lapic[vcpu] : NULL;
}

/* Route one message to every matching vLAPIC. Lowest priority goes to the
 * lowest-numbered match, which SDM §11.6.2.4 permits (any arbitration that
 * picks one target); shorthands ignore the destination (§11.6.2.3). */
static void intc_deliver(struct vintc *ic, struct vlapic *src, const struct apic_msg *m)
{
	for (unsigned i = 0; i < ic->nr_vcpus; i++) {
		struct vlapic *l = ic->lapic[i];
		bool hit;

		switch (m->shorthand) {
		case APIC_SH_SELF:   hit = l == src; break;
		case APIC_SH_ALL:    hit = true; break;
		case APIC_SH_OTHERS: hit = l != src; break;
		default:             hit = vlapic_match_dest(l, m); break;
		}
		if (!hit)
			continue;
		vlapic_accept_msg(l, m);
		if (m->mode == APIC_DM_LOWEST && m->shorthand == APIC_SH_NONE)
			break;
	}
}

static void cb_ipi(void *ctx, struct vlapic *src, const struct apic_msg *m)
{
	struct vintc *ic = ctx;

	ic->ipis++;
	intc_deliver(ic, src, m);
}

static void cb_eoi(void *ctx, uint8_t vector)
{
	struct vintc *ic = ctx;

	vioapic_eoi(&ic->ioapic, vector);
}

static stime_t cb_tsc_to_ns(void *ctx, uint64_t tsc)
{
	struct vintc *ic = ctx;

	if (ic->tsc_to_ns)
		return ic->tsc_to_ns(ic->tsc_ctx, tsc);
	return tsc > (uint64_t)INT64_MAX ? STIME_NEVER : (stime_t)tsc;
}

static void cb_kick(void *ctx, unsigned vcpu)
{
	struct vintc *ic = ctx;

	if (ic->host->kick_vcpu)
		ic->host->kick_vcpu(ic->host->ctx, vcpu);
}

static void cb_start(void *ctx, unsigned vcpu, int sipi_vector)
{
	struct vintc *ic = ctx;

	if (ic->host->start_vcpu)
		ic->host->start_vcpu(ic->host->ctx, vcpu, sipi_vector);
}

static stime_t cb_now(void *ctx)
{
	struct vintc *ic = ctx;

	return ic->host->now(ic->host->ctx);
}

static void cb_ioapic_deliver(void *ctx, const struct apic_msg *m)
{
	struct vintc *ic = ctx;

	ic->irqs++;
	intc_deliver(ic, NULL, m);
}

void vintc_init(struct vintc *ic, const struct dev_host *host,
		vintc_tsc_to_ns_fn tsc_to_ns, void *tsc_ctx)
{
	memset(ic, 0, sizeof(*ic));
	ic->lock = (spinlock_t)SPINLOCK_INIT;
	ic->host = host;
	ic->tsc_to_ns = tsc_to_ns;
	ic->tsc_ctx = tsc_ctx;
	ic->lapic_ops = (struct vlapic_ops){
		.ipi = cb_ipi, .eoi = cb_eoi, .tsc_to_ns = cb_tsc_to_ns,
		.kick = cb_kick, .start = cb_start, .now = cb_now, .ctx = ic,
	};
	ic->ioapic_ops = (struct vioapic_ops){ .deliver = cb_ioapic_deliver, .ctx = ic };
	ic->ioapic_base = GUEST_IOAPIC_BASE;
	vioapic_init(&ic->ioapic, 0, &ic->ioapic_ops);
	vpic_init(&ic->pic);
}

int vintc_add_vcpu(struct vintc *ic, unsigned vcpu, struct vlapic *l, void *apic_page)
{
	if (vcpu != ic->nr_vcpus || vcpu >= VINTC_MAX_VCPUS || !apic_page ||
	    !IS_ALIGNED((uintptr_t)apic_page, PAGE_SIZE))
		return trace_error(-EINVAL);
	vlapic_init(l, apic_page, vcpu, &ic->lapic_ops);
	if (ic->maxphyaddr)
		vlapic_set_maxphyaddr(l, ic->maxphyaddr);
	spin_lock(&ic->lock);
	ic->lapic[vcpu] = l;
	ic->nr_vcpus = vcpu + 1;
	ic->ioapic.id = (uint8_t)(ic->nr_vcpus & 0xf);   /* 4-bit ID (82093AA §3.2.1) */
	spin_unlock(&ic->lock);
	return 0;
}

/* The 8259's INT reaches vCPU 0 only (a PC wires it to the BSP's LINT0). */
static void pic_notify(struct vintc *ic)
{
	struct vlapic *l = intc_lapic(ic, 0);

	if (l && vpic_output(&ic->pic) && vlapic_accepts_extint(l))
		cb_kick(ic, 0);
}

void vintc_irq_set(void *intc, unsigned gsi, bool level)
{
	struct vintc *ic = intc;

	spin_lock(&ic->lock);
	if (gsi < 16)
		vpic_set_irq(&ic->pic, gsi, level);
	if (gsi == 0)
		vioapic_set_irq(&ic->ioapic, 2, level);   /* ISA IRQ0 -> GSI 2 */
	else if (gsi != 2)
		vioapic_set_irq(&ic->ioapic, gsi, level);
	pic_notify(ic);
	spin_unlock(&ic->lock);
}

int vintc_pio(struct vintc *ic, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	int ret = 0;

	if (size < 1 || size > 4)
		return -EINVAL;
	spin_lock(&ic->lock);
	for (unsigned i = 0; i < size && !ret; i++) {
		uint16_t p = (uint16_t)(port + i);
		uint8_t b = (uint8_t)(*val >> (8 * i));

		if (write) {
			ret = vpic_pio_write(&ic->pic, p, b);
			continue;
		}
		ret = vpic_pio_read(&ic->pic, p, &b);
		*val = (*val & ~(0xffu << (8 * i))) | (uint32_t)b << (8 * i);
	}
	if (write && !ret)
		pic_notify(ic);
	spin_unlock(&ic->lock);
	return ret;
}

static int mmio_ioapic(struct vintc *ic, unsigned off, unsigned size, bool write,
		       uint64_t *val)
{
	uint32_t v = (uint32_t)*val;
	int ret;

	ret = write ? vioapic_mmio_write(&ic->ioapic, off, size, v)
		    : vioapic_mmio_read(&ic->ioapic, off, size, &v);
	*val = ret ? 0 : v;
	return 0;       /* malformed accesses are ignored, reads give 0 */
}

static int mmio_lapic(struct vlapic *l, unsigned off, unsigned size, bool write,
		      uint64_t *val)
{
	uint32_t v = (uint32_t)*val;
	int ret;

	ret = write ? vlapic_mmio_write(l, off, size, v) : vlapic_mmio_read(l, off, size, &v);
	if (ret == -ENOENT)
		return ret;     /* x2APIC or disabled: the page is not decoded */
	*val = ret ? 0 : v;
	return 0;
}

int vintc_mmio(struct vintc *ic, unsigned vcpu, gpa_t gpa, unsigned size, bool write,
	       uint64_t *val)
{
	struct vlapic *l;
	gpa_t lbase;
	int ret = -ENOENT;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	lbase = l ? l->apic_base & APIC_BASE_ADDR : 0;
	if (gpa - ic->ioapic_base < MMIO_PAGE)
		ret = mmio_ioapic(ic, (unsigned)(gpa - ic->ioapic_base), size, write, val);
	else if (l && gpa - lbase < MMIO_PAGE)
		ret = mmio_lapic(l, (unsigned)(gpa - lbase), size, write, val);
	spin_unlock(&ic->lock);
	return ret;
}

int vintc_msr_read(struct vintc *ic, unsigned vcpu, uint32_t msr, uint64_t *val)
{
	struct vlapic *l;
	int ret = -ENOENT;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		ret = vlapic_msr_read(l, msr, val);
	spin_unlock(&ic->lock);
	return ret;
}

int vintc_msr_write(struct vintc *ic, unsigned vcpu, uint32_t msr, uint64_t val)
{
	struct vlapic *l;
	int ret = -ENOENT;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		ret = vlapic_msr_write(l, msr, val);
	if (vcpu == 0 && ret == 0)
		pic_notify(ic);     /* APIC disabled or LINT0 changed: ExtINT may now reach it */
	spin_unlock(&ic->lock);
	return ret;
}

bool vintc_nmi_take(struct vintc *ic, unsigned vcpu, bool blocked)
{
	struct vlapic *l;
	bool nmi = false;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		nmi = vlapic_nmi_take(l, blocked);
	spin_unlock(&ic->lock);
	return nmi;
}

static bool extint_ready(struct vintc *ic, unsigned vcpu, struct vlapic *l)
{
	return vcpu == 0 && vlapic_accepts_extint(l) && vpic_output(&ic->pic);
}

int vintc_pending(struct vintc *ic, unsigned vcpu)
{
	struct vlapic *l;
	int v = -1;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		v = extint_ready(ic, vcpu, l) ? vpic_peek(&ic->pic) : vlapic_pending(l);
	spin_unlock(&ic->lock);
	return v;
}

int vintc_wake_pending(struct vintc *ic, unsigned vcpu)
{
	struct vlapic *l;
	int v = -1;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		v = extint_ready(ic, vcpu, l) ? vpic_peek(&ic->pic) : vlapic_pending_peek(l);
	spin_unlock(&ic->lock);
	return v;
}

int vintc_ack(struct vintc *ic, unsigned vcpu)
{
	struct vlapic *l;
	int v = -1;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l && extint_ready(ic, vcpu, l)) {
		v = vpic_ack(&ic->pic);
	} else if (l) {
		v = vlapic_pending(l);
		if (v >= 0)
			vlapic_ack(l, (uint8_t)v);
	}
	spin_unlock(&ic->lock);
	return v;
}

uint8_t vintc_tpr_threshold(struct vintc *ic, unsigned vcpu)
{
	struct vlapic *l;
	uint8_t t = 0;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		t = vlapic_tpr_threshold(l);
	spin_unlock(&ic->lock);
	return t;
}

uint16_t vintc_intr_status(struct vintc *ic, unsigned vcpu)
{
	struct vlapic *l;
	uint16_t s = 0;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		s = vlapic_intr_status(l);
	spin_unlock(&ic->lock);
	return s;
}

/* Vectors whose EOI must exit (SDM §30.1.4): those an IOAPIC level entry
 * uses, plus any vector accepted as level-triggered (TMR). */
void vintc_eoi_exit_bitmap(struct vintc *ic, unsigned vcpu, uint64_t out[4])
{
	struct vlapic *l;

	memset(out, 0, 4 * sizeof(out[0]));
	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	for (unsigned v = 16; l && v < 256; v++)
		if (vlapic_vec_test(l, APIC_TMR, (uint8_t)v) ||
		    vioapic_vector_is_level(&ic->ioapic, (uint8_t)v))
			out[v / 64] |= BIT(v % 64);
	spin_unlock(&ic->lock);
}

void vintc_eoi_exit(struct vintc *ic, unsigned vcpu, uint8_t vector)
{
	struct vlapic *l;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		vlapic_eoi_exit(l, vector);
	spin_unlock(&ic->lock);
}

int vintc_apic_write_exit(struct vintc *ic, unsigned vcpu, unsigned offset)
{
	struct vlapic *l;
	int ret = -ENOENT;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		ret = vlapic_apic_write_exit(l, offset);
	if (vcpu == 0 && ret == 0)
		pic_notify(ic);
	spin_unlock(&ic->lock);
	return ret;
}

stime_t vintc_timer_next(struct vintc *ic, unsigned vcpu)
{
	struct vlapic *l;
	stime_t t = STIME_NEVER;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		t = vlapic_timer_next(l);
	spin_unlock(&ic->lock);
	return t;
}

void vintc_timer_advance(struct vintc *ic, unsigned vcpu, stime_t now)
{
	struct vlapic *l;

	spin_lock(&ic->lock);
	l = intc_lapic(ic, vcpu);
	if (l)
		vlapic_timer_advance(l, now);
	spin_unlock(&ic->lock);
}
