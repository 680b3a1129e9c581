/* I/O-instruction exits: the decode hv/vmx gives hv/vm's port routing
 * (vm/io.c). Qualification: SDM vol. 3 §28.2.1 Table 28-5; the string forms'
 * instruction information: §28.2.5 Table 28-8. */
#ifndef HV_VMX_EXIT_IO_H
#define HV_VMX_EXIT_IO_H
#include "vmx/exit.h"
#include "vmx/seg_check.h"

#define IOQ_SIZE(q)    ((unsigned)((q) & 7) + 1)
#define IOQ_IN         BIT(3)
#define IOQ_STRING     BIT(4)
#define IOQ_REP        BIT(5)
#define IOQ_PORT(q)    ((uint16_t)((q) >> 16))

/* An INS/OUTS as the CPU left it: the address-size mask of RSI/RDI/RCX, the
 * signed step per element (RFLAGS.DF) and the memory operand's segment (ES
 * for INS, the instruction's segment for OUTS), read once per exit. */
struct io_string_info {
	uint64_t amask;
	int64_t step;
	struct seg_view sv;
};
void exit_io_string_decode(bool in, unsigned size, struct io_string_info *s);
#endif
