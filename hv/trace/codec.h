/* Checksum and text encoding for the serial dump: CRC-32 (IEEE 802.3,
 * reflected, as zlib's crc32) and base64 (RFC 4648 §4, with padding). */
#ifndef HV_TRACE_CODEC_H
#define HV_TRACE_CODEC_H
#include "types.h"

/* Continue a CRC: start with crc = 0; vp_crc32(0, "123456789", 9) == 0xcbf43926. */
uint32_t vp_crc32(uint32_t crc, const void *p, size_t n);
/* Encode n bytes into dst (NUL-terminated); returns the length written, or 0
 * when dst is too small (needs 4 * ceil(n / 3) + 1 bytes). */
size_t vp_b64_encode(char *dst, size_t cap, const void *src, size_t n);
#endif
