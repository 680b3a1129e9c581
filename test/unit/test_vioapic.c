/* Unit tests for hv/dev/vioapic.c: registers, edge/level pins, remote IRR, EOI. */
#include <check.h>
#include "check_run.h"
#include <string.h>
#include "dev/vioapic.h"
#include "errno.h"

static struct vioapic IO;
static struct { int n; struct apic_msg last; } F;

static void f_deliver(void *c, const struct apic_msg *m) { F.n++; F.last = *m; }
static const struct vioapic_ops ops = { f_deliver, NULL };

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	vioapic_init(&IO, 1, &ops);
}

static uint32_t rd(uint8_t idx)
{
	uint32_t v;
	ck_assert_int_eq(vioapic_mmio_write(&IO, IOAPIC_REGSEL, 4, idx), 0);
	ck_assert_int_eq(vioapic_mmio_read(&IO, IOAPIC_WIN, 4, &v), 0);
	return v;
}

static void wr(uint8_t idx, uint32_t v)
{
	ck_assert_int_eq(vioapic_mmio_write(&IO, IOAPIC_REGSEL, 4, idx), 0);
	ck_assert_int_eq(vioapic_mmio_write(&IO, IOAPIC_WIN, 4, v), 0);
}

static void rte(unsigned pin, uint32_t lo, uint8_t dest)
{
	wr((uint8_t)(0x11 + 2 * pin), (uint32_t)dest << 24);
	wr((uint8_t)(0x10 + 2 * pin), lo);
}

