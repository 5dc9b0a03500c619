/*
 * engine.c: rules over one file — matching, rendering fixes, passes of edits
 * and the re-parse guard.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "parse.h"

typedef struct {
	const mpsfix_rule *rule;
	const mpsfix_pattern *pattern;
	uint32_t order;   /* position of the rule in the index, to keep rules apart */
} index_entry;

struct mpsfix_index {
	index_entry *entries;   /* grouped by root symbol */
	uint32_t *first;        /* entries of symbol s: [first[s], first[s+1]) */
	uint32_t nsymbols;
};

mpsfix_index *mpsfix_index_new(mpsfix_rule *const *rules, size_t n)
{
	mpsfix_index *ix = mpsfix_xcalloc(1, sizeof(*ix));
	uint32_t total = 0, *fill;

	ix->nsymbols = ts_language_symbol_count(mpsfix_language());
	ix->first = mpsfix_xcalloc(ix->nsymbols + 1, sizeof(uint32_t));
	for (size_t r = 0; r < n; r++)
		for (size_t p = 0; p < rules[r]->npatterns; p++) {
			TSSymbol s = rules[r]->patterns[p]->root->symbol;

			if (s < ix->nsymbols) {
				ix->first[s + 1]++;
				total++;
			}
		}
	for (uint32_t s = 0; s < ix->nsymbols; s++)
		ix->first[s + 1] += ix->first[s];
	ix->entries = mpsfix_xcalloc(total ? total : 1, sizeof(index_entry));
	fill = mpsfix_xcalloc(ix->nsymbols + 1, sizeof(uint32_t));
	for (size_t r = 0; r < n; r++)
		for (size_t p = 0; p < rules[r]->npatterns; p++) {
			TSSymbol s = rules[r]->patterns[p]->root->symbol;

			if (s < ix->nsymbols)
				ix->entries[ix->first[s] + fill[s]++] = (index_entry){
					.rule = rules[r], .pattern = rules[r]->patterns[p], .order = (uint32_t)r,
				};
		}
	free(fill);
	return ix;
}

void mpsfix_index_free(mpsfix_index *ix)
{
	if (!ix)
		return;
	free(ix->entries);
	free(ix->first);
	free(ix);
}

int mpsfix_ctx_init(mpsfix_ctx *ctx)
{
	int error;

	ctx->matcher = NULL;
	if ((error = mpsfix_parser_new(&ctx->parser)) < 0)
		return error;
	ctx->matcher = mpsfix_matcher_new();
	return 0;
}

void mpsfix_ctx_release(mpsfix_ctx *ctx)
{
	if (ctx->parser)
		ts_parser_delete(ctx->parser);
	mpsfix_matcher_free(ctx->matcher);
	ctx->parser = NULL;
	ctx->matcher = NULL;
}

static void findings_release(mpsfix_result *r)
{
	for (size_t i = 0; i < r->len; i++)
		free(r->items[i].reason);
	free(r->items);
	r->items = NULL;
	r->len = r->cap = 0;
}

void mpsfix_result_release(mpsfix_result *r)
{
	if (!r)
		return;
	findings_release(r);
	free(r->text);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	memset(r, 0, sizeof(*r));
}

static void add_warning(mpsfix_result *r, char *message)
{
	r->warnings = mpsfix_xrealloc(r->warnings, (r->nwarnings + 1) * sizeof(char *));
	r->warnings[r->nwarnings++] = message;
}

/* ---- facts about a file --------------------------------------------------- */

static bool is(TSNode n, const char *type)
{
	return strcmp(ts_node_type(n), type) == 0;
}

static bool text_is(TSNode n, const char *src, const char *s)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);

	return strlen(s) == b - a && memcmp(src + a, s, b - a) == 0;
}

/* Does `import torch` (or `import torch.x`, `import x as torch`) bind the
 * name torch at module level (directly, or in a top-level try/if block)? */
static bool statement_binds_torch(TSNode stmt, const char *src)
{
	if (!is(stmt, "import_statement"))
		return false;
	for (uint32_t i = 0; i < ts_node_named_child_count(stmt); i++) {
		TSNode name = ts_node_named_child(stmt, i);

		if (is(name, "dotted_name") && ts_node_named_child_count(name) > 0 &&
		    text_is(ts_node_named_child(name, 0), src, "torch"))
			return true;
		if (is(name, "aliased_import")) {
			TSNode alias = ts_node_child_by_field_name(name, "alias", 5);

			if (!ts_node_is_null(alias) && text_is(alias, src, "torch"))
				return true;
		}
	}
	return false;
}

