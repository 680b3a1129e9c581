/* Unit tests for the pure part of APIC virtualization (hv/vmx/apicv_calc.c):
 * interrupt status, TPR threshold, EOI-exit bitmap, x2APIC MSR bitmap. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "vmx/apicv_calc.h"
#include "check_run.h"

static uint32_t page[1024];

static void vec_set(unsigned base, unsigned v)
{
	page[(base + (v / 32) * 16) / 4] |= 1u << (v % 32);
}

static void setup(void)
{
	memset(page, 0, sizeof(page));
}

START_TEST(test_intr_status)
{
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0);
	vec_set(0x200, 0x31);
	vec_set(0x200, 0x80);
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0x0080);
	vec_set(0x100, 0x41);
	vec_set(0x100, 0xfe);
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0xfe80);
	vec_set(0x200, 0xff);
	ck_assert_uint_eq(apicv_calc_intr_status(page), 0xfeff);
}
END_TEST

START_TEST(test_tpr_threshold)
{
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);
	page[0x80 / 4] = 0x50;
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);    /* nothing pending */
	vec_set(0x200, 0x35);
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 3);    /* masked by TPR 5 */
	page[0x80 / 4] = 0x20;
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);    /* deliverable */
	page[0x80 / 4] = 0x3f;
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 3);    /* same class: masked */
	vec_set(0x200, 0x91);
	ck_assert_uint_eq(apicv_calc_tpr_threshold(page), 0);    /* highest wins */
}
END_TEST

START_TEST(test_eoi_bitmap)
{
	uint64_t rte[4] = {
		0x70 | (1ull << 15),                  /* level fixed: exits */
		0x71,                                 /* edge */
		0x72 | (1ull << 15) | (4ull << 8),    /* level NMI: no remote IRR */
		0x73 | (1ull << 15) | (1ull << 8) | (1ull << 16),  /* lowest, masked */
	};
	uint64_t bm[4];

	vec_set(0x180, 0x60);
	vec_set(0x180, 0xe1);
	apicv_calc_eoi_bitmap(page, rte, 4, bm);
	ck_assert_uint_eq(bm[0], 0);
	ck_assert_uint_eq(bm[1], (1ull << (0x60 - 64)) | (1ull << (0x70 - 64)) |
			  (1ull << (0x73 - 64)));
	ck_assert_uint_eq(bm[2], 0);
	ck_assert_uint_eq(bm[3], 1ull << (0xe1 - 192));
	/* The split form (cached level vectors) gives the same bitmap. */
	{
		uint64_t lv[4], bm2[4];

		apicv_calc_level_vectors(rte, 4, lv);
		ck_assert_uint_eq(lv[1], (1ull << (0x70 - 64)) | (1ull << (0x73 - 64)));
		ck_assert_uint_eq(lv[0] | lv[2] | lv[3], 0);
		apicv_calc_eoi_from_level(page, lv, bm2);
		for (unsigned i = 0; i < 4; i++)
			ck_assert_uint_eq(bm2[i], bm[i]);
	}
}
END_TEST

static uint8_t bitmap[4096];

START_TEST(test_x2apic_bitmap)
{
	memset(bitmap, 0xff, sizeof(bitmap));
	apicv_calc_x2apic_bitmap(bitmap, true, true, true);
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x802, false));   /* ID */
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x820, false));   /* IRR */
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x830, false));   /* ICR */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x839, false));    /* current count */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x83f, false));    /* SELF IPI: write-only */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x82f, false));    /* no CMCI */
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x808, true));
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x80b, true));
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x83f, true));
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x830, true));     /* ICR: emulated */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x838, true));     /* timer: emulated */
	memset(bitmap, 0xff, sizeof(bitmap));
	apicv_calc_x2apic_bitmap(bitmap, true, true, false);           /* apicv_vid_gate */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x83f, true));
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x80b, true));
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x1b, false));     /* others untouched */
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x800 - 1, true));

	memset(bitmap, 0xff, sizeof(bitmap));
	apicv_calc_x2apic_bitmap(bitmap, false, false, true);
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x802, false));
	ck_assert(!apicv_calc_msr_intercepted(bitmap, 0x808, true));
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x80b, true));
	ck_assert(apicv_calc_msr_intercepted(bitmap, 0x83f, true));
}
END_TEST

static bool bit(const uint64_t m[4], unsigned v)
{
	return (m[v / 64] >> (v % 64)) & 1;
}

/* Issue 17: the entry never leaves the CPU a virtual interrupt it cannot
 * deliver (Bochs 2.7 would deliver it with IF=0 on a host interrupt). */
