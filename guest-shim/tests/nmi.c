/* NMI delivery as the SDM describes it (vol. 3 §6.7.1 "Handling Multiple
 * NMIs", §25.3 for the hypervisor side): while the NMI handler runs (until
 * its IRET) further NMIs are blocked; one of them is held pending and
 * delivered after the IRET, more coalesce into it. The handler sends itself
 * NMIs through the LAPIC ICR and waits: none may nest, exactly one more must
 * arrive after it returns. 1 vCPU.
 * Then an NMI storm: the PIT at its shortest period (~100 us) routed as NMI
 * while each handler run lasts 300 us, so an NMI is latched at every IRET and
 * delivered before the next instruction (with virtual NMIs: an NMI-window
 * exit at the IRET, SDM §26.7.6). The interrupted code gets no instruction
 * in until the handler masks the pin: what wedged the hostile guest under
 * Bochs (docs/interrupts.md). The handler must never nest. */
#include "guest.h"

const char test_name[] = "nmi";

#define ICR_NMI 0x00000400u

static volatile uint32_t nmis, depth, max_depth, sent_in_handler;
static volatile unsigned inner_sends = 2;
static volatile uint32_t storm, storm_nmis, storm_gsi, storm_main_runs;
#define STORM_NMIS 64

static bool nmi_hook(unsigned vector)
{
	uint32_t d;

	if (vector != 2)
		return false;
	d = ++depth;
	if (d > max_depth)
		max_depth = d;
	if (storm) {
		if (++storm_nmis == STORM_NMIS)
			ioapic_mask(storm_gsi);
		else if (storm_nmis < STORM_NMIS)
			delay_us(300);
	} else if (++nmis == 1) {
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

	storm_gsi = acpi_isa_to_gsi(0);
	storm = 1;
	ioapic_write(0x10 + 2 * storm_gsi + 1, apic_id() << 24);
	ioapic_write(0x10 + 2 * storm_gsi, 4u << 8);     /* NMI, edge, unmasked */
	outb(0x43, 0x34);                                /* PIT mode 2, count 119 */
	outb(0x40, 119);
	outb(0x40, 0);
	while (storm_nmis < 2)
		cpu_pause();
	while (storm_nmis < STORM_NMIS)   /* wedged here: no wait_count timeout */
		storm_main_runs++;
	outb(0x43, 0x30);                                /* PIT mode 0, stopped */
	delay_us(2000);
	test_check("storm_ended", storm_nmis >= STORM_NMIS && storm_nmis <= STORM_NMIS + 1,
		   "%u NMIs from the PIT, main loop ran %u times meanwhile", storm_nmis,
		   storm_main_runs);
	test_check("storm_not_nested", max_depth == 1, "handler nesting depth %u", max_depth);
}
