/*
 * toml.c: the small TOML reader (see toml.h).  One pass over the text: a
 * table header sets the start of the key path, a key = value line adds its
 * keys for the value, and every value goes to the caller with the path as
 * it stands.  The first problem ends the read.
 */
#include "toml.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* Nesting of TOML arrays and inline tables. */
#define TOML_MAX_DEPTH 32
#define TOML_MAX_PATH 16

typedef struct {
	mpsfix_toml_value_cb on_value;
	void *payload;
	const char *p, *end;
	uint32_t line;
	char *path[TOML_MAX_PATH]; /* the key path of the value being read (owned) */
	size_t npath;
	size_t ntable;             /* how much of it the table header gave */
	int depth;
} toml;

/* What is wrong at t->line (the reader stops there). */
static int toml_fail(toml *t, const char *what)
{
	return mpsfix_error_set(MPSFIX_ERROR, "%s", what);
}

static void toml_blank(toml *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

/* Blanks, newlines and comments (inside arrays and inline tables). */
static void toml_space(toml *t)
{
	for (;;) {
		toml_blank(t);
		if (t->p < t->end && *t->p == '#') {
			while (t->p < t->end && *t->p != '\n')
				t->p++;
		} else if (t->p < t->end && (*t->p == '\n' || *t->p == '\r')) {
			if (*t->p == '\n')
				t->line++;
			t->p++;
		} else {
			return;
		}
	}
}

/* The end of a line: blanks, a comment, a newline (or the end of the file). */
static int toml_eol(toml *t)
{
	toml_blank(t);
	if (t->p < t->end && *t->p == '#')
		while (t->p < t->end && *t->p != '\n')
			t->p++;
	if (t->p < t->end && *t->p == '\r')
		t->p++;
	if (t->p >= t->end)
		return 0;
	if (*t->p != '\n')
		return toml_fail(t, "unexpected text after a value");
	t->p++;
	t->line++;
	return 0;
}

/* A string at t->p (any of the four kinds): its value in *out (owned). */
static int toml_string(toml *t, char **out)
{
	char q = *t->p;
	bool multi = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;
	mpsfix_buf b = MPSFIX_BUF_INIT;

	t->p += multi ? 3 : 1;
	for (;;) {
		if (t->p >= t->end) {
			mpsfix_buf_release(&b);
			return toml_fail(t, "a string is not closed");
		}
		if (*t->p == q && (!multi || (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q))) {
			t->p += multi ? 3 : 1;
			/* """a"""" : up to two more quotes belong to the string */
			while (multi && t->p < t->end && *t->p == q) {
				mpsfix_buf_addc(&b, q);
				t->p++;
			}
			break;
		}
		if (*t->p == '\n') {
			if (!multi) {
				mpsfix_buf_release(&b);
				return toml_fail(t, "a string is not closed on its line");
			}
			t->line++;
		}
		if (q == '"' && *t->p == '\\' && t->p + 1 < t->end) {
			static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
			const char *e = strchr(from, t->p[1]);

			if (e && t->p[1]) {
				mpsfix_buf_addc(&b, to[e - from]);
				t->p += 2;
				continue;
			}
			if (t->p[1] == '\n') {
				/* a line-ending backslash: the line break and the blanks after it go */
				t->p++;
				while (t->p < t->end && isspace((unsigned char)*t->p)) {
					if (*t->p == '\n')
						t->line++;
					t->p++;
				}
				continue;
			}
		}
		mpsfix_buf_addc(&b, *t->p++);
	}
	*out = mpsfix_buf_detach(&b, NULL);
	return 0;
}

/* A key part: bare (A-Za-z0-9_-) or quoted. */
static int toml_key_part(toml *t, char **out)
{
	const char *s = t->p;

	if (t->p < t->end && (*t->p == '"' || *t->p == '\''))
		return toml_string(t, out);
	while (t->p < t->end && (isalnum((unsigned char)*t->p) || *t->p == '_' || *t->p == '-'))
		t->p++;
	if (t->p == s)
		return toml_fail(t, "a key is missing");
	*out = mpsfix_xstrndup(s, (size_t)(t->p - s));
	return 0;
}

/* A dotted key, appended to the path. */
static int toml_key(toml *t)
{
	for (;;) {
		char *part = NULL;
		int error;

		toml_blank(t);
		if ((error = toml_key_part(t, &part)) < 0)
			return error;
		if (t->npath == TOML_MAX_PATH) {
			free(part);
			return toml_fail(t, "keys nested too deeply");
		}
		t->path[t->npath++] = part;
		toml_blank(t);
		if (t->p < t->end && *t->p == '.') {
			t->p++;
			continue;
		}
		return 0;
	}
}

static void toml_cut(toml *t, size_t n)
{
	while (t->npath > n)
		free(t->path[--t->npath]);
}

/* Hand value `v` at line `line` to the caller, with the path as it stands. */
static void toml_report(toml *t, const mpsfix_toml_value *v, uint32_t line)
{
	t->on_value(t->payload, &(mpsfix_toml_path){t->path, t->npath}, v, line);
}

/*
 * A TOML integer: [+-] and decimal digits without a leading zero, or 0x,
 * 0o, 0b and digits of that base; '_' only between two digits.  False for
 * anything else and for a value out of int64_t's range.
 */
static bool toml_integer(const char *s, int64_t *out)
{
	bool negative = false, digit_before = false;
	unsigned base = 10;
	uint64_t v = 0, limit;

	if (*s == '+' || *s == '-') {
		negative = *s++ == '-';
	} else if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		s += 2;
	}
	if (base == 10 && s[0] == '0' && s[1] != '\0')
		return false; /* a leading zero */
	limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s; s++) {
		unsigned d;

		if (*s == '_') {
			if (!digit_before || (unsigned)mpsfix_text_hex_digit(s[1]) >= base)
				return false;
			digit_before = false;
			continue;
		}
		if ((d = (unsigned)mpsfix_text_hex_digit(*s)) >= base || v > (limit - d) / base)
			return false;
		v = v * base + d;
		digit_before = true;
	}
	if (!digit_before)
		return false;
	*out = !negative ? (int64_t)v : v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
	return true;
}

