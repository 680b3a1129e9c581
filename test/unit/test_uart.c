/* Unit tests for hv/dev/uart.c: output, LSR, divisor latch, loopback,
 * input queue and the interrupt identification logic. */
#include <check.h>
#include "test_devfake.h"
#include "dev/uart.h"

static struct devfake F;
static struct dev_host H;
static struct uart U;

static void setup(void)
{
	devfake_setup(&F, &H);
	uart_init(&U, &H, devfake_irq, &F, UART_COM1_BASE, UART_COM1_IRQ);
}

static uint32_t rd(unsigned reg)
{
	uint32_t v = 0xdeadbeef;

	ck_assert_int_eq(uart_pio(&U, UART_COM1_BASE + reg, 1, false, &v), 0);
	return v;
}

static void wr(unsigned reg, uint32_t v)
{
	ck_assert_int_eq(uart_pio(&U, UART_COM1_BASE + reg, 1, true, &v), 0);
}

START_TEST(test_output_and_lsr)
{
	const char *msg = "hello\n";

	for (const char *p = msg; *p; p++) {
		ck_assert_uint_eq(rd(5) & 0x60, 0x60);   /* THRE and TEMT */
		wr(0, (uint8_t)*p);
	}
	ck_assert_str_eq(F.out, "hello\n");
	ck_assert_uint_eq(rd(5) & 1, 0);               /* no data ready */
	uint32_t v;
	ck_assert_int_eq(uart_pio(&U, 0x3f7, 1, false, &v), -ENOENT);
	ck_assert_int_eq(uart_pio(&U, 0x400, 1, false, &v), -ENOENT);
}
END_TEST

START_TEST(test_divisor_latch)
{
	wr(3, 0x83);            /* DLAB */
	wr(0, 0x01);            /* 115200 */
	wr(1, 0x00);
	ck_assert_uint_eq(rd(0), 0x01);
	ck_assert_uint_eq(rd(1), 0x00);
	ck_assert_uint_eq(F.out_len, 0);   /* DLL write is not output */
	wr(3, 0x03);
	ck_assert_uint_eq(rd(3), 0x03);
	ck_assert_uint_eq(rd(1), 0x00);    /* IER again */
	wr(7, 0x5a);
	ck_assert_uint_eq(rd(7), 0x5a);
}
END_TEST

START_TEST(test_input_queue)
{
	const uint8_t in[] = "ab";

	ck_assert_uint_eq(uart_input_push(&U, in, 2), 2);
	ck_assert_uint_eq(rd(5) & 1, 1);
	ck_assert_uint_eq(rd(0), 'a');
	ck_assert_uint_eq(rd(0), 'b');
	ck_assert_uint_eq(rd(5) & 1, 0);
	uint8_t big[UART_RXQ_SIZE + 10];
	memset(big, 'x', sizeof(big));
	ck_assert_uint_eq(uart_input_push(&U, big, sizeof(big)), UART_RXQ_SIZE);
}
END_TEST

START_TEST(test_rx_interrupt)
{
	const uint8_t in[] = "z";

	wr(1, 0x01);                          /* RX data interrupt */
	ck_assert(!F.line[4]);
	uart_input_push(&U, in, 1);
	ck_assert(F.line[4]);
	ck_assert_uint_eq(rd(2) & 0x0f, 0x04);
	ck_assert_uint_eq(rd(0), 'z');
	ck_assert(!F.line[4]);
	ck_assert_uint_eq(rd(2) & 0x0f, 0x01);
}
END_TEST

START_TEST(test_thre_interrupt)
{
	wr(1, 0x02);                          /* enabling ETBEI raises THRE */
	ck_assert(F.line[4]);
	ck_assert_uint_eq(rd(2) & 0x0f, 0x02);  /* IIR read acks it */
	ck_assert(!F.line[4]);
	ck_assert_uint_eq(rd(2) & 0x0f, 0x01);
	wr(0, 'q');                           /* each write re-arms THRE */
	ck_assert(F.line[4]);
	ck_assert_int_eq(F.rises[4], 2);
	wr(1, 0x00);
	ck_assert(!F.line[4]);
}
END_TEST

START_TEST(test_loopback)
{
	wr(4, 0x10 | 0x0b);                   /* loop, DTR, RTS, OUT2 */
	wr(0, 'L');
	ck_assert_uint_eq(F.out_len, 0);
	ck_assert_uint_eq(rd(5) & 1, 1);
	ck_assert_uint_eq(rd(0), 'L');
	ck_assert_uint_eq(rd(6) & 0xf0, 0x80 | 0x20 | 0x10);   /* DCD, DSR, CTS */
	wr(4, 0x00);
	ck_assert_uint_eq(rd(6), 0xb0);
}
END_TEST

START_TEST(test_fifo_iir_and_clear)
{
	const uint8_t in[] = "abc";

	wr(2, 0x07);                          /* enable + clear */
	ck_assert_uint_eq(rd(2) & 0xc0, 0xc0);
	uart_input_push(&U, in, 3);
	wr(2, 0x03);                          /* clear RX FIFO */
	ck_assert_uint_eq(rd(5) & 1, 0);
}
END_TEST

START_TEST(test_overrun)
{
	uint8_t big[UART_RXQ_SIZE];

	memset(big, 'y', sizeof(big));
	uart_input_push(&U, big, sizeof(big));
	wr(4, 0x10);
	wr(0, 'o');                           /* loopback into a full queue */
	ck_assert_uint_eq(rd(5) & 2, 2);
	ck_assert_uint_eq(rd(5) & 2, 0);      /* OE clears on read */
}
END_TEST

/* uart_pio re-evaluates the line only after accesses that feed the IIR:
 * the line must still follow every such access, and the others (divisor
 * latch, LCR, MCR, SCR) must leave it alone. */
START_TEST(test_irq_follows_feeding_regs)
{
	wr(1, 0x02);                          /* ETBEI: THRE pending at once */
	ck_assert(F.line[4]);
	wr(3, 0x83);                          /* DLAB */
	wr(1, 0x00);                          /* DLM, not IER */
	wr(0, 0x01);                          /* DLL, not THR */
	wr(7, 0x11);
	wr(4, 0x0b);
	ck_assert(F.line[4]);
	ck_assert_int_eq(F.rises[4], 1);
	wr(3, 0x03);
	ck_assert_uint_eq(rd(2) & 0x0f, 0x02); /* THRE, acked by this read */
	ck_assert(!F.line[4]);
	wr(0, 'x');                           /* THR again: THRE pending */
	ck_assert(F.line[4]);
	ck_assert_int_eq(F.rises[4], 2);
	wr(1, 0x00);
	ck_assert(!F.line[4]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uart");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_output_and_lsr);
	tcase_add_test(tc, test_divisor_latch);
	tcase_add_test(tc, test_input_queue);
	tcase_add_test(tc, test_rx_interrupt);
	tcase_add_test(tc, test_thre_interrupt);
	tcase_add_test(tc, test_loopback);
	tcase_add_test(tc, test_fifo_iir_and_clear);
	tcase_add_test(tc, test_overrun);
	tcase_add_test(tc, test_irq_follows_feeding_regs);
	suite_add_tcase(s, tc);
	return devfake_run(s);
}
