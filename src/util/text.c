/*
 * text.c: helpers on text: slices, words, whether a literal spells its value
 * (see text.h).
 */
#include "text.h"

#include <ctype.h>
#include <string.h>

mpsfix_text_slice mpsfix_text_trim(mpsfix_text_slice t)
{
	while (t.n && isspace((unsigned char)t.s[0])) {
		t.s++;
		t.n--;
	}
	while (t.n && isspace((unsigned char)t.s[t.n - 1]))
		t.n--;
	return t;
}

const unsigned char mpsfix_text_word_byte[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static bool word_start(unsigned char c)
{
	return mpsfix_text_word_byte[c] && !(c >= '0' && c <= '9');
}

bool mpsfix_text_next_word(const char *v, size_t n, size_t *at, size_t *start, size_t *len)
{
	size_t i = *at;

	for (;;) {
		size_t b;

		while (i < n && !mpsfix_text_word_byte[(unsigned char)v[i]])
			i++;
		if (i >= n) {
			*at = i;
			return false;
		}
		b = i;
		while (i < n && mpsfix_text_word_byte[(unsigned char)v[i]])
			i++;
		if (word_start((unsigned char)v[b])) {
			*start = b;
			*len = i - b;
			*at = i;
			return true;
		}
	}
}

bool mpsfix_text_spelled(const char *value, size_t n, const char *raw, size_t raw_len)
{
	const char *end = raw + raw_len;
	size_t at = 0, b, len;

	while (mpsfix_text_next_word(value, n, &at, &b, &len)) {
		bool found = false;

		for (const char *p = raw; !found && (p = memchr(p, value[b], (size_t)(end - p))) &&
					  (size_t)(end - p) >= len; p++)
			found = !memcmp(p, value + b, len) &&
				(p == raw || !mpsfix_text_word_byte[(unsigned char)p[-1]]) &&
				(p + len == end || !mpsfix_text_word_byte[(unsigned char)p[len]]);
		if (!found)
			return false;
	}
	return true;
}

int mpsfix_text_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t mpsfix_text_utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

void mpsfix_text_visible(mpsfix_buf *out, const char *s, size_t n, const char *keep)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp = c;
		size_t len = c < 0x80 ? 1 : mpsfix_text_utf8_char((const unsigned char *)s + i, n - i, &cp);

		if (len == 0) {
			mpsfix_buf_printf(out, "\\x%02x", c); /* no UTF-8 */
			i++;
			continue;
		}
		if ((cp < 0x20 && !(c && strchr(keep ? keep : "", c))) || cp == 0x7f)
			mpsfix_buf_printf(out, "\\x%02x", (unsigned)cp);
		else if (cp >= 0x80 && cp <= 0x9f)
			mpsfix_buf_printf(out, "\\u%04x", (unsigned)cp);
		else
			mpsfix_buf_add(out, s + i, len);
		i += len;
	}
}

/* The line ending that byte `p` (a \r or \n) belongs to. */
static const char *ending_of(const char *p, const char *start, const char *end)
{
	if (*p == '\r')
		return p + 1 < end && p[1] == '\n' ? "\r\n" : "\r";
	return p > start && p[-1] == '\r' ? "\r\n" : "\n";
}

const char *mpsfix_text_newline_at(const char *s, size_t n, size_t at)
{
	const char *end = s + n;

	if (at > n)
		at = n;
	for (const char *p = s + at; p < end; p++)
		if (*p == '\n' || *p == '\r')
			return ending_of(p, s, end);
	for (const char *p = s + at; p > s; p--)
		if (p[-1] == '\n' || p[-1] == '\r')
			return ending_of(p - 1, s, end);
	return NULL;
}

unsigned mpsfix_text_char_width(uint32_t c)
{
	if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || c == 0xfeff)
		return 0; /* combining marks, zero-width spaces */
	if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) ||
	    (c >= 0x3041 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
	    (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) ||
	    (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) ||
	    (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) ||
	    (c >= 0x20000 && c <= 0x3fffd))
		return 2; /* East Asian wide, emoji */
	return 1;
}