static int toml_value(toml *t);

/* [ value, value, ... ] (the path stays: arrays are transparent) */
static int toml_array(toml *t)
{
	int error;

	t->p++;
	for (;;) {
		toml_space(t);
		if (t->p >= t->end)
			return toml_fail(t, "an array is not closed");
		if (*t->p == ']') {
			t->p++;
			return 0;
		}
		if ((error = toml_value(t)) < 0)
			return error;
		toml_space(t);
		if (t->p < t->end && *t->p == ',')
			t->p++;
		else if (t->p < t->end && *t->p != ']')
			return toml_fail(t, "expected ',' or ']' in an array");
	}
}

/* { key = value, ... } */
static int toml_inline_table(toml *t)
{
	size_t base = t->npath;
	int error;

	t->p++;
	for (;;) {
		toml_space(t);
		if (t->p >= t->end)
			return toml_fail(t, "an inline table is not closed");
		if (*t->p == '}') {
			t->p++;
			return 0;
		}
		if ((error = toml_key(t)) < 0)
			return error;
		toml_blank(t);
		if (t->p >= t->end || *t->p != '=')
			return toml_fail(t, "expected '=' after a key");
		t->p++;
		toml_blank(t);
		error = toml_value(t);
		toml_cut(t, base);
		if (error < 0)
			return error;
		toml_space(t);
		if (t->p < t->end && *t->p == ',')
			t->p++;
		else if (t->p < t->end && *t->p != '}')
			return toml_fail(t, "expected ',' or '}' in an inline table");
	}
}

