/* Minimal x86 decoder for the MMIO instructions guests use on the LAPIC and
 * IOAPIC when APIC virtualisation is off: MOV r/m<->reg (88/89/8A/8B), MOV
 * imm->r/m (C6/C7), MOV A0-A3 (moffs), MOVZX/MOVSX (0F B6/B7/BE/BF), with
 * REX, 66/67, segment and REP prefixes. The caller fetches up to 15
 * bytes at the guest RIP; the memory address comes from the EPT exit. */
#ifndef HV_VMX_DECODE_H
#define HV_VMX_DECODE_H
#include "types.h"

enum decode_mode { DECODE_MODE_16, DECODE_MODE_32, DECODE_MODE_64 };

#define DECODE_MAX_LEN 15

/* GPR numbering is the x86 encoding: 0 RAX, 1 RCX, 2 RDX, 3 RBX, 4 RSP,
 * 5 RBP, 6 RSI, 7 RDI, 8-15 R8-R15. */
struct mmio_insn {
	uint8_t len;       /* instruction length in bytes (advance RIP by this) */
	uint8_t size;      /* memory access size: 1, 2, 4 or 8 */
	bool write;        /* true: store to memory; false: load into reg */
	bool has_imm;      /* store of imm (no register source) */
	uint8_t reg;       /* GPR index (source of a store, destination of a load) */
	bool high8;        /* reg is AH/CH/DH/BH: bits 15:8 of GPR reg */
	uint8_t reg_size;  /* destination register width of a load (1,2,4,8) */
	bool sign_extend;  /* MOVSX */
	uint64_t imm;      /* immediate, already sign-extended to the access size */
};

/* Returns 0, -EAGAIN if buf ended before the instruction did (fetch more),
 * -ENOTSUP for an opcode outside the supported set, -EINVAL for register
 * operands (not a memory access) or instructions longer than 15 bytes. */
int decode_mmio(const uint8_t *buf, size_t n, enum decode_mode mode, struct mmio_insn *out);

/* Value a store writes (the register bits or the immediate), masked to size. */
uint64_t decode_store_value(const struct mmio_insn *in, uint64_t reg_value);
/* New value of the destination GPR after a load of mem_value, with x86
 * merge rules: 8/16-bit writes keep the other bits, 32-bit writes zero 63:32. */
uint64_t decode_load_merge(const struct mmio_insn *in, uint64_t old_reg, uint64_t mem_value);
#endif
