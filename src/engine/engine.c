/*
 * engine.c: rules over one file — matching, rendering fixes, passes of edits
 * and the re-parse guard.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "cuda_code.h"
#include "deprecated.h"
#include "edit.h"
#include "fix.h"
#include "fix_check.h"
#include "fix_floor.h"
#include "names.h"
#include "parse.h"
#include "prefilter.h"
#include "wrap.h"
#include "reach.h"
#include "instance.h"
#include "project.h"
#include "sibling.h"
#include "signature.h"
#include "suppress.h"

typedef struct {
	const mpsfix_rule *rule;
	const mpsfix_pattern *pattern;
	uint32_t order;   /* position of the rule in the index, to keep rules apart */
} index_entry;

struct mpsfix_index {
	index_entry *entries;   /* grouped by root symbol */
	uint32_t *first;        /* entries of symbol s: [first[s], first[s+1]) */
	uint32_t nsymbols;
	size_t nrules;
	mpsfix_prefilter *prefilter; /* the words the rules need */
	mpsfix_rule *const *rules;   /* by order (borrowed) */
};

mpsfix_index *mpsfix_index_new(mpsfix_rule *const *rules, size_t n)
{
	mpsfix_index *ix = mpsfix_xcalloc(1, sizeof(*ix));
	uint32_t total = 0, *fill;
	TSSymbol ident;

	ix->nsymbols = ts_language_symbol_count(mpsfix_language());
	ix->first = mpsfix_xcalloc(ix->nsymbols + 1, sizeof(uint32_t));
	ident = mpsfix_symbol("identifier");
	for (size_t r = 0; r < n; r++)
		for (size_t p = 0; p < rules[r]->npatterns; p++) {
			TSSymbol s = rules[r]->patterns[p]->root->symbol;

			if (s < ix->nsymbols) {
				ix->first[s + 1]++;
				total++;
			}
			/* a dotted name may be spelled as a bare imported name */
			if (rules[r]->patterns[p]->root->kind == MPSFIX_PN_QNAME && ident < ix->nsymbols) {
				ix->first[ident + 1]++;
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
			if (rules[r]->patterns[p]->root->kind == MPSFIX_PN_QNAME && ident < ix->nsymbols)
				ix->entries[ix->first[ident] + fill[ident]++] = (index_entry){
					.rule = rules[r], .pattern = rules[r]->patterns[p], .order = (uint32_t)r,
				};
		}
	free(fill);
	ix->nrules = n;
	ix->rules = rules;
	ix->prefilter = mpsfix_prefilter_new(rules, n);
	return ix;
}

void mpsfix_index_free(mpsfix_index *ix)
{
	if (!ix)
		return;
	free(ix->entries);
	free(ix->first);
	mpsfix_prefilter_free(ix->prefilter);
	free(ix);
}

int mpsfix_ctx_init(mpsfix_ctx *ctx)
{
	int error;

	ctx->matcher = NULL;
	ctx->siblings = NULL;
	ctx->project = NULL;
	if ((error = mpsfix_parser_new(&ctx->parser)) < 0)
		return error;
	ctx->matcher = mpsfix_matcher_new();
	ctx->siblings = mpsfix_sibling_cache_new();
	ctx->project = mpsfix_project_cache_new();
	return 0;
}

void mpsfix_ctx_release(mpsfix_ctx *ctx)
{
	if (ctx->parser)
		ts_parser_delete(ctx->parser);
	mpsfix_matcher_free(ctx->matcher);
	mpsfix_sibling_cache_free(ctx->siblings);
	mpsfix_project_cache_free(ctx->project);
	ctx->project = NULL;
	ctx->parser = NULL;
	ctx->matcher = NULL;
	ctx->siblings = NULL;
}

static void findings_release(mpsfix_result *r)
{
	for (size_t i = 0; i < r->len; i++) {
		free(r->items[i].reason);
		for (size_t k = 0; k < r->items[i].nedits; k++)
			free(r->items[i].edits[k].text);
		free(r->items[i].edits);
	}
	free(r->items);
	r->items = NULL;
	r->len = r->cap = 0;
}

void mpsfix_result_make_manual(mpsfix_result *r, const char *reason)
{
	for (size_t i = 0; i < r->len; i++) {
		mpsfix_finding *f = &r->items[i];

		if (f->fix != MPSFIX_FIX_AVAILABLE && f->fix != MPSFIX_FIX_UNSAFE)
			continue;
		for (size_t k = 0; k < f->nedits; k++)
			free(f->edits[k].text);
		free(f->edits);
		free(f->reason);
		f->edits = NULL;
		f->nedits = 0;
		f->fix = MPSFIX_FIX_MANUAL;
		f->reason = mpsfix_xstrdup(reason);
	}
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
	for (size_t i = 0; i < r->nunused; i++)
		free(r->unused[i].codes);
	free(r->unused);
	memset(r, 0, sizeof(*r));
}

static void add_warning(mpsfix_result *r, char *message)
{
	r->warnings = mpsfix_xrealloc(r->warnings, (r->nwarnings + 1) * sizeof(char *));
	r->warnings[r->nwarnings++] = message;
}

/* ---- facts about a file --------------------------------------------------- */

/* The last position computed, so the next one on the same line counts on
 * from there instead of from the line's start (many findings on one long
 * line would otherwise cost quadratic time). */
typedef struct {
	bool valid;
	uint32_t byte, line, col;
} pos_cache;

static void position(const mpsfix_source *src, pos_cache *c, uint32_t byte,
		     uint32_t *line, uint32_t *col)
{
	if (c->valid && byte >= c->byte && !(src->has_bom && c->byte < 3) &&
	    (c->line >= src->nlines || byte < src->lines[c->line])) {
		uint32_t n = c->col;

		for (uint32_t i = c->byte; i < byte; i++)
			n += ((unsigned char)src->data[i] & 0xc0) != 0x80;
		*line = c->line;
		*col = n;
	} else {
		mpsfix_source_position(src, byte, line, col);
	}
	*c = (pos_cache){true, byte, *line, *col};
}

typedef struct {
	mpsfix_ctx *ctx;
	const mpsfix_index *ix;
	const mpsfix_source *src;
	TSNode root;
	const mpsfix_engine_opts *opts;
	mpsfix_result *result;   /* findings are appended here */
	mpsfix_edits *edits;     /* fixes that may be applied */
	mpsfix_fix_ctx fix;      /* what the fixes of this pass share */
	pos_cache starts, ends;  /* findings come in order: count columns onward */
	bool gave_up;            /* warned once that matching gave up */
	bool star_warned;        /* warned once about a star import */
	mpsfix_suppressions *sup; /* this text's suppression comments, read at the
				     first finding (most files have none) */
	int cuda_file;           /* the text sets CUDA up unconditionally (reach.h);
				    -1: not known yet */
	int imports_fail;        /* it imports a module of its folder that fails on
				    a Mac (sibling.h); -1: not known yet */
	int other_accel;         /* a module of another accelerator beside an MPS
				    one (mpsfix_cuda_module_file()); -1: not known yet */
	mpsfix_cond_memo memo;   /* what the conditions read of the text (opt-in:, used:) */
	mpsfix_instance_memo values; /* the values of the names `tensor:` asks about */
	mpsfix_reach_spans spans[2]; /* what cannot run on MPS, for ranges that reach
					torch 2.6 and for ranges below it */
	mpsfix_deprecated deprecated; /* the blocks its authors mark deprecated */
	bool *possible;          /* by rule order: its words are in ps->src (the
				    others cannot match, so are not tried): read_words() */
} pass;

static int compare_edits(const void *a, const void *b)
{
	const mpsfix_edit *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The finding keeps its own copy of its fix's edits (for the reporters). */
static void copy_edits(mpsfix_finding *f, const mpsfix_edits *edits, uint32_t group)
{
	size_t n = 0;

	for (size_t i = edits->len; i > 0 && edits->items[i - 1].group == group; i--)
		n++;
	if (!n)
		return;
	f->edits = mpsfix_xcalloc(n, sizeof(*f->edits));
	for (size_t i = 0; i < n; i++) {
		const mpsfix_edit *e = &edits->items[edits->len - n + i];

		f->edits[i] = *e;
		f->edits[i].text = mpsfix_xstrndup(e->text, e->len);
		f->edits[i].applied = false;
	}
	f->nedits = n;
	qsort(f->edits, n, sizeof(*f->edits), compare_edits);
}

/* The suppression comments of the current text (read once per pass). */
static mpsfix_suppressions *suppressions(pass *ps)
{
	if (!ps->sup)
		ps->sup = mpsfix_suppressions_scan(ps->root, ps->src);
	return ps->sup;
}

/* Is a match of `r` at `node` hidden by a comment?  Then its fix is never rendered. */
static bool suppressed(pass *ps, const mpsfix_rule *r, TSNode node)
{
	mpsfix_suppressions *sup;

	if (!ps->opts->suppress)
		return false;
	sup = suppressions(ps);
	if (mpsfix_suppressions_file_ignored(sup))
		ps->result->file_ignored = true;
	if (!mpsfix_suppressed(sup, r, node))
		return false;
	ps->result->suppressed++;
	return true;
}

/*
 * Why the fix of `r` (edit group `group`) is unsafe for this file, or
 * NULL: the file's target reaches versions that lack an API the fix brings
 * in (fix_floor.h), or versions outside the rule's range, where the code did
 * not fail and the fix may change what it does.  For a fix unsafe by its
 * rule (which is unsafe with NULL too), the first reason alone; it is shown
 * where the fix is not applied (without --unsafe-fixes).
 */
static char *beyond_range(const pass *ps, const mpsfix_rule *r, uint32_t group)
{
	mpsfix_torch_range t = ps->opts->target ? *ps->opts->target : MPSFIX_TORCH_RANGE_MPS;
	char rb[MPSFIX_TORCH_RANGE_STRMAX], tb[MPSFIX_TORCH_RANGE_STRMAX];
	char *below = mpsfix_fix_floor_reason(ps->edits, group, ps->src->data, t); /* an API older torch lacks */

	if (r->fix.unsafe)
		return below; /* unsafe anyway: the reason, where there is one to name */

	if (below || r->fix.exact_outside_range || mpsfix_torch_range_within(t, r->range))
		return below;
	return mpsfix_xasprintf("the fix is exact only on torch %s, and the target torch %s "
				"reaches beyond it", mpsfix_torch_range_format(rb, r->range),
				mpsfix_torch_range_format(tb, t));
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

	position(ps->src, &ps->starts, f.start, &f.line, &f.col);
	/* a match the caller does not keep is nothing, not even a use of a noqa */
	if (ps->opts->keep && !ps->opts->keep(ps->opts->keep_payload, r, f.line))
		return;
	if (suppressed(ps, r, m->node))
		return;
	position(ps->src, &ps->ends, f.end, &f.end_line, &f.end_col);
	if (r->fix.present) {
		f.reason = mpsfix_fix_render(&ps->fix, r, m, ps->edits, (uint32_t)res->len);
		if (f.reason)
			f.fix = MPSFIX_FIX_MANUAL;
		else if (((f.reason = beyond_range(ps, r, (uint32_t)res->len)) || r->fix.unsafe) && !ps->opts->unsafe_fixes)
			f.fix = MPSFIX_FIX_UNSAFE;
		else
			f.fix = MPSFIX_FIX_AVAILABLE;
		if (f.fix == MPSFIX_FIX_AVAILABLE) {
			free(f.reason);
			f.reason = NULL;
		}
		if (f.fix == MPSFIX_FIX_AVAILABLE || f.fix == MPSFIX_FIX_UNSAFE)
			copy_edits(&f, ps->edits, (uint32_t)res->len);
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

/*
 * Can `value` not be a torch tensor: is it an instance (instance.h) of a
 * class of the project from nothing of torch's, one the file defines or one
 * it imports from a module of its project (sibling.h)?  That class's method
 * of the same name is checked where it is written, and the tensor calls
 * inside it are reported there.  A class of another library may pin
 * tensors in its own method (diffusers' EMAModel used from another
 * project, a TensorDict), so its instances can be.
 */
static bool not_tensor(pass *ps, const mpsfix_reach_ctx *rx, TSNode value, TSNode match)
{
	mpsfix_buf cls = MPSFIX_BUF_INIT, method = MPSFIX_BUF_INIT;
	TSNode call, u = mpsfix_unparenthesized(value);
	bool no = false;

	if (!strcmp(ts_node_type(u), "call") &&
	    mpsfix_node_text_is(ts_node_child_by_field_name(u, "function", 8), rx->src, "super"))
		return true; /* super().pin_memory(): a class's own method calls its base's */
	if (mpsfix_instance_method(rx->src, match, value, &method) &&
	    mpsfix_instance_class(rx->src, rx->names, value, &cls, &call, &ps->values))
		no = strchr(cls.data, '.') ? ps->opts->disk_path && ps->ctx->siblings &&
						     mpsfix_sibling_own_class(ps->ctx->siblings, ps->opts->disk_path,
									      cls.data, method.data)
					   : mpsfix_instance_module_class(rx->src, rx->names, ps->root, cls.data,
									  method.data, &ps->values);
	mpsfix_buf_release(&cls);
	mpsfix_buf_release(&method);
	return no;
}

/* The one node that `name` (a metavariable, a parameter or MATCH) binds in `m`, or a null node. */
static TSNode bound_node(const mpsfix_match *m, const char *name)
{
	const mpsfix_binding *b = mpsfix_match_get(m, name);

	return !strcmp(name, "MATCH") ? m->node : b && b->bound && !b->multi ? b->node : (TSNode){0};
}

/*
 * Is the match outside code its authors mark deprecated (deprecated.h), can
 * it run on MPS (unless the rule wants code that cannot, too), can the
 * argument the rule names as the device be "mps", and can the one it names
 * as a tensor be one?
 */
static bool reachable(pass *ps, const mpsfix_rule *r, const mpsfix_match *m)
{
	mpsfix_torch_range t = ps->opts->target ? *ps->opts->target : MPSFIX_TORCH_RANGE_MPS;
	mpsfix_reach_ctx rx = {
		.src = ps->src->data, .names = ps->fix.names,
		.range = {t.lo > r->range.lo ? t.lo : r->range.lo, t.hi < r->range.hi ? t.hi : r->range.hi},
		.cuda_file = ps->cuda_file,
		/* the spans depend on hasattr(torch, "accelerator"), a fact of versions below 2.6 */
		.spans = &ps->spans[t.hi < MPSFIX_TORCH_VER(2, 6) || r->range.hi < MPSFIX_TORCH_VER(2, 6)],
		.defaults = &ps->memo.uses.defaults,
	};
	TSNode n;
	bool reach;

	if (mpsfix_deprecated_at(&ps->deprecated, ps->src->data, ps->src->len, ps->root, m->node))
		return false;
	if (!r->reach_any && ps->imports_fail < 0)
		/* a module of its folder that fails on import stops the whole file */
		ps->imports_fail = ps->opts->disk_path && ps->ctx->siblings &&
				   mpsfix_sibling_imports_fail(ps->ctx->siblings, ps->opts->disk_path, ps->src->data,
							       ps->root);
	if (!r->reach_any && ps->other_accel < 0)
		ps->other_accel = ps->opts->disk_path && mpsfix_cuda_module_file(ps->opts->disk_path);
	if (!r->reach_any && ps->other_accel && mpsfix_cuda_in_definition(ps->root, m->node))
		return false; /* accelerators/cuda.py beside accelerators/mps.py */
	reach = r->reach_any || (!ps->imports_fail && mpsfix_reach_mps(&rx, m->node, ps->root));

	ps->cuda_file = rx.cuda_file; /* found out once per text */
	if (!reach)
		return false;
	if (r->device && !ts_node_is_null(n = bound_node(m, r->device)) && !mpsfix_reach_may_be_mps(&rx, n))
		return false;
	if (r->enabled_by && !ts_node_is_null(n = bound_node(m, r->enabled_by)) && mpsfix_reach_false_on_mps(&rx, n))
		return false;
	if (r->tensor && !ts_node_is_null(n = bound_node(m, r->tensor)) && not_tensor(ps, &rx, n, m->node))
		return false;
	return true;
}

/*
 * A match of the rule's pattern: a finding if it meets the rule's other
 * conditions (on the call's parameters when the rule has a signature).
 * A call that cannot be bound is a finding (needing a manual fix, with the
 * reason) unless the rule constrains parameters it cannot see.
 */
static bool consider(pass *ps, const mpsfix_rule *r, const mpsfix_match *m)
{
	mpsfix_cond_ctx cx = {ps->ctx->matcher, ps->src->data, ps->root, ps->fix.names, &ps->memo};
	mpsfix_call_binding cb = {0};
	mpsfix_match bm = *m;
	char *unbound = NULL;
	bool ok;

	if (!mpsfix_cond_metavars(&cx, r, m))
		return false;
	if (r->signature.len) {
		unbound = mpsfix_signature_bind(&cb, &r->signature, m->node, ps->src->data);
		if (!unbound) {
			bm.param_names = cb.names;
			bm.params = cb.bindings;
			bm.nparams = cb.n;
		}
	}
	ok = unbound ? !mpsfix_rule_constrains_params(r) : true;
	ok = ok && mpsfix_cond_rule(&cx, r, &bm) && reachable(ps, r, &bm);
	if (ok)
		add_finding(ps, r, &bm);
	free(unbound);
	mpsfix_call_binding_release(&cb);
	return ok;
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

		if (ent->rule == last || !ps->possible[ent->order])
			continue; /* one finding per rule and node; rules without their words */
		if (mpsfix_match_node(&m, ps->ctx->matcher, ent->pattern, n, ps->src->data) == 0) {
			if (consider(ps, ent->rule, &m))
				last = ent->rule;
			mpsfix_match_release(&m);
		} else if (mpsfix_matcher_gave_up(ps->ctx->matcher) && !ps->gave_up && ps->opts->verbose) {
			uint32_t line, col;

			ps->gave_up = true;
			mpsfix_source_position(ps->src, ts_node_start_byte(n), &line, &col);
			add_warning(ps->result, mpsfix_xasprintf("%s:%u:%u: %s: gave up matching here "
								 "(too many ways to bind its $$$ metavariables)",
								 ps->src->path, line, col, ent->rule->code));
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

/* Once per file, with opts->verbose: names a star import may define are not checked. */
static void warn_star(pass *ps, mpsfix_names *names)
{
	const char *module;
	size_t len;
	uint32_t byte, line, col;

	if (!ps->opts->verbose || ps->star_warned || !mpsfix_matcher_star_seen(ps->ctx->matcher) ||
	    !mpsfix_names_star_import(names, &module, &len, &byte))
		return;
	ps->star_warned = true;
	mpsfix_source_position(ps->src, byte, &line, &col);
	add_warning(ps->result, mpsfix_xasprintf("%s:%u:%u: cannot resolve the names `from %.*s import *` "
						 "brings in; calls through them are not checked",
						 ps->src->path, line, col, (int)len, module));
}

static void run_pass(pass *ps, mpsfix_result *findings, mpsfix_edits *edits)
{
	mpsfix_names *names = mpsfix_names_new(ps->root, ps->src->data, ps->src->len);

	ps->result = findings;
	ps->edits = edits;
	mpsfix_suppressions_free(ps->sup);
	ps->sup = NULL;
	ps->cuda_file = -1;
	ps->imports_fail = -1;
	ps->other_accel = -1;
	mpsfix_cond_memo_release(&ps->memo);
	/* a default's other callers are read from the project on disk (project.h) */
	ps->memo.uses.defaults.project = ps->ctx->project;
	ps->memo.uses.defaults.path = ps->opts->disk_path;
	mpsfix_instance_memo_release(&ps->values);
	mpsfix_reach_spans_release(&ps->spans[0]);
	mpsfix_reach_spans_release(&ps->spans[1]);
	mpsfix_deprecated_release(&ps->deprecated);
	findings->file_ignored = false;
	findings->suppressed = 0;
	ps->fix = (mpsfix_fix_ctx)MPSFIX_FIX_CTX_INIT(ps->src, ps->root, names, ps->ctx->matcher,
						      ps->opts->target ? *ps->opts->target
						      : MPSFIX_TORCH_RANGE_MPS);
	ps->starts.valid = ps->ends.valid = false;
	mpsfix_matcher_set_names(ps->ctx->matcher, names);
	match_all(ps);
	warn_star(ps, names);
	mpsfix_matcher_set_names(ps->ctx->matcher, NULL);
	ps->fix.names = NULL;
	mpsfix_names_free(names);
	if (findings->len > 1)
		qsort(findings->items, findings->len, sizeof(*findings->items), compare_findings);
}

/* After the last pass: the suppression comments of the final text that hid nothing. */
static void list_unused(pass *ps, mpsfix_result *out)
{
	mpsfix_suppressions *sup;

	if (!ps->opts->suppress || !ps->opts->unused_suppressions)
		return;
	sup = suppressions(ps);
	if (mpsfix_suppressions_file_ignored(sup))
		out->file_ignored = true;
	else
		out->unused = mpsfix_suppressions_unused(sup, &out->nunused);
}

/*
 * Which rules' words ps->src has, into ps->possible, once per text: a fix may
 * bring in another rule's words.  SKIP: no rule can match it.
 */
static mpsfix_prefilter_verdict read_words(pass *ps)
{
	const mpsfix_torch_range *target = ps->opts->target;
	mpsfix_prefilter_verdict v;
	bool any = false;

	if (ps->opts->no_prefilter) {
		memset(ps->possible, 1, ps->ix->nrules * sizeof(bool));
		v = MPSFIX_PREFILTER_ALL;
	} else {
		v = mpsfix_prefilter_scan(ps->ix->prefilter, ps->src->data, ps->src->len,
					  ps->opts->suppress && ps->opts->unused_suppressions, ps->possible);
	}
	if (v == MPSFIX_PREFILTER_SKIP)
		return v;
	/* the rules this file's torch target does not run, and those that skip its path */
	for (size_t i = 0; i < ps->ix->nrules; i++) {
		const mpsfix_rule *r = ps->ix->rules[i];

		if ((target && !mpsfix_torch_range_meets(r->range, *target)) ||
		    mpsfix_rule_skips_path(r, ps->opts->rel_path ? ps->opts->rel_path : ps->src->path))
			ps->possible[i] = false;
		any |= ps->possible[i];
	}
	/* with unused suppressions listed, the comments are read anyway */
	return any || (ps->opts->suppress && ps->opts->unused_suppressions) ? v : MPSFIX_PREFILTER_SKIP;
}

/*
 * Where the edits applied to a text put their new bytes in the result:
 * sorted ranges of the new text (an identical shared edit counts once).
 */
static mpsfix_span *written_spans(const mpsfix_edits *edits, size_t *n)
{
	mpsfix_edit *v = mpsfix_xcalloc(edits->len + 1, sizeof(*v));
	mpsfix_span *out = mpsfix_xcalloc(edits->len + 1, sizeof(*out));
	size_t k = 0;
	int64_t delta = 0;

	for (size_t i = 0; i < edits->len; i++)
		if (edits->items[i].applied)
			v[k++] = edits->items[i];
	qsort(v, k, sizeof(*v), compare_edits);
	*n = 0;
	for (size_t i = 0; i < k; i++) {
		const mpsfix_edit *e = &v[i];

		if (i > 0 && e->shared && v[i - 1].shared && v[i - 1].start == e->start &&
		    v[i - 1].end == e->end && v[i - 1].len == e->len && !memcmp(v[i - 1].text, e->text, e->len))
			continue;
		if (e->len)
			out[(*n)++] = (mpsfix_span){(uint32_t)(e->start + delta),
						    (uint32_t)(e->start + delta + (int64_t)e->len)};
		delta += (int64_t)e->len - (int64_t)(e->end - e->start);
	}
	free(v);
	return out;
}

/*
 * Break the lines the fixes just wrote that are longer than the limit
 * (wrap.h).  On success *cur and *tree hold the new text and its tree; a
 * result that would parse worse than `base_errors` is dropped.
 */
static int wrap_written(mpsfix_ctx *ctx, const mpsfix_source *src, const mpsfix_engine_opts *opts,
			mpsfix_source *cur, TSTree **tree, const mpsfix_edits *applied,
			uint32_t base_errors)
{
	mpsfix_edits wraps = MPSFIX_EDITS_INIT;
	mpsfix_buf text = MPSFIX_BUF_INIT;
	mpsfix_source next = MPSFIX_SOURCE_INIT;
	TSTree *next_tree = NULL;
	size_t n = 0, done = 0;
	mpsfix_span *spans = written_spans(applied, &n);
	uint32_t limit = opts->line_length ? opts->line_length : MPSFIX_LINE_LENGTH_DEFAULT;
	int error = 0;

	if (!n || !mpsfix_wrap_lines(cur, ts_tree_root_node(*tree), spans, n, limit, &wraps, 0))
		goto done;
	if ((error = mpsfix_edits_apply(&text, &wraps, cur->data, cur->len, &done, NULL)) < 0 || !done)
		goto done;
	if ((error = mpsfix_parse_named(&next_tree, ctx->parser, src->path, text.data ? text.data : "",
					(uint32_t)text.len)) < 0)
		goto done;
	if (mpsfix_error_count(ts_tree_root_node(next_tree)) > base_errors)
		goto done; /* cannot happen to line breaks in brackets; kept as it was if it does */
	if ((error = mpsfix_source_from_buffer(&next, src->path, text.data ? text.data : "", text.len)) < 0)
		goto done;
	mpsfix_source_release(cur);
	*cur = next;
	next = (mpsfix_source)MPSFIX_SOURCE_INIT;
	ts_tree_delete(*tree);
	*tree = next_tree;
	next_tree = NULL;
done:
	ts_tree_delete(next_tree);
	mpsfix_source_release(&next);
	mpsfix_buf_release(&text);
	mpsfix_edits_release(&wraps);
	free(spans);
	return error;
}

/*
 * Leave the fixes `bad[g]` (of findings g) to a manual fix: their edits go,
 * and the finding says why (the file's warning is said once).
 */
static void drop_fixes(mpsfix_result *out, mpsfix_edits *edits, const unsigned char *bad, const char *path,
		       bool *warned)
{
	size_t kept = 0, n = 0;
	bool moves = false;

	for (size_t i = 0; i < edits->len; i++)
		if (edits->items[i].group < out->len && bad[edits->items[i].group])
			free(edits->items[i].text);
		else
			edits->items[kept++] = edits->items[i];
	edits->len = kept;
	for (size_t g = 0; g < out->len; g++)
		if (bad[g] && out->items[g].fix == MPSFIX_FIX_AVAILABLE) {
			moves = bad[g] == MPSFIX_FIX_MOVES_ERRORS;
			out->items[g].fix = MPSFIX_FIX_MANUAL;
			free(out->items[g].reason);
			out->items[g].reason = mpsfix_xstrdup(moves ? "the fix would change how the code around a "
								      "syntax error parses"
								    : "the fixed file would not parse");
			n++;
		}
	if (n && !*warned)
		add_warning(out, mpsfix_xasprintf(n == 1 && moves ? "%s: %zu fix not applied: it would change how the "
							"code around the file's syntax errors parses"
							  : "%s: %zu fix%s not applied: the fixed code would not parse",
						  path, n, n == 1 ? "" : "es"));
	*warned = *warned || n;
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
	const char *revert = NULL; /* why the fixes are not kept */
	bool warned_bad = false;
	pass ps = {.ctx = ctx, .ix = ix, .opts = opts};
	int error = 0;

	memset(out, 0, sizeof(*out));
	ps.possible = mpsfix_xcalloc(ix->nrules + 1, sizeof(bool));
	ps.src = src;
	if (read_words(&ps) == MPSFIX_PREFILTER_SKIP) {
		/* no rule can match: what a parse without a match gives */
		if (opts->fix) {
			out->text = mpsfix_xstrndup(src->data, src->len);
			out->text_len = src->len;
		}
		goto done;
	}
	if ((error = mpsfix_parse_named(&tree, ctx->parser, src->path, src->data, src->len)) < 0)
		goto done;
	base_errors = mpsfix_error_count(ts_tree_root_node(tree));
	ps.root = ts_tree_root_node(tree);
	run_pass(&ps, out, &edits);
	if (!opts->fix) {
		list_unused(&ps, out);
		goto done;
	}

	for (out->passes = 0; edits.len; ) {
		size_t applied = 0, deferred = 0;
		uint32_t errors;
		bool moved;

		if (opts->max_passes && out->passes == opts->max_passes)
			break;
		if (out->passes == MPSFIX_MAX_PASSES) {
			add_warning(out, mpsfix_xasprintf("%s: stopped after %d passes of fixes; some fixes were not applied",
							  src->path, MPSFIX_MAX_PASSES));
			for (size_t i = 0; i < out->len; i++)
				if (out->items[i].fix == MPSFIX_FIX_AVAILABLE) {
					out->items[i].fix = MPSFIX_FIX_MANUAL;
					out->items[i].reason = mpsfix_xasprintf("not applied: fixes went on for %d passes",
										MPSFIX_MAX_PASSES);
				}
			break;
		}
		mpsfix_buf_clear(&next);
		if ((error = mpsfix_edits_apply(&next, &edits, now->data, now->len, &applied, &deferred)) < 0)
			goto done;
		if (applied == 0)
			break;
		if ((error = mpsfix_parse_named(&next_tree, ctx->parser, src->path,
						next.data ? next.data : "", (uint32_t)next.len)) < 0)
			goto done;
		errors = mpsfix_error_count(ts_tree_root_node(next_tree));
		moved = errors <= base_errors &&
			mpsfix_fix_errors_moved(ts_tree_root_node(tree), ts_tree_root_node(next_tree), &edits);
		if (errors > base_errors || moved) {
			/* the fixes that do it on their own are left to a manual fix, the others applied */
			unsigned char *bad = mpsfix_xcalloc(out->len + 1, 1);
			size_t nbad = 0;

			error = mpsfix_fix_bad_groups(ctx->parser, src->path, now->data, now->len, ts_tree_root_node(tree),
						      base_errors, &edits, bad, out->len, &nbad);
			if (error >= 0 && nbad)
				drop_fixes(out, &edits, bad, src->path, &warned_bad);
			free(bad);
			if (error < 0)
				goto done;
			if (nbad) { /* (a pass over the rest: the tree of this text is not needed) */
				ts_tree_delete(next_tree);
				next_tree = NULL;
				continue;
			}
		}
		if (errors > base_errors) {
			add_warning(out, mpsfix_xasprintf("%s: fixes not applied: the fixed code would not parse "
							  "(%u syntax errors instead of %u)",
							  src->path, errors, base_errors));
			revert = "the fixed file would not parse";
			break;
		}
		if (moved) {
			add_warning(out, mpsfix_xasprintf("%s: fixes not applied: they would change how the code "
							  "around the file's syntax errors parses", src->path));
			revert = "the fix would change how the code around a syntax error parses";
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
		if ((error = wrap_written(ctx, src, opts, &cur, &tree, &edits, base_errors)) < 0)
			goto done;
		findings_release(out);
		mpsfix_edits_clear(&edits);
		ps.src = now;
		ps.root = ts_tree_root_node(tree);
		read_words(&ps);
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
		if ((error = mpsfix_parse_named(&tree, ctx->parser, src->path, src->data, src->len)) < 0)
			goto done;
		ps.src = src;
		ps.root = ts_tree_root_node(tree);
		read_words(&ps);
		run_pass(&ps, out, &edits);
		for (size_t i = 0; i < out->len; i++)
			if (out->items[i].fix == MPSFIX_FIX_AVAILABLE) {
				out->items[i].fix = MPSFIX_FIX_MANUAL;
				out->items[i].reason = mpsfix_xstrdup(revert);
			}
	}
	list_unused(&ps, out);
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
	mpsfix_suppressions_free(ps.sup);
	mpsfix_source_release(&cur);
	free(ps.possible);
	mpsfix_reach_spans_release(&ps.spans[0]);
	mpsfix_reach_spans_release(&ps.spans[1]);
	mpsfix_deprecated_release(&ps.deprecated);
	mpsfix_cond_memo_release(&ps.memo);
	mpsfix_instance_memo_release(&ps.values);
	return error;
}
