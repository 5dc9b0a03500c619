/*
 * fix_check.h: whether the fixed text parses as well as the original, and
 * which fixes are to blame when it does not.  One fix that cannot be
 * written (a statement template in a one-line suite continued with a
 * backslash) must not hold back the others of the file.
 */
#ifndef MPSFIX_FIX_CHECK_H
#define MPSFIX_FIX_CHECK_H

#include <tree_sitter/api.h>

#include "common.h"
#include "edit.h"

/**
 * tree-sitter's error recovery is not local: a fix can change how code far
 * from it parses around a syntax error, and so whether a match there is
 * "inside a syntax error".  A later pass would then fix code the first
 * parse called broken, which no finding reported.  Do the ERROR and
 * MISSING nodes away from the applied edits of `edits` (their `applied`
 * flags) differ between the text before (`old`) and after them (`now`)?
 */
bool mpsfix_fix_errors_moved(TSNode old, TSNode now, const mpsfix_edits *edits);

/**
 * Which of the fixes (groups) of `edits` that were applied together
 * (their `applied` flags) to `text` (`len` bytes, named `path`, whose tree
 * `root` has `base_errors` syntax errors) make it parse worse on their own
 * (found by halving the set that does, some 2 log n parses a fix to blame;
 * fixes that fail only together are not blamed):
 * more syntax errors (bad[g] = MPSFIX_FIX_BREAKS_PARSE), or its errors
 * moved (above: MPSFIX_FIX_MOVES_ERRORS), for each such group g (<
 * `ngroups`; `bad` is not cleared first); `*nbad` gets their number.
 * Returns 0, or below 0 when a parse fails outright (mpsfix_parse_named()).
 */
#define MPSFIX_FIX_BREAKS_PARSE 1
#define MPSFIX_FIX_MOVES_ERRORS 2

int mpsfix_fix_bad_groups(TSParser *parser, const char *path, const char *text, size_t len, TSNode root,
			  uint32_t base_errors, const mpsfix_edits *edits, unsigned char *bad, size_t ngroups,
			  size_t *nbad);

#endif
