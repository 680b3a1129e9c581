/* libFuzzer harness: the MMIO instruction decoder (hv/vmx/decode.c) on the
 * bytes a guest leaves at its RIP. Byte 0 picks the mode, the rest is the
 * fetch, given to the decoder whole and as every shorter prefix (what a fetch
 * cut short at a page end gives it). A result must fit what it was given,
 * and a prefix may only say "fetch more" or agree with the whole. */
#include <stdio.h>
#include "fuzz.h"
#include "errno.h"
#include "vmx/decode.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void check_insn(const struct mmio_insn *in, size_t n)
{
	FUZZ_CHECK(in->len >= 1 && in->len <= n && in->len <= DECODE_MAX_LEN);
	FUZZ_CHECK(in->size == 1 || in->size == 2 || in->size == 4 || in->size == 8);
	FUZZ_CHECK(in->reg < 16);
	FUZZ_CHECK(!in->high8 || (in->reg >= 0 && in->reg < 4));
	/* A register the instruction writes has a width: a MOV load, an ALU op
	 * with a register destination, XCHG, LODS. (TEST/CMP with memory and an
	 * immediate, or a read-modify-write of memory, write no register.) */
	if ((in->kind == MMIO_MOV && !in->write) || (in->kind == MMIO_ALU && in->reg_dst) ||
	    in->kind == MMIO_XCHG || in->kind == MMIO_LODS)
		FUZZ_CHECK(in->reg_size == 1 || in->reg_size == 2 || in->reg_size == 4 ||
			   in->reg_size == 8);
	(void)decode_store_value(in, 0x1122334455667788ull);
	(void)decode_load_merge(in, 0x8877665544332211ull, ~0ull);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmio_insn whole, part;
	enum decode_mode mode;
	uint8_t *buf;
	size_t n;
	int rc, prc;

	if (size < 1)
		return 0;
	mode = (enum decode_mode)(data[0] % 3);
	n = size - 1 > 2 * DECODE_MAX_LEN ? 2 * DECODE_MAX_LEN : size - 1;
	buf = malloc(n ? n : 1);           /* exact size: ASan sees any over-read */
	memcpy(buf, data + 1, n);
	rc = decode_mmio(buf, n, mode, &whole);
	FUZZ_CHECK(rc == 0 || rc == -EAGAIN || rc == -ENOTSUP || rc == -EINVAL);
	if (rc == 0)
		check_insn(&whole, n);
	for (size_t k = 0; k < n && k < DECODE_MAX_LEN; k++) {
		prc = decode_mmio(buf, k, mode, &part);
		if (prc == 0) {
			check_insn(&part, k);
			FUZZ_CHECK(rc == 0 && part.len == whole.len && part.size == whole.size &&
				   part.write == whole.write && part.reg == whole.reg);
		}
		if (rc == -EAGAIN)
			FUZZ_CHECK(prc == -EAGAIN || prc == -ENOTSUP || prc == -EINVAL);
	}
	free(buf);
	return 0;
}
