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

#endif
