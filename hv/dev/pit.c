/* 8254 programmable interval timer (Intel 8254 data sheet, order 231164:
 * control word, counter latch and read-back commands, modes 0-5). The count
 * is never stored as it runs: it is computed from the tick at which counting
 * started, so reads cost no timer work and the model needs no periodic tick. */
#include "dev/pit.h"
#include "compiler.h"
#include "errno.h"
#include "lib/string.h"

#define NS_PER_S     1000000000ULL
#define TICK_NEVER   UINT64_MAX
#define CW_SC(v)     (((v) >> 6) & 3)
#define CW_RW(v)     (((v) >> 4) & 3)
#define CW_MODE(v)   (((v) >> 1) & 7)
#define RB_NO_COUNT  BIT(5)
#define RB_NO_STATUS BIT(4)
#define ST_OUT       BIT(7)
#define ST_NULL      BIT(6)
#define P61_GATE2    BIT(0)
#define P61_SPKR     BIT(1)
#define P61_REFRESH  BIT(4)
#define P61_OUT2     BIT(5)
#define REFRESH_NS   15085   /* DRAM refresh toggle period of a PC/AT */
#define PIT_MIN_IRQ_TICKS 119ULL

static uint64_t pit_ticks(stime_t now)
{
	uint64_t ns = now > 0 ? (uint64_t)now : 0;

	return (ns / NS_PER_S) * PIT_HZ + (ns % NS_PER_S) * PIT_HZ / NS_PER_S;
}

/* First ns at which pit_ticks() reaches t. */
static stime_t pit_ticks_to_ns(uint64_t t)
{
	uint64_t s = t / PIT_HZ, r = t % PIT_HZ;

	if (t == TICK_NEVER || s > (uint64_t)INT64_MAX / NS_PER_S - 1)
		return STIME_NEVER;
	return (stime_t)(s * NS_PER_S + (r * NS_PER_S + PIT_HZ - 1) / PIT_HZ);
}

static stime_t pit_now(const struct pit *p)
{
	return p->host && p->host->now ? p->host->now(p->host->ctx) : 0;
}

static uint64_t pit_elapsed(const struct pit_channel *c, uint64_t t)
{
	if (c->paused)
		return c->frozen;
	return t > c->start ? t - c->start : 0;
}

static uint16_t pit_count_at(const struct pit_channel *c, uint64_t d)
{
	uint64_t n = c->reload, ph = d % n, half = (n + 1) / 2;

	switch (c->mode) {
	case 2:
		return (uint16_t)(n - ph);
	case 3:   /* counts down by two, twice per period */
		return (uint16_t)((n - 2 * (ph < half ? ph : ph - half)) & ~1ULL);
	default:  /* modes 0, 1, 4, 5 wrap through 0xFFFF after terminal count */
		return (uint16_t)((n - d) & 0xffff);
	}
}

static bool pit_out_at(const struct pit_channel *c, uint64_t d)
{
	uint64_t n = c->reload;

	switch (c->mode) {
	case 0:
	case 1: return d >= n;
	case 2: return n == 1 || d % n != n - 1;   /* low for one tick per period */
	case 3: return d % n < (n + 1) / 2;
	default: return d != n;                   /* 4, 5: low one tick at terminal count */
	}
}

uint16_t pit_count_get(struct pit *p, unsigned ch, stime_t now)
{
	const struct pit_channel *c = &p->ch[ch];

	if (!c->counting)
		return (uint16_t)c->reload;
	return pit_count_at(c, pit_elapsed(c, pit_ticks(now)));
}

bool pit_out_get(struct pit *p, unsigned ch, stime_t now)
{
	const struct pit_channel *c = &p->ch[ch];

	if (!c->counting)
		return c->out_idle;
	return pit_out_at(c, pit_elapsed(c, pit_ticks(now)));
}

/* ---------------------------------------------------------------- IRQ0 */

static bool pit_mode_periodic(uint8_t mode)
{
	return mode == 2 || mode == 3;
}

/* Channel 0's output rises at d = N (modes 0, 2, 3) or N + 1 (mode 4); for
 * modes 2 and 3 again every N ticks. */
static uint64_t pit_irq_edge_after(const struct pit_channel *c, uint64_t t)
{
	uint64_t first, d;

	if (!c->counting || c->paused || c->mode == 1 || c->mode == 5)
		return TICK_NEVER;
	first = c->start + c->reload + (c->mode == 4);
	if (t < first)
		return first;
	if (!pit_mode_periodic(c->mode))
		return TICK_NEVER;
	d = t - c->start;
	return c->start + (d / c->reload + 1) * c->reload;
}

/* IRQ0 edges are at least PIT_MIN_IRQ_TICKS apart (about 100 us), so a guest
 * programming a tiny period cannot turn its timer into a host interrupt storm
 * (KVM clamps the PIT period the same way); the count itself is unaffected. */
