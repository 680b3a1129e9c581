/* Days <-> civil date over 400-year eras (146097 days each), the Gregorian
 * cycle; day 0 is 1970-01-01, a Thursday. */
#include "dev/rtc_time.h"

#define DAYS_PER_ERA   146097
#define DAYS_0000_TO_1970 719468   /* from 0000-03-01 to 1970-01-01 */

static int64_t rtc_floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Years counted from March so that the leap day is the last of the year. */
static void rtc_days_to_civil(int64_t days, int *y, unsigned *m, unsigned *d)
{
	int64_t z = days + DAYS_0000_TO_1970;
	int64_t era = rtc_floor_div(z, DAYS_PER_ERA);
	unsigned doe = (unsigned)(z - era * DAYS_PER_ERA);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int)(era * 400 + yoe + (*m <= 2));
}

static int64_t rtc_civil_to_days(int y, unsigned m, unsigned d)
{
	int64_t yy = y - (m <= 2);
	int64_t era = rtc_floor_div(yy, 400);
	unsigned yoe = (unsigned)(yy - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * DAYS_PER_ERA + doe - DAYS_0000_TO_1970;
}

void rtc_tm_from_secs(int64_t secs, struct rtc_tm *tm)
{
	int64_t days = rtc_floor_div(secs, 86400);
	unsigned sod = (unsigned)(secs - days * 86400);

	tm->sec = sod % 60;
	tm->min = sod / 60 % 60;
	tm->hour = sod / 3600;
	tm->wday = (unsigned)((days % 7 + 7 + 4) % 7) + 1;
	rtc_days_to_civil(days, &tm->year, &tm->mon, &tm->mday);
}

int64_t rtc_tm_to_secs(const struct rtc_tm *tm)
{
	return rtc_civil_to_days(tm->year, tm->mon, tm->mday) * 86400 +
	       tm->hour * 3600 + tm->min * 60 + tm->sec;
}

uint8_t rtc_bcd_encode(unsigned v)
{
	return (uint8_t)(((v / 10) % 10) << 4 | (v % 10));
}

unsigned rtc_bcd_decode(uint8_t v)
{
	return (v >> 4) * 10 + (v & 0x0f);
}
