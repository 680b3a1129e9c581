/* I/O-instruction exits, the VMCS side: the string forms' address size,
 * direction and segment (SDM vol. 3 §28.2.5 Table 28-8). The exit's routing
 * (devices, guest memory, the timed-port rules) is hv/vm's (vm/io.c). */
#include "vmx/exit_io.h"
#include "vmx/vmcs.h"

#define RFLAGS_DF      BIT(10)

void exit_io_string_decode(bool in, unsigned size, struct io_string_info *s)
{
	uint32_t info = vmcs_read32(VMCS_EXIT_INSN_INFO);
	unsigned asz = (info >> 7) & 7;               /* 0: 16, 1: 32, 2: 64 bit */

	s->amask = asz == 0 ? 0xffff : asz == 1 ? 0xffffffffull : ~0ull;
	s->step = (vmcs_readnat(VMCS_GUEST_RFLAGS) & RFLAGS_DF) ? -(int64_t)size : (int64_t)size;
	seg_view_read(in ? 0 /* ES */ : (info >> 15) & 7, &s->sv);
}
