/* Unit tests for hv/vmx/decode.c. The byte vectors were produced by GNU as
 * (objdump listing in the comment beside each) for 64-, 32- and 16-bit code. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "vmx/decode.h"
#include "errno.h"

struct vec {
	const char *text;
	enum decode_mode mode;
	uint8_t bytes[16];
	uint8_t nbytes;
	uint8_t len, size;
	bool write, has_imm, high8, sx;
	uint8_t reg, reg_size;
	uint64_t imm;
};

#define M64 DECODE_MODE_64
#define M32 DECODE_MODE_32
#define M16 DECODE_MODE_16

static const struct vec vecs[] = {
	{ "movabs %eax,0xfee000b0", M64, { 0xa3, 0xb0, 0, 0xe0, 0xfe, 0, 0, 0, 0 }, 9, 9, 4, true, false, false, false, 0, 4, 0 },
	{ "mov %eax,(%rdi)", M64, { 0x89, 0x07 }, 2, 2, 4, true, false, false, false, 0, 4, 0 },
	{ "mov 0x20(%rbx),%ecx", M64, { 0x8b, 0x4b, 0x20 }, 3, 3, 4, false, false, false, false, 1, 4, 0 },
	{ "mov %r9d,0x300(%rdx)", M64, { 0x44, 0x89, 0x8a, 0, 3, 0, 0 }, 7, 7, 4, true, false, false, false, 9, 4, 0 },
	{ "mov (%rax),%r15", M64, { 0x4c, 0x8b, 0x38 }, 3, 3, 8, false, false, false, false, 15, 8, 0 },
	{ "movl $0x12345678,0x10(%rax)", M64, { 0xc7, 0x40, 0x10, 0x78, 0x56, 0x34, 0x12 }, 7, 7, 4, true, true, false, false, 0, 4, 0x12345678 },
	{ "movq $-1,(%rax)", M64, { 0x48, 0xc7, 0x00, 0xff, 0xff, 0xff, 0xff }, 7, 7, 8, true, true, false, false, 0, 8, ~0ULL },
	{ "movb $0x5a,(%rcx)", M64, { 0xc6, 0x01, 0x5a }, 3, 3, 1, true, true, false, false, 0, 1, 0x5a },
	{ "movw $0x1234,(%rcx)", M64, { 0x66, 0xc7, 0x01, 0x34, 0x12 }, 5, 5, 2, true, true, false, false, 0, 2, 0x1234 },
	{ "movzbl 0x10(%rax),%edx", M64, { 0x0f, 0xb6, 0x50, 0x10 }, 4, 4, 1, false, false, false, false, 2, 4, 0 },
	{ "movzwq (%rax),%r8", M64, { 0x4c, 0x0f, 0xb7, 0x00 }, 4, 4, 2, false, false, false, false, 8, 8, 0 },
	{ "mov %ah,(%rax)", M64, { 0x88, 0x20 }, 2, 2, 1, true, false, true, false, 0, 1, 0 },
	{ "mov %sil,(%rax)", M64, { 0x40, 0x88, 0x30 }, 3, 3, 1, true, false, false, false, 6, 1, 0 },
	{ "mov 0x0(%rip),%eax", M64, { 0x8b, 0x05, 0, 0, 0, 0 }, 6, 6, 4, false, false, false, false, 0, 4, 0 },
	{ "mov 0x10(%rax,%rbx,4),%esi", M64, { 0x8b, 0x74, 0x98, 0x10 }, 4, 4, 4, false, false, false, false, 6, 4, 0 },
	{ "mov 0x100(%rsp),%eax", M64, { 0x8b, 0x84, 0x24, 0, 1, 0, 0 }, 7, 7, 4, false, false, false, false, 0, 4, 0 },
	{ "mov %ax,%fs:(%rbx)", M64, { 0x64, 0x66, 0x89, 0x03 }, 4, 4, 2, true, false, false, false, 0, 2, 0 },
	{ "movsbl (%rax),%eax", M64, { 0x0f, 0xbe, 0x00 }, 3, 3, 1, false, false, false, true, 0, 4, 0 },
	{ "mov %eax,(%r12)", M64, { 0x41, 0x89, 0x04, 0x24 }, 4, 4, 4, true, false, false, false, 0, 4, 0 },
	{ "mov 0x0(%r13),%eax", M64, { 0x41, 0x8b, 0x45, 0x00 }, 4, 4, 4, false, false, false, false, 0, 4, 0 },
	{ "mov 0xfee00030,%eax", M32, { 0xa1, 0x30, 0, 0xe0, 0xfe }, 5, 5, 4, false, false, false, false, 0, 4, 0 },
	{ "mov %eax,0xfee000b0", M32, { 0xa3, 0xb0, 0, 0xe0, 0xfe }, 5, 5, 4, true, false, false, false, 0, 4, 0 },
	{ "mov %ebx,0xfec00010", M32, { 0x89, 0x1d, 0x10, 0, 0xc0, 0xfe }, 6, 6, 4, true, false, false, false, 3, 4, 0 },
	{ "movl $0x0,0xb0(%edx)", M32, { 0xc7, 0x82, 0xb0, 0, 0, 0, 0, 0, 0, 0 }, 10, 10, 4, true, true, false, false, 0, 4, 0 },
	{ "mov 0x10(%esi,%ecx,4),%edx", M32, { 0x8b, 0x54, 0x8e, 0x10 }, 4, 4, 4, false, false, false, false, 2, 4, 0 },
	{ "mov 0x0(%ebp),%ecx", M32, { 0x8b, 0x4d, 0x00 }, 3, 3, 4, false, false, false, false, 1, 4, 0 },
	{ "mov %cx,(%eax)", M32, { 0x66, 0x89, 0x08 }, 3, 3, 2, true, false, false, false, 1, 2, 0 },
	{ "mov (%bx,%si),%eax", M32, { 0x67, 0x8b, 0x00 }, 3, 3, 4, false, false, false, false, 0, 4, 0 },
	{ "mov %ax,(%bx)", M16, { 0x89, 0x07 }, 2, 2, 2, true, false, false, false, 0, 2, 0 },
	{ "mov 0x1234,%ax", M16, { 0xa1, 0x34, 0x12 }, 3, 3, 2, false, false, false, false, 0, 2, 0 },
	{ "mov %eax,0x10(%bp)", M16, { 0x66, 0x89, 0x46, 0x10 }, 4, 4, 4, true, false, false, false, 0, 4, 0 },
	{ "movl $0x1,(%bx,%si)", M16, { 0x66, 0xc7, 0x00, 1, 0, 0, 0 }, 7, 7, 4, true, true, false, false, 0, 4, 1 },
	{ "mov %eax,0x12345678(,%rcx,4)", M64, { 0x89, 0x04, 0x8d, 0x78, 0x56, 0x34, 0x12 }, 7, 7, 4, true, false, false, false, 0, 4, 0 },
	{ "mov %r8b,(%rax)", M64, { 0x44, 0x88, 0x00 }, 3, 3, 1, true, false, false, false, 8, 1, 0 },
	{ "mov 0x0(%rbp),%bl", M64, { 0x8a, 0x5d, 0x00 }, 3, 3, 1, false, false, false, false, 3, 1, 0 },
	{ "movw $0x1234,0x10(%rsp)", M64, { 0x66, 0xc7, 0x44, 0x24, 0x10, 0x34, 0x12 }, 7, 7, 2, true, true, false, false, 0, 2, 0x1234 },
	{ "mov %rax,0x0(%rip)", M64, { 0x48, 0x89, 0x05, 0, 0, 0, 0 }, 7, 7, 8, true, false, false, false, 0, 8, 0 },
	{ "mov %eax,-0x1200(%rbx,%r14,8)", M64, { 0x42, 0x89, 0x84, 0xf3, 0x00, 0xee, 0xff, 0xff }, 8, 8, 4, true, false, false, false, 0, 4, 0 },
	{ "movabs %rax,0xfee00300", M64, { 0x48, 0xa3, 0x00, 0x03, 0xe0, 0xfe, 0, 0, 0, 0 }, 10, 10, 8, true, false, false, false, 0, 8, 0 },
	{ "mov %eax,(%eax)", M64, { 0x67, 0x89, 0x00 }, 3, 3, 4, true, false, false, false, 0, 4, 0 },
	{ "movzbw (%rax),%r10w", M64, { 0x66, 0x44, 0x0f, 0xb6, 0x10 }, 5, 5, 1, false, false, false, false, 10, 2, 0 },
	{ "mov 0x1234(%bx,%di),%al", M16, { 0x8a, 0x81, 0x34, 0x12 }, 4, 4, 1, false, false, false, false, 0, 1, 0 },
	{ "mov %eax,0x10(%esi)", M16, { 0x67, 0x66, 0x89, 0x46, 0x10 }, 5, 5, 4, true, false, false, false, 0, 4, 0 },
	{ "movb $0x5,-0x10(%bp)", M16, { 0xc6, 0x46, 0xf0, 0x05 }, 4, 4, 1, true, true, false, false, 0, 1, 5 },
	/* trailing bytes after the instruction are ignored */
	{ "mov %eax,(%rdi); nop", M64, { 0x89, 0x07, 0x90, 0x90 }, 4, 2, 4, true, false, false, false, 0, 4, 0 },
};

