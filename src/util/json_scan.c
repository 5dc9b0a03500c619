/*
 * json_scan.c: JSON validated and walked as bytes (json_scan.h).
 */
#include "json_scan.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && is_ws(s[i]))
		i++;
	return i;
}

/* ---- validating ---------------------------------------------------------------- */

/* At '"': past the closing quote; false with *at and *why when the string is not valid. */
static bool valid_string(const char *s, size_t len, size_t *i, size_t *at, const char **why)
{
	size_t k = *i + 1;

	while (k < len) {
		unsigned char c = (unsigned char)s[k];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			k++;
		} else if (c == '"') {
			*i = k + 1;
			return true;
		} else if (c == '\\') {
			if (k + 1 >= len)
				break;
			if (s[k + 1] == 'u') {
				for (size_t h = 2; h < 6; h++)
					if (k + h >= len || mpsfix_text_hex_digit(s[k + h]) < 0) {
						*at = k + h < len ? k + h : len;
						*why = "four hexadecimal digits after \\u";
						return false;
					}
				k += 6;
			} else if (strchr("\"\\/bfnrt", s[k + 1]) && s[k + 1]) {
				k += 2;
			} else {
				*at = k + 1;
				*why = "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)";
				return false;
			}
		} else if (c < 0x20) {
			*at = k;
			*why = "an escaped control character (\\t, \\n, \\u00XX)";
			return false;
		} else {
			uint32_t cp;
			size_t n = mpsfix_text_utf8_char((const unsigned char *)s + k, len - k, &cp);

			if (!n) {
				*at = k;
				*why = "UTF-8";
				return false;
			}
			k += n;
		}
	}
	*at = len;
	*why = "the end of a string ('\"')";
	return false;
}

static size_t digits(const char *s, size_t len, size_t k)
{
	while (k < len && s[k] >= '0' && s[k] <= '9')
		k++;
	return k;
}

/* A number at *i (RFC 8259 grammar): past it, or false with *at and *why. */
static bool valid_number(const char *s, size_t len, size_t *i, size_t *at, const char **why)
{
	size_t k = *i, d;

	if (s[k] == '-')
		k++;
	if (k < len && s[k] == '0') {
		k++;
	} else if ((d = digits(s, len, k)) > k) {
		k = d;
	} else {
		goto digit;
	}
	if (k < len && s[k] == '.') {
		if ((d = digits(s, len, k + 1)) == k + 1) {
			k++;
			goto digit;
		}
		k = d;
	}
	if (k < len && (s[k] == 'e' || s[k] == 'E')) {
		k++;
		if (k < len && (s[k] == '+' || s[k] == '-'))
			k++;
		if ((d = digits(s, len, k)) == k)
			goto digit;
		k = d;
	}
	*i = k;
	return true;
digit:
	*at = k;
	*why = "a digit";
	return false;
}

typedef enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, AFTER } state;

bool mpsfix_json_valid(const char *s, size_t len, size_t *at, const char **why)
{
	ARRAY(char) stack = {0};
	state st = VALUE;
	size_t i = 0;
	bool ok = false;

	for (;;) {
		char c;

		i = skip_ws(s, len, i);
		if (st == AFTER && !stack.len) {
			if (i < len) {
				*at = i;
				*why = "the end of the text after the value";
				goto done;
			}
			ok = true;
			goto done;
		}
		if (i >= len) {
			*at = len;
			*why = st == AFTER ? (stack.items[stack.len - 1] == '{' ? "',' or '}'" : "',' or ']'")
					   : st == KEY || st == KEY_OR_CLOSE ? "a key" : "a value";
			goto done;
		}
		c = s[i];
		switch (st) {
		case VALUE_OR_CLOSE:
			if (c == ']') {
				stack.len--;
				i++;
				st = AFTER;
				continue;
			}
			/* fall through */
		case VALUE:
			if (c == '{' || c == '[') {
				ARRAY_PUSH(&stack, c);
				i++;
				st = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
				continue;
			}
			if (c == '"') {
				if (!valid_string(s, len, &i, at, why))
					goto done;
			} else if (c == '-' || (c >= '0' && c <= '9')) {
				if (!valid_number(s, len, &i, at, why))
					goto done;
			} else {
				static const char *const literals[] = {"true", "false", "null"};
				size_t k;

				for (k = 0; k < MPSFIX_ARRAY_SIZE(literals); k++) {
					size_t n = strlen(literals[k]);

					if (len - i >= n && !memcmp(s + i, literals[k], n)) {
						i += n;
						break;
					}
				}
				if (k == MPSFIX_ARRAY_SIZE(literals)) {
					*at = i;
					*why = "a value";
					goto done;
				}
			}
			st = AFTER;
			continue;
		case KEY_OR_CLOSE:
			if (c == '}') {
				stack.len--;
				i++;
				st = AFTER;
				continue;
			}
			/* fall through */
		case KEY:
			if (c != '"') {
				*at = i;
				*why = "a key (a string)";
				goto done;
			}
			if (!valid_string(s, len, &i, at, why))
				goto done;
			i = skip_ws(s, len, i);
			if (i >= len || s[i] != ':') {
				*at = i;
				*why = "':' after a key";
				goto done;
			}
			i++;
			st = VALUE;
			continue;
		case AFTER: {
			char top = stack.items[stack.len - 1];

			if (c == ',') {
				i++;
				st = top == '{' ? KEY : VALUE;
			} else if (c == (top == '{' ? '}' : ']')) {
				stack.len--;
				i++;
			} else {
				*at = i;
				*why = top == '{' ? "',' or '}'" : "',' or ']'";
				goto done;
			}
			continue;
		}
		}
	}
done:
	free(stack.items);
	return ok;
}

/* ---- walking a valid text ------------------------------------------------------- */

bool mpsfix_json_take(mpsfix_json_walk *w, char c)
{
	w->i = skip_ws(w->s, w->len, w->i);
	if (w->i >= w->len || w->s[w->i] != c)
		return false;
	w->i++;
	return true;
}

/* At '"': past the closing quote. */
static void skip_string(mpsfix_json_walk *w)
{
	for (w->i++; w->i < w->len; w->i++) {
		const char *q = memchr(w->s + w->i, '"', w->len - w->i);
		size_t backslashes = 0;

		if (!q) {
			w->i = w->len;
			return;
		}
		w->i = (size_t)(q - w->s);
		/* a quote after an odd number of backslashes is escaped */
		while (backslashes < w->i && w->s[w->i - 1 - backslashes] == '\\')
			backslashes++;
		if (!(backslashes & 1)) {
			w->i++;
			return;
		}
	}
}

void mpsfix_json_skip(mpsfix_json_walk *w, size_t *start)
{
	size_t depth = 0;

	w->i = skip_ws(w->s, w->len, w->i);
	*start = w->i;
	do {
		char c;

		if (w->i >= w->len)
			return;
		c = w->s[w->i];
		if (c == '"') {
			skip_string(w);
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		} else if (!depth) {
			/* a number or a literal */
			while (w->i < w->len && !strchr(",]} \t\r\n", w->s[w->i]))
				w->i++;
			return;
		}
		w->i++;
	} while (depth > 0);
}

void mpsfix_json_key(mpsfix_json_walk *w, size_t *start, size_t *end)
{
	w->i = skip_ws(w->s, w->len, w->i);
	*start = w->i + 1;
	skip_string(w);
	*end = w->i - 1;
	mpsfix_json_take(w, ':');
}
