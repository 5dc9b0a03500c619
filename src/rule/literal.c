/*
 * literal.c: Python literal values (True/False, None, str, int, float) as
 * patterns and constraints compare them: read from a node or from one
 * string token, escapes decoded.
 */
#include "literal.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

void mpsfix_literal_release(mpsfix_literal *l)
{
	if (!l)
		return;
	free(l->s);
	l->s = NULL;
	l->slen = 0;
}

bool mpsfix_literal_equal(const mpsfix_literal *a, const mpsfix_literal *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case MPSFIX_LIT_BOOL:
		return a->b == b->b;
	case MPSFIX_LIT_NONE:
		return true;
	case MPSFIX_LIT_STRING:
		return a->slen == b->slen && memcmp(a->s, b->s, a->slen) == 0;
	case MPSFIX_LIT_NUMBER:
		return a->num == b->num;
	}
	return false;
}

static void add_utf8(mpsfix_buf *b, uint32_t cp)
{
	char u[4];

	if (cp < 0x80) {
		u[0] = (char)cp;
		mpsfix_buf_add(b, u, 1);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		mpsfix_buf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		mpsfix_buf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		mpsfix_buf_add(b, u, 4);
	}
}

/* Decode the escapes of a non-raw str body; false for \N{...} (no name table). */
static bool decode_escapes(mpsfix_buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		size_t digits;
		uint32_t cp;

		if (c != '\\' || i + 1 >= n) {
			mpsfix_buf_addc(out, c);
			continue;
		}
		c = s[++i];
		switch (c) {
		case '\n':
			break;
		case '\r':
			if (i + 1 < n && s[i + 1] == '\n')
				i++;
			break;
		case '\\': case '\'': case '"':
			mpsfix_buf_addc(out, c);
			break;
		case 'a': mpsfix_buf_addc(out, '\a'); break;
		case 'b': mpsfix_buf_addc(out, '\b'); break;
		case 'f': mpsfix_buf_addc(out, '\f'); break;
		case 'n': mpsfix_buf_addc(out, '\n'); break;
		case 'r': mpsfix_buf_addc(out, '\r'); break;
		case 't': mpsfix_buf_addc(out, '\t'); break;
		case 'v': mpsfix_buf_addc(out, '\v'); break;
		case 'x': case 'u': case 'U':
			digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
			cp = 0;
			for (size_t d = 1; d <= digits; d++) {
				int v = i + d < n ? mpsfix_text_hex_digit(s[i + d]) : -1;

				if (v < 0)
					return false;
				cp = cp * 16 + (uint32_t)v;
			}
			if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
				return false;
			add_utf8(out, cp);
			i += digits;
			break;
		case 'N':
			return false;
		default:
			if (c >= '0' && c <= '7') {
				cp = 0;
				for (digits = 0; digits < 3 && i < n && s[i] >= '0' && s[i] <= '7'; digits++)
					cp = cp * 8 + (uint32_t)(s[i++] - '0');
				i--;
				add_utf8(out, cp);
			} else {
				/* unknown escapes keep their backslash, as in Python */
				mpsfix_buf_addc(out, '\\');
				mpsfix_buf_addc(out, c);
			}
		}
	}
	return true;
}

bool mpsfix_literal_from_string(mpsfix_literal *out, const char *s, size_t n)
{
	size_t p = 0, q;
	bool raw = false;
	mpsfix_buf b = MPSFIX_BUF_INIT;

	while (p < n && strchr("rRuUbBfF", s[p])) {
		if (s[p] == 'b' || s[p] == 'B' || s[p] == 'f' || s[p] == 'F')
			return false; /* bytes and f-strings are not str values */
		if (s[p] == 'r' || s[p] == 'R')
			raw = true;
		p++;
	}
	if (p >= n || (s[p] != '\'' && s[p] != '"'))
		return false;
	q = (n - p >= 6 && s[p + 1] == s[p] && s[p + 2] == s[p]) ? 3 : 1;
	if (n < p + 2 * q)
		return false;
	for (size_t i = 0; i < q; i++)
		if (s[n - 1 - i] != s[p])
			return false;
	s += p + q;
	n -= p + 2 * q;
	if (raw)
		mpsfix_buf_add(&b, s, n);
	else if (!decode_escapes(&b, s, n)) {
		mpsfix_buf_release(&b);
		return false;
	}
	out->type = MPSFIX_LIT_STRING;
	out->s = mpsfix_buf_detach(&b, &out->slen);
	return true;
}

static bool number_value(double *out, const char *s, size_t n)
{
	char tmp[128];
	size_t k = 0;
	char *end;

	if (n == 0 || n >= sizeof(tmp))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '_')
			tmp[k++] = s[i];
	tmp[k] = '\0';
	if (k && (tmp[k - 1] == 'j' || tmp[k - 1] == 'J'))
		return false; /* complex */
	if (k > 2 && tmp[0] == '0' && strchr("xXoObB", tmp[1])) {
		int base = strchr("xX", tmp[1]) ? 16 : strchr("oO", tmp[1]) ? 8 : 2;

		*out = (double)strtoull(tmp + 2, &end, base);
	} else {
		*out = strtod(tmp, &end);
	}
	return *end == '\0';
}

static bool node_is(TSNode n, const char *type)
{
	return strcmp(ts_node_type(n), type) == 0;
}

bool mpsfix_literal_from_node(mpsfix_literal *out, TSNode node, const char *src)
{
	uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
	const char *type = ts_node_type(node);
	mpsfix_literal l = {0};

	if (!strcmp(type, "true") || !strcmp(type, "false")) {
		l.type = MPSFIX_LIT_BOOL;
		l.b = type[0] == 't';
	} else if (!strcmp(type, "none")) {
		l.type = MPSFIX_LIT_NONE;
	} else if (!strcmp(type, "integer") || !strcmp(type, "float")) {
		l.type = MPSFIX_LIT_NUMBER;
		if (!number_value(&l.num, src + s, e - s))
			return false;
	} else if (!strcmp(type, "unary_operator") && ts_node_named_child_count(node) == 1) {
		TSNode arg = ts_node_named_child(node, 0);
		char op = src[s];

		if ((op != '-' && op != '+') ||
		    !(node_is(arg, "integer") || node_is(arg, "float")))
			return false;
		l.type = MPSFIX_LIT_NUMBER;
		if (!number_value(&l.num, src + ts_node_start_byte(arg),
				  ts_node_end_byte(arg) - ts_node_start_byte(arg)))
			return false;
		if (op == '-')
			l.num = -l.num;
	} else if (!strcmp(type, "string")) {
		uint32_t n = ts_node_child_count(node);

		for (uint32_t i = 0; i < n; i++)
			if (node_is(ts_node_child(node, i), "interpolation"))
				return false;
		if (!mpsfix_literal_from_string(&l, src + s, e - s))
			return false;
	} else {
		return false;
	}
	*out = l;
	return true;
}

const char *mpsfix_literal_string(mpsfix_literal *out, TSNode node, const char *src)
{
	if (ts_node_is_null(node) || strcmp(ts_node_type(node), "string") || !mpsfix_literal_from_node(out, node, src))
		return NULL;
	if (out->type == MPSFIX_LIT_STRING)
		return out->s;
	mpsfix_literal_release(out);
	return NULL;
}