/* The forms beyond MOV: read-modify-write, XCHG, BT*, strings. */
struct vec2 {
	const char *text;
	enum decode_mode mode;
	uint8_t bytes[16];
	uint8_t n, len, size, kind, op;
	bool write, reg_dst, has_imm;
	uint8_t reg;
	bool high8, rep, lock;
	uint8_t addr_size, seg;
	uint64_t imm;
};

#define R(b...) { b }, sizeof((uint8_t[]){ b })
static const struct vec2 vecs2[] = {
	{ "or %eax,0x1000(%r12)", M64, R(0x41, 0x09, 0x84, 0x24, 0, 0x10, 0, 0), 8, 4, MMIO_ALU, ALU_OR, .write = true },
	{ "add %cl,(%rdi)", M64, R(0x00, 0x0f), 2, 1, MMIO_ALU, ALU_ADD, .write = true, .reg = 1 },
	{ "add (%rdi),%rdx", M64, R(0x48, 0x03, 0x17), 3, 8, MMIO_ALU, ALU_ADD, .reg_dst = true, .reg = 2 },
	{ "adc %r9d,(%rax)", M64, R(0x44, 0x11, 0x08), 3, 4, MMIO_ALU, ALU_ADC, .write = true, .reg = 9 },
	{ "sbb (%rax),%ah", M64, R(0x1a, 0x20), 2, 1, MMIO_ALU, ALU_SBB, .reg_dst = true, .reg = 0, .high8 = true },
	{ "and %esi,(%rbx)", M64, R(0x21, 0x33), 2, 4, MMIO_ALU, ALU_AND, .write = true, .reg = 6 },
	{ "sub 0x10(%rax),%r11w", M64, R(0x66, 0x44, 0x2b, 0x58, 0x10), 5, 2, MMIO_ALU, ALU_SUB, .reg_dst = true, .reg = 11 },
	{ "xor %rax,(%rcx)", M64, R(0x48, 0x31, 0x01), 3, 8, MMIO_ALU, ALU_XOR, .write = true },
	{ "cmp %edx,(%rsi)", M64, R(0x39, 0x16), 2, 4, MMIO_ALU, ALU_CMP, .reg = 2 },
	{ "cmp (%rsi),%bl", M64, R(0x3a, 0x1e), 2, 1, MMIO_ALU, ALU_CMP, .reg_dst = true, .reg = 3 },
	{ "addb $0x7f,(%rax)", M64, R(0x80, 0x00, 0x7f), 3, 1, MMIO_ALU, ALU_ADD, .write = true, .has_imm = true, .imm = 0x7f },
	{ "orl $0x12345678,(%rax)", M64, R(0x81, 0x08, 0x78, 0x56, 0x34, 0x12), 6, 4, MMIO_ALU, ALU_OR, .write = true, .has_imm = true, .imm = 0x12345678 },
	{ "andq $-2,(%rax)", M64, R(0x48, 0x83, 0x20, 0xfe), 4, 8, MMIO_ALU, ALU_AND, .write = true, .has_imm = true, .imm = ~1ULL },
	{ "subw $0x1234,(%rax)", M64, R(0x66, 0x81, 0x28, 0x34, 0x12), 5, 2, MMIO_ALU, ALU_SUB, .write = true, .has_imm = true, .imm = 0x1234 },
	{ "xorl $-1,(%rax)", M64, R(0x83, 0x30, 0xff), 3, 4, MMIO_ALU, ALU_XOR, .write = true, .has_imm = true, .imm = 0xffffffff },
	{ "cmpl $5,0x20(%rdx)", M64, R(0x83, 0x7a, 0x20, 0x05), 4, 4, MMIO_ALU, ALU_CMP, .has_imm = true, .imm = 5 },
	{ "adcq $0x7fffffff,(%rax)", M64, R(0x48, 0x81, 0x10, 0xff, 0xff, 0xff, 0x7f), 7, 8, MMIO_ALU, ALU_ADC, .write = true, .has_imm = true, .imm = 0x7fffffff },
	{ "sbbl $-1,(%rax)", M64, R(0x83, 0x18, 0xff), 3, 4, MMIO_ALU, ALU_SBB, .write = true, .has_imm = true, .imm = 0xffffffff },
	{ "test %eax,(%rdi)", M64, R(0x85, 0x07), 2, 4, MMIO_ALU, ALU_TEST },
	{ "test %cl,(%rdi)", M64, R(0x84, 0x0f), 2, 1, MMIO_ALU, ALU_TEST, .reg = 1 },
	{ "testl $0x100,(%rax)", M64, R(0xf7, 0x00, 0, 1, 0, 0), 6, 4, MMIO_ALU, ALU_TEST, .has_imm = true, .imm = 0x100 },
	{ "testb $0x80,(%rax)", M64, R(0xf6, 0x00, 0x80), 3, 1, MMIO_ALU, ALU_TEST, .has_imm = true, .imm = 0x80 },
	{ "xchg %eax,(%rdi)", M64, R(0x87, 0x07), 2, 4, MMIO_XCHG, 0, .write = true },
	{ "xchg %r8,(%rdi)", M64, R(0x4c, 0x87, 0x07), 3, 8, MMIO_XCHG, 0, .write = true, .reg = 8 },
	{ "xchg %ah,(%rdi)", M64, R(0x86, 0x27), 2, 1, MMIO_XCHG, 0, .write = true, .reg = 0, .high8 = true },
	{ "lock orl $1,(%rax)", M64, R(0xf0, 0x83, 0x08, 0x01), 4, 4, MMIO_ALU, ALU_OR, .write = true, .has_imm = true, .imm = 1, .lock = true },
	{ "lock incl (%rax)", M64, R(0xf0, 0xff, 0x00), 3, 4, MMIO_ALU, ALU_INC, .write = true, .lock = true },
	{ "decw (%rax)", M64, R(0x66, 0xff, 0x08), 3, 2, MMIO_ALU, ALU_DEC, .write = true },
	{ "notl (%rax)", M64, R(0xf7, 0x10), 2, 4, MMIO_ALU, ALU_NOT, .write = true },
	{ "negq (%rax)", M64, R(0x48, 0xf7, 0x18), 3, 8, MMIO_ALU, ALU_NEG, .write = true },
	{ "mov %rsp,(%rax)", M64, R(0x48, 0x89, 0x20), 3, 8, MMIO_MOV, 0, .write = true, .reg = 4 },
	{ "bt %eax,(%rdi)", M64, R(0x0f, 0xa3, 0x07), 3, 4, MMIO_BT, BT_BT },
	{ "bts %rcx,(%rdi)", M64, R(0x48, 0x0f, 0xab, 0x0f), 4, 8, MMIO_BT, BT_BTS, .write = true, .reg = 1 },
	{ "btr %edx,(%rdi)", M64, R(0x0f, 0xb3, 0x17), 3, 4, MMIO_BT, BT_BTR, .write = true, .reg = 2 },
	{ "btc %ax,(%rdi)", M64, R(0x66, 0x0f, 0xbb, 0x07), 4, 2, MMIO_BT, BT_BTC, .write = true },
	{ "btl $5,(%rdi)", M64, R(0x0f, 0xba, 0x27, 0x05), 4, 4, MMIO_BT, BT_BT, .has_imm = true, .imm = 5 },
	{ "btsl $31,(%rdi)", M64, R(0x0f, 0xba, 0x2f, 0x1f), 4, 4, MMIO_BT, BT_BTS, .write = true, .has_imm = true, .imm = 31 },
	{ "btrq $63,(%rdi)", M64, R(0x48, 0x0f, 0xba, 0x37, 0x3f), 5, 8, MMIO_BT, BT_BTR, .write = true, .has_imm = true, .imm = 63 },
	{ "btcw $3,(%rdi)", M64, R(0x66, 0x0f, 0xba, 0x3f, 0x03), 5, 2, MMIO_BT, BT_BTC, .write = true, .has_imm = true, .imm = 3 },
	{ "lock btsl $31,(%rdi)", M64, R(0xf0, 0x0f, 0xba, 0x2f, 0x1f), 5, 4, MMIO_BT, BT_BTS, .write = true, .has_imm = true, .imm = 31, .lock = true },
	{ "lock cmpxchg %r9d,(%rax)", M64, R(0xf0, 0x44, 0x0f, 0xb1, 0x08), 5, 4, MMIO_CMPXCHG, 0, .write = true, .reg = 9, .lock = true },
	{ "cmpxchg %bh,(%rax)", M64, R(0x0f, 0xb0, 0x38), 3, 1, MMIO_CMPXCHG, 0, .write = true, .reg = 3, .high8 = true },
	{ "lock xadd %eax,(%rax)", M64, R(0xf0, 0x0f, 0xc1, 0x00), 4, 4, MMIO_XADD, 0, .write = true, .lock = true },
	{ "xadd %dx,(%rsi)", M64, R(0x66, 0x0f, 0xc1, 0x16), 4, 2, MMIO_XADD, 0, .write = true, .reg = 2 },
	{ "movsb", M64, R(0xa4), 1, 1, MMIO_MOVS, 0, .write = true, .addr_size = 8, .seg = SEG_DS },
	{ "movsl", M64, R(0xa5), 1, 4, MMIO_MOVS, 0, .write = true, .addr_size = 8, .seg = SEG_DS },
	{ "rep movsq", M64, R(0xf3, 0x48, 0xa5), 3, 8, MMIO_MOVS, 0, .write = true, .rep = true, .addr_size = 8, .seg = SEG_DS },
	{ "rep stosl", M64, R(0xf3, 0xab), 2, 4, MMIO_STOS, 0, .write = true, .rep = true, .addr_size = 8, .seg = SEG_DS },
	{ "stosw", M64, R(0x66, 0xab), 2, 2, MMIO_STOS, 0, .write = true, .addr_size = 8, .seg = SEG_DS },
	{ "rep stosb", M64, R(0xf3, 0xaa), 2, 1, MMIO_STOS, 0, .write = true, .rep = true, .addr_size = 8, .seg = SEG_DS },
	{ "lodsl", M64, R(0xad), 1, 4, MMIO_LODS, 0, .addr_size = 8, .seg = SEG_DS },
	{ "addr32 rep movsb", M64, R(0x67, 0xf3, 0xa4), 3, 1, MMIO_MOVS, 0, .write = true, .rep = true, .addr_size = 4, .seg = SEG_DS },
	{ "rep movsl %fs:(%rsi),%es:(%rdi)", M64, R(0x64, 0xf3, 0xa5), 3, 4, MMIO_MOVS, 0, .write = true, .rep = true, .addr_size = 8, .seg = SEG_FS },
	{ "orl $1,0xfee000f0", M32, R(0x83, 0x0d, 0xf0, 0x00, 0xe0, 0xfe, 0x01), 7, 4, MMIO_ALU, ALU_OR, .write = true, .has_imm = true, .imm = 1, .addr_size = 4 },
	{ "rep movsl (32)", M32, R(0xf3, 0xa5), 2, 4, MMIO_MOVS, 0, .write = true, .rep = true, .addr_size = 4, .seg = SEG_DS },
	{ "andl $0xfffffeff,0xfee000f0(,%eax,1)", M32, R(0x81, 0x24, 0x05, 0xf0, 0x00, 0xe0, 0xfe, 0xff, 0xfe, 0xff, 0xff), 11, 4, MMIO_ALU, ALU_AND, .write = true, .has_imm = true, .imm = 0xfffffeff, .addr_size = 4 },
	{ "orb $1,(%eax) (82)", M32, R(0x82, 0x08, 0x01), 3, 1, MMIO_ALU, ALU_OR, .write = true, .has_imm = true, .imm = 1, .addr_size = 4 },
	{ "xchg %ebx,0xfec00010", M32, R(0x87, 0x1d, 0x10, 0x00, 0xc0, 0xfe), 6, 4, MMIO_XCHG, 0, .write = true, .reg = 3, .addr_size = 4 },
	{ "add %ax,(%bx)", M16, R(0x01, 0x07), 2, 2, MMIO_ALU, ALU_ADD, .write = true, .addr_size = 2 },
	{ "rep stosw (16)", M16, R(0xf3, 0xab), 2, 2, MMIO_STOS, 0, .write = true, .rep = true, .addr_size = 2, .seg = SEG_DS },
};

