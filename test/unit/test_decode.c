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
	const uint8_t add[] = { 0x01, 0x07 };                /* add %eax,(%rdi) */
	const uint8_t c7_1[] = { 0xc7, 0x08, 0, 0, 0, 0 };   /* C7 /1 */
	const uint8_t rex32[] = { 0x48, 0x89, 0x07 };        /* dec %eax in 32-bit */
	const uint8_t btx[] = { 0x0f, 0xa3, 0x07 };
	const uint8_t lockmov[] = { 0xf0, 0x89, 0x07 };      /* #UD on hardware */
	const uint8_t vex[] = { 0xc5, 0xf9, 0x7e, 0x07 };   /* vmovd */
	uint8_t longp[20];

	ck_assert_int_eq(decode_mmio(reg_form, 2, M64, &in), -EINVAL);
	ck_assert_int_eq(decode_mmio(add, 2, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(c7_1, 6, M64, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(rex32, 3, M32, &in), -ENOTSUP);
	ck_assert_int_eq(decode_mmio(btx, 3, M64, &in), -ENOTSUP);
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
			ck_assert_uint_ge(in.len, 2);
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
	tcase_add_test(tc, test_rejects);
	tcase_add_test(tc, test_rex_must_be_last);
	tcase_add_test(tc, test_value_helpers);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);

	return check_run(s);
}
