/*
 * pattern_internal.h: the snippet parser that pattern.c and template.c
 * share.  A pattern or template is parsed with the grammar of the files it
 * applies to, so each '$' of a metavariable is spelt as U+00B5 (an
 * identifier character) first, and offsets in the parsed text are mapped
 * back to the snippet as written.  Not for use outside pattern.c and
 * template.c.
 */
#ifndef MPSFIX_PATTERN_INTERNAL_H
#define MPSFIX_PATTERN_INTERNAL_H

#include <tree_sitter/api.h>

#include "common.h"

/**
 * Shared by pattern and template compilation: copy `text` into `out` with
 * each metavariable's '$' (one, or three for $$$) spelled as U+00B5, and
 * record in `offsets` (out[i] -> text offset) enough to map back.  Returns 0
 * or MPSFIX_ERROR for a malformed metavariable ("$x", "$$X").
 */
typedef struct {
	uint32_t *map;     /* for each byte of the substituted text: offset in the original */
	size_t len;
} mpsfix_offset_map;

int mpsfix_pattern__metavar_substitute(mpsfix_buf *out, mpsfix_offset_map *map,
				       const char *text, size_t len, uint32_t *err_offset);
void mpsfix_pattern__offset_map_release(mpsfix_offset_map *m);

/** A pattern or template snippet, parsed with its metavariables substituted. */
typedef struct {
	mpsfix_buf text;          /* the substituted text that was parsed */
	mpsfix_offset_map map;    /* back to offsets in the snippet as written */
	TSTree *tree;
} mpsfix_snippet;

/**
 * Substitute and parse `text`.  A snippet that does not parse is an error
 * ("syntax error", "missing token", or a word on a misspelt metavariable)
 * with `*err_offset` at the problem in `text`.  Release `out` either way.
 */
int mpsfix_pattern__snippet_parse(mpsfix_snippet *out, TSParser *parser, const char *text,
				  size_t len, uint32_t *err_offset);
void mpsfix_pattern__snippet_release(mpsfix_snippet *s);

/**
 * If the identifier text [s, s+n) is a substituted metavariable, return true
 * with its name (without markers) in [*name, *name + *name_len) and whether
 * it was written $$$.  "_" is the anonymous name.
 */
bool mpsfix_pattern__metavar_ident(const char *s, size_t n, const char **name,
				   size_t *name_len, bool *multi);

#endif