START_TEST(test_vectors2)
{
	const struct vec2 *v = &vecs2[_i];
	struct mmio_insn in;
	int rc = decode_mmio(v->bytes, v->n, v->mode, &in);
	uint8_t asz = v->addr_size ? v->addr_size : 8;

	ck_assert_msg(rc == 0, "%s: rc %d", v->text, rc);
	ck_assert_msg(in.len == v->n, "%s: len %u", v->text, in.len);
	ck_assert_msg(in.size == v->size, "%s: size %u", v->text, in.size);
	ck_assert_msg(in.kind == v->kind, "%s: kind %u", v->text, in.kind);
	ck_assert_msg(in.op == v->op, "%s: op %u", v->text, in.op);
	ck_assert_msg(in.write == v->write, "%s: write", v->text);
	ck_assert_msg(in.reg_dst == v->reg_dst, "%s: reg_dst", v->text);
	ck_assert_msg(in.has_imm == v->has_imm, "%s: has_imm", v->text);
	if (!v->has_imm && v->kind < MMIO_MOVS)
		ck_assert_msg(in.reg == v->reg, "%s: reg %u", v->text, in.reg);
	ck_assert_msg(in.high8 == v->high8, "%s: high8", v->text);
	ck_assert_msg(in.rep == v->rep, "%s: rep", v->text);
	ck_assert_msg(in.lock == v->lock, "%s: lock", v->text);
	ck_assert_msg(in.addr_size == asz, "%s: addr_size %u", v->text, in.addr_size);
	if (v->kind >= MMIO_MOVS)
		ck_assert_msg(in.seg == v->seg, "%s: seg %u", v->text, in.seg);
	if (v->has_imm)
		ck_assert_msg((in.imm & ((in.size == 8) ? ~0ULL : (1ULL << (8 * in.size)) - 1)) == v->imm,
			      "%s: imm %llx", v->text, (unsigned long long)in.imm);
	for (unsigned n = 0; n < v->n; n++)
		ck_assert_msg(decode_mmio(v->bytes, n, v->mode, &in) == -EAGAIN, "%s: n=%u", v->text, n);
}
END_TEST