static void pit_irq_rearm(struct pit *p, uint64_t t)
{
	const struct pit_channel *c = &p->ch[0];

	if (pit_mode_periodic(c->mode) && c->reload < PIT_MIN_IRQ_TICKS)
		t += PIT_MIN_IRQ_TICKS - 1;
	p->irq_next = pit_irq_edge_after(c, t);
}

stime_t pit_next_deadline(const struct pit *p)
{
	return pit_ticks_to_ns(p->irq_next);
}

void pit_advance(struct pit *p, stime_t now)
{
	uint64_t t = pit_ticks(now), due;

	if (p->irq_next == TICK_NEVER || t < p->irq_next)
		return;
	if (p->irq) {   /* edge: pulse the line */
		p->irq(p->irqctx, PIT_IRQ, true);
		p->irq(p->irqctx, PIT_IRQ, false);
	}
	p->irqs++;
	due = p->irq_next;
	pit_irq_rearm(p, t);
	if (pit_mode_periodic(p->ch[0].mode) && p->irq_next != TICK_NEVER)
		p->irqs_missed += (p->irq_next - p->ch[0].reload - due) / p->ch[0].reload;
}

/* ---------------------------------------------------------------- counting */

static void pit_start(struct pit_channel *c, uint64_t t)
{
	c->counting = true;
	c->paused = false;
	c->armed = false;
	c->start = t;
	c->null_count = false;
}

/* A complete count was written (8254 data sheet "Counter Loading"). */
static void pit_count_loaded(struct pit *p, unsigned ch, uint32_t v, uint64_t t)
{
	struct pit_channel *c = &p->ch[ch];

	c->reload = v ? v : 0x10000;
	c->null_count = true;
	if (c->mode == 1 || c->mode == 5 || (pit_mode_periodic(c->mode) && !c->gate)) {
		c->counting = false;
		c->armed = true;   /* waits for a gate rising edge */
	} else {
		pit_start(c, t);
		if (!c->gate) {    /* modes 0, 4: loaded but suspended */
			c->paused = true;
			c->frozen = 0;
		}
	}
	if (ch == 0)
		pit_irq_rearm(p, t);
}

static void pit_control_write(struct pit *p, unsigned ch, uint8_t v, uint64_t t)
{
	struct pit_channel *c = &p->ch[ch];
	uint8_t mode = CW_MODE(v);

	c->mode = mode > 5 ? mode - 4 : mode;   /* 6, 7 alias 2, 3 */
	c->rw = CW_RW(v);
	c->bcd = v & 1;
	c->counting = false;
	c->paused = false;
	c->armed = false;
	c->null_count = true;
	c->out_idle = c->mode != 0;   /* mode 0 output goes low on the control word */
	c->read_msb = false;
	c->write_msb = false;
	c->latch_left = 0;
	c->status_latched = false;
	if (ch == 0)
		pit_irq_rearm(p, t);
}

static uint8_t pit_status(struct pit *p, unsigned ch, stime_t now)
{
	const struct pit_channel *c = &p->ch[ch];

	return (uint8_t)((pit_out_get(p, ch, now) ? ST_OUT : 0) | (c->null_count ? ST_NULL : 0) |
			 (c->rw << 4) | (c->mode << 1) | (c->bcd ? 1 : 0));
}

static void pit_latch_count(struct pit *p, unsigned ch, stime_t now)
{
	struct pit_channel *c = &p->ch[ch];

	if (c->latch_left)
		return;   /* a second latch before the read is ignored */
	c->latch = pit_count_get(p, ch, now);
	c->latch_left = c->rw == 3 ? 2 : 1;
	c->latch_msb_next = c->rw == 2;
}

static void pit_readback(struct pit *p, uint8_t v, stime_t now)
{
	for (unsigned ch = 0; ch < 3; ch++) {
		if (!(v & (2u << ch)))
			continue;
		if (!(v & RB_NO_STATUS) && !p->ch[ch].status_latched) {
			p->ch[ch].status = pit_status(p, ch, now);
			p->ch[ch].status_latched = true;
		}
		if (!(v & RB_NO_COUNT))
			pit_latch_count(p, ch, now);
	}
}

static void pit_cmd_write(struct pit *p, uint8_t v, stime_t now)
{
	unsigned sc = CW_SC(v);

	if (sc == 3)
		pit_readback(p, v, now);
	else if (CW_RW(v) == 0)
		pit_latch_count(p, sc, now);
	else
		pit_control_write(p, sc, v, pit_ticks(now));
}

static void pit_data_write(struct pit *p, unsigned ch, uint8_t v, stime_t now)
{
	struct pit_channel *c = &p->ch[ch];
	uint64_t t = pit_ticks(now);

	switch (c->rw) {
	case 1: pit_count_loaded(p, ch, v, t); break;
	case 2: pit_count_loaded(p, ch, (uint32_t)v << 8, t); break;
	case 3:
		if (!c->write_msb) {
			c->write_lsb = v;
			c->write_msb = true;
			if (c->mode == 0)   /* writing the LSB stops a mode-0 count */
				c->counting = false, c->out_idle = false;
		} else {
			c->write_msb = false;
			pit_count_loaded(p, ch, c->write_lsb | ((uint32_t)v << 8), t);
		}
		break;
	default: break;   /* no control word yet */
	}
}

