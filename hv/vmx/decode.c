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
	bool lock, rep;        /* F0, F3/F2 */
	int seg;               /* segment override (SEG_*), -1 none */
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
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	default:
		return false;
	}
}

static int decode_seg_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: return SEG_ES;
	case 0x2e: return SEG_CS;
	case 0x36: return SEG_SS;
	case 0x3e: return SEG_DS;
	case 0x64: return SEG_FS;
	case 0x65: return SEG_GS;
	default:   return -1;
	}
}

/* Consume prefixes; returns the opcode byte. LOCK (F0) is recorded and
 * checked per instruction (elsewhere it raises #UD before any memory
 * access). A REX byte counts only when it immediately precedes the opcode
 * (SDM §2.2.1). */
static int decode_prefixes(struct decode_state *s, uint8_t *op)
{
	int rc;

	for (;;) {
		if ((rc = decode_byte(s, op)))
			return rc;
		if (decode_is_legacy_prefix(*op)) {
			s->opsize |= *op == 0x66;
			s->adsize |= *op == 0x67;
			s->lock |= *op == 0xf0;
			s->rep |= *op == 0xf2 || *op == 0xf3;
			if (decode_seg_prefix(*op) >= 0)
				s->seg = decode_seg_prefix(*op);
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
		v = (uint64_t)(int64_t)(int32_t)v;   /* C7 /0, 81 with REX.W */
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

/* Operand size of an opcode whose low bit selects byte (0) or full size. */
static uint8_t decode_wsize(const struct decode_state *s, uint8_t op)
{
	return (op & 1) ? decode_op_size(s) : 1;
}

/* 00-3B: op r/m,reg (bit 1 clear) or op reg,r/m (bit 1 set); ALU op in 5:3. */
static int decode_alu_rm(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	uint8_t regf;
	int rc;

	out->kind = MMIO_ALU;
	out->op = (uint8_t)(op >> 3);
	out->size = decode_wsize(s, op);
	out->reg_size = out->size;
	out->reg_dst = op & 2;
	out->write = !out->reg_dst && decode_alu_writes(out->op);
	if ((rc = decode_modrm(s, out, &regf)))
		return rc;
	decode_fix_byte_reg(s, out);
	return 0;
}

/* 80/81/83 /digit: op r/m, imm8 / imm16/32 / sign-extended imm8. */
static int decode_alu_imm(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	uint8_t regf;
	int rc;

	if (op == 0x82 && s->mode == DECODE_MODE_64)
		return -ENOTSUP;   /* 82 is #UD in 64-bit mode */
	out->kind = MMIO_ALU;
	out->size = op == 0x80 || op == 0x82 ? 1 : decode_op_size(s);
	if ((rc = decode_modrm(s, out, &regf)))
		return rc;
	out->op = regf;
	out->write = decode_alu_writes(regf);
	out->reg = 0;
	if (op == 0x83) {
		if ((rc = decode_imm(s, out, 1)))
			return rc;
		out->imm = (uint64_t)(int64_t)(int8_t)out->imm;
		return 0;
	}
	return decode_imm(s, out, MIN(out->size, 4u));
}

/* 84/85 TEST r/m,reg; 86/87 XCHG r/m,reg. */
static int decode_test_xchg(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	uint8_t regf;
	int rc;

	out->kind = op >= 0x86 ? MMIO_XCHG : MMIO_ALU;
	out->op = op >= 0x86 ? 0 : ALU_TEST;
	out->size = decode_wsize(s, op);
	out->reg_size = out->size;
	out->write = op >= 0x86;
	if ((rc = decode_modrm(s, out, &regf)))
		return rc;
	decode_fix_byte_reg(s, out);
	return 0;
}

/* F6/F7 group 3: /0 TEST imm, /2 NOT, /3 NEG (MUL/DIV are not MMIO forms
 * guests use); FE/FF groups 4/5: /0 INC, /1 DEC. */
static int decode_unary(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	uint8_t regf;
	int rc;

	out->kind = MMIO_ALU;
	out->size = decode_wsize(s, op);
	if ((rc = decode_modrm(s, out, &regf)))
		return rc;
	out->reg = 0;
	if (op >= 0xfe) {
		if (regf > 1)
			return -ENOTSUP;
		out->op = regf ? ALU_DEC : ALU_INC;
		out->write = true;
		return 0;
	}
	switch (regf) {
	case 0:
		out->op = ALU_TEST;
		return decode_imm(s, out, MIN(out->size, 4u));
	case 2:
	case 3:
		out->op = regf == 2 ? ALU_NOT : ALU_NEG;
		out->write = true;
		return 0;
	default:
		return -ENOTSUP;
	}
}

/* A4/A5 MOVS, AA/AB STOS, AC/AD LODS (SDM vol. 2 "MOVS", "STOS", "LODS"). */
static int decode_string(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	out->kind = op <= 0xa5 ? MMIO_MOVS : op <= 0xab ? MMIO_STOS : MMIO_LODS;
	out->size = decode_wsize(s, op);
	out->reg_size = out->size;
	out->reg = 0;   /* AL/AX/EAX/RAX for STOS and LODS */
	out->write = out->kind != MMIO_LODS;
	out->rep = s->rep;
	out->seg = (uint8_t)(s->seg >= 0 ? s->seg : SEG_DS);
	return 0;
}

/* 0F xx: MOVZX/MOVSX, BT/BTS/BTR/BTC r/m,reg and 0F BA /4-7 r/m,imm8,
 * CMPXCHG and XADD r/m,reg. */
static int decode_0f(struct decode_state *s, struct mmio_insn *out)
{
	uint8_t op, regf;
	int rc;

	if ((rc = decode_byte(s, &op)))
		return rc;
	switch (op) {
	case 0xb6: case 0xb7: case 0xbe: case 0xbf:
		out->size = (op & 1) ? 2 : 1;
		out->reg_size = decode_op_size(s);
		out->sign_extend = op >= 0xbe;
		return decode_modrm(s, out, &regf);
	case 0xa3: case 0xab: case 0xb3: case 0xbb:
		out->kind = MMIO_BT;
		out->op = (uint8_t)((op >> 3) & 3);   /* A3 0, AB 1, B3 2, BB 3 */
		out->size = decode_op_size(s);
		out->reg_size = out->size;
		out->write = out->op != BT_BT;
		return decode_modrm(s, out, &regf);
	case 0xb0: case 0xb1: case 0xc0: case 0xc1:
		out->kind = op >= 0xc0 ? MMIO_XADD : MMIO_CMPXCHG;
		out->size = decode_wsize(s, op);
		out->reg_size = out->size;
		out->write = true;
		if ((rc = decode_modrm(s, out, &regf)))
			return rc;
		decode_fix_byte_reg(s, out);
		return 0;
	case 0xba:
		out->kind = MMIO_BT;
		out->size = decode_op_size(s);
		if ((rc = decode_modrm(s, out, &regf)))
			return rc;
		if (regf < 4)
			return -ENOTSUP;
		out->op = (uint8_t)(regf - 4);
		out->write = out->op != BT_BT;
		out->reg = 0;
		rc = decode_imm(s, out, 1);
		out->imm &= 0xff;
		return rc;
	default:
		return -ENOTSUP;
	}
}

/* LOCK is legal only on a read-modify-write of memory (SDM vol. 2 "LOCK"):
 * the ALU ops but CMP/TEST with a memory destination, NOT/NEG/INC/DEC,
 * XCHG, CMPXCHG, XADD, BTS/BTR/BTC. */
static bool decode_lock_ok(const struct mmio_insn *in)
{
	switch (in->kind) {
	case MMIO_ALU:
		return in->write && !in->reg_dst;
	case MMIO_XCHG:
	case MMIO_CMPXCHG:
	case MMIO_XADD:
		return true;
	case MMIO_BT:
		return in->op != BT_BT;
	default:
		return false;
	}
}

static int decode_opcode(struct decode_state *s, uint8_t op, struct mmio_insn *out)
{
	if ((op >= 0x88 && op <= 0x8b) || op == 0xc6 || op == 0xc7)   /* MOV: the common case */
		return decode_mov(s, op, out);
	if (op < 0x40 && (op & 7) < 4)
		return decode_alu_rm(s, op, out);
	if (op >= 0x80 && op <= 0x83)
		return decode_alu_imm(s, op, out);
	if (op >= 0x84 && op <= 0x87)
		return decode_test_xchg(s, op, out);
	if (op >= 0xa0 && op <= 0xa3)
		return decode_moffs(s, op, out);
	if ((op >= 0xa4 && op <= 0xa5) || (op >= 0xaa && op <= 0xad))
		return decode_string(s, op, out);
	if (op == 0xf6 || op == 0xf7 || op == 0xfe || op == 0xff)
		return decode_unary(s, op, out);
	if (op == 0x0f)
		return decode_0f(s, out);
	return -ENOTSUP;
}

int decode_mmio(const uint8_t *buf, size_t n, enum decode_mode mode, struct mmio_insn *out)
{
	struct decode_state s = { .buf = buf, .n = n, .mode = mode, .seg = -1 };
	uint8_t op;
	int rc;

	*out = (struct mmio_insn){ 0 };   /* inline stores: this runs on every MMIO exit */
	if ((rc = decode_prefixes(&s, &op)))
		return rc;
	if ((rc = decode_opcode(&s, op, out)))
		return rc;
	if (s.lock && !decode_lock_ok(out))
		return -ENOTSUP;   /* #UD on hardware */
	out->lock = s.lock;
	out->addr_size = (uint8_t)decode_addr_size(&s);
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

/* Even parity of the low byte (PF, SDM vol. 1 §3.4.3.1). */
static bool decode_parity(uint64_t r)
{
	uint8_t p = (uint8_t)r;

	p ^= p >> 4;
	p ^= p >> 2;
	p ^= p >> 1;
	return !(p & 1);
}

uint64_t decode_alu(unsigned op, unsigned size, uint64_t dst, uint64_t src, uint64_t *rflags)
{
	const uint64_t mask = decode_mask(size), sign = 1ULL << (8 * size - 1);
	const unsigned __int128 d = dst & mask, sr = src & mask;
	const unsigned cf_in = (*rflags & RFLAGS_CF) ? 1 : 0;
	unsigned __int128 full;
	uint64_t r, f = *rflags & ~RFLAGS_ARITH;
	bool cf = false, of = false, af = false, sub = false;

	switch (op) {
	case ALU_ADD: case ALU_ADC: case ALU_INC:
		full = d + (op == ALU_INC ? 1 : sr) + (op == ALU_ADC ? cf_in : 0);
		cf = (full >> (8 * size)) & 1;
		break;
	case ALU_SUB: case ALU_SBB: case ALU_CMP: case ALU_DEC: case ALU_NEG: {
		unsigned __int128 a = op == ALU_NEG ? 0 : d;
		unsigned __int128 b = op == ALU_NEG ? d : op == ALU_DEC ? 1 : sr;

		b += op == ALU_SBB ? cf_in : 0;
		full = a - b;
		cf = a < b;
		sub = true;
		break;
	}
	case ALU_OR:   full = d | sr; break;
	case ALU_AND: case ALU_TEST: full = d & sr; break;
	case ALU_XOR:  full = d ^ sr; break;
	case ALU_NOT:  return ~dst & mask;   /* no flags */
	default:       return dst & mask;
	}
	r = (uint64_t)full & mask;
	if (op <= ALU_CMP || op >= ALU_NEG) {
		uint64_t a = op == ALU_NEG ? 0 : (uint64_t)d;
		uint64_t b = op == ALU_NEG ? (uint64_t)d : op == ALU_INC || op == ALU_DEC ? 1 : (uint64_t)sr;

		if (op != ALU_OR && op != ALU_AND && op != ALU_XOR) {
			af = ((a ^ b ^ r) & 0x10) != 0;
			of = sub ? ((a ^ b) & (a ^ r) & sign) != 0 : ((a ^ r) & (b ^ r) & sign) != 0;
		}
	}
	if (op == ALU_INC || op == ALU_DEC)
		cf = cf_in;                     /* INC/DEC leave CF alone */
	f |= (cf ? RFLAGS_CF : 0) | (decode_parity(r) ? RFLAGS_PF : 0) | (af ? RFLAGS_AF : 0) |
	     (r == 0 ? RFLAGS_ZF : 0) | ((r & sign) ? RFLAGS_SF : 0) | (of ? RFLAGS_OF : 0);
	*rflags = f;
	return r;
}

uint64_t decode_bt(unsigned op, unsigned size, uint64_t mem, uint64_t bit, uint64_t *rflags)
{
	uint64_t m = 1ULL << (bit & (8 * size - 1));

	*rflags = (*rflags & ~RFLAGS_CF) | ((mem & m) ? RFLAGS_CF : 0);
	switch (op) {
	case BT_BTS: mem |= m; break;
	case BT_BTR: mem &= ~m; break;
	case BT_BTC: mem ^= m; break;
	default: break;
	}
	return mem & decode_mask(size);
}
