/* NMI delivery as the SDM describes it (vol. 3 §6.7.1 "Handling Multiple
 * NMIs", §25.3 for the hypervisor side): while the NMI handler runs (until
 * its IRET) further NMIs are blocked; one of them is held pending and
 * delivered after the IRET, more coalesce into it. The handler sends itself
 * NMIs through the LAPIC ICR and waits: none may nest, exactly one more must
 * arrive after it returns. 1 vCPU. */
#include "guest.h"

const char test_name[] = "nmi";

#define ICR_NMI 0x00000400u

static volatile uint32_t nmis, depth, max_depth, sent_in_handler;
static volatile unsigned inner_sends = 2;

static bool nmi_hook(unsigned vector)
{
	uint32_t d;

	if (vector != 2)
		return false;
	d = ++depth;
	if (d > max_depth)
		max_depth = d;
	if (++nmis == 1) {
		/* Blocked by NMI here: these must wait for our IRET and
		 * coalesce into one. */
		for (unsigned i = 0; i < inner_sends; i++) {
			apic_send_ipi(apic_id(), ICR_NMI);
			sent_in_handler++;
			delay_us(2000);
		}
	}
	depth--;
	return true;
}

void test_main(void)
{
	exc_hook = nmi_hook;
	apic_send_ipi(apic_id(), ICR_NMI);
	wait_count(&nmis, 2, 200);
	delay_us(20000);   /* a third NMI, if any got through, arrives by now */
	test_check("handler_ran", nmis >= 1 && sent_in_handler == inner_sends,
		   "%u NMIs, %u sent from the handler", nmis, sent_in_handler);
	test_check("not_nested", max_depth == 1, "handler nesting depth %u", max_depth);
	test_check("latched_after_iret", nmis >= 2, "%u NMIs", nmis);
	test_check("coalesced", nmis == 2, "%u NMIs for 1 + %u sent while blocked", nmis,
		   inner_sends);
}
