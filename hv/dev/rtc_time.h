/* Calendar arithmetic for the CMOS RTC: Unix seconds <-> broken-down UTC
 * (proleptic Gregorian), and the register encodings (BCD, 12-hour). */
#ifndef HV_DEV_RTC_TIME_H
#define HV_DEV_RTC_TIME_H
#include "types.h"

struct rtc_tm {
	unsigned sec, min, hour;   /* 0-59, 0-59, 0-23 */
	unsigned mday, mon;        /* 1-31, 1-12 */
	unsigned wday;             /* 1-7, Sunday = 1 (MC146818 convention) */
	int year;                  /* e.g. 2026 */
};

void rtc_tm_from_secs(int64_t secs, struct rtc_tm *tm);
int64_t rtc_tm_to_secs(const struct rtc_tm *tm);
uint8_t rtc_bcd_encode(unsigned v);
unsigned rtc_bcd_decode(uint8_t v);
#endif
