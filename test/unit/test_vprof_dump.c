/* Unit tests for the vProfile serial encoder (hv/trace/codec.c, frame.c,
 * dump.c): CRC and base64 vectors, frame syntax, BEGIN/END counts, the chained
 * CRC, record filtering by VM, and failure paths. Frames are decoded with an
 * independent decoder (test/vprof/vp_testutil.h). */
#include <check.h>
#include "compiler.h"
#include "trace/vprof.h"
#include "trace/codec.h"
#include "trace/frame.h"
#include "errno.h"
#include "log.h"
#include "shim.h"
#include "../vprof/vp_testutil.h"
#include "check_run.h"

static uint64_t mem[8192];

/* Bit-at-a-time reference CRC-32 (poly 0xedb88320), independent of codec.c. */
static uint32_t crc32(uint32_t crc, const uint8_t *p, unsigned n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}
static uint8_t fr[512];

START_TEST(test_crc32_vectors)
{
	const char *s = "123456789";

	ck_assert_uint_eq(vp_crc32(0, s, 9), 0xcbf43926u);
	ck_assert_uint_eq(vp_crc32(0, "", 0), 0);
	/* Chaining equals one pass (what the END frame relies on). */
	ck_assert_uint_eq(vp_crc32(vp_crc32(0, s, 4), s + 4, 5), 0xcbf43926u);
	uint8_t buf[300];
	for (int i = 0; i < 300; i++)
		buf[i] = (uint8_t)(i * 37 + 1);
	ck_assert_uint_eq(vp_crc32(0, buf, 300), (uint32_t)crc32(0, buf, 300));
}
END_TEST

START_TEST(test_base64_vectors)
{
	static const char *in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	char b[32];

	for (unsigned i = 0; i < ARRAY_SIZE(in); i++) {
		ck_assert_uint_eq(vp_b64_encode(b, sizeof(b), in[i], strlen(in[i])), strlen(out[i]));
		ck_assert_str_eq(b, out[i]);
	}
	ck_assert_uint_eq(vp_b64_encode(b, 4, "foo", 3), 0);   /* needs 5 */
	ck_assert_uint_eq(vp_b64_encode(b, 5, "foo", 3), 4);
}
END_TEST

START_TEST(test_frame_line_syntax)
{
	struct vpf_writer w;
	unsigned seq, crc;

	vt_cap_reset();
	vpf_open(&w, 7, vt_sink, &vt_cap);
	vpf_start(&w, VPF_END);
	vpf_put(&w, 0x1122334455667788ull, 8);
	ck_assert_int_eq(vpf_emit(&w), 0);
	vpf_start(&w, VPF_END);
	ck_assert_int_eq(vpf_emit(&w), 0);
	ck_assert_int_eq(vt_cap.n, 2);
	ck_assert(strncmp(vt_cap.line[0], "@VP1 0 ", 7) == 0);
	ck_assert(strncmp(vt_cap.line[1], "@VP1 1 ", 7) == 0);
	ck_assert_int_eq(vt_cap.line[0][strlen(vt_cap.line[0]) - 1], '\n');
	int n = vt_frame(vt_cap.line[0], &seq, &crc, fr, sizeof(fr));
	ck_assert_int_eq(n, 16);
	ck_assert_uint_eq(crc, (uint32_t)crc32(0, fr, (unsigned)n));
	ck_assert_uint_eq(fr[0], VPF_END);
	ck_assert_uint_eq(fr[1], VPF_VERSION);
	ck_assert_uint_eq(vt_le(fr + 2, 2), 7);
	ck_assert_uint_eq(vt_le(fr + 4, 4), 0);
	ck_assert_uint_eq(vt_le(fr + 8, 8), 0x1122334455667788ull);
	/* Too much payload is refused, never truncated silently. */
	vpf_start(&w, VPF_RECS);
	for (int i = 0; i < 100; i++)
		vpf_put(&w, 0, 8);
	ck_assert_int_eq(vpf_emit(&w), -EOVERFLOW);
	ck_assert_int_eq(vt_cap.n, 2);
}
END_TEST

/* Decode the captured dump and check framing, counts and the chained CRC. */
static void check_dump(int first, int *nframes, uint32_t *nrecs)
{
	uint32_t crc_all = 0;
	unsigned seq, crc;
	int last = vt_cap.n - 1;

	for (int i = first; i <= last; i++) {
		int n = vt_frame(vt_cap.line[i], &seq, &crc, fr, sizeof(fr));

		ck_assert_int_gt(n, 8);
		ck_assert_uint_eq(seq, (unsigned)(i - first));
		ck_assert_uint_eq(vt_le(fr + 4, 4), seq);
		ck_assert_uint_eq(crc, (uint32_t)crc32(0, fr, (unsigned)n));
		ck_assert_uint_eq(fr[0], i == first ? VPF_BEGIN : i == last ? VPF_END : fr[0]);
		if (i < last)
			crc_all = (uint32_t)crc32(crc_all, fr, (unsigned)n);
	}
	ck_assert_uint_eq(fr[0], VPF_END);
	ck_assert_uint_eq(vt_le(fr + 8, 4), (uint64_t)(last - first));
	ck_assert_uint_eq(vt_le(fr + 24, 4), crc_all);
	*nframes = last - first;
	*nrecs = (uint32_t)vt_le(fr + 12, 4);
}

static int count_type(int first, int type, uint16_t vm_or_pcpu_filter)
{
	unsigned seq, crc;
	int c = 0;

	for (int i = first; i < vt_cap.n; i++) {
		vt_frame(vt_cap.line[i], &seq, &crc, fr, sizeof(fr));
		if (fr[0] == type && (vm_or_pcpu_filter == 0xffff || vt_le(fr + 8, 2) == vm_or_pcpu_filter))
			c++;
	}
	return c;
}

