/*
 * match.h: running a compiled pattern against a node of a source tree.
 */
#ifndef MPSFIX_MATCH_H
#define MPSFIX_MATCH_H

#include <tree_sitter/api.h>

#include "common.h"
#include "pattern.h"

typedef struct {
	bool bound;
	bool multi;
	TSNode node;            /* single: the node bound */
	uint32_t first, count;  /* multi: nodes[first .. first+count) of the match */
} mpsfix_binding;

typedef struct {
	const mpsfix_pattern *pattern;
	TSNode node;               /* the node the pattern root matched */
	mpsfix_binding *bindings;  /* one per pattern metavariable (owned) */
	TSNode *nodes;             /* storage of multi bindings (owned) */
	size_t nnodes;
	/* signature parameters bound by the fix (borrowed, not released here) */
	char *const *param_names;
	const mpsfix_binding *params;
	size_t nparams;
	mpsfix_binding whole;      /* $MATCH in a template: the node the pattern root matched */
} mpsfix_match;

#define MPSFIX_MATCH_INIT {NULL, {{0, 0, 0, 0}, NULL, NULL}, NULL, NULL, 0, NULL, NULL, 0, \
			   {false, false, {{0, 0, 0, 0}, NULL, NULL}, 0, 0}}

void mpsfix_match_release(mpsfix_match *m);

/**
 * The binding of metavariable `name` (without '$'), or of a signature
 * parameter of that name (possibly with `bound` false: not passed), or NULL.
 */
const mpsfix_binding *mpsfix_match_get(const mpsfix_match *m, const char *name);

/** As a template sees `name`: mpsfix_match_get(), and MATCH the whole match. */
const mpsfix_binding *mpsfix_match_var(const mpsfix_match *m, const char *name);

/** Scratch space for matching; one per thread. */
typedef struct mpsfix_matcher mpsfix_matcher;

mpsfix_matcher *mpsfix_matcher_new(void);
void mpsfix_matcher_free(mpsfix_matcher *m);

/**
 * Match `p` at `node` of a tree over `src`.  Returns 0 and fills `out` (to be
 * released by the caller) on a match, MPSFIX_ENOMATCH otherwise.
 * Whitespace, comments and line continuations between tokens do not matter;
 * keyword arguments match in any order; strings match by value; a
 * metavariable used twice must bind structurally equal code; constraints
 * attached to metavariables are checked as they bind.
 */
int mpsfix_match_node(mpsfix_match *out, mpsfix_matcher *m,
		      const mpsfix_pattern *p, TSNode node, const char *src);

/**
 * As mpsfix_match_node(), for an `inside` pattern around the match
 * `match`: where `p` uses $MATCH, it binds `match` itself (parentheses
 * aside), not equal code elsewhere, so that matching goes on to the
 * binding that holds it (in `def f(a="cuda", device="cuda")`, the second
 * default).
 */
int mpsfix_match_node_pinned(mpsfix_match *out, mpsfix_matcher *m, const mpsfix_pattern *p, TSNode node,
			     const char *src, TSNode match);

struct mpsfix_names;

/**
 * The import table of the tree being matched, for dotted names in patterns
 * (NULL: dotted names match their own spelling only).  Borrowed.
 */
void mpsfix_matcher_set_names(mpsfix_matcher *m, struct mpsfix_names *names);

/**
 * True when a dotted name of a pattern met a name that a star import
 * (`from torch import *`) may define, since the last call of
 * mpsfix_matcher_set_names(); such names are not matched.
 */
bool mpsfix_matcher_star_seen(const mpsfix_matcher *m);

/** True when the last mpsfix_match_node() gave up (too many steps) rather than failed. */
bool mpsfix_matcher_gave_up(const mpsfix_matcher *m);

/** True when two nodes are the same code up to whitespace and comments. */
bool mpsfix_nodes_equal(TSNode a, TSNode b, const char *src);

#endif