static bool block_binds_torch(TSNode block, const char *src, int depth)
{
	for (uint32_t i = 0; i < ts_node_named_child_count(block); i++) {
		TSNode s = ts_node_named_child(block, i);

		if (statement_binds_torch(s, src))
			return true;
		if (depth < 2 && (is(s, "try_statement") || is(s, "if_statement") ||
				  is(s, "block") || is(s, "else_clause") || is(s, "except_clause")) &&
		    block_binds_torch(s, src, depth + 1))
			return true;
	}
	return false;
}

/* Does the template spell the bare name `torch` (not as an attribute)? */
static bool template_uses_torch(const mpsfix_template *t)
{
	const char *text = mpsfix_template_text(t), *p = text;

	while ((p = strstr(p, "torch")) != NULL) {
		char before = p == text ? ' ' : p[-1], after = p[5];
		bool ident_before = before == '_' || before == '.' || before == '$' ||
				    (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
				    (before >= '0' && before <= '9');
		bool ident_after = after == '_' || (after >= 'a' && after <= 'z') ||
				   (after >= 'A' && after <= 'Z') || (after >= '0' && after <= '9');

		if (!ident_before && !ident_after)
			return true;
		p += 5;
	}
	return false;
}

/* ---- one pass: findings and their edits ----------------------------------- */

typedef struct {
	mpsfix_ctx *ctx;
	const mpsfix_index *ix;
	const mpsfix_source *src;
	TSNode root;
	const mpsfix_engine_opts *opts;
	mpsfix_result *result;   /* findings are appended here */
	mpsfix_edits *edits;     /* fixes that may be applied */
	int torch_bound;         /* -1 unknown, else 0/1 */
} pass;

static bool file_binds_torch(pass *ps)
{
	if (ps->torch_bound < 0)
		ps->torch_bound = block_binds_torch(ps->root, ps->src->data, 0);
	return ps->torch_bound;
}

typedef struct {
	uint32_t s, e;
	const mpsfix_spans *kept;
} comment_scan;

static mpsfix_walk_action find_dropped_comment(TSNode n, void *payload)
{
	const comment_scan *cs = payload;
	uint32_t ns = ts_node_start_byte(n), ne = ts_node_end_byte(n);

	if (ns >= cs->e || ne <= cs->s)
		return MPSFIX_WALK_SKIP;
	if (is(n, "comment") && ns >= cs->s && ne <= cs->e) {
		for (size_t i = 0; cs->kept && i < cs->kept->len; i++)
			if (cs->kept->items[i].start <= ns && ne <= cs->kept->items[i].end)
				return MPSFIX_WALK_SKIP;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

/* Is there a comment in [s, e) under `scope` outside every kept span? */
static bool drops_comment(TSNode scope, uint32_t s, uint32_t e, const mpsfix_spans *kept)
{
	comment_scan cs = {s, e, kept};

	return !mpsfix_walk(scope, find_dropped_comment, &cs);
}

static bool list_like(TSNode n)
{
	static const char *const kinds[] = {
		"argument_list", "list", "tuple", "set", "dictionary", "expression_list",
		"parameters", "lambda_parameters",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(kinds); i++)
		if (is(n, kinds[i]))
			return true;
	return false;
}

static TSNode sibling_token(TSNode n, bool forward)
{
	TSNode p = forward ? ts_node_next_sibling(n) : ts_node_prev_sibling(n);

	while (!ts_node_is_null(p) && ts_node_is_extra(p))
		p = forward ? ts_node_next_sibling(p) : ts_node_prev_sibling(p);
	return p;
}

/* The bytes to delete to remove the list element holding `node`. */
static const char *removal_range(TSNode node, uint32_t *s, uint32_t *e, TSNode *scope)
{
	TSNode elem = node, parent = ts_node_parent(node), before, after;

	if (!ts_node_is_null(parent) && (is(parent, "keyword_argument") || is(parent, "pair"))) {
		elem = parent;
		parent = ts_node_parent(parent);
	}
	if (ts_node_is_null(parent) || !list_like(parent))
		return "the code to remove is not an element of a list or of call arguments";
	*scope = parent;
	before = sibling_token(elem, false);
	after = sibling_token(elem, true);
	if (!ts_node_is_null(before) && is(before, ",")) {
		*s = ts_node_start_byte(before);
		*e = ts_node_end_byte(elem);
	} else if (!ts_node_is_null(after) && is(after, ",")) {
		TSNode next = sibling_token(after, true);

		*s = ts_node_start_byte(elem);
		*e = ts_node_is_null(next) ? ts_node_end_byte(after) : ts_node_start_byte(next);
	} else {
		*s = ts_node_start_byte(elem);
		*e = ts_node_end_byte(elem);
	}
	return NULL;
}

/*
 * Safe to evaluate twice: names, attribute chains, literals, subscripts of
 * those with literal or name keys, tuples and parentheses of those.  Calls,
 * await, walrus, lambdas, comprehensions and operators are not.
 */
static bool is_pure(TSNode n, int depth)
{
	const char *t = ts_node_type(n);

	if (depth > 64)
		return false;
	if (!strcmp(t, "identifier") || !strcmp(t, "integer") || !strcmp(t, "float") ||
	    !strcmp(t, "true") || !strcmp(t, "false") || !strcmp(t, "none"))
		return true;
	if (!strcmp(t, "string")) {
		for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
			if (is(ts_node_named_child(n, i), "interpolation"))
				return false;
		return true;
	}
	if (!strcmp(t, "attribute"))
		return is_pure(ts_node_child_by_field_name(n, "object", 6), depth + 1);
	if (!strcmp(t, "subscript") || !strcmp(t, "tuple") || !strcmp(t, "parenthesized_expression")) {
		for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
			TSNode c = ts_node_named_child(n, i);

			if (!ts_node_is_extra(c) && !is_pure(c, depth + 1))
				return false;
		}
		return true;
	}
	return false;
}

/* A metavariable the template uses more than once, bound to impure code. */
static const char *evaluated_twice(const mpsfix_template *t, const mpsfix_match *m)
{
	size_t n = mpsfix_template_metavar_count(t);

	for (size_t i = 0; i < n; i++) {
		const char *name = mpsfix_template_metavar(t, i, NULL, NULL);
		const mpsfix_binding *b = mpsfix_match_get(m, name);
		size_t uses = 0;

		for (size_t k = 0; k < n; k++)
			uses += !strcmp(name, mpsfix_template_metavar(t, k, NULL, NULL));
		if (uses < 2 || !b)
			continue;
		if (b->multi) {
			for (uint32_t k = 0; k < b->count; k++)
				if (!is_pure(m->nodes[b->first + k], 0))
					return name;
		} else if (!is_pure(b->node, 0)) {
			return name;
		}
	}
	return NULL;
}

static TSNode edit_target(const mpsfix_fix_edit *fe, const mpsfix_match *m)
{
	const mpsfix_binding *b;

	if (!fe->target)
		return m->node;
	b = mpsfix_match_get(m, fe->target);
	return b && !b->multi ? b->node : (TSNode){0};
}

/*
 * Render rule r's fix for match m as edits of group `group` in `edits`.
 * Returns NULL when it can be applied, else the reason it needs a manual fix.
 */
static char *render_fix(pass *ps, const mpsfix_rule *r, const mpsfix_match *m,
			mpsfix_edits *edits, uint32_t group)
{
	const mpsfix_source *src = ps->src;
	mpsfix_spans kept = {0};
	mpsfix_buf text = MPSFIX_BUF_INIT;
	size_t mark = edits->len;
	char *reason = NULL;

	if (ts_node_has_error(m->node) || mpsfix_node_in_error(m->node))
		return mpsfix_xstrdup("inside a syntax error");
	for (size_t i = 0; i < r->fix.nedits && !reason; i++) {
		const mpsfix_fix_edit *fe = &r->fix.edits[i];
		TSNode target = edit_target(fe, m);
		uint32_t s, e;
		TSNode scope;
		const char *why;

		if (ts_node_is_null(target)) {
			reason = mpsfix_xasprintf("$%s is not bound", fe->target);
			break;
		}
		if (fe->op == MPSFIX_FIX_REMOVE) {
			if ((why = removal_range(target, &s, &e, &scope)) != NULL)
				reason = mpsfix_xstrdup(why);
			else if (drops_comment(scope, s, e, NULL))
				reason = mpsfix_xstrdup("the fix would drop a comment");
			else
				mpsfix_edits_add(edits, s, e, "", 0, group);
			continue;
		}
		if (template_uses_torch(fe->tmpl) && !file_binds_torch(ps)) {
			reason = mpsfix_xstrdup("the fix needs `import torch`, which this file does not have");
			break;
		}
		if ((why = evaluated_twice(fe->tmpl, m)) != NULL) {
			const mpsfix_binding *b = mpsfix_match_get(m, why);
			TSNode first = b->multi ? m->nodes[b->first] : b->node;
			uint32_t fs = ts_node_start_byte(first), fe_ = ts_node_end_byte(first);

			if (fe_ - fs > 60)
				reason = mpsfix_xasprintf("$%s would be evaluated twice", why);
			else
				reason = mpsfix_xasprintf("`%.*s` would be evaluated twice",
							  (int)(fe_ - fs), src->data + fs);
			break;
		}
		mpsfix_buf_clear(&text);
		kept.len = 0;
		if (mpsfix_template_render(&text, &kept, fe->tmpl, m, src, target) < 0) {
			reason = mpsfix_xstrdup(mpsfix_error_last()->message);
			break;
		}
		s = ts_node_start_byte(target);
		e = ts_node_end_byte(target);
		if (drops_comment(target, s, e, &kept)) {
			reason = mpsfix_xstrdup("the fix would drop a comment");
			break;
		}
		mpsfix_edits_add(edits, s, e, text.data ? text.data : "", text.len, group);
	}
	if (reason) {
		/* all of a fix or nothing */
		for (size_t i = mark; i < edits->len; i++)
			free(edits->items[i].text);
		edits->len = mark;
	}
	free(kept.items);
	mpsfix_buf_release(&text);
	return reason;
}

static void add_finding(pass *ps, const mpsfix_rule *r, const mpsfix_match *m)
{
	mpsfix_result *res = ps->result;
	mpsfix_finding f = {
		.rule = r,
		.start = ts_node_start_byte(m->node),
		.end = ts_node_end_byte(m->node),
		.fix = MPSFIX_FIX_NONE,
	};

	mpsfix_source_position(ps->src, f.start, &f.line, &f.col);
	mpsfix_source_position(ps->src, f.end, &f.end_line, &f.end_col);
	if (r->fix.present) {
		f.reason = render_fix(ps, r, m, ps->edits, (uint32_t)res->len);
		if (f.reason)
			f.fix = MPSFIX_FIX_MANUAL;
		else if (r->fix.unsafe && !ps->opts->unsafe_fixes)
			f.fix = MPSFIX_FIX_UNSAFE;
		else
			f.fix = MPSFIX_FIX_AVAILABLE;
		if (f.fix != MPSFIX_FIX_AVAILABLE) {
			/* drop the edits of a fix that will not be applied */
			size_t keep = ps->edits->len;

			while (keep && ps->edits->items[keep - 1].group == (uint32_t)res->len) {
				free(ps->edits->items[keep - 1].text);
				keep--;
			}
			ps->edits->len = keep;
		}
	}
	mpsfix_grow((void **)&res->items, &res->cap, res->len + 1, sizeof(*res->items));
	res->items[res->len++] = f;
}

static mpsfix_walk_action match_at(TSNode n, void *payload)
{
	pass *ps = payload;
	const mpsfix_index *ix = ps->ix;
	TSSymbol s = ts_node_symbol(n);
	const mpsfix_rule *last = NULL;

	if (!ts_node_is_named(n) || s >= ix->nsymbols)
		return MPSFIX_WALK_DESCEND;
	for (uint32_t i = ix->first[s]; i < ix->first[s + 1]; i++) {
		const index_entry *ent = &ix->entries[i];
		mpsfix_match m = {0};

		if (ent->rule == last)
			continue; /* one finding per rule and node */
		if (mpsfix_match_node(&m, ps->ctx->matcher, ent->pattern, n, ps->src->data) == 0) {
			add_finding(ps, ent->rule, &m);
			last = ent->rule;
			mpsfix_match_release(&m);
		}
	}
	return MPSFIX_WALK_DESCEND;
}

static void match_all(pass *ps)
{
	mpsfix_walk(ps->root, match_at, ps);
}

static int compare_findings(const void *a, const void *b)
{
	const mpsfix_finding *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return strcmp(x->rule->code, y->rule->code);
}

static void run_pass(pass *ps, mpsfix_result *findings, mpsfix_edits *edits)
{
	ps->result = findings;
	ps->edits = edits;
	ps->torch_bound = -1;
	match_all(ps);
	if (findings->len > 1)
		qsort(findings->items, findings->len, sizeof(*findings->items), compare_findings);
}

/*
 * Parse one version of a file.  tree-sitter's error recovery can take very
 * long on pathological input: allow 10 s plus 2 s per MB, then skip the file.
 */
static int parse_text(TSTree **out, mpsfix_ctx *ctx, const char *name, const char *data, uint32_t len)
{
	ts_parser_set_timeout_micros(ctx->parser, 10000000ull + 2ull * len);
	return mpsfix_parse_named(out, ctx->parser, name, data, len);
}

int mpsfix_engine_run(mpsfix_result *out, mpsfix_ctx *ctx, const mpsfix_index *ix,
		      const mpsfix_source *src, const mpsfix_engine_opts *opts)
{
	mpsfix_source cur = MPSFIX_SOURCE_INIT;
	mpsfix_edits edits = MPSFIX_EDITS_INIT;
	mpsfix_buf next = MPSFIX_BUF_INIT;
	TSTree *tree = NULL, *next_tree = NULL;
	uint32_t base_errors;
	const mpsfix_source *now = src;
	bool revert = false;
	pass ps = {.ctx = ctx, .ix = ix, .opts = opts};
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = parse_text(&tree, ctx, src->path, src->data, src->len)) < 0)
		goto done;
	base_errors = mpsfix_error_count(ts_tree_root_node(tree));
	ps.src = src;
	ps.root = ts_tree_root_node(tree);
	run_pass(&ps, out, &edits);
	if (!opts->fix)
		goto done;

	for (out->passes = 0; edits.len; ) {
		size_t applied = 0, deferred = 0;
		uint32_t errors;

		if (out->passes == MPSFIX_MAX_PASSES) {
			add_warning(out, mpsfix_xasprintf("%s: stopped after %d passes of fixes; some fixes were not applied",
							  src->path, MPSFIX_MAX_PASSES));
			break;
		}
		mpsfix_buf_clear(&next);
		if ((error = mpsfix_edits_apply(&next, &edits, now->data, now->len, &applied, &deferred)) < 0)
			goto done;
		if (applied == 0)
			break;
		if ((error = parse_text(&next_tree, ctx, src->path, next.data ? next.data : "",
					(uint32_t)next.len)) < 0)
			goto done;
		errors = mpsfix_error_count(ts_tree_root_node(next_tree));
		if (errors > base_errors) {
			add_warning(out, mpsfix_xasprintf("%s: fixes not applied: the fixed code would not parse "
							  "(%u syntax errors instead of %u)",
							  src->path, errors, base_errors));
			revert = true;
			break;
		}
		out->passes++;
		out->fixed += applied;
		/* the new text becomes the current one */
		mpsfix_source_release(&cur);
		if ((error = mpsfix_source_from_buffer(&cur, src->path, next.data ? next.data : "", next.len)) < 0)
			goto done;
		now = &cur;
		ts_tree_delete(tree);
		tree = next_tree;
		next_tree = NULL;
		findings_release(out);
		mpsfix_edits_clear(&edits);
		ps.src = now;
		ps.root = ts_tree_root_node(tree);
		run_pass(&ps, out, &edits);
	}
	if (revert) {
		/* nothing is written: report what the original has, unfixed */
		ts_tree_delete(tree);
		tree = NULL;
		findings_release(out);
		mpsfix_edits_clear(&edits);
		mpsfix_source_release(&cur);
		now = src;
		out->fixed = 0;
		out->passes = 0;
		if ((error = parse_text(&tree, ctx, src->path, src->data, src->len)) < 0)
			goto done;
		ps.src = src;
		ps.root = ts_tree_root_node(tree);
		run_pass(&ps, out, &edits);
		for (size_t i = 0; i < out->len; i++)
			if (out->items[i].fix == MPSFIX_FIX_AVAILABLE) {
				out->items[i].fix = MPSFIX_FIX_MANUAL;
				out->items[i].reason = mpsfix_xstrdup("the fixed file would not parse");
			}
	}
	out->text = mpsfix_xstrndup(now->data, now->len);
	out->text_len = now->len;
	out->changed = now->len != src->len || memcmp(now->data, src->data, src->len) != 0;
done:
	if (error < 0)
		mpsfix_result_release(out);
	ts_tree_delete(tree);
	ts_tree_delete(next_tree);
	mpsfix_edits_release(&edits);
	mpsfix_buf_release(&next);
	mpsfix_source_release(&cur);
	return error;
}