START_TEST(test_dump_structure)
{
	int nframes;
	uint32_t nrecs;
	unsigned seq, crc;

	ck_assert_int_eq(vprof_init(2, mem, sizeof(mem)), 0);
	vprof_set_sink(vt_sink, &vt_cap);
	vt_cap_reset();
	vprof_vm_config(0, 3, false);
	vprof_vm_config(1, 1, false);
	ck_assert_int_eq(vprof_vm_start(0, 0, 1000), 0);
	ck_assert_int_eq(vprof_vm_start(1, 1, 1000), 0);
	for (int i = 0; i < 20; i++) {
		vprof_state(i & 1, 0, (uint16_t)(i % 3), i & 2 ? VP_RUNNABLE : VP_RUNNING, 1000 + i);
		vprof_state(1, 1, 0, i & 2 ? VP_RUNNABLE : VP_RUNNING, 1000 + i);
	}
	vprof_exit(0, 0, 2, 30, 1100);
	vprof_exit(0, 0, 2, 31, 1100);
	ck_assert_int_eq(vt_cap.n, 0);
	ck_assert_int_eq(vprof_vm_stop(0, 0, 2000, VPD_STOP), 0);
	check_dump(0, &nframes, &nrecs);
	/* VM 0: its 20 state records + 3 start snapshots + the start/stop events. */
	ck_assert_uint_eq(nrecs, 20 + 3 + 2);
	ck_assert_int_eq(count_type(0, VPF_VCPU, 0xffff), 3);
	ck_assert_int_eq(count_type(0, VPF_PMU, 0xffff), 3);
	ck_assert_int_eq(count_type(0, VPF_PCPU, 0xffff), 2);
	ck_assert_int_eq(count_type(0, VPF_EXITS, 0xffff), 1);
	/* 13 records on pCPU 0, 12 on pCPU 1, `per` to a frame. */
	int per = (int)((VPF_MAX_PAYLOAD - 8) / 24);
	ck_assert_int_eq(count_type(0, VPF_RECS, 0xffff), (13 + per - 1) / per + (12 + per - 1) / per);
	/* BEGIN carries the window and the layout sizes. */
	vt_frame(vt_cap.line[0], &seq, &crc, fr, sizeof(fr));
	ck_assert_uint_eq(vt_le(fr + 8, 2), 0);
	ck_assert_uint_eq(vt_le(fr + 10, 2), 3);
	ck_assert_uint_eq(vt_le(fr + 12, 2), 2);
	ck_assert_uint_eq(fr[14], VPD_STOP);
	ck_assert_uint_eq(vt_le(fr + 16, 8), 1000);
	ck_assert_uint_eq(vt_le(fr + 24, 8), 2000);
	ck_assert_uint_eq(vt_le(fr + 48, 4), 24);
	/* PMU never sampled: present mask 0 = absent. */
	for (int i = 0; i < vt_cap.n; i++) {
		vt_frame(vt_cap.line[i], &seq, &crc, fr, sizeof(fr));
		if (fr[0] == VPF_PMU)
			ck_assert_uint_eq(vt_le(fr + 12, 4), 0);
	}
	/* The second dump (VM 1) has its own id and restarts seq at 0. */
	int first = vt_cap.n;
	vprof_shutdown(0, 3000);
	check_dump(first, &nframes, &nrecs);
	ck_assert_uint_eq(nrecs, 20 + 1 + 2);
	vt_frame(vt_cap.line[first], &seq, &crc, fr, sizeof(fr));
	ck_assert_uint_eq(vt_le(fr + 2, 2), 2);
	ck_assert_uint_eq(fr[14], VPD_SHUTDOWN);
}
END_TEST

START_TEST(test_dump_without_stop_and_sinkless)
{
	int nframes;
	uint32_t nrecs;

	ck_assert_int_eq(vprof_init(1, mem, sizeof(mem)), 0);
	vprof_vm_config(0, 1, false);
	ck_assert_int_eq(vprof_vm_start(0, 0, 0), 0);
	shim_reset_logs();
	ck_assert_int_eq(vprof_vm_stop(0, 0, 10, VPD_STOP), 0);    /* no sink: warned */
	ck_assert_int_eq(shim_log_count[LOG_WARN], 1);
	vprof_set_sink(vt_sink, &vt_cap);
	vt_cap_reset();
	ck_assert_int_eq(vprof_dump_all(VPD_KEY, 20), 0);          /* nothing active */
	ck_assert_int_eq(vprof_vm_start(0, 0, 100), 0);
	vprof_state(0, 0, 0, VP_RUNNING, 150);
	ck_assert_int_eq(vprof_dump_all(VPD_KEY, 200), 1);
	check_dump(0, &nframes, &nrecs);
	ck_assert(vprof_vm_profiling(0));                          /* still on */
	vprof_vm_end(0, 0, 300);
	ck_assert(!vprof_vm_profiling(0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vprof_dump");
	TCase *tc = tcase_create("encoder");
	tcase_add_test(tc, test_crc32_vectors);
	tcase_add_test(tc, test_base64_vectors);
	tcase_add_test(tc, test_frame_line_syntax);
	tcase_add_test(tc, test_dump_structure);
	tcase_add_test(tc, test_dump_without_stop_and_sinkless);
	suite_add_tcase(s, tc);
	int f = check_run(s);

	vt_cap_reset();
	return f;
}
