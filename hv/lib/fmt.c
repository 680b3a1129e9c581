/* Minimal printf formatter for the console and log; also built on the host. */
#include "lib/fmt.h"

struct out { char *buf; size_t size, pos; };

static void put(struct out *o, char c)
{
	if (o->pos + 1 < o->size)
		o->buf[o->pos] = c;
	o->pos++;
}

static void put_num(struct out *o, unsigned long long v, unsigned base, bool upper,
		    bool neg, int width, bool zero, bool left)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, len;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	len = n + (neg ? 1 : 0);
	if (neg && zero)
		put(o, '-');
	if (!left)
		for (; width > len; width--)
			put(o, zero ? '0' : ' ');
	if (neg && !zero)
		put(o, '-');
	while (n)
		put(o, tmp[--n]);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

static void put_str(struct out *o, const char *s, int width, int prec, bool left)
{
	int len = 0;

	if (!s)
		s = "(null)";
	while ((prec < 0 || len < prec) && s[len])
		len++;
	if (!left)
		for (; width > len; width--)
			put(o, ' ');
	for (int i = 0; i < len; i++)
		put(o, s[i]);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		bool zero = false, left = false, upper = false, alt = false;
		int width = 0, prec = -1, lng = 0;
		unsigned long long v;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		for (fmt++; *fmt == '0' || *fmt == '-' || *fmt == '#'; fmt++) {
			if (*fmt == '0')
				zero = true;
			else if (*fmt == '-')
				left = true;
			else
				alt = true;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (*fmt - '0');
		if (*fmt == '.') {
			prec = 0;
			if (*++fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			for (; *fmt >= '0' && *fmt <= '9'; fmt++)
				prec = prec * 10 + (*fmt - '0');
		}
		for (; *fmt == 'l' || *fmt == 'z' || *fmt == 'h'; fmt++)
			lng += (*fmt == 'h') ? -1 : (*fmt == 'z' ? 2 : 1);
		switch (*fmt) {
		case 'd': case 'i': {
			long long s = lng >= 2 ? va_arg(ap, long long) :
				      lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
			v = s < 0 ? -(unsigned long long)s : (unsigned long long)s;
			put_num(&o, v, 10, false, s < 0, width, zero, left);
			break;
		}
		case 'u': case 'x': case 'X': case 'o':
			v = lng >= 2 ? va_arg(ap, unsigned long long) :
			    lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
			if (lng == -1)
				v = (unsigned short)v;
			else if (lng <= -2)
				v = (unsigned char)v;
			upper = *fmt == 'X';
			if (alt && v && *fmt != 'u') {
				put(&o, '0');
				if (*fmt != 'o')
					put(&o, *fmt);
				width -= *fmt == 'o' ? 1 : 2;
			}
			put_num(&o, v, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16, upper, false,
				width, zero, left);
			break;
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uintptr_t)va_arg(ap, void *), 16, false, false, width, zero, left);
			break;
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 's':
			put_str(&o, va_arg(ap, const char *), width, prec, left);
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.pos < size ? o.pos : size - 1] = '\0';
	return (int)o.pos;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
