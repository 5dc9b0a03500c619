/*
 * cond.h: what a rule asks of a match beyond its pattern, checked once the
 * match is complete: constraints on signature parameters and on the whole
 * match (MATCH), the parts of a constraint that need the matcher or the
 * tree (pattern, has, not-has, with-item, statement, opt-in, used, any-of), the rule's
 * `inside`, `not-inside` and `after-import`, and the `when` of each fix
 * case.
 */
#ifndef MPSFIX_COND_H
#define MPSFIX_COND_H

#include <tree_sitter/api.h>

#include "argparse.h"
#include "common.h"
#include "match.h"
#include "rule.h"
#include "uses.h"

/*
 * What the conditions found out about one text, kept for its next
 * questions; release it when the text changes.
 */
typedef struct {
	mpsfix_argparse argparse;  /* the switches the text declares (`opt-in:`) */
	mpsfix_uses_memo uses;     /* what its functions read (`used:`) */
} mpsfix_cond_memo;

#define MPSFIX_COND_MEMO_INIT {MPSFIX_ARGPARSE_INIT, MPSFIX_USES_MEMO_INIT}

void mpsfix_cond_memo_release(mpsfix_cond_memo *m);

typedef struct {
	mpsfix_matcher *matcher;   /* scratch for sub-patterns; names already set */
	const char *src;
	TSNode root;               /* the module */
	mpsfix_names *names;       /* its imports (may be NULL) */
	mpsfix_cond_memo *memo;    /* NULL: read anew at each question */
} mpsfix_cond_ctx;

/**
 * Does constraint `c` hold for what `m` binds to its name?  A signature
 * parameter that was not passed satisfies `absent: true`, `not-value`,
 * `not-kind`, `not-regex`, `not-has` and `pure`, and nothing else.  With
 * `full` false the parts checked while matching (value, kind, regex and
 * their negations) are taken as checked.  With `pure_now`, `pure: true`
 * asks the code to be pure now (a case's `when`); otherwise it is the fix's
 * business.
 */
bool mpsfix_cond_holds(const mpsfix_cond_ctx *cx, const mpsfix_constraint *c,
		       const mpsfix_match *m, bool full, bool pure_now);

/** True when the rule constrains a signature parameter in `where`. */
bool mpsfix_rule_constrains_params(const mpsfix_rule *r);

/**
 * Does match `m` meet the rule's `where` on its metavariables and on MATCH?
 * These need no signature binding, so they are checked first (they are
 * cheaper than binding a call).
 */
bool mpsfix_cond_metavars(const mpsfix_cond_ctx *cx, const mpsfix_rule *r, const mpsfix_match *m);

/**
 * Does match `m` (with the signature binding in m->params, when the rule
 * has a signature and the call could be bound) meet the rule's `where` on
 * signature parameters, and its `inside`, `not-inside` and `after-import`?
 * The metavariables' conditions are mpsfix_cond_metavars()'s.
 */
bool mpsfix_cond_rule(const mpsfix_cond_ctx *cx, const mpsfix_rule *r, const mpsfix_match *m);

/**
 * The first case of r's fix whose `when` holds for `m`, or NULL; a case
 * with `torch:` holds only when that range holds all of `target`, the
 * file's torch versions.
 */
const mpsfix_fix_case *mpsfix_cond_case(const mpsfix_cond_ctx *cx, const mpsfix_rule *r,
					const mpsfix_match *m, mpsfix_torch_range target);

#endif
