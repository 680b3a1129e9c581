/* MC146818A real-time clock (Motorola data sheet: registers A-D, update
 * cycle, periodic/alarm/update-ended interrupts) and the PC CMOS RAM. */
#include "dev/rtc.h"
#include "dev/rtc_time.h"
#include "compiler.h"
#include "errno.h"
#include "lib/string.h"
#include "load/loader.h"

enum { REG_SEC = 0, REG_SEC_ALARM = 1, REG_MIN = 2, REG_MIN_ALARM = 3, REG_HOUR = 4,
       REG_HOUR_ALARM = 5, REG_WDAY = 6, REG_MDAY = 7, REG_MON = 8, REG_YEAR = 9,
       REG_A = 0x0a, REG_B = 0x0b, REG_C = 0x0c, REG_D = 0x0d };

#define A_UIP      BIT(7)
#define A_DEFAULT  0x26          /* 32.768 kHz time base, 1024 Hz periodic rate */
#define B_SET      BIT(7)
#define B_PIE      BIT(6)
#define B_AIE      BIT(5)
#define B_UIE      BIT(4)
#define B_DM_BIN   BIT(2)
#define B_24H      BIT(1)
#define C_IRQF     BIT(7)
#define C_PF       BIT(6)
#define C_AF       BIT(5)
#define C_UF       BIT(4)
#define D_VRT      BIT(7)
#define HOUR_PM    BIT(7)
#define ALARM_ANY  0xc0          /* "don't care" alarm value */
#define NS_PER_S   1000000000LL
#define UIP_NS     244000LL      /* update cycle: 244 us before each second */

static stime_t rtc_now(const struct rtc *r)
{
	return r->host && r->host->now ? r->host->now(r->host->ctx) : r->last;
}

static int64_t rtc_wall_ns(const struct rtc *r, stime_t now)
{
	return r->base_ns + now;
}

int64_t rtc_wall_secs(const struct rtc *r, stime_t now)
{
	int64_t ns = rtc_wall_ns(r, now);

	return ns >= 0 ? ns / NS_PER_S : -((-ns + NS_PER_S - 1) / NS_PER_S);
}

/* ---------------------------------------------------------------- encoding */

static uint8_t rtc_enc(const struct rtc *r, unsigned v)
{
	return (r->cmos[REG_B] & B_DM_BIN) ? (uint8_t)v : rtc_bcd_encode(v);
}

static unsigned rtc_dec(const struct rtc *r, uint8_t v)
{
	return (r->cmos[REG_B] & B_DM_BIN) ? v : rtc_bcd_decode(v);
}

static uint8_t rtc_hour_enc(const struct rtc *r, unsigned h)
{
	unsigned h12 = h % 12 ? h % 12 : 12;

	if (r->cmos[REG_B] & B_24H)
		return rtc_enc(r, h);
	return (uint8_t)(rtc_enc(r, h12) | (h >= 12 ? HOUR_PM : 0));
}

static unsigned rtc_hour_dec(const struct rtc *r, uint8_t v)
{
	if (r->cmos[REG_B] & B_24H)
		return rtc_dec(r, v);
	return rtc_dec(r, v & 0x7f) % 12 + ((v & HOUR_PM) ? 12 : 0);
}

/* Copy the running time into the time registers (for SET and for writes). */
static void rtc_time_store(struct rtc *r, stime_t now)
{
	struct rtc_tm tm;

	rtc_tm_from_secs(rtc_wall_secs(r, now), &tm);
	r->cmos[REG_SEC] = rtc_enc(r, tm.sec);
	r->cmos[REG_MIN] = rtc_enc(r, tm.min);
	r->cmos[REG_HOUR] = rtc_hour_enc(r, tm.hour);
	r->cmos[REG_WDAY] = rtc_enc(r, tm.wday);
	r->cmos[REG_MDAY] = rtc_enc(r, tm.mday);
	r->cmos[REG_MON] = rtc_enc(r, tm.mon);
	r->cmos[REG_YEAR] = rtc_enc(r, (unsigned)tm.year % 100);
	r->cmos[RTC_REG_CENTURY] = rtc_bcd_encode((unsigned)tm.year / 100);
}

