/* Unit tests for hv/dev/vpic.c: Linux's init sequence, priorities, EOI forms,
 * cascade, ELCR level mode, AEOI, OCW3 reads, poll, rotation. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "dev/vpic.h"
#include "errno.h"

static struct vpic P;

static uint8_t in(uint16_t port)
{
	uint8_t v = 0;
	ck_assert_int_eq(vpic_pio_read(&P, port, &v), 0);
	return v;
}

static void out(uint16_t port, uint8_t v)
{
	ck_assert_int_eq(vpic_pio_write(&P, port, v), 0);
}

/* arch/x86/kernel/i8259.c init_8259A(auto_eoi), as a sequence of port writes */
static void linux_init(bool aeoi)
{
	out(0x21, 0xff);
	out(0xa1, 0xff);
	out(0x20, 0x11);
	out(0x21, 0x30);
	out(0x21, 0x04);
	out(0x21, aeoi ? 0x03 : 0x01);
	out(0xa0, 0x11);
	out(0xa1, 0x38);
	out(0xa1, 0x02);
	out(0xa1, 0x01);
	out(0x21, 0xfb);        /* cached masks: everything but the cascade */
	out(0xa1, 0xff);
}

static void pulse(unsigned irq)
{
	vpic_set_irq(&P, irq, true);
	vpic_set_irq(&P, irq, false);
}

START_TEST(test_reset_masked)
{
	uint8_t v;

	vpic_init(&P);
	ck_assert_uint_eq(in(0x21), 0xff);
	ck_assert_uint_eq(in(0xa1), 0xff);
	pulse(1);
	ck_assert(!vpic_output(&P));
	ck_assert_int_eq(vpic_peek(&P), -1);
	ck_assert_int_eq(vpic_pio_read(&P, 0x60, &v), -ENOENT);
	ck_assert_int_eq(vpic_pio_write(&P, 0x22, 0), -ENOENT);
	/* Linux's probe: write a mask, read it back */
	out(0x21, 0xfb);
	ck_assert_uint_eq(in(0x21), 0xfb);
}
END_TEST

START_TEST(test_linux_init_and_eoi)
{
	vpic_init(&P);
	linux_init(false);
	ck_assert_uint_eq(in(0x21), 0xfb);
	ck_assert_uint_eq(in(0xa1), 0xff);
	pulse(0);                                 /* masked */
	ck_assert(!vpic_output(&P));
	out(0x21, 0xf8);                          /* unmask IRQ0/1: latched edge fires */
	ck_assert(vpic_output(&P));
	ck_assert_int_eq(vpic_peek(&P), 0x30);
	ck_assert_uint_eq(vpic_ack(&P), 0x30);
	ck_assert(!vpic_output(&P));
	out(0x20, 0x0b);                          /* OCW3: read ISR */
	ck_assert_uint_eq(in(0x20), 0x01);
	pulse(1);                                 /* lower priority: waits */
	ck_assert(!vpic_output(&P));
	out(0x20, 0x0a);                          /* OCW3: read IRR */
	ck_assert_uint_eq(in(0x20), 0x02);
	out(0x20, 0x20);                          /* non-specific EOI */
	ck_assert(vpic_output(&P));
	ck_assert_uint_eq(vpic_ack(&P), 0x31);
	pulse(0);                                 /* higher priority nests */
	ck_assert_uint_eq(vpic_ack(&P), 0x30);
	out(0x20, 0x0b);
	ck_assert_uint_eq(in(0x20), 0x03);
	out(0x20, 0x61);                          /* specific EOI for IRQ1 */
	ck_assert_uint_eq(in(0x20), 0x01);
	out(0x20, 0x20);
	ck_assert_uint_eq(in(0x20), 0x00);
	ck_assert_uint_eq(vpic_ack(&P), 0x37);    /* nothing pending: spurious IRQ7 */
	ck_assert_uint_eq(in(0x20), 0x00);
	ck_assert_uint_eq(P.spurious, 1);
}
END_TEST