START_TEST(test_gated_status)
{
	uint64_t ex[4];
	bool win;

	ck_assert_uint_eq(apicv_calc_gated_status(page, apicv_calc_intr_status(page), false, &win, ex), 0);
	ck_assert(!win);
	vec_set(0x200, 0xec);                     /* timer pending, IF=0: held, window */
	ck_assert_uint_eq(apicv_calc_gated_status(page, apicv_calc_intr_status(page), false, &win, ex), 0);
	ck_assert(win);
	ck_assert(!(ex[0] | ex[1] | ex[2] | ex[3]));
	/* IF=1, one vector: delivered at entry, no EOI exit */
	ck_assert_uint_eq(apicv_calc_gated_status(page, apicv_calc_intr_status(page), true, &win, ex), 0x00ec);
	ck_assert(!win && !(ex[0] | ex[1] | ex[2] | ex[3]));
	/* two pending: the first is delivered, both EOIs exit */
	vec_set(0x200, 0xfd);
	ck_assert_uint_eq(apicv_calc_gated_status(page, apicv_calc_intr_status(page), true, &win, ex), 0x00fd);
	ck_assert(!win && bit(ex, 0xfd) && bit(ex, 0xec) && !bit(ex, 0x31));
	/* lower class than the one in service: held until that EOI, which exits */
	setup();
	vec_set(0x100, 0xec);
	vec_set(0x200, 0xe1);
	ck_assert_uint_eq(apicv_calc_gated_status(page, apicv_calc_intr_status(page), true, &win, ex), 0xec00);
	ck_assert(!win && bit(ex, 0xec) && !bit(ex, 0xe1));
	/* higher class than the one in service: delivered (nested), no extra */
	setup();
	vec_set(0x100, 0xec);
	vec_set(0x200, 0xfd);
	ck_assert_uint_eq(apicv_calc_gated_status(page, apicv_calc_intr_status(page), true, &win, ex), 0xecfd);
	ck_assert(!win && !(ex[0] | ex[1] | ex[2] | ex[3]));
	/* masked by TPR only: held, nothing to wait for but the next exit */
	setup();
	page[0x80 / 4] = 0x50;
	vec_set(0x200, 0x41);
	ck_assert_uint_eq(apicv_calc_gated_status(page, apicv_calc_intr_status(page), true, &win, ex), 0);
	ck_assert(!win);
}
END_TEST

/* A model of the CPU after such an entry (SDM §30.2: delivery, then EOI
 * virtualization in the handler, interrupts off until IRET): for every mix
 * of up to three pending vectors and one in service, no step may leave a
 * virtual interrupt recognized (RVI class > PPR class) while IF=0 unless
 * an exit (EOI-induced) comes first. Without the gate the timer pending at
 * IF=0 fails at once. */
static unsigned hi_vec(const uint64_t r[4])
{
	for (int v = 255; v >= 16; v--)
		if (bit(r, (unsigned)v))
			return (unsigned)v;
	return 0;
}

START_TEST(test_gated_model)
{
	static const uint8_t vecs[] = { 0x31, 0x41, 0xe1, 0xec, 0xfb, 0xfd };
	unsigned n = sizeof(vecs);

	for (unsigned irr = 1; irr < (1u << n); irr++) {
		if (__builtin_popcount(irr) > 3)
			continue;
		for (unsigned isr = 0; isr <= n; isr++) {
			for (int can = 0; can < 2; can++) {
				uint64_t vi[4] = { 0 }, vs[4] = { 0 }, ex[4];
				unsigned rvi, svi, ppr;
				bool win, ifl = can;
				uint16_t st;

				setup();
				for (unsigned i = 0; i < n; i++)
					if (irr & (1u << i)) {
						vec_set(0x200, vecs[i]);
						vi[vecs[i] / 64] |= 1ull << (vecs[i] % 64);
					}
				if (isr < n) {
					vec_set(0x100, vecs[isr]);
					vs[vecs[isr] / 64] |= 1ull << (vecs[isr] % 64);
				}
				st = apicv_calc_gated_status(page, apicv_calc_intr_status(page), can, &win, ex);
				rvi = st & 0xff;
				/* entry: deliver while recognized and IF=1 */
				for (int steps = 0; steps < 8; steps++) {
					svi = hi_vec(vs);
					ppr = svi >> 4;
					if (!rvi || (rvi >> 4) <= ppr)
						break;
					ck_assert_msg(ifl, "irr %#x isr %u: recognized with IF=0", irr, isr);
					vs[rvi / 64] |= 1ull << (rvi % 64);
					vi[rvi / 64] &= ~(1ull << (rvi % 64));
					rvi = hi_vec(vi);   /* the CPU moves the next VIRR into RVI */
					ifl = false;        /* the handler runs with IF=0 */
					/* its EOI: an exit if asked for, else evaluation */
					svi = hi_vec(vs);
					if (bit(ex, svi))
						break;      /* the hypervisor re-gates at entry */
					vs[svi / 64] &= ~(1ull << (svi % 64));
				}
				(void)win;
			}
		}
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("apicv");
	TCase *tc = tcase_create("calc");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_intr_status);
	tcase_add_test(tc, test_tpr_threshold);
	tcase_add_test(tc, test_eoi_bitmap);
	tcase_add_test(tc, test_x2apic_bitmap);
	tcase_add_test(tc, test_gated_status);
	tcase_add_test(tc, test_gated_model);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