/* Flags per the SDM's definition of each instruction, checked against
 * values worked out by hand (and against bare hardware for the ones the
 * guest test mmio exercises). */
#define CF RFLAGS_CF
#define PF RFLAGS_PF
#define AF RFLAGS_AF
#define ZF RFLAGS_ZF
#define SF RFLAGS_SF
#define OF RFLAGS_OF

static uint64_t alu(unsigned op, unsigned size, uint64_t d, uint64_t s, uint64_t fin, uint64_t *fout)
{
	*fout = fin;
	return decode_alu(op, size, d, s, fout);
}

START_TEST(test_alu_flags)
{
	uint64_t f;
	const uint64_t keep = BIT(1) | BIT(9) | RFLAGS_DF;   /* non-arithmetic bits survive */

	ck_assert_uint_eq(alu(ALU_ADD, 1, 0xff, 1, keep, &f), 0);
	ck_assert_uint_eq(f, keep | CF | PF | AF | ZF);
	ck_assert_uint_eq(alu(ALU_ADD, 1, 0x7f, 1, 0, &f), 0x80);
	ck_assert_uint_eq(f, AF | SF | OF);
	ck_assert_uint_eq(alu(ALU_ADD, 4, 0xffffffff, 0xffffffff, 0, &f), 0xfffffffe);
	ck_assert_uint_eq(f, CF | AF | SF);
	ck_assert_uint_eq(alu(ALU_ADD, 8, ~0ULL, 1, 0, &f), 0);
	ck_assert_uint_eq(f, CF | PF | AF | ZF);
	ck_assert_uint_eq(alu(ALU_ADD, 8, 0x7fffffffffffffffULL, 1, 0, &f), 0x8000000000000000ULL);
	ck_assert_uint_eq(f, PF | AF | SF | OF);
	ck_assert_uint_eq(alu(ALU_ADC, 2, 0xffff, 0, CF, &f), 0);
	ck_assert_uint_eq(f, CF | PF | AF | ZF);
	ck_assert_uint_eq(alu(ALU_ADC, 8, ~0ULL, ~0ULL, CF, &f), ~0ULL);
	ck_assert_uint_eq(f, CF | PF | AF | SF);
	ck_assert_uint_eq(alu(ALU_SUB, 4, 0, 1, 0, &f), 0xffffffff);
	ck_assert_uint_eq(f, CF | PF | AF | SF);
	ck_assert_uint_eq(alu(ALU_SUB, 1, 0x80, 1, 0, &f), 0x7f);
	ck_assert_uint_eq(f, AF | OF);
	ck_assert_uint_eq(alu(ALU_CMP, 4, 5, 5, CF | SF, &f), 0);
	ck_assert_uint_eq(f, PF | ZF);
	ck_assert_uint_eq(alu(ALU_SBB, 1, 0, 0, CF, &f), 0xff);
	ck_assert_uint_eq(f, CF | PF | AF | SF);
	ck_assert_uint_eq(alu(ALU_SBB, 8, 0, ~0ULL, CF, &f), 0);
	ck_assert_uint_eq(f, CF | PF | AF | ZF);
	ck_assert_uint_eq(alu(ALU_OR, 4, 0x10, 0x01, CF | OF | AF, &f), 0x11);
	ck_assert_uint_eq(f, PF);
	ck_assert_uint_eq(alu(ALU_AND, 2, 0x8000, 0xffff, 0, &f), 0x8000);
	ck_assert_uint_eq(f, PF | SF);
	ck_assert_uint_eq(alu(ALU_XOR, 1, 0x5a, 0x5a, CF, &f), 0);
	ck_assert_uint_eq(f, PF | ZF);
	ck_assert_uint_eq(alu(ALU_TEST, 4, 0x100, 0x100, 0, &f), 0x100);
	ck_assert_uint_eq(f, PF);
	ck_assert_uint_eq(alu(ALU_TEST, 4, 0x100, 0x200, 0, &f), 0);
	ck_assert_uint_eq(f, PF | ZF);
	ck_assert_uint_eq(alu(ALU_INC, 1, 0x7f, 0, CF, &f), 0x80);     /* CF kept */
	ck_assert_uint_eq(f, CF | AF | SF | OF);
	ck_assert_uint_eq(alu(ALU_DEC, 4, 0, 0, 0, &f), 0xffffffff);   /* CF kept clear */
	ck_assert_uint_eq(f, PF | AF | SF);
	ck_assert_uint_eq(alu(ALU_NEG, 4, 1, 0, 0, &f), 0xffffffff);
	ck_assert_uint_eq(f, CF | PF | AF | SF);
	ck_assert_uint_eq(alu(ALU_NEG, 1, 0x80, 0, 0, &f), 0x80);
	ck_assert_uint_eq(f, CF | SF | OF);
	ck_assert_uint_eq(alu(ALU_NEG, 2, 0, 0, CF, &f), 0);
	ck_assert_uint_eq(f, PF | ZF);
	ck_assert_uint_eq(alu(ALU_NOT, 2, 0x00ff, 0, CF | ZF, &f), 0xff00);
	ck_assert_uint_eq(f, CF | ZF);                                  /* NOT: no flags */
	/* operands wider than size are cut */
	ck_assert_uint_eq(alu(ALU_ADD, 1, 0x1ff, 0x101, 0, &f), 0);
	ck_assert_uint_eq(f, CF | PF | AF | ZF);
}
END_TEST

