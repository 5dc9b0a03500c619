/*
 * template.h: a fix's Python snippet with metavariables, rendered from the
 * bytes a match bound.
 *
 * Rendering keeps the original bytes of every bound node (comments inside
 * included); a `$$$ARGS` bound to adjacent nodes keeps the separators
 * between them, and one bound to nothing takes one neighbouring comma with
 * it; a bound node is parenthesized when the template's context binds
 * tighter than the node; a multi-line template is re-indented to the
 * indentation of the line where the replaced code starts, each step of its
 * own indentation written as the file's step (tabs, two or four spaces),
 * with the file's own line ending.
 */
#ifndef MPSFIX_TEMPLATE_H
#define MPSFIX_TEMPLATE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "match.h"
#include "source.h"

typedef struct mpsfix_template mpsfix_template;

/** A list of byte ranges of the source. */
typedef struct {
	mpsfix_span *items;
	size_t len, cap;
} mpsfix_spans;

/**
 * Compile `text`.  A template that does not parse returns MPSFIX_ERROR with a
 * message and `*err_offset` set to the offset of the problem in `text`.
 */
int mpsfix_template_compile(mpsfix_template **out, TSParser *parser,
			    const char *text, size_t len, uint32_t *err_offset);

void mpsfix_template_free(mpsfix_template *t);

/** The text as written. */
const char *mpsfix_template_text(const mpsfix_template *t);

/** Metavariables the template uses: count, then name/multi/offset of each use. */
size_t mpsfix_template_metavar_count(const mpsfix_template *t);
const char *mpsfix_template_metavar(const mpsfix_template *t, size_t i,
				    bool *multi, uint32_t *offset);

/**
 * True when metavariable uses `a` and `b` are in different branches of one
 * conditional expression of the template (`$X.f() if c else $X`): at most
 * one of them is evaluated.
 */
bool mpsfix_template_exclusive(const mpsfix_template *t, size_t a, size_t b);

/**
 * The dotted names the template spells (`torch.cuda.is_available`, without
 * metavariables), in text order: the caller finds how the file spells each.
 */
size_t mpsfix_template_qname_count(const mpsfix_template *t);
const char *mpsfix_template_qname(const mpsfix_template *t, size_t i);

/**
 * Render `t` for match `m` over `src`, as the replacement of `target` (the
 * whole match or one bound node; it decides indentation and whether the
 * result needs parentheses).  `spellings` (one per dotted name of the
 * template, or NULL: as written) replace the dotted names.  Appends to
 * `out`; appends to `kept` (if not NULL) every source range whose bytes were
 * copied.  Returns 0, or MPSFIX_ERROR if the template names a metavariable
 * the match did not bind, or holds statements and `target` does not start
 * its line.
 */
int mpsfix_template_render(mpsfix_buf *out, mpsfix_spans *kept,
			   const mpsfix_template *t, const mpsfix_match *m,
			   const mpsfix_source *src, TSNode target, char *const *spellings);

/** Where the lines of a rendered template go. */
typedef struct {
	const char *indent;     /* written after each line break of the template */
	size_t indent_len;
	const char *step;       /* the file's indentation step: each step of the
				   template's own indentation is written as one (NULL:
				   the template's blanks are copied) */
	size_t step_len;
} mpsfix_template_layout;

/**
 * mpsfix_template_render() with the lines placed by `layout`, and no test
 * of where `target` stands: the caller has placed the template's
 * statements (see fix_stmt.h).
 */
int mpsfix_template_render_at(mpsfix_buf *out, mpsfix_spans *kept,
			      const mpsfix_template *t, const mpsfix_match *m,
			      const mpsfix_source *src, TSNode target, char *const *spellings,
			      const mpsfix_template_layout *layout);

/** True when the template is statements: several, or a compound one (`if c: ...`). */
bool mpsfix_template_is_statements(const mpsfix_template *t);

/**
 * Whether the template is an expression in parentheses: 1 a tuple
 * `(a, b)`, 2 another expression `(a if c else b)`, 0 neither.
 */
int mpsfix_template_parenthesized(const mpsfix_template *t);

/**
 * Precedence of an expression node (higher binds tighter), as used for
 * parenthesization: 0 lambda ... 16 primary.  Exposed for tests.
 */
int mpsfix_expr_precedence(TSNode node, const char *src);

#endif