static uint8_t pit_latched_read(struct pit_channel *c)
{
	uint8_t b = c->latch_msb_next ? (uint8_t)(c->latch >> 8) : (uint8_t)c->latch;

	c->latch_msb_next = !c->latch_msb_next;
	c->latch_left--;
	return b;
}

static uint8_t pit_data_read(struct pit *p, unsigned ch, stime_t now)
{
	struct pit_channel *c = &p->ch[ch];
	uint16_t cnt;

	if (c->status_latched) {
		c->status_latched = false;
		return c->status;
	}
	if (c->latch_left)
		return pit_latched_read(c);
	cnt = pit_count_get(p, ch, now);
	if (c->rw == 2 || (c->rw == 3 && c->read_msb)) {
		c->read_msb = false;
		return (uint8_t)(cnt >> 8);
	}
	if (c->rw == 3)
		c->read_msb = true;
	return (uint8_t)cnt;
}

/* ---------------------------------------------------------------- gate / 0x61 */

static void pit_gate_set(struct pit *p, unsigned ch, bool gate, uint64_t t)
{
	struct pit_channel *c = &p->ch[ch];
	bool rising = gate && !c->gate;

	c->gate = gate;
	if (rising && (c->armed || (c->counting && c->mode != 0 && c->mode != 4))) {
		pit_start(c, t);   /* 1, 5: (re)trigger; 2, 3: reload and restart */
	} else if (rising && c->paused) {
		c->paused = false;
		c->start = t - c->frozen;
	} else if (!gate && c->counting && (c->mode == 0 || c->mode == 4)) {
		c->frozen = pit_elapsed(c, t);
		c->paused = true;  /* modes 0, 4 suspend counting */
	} else if (!gate && c->counting && pit_mode_periodic(c->mode)) {
		c->counting = false;   /* modes 2, 3 stop with the output high */
		c->out_idle = true;
		c->armed = true;
	}
	if (ch == 0)
		pit_irq_rearm(p, t);
}

static uint8_t pit_port61_read(struct pit *p, stime_t now)
{
	uint8_t v = p->port61 & 0x0f;

	if (pit_out_get(p, 2, now))
		v |= P61_OUT2;
	if (((uint64_t)(now > 0 ? now : 0) / REFRESH_NS) & 1)
		v |= P61_REFRESH;
	return v;
}

static void pit_port61_write(struct pit *p, uint8_t v, stime_t now)
{
	p->port61 = v & 0x0f;
	pit_gate_set(p, 2, v & P61_GATE2, pit_ticks(now));
}

void pit_init(struct pit *p, const struct dev_host *host, irq_line_fn irq, void *irqctx)
{
	memset(p, 0, sizeof(*p));
	p->host = host;
	p->irq = irq;
	p->irqctx = irqctx;
	p->irq_next = TICK_NEVER;
	for (unsigned i = 0; i < 3; i++) {
		p->ch[i].reload = 0x10000;
		p->ch[i].gate = i != 2;   /* channels 0 and 1 are hard-wired high */
		p->ch[i].out_idle = true;
	}
}

int pit_pio(struct pit *p, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	stime_t now;

	if (port != PIT_PORT_61 && (port < PIT_PORT_CH0 || port > PIT_PORT_CMD))
		return -ENOENT;
	now = pit_now(p);
	if (port == PIT_PORT_61) {
		if (write)
			pit_port61_write(p, (uint8_t)*val, now);
		else
			*val = pit_port61_read(p, now);
	} else if (port == PIT_PORT_CMD) {
		if (write)
			pit_cmd_write(p, (uint8_t)*val, now);
		else
			*val = 0xff;   /* the control register is write-only */
	} else if (write) {
		pit_data_write(p, port - PIT_PORT_CH0, (uint8_t)*val, now);
	} else {
		*val = pit_data_read(p, port - PIT_PORT_CH0, now);
	}
	return 0;
}

static void pit_dev_init(void *dev, const struct dev_cfg *cfg)
{
	pit_init(dev, cfg->host, cfg->irq, cfg->irqctx);
}

DEV_REGISTER(pit, .size = sizeof(struct pit), .init = pit_dev_init,
	     .pio = DEV_PIO_OP(struct pit, pit_pio),
	     .next_deadline = DEV_DEADLINE_OP(struct pit, pit_next_deadline),
	     .advance = DEV_ADVANCE_OP(struct pit, pit_advance),
	     DEV_PIO_RANGES({ PIT_PORT_CH0, PIT_PORT_CMD, DEV_PIO_TIMED },
			    { PIT_PORT_61, PIT_PORT_61, DEV_PIO_TIMED }));
