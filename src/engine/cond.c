/*
 * cond.c: the conditions of a rule that are checked after its pattern
 * matched (see cond.h).
 */
#include "cond.h"

#include <stdlib.h>
#include <string.h>

#include "argparse.h"
#include "parse.h"
#include "uses.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static bool is_param(const char *name)
{
	return mpsfix_rule_is_param(name);
}

/* Does pattern `p` match at `node`? */
static bool matches_at(const mpsfix_cond_ctx *cx, const mpsfix_pattern *p, TSNode node,
		       mpsfix_match *keep, const TSNode *pin)
{
	mpsfix_match mm = MPSFIX_MATCH_INIT;

	if (!cx->matcher ||
	    (pin ? mpsfix_match_node_pinned(&mm, cx->matcher, p, node, cx->src, *pin)
		 : mpsfix_match_node(&mm, cx->matcher, p, node, cx->src)) != 0)
		return false;
	if (keep)
		*keep = mm;
	else
		mpsfix_match_release(&mm);
	return true;
}

static bool matches_one(const mpsfix_cond_ctx *cx, mpsfix_pattern *const *ps, size_t n, TSNode node)
{
	for (size_t i = 0; i < n; i++)
		if (matches_at(cx, ps[i], node, NULL, NULL))
			return true;
	return false;
}

typedef struct {
	const mpsfix_cond_ctx *cx;
	mpsfix_pattern *const *ps;
	size_t n;
	bool found;
} has_scan;

