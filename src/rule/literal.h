/*
 * literal.h: Python literal values (True/False, None, a str, an int or a
 * float), read from the parse tree or from one string token, as a pattern's
 * strings and a constraint's `value:` and `not-value:` compare them.
 */
#ifndef MPSFIX_LITERAL_H
#define MPSFIX_LITERAL_H

#include <tree_sitter/api.h>

#include "common.h"

typedef enum {
	MPSFIX_LIT_BOOL,
	MPSFIX_LIT_NONE,
	MPSFIX_LIT_STRING,
	MPSFIX_LIT_NUMBER
} mpsfix_literal_type;

/** A Python literal value: True/False, None, a str, or an int/float. */
typedef struct {
	mpsfix_literal_type type;
	bool b;
	char *s;      /* STRING: the decoded value (owned), NUL-terminated */
	size_t slen;
	double num;
} mpsfix_literal;

/** Release a literal's string. */
void mpsfix_literal_release(mpsfix_literal *l);

/** True when two literals are the same value (1 == 1.0, 'a' == "a"). */
bool mpsfix_literal_equal(const mpsfix_literal *a, const mpsfix_literal *b);

/**
 * The literal value of `node` (True, False, None, a plain or raw str with
 * its escapes decoded, an int or float, a negative number).  Returns false
 * (and leaves `out` untouched) for anything else, including f-strings,
 * bytes and implicitly concatenated strings.
 */
bool mpsfix_literal_from_node(mpsfix_literal *out, TSNode node, const char *src);

/**
 * The decoded value of `node` when it is a plain or raw str literal (owned
 * by `out`: release it), else NULL (and nothing to release).
 */
const char *mpsfix_literal_string(mpsfix_literal *out, TSNode node, const char *src);

/**
 * The value of one string literal token [s, s+n), prefix and quotes
 * included (a pattern's string is compared by value): a plain or raw str
 * with its escapes decoded.  Returns false (and leaves `out` untouched) for
 * bytes, f-strings, an escape it cannot decode (`\N{...}`, a malformed
 * `\x`, `\u` or `\U`) and text that is not a quoted string.
 */
bool mpsfix_literal_from_string(mpsfix_literal *out, const char *s, size_t n);

#endif
