/* CRC-32 and base64 for the vProfile serial frames (see codec.h). A 16-entry
 * table keeps the CRC small for the image and fast enough for a dump. */
#include "trace/codec.h"

static const uint32_t crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t vp_crc32(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	crc = ~crc;
	while (n--) {
		crc ^= *b++;
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return ~crc;
}

static const char b64_alpha[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t vp_b64_encode(char *dst, size_t cap, const void *src, size_t n)
{
	const uint8_t *s = src;
	size_t out = 4 * ((n + 2) / 3), o = 0;

	if (cap < out + 1)
		return 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)s[i + 1] << 8;
		if (i + 2 < n)
			v |= s[i + 2];
		dst[o++] = b64_alpha[(v >> 18) & 63];
		dst[o++] = b64_alpha[(v >> 12) & 63];
		dst[o++] = i + 1 < n ? b64_alpha[(v >> 6) & 63] : '=';
		dst[o++] = i + 2 < n ? b64_alpha[v & 63] : '=';
	}
	dst[o] = '\0';
	return o;
}
