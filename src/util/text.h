/*
 * text.h: small helpers on text that is not NUL-terminated: a slice (a
 * pointer and a length into bytes someone else owns) and what is done to
 * one.  A leaf module: it needs nothing of mpsfix but common.h.
 */
#ifndef MPSFIX_TEXT_H
#define MPSFIX_TEXT_H

#include "common.h"

/** `n` bytes at `s`: part of a text, not NUL-terminated, not owned. */
typedef struct {
	const char *s;
	size_t n;
} mpsfix_text_slice;

/** `t` without the white space (isspace) at its start and at its end. */
mpsfix_text_slice mpsfix_text_trim(mpsfix_text_slice t);

/** 1 for the bytes of a word ([A-Za-z0-9_]), else 0. */
extern const unsigned char mpsfix_text_word_byte[256];

/*
 * The next word of the `n` bytes at `v` from *at that starts with a letter
 * or '_' (words that start with a digit are skipped: the prefilter's scan
 * does not look them up whole): its start and length; *at is moved past
 * it.  False at the end.
 */
bool mpsfix_text_next_word(const char *v, size_t n, size_t *at, size_t *start, size_t *len);

/**
 * Does the source text `raw` of a string literal spell out every word of its
 * value `value` (each run of [A-Za-z0-9_] that starts with a letter or '_',
 * as a whole word of `raw`)?  A pattern's string matches only such a
 * literal, so that the prefilter may require its words: `"A_B"` is matched,
 * the same value written `"A_" "B"` or `"A\x5fB"` is not.
 */
bool mpsfix_text_spelled(const char *value, size_t n, const char *raw, size_t raw_len);

/**
 * The length of the valid UTF-8 sequence at `s` (at most `n` bytes), its
 * code point in *cp; 0 when it is not one (overlong, a surrogate, cut short).
 */
size_t mpsfix_text_utf8_char(const unsigned char *s, size_t n, uint32_t *cp);

/**
 * Append `n` bytes of `s` to `out` as a terminal may show them: the control
 * characters (C0 but those in `keep`, such as "\t\n"; DEL; C1, U+0080 to
 * U+009F) and bytes that are no UTF-8 as `\xNN` (`\u0085` for C1), so that
 * a file name or a line of a repository cannot move the cursor, clear the
 * screen or set the window's title (ESC sequences), nor split a line.
 */
void mpsfix_text_visible(mpsfix_buf *out, const char *s, size_t n, const char *keep);

/**
 * The line ending ("\r\n", "\n" or a lone "\r") of the line of `s` (`n`
 * bytes) that holds byte `at`, else of the last line before it; NULL when
 * the text has none.
 */
const char *mpsfix_text_newline_at(const char *s, size_t n, size_t at);

/**
 * The columns a terminal, ruff and black give code point `c` (tabs aside):
 * 0 for combining marks and zero-width spaces, 2 for East Asian wide
 * characters and emoji, else 1.
 */
unsigned mpsfix_text_char_width(uint32_t c);

/** The value of hexadecimal digit `c` (0-9, a-f, A-F), or -1. */
int mpsfix_text_hex_digit(char c);

#endif
