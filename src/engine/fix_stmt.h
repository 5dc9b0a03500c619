/*
 * fix_stmt.h: where a fix's statements go.  A template of statements (an
 * `if` block, several statements) replaces a whole statement: in place when
 * the statement has its lines to itself (a comment may follow it), or on
 * lines of its own when the statement is the whole block of a compound
 * statement, on that statement's line (`if c: x()` becomes `if c:` and the
 * new lines, one step deeper).  The lines take the file's indentation step.
 */
#ifndef MPSFIX_FIX_STMT_H
#define MPSFIX_FIX_STMT_H

#include <tree_sitter/api.h>

#include "common.h"
#include "source.h"
#include "template.h"

typedef struct {
	uint32_t start;         /* where the edit starts: the statement, or the end
				   of the `:` before it */
	char *prefix;           /* written before the rendered text: "", or a line
				   ending and the indentation (owned) */
	char *indent;           /* the indentation of the rendered lines (owned) */
	mpsfix_template_layout layout; /* points into indent and the source */
} mpsfix_stmt_place;

/**
 * Place the statements that replace `target` (which must be a whole
 * statement, or the only expression of one): fills `*out` and returns NULL,
 * or returns why they cannot go there (malloc'd): the target is part of a
 * statement, or shares its line with other statements (`a = 1; x()`).
 * The edit is [out->start, end of target).
 */
char *mpsfix_fix_place_statements(const mpsfix_source *src, TSNode target, mpsfix_stmt_place *out);

void mpsfix_stmt_place_release(mpsfix_stmt_place *p);

#endif