/* Make the clock run from what the time registers hold, from now on. */
static void rtc_time_load(struct rtc *r, stime_t now)
{
	unsigned cent = rtc_bcd_decode(r->cmos[RTC_REG_CENTURY]);
	struct rtc_tm tm = {
		.sec = MIN(rtc_dec(r, r->cmos[REG_SEC]), 59u),
		.min = MIN(rtc_dec(r, r->cmos[REG_MIN]), 59u),
		.hour = MIN(rtc_hour_dec(r, r->cmos[REG_HOUR]), 23u),
		.mday = MAX(MIN(rtc_dec(r, r->cmos[REG_MDAY]), 31u), 1u),
		.mon = MAX(MIN(rtc_dec(r, r->cmos[REG_MON]), 12u), 1u),
	};

	/* 1900-2199 keeps wall-clock nanoseconds within int64_t */
	tm.year = (int)((cent >= 19 && cent <= 21 ? cent : 20) * 100 +
			rtc_dec(r, r->cmos[REG_YEAR]) % 100);
	r->base_ns = rtc_tm_to_secs(&tm) * NS_PER_S - now;
}

/* ---------------------------------------------------------------- interrupts */

static int64_t rtc_period_ns(const struct rtc *r)
{
	unsigned rate = r->cmos[REG_A] & 0x0f;

	if (!rate)
		return 0;
	if (rate < 3)
		rate += 7;   /* rates 1, 2 alias 8, 9 (256, 128 Hz) */
	return (NS_PER_S << (rate - 1)) / 32768;
}

static bool rtc_alarm_match(const struct rtc *r, stime_t now)
{
	struct rtc_tm tm;
	const uint8_t a_s = r->cmos[REG_SEC_ALARM], a_m = r->cmos[REG_MIN_ALARM];
	const uint8_t a_h = r->cmos[REG_HOUR_ALARM];

	rtc_tm_from_secs(rtc_wall_secs(r, now), &tm);
	return ((a_s & ALARM_ANY) == ALARM_ANY || rtc_dec(r, a_s) == tm.sec) &&
	       ((a_m & ALARM_ANY) == ALARM_ANY || rtc_dec(r, a_m) == tm.min) &&
	       ((a_h & ALARM_ANY) == ALARM_ANY || rtc_hour_dec(r, a_h) == tm.hour);
}

static void rtc_irq_update(struct rtc *r)
{
	bool level;

	if (r->cmos[REG_C] & r->cmos[REG_B] & (C_PF | C_AF | C_UF))
		r->cmos[REG_C] |= C_IRQF;
	level = r->cmos[REG_C] & C_IRQF;
	if (level == r->irq_level)
		return;
	r->irq_level = level;
	if (r->irq)
		r->irq(r->irqctx, RTC_IRQ, level);
}

/* Set the C flags for events between r->last and now. The alarm is checked
 * at the last second boundary passed only. */
static void rtc_update(struct rtc *r, stime_t now)
{
	int64_t period = rtc_period_ns(r);

	if (now <= r->last)
		return;
	if (period && now / period > r->last / period)
		r->cmos[REG_C] |= C_PF;
	if (!(r->cmos[REG_B] & B_SET) && rtc_wall_secs(r, now) > rtc_wall_secs(r, r->last)) {
		r->cmos[REG_C] |= C_UF;
		if (rtc_alarm_match(r, now))
			r->cmos[REG_C] |= C_AF;
	}
	r->last = now;
	rtc_irq_update(r);
}

static stime_t rtc_next_second(const struct rtc *r)
{
	int64_t w = rtc_wall_ns(r, r->last);
	int64_t into = ((w % NS_PER_S) + NS_PER_S) % NS_PER_S;

	return r->last + (NS_PER_S - into);
}

