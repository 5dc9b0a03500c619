/*
 * ini.c: the small INI reader (see ini.h), one line at a time: a header
 * sets the section, a key line starts a value, a line indented deeper than
 * its key goes on with it.
 */
#include "ini.h"

#include <ctype.h>
#include <string.h>

/* How far the first byte that is not a blank is into `raw`. */
static size_t indent_of(mpsfix_text_slice raw)
{
	size_t i = 0;

	while (i < raw.n && (raw.s[i] == ' ' || raw.s[i] == '\t'))
		i++;
	return i;
}

void mpsfix_ini_read(const char *data, size_t len, mpsfix_ini_cb on_line, void *payload)
{
	mpsfix_ini_line cur = {.section = {"", 0}};
	bool in_value = false;
	size_t key_indent = 0;
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		mpsfix_text_slice raw = {p, (size_t)((eol ? eol : end) - p)};
		mpsfix_text_slice t = mpsfix_text_trim(raw);
		size_t indent = indent_of(raw);

		cur.line++;
		p = eol ? eol + 1 : end;
		/* empty lines and comment lines, inside a value or not, say nothing */
		if (!t.n || t.s[0] == '#' || t.s[0] == ';')
			continue;
		if (in_value && indent > key_indent) {
			cur.value = t;
			cur.continued = true;
			on_line(payload, &cur);
			continue;
		}
		in_value = false;
		if (t.s[0] == '[') {
			/* as configparser reads it: the name runs to the last ']' of the line */
			size_t close = t.n;

			while (close > 1 && t.s[close - 1] != ']')
				close--;
			if (close >= 3)
				cur.section = mpsfix_text_trim((mpsfix_text_slice){t.s + 1, close - 2});
			continue;
		}
		for (size_t k = 0; k < t.n; k++)
			if (t.s[k] == '=' || t.s[k] == ':') {
				cur.key = mpsfix_text_trim((mpsfix_text_slice){t.s, k});
				cur.value = mpsfix_text_trim((mpsfix_text_slice){t.s + k + 1, t.n - k - 1});
				cur.continued = false;
				if (cur.key.n) {
					in_value = true;
					key_indent = indent;
					on_line(payload, &cur);
				}
				break;
			}
	}
}

bool mpsfix_ini_name_is(mpsfix_text_slice name, const char *want)
{
	size_t n = strlen(want);

	if (name.n != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)name.s[i]);

		if (c == '-')
			c = '_';
		if (c != (want[i] == '-' ? '_' : want[i]))
			return false;
	}
	return true;
}