START_TEST(test_registers)
{
	uint32_t v;

	setup();
	ck_assert_uint_eq(rd(IOAPIC_REG_ID), 1u << 24);
	ck_assert_uint_eq(rd(IOAPIC_REG_VER), 0x00170011);
	ck_assert_uint_eq(rd(IOAPIC_REG_ARB), 1u << 24);
	for (unsigned pin = 0; pin < 24; pin++) {
		ck_assert_uint_eq(rd((uint8_t)(0x10 + 2 * pin)), RTE_MASKED);
		ck_assert_uint_eq(rd((uint8_t)(0x11 + 2 * pin)), 0);
	}
	ck_assert_uint_eq(rd(0x40), 0);           /* beyond pin 23 */
	wr(IOAPIC_REG_ID, 0x0a000000);
	ck_assert_uint_eq(rd(IOAPIC_REG_ID), 0x0a000000);
	wr(IOAPIC_REG_VER, 0);
	ck_assert_uint_eq(rd(IOAPIC_REG_VER), 0x00170011);
	/* read-only and reserved RTE bits do not stick */
	wr(0x10, 0xffffffff);
	ck_assert_uint_eq(rd(0x10), 0x0001afff);
	wr(0x11, 0xffffffff);
	ck_assert_uint_eq(rd(0x11), 0xff000000);
	ck_assert_int_eq(vioapic_mmio_read(&IO, IOAPIC_REGSEL, 4, &v), 0);
	ck_assert_uint_eq(v, 0x11);
	ck_assert_int_eq(vioapic_mmio_read(&IO, 0x20, 4, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(vioapic_mmio_read(&IO, 0, 3, &v), -EINVAL);
}
END_TEST

START_TEST(test_edge)
{
	setup();
	rte(4, 0x34 | RTE_LOGICAL | (APIC_DM_LOWEST << 8), 0x0c);
	vioapic_set_irq(&IO, 4, true);
	ck_assert_int_eq(F.n, 1);
	ck_assert_uint_eq(F.last.vector, 0x34);
	ck_assert_uint_eq(F.last.dest, 0x0c);
	ck_assert(F.last.logical && !F.last.level_trig && !F.last.x2apic_dest);
	ck_assert_uint_eq(F.last.mode, APIC_DM_LOWEST);
	vioapic_set_irq(&IO, 4, true);            /* no new edge */
	ck_assert_int_eq(F.n, 1);
	vioapic_set_irq(&IO, 4, false);
	vioapic_set_irq(&IO, 4, true);
	ck_assert_int_eq(F.n, 2);
	ck_assert_uint_eq(rd(0x18) & RTE_REMOTE_IRR, 0);
	/* an edge on a masked pin is lost, unmasking does not replay it */
	rte(4, 0x34 | RTE_MASKED, 0);
	vioapic_set_irq(&IO, 4, false);
	vioapic_set_irq(&IO, 4, true);
	ck_assert_int_eq(F.n, 2);
	rte(4, 0x34, 0);
	ck_assert_int_eq(F.n, 2);
	vioapic_set_irq(&IO, 24, true);           /* out of range: ignored */
	ck_assert_int_eq(F.n, 2);
}
END_TEST

START_TEST(test_level_remote_irr)
{
	setup();
	rte(9, 0x39 | RTE_LEVEL, 1);
	vioapic_set_irq(&IO, 9, true);
	ck_assert_int_eq(F.n, 1);
	ck_assert(F.last.level_trig);
	ck_assert(rd(0x22) & RTE_REMOTE_IRR);
	vioapic_set_irq(&IO, 9, true);            /* in service: held */
	ck_assert_int_eq(F.n, 1);
	vioapic_eoi(&IO, 0x38);                   /* other vector: nothing */
	ck_assert(rd(0x22) & RTE_REMOTE_IRR);
	vioapic_eoi(&IO, 0x39);                   /* still asserted: again */
	ck_assert_int_eq(F.n, 2);
	ck_assert(rd(0x22) & RTE_REMOTE_IRR);
	vioapic_set_irq(&IO, 9, false);
	vioapic_eoi(&IO, 0x39);
	ck_assert_int_eq(F.n, 2);
	ck_assert_uint_eq(rd(0x22) & RTE_REMOTE_IRR, 0);
	/* writing the RTE cannot set or clear remote IRR */
	vioapic_set_irq(&IO, 9, true);
	ck_assert_int_eq(F.n, 3);
	wr(0x22, 0x39 | RTE_LEVEL);
	ck_assert(rd(0x22) & RTE_REMOTE_IRR);
	ck_assert_int_eq(F.n, 3);
	/* switching to edge drops remote IRR */
	wr(0x22, 0x39);
	ck_assert_uint_eq(rd(0x22) & RTE_REMOTE_IRR, 0);
}
END_TEST

START_TEST(test_level_masked_then_unmasked)
{
	setup();
	rte(10, 0x3a | RTE_LEVEL | RTE_MASKED, 0);
	vioapic_set_irq(&IO, 10, true);
	ck_assert_int_eq(F.n, 0);
	ck_assert(vioapic_vector_is_level(&IO, 0x3a));
	ck_assert(!vioapic_vector_is_level(&IO, 0x3b));
	rte(10, 0x3a | RTE_LEVEL, 0);             /* unmask while asserted */
	ck_assert_int_eq(F.n, 1);
	vioapic_set_irq(&IO, 10, false);
	vioapic_eoi(&IO, 0x3a);
	ck_assert_int_eq(F.n, 1);
}
END_TEST

START_TEST(test_nmi_entry_is_edge)
{
	setup();
	rte(5, RTE_LEVEL | (APIC_DM_NMI << 8), 0);
	vioapic_set_irq(&IO, 5, true);
	ck_assert_int_eq(F.n, 1);
	ck_assert_uint_eq(F.last.mode, APIC_DM_NMI);
	ck_assert(!F.last.level_trig);
	ck_assert_uint_eq(rd(0x1a) & RTE_REMOTE_IRR, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vioapic");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_registers);
	tcase_add_test(tc, test_edge);
	tcase_add_test(tc, test_level_remote_irr);
	tcase_add_test(tc, test_level_masked_then_unmasked);
	tcase_add_test(tc, test_nmi_entry_is_edge);
	suite_add_tcase(s, tc);

	return check_run(s);
}
