/* vProfile serial frames: one text line per binary frame,
 *   "@VP1 <seq> <crc32 as 8 hex digits> <base64 frame>\n"
 * where the frame is an 8-byte header {u8 type, u8 version, u16 dump id,
 * u32 seq} and a little-endian payload (layouts in docs/vprofile.md), and the
 * CRC covers the whole binary frame. The marker may start anywhere in a line,
 * so a dump survives being interleaved with other console output. */
#ifndef HV_TRACE_FRAME_H
#define HV_TRACE_FRAME_H
#include "trace/vprof.h"

#define VPF_VERSION     1
#define VPF_HDR_SIZE    8
#define VPF_MAX_PAYLOAD 400   /* room for new events in VCPU frames */
#define VPF_LINE_MAX    (32 + 4 * ((VPF_HDR_SIZE + VPF_MAX_PAYLOAD + 2) / 3))

enum vpf_type {
	VPF_BEGIN = 1, VPF_VCPU, VPF_PMU, VPF_EXITS, VPF_PCPU, VPF_RECS, VPF_END
};

struct vpf_writer {
	vprof_sink_t sink;
	void *ctx;
	uint16_t dump;
	uint32_t seq;         /* frames emitted so far */
	uint32_t crc_all;     /* CRC over every emitted frame, carried by END */
	size_t len;
	bool overflow;        /* a put went past VPF_MAX_PAYLOAD */
	uint8_t buf[VPF_HDR_SIZE + VPF_MAX_PAYLOAD];
};

void vpf_open(struct vpf_writer *w, uint16_t dump, vprof_sink_t sink, void *ctx);
void vpf_start(struct vpf_writer *w, enum vpf_type type);
void vpf_put(struct vpf_writer *w, uint64_t v, unsigned bytes);
size_t vpf_room(const struct vpf_writer *w);
int vpf_emit(struct vpf_writer *w);
#endif
