/* MC146818 CMOS RTC at ports 0x70 (index, bit 7 = NMI disable) / 0x71 (data),
 * IRQ8. Time is a host-given Unix epoch advancing with dev_host.now; the
 * guest can set it (status B SET). CMOS bytes follow QEMU's pc layout,
 * including the memory-size fields 0x15-0x18, 0x30-0x31, 0x34-0x35,
 * 0x5B-0x5D and the CPU count at 0x5F. Not locked: the caller serialises. */
#ifndef HV_DEV_RTC_H
#define HV_DEV_RTC_H
#include "dev/dev.h"

#define RTC_PORT_INDEX 0x70
#define RTC_PORT_DATA  0x71
#define RTC_IRQ        8
#define RTC_CMOS_SIZE  128
#define RTC_REG_CENTURY 0x32

struct rtc {
	const struct dev_host *host;
	irq_line_fn irq;
	void *irqctx;
	uint8_t cmos[RTC_CMOS_SIZE];
	uint8_t index;
	bool nmi_disabled;
	int64_t base_ns;         /* wall-clock ns (Unix) when now == 0 */
	stime_t last;            /* flags are up to date until here */
	bool irq_level;
};

void rtc_init(struct rtc *r, const struct dev_host *host, irq_line_fn irq, void *irqctx,
	      int64_t epoch_secs, uint64_t ram_size, unsigned nr_vcpus);
int rtc_pio(struct rtc *r, uint16_t port, unsigned size, bool write, uint32_t *val);
stime_t rtc_next_deadline(const struct rtc *r);
void rtc_advance(struct rtc *r, stime_t now);
/* Guest wall-clock seconds at a time (for tests and the trace header). */
int64_t rtc_wall_secs(const struct rtc *r, stime_t now);
static inline bool rtc_nmi_masked(const struct rtc *r)
{
	return r->nmi_disabled;
}
#endif
