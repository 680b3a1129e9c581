/* QEMU fw_cfg over I/O ports: 16-bit selector at 0x510, data bytes at 0x511
 * (QEMU docs/specs/fw_cfg.rst). Only the signature and the CPU count. */
#include "guest.h"

#define FWCFG_PORT_SEL  0x510
#define FWCFG_PORT_DATA 0x511
#define FWCFG_SIGNATURE 0x0000
#define FWCFG_NB_CPUS   0x0005

bool fwcfg_present(void)
{
	char sig[4];

	outw(FWCFG_PORT_SEL, FWCFG_SIGNATURE);
	for (int i = 0; i < 4; i++)
		sig[i] = (char)inb(FWCFG_PORT_DATA);
	return !memcmp(sig, "QEMU", 4);
}

unsigned fwcfg_nr_cpus(void)
{
	unsigned n;

	if (!fwcfg_present())
		return 0;
	outw(FWCFG_PORT_SEL, FWCFG_NB_CPUS);
	n = inb(FWCFG_PORT_DATA);
	n |= (unsigned)inb(FWCFG_PORT_DATA) << 8;
	return n;
}
