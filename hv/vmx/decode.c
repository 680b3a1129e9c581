/* MMIO instruction decoder (SDM vol. 2A ch. 2 "Instruction Format": legacy
 * prefixes, REX, opcode, ModR/M, SIB, displacement, immediate). Only the
 * length of the addressing bytes matters: the address itself comes from the
 * EPT-violation exit qualification and guest-physical address. */
#include "vmx/decode.h"
#include "compiler.h"
#include "errno.h"
#include "lib/string.h"

struct decode_state {
	const uint8_t *buf;
	size_t n, pos;
	enum decode_mode mode;
	bool opsize, adsize;   /* 66 / 67 prefixes */
	uint8_t rex;
};

#define REX_W 8
#define REX_R 4

static int decode_byte(struct decode_state *s, uint8_t *b)
{
	if (s->pos >= DECODE_MAX_LEN)
		return -EINVAL;
	if (s->pos >= s->n)
		return -EAGAIN;
	*b = s->buf[s->pos++];
	return 0;
}

static int decode_skip(struct decode_state *s, unsigned bytes)
{
	if (s->pos + bytes > DECODE_MAX_LEN)
		return -EINVAL;
	if (s->pos + bytes > s->n)
		return -EAGAIN;
	s->pos += bytes;
	return 0;
}

static bool decode_is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf2: case 0xf3:
		return true;
	default:
		return false;
	}
}

/* Consume prefixes; returns the opcode byte. LOCK (F0) is not accepted: with
 * MOV it raises #UD before any memory access. A REX byte counts only when it
 * immediately precedes the opcode (SDM §2.2.1). */
static int decode_prefixes(struct decode_state *s, uint8_t *op)
{
	int rc;

	for (;;) {
		if ((rc = decode_byte(s, op)))
			return rc;
		if (decode_is_legacy_prefix(*op)) {
			s->opsize |= *op == 0x66;
			s->adsize |= *op == 0x67;
			s->rex = 0;
			continue;
		}
		if (s->mode == DECODE_MODE_64 && (*op & 0xf0) == 0x40) {
			s->rex = *op;
			continue;
		}
		return 0;
	}
}

static unsigned decode_addr_size(const struct decode_state *s)
{
	switch (s->mode) {
	case DECODE_MODE_16: return s->adsize ? 4 : 2;
	case DECODE_MODE_32: return s->adsize ? 2 : 4;
	default:             return s->adsize ? 4 : 8;
	}
}

static uint8_t decode_op_size(const struct decode_state *s)
{
	if (s->rex & REX_W)
		return 8;
	if (s->mode == DECODE_MODE_16)
		return s->opsize ? 4 : 2;
	return s->opsize ? 2 : 4;
}

/* 16-bit addressing forms (SDM Table 2-1). */
static int decode_modrm16(struct decode_state *s, unsigned mod, unsigned rm)
{
	if (mod == 0)
		return rm == 6 ? decode_skip(s, 2) : 0;
	return decode_skip(s, mod == 1 ? 1 : 2);
}

/* 32/64-bit addressing forms (SDM Tables 2-2, 2-3). */
static int decode_modrm32(struct decode_state *s, unsigned mod, unsigned rm)
{
	uint8_t sib;
	int rc;

	if (rm == 4) {
		if ((rc = decode_byte(s, &sib)))
			return rc;
		if (mod == 0 && (sib & 7) == 5)
			return decode_skip(s, 4);
	}
	if (mod == 0)
		return rm == 5 ? decode_skip(s, 4) : 0;   /* disp32 or RIP+disp32 */
	return decode_skip(s, mod == 1 ? 1 : 4);
}

/* Parse ModR/M and addressing bytes; the operand must be memory. */
static int decode_modrm(struct decode_state *s, struct mmio_insn *out, uint8_t *regfield)
{
	uint8_t modrm;
	unsigned mod, rm;
	int rc;

	if ((rc = decode_byte(s, &modrm)))
		return rc;
	mod = modrm >> 6;
	rm = modrm & 7;
	*regfield = (modrm >> 3) & 7;
	out->reg = (uint8_t)(*regfield | ((s->rex & REX_R) ? 8 : 0));
	if (mod == 3)
		return -EINVAL;
	if (decode_addr_size(s) == 2)
		return decode_modrm16(s, mod, rm);
	return decode_modrm32(s, mod, rm);
}

