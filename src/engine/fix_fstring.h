/*
 * fix_fstring.h: a fix inside an f-string's replacement field, written as
 * Python before 3.12 reads it.  Before PEP 701 (Python 3.12) the expression
 * of `f"{...}"` may not hold the string's own quote (a one-quoted string's:
 * `f"{x.to(d, non_blocking=not str(d).startswith("mps"))}"` ends the string
 * at the second `"`), a backslash, a `#`, nor (one-quoted) a line break.
 * tree-sitter's grammar reads the 3.12 form, so the re-parse of the fixed
 * text does not catch it.
 */
#ifndef MPSFIX_FIX_FSTRING_H
#define MPSFIX_FIX_FSTRING_H

#include <tree_sitter/api.h>

#include "common.h"
#include "edit.h"

/**
 * Make the `n` edits `items` of one fix (over text `src`, whose tree is
 * `root`) fit the f-strings they lie in: where an edit's text holds the
 * quote of a one-quoted f-string around it, and not the other quote, its
 * quotes are swapped (`"mps"` becomes `'mps'` in `f"{...}"`).  Returns why
 * the fix cannot be written so (both quotes are taken, by nested f-strings
 * or by the text; a backslash, a `#` or a line break; a field `{expr=}`,
 * which prints the expression's own text), or NULL.  The caller
 * frees the text.  `*fstrings` keeps whether the text may hold f-strings
 * at all (0 at first: it is looked for once, a byte scan).
 */
char *mpsfix_fix_fstring(TSNode root, const char *src, mpsfix_edit *items, size_t n, signed char *fstrings);

#endif