static mpsfix_walk_action has_at(TSNode n, void *payload)
{
	has_scan *hs = payload;

	if (hs->found)
		return MPSFIX_WALK_STOP;
	if (ts_node_is_named(n) && matches_one(hs->cx, hs->ps, hs->n, n)) {
		hs->found = true;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

/* Does `node` or some node inside it match one of the patterns? */
static bool has_match(const mpsfix_cond_ctx *cx, mpsfix_pattern *const *ps, size_t n, TSNode node)
{
	has_scan hs = {cx, ps, n, false};

	mpsfix_walk(node, has_at, &hs);
	return hs.found;
}

/* Is `node` the value of a `with` item: `with NODE:`, `with NODE as x:`, `with (NODE):`? */
static bool with_item(TSNode node)
{
	TSNode p = ts_node_parent(node);

	while (is(p, "parenthesized_expression")) {
		node = p;
		p = ts_node_parent(p);
	}
	if (is(p, "as_pattern") && ts_node_eq(ts_node_named_child(p, 0), node)) {
		node = p;
		p = ts_node_parent(p);
	}
	return is(p, "with_item");
}

/*
 * Is `node` a whole statement: the only expression of an expression
 * statement (`x.pin_memory()` on its own, not `y = x.pin_memory()` nor
 * `(x.pin_memory())`)?
 */
static bool whole_statement(TSNode node)
{
	TSNode p = ts_node_parent(node);
	uint32_t n = 0;

	if (!is(p, "expression_statement"))
		return false;
	for (uint32_t i = 0; i < ts_node_named_child_count(p); i++)
		n += !ts_node_is_extra(ts_node_named_child(p, i));
	return n == 1;
}

static bool has_positive_parts(const mpsfix_constraint *c)
{
	return c->nvalues || c->nkinds || c->has_regex || c->nis || c->nhas || c->with_item == 1 ||
	       c->statement == 1 || c->opt_in == 1 || c->used == 1;
}

void mpsfix_cond_memo_release(mpsfix_cond_memo *m)
{
	mpsfix_argparse_release(&m->argparse);
	mpsfix_uses_memo_release(&m->uses);
}

/* Is `node` a command-line switch off by default (argparse.h)? */
static bool opt_in(const mpsfix_cond_ctx *cx, TSNode node)
{
	mpsfix_argparse once = MPSFIX_ARGPARSE_INIT;
	bool yes;

	if (cx->memo)
		return mpsfix_argparse_opt_in(&cx->memo->argparse, cx->src, cx->root, node);
	yes = mpsfix_argparse_opt_in(&once, cx->src, cx->root, node);
	mpsfix_argparse_release(&once);
	return yes;
}

static bool holds(const mpsfix_cond_ctx *cx, const mpsfix_constraint *c, bool bound, TSNode node,
		  bool full, bool pure_now)
{
	if (!bound) {
		if (c->absent >= 0)
			return c->absent == 1;
		if (has_positive_parts(c))
			return false;
		for (size_t i = 0; i < c->nany_of; i++)
			if (holds(cx, &c->any_of[i], false, node, full, pure_now))
				return true;
		return c->nany_of == 0;
	}
	if (c->absent == 1)
		return false;
	if (full && !mpsfix_constraint_accepts(c, node, cx->src))
		return false;
	if (pure_now && c->pure && !mpsfix_node_pure(node, cx->src))
		return false;
	if (c->with_item >= 0 && with_item(node) != (c->with_item == 1))
		return false;
	if (c->statement >= 0 && whole_statement(node) != (c->statement == 1))
		return false;
	if (c->opt_in >= 0 && opt_in(cx, node) != (c->opt_in == 1))
		return false;
	if (c->used >= 0 &&
	    mpsfix_uses_used(cx->memo ? &cx->memo->uses : NULL, cx->names, cx->src, node) != (c->used == 1))
		return false;
	if (c->nis && !matches_one(cx, c->is, c->nis, node))
		return false;
	if (c->nhas && !has_match(cx, c->has, c->nhas, node))
		return false;
	if (c->nnot_has && has_match(cx, c->not_has, c->nnot_has, node))
		return false;
	if (c->nnot_is && matches_one(cx, c->not_is, c->nnot_is, node))
		return false;
	for (size_t i = 0; i < c->nany_of; i++)
		if (holds(cx, &c->any_of[i], true, node, true, pure_now))
			return true;
	return c->nany_of == 0;
}

bool mpsfix_cond_holds(const mpsfix_cond_ctx *cx, const mpsfix_constraint *c,
		       const mpsfix_match *m, bool full, bool pure_now)
{
	const mpsfix_binding *b;

	if (!strcmp(c->metavar, "MATCH"))
		return holds(cx, c, true, m->node, true, pure_now);
	b = mpsfix_match_get(m, c->metavar);
	if (!b && !is_param(c->metavar))
		return true; /* a metavariable this pattern does not bind */
	if (b && b->multi)
		return false;
	return holds(cx, c, b && b->bound, b ? b->node : (TSNode){0},
		     full || is_param(c->metavar), pure_now);
}

bool mpsfix_rule_constrains_params(const mpsfix_rule *r)
{
	for (size_t k = 0; k < r->nconstraints; k++)
		if (is_param(r->constraints[k].metavar))
			return true;
	return false;
}

/* Do the metavariables that `mm` and `m` both bind bind the same code? */
static bool same_bindings(const mpsfix_match *mm, const mpsfix_match *m, const char *src)
{
	for (size_t i = 0; i < mm->pattern->nmetavars; i++) {
		const mpsfix_binding *a = &mm->bindings[i];
		const mpsfix_binding *b = mpsfix_match_get(m, mm->pattern->metavars[i].name);

		if (!a->bound || !b || !b->bound || !strcmp(mm->pattern->metavars[i].name, "MATCH"))
			continue;
		/* as within one pattern: $X and a $$$X of one node may be the same */
		if ((a->multi ? a->count : 1) != (b->multi ? b->count : 1))
			return false;
		for (uint32_t k = 0; k < (a->multi ? a->count : 1); k++)
			if (!mpsfix_nodes_equal(a->multi ? mm->nodes[a->first + k] : a->node,
						b->multi ? m->nodes[b->first + k] : b->node, src))
				return false;
	}
	return true;
}

/*
 * Does an enclosing node of the match `m` match one of `ps`, with $MATCH,
 * if used, bound to the match, and every other metavariable the match
 * binds too bound to the same code?  With `r`, the parts of r's `where` on
 * the metavariables an inside pattern binds that need the matcher or the
 * tree (pattern, has, not-has, with-item, statement, opt-in, used, any-of) hold too: matching
 * checked the others.
 */
static bool inside(const mpsfix_cond_ctx *cx, mpsfix_pattern *const *ps, size_t n,
		   const mpsfix_match *m, const mpsfix_rule *r)
{
	TSNode node = m->node;
	mpsfix_ancestors up = {0};
	bool found = false;

	mpsfix_ancestors_of(node, &up);
	for (size_t u = up.len; u-- > 0 && !found;) {
		TSNode a = up.items[u];

		for (size_t i = 0; i < n && !found; i++) {
			mpsfix_match mm = MPSFIX_MATCH_INIT;
			const mpsfix_binding *b;
			bool ok;

			if (!matches_at(cx, ps[i], a, &mm, &node))
				continue;
			b = mpsfix_match_get(&mm, "MATCH");
			ok = (!b || (b->bound && !b->multi && ts_node_eq(mpsfix_unparenthesized(b->node), node))) &&
			     same_bindings(&mm, m, cx->src);
			for (size_t k = 0; r && ok && k < r->nconstraints; k++) {
				const mpsfix_constraint *c = &r->constraints[k];

				if (strcmp(c->metavar, "MATCH") && !is_param(c->metavar) &&
				    (b = mpsfix_match_get(&mm, c->metavar)) && !b->multi)
					ok = holds(cx, c, true, b->node, false, false);
			}
			mpsfix_match_release(&mm);
			found = ok;
		}
	}
	free(up.items);
	return found;
}

/* A statement directly in the module, after its first import of `module`? */
static bool after_import(const mpsfix_cond_ctx *cx, TSNode node, const char *module)
{
	TSNode imp = mpsfix_first_import_of(cx->root, cx->src, module), st = node;

	if (ts_node_is_null(imp))
		return false;
	while (!ts_node_is_null(ts_node_parent(st)) && !ts_node_eq(ts_node_parent(st), cx->root))
		st = ts_node_parent(st);
	if (ts_node_is_null(ts_node_parent(st)))
		return false;
	/* the match is the statement, or the only expression of one */
	if (!ts_node_eq(st, node) &&
	    !(is(st, "expression_statement") && ts_node_named_child_count(st) == 1 &&
	      ts_node_eq(ts_node_named_child(st, 0), node)))
		return false;
	return ts_node_start_byte(imp) < ts_node_start_byte(st);
}

bool mpsfix_cond_metavars(const mpsfix_cond_ctx *cx, const mpsfix_rule *r, const mpsfix_match *m)
{
	for (size_t k = 0; k < r->nconstraints; k++)
		if (!is_param(r->constraints[k].metavar) &&
		    !mpsfix_cond_holds(cx, &r->constraints[k], m, false, false))
			return false;
	return true;
}

bool mpsfix_cond_rule(const mpsfix_cond_ctx *cx, const mpsfix_rule *r, const mpsfix_match *m)
{
	for (size_t k = 0; k < r->nconstraints; k++)
		if (is_param(r->constraints[k].metavar) &&
		    !mpsfix_cond_holds(cx, &r->constraints[k], m, false, false))
			return false;
	if (r->ninside && !inside(cx, r->inside, r->ninside, m, r))
		return false;
	if (r->nnot_inside && inside(cx, r->not_inside, r->nnot_inside, m, r))
		return false;
	if (r->after_import && !after_import(cx, m->node, r->after_import))
		return false;
	return true;
}

const mpsfix_fix_case *mpsfix_cond_case(const mpsfix_cond_ctx *cx, const mpsfix_rule *r,
					const mpsfix_match *m, mpsfix_torch_range target)
{
	for (size_t c = 0; c < r->fix.ncases; c++) {
		const mpsfix_fix_case *fc = &r->fix.cases[c];
		bool ok = !fc->has_torch || mpsfix_torch_range_within(target, fc->torch);

		for (size_t k = 0; k < fc->nwhen && ok; k++)
			ok = mpsfix_cond_holds(cx, &fc->when[k], m, true, true);
		if (ok)
			return fc;
	}
	return NULL;
}