static int toml_value(toml *t)
{
	const char *s = t->p;
	int error = 0;

	if (t->p >= t->end)
		return toml_fail(t, "a value is missing");
	if (++t->depth > TOML_MAX_DEPTH) {
		error = toml_fail(t, "values nested too deeply");
	} else if (*t->p == '"' || *t->p == '\'') {
		uint32_t line = t->line;
		char *value = NULL;

		if ((error = toml_string(t, &value)) == 0)
			toml_report(t, &(mpsfix_toml_value){MPSFIX_TOML_STRING, value, 0}, line);
		free(value);
	} else if (*t->p == '[') {
		error = toml_array(t);
	} else if (*t->p == '{') {
		error = toml_inline_table(t);
	} else {
		/* a number, a boolean, a date: up to the next delimiter */
		while (t->p < t->end && !strchr(",]}#\r\n", *t->p))
			t->p++;
		while (t->p > s && (t->p[-1] == ' ' || t->p[-1] == '\t'))
			t->p--;
		if (t->p == s) {
			error = toml_fail(t, "a value is missing");
		} else {
			mpsfix_toml_value v = {MPSFIX_TOML_OTHER, NULL, 0};
			char *text = mpsfix_xstrndup(s, (size_t)(t->p - s));

			v.text = text;
			if (toml_integer(text, &v.integer))
				v.kind = MPSFIX_TOML_INTEGER;
			toml_report(t, &v, t->line);
			free(text);
		}
	}
	t->depth--;
	return error;
}

bool mpsfix_toml_path_is(const mpsfix_toml_path *path, size_t i, const char *key)
{
	return i < path->len && !strcmp(path->keys[i], key);
}

/* mpsfix_toml_read's caller (the payload of the values it hands on). */
typedef struct {
	mpsfix_toml_string_cb on_string;
	void *payload;
} strings_only;

static void string_value(void *payload, const mpsfix_toml_path *path, const mpsfix_toml_value *value,
			 uint32_t line)
{
	const strings_only *so = payload;

	if (value->kind == MPSFIX_TOML_STRING)
		so->on_string(so->payload, path, value->text, line);
}

int mpsfix_toml_read(const char *data, size_t len, mpsfix_toml_string_cb on_string, void *payload,
		     uint32_t *line)
{
	strings_only so = {on_string, payload};

	return mpsfix_toml_read_values(data, len, string_value, &so, line);
}

int mpsfix_toml_read_values(const char *data, size_t len, mpsfix_toml_value_cb on_value, void *payload,
			    uint32_t *line)
{
	toml t = {.on_value = on_value, .payload = payload, .p = data, .end = data + len, .line = 1};
	int error = 0;

	while (t.p < t.end) {
		toml_blank(&t);
		if (t.p >= t.end)
			break;
		if (*t.p == '#' || *t.p == '\r' || *t.p == '\n') {
			if ((error = toml_eol(&t)) < 0)
				break;
			continue;
		}
		if (*t.p == '[') {
			/* [table] or [[array.of.tables]] */
			bool array = t.p + 1 < t.end && t.p[1] == '[';

			t.p += array ? 2 : 1;
			toml_cut(&t, 0);
			if ((error = toml_key(&t)) < 0)
				break;
			if (t.p >= t.end || *t.p != ']' || (array && (t.p + 1 >= t.end || t.p[1] != ']'))) {
				error = toml_fail(&t, "a table header is not closed");
				break;
			}
			t.p += array ? 2 : 1;
			t.ntable = t.npath;
			if ((error = toml_eol(&t)) < 0)
				break;
			continue;
		}
		if ((error = toml_key(&t)) < 0)
			break;
		if (t.p >= t.end || *t.p != '=') {
			error = toml_fail(&t, "expected '=' after a key");
			break;
		}
		t.p++;
		toml_blank(&t);
		if ((error = toml_value(&t)) < 0)
			break;
		toml_cut(&t, t.ntable);
		if ((error = toml_eol(&t)) < 0)
			break;
	}
	toml_cut(&t, 0);
	if (error < 0)
		*line = t.line;
	return error;
}
