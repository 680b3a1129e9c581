/* Helpers shared by the vProfile unit tests: capture the serial sink into
 * memory and decode frames back (independent base64 decoder, little-endian
 * readers) so tests check the encoder against a second implementation. */
#ifndef TEST_VPROF_UTIL_H
#define TEST_VPROF_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define VT_MAX_LINES 4096
struct vt_capture { int n; char *line[VT_MAX_LINES]; };
static struct vt_capture vt_cap;

__attribute__((unused)) static void vt_sink(void *ctx, const char *line, size_t len)
{
	struct vt_capture *c = ctx;

	if (c->n < VT_MAX_LINES)
		c->line[c->n++] = strndup(line, len);
}

__attribute__((unused)) static void vt_cap_reset(void)
{
	for (int i = 0; i < vt_cap.n; i++)
		free(vt_cap.line[i]);
	vt_cap.n = 0;
}

static int vt_b64_val(int ch)
{
	const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = ch ? strchr(a, ch) : NULL;

	return p ? (int)(p - a) : -1;
}

/* Decode base64 text up to whitespace; returns bytes or -1 on bad input. */
static int vt_b64_decode(const char *s, uint8_t *out, int cap)
{
	int n = 0, bits = 0;
	uint32_t acc = 0;

	for (; *s && *s != '\n' && *s != ' '; s++) {
		int v;

		if (*s == '=')
			break;
		v = vt_b64_val(*s);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n >= cap)
				return -1;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n;
}

/* Parse "@VP1 <seq> <crc> <b64>": returns the frame length, fills seq/crc. */
__attribute__((unused)) static int vt_frame(const char *line, unsigned *seq, unsigned *crc, uint8_t *out, int cap)
{
	const char *m = strstr(line, "@VP1 ");
	char b64[1024];

	if (!m || sscanf(m, "@VP1 %u %x %1023s", seq, crc, b64) != 3)
		return -1;
	return vt_b64_decode(b64, out, cap);
}

__attribute__((unused)) static uint64_t vt_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}
#endif
