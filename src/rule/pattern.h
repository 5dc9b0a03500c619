/*
 * pattern.h: a rule's Python snippet with metavariables, compiled into a
 * small tree the matcher walks.
 *
 * Metavariables: `$X` binds one node, `$$$ARGS` zero or more siblings, `$_`
 * and `$$$_` match without binding.  Names are [A-Z_][A-Z0-9_]*.  The snippet
 * is parsed with the same grammar as the files it matches (each `$` of a
 * metavariable is spelled as the identifier character U+00B5 for the parser,
 * the trick ast-grep uses), so a pattern that does not parse is an error.
 */
#ifndef MPSFIX_PATTERN_H
#define MPSFIX_PATTERN_H

#include <tree_sitter/api.h>

#include "common.h"
#include "literal.h"
#include "regex_check.h"

/** Constraints on what one metavariable may bind (a rule's `where:`). */
typedef struct mpsfix_constraint_s {
	char *metavar;          /* name without '$' (owned) */
	bool has_regex;         /* `regex:` POSIX extended, searched in the text */
	mpsfix_regex regex;
	char *regex_src;
	bool has_not_regex;     /* `not-regex:` */
	mpsfix_regex not_regex;
	char *not_regex_src;
	TSSymbol *kinds;        /* `kind:` any of these node kinds (owned) */
	size_t nkinds;
	mpsfix_literal *values; /* `value:` any of these literals (owned) */
	size_t nvalues;
	bool pure;              /* `pure: true`: the fix needs code safe to evaluate twice
				   (checked when the fix is rendered, not when matching;
				   in a fix case's `when:`, the code must be pure) */
	mpsfix_literal *not_values; /* `not-value:` none of these literals (owned) */
	size_t nnot_values;
	TSSymbol *not_kinds;    /* `not-kind:` none of these node kinds (owned) */
	size_t nnot_kinds;
	/*
	 * Checked after the match, not while binding (see cond.h): these need
	 * the whole match, a signature binding, or the matcher itself.
	 */
	int absent;             /* `absent:` 1 true (not passed), 0 false (passed), -1 unset */
	int with_item;          /* `with-item:` 1 true, 0 false, -1 unset */
	int statement;          /* `statement:` 1 true, 0 false, -1 unset */
	int opt_in;             /* `opt-in:` 1 true, 0 false, -1 unset: a command-line
				   switch off by default (argparse.h) */
	int used;               /* `used:` 1 true, 0 false, -1 unset: the value is used
				   for more than being printed or logged (uses.h) */
	struct mpsfix_pattern **is; /* `pattern:` the code matches one of these (owned) */
	size_t nis;
	struct mpsfix_pattern **not_is; /* `not-pattern:` the code matches none of these (owned) */
	size_t nnot_is;
	struct mpsfix_pattern **has; /* `has:` some node of the code matches one (owned) */
	size_t nhas;
	struct mpsfix_pattern **not_has; /* `not-has:` no node of the code matches any (owned) */
	size_t nnot_has;
	struct mpsfix_constraint_s *any_of; /* `any-of:` one of these holds (owned) */
	size_t nany_of;
} mpsfix_constraint;

/**
 * True when `node` satisfies the parts of `c` checked while matching
 * (value, not-value, regex, not-regex, kind, not-kind).  `regex` and
 * `not-regex` are tried on at most MPSFIX_REGEX_MAX_TEXT bytes: a longer node
 * satisfies neither (so that matching time stays bounded).
 */
bool mpsfix_constraint_accepts(const mpsfix_constraint *c, TSNode node, const char *src);

/** Free what a constraint owns (not the struct itself). */
void mpsfix_constraint_release(mpsfix_constraint *c);

typedef enum {
	MPSFIX_PN_NODE,   /* same symbol, children matched in order */
	MPSFIX_PN_LEAF,   /* same symbol and same text */
	MPSFIX_PN_STRING, /* a string literal, matched by value */
	MPSFIX_PN_META,   /* $X or $_ */
	MPSFIX_PN_MULTI,  /* $$$X or $$$_ */
	MPSFIX_PN_ARGS,   /* argument_list: keyword arguments in any order */
	MPSFIX_PN_QNAME   /* a dotted name (`torch.std_mean`): text is the qualified
			     name, matched through the file's imports */
} mpsfix_pnode_kind;

typedef struct mpsfix_pnode {
	mpsfix_pnode_kind kind;
	TSSymbol symbol;
	bool named_only;          /* NODE: compare named children only (lists) */
	char *text;               /* LEAF: token text; STRING: value; QNAME: dotted name (owned) */
	size_t text_len;
	int meta;                 /* META/MULTI: metavariable index, -1 for $_ */
	char *kwname;             /* a keyword_argument with a literal name */
	struct mpsfix_pnode **children;
	uint32_t nchildren;
} mpsfix_pnode;

typedef struct {
	char *name;   /* without the '$'s (owned) */
	bool multi;   /* written $$$NAME */
	const mpsfix_constraint *constraint; /* set by the rule loader, or NULL */
} mpsfix_metavar;

typedef struct mpsfix_pattern {
	char *text;              /* the pattern as written (owned) */
	mpsfix_pnode *root;
	mpsfix_metavar *metavars;
	size_t nmetavars;
} mpsfix_pattern;

/**
 * Compile `text`.  On a pattern that does not parse (or is not one
 * expression or statement, or uses one name both as $X and $$$X) returns
 * MPSFIX_ERROR with a message, and `*err_offset` is the byte offset in
 * `text` of the problem.
 */
int mpsfix_pattern_compile(mpsfix_pattern **out, TSParser *parser,
			   const char *text, size_t len, uint32_t *err_offset);

void mpsfix_pattern_free(mpsfix_pattern *p);

/** Index of metavariable `name` (without '$'), or -1. */
int mpsfix_pattern_metavar_index(const mpsfix_pattern *p, const char *name);

#endif