stime_t rtc_next_deadline(const struct rtc *r)
{
	uint8_t b = r->cmos[REG_B];
	int64_t period = rtc_period_ns(r);
	stime_t dl = STIME_NEVER;

	if (r->cmos[REG_C] & C_IRQF)
		return STIME_NEVER;   /* line already up until C is read */
	if ((b & B_PIE) && period)
		dl = (r->last / period + 1) * period;
	if ((b & (B_UIE | B_AIE)) && !(b & B_SET))
		dl = MIN(dl, rtc_next_second(r));
	return dl;
}

void rtc_advance(struct rtc *r, stime_t now)
{
	rtc_update(r, now);
}

/* ---------------------------------------------------------------- registers */

static uint8_t rtc_reg_a(const struct rtc *r, stime_t now)
{
	int64_t w = rtc_wall_ns(r, now);
	int64_t into = ((w % NS_PER_S) + NS_PER_S) % NS_PER_S;
	bool uip = !(r->cmos[REG_B] & B_SET) && into >= NS_PER_S - UIP_NS;

	return (uint8_t)((r->cmos[REG_A] & 0x7f) | (uip ? A_UIP : 0));
}

static uint8_t rtc_reg_read(struct rtc *r, unsigned idx, stime_t now)
{
	uint8_t c;

	if (idx <= REG_YEAR && !(r->cmos[REG_B] & B_SET) &&
	    idx != REG_SEC_ALARM && idx != REG_MIN_ALARM && idx != REG_HOUR_ALARM)
		rtc_time_store(r, now);
	switch (idx) {
	case REG_A:
		return rtc_reg_a(r, now);
	case REG_C:
		c = r->cmos[REG_C];
		r->cmos[REG_C] = 0;   /* reading C clears the flags and the IRQ */
		rtc_irq_update(r);
		return c;
	case REG_D:
		return D_VRT;
	default:
		return r->cmos[idx];
	}
}

static void rtc_reg_b_write(struct rtc *r, uint8_t v, stime_t now)
{
	bool was_set = r->cmos[REG_B] & B_SET;

	if (!was_set && (v & B_SET))
		rtc_time_store(r, now);   /* freeze the registers for the guest */
	r->cmos[REG_B] = v;
	if (v & B_SET)
		r->cmos[REG_B] &= (uint8_t)~B_UIE;   /* SET clears UIE */
	if (was_set && !(v & B_SET))
		rtc_time_load(r, now);
}

static void rtc_reg_write(struct rtc *r, unsigned idx, uint8_t v, stime_t now)
{
	bool is_time = idx <= REG_YEAR && idx != REG_SEC_ALARM && idx != REG_MIN_ALARM &&
		       idx != REG_HOUR_ALARM;
	bool running = !(r->cmos[REG_B] & B_SET);

	if ((is_time || idx == RTC_REG_CENTURY) && running)
		rtc_time_store(r, now);
	switch (idx) {
	case REG_A: r->cmos[REG_A] = v & 0x7f; break;   /* UIP is read-only */
	case REG_B: rtc_reg_b_write(r, v, now); break;
	case REG_C: case REG_D: break;                  /* read-only */
	default:    r->cmos[idx] = v; break;
	}
	if ((is_time || idx == RTC_REG_CENTURY) && running)
		rtc_time_load(r, now);
}

int rtc_pio(struct rtc *r, uint16_t port, unsigned size, bool write, uint32_t *val)
{
	stime_t now;

	if (port == RTC_PORT_INDEX) {
		if (write) {
			r->index = *val & 0x7f;
			r->nmi_disabled = *val & 0x80;
		} else {
			*val = 0xff;   /* write-only on a PC */
		}
		return 0;
	}
	if (port != RTC_PORT_DATA)
		return -ENOENT;
	now = rtc_now(r);
	rtc_update(r, now);
	if (write)
		rtc_reg_write(r, r->index, (uint8_t)*val, now);
	else
		*val = rtc_reg_read(r, r->index, now);
	rtc_irq_update(r);
	return 0;
}