static int decode_imm(struct decode_state *s, struct mmio_insn *out, unsigned bytes)
{
	uint64_t v = 0;
	unsigned i;
	int rc;

	if ((rc = decode_skip(s, bytes)))
		return rc;
	s->pos -= bytes;
	for (i = 0; i < bytes; i++)
		v |= (uint64_t)s->buf[s->pos + i] << (8 * i);
	s->pos += bytes;
	if (bytes == 4 && out->size == 8)
		v = (uint64_t)(int64_t)(int32_t)v;   /* C7 /0 with REX.W */
	out->imm = v;
	out->has_imm = true;
	return 0;
}

/* Without REX, byte registers 4-7 are AH, CH, DH, BH (SDM §3.4.1.1). */
static void decode_fix_byte_reg(const struct decode_state *s, struct mmio_insn *out)
{
	if (out->size == 1 && !s->rex && out->reg >= 4 && out->reg < 8) {
		out->high8 = true;
		out->reg -= 4;
	}
}

static int decode_mov(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	uint8_t regf;
	int rc;

	out->size = (op & 1) ? decode_op_size(s) : 1;
	out->write = op <= 0x89 || op >= 0xc6;
	if ((rc = decode_modrm(s, out, &regf)))
		return rc;
	out->reg_size = out->size;
	if (op >= 0xc6) {
		if (regf != 0)
			return -ENOTSUP;   /* C6/C7 with reg != 0 are not MOV */
		out->reg = 0;
		return decode_imm(s, out, MIN(out->size, 4u));
	}
	decode_fix_byte_reg(s, out);
	return 0;
}

static int decode_moffs(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	out->size = (op & 1) ? decode_op_size(s) : 1;
	out->reg_size = out->size;
	out->write = op >= 0xa2;
	out->reg = 0;   /* AL/AX/EAX/RAX */
	return decode_skip(s, decode_addr_size(s));
}

static int decode_movx(struct decode_state *s, struct mmio_insn *out)
{
	uint8_t op, regf;
	int rc;

	if ((rc = decode_byte(s, &op)))
		return rc;
	if (op != 0xb6 && op != 0xb7 && op != 0xbe && op != 0xbf)
		return -ENOTSUP;
	out->size = (op & 1) ? 2 : 1;
	out->reg_size = decode_op_size(s);
	out->sign_extend = op >= 0xbe;
	out->write = false;
	return decode_modrm(s, out, &regf);
}

int decode_mmio(const uint8_t *buf, size_t n, enum decode_mode mode, struct mmio_insn *out)
{
	struct decode_state s = { .buf = buf, .n = n, .mode = mode };
	uint8_t op;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = decode_prefixes(&s, &op)))
		return rc;
	if (op == 0x88 || op == 0x89 || op == 0x8a || op == 0x8b || op == 0xc6 || op == 0xc7)
		rc = decode_mov(&s, op, out);
	else if (op >= 0xa0 && op <= 0xa3)
		rc = decode_moffs(&s, op, out);
	else if (op == 0x0f)
		rc = decode_movx(&s, out);
	else
		rc = -ENOTSUP;
	if (rc)
		return rc;
	out->len = (uint8_t)s.pos;
	return 0;
}

static uint64_t decode_mask(unsigned size)
{
	return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

uint64_t decode_store_value(const struct mmio_insn *in, uint64_t reg_value)
{
	uint64_t v = in->has_imm ? in->imm : reg_value;

	if (in->high8 && !in->has_imm)
		v >>= 8;
	return v & decode_mask(in->size);
}

static uint64_t decode_extend(const struct mmio_insn *in, uint64_t v)
{
	v &= decode_mask(in->size);
	if (in->sign_extend && (v >> (8 * in->size - 1)) & 1)
		v |= ~decode_mask(in->size);
	return v;
}

uint64_t decode_load_merge(const struct mmio_insn *in, uint64_t old_reg, uint64_t mem_value)
{
	uint64_t v = decode_extend(in, mem_value);
	uint64_t m;

	if (in->high8)
		return (old_reg & ~0xff00ULL) | ((v & 0xff) << 8);
	if (in->reg_size >= 4)   /* 32-bit results zero-extend (SDM §3.4.1.1) */
		return v & decode_mask(in->reg_size);
	m = decode_mask(in->reg_size);
	return (old_reg & ~m) | (v & m);
}
