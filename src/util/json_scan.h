/*
 * json_scan.h: JSON read as bytes, without decoding it: whether a text is
 * JSON at all (RFC 8259, in UTF-8), and a walk over a valid text that tells
 * where each member and element lies, so that a caller decodes only the
 * values it needs (a notebook's cell sources, not its megabytes of
 * outputs).  A leaf module: it needs nothing of mpsfix but common.h.
 */
#ifndef MPSFIX_JSON_SCAN_H
#define MPSFIX_JSON_SCAN_H

#include "common.h"

/**
 * Is the `len` bytes at `data` one JSON value with white space around it,
 * its strings valid UTF-8?  When not, *at is the offset of the first byte
 * that cannot be there (len when the text ends too early) and *why says
 * what was expected.  Nesting depth is bounded only by the length.
 */
bool mpsfix_json_valid(const char *data, size_t len, size_t *at, const char **why);

/** A walk over a text mpsfix_json_valid accepts: `i` is the offset reached. */
typedef struct {
	const char *s;
	size_t len, i;
} mpsfix_json_walk;

/** Past white space; then true when the next byte is `c` (which is passed too). */
bool mpsfix_json_take(mpsfix_json_walk *w, char c);

/** Past one value (white space before it too); its bytes are [*start, w->i). */
void mpsfix_json_skip(mpsfix_json_walk *w, size_t *start);

/**
 * At a member of an object (after '{' or ','): its key's bytes between the
 * quotes, as written, in [*start, *end); past the key and its ':'.
 */
void mpsfix_json_key(mpsfix_json_walk *w, size_t *start, size_t *end);

#endif