/* ---------------------------------------------------------------- CMOS RAM */

static void rtc_cmos_put16(struct rtc *r, unsigned idx, uint64_t v)
{
	v = MIN(v, 0xffffull);
	r->cmos[idx] = (uint8_t)v;
	r->cmos[idx + 1] = (uint8_t)(v >> 8);
}

/* Memory sizes as QEMU's pc_cmos_init writes them (SeaBIOS reads them). */
static void rtc_cmos_memory(struct rtc *r, uint64_t ram, unsigned nr_vcpus)
{
	uint64_t below = MIN(ram, GUEST_MAX_RAM), above = ram - below;
	uint64_t ext_kb = below > MiB(1) ? (below - MiB(1)) / KiB(1) : 0;
	uint64_t above_16m = below > MiB(16) ? (below - MiB(16)) / KiB(64) : 0;
	uint64_t above_4g = above / KiB(64);
	unsigned sum = 0;

	rtc_cmos_put16(r, 0x15, 640);           /* base memory, KiB */
	rtc_cmos_put16(r, 0x17, ext_kb);        /* extended memory, KiB */
	rtc_cmos_put16(r, 0x30, ext_kb);
	rtc_cmos_put16(r, 0x34, above_16m);     /* 64 KiB blocks above 16 MiB */
	r->cmos[0x5b] = (uint8_t)above_4g;      /* 64 KiB blocks above 4 GiB */
	r->cmos[0x5c] = (uint8_t)(above_4g >> 8);
	r->cmos[0x5d] = (uint8_t)(above_4g >> 16);
	r->cmos[0x5f] = (uint8_t)(nr_vcpus ? nr_vcpus - 1 : 0);
	r->cmos[0x14] = 0x02;                   /* equipment: FPU */
	for (unsigned i = 0x10; i <= 0x2d; i++) /* AT checksum at 0x2E (big-endian) */
		sum += r->cmos[i];
	r->cmos[0x2e] = (uint8_t)(sum >> 8);
	r->cmos[0x2f] = (uint8_t)sum;
}

void rtc_init(struct rtc *r, const struct dev_host *host, irq_line_fn irq, void *irqctx,
	      int64_t epoch_secs, uint64_t ram_size, unsigned nr_vcpus)
{
	stime_t now;

	memset(r, 0, sizeof(*r));
	r->host = host;
	r->irq = irq;
	r->irqctx = irqctx;
	r->cmos[REG_A] = A_DEFAULT;
	r->cmos[REG_B] = B_24H;
	now = rtc_now(r);
	r->last = now;
	r->base_ns = epoch_secs * NS_PER_S - now;
	rtc_time_store(r, now);
	rtc_cmos_memory(r, ram_size, nr_vcpus);
}

static void rtc_dev_init(void *dev, const struct dev_cfg *cfg)
{
	rtc_init(dev, cfg->host, cfg->irq, cfg->irqctx, cfg->epoch_secs, cfg->ram_size,
		 cfg->nr_vcpus);
}

/* Reading register C re-arms the periodic/update interrupt: timed on read too. */
DEV_REGISTER(rtc, .size = sizeof(struct rtc), .init = rtc_dev_init,
	     .pio = DEV_PIO_OP(struct rtc, rtc_pio),
	     .next_deadline = DEV_DEADLINE_OP(struct rtc, rtc_next_deadline),
	     .advance = DEV_ADVANCE_OP(struct rtc, rtc_advance),
	     DEV_PIO_RANGES({ RTC_PORT_INDEX, RTC_PORT_INDEX, DEV_PIO_TIMED },
			    { RTC_PORT_DATA, RTC_PORT_DATA, DEV_PIO_TIMED | DEV_PIO_TIMED_READ }));