START_TEST(test_bt)
{
	uint64_t f = 0;

	ck_assert_uint_eq(decode_bt(BT_BT, 4, 0x20, 5, &f), 0x20);
	ck_assert_uint_eq(f, CF);
	ck_assert_uint_eq(decode_bt(BT_BTS, 4, 0, 37, &f), 0x20);       /* 37 mod 32 */
	ck_assert_uint_eq(f, 0);
	ck_assert_uint_eq(decode_bt(BT_BTR, 8, ~0ULL, 63, &f), 0x7fffffffffffffffULL);
	ck_assert_uint_eq(f, CF);
	ck_assert_uint_eq(decode_bt(BT_BTC, 2, 0x8, 3, &f), 0);
	ck_assert_uint_eq(f, CF);
	f = ZF | SF;
	ck_assert_uint_eq(decode_bt(BT_BTC, 2, 0, 19, &f), 0x8);
	ck_assert_uint_eq(f, ZF | SF);                                  /* only CF changes */
}
END_TEST

START_TEST(test_vectors)
{
	const struct vec *v = &vecs[_i];
	struct mmio_insn in;
	int rc = decode_mmio(v->bytes, v->nbytes, v->mode, &in);

	ck_assert_msg(rc == 0, "%s: rc %d", v->text, rc);
	ck_assert_msg(in.len == v->len, "%s: len %u", v->text, in.len);
	ck_assert_msg(in.size == v->size, "%s: size %u", v->text, in.size);
	ck_assert_msg(in.write == v->write, "%s: write", v->text);
	ck_assert_msg(in.has_imm == v->has_imm, "%s: has_imm", v->text);
	ck_assert_msg(in.high8 == v->high8, "%s: high8", v->text);
	ck_assert_msg(in.sign_extend == v->sx, "%s: sx", v->text);
	if (!v->has_imm)
		ck_assert_msg(in.reg == v->reg, "%s: reg %u", v->text, in.reg);
	if (!v->write)
		ck_assert_msg(in.reg_size == v->reg_size, "%s: reg_size %u", v->text, in.reg_size);
	ck_assert_msg(in.imm == v->imm, "%s: imm %llx", v->text, (unsigned long long)in.imm);
}
END_TEST

