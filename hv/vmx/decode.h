/* x86 decoder for the instructions guests use on MMIO (the LAPIC and IOAPIC
 * when APIC virtualisation is off, device holes): MOV r/m<->reg (88/89/8A/8B),
 * MOV imm->r/m (C6/C7), MOV A0-A3 (moffs), MOVZX/MOVSX (0F B6/B7/BE/BF), the
 * ALU group ADD/OR/ADC/SBB/AND/SUB/XOR/CMP in every memory form (00-3B,
 * 80/81/83), TEST (84/85, F6/F7 /0), NOT/NEG (F6/F7 /2 /3), INC/DEC (FE/FF
 * /0 /1), XCHG (86/87), CMPXCHG (0F B0/B1), XADD (0F C0/C1),
 * BT/BTS/BTR/BTC (0F A3/AB/B3/BB, 0F BA /4-7) and the
 * string moves MOVS/STOS/LODS (A4/A5, AA/AB, AC/AD) with REP; with REX,
 * 66/67, segment, REP and (on read-modify-write forms) LOCK prefixes. The
 * caller fetches up to 15 bytes at the guest RIP; the memory address comes
 * from the EPT exit (string forms: from RSI/RDI). */
#ifndef HV_VMX_DECODE_H
#define HV_VMX_DECODE_H
#include "types.h"
#include "compiler.h"

enum decode_mode { DECODE_MODE_16, DECODE_MODE_32, DECODE_MODE_64 };

#define DECODE_MAX_LEN 15

/* GPR numbering is the x86 encoding: 0 RAX, 1 RCX, 2 RDX, 3 RBX, 4 RSP,
 * 5 RBP, 6 RSI, 7 RDI, 8-15 R8-R15. */
enum mmio_kind {
	MMIO_MOV,    /* load (write false) or store of a register or immediate */
	MMIO_ALU,    /* op: enum mmio_alu; result to memory (write) or reg (reg_dst) */
	MMIO_XCHG,   /* memory <-> reg */
	MMIO_BT,     /* op: enum mmio_bt; bit number from reg or imm */
	MMIO_CMPXCHG,/* compare rAX with memory; equal: memory = reg, else rAX = memory */
	MMIO_XADD,   /* memory += reg, reg = old memory */
	MMIO_MOVS,   /* [seg:rSI] -> [ES:rDI] */
	MMIO_STOS,   /* AL/AX/EAX/RAX -> [ES:rDI] */
	MMIO_LODS,   /* [seg:rSI] -> AL/AX/EAX/RAX */
};
/* The ALU group's /digit order (SDM vol. 2 Table A-6 group 1), then the rest. */
enum mmio_alu {
	ALU_ADD, ALU_OR, ALU_ADC, ALU_SBB, ALU_AND, ALU_SUB, ALU_XOR, ALU_CMP,
	ALU_TEST, ALU_NOT, ALU_NEG, ALU_INC, ALU_DEC,
};
enum mmio_bt { BT_BT, BT_BTS, BT_BTR, BT_BTC };
/* Segment registers in the encoding order of SDM vol. 2 §3.1.1.1 (Sreg). */
enum { SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS };

/* GPR numbering is the x86 encoding: 0 RAX, 1 RCX, 2 RDX, 3 RBX, 4 RSP,
 * 5 RBP, 6 RSI, 7 RDI, 8-15 R8-R15. */
struct mmio_insn {
	uint8_t len;       /* instruction length in bytes (advance RIP by this) */
	uint8_t size;      /* memory access size: 1, 2, 4 or 8 */
	uint8_t kind;      /* enum mmio_kind */
	uint8_t op;        /* enum mmio_alu / mmio_bt */
	bool write;        /* the memory operand is written */
	bool has_imm;      /* the source is imm (no register source) */
	bool reg_dst;      /* MMIO_ALU: the result goes to reg (op reg, r/m) */
	uint8_t reg;       /* GPR index (the register operand) */
	bool high8;        /* reg is AH/CH/DH/BH: bits 15:8 of GPR reg */
	uint8_t reg_size;  /* destination register width of a load (1,2,4,8) */
	bool sign_extend;  /* MOVSX */
	bool rep;          /* string forms: F3 or F2 prefix */
	bool lock;         /* F0 prefix (only on read-modify-write forms) */
	uint8_t addr_size; /* 2, 4 or 8: width of rSI/rDI/rCX for the string forms */
	uint8_t seg;       /* source segment of MOVS/LODS (DS unless overridden) */
	uint64_t imm;      /* immediate, already sign-extended to the access size */
};

/* Returns 0, -EAGAIN if buf ended before the instruction did (fetch more),
 * -ENOTSUP for an opcode outside the supported set (or LOCK where it is not
 * allowed), -EINVAL for register operands (not a memory access) or
 * instructions longer than 15 bytes. */
int decode_mmio(const uint8_t *buf, size_t n, enum decode_mode mode, struct mmio_insn *out);

/* Value a store writes (the register bits or the immediate), masked to size. */
uint64_t decode_store_value(const struct mmio_insn *in, uint64_t reg_value);
/* New value of the destination GPR after a load of mem_value, with x86
 * merge rules: 8/16-bit writes keep the other bits, 32-bit writes zero 63:32. */
uint64_t decode_load_merge(const struct mmio_insn *in, uint64_t old_reg, uint64_t mem_value);

/* Arithmetic flags of RFLAGS (SDM vol. 1 §3.4.3.1). */
#define RFLAGS_CF BIT(0)
#define RFLAGS_PF BIT(2)
#define RFLAGS_AF BIT(4)
#define RFLAGS_ZF BIT(6)
#define RFLAGS_SF BIT(7)
#define RFLAGS_DF BIT(10)
#define RFLAGS_OF BIT(11)
#define RFLAGS_ARITH (RFLAGS_CF | RFLAGS_PF | RFLAGS_AF | RFLAGS_ZF | RFLAGS_SF | RFLAGS_OF)

/* dst op src at size bytes, as the CPU computes it (SDM vol. 2 ADD ... XOR,
 * TEST, NOT, NEG, INC, DEC; unary ops ignore src): returns the result masked
 * to size and updates the arithmetic flags in *rflags (CF from *rflags for
 * ADC/SBB; INC/DEC keep CF; NOT changes no flag; AF of the logic ops, which
 * the SDM leaves undefined, is cleared). */
uint64_t decode_alu(unsigned op, unsigned size, uint64_t dst, uint64_t src, uint64_t *rflags);
/* BT*: tests bit (bit mod 8*size) of mem into CF; returns the new memory value. */
uint64_t decode_bt(unsigned op, unsigned size, uint64_t mem, uint64_t bit, uint64_t *rflags);
/* Whether the ALU op writes its destination (CMP and TEST do not). */
static inline bool decode_alu_writes(unsigned op)
{
	return op != ALU_CMP && op != ALU_TEST;
}
#endif