START_TEST(test_cascade)
{
	vpic_init(&P);
	linux_init(false);
	out(0xa1, 0xef);                          /* unmask IRQ12 */
	pulse(12);
	ck_assert(vpic_output(&P));
	ck_assert_int_eq(vpic_peek(&P), 0x3c);
	ck_assert_uint_eq(vpic_ack(&P), 0x3c);
	out(0x20, 0x0b);
	out(0xa0, 0x0b);
	ck_assert_uint_eq(in(0x20), 0x04);
	ck_assert_uint_eq(in(0xa0), 0x10);
	out(0xa0, 0x64);                          /* as Linux: slave then master */
	out(0x20, 0x62);
	ck_assert_uint_eq(in(0x20), 0);
	ck_assert_uint_eq(in(0xa0), 0);
	ck_assert(!vpic_output(&P));
	vpic_set_irq(&P, 2, true);                /* IRQ2 is the cascade, not an input */
	ck_assert(!vpic_output(&P));
}
END_TEST

START_TEST(test_elcr_level)
{
	vpic_init(&P);
	linux_init(false);
	out(0x4d0, 0xff);
	ck_assert_uint_eq(in(0x4d0), 0xf8);       /* IRQ0-2 cannot be level */
	out(0x4d1, 0xff);
	ck_assert_uint_eq(in(0x4d1), 0xde);
	out(0x4d1, 0x04);                         /* IRQ10 level */
	out(0xa1, 0xfb);
	vpic_set_irq(&P, 10, true);
	ck_assert_uint_eq(vpic_ack(&P), 0x3a);
	out(0xa0, 0x20);
	out(0x20, 0x20);
	ck_assert(vpic_output(&P));               /* line still high: again */
	ck_assert_uint_eq(vpic_ack(&P), 0x3a);
	out(0xa0, 0x20);
	out(0x20, 0x20);
	vpic_set_irq(&P, 10, false);
	ck_assert(!vpic_output(&P));
	/* the same input in edge mode fires once */
	out(0x4d1, 0x00);
	vpic_set_irq(&P, 10, true);
	ck_assert_uint_eq(vpic_ack(&P), 0x3a);
	out(0xa0, 0x20);
	out(0x20, 0x20);
	ck_assert(!vpic_output(&P));
}
END_TEST

START_TEST(test_auto_eoi_and_poll)
{
	vpic_init(&P);
	linux_init(true);
	out(0x21, 0xf8);
	pulse(1);
	ck_assert_uint_eq(vpic_ack(&P), 0x31);
	out(0x20, 0x0b);
	ck_assert_uint_eq(in(0x20), 0);           /* AEOI: nothing in service */
	pulse(1);
	ck_assert(vpic_output(&P));
	out(0x20, 0x0c);                          /* OCW3 poll */
	ck_assert_uint_eq(in(0x20), 0x81);
	out(0x20, 0x0c);
	ck_assert_uint_eq(in(0x20), 0x00);
}
END_TEST

START_TEST(test_rotation)
{
	vpic_init(&P);
	linux_init(false);
	out(0x21, 0x00);
	out(0x20, 0xc3);                          /* set priority: IRQ3 lowest, IRQ4 highest */
	pulse(1);
	pulse(5);
	ck_assert_uint_eq(vpic_ack(&P), 0x35);
	out(0x20, 0xa0);                          /* rotate on non-specific EOI: IRQ5 lowest */
	pulse(5);
	ck_assert_uint_eq(vpic_ack(&P), 0x31);
	/* ICW1 restores the default order and clears the mask */
	out(0x20, 0x11);
	out(0x21, 0x30);
	out(0x21, 0x04);
	out(0x21, 0x01);
	ck_assert_uint_eq(in(0x21), 0x00);
	pulse(7);
	pulse(6);
	ck_assert_uint_eq(vpic_ack(&P), 0x36);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vpic");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_reset_masked);
	tcase_add_test(tc, test_linux_init_and_eoi);
	tcase_add_test(tc, test_cascade);
	tcase_add_test(tc, test_elcr_level);
	tcase_add_test(tc, test_auto_eoi_and_poll);
	tcase_add_test(tc, test_rotation);
	suite_add_tcase(s, tc);

	return check_run(s);
}
