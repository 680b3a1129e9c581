/* Frame writer for the vProfile serial dump (format in frame.h). Everything
 * lives in the caller's struct: no allocation, so it can run at shutdown. */
#include "trace/frame.h"
#include "trace/codec.h"
#include "lib/fmt.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

void vpf_open(struct vpf_writer *w, uint16_t dump, vprof_sink_t sink, void *ctx)
{
	w->sink = sink;
	w->ctx = ctx;
	w->dump = dump;
	w->seq = 0;
	w->crc_all = 0;
	w->len = 0;
	w->overflow = false;
}

/* Little-endian store of the low `bytes` bytes of v; never past the buffer. */
void vpf_put(struct vpf_writer *w, uint64_t v, unsigned bytes)
{
	if (w->len + bytes > sizeof(w->buf)) {
		w->overflow = true;
		return;
	}
	for (unsigned i = 0; i < bytes; i++)
		w->buf[w->len++] = (uint8_t)(v >> (8 * i));
}

void vpf_start(struct vpf_writer *w, enum vpf_type type)
{
	w->len = 0;
	w->overflow = false;
	vpf_put(w, type, 1);
	vpf_put(w, VPF_VERSION, 1);
	vpf_put(w, w->dump, 2);
	vpf_put(w, w->seq, 4);
}

size_t vpf_room(const struct vpf_writer *w)
{
	return sizeof(w->buf) - w->len;
}

int vpf_emit(struct vpf_writer *w)
{
	char line[VPF_LINE_MAX];
	uint32_t crc;
	int n;

	if (w->overflow)
		return trace_error(-EOVERFLOW);
	crc = vp_crc32(0, w->buf, w->len);
	w->crc_all = vp_crc32(w->crc_all, w->buf, w->len);
	n = fmt_snprintf(line, sizeof(line), "@VP1 %u %08x ", w->seq, crc);
	if (n < 0 || (size_t)n >= sizeof(line))
		return trace_error(-EOVERFLOW);
	if (!vp_b64_encode(line + n, sizeof(line) - (size_t)n - 1, w->buf, w->len))
		return trace_error(-EOVERFLOW);
	n += (int)strlen(line + n);
	line[n++] = '\n';
	if (w->sink)
		w->sink(w->ctx, line, (size_t)n);
	w->seq++;
	return 0;
}