/* Every proper prefix of a valid instruction asks for more bytes. */
START_TEST(test_truncated)
{
	const struct vec *v = &vecs[_i];
	struct mmio_insn in;

	for (unsigned n = 0; n < v->len; n++)
		ck_assert_msg(decode_mmio(v->bytes, n, v->mode, &in) == -EAGAIN,
			      "%s: n=%u", v->text, n);
}
END_TEST

START_TEST(test_rejects)
{
	struct mmio_insn in;
	const uint8_t reg_form[] = { 0x89, 0xc0 };           /* mov %eax,%eax */
	const uint8_t or82[] = { 0x82, 0x08, 0x01 };         /* #UD in 64-bit mode */
	const uint8_t mul[] = { 0xf7, 0x20 };                /* mull (%rax) */
	const uint8_t imul[] = { 0x0f, 0xaf, 0x00 };
	const uint8_t cmpsb[] = { 0xa6 };
	const uint8_t scasl[] = { 0xaf };
	const uint8_t lockcmp[] = { 0xf0, 0x39, 0x07 };      /* LOCK without a write: #UD */
	const uint8_t locktest[] = { 0xf0, 0x85, 0x07 };
	const uint8_t lockload[] = { 0xf0, 0x03, 0x07 };     /* add (%rdi),%eax */
	const uint8_t lockbt[] = { 0xf0, 0x0f, 0xa3, 0x07 };
	const uint8_t lockmovs[] = { 0xf0, 0xa4 };
	const uint8_t ffcall[] = { 0xff, 0x10 };             /* call *(%rax) */
	const uint8_t bt_low[] = { 0x0f, 0xba, 0x27 & 0xc7, 5 };   /* 0F BA /0 */
	const uint8_t alu_acc[] = { 0x05, 1, 0, 0, 0 };      /* add $1,%eax: no memory */
	const uint8_t c7_1[] = { 0xc7, 0x08, 0, 0, 0, 0 };   /* C7 /1 */
	const uint8_t rex32[] = { 0x48, 0x89, 0x07 };        /* dec %eax in 32-bit */
	const uint8_t lockmov[] = { 0xf0, 0x89, 0x07 };      /* #UD on hardware */
	const uint8_t vex[] = { 0xc5, 0xf9, 0x7e, 0x07 };   /* vmovd */
	uint8_t longp[20];

	ck_assert_int_eq(decode_mmio(reg_form, 2, M64, &in), -EINVAL);
	ck_assert_int_eq(decode_mmio(or82, 3, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(or82, 3, M32, &in), 0);
	ck_assert_int_eq(decode_mmio(mul, 2, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(imul, 3, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(cmpsb, 1, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(scasl, 1, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(lockcmp, 3, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(locktest, 3, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(lockload, 3, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(lockbt, 4, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(lockmovs, 2, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(ffcall, 2, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(bt_low, 4, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(alu_acc, 5, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(c7_1, 6, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(rex32, 3, M32, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(lockmov, 3, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(vex, 4, M64, &in), -ENOTSUP);
	memset(longp, 0x66, sizeof(longp));                  /* prefixes past 15 bytes */
	ck_assert_int_eq(decode_mmio(longp, sizeof(longp), M64, &in), -EINVAL);
	memset(longp, 0x2e, 14);                             /* 14 prefixes + 89 07 = 16 */
	longp[14] = 0x89;
	longp[15] = 0x07;
	ck_assert_int_eq(decode_mmio(longp, 16, M64, &in), -EINVAL);
	memset(longp, 0x2e, 13);                             /* 15 bytes: fine */
	longp[13] = 0x89;
	longp[14] = 0x07;
	ck_assert_int_eq(decode_mmio(longp, 15, M64, &in), 0);
	ck_assert_uint_eq(in.len, 15);
}
END_TEST

START_TEST(test_rex_must_be_last)
{
	/* 48 66 89 07: REX before 66 is ignored -> 16-bit store */
	const uint8_t b[] = { 0x48, 0x66, 0x89, 0x07 };
	struct mmio_insn in;

	ck_assert_int_eq(decode_mmio(b, 4, M64, &in), 0);
	ck_assert_uint_eq(in.size, 2);
	ck_assert_uint_eq(in.len, 4);
}
END_TEST

START_TEST(test_value_helpers)
{
	struct mmio_insn in;
	const uint8_t st_ah[] = { 0x88, 0x20 };
	const uint8_t ld8[] = { 0x8a, 0x07 };        /* mov (%rdi),%al */
	const uint8_t ld_ah[] = { 0x8a, 0x27 };      /* mov (%rdi),%ah */
	const uint8_t ld32[] = { 0x8b, 0x07 };
	const uint8_t ld16[] = { 0x66, 0x8b, 0x07 };
	const uint8_t movsx[] = { 0x48, 0x0f, 0xbe, 0x07 };  /* movsbq (%rdi),%rax */
	const uint8_t movsx16[] = { 0x66, 0x0f, 0xbf, 0x07 };  /* movsww */
	const uint8_t stq[] = { 0x48, 0x89, 0x07 };

	decode_mmio(st_ah, 2, M64, &in);
	ck_assert_uint_eq(decode_store_value(&in, 0x1234), 0x12);
	decode_mmio(stq, 3, M64, &in);
	ck_assert_uint_eq(decode_store_value(&in, 0x8877665544332211ULL), 0x8877665544332211ULL);
	decode_mmio(ld8, 2, M64, &in);
	ck_assert_uint_eq(decode_load_merge(&in, 0xffffffffffffffffULL, 0x1234), 0xffffffffffffff34ULL);
	decode_mmio(ld_ah, 2, M64, &in);
	ck_assert(in.high8);
	ck_assert_uint_eq(decode_load_merge(&in, 0x1111, 0xab), 0xab11);
	decode_mmio(ld32, 2, M64, &in);
	ck_assert_uint_eq(decode_load_merge(&in, ~0ULL, 0x1122334455667788ULL), 0x55667788);
	decode_mmio(ld16, 3, M64, &in);
	ck_assert_uint_eq(decode_load_merge(&in, ~0ULL, 0xabcd), 0xffffffffffffabcdULL);
	decode_mmio(movsx, 4, M64, &in);
	ck_assert_uint_eq(decode_load_merge(&in, 0, 0x80), 0xffffffffffffff80ULL);
	ck_assert_uint_eq(decode_load_merge(&in, 0, 0x7f), 0x7f);
	decode_mmio(movsx16, 4, M64, &in);
	ck_assert_uint_eq(in.reg_size, 2);
	ck_assert_uint_eq(decode_load_merge(&in, 0xaaaa0000ULL, 0x8001), 0xaaaa8001ULL);
	/* store of an immediate ignores the register */
	const uint8_t movb[] = { 0xc6, 0x01, 0x5a };
	decode_mmio(movb, 3, M64, &in);
	ck_assert_uint_eq(decode_store_value(&in, 0xffff), 0x5a);
}
END_TEST

/* Random bytes: never read past n (ASan watches the exact-size heap copy),
 * never claim more than 15 bytes, and success only for the supported forms. */
START_TEST(test_random_bytes)
{
	uint64_t x = 0x2545f4914f6cdd1dULL;
	const char *seed = getenv("HV_FUZZ_SEED");   /* other seeds on demand */

	if (seed)
		x ^= strtoull(seed, NULL, 0) | 1;

	for (int i = 0; i < 100000; i++) {
		uint8_t raw[16];
		for (int k = 0; k < 16; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			raw[k] = (uint8_t)x;
		}
		if (i & 1)   /* bias towards valid opcodes */
			raw[0] = (uint8_t[]){ 0x89, 0x8b, 0xc7, 0x66, 0x48, 0x0f }[x % 6];
		size_t n = 1 + (x >> 8) % 16;
		uint8_t *buf = malloc(n);
		memcpy(buf, raw, n);
		struct mmio_insn in;
		int rc = decode_mmio(buf, n, (enum decode_mode)((x >> 16) % 3), &in);
		if (rc == 0) {
			ck_assert_uint_ge(in.len, in.kind >= MMIO_MOVS ? 1 : 2);
			ck_assert_uint_le(in.len, n);
			ck_assert_uint_le(in.len, 15);
			ck_assert(in.size == 1 || in.size == 2 || in.size == 4 || in.size == 8);
			ck_assert_uint_lt(in.reg, 16);
		} else {
			ck_assert(rc == -EAGAIN || rc == -EINVAL || rc == -ENOTSUP);
		}
		free(buf);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("core");
	int n = (int)(sizeof(vecs) / sizeof(vecs[0]));

	tcase_add_loop_test(tc, test_vectors, 0, n);
	tcase_add_loop_test(tc, test_truncated, 0, n - 1);
	tcase_add_loop_test(tc, test_vectors2, 0, (int)(sizeof(vecs2) / sizeof(vecs2[0])));
	tcase_add_test(tc, test_alu_flags);
	tcase_add_test(tc, test_bt);
	tcase_add_test(tc, test_rejects);
	tcase_add_test(tc, test_rex_must_be_last);
	tcase_add_test(tc, test_value_helpers);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);

	return check_run(s);
}
