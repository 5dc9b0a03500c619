/*
 * reach.c: can code run on MPS?  See reach.h for the forms.  What a test
 * says on MPS is truth.h's: code behind a test that is unknown there is
 * reachable.  Whether a value can be the MPS device is reach_value.c's.
 */
#include "reach.h"
#include "reach_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "callers.h"
#include "cuda_code.h"
#include "cuda_script.h"
#include "members.h"
#include "parse.h"
#include "project.h"
#include "truth.h"

typedef mpsfix_truth truth;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static const char *last_part(const mpsfix_buf *b)
{
	const char *dot = strrchr(b->data, '.');

	return dot ? dot + 1 : b->data;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

truth mpsfix_reach__truth(const mpsfix_reach_ctx *cx, TSNode e, bool values_only)
{
	mpsfix_truth_ctx t = {.src = cx->src, .names = cx->names, .range = cx->range, .values_only = values_only};

	if (cx->spans) {
		/* a stream is known by the names it is kept in: not by values alone */
		t.streams = cx->spans->streams_read && !values_only ? &cx->spans->streams : NULL;
		t.flags = &cx->spans->flags;
		t.root = cx->spans->root;
	}
	return mpsfix_truth_of(&t, e);
}

static truth test(const mpsfix_reach_ctx *cx, TSNode e)
{
	return mpsfix_reach__truth(cx, e, false);
}

/* ---- early exits ---------------------------------------------------------- */

/* Does block `b` always leave it: its last statement returns, raises, exits? */
static bool leaves(const mpsfix_reach_ctx *cx, TSNode b)
{
	static const char *const exits[] = {"exit", "_exit", "quit", "skip", "skipTest", "fail"};
	TSNode last = {0};
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool out;

	mpsfix_kids k;
	TSNode c;

	mpsfix_kids_start(&k, b);
	while (mpsfix_kids_next(&k, &c))
		last = c;
	mpsfix_kids_end(&k);
	if (is(last, "return_statement") || is(last, "raise_statement") ||
	    is(last, "continue_statement") || is(last, "break_statement"))
		return true;
	if (!is(last, "expression_statement") || mpsfix_named_count(last) != 1)
		return false;
	last = ts_node_named_child(last, 0);
	out = is(last, "call") &&
	      mpsfix_dotted_name(ts_node_child_by_field_name(last, "function", 8), cx->src, &name) &&
	      in_list(last_part(&name), exits, MPSFIX_ARRAY_SIZE(exits));
	mpsfix_buf_release(&name);
	return out;
}

/* Does statement `s` end the block where the program runs on MPS? */
static bool exits_on_mps(const mpsfix_reach_ctx *cx, TSNode s)
{
	if (is(s, "if_statement"))
		return ts_node_is_null(ts_node_child_by_field_name(s, "alternative", 11)) &&
		       test(cx, ts_node_child_by_field_name(s, "condition", 9)) == MPSFIX_TRUE_ON_MPS &&
		       leaves(cx, ts_node_child_by_field_name(s, "consequence", 11));
	if (is(s, "assert_statement"))
		return test(cx, mpsfix_first_named(s)) == MPSFIX_FALSE_ON_MPS;
	return false;
}

bool mpsfix_reach_module_exits(const mpsfix_reach_ctx *cx, TSNode root)
{
	mpsfix_kids k;
	TSNode s;
	bool yes = false;

	mpsfix_kids_start(&k, root);
	while (!yes && mpsfix_kids_next(&k, &s))
		yes = exits_on_mps(cx, s);
	mpsfix_kids_end(&k);
	return yes;
}

/* A decorator that skips the function (or class) where the program runs on MPS. */
static bool skips_on_mps(const mpsfix_reach_ctx *cx, TSNode decorator)
{
	static const char *const cuda_only[] = {
		"require_cuda", "requires_cuda", "require_torch_cuda", "require_torch_gpu",
		"require_torch_multi_gpu", "require_multi_gpu", "require_multi_cuda",
		"require_triton", "require_deepspeed", "require_fp8",
	};
	TSNode e = mpsfix_first_named(decorator);
	TSNode fn = is(e, "call") ? ts_node_child_by_field_name(e, "function", 8) : e;
	TSNode args = is(e, "call") ? ts_node_child_by_field_name(e, "arguments", 9) : (TSNode){0};
	TSNode first = mpsfix_first_named(args);
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool skip = false;

	if (!ts_node_is_null(fn) && mpsfix_dotted_name(fn, cx->src, &name)) {
		const char *last = last_part(&name);

		if (in_list(last, cuda_only, MPSFIX_ARRAY_SIZE(cuda_only)))
			skip = true;
		else if ((!strcmp(last, "skipIf") || !strcmp(last, "skipif")) && !ts_node_is_null(first))
			skip = test(cx, first) == MPSFIX_TRUE_ON_MPS;
		else if (!strcmp(last, "skipUnless") && !ts_node_is_null(first))
			skip = test(cx, first) == MPSFIX_FALSE_ON_MPS;
		else if (!strcmp(last, "RunIf")) /* Lightning's RunIf(min_cuda_gpus=1) */
			skip = !ts_node_is_null(mpsfix_call_argument(args, cx->src, "min_cuda_gpus")) &&
			       is(mpsfix_call_argument(args, cx->src, "min_cuda_gpus"), "integer") &&
			       !mpsfix_node_text_is(mpsfix_call_argument(args, cx->src, "min_cuda_gpus"), cx->src, "0");
		else if (!strcmp(last, "xfail")) /* a failure on MPS is expected */
			skip = test(cx, mpsfix_call_argument(args, cx->src, "condition")) == MPSFIX_TRUE_ON_MPS;
	}
	mpsfix_buf_release(&name);
	return skip;
}

/* ---- reachability --------------------------------------------------------- */

static void add_span(mpsfix_reach_spans *sp, TSNode n)
{
	if (ts_node_is_null(n))
		return;
	mpsfix_grow((void **)&sp->items, &sp->cap, sp->len + 1, sizeof(*sp->items));
	sp->items[sp->len++] = (mpsfix_span){ts_node_start_byte(n), ts_node_end_byte(n)};
}

/* A span of code written for CUDA alone, with the calls that say so (cuda_code.h). */
static void add_cuda_fn(mpsfix_reach_spans *sp, TSNode n, const mpsfix_span *seen, size_t nseen)
{
	struct mpsfix_cuda_fn f = {{ts_node_start_byte(n), ts_node_end_byte(n)}, {{0, 0}, {0, 0}}, nseen, false};

	memcpy(f.seen, seen, nseen * sizeof(*seen));
	mpsfix_grow((void **)&sp->fns, &sp->capfns, sp->nfns + 1, sizeof(f));
	sp->fns[sp->nfns++] = f;
}

typedef struct {
	const mpsfix_reach_ctx *cx;
	mpsfix_reach_spans *sp;
} span_walk;

/*
 * The branches of if statement `n` (whose ancestors are `up`) that fail on
 * a Mac whenever they run (mpsfix_cuda_block() with MPSFIX_CUDA_FAILING,
 * read in the function around them: `.to("cuda")`, a helper of the module
 * or a method of the class that needs CUDA; not their own `x.cuda()`
 * calls, which MPS204 reports, each the others' evidence otherwise) are
 * written for CUDA, as a function is: their other code does not run on
 * MPS.  An if of a class's body is read in no function, and not at all.
 */
static void cuda_branches(span_walk *w, TSNode n, const mpsfix_ancestors *up)
{
	mpsfix_kids k;
	TSNode c, body, scope = {0};
	mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
	size_t nseen;

	/* the branches read the names of the function around them (its parameters may hide a helper) */
	for (size_t i = 1; ts_node_is_null(scope) && !ts_node_is_null(c = mpsfix_up(up, i)) &&
			   !is(c, "class_definition"); i++)
		if (is(c, "function_definition") || is(c, "module"))
			scope = c;
	if (ts_node_is_null(scope))
		return;
	mpsfix_kids_start(&k, n);
	while (mpsfix_kids_next(&k, &c)) {
		if (mpsfix_field_is(n, "consequence", c))
			body = c;
		else if (is(c, "elif_clause"))
			body = ts_node_child_by_field_name(c, "consequence", 11);
		else if (is(c, "else_clause"))
			body = ts_node_child_by_field_name(c, "body", 4);
		else
			continue;
		if (is(body, "block") &&
		    (nseen = mpsfix_cuda_block(&w->sp->defs, w->cx->names, w->cx->src, body, scope,
					       MPSFIX_CUDA_FAILING, seen)))
			add_cuda_fn(w->sp, body, seen, nseen);
	}
	mpsfix_kids_end(&k);
}

/* The parts of node `n` that cannot run on MPS, into the spans. */
static mpsfix_walk_action find_spans(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	span_walk *w = payload;
	const mpsfix_reach_ctx *cx = w->cx;
	const char *type = ts_node_type(n);
	mpsfix_kids k;
	TSNode c;

	if (!strcmp(type, "if_statement")) {
		/* the body of a test false on MPS; what follows a test true on MPS */
		truth t = test(cx, ts_node_child_by_field_name(n, "condition", 9));
		bool taken = t == MPSFIX_TRUE_ON_MPS;

		if (t == MPSFIX_FALSE_ON_MPS)
			add_span(w->sp, ts_node_child_by_field_name(n, "consequence", 11));
		mpsfix_kids_start(&k, n);
		while (mpsfix_kids_next(&k, &c)) {
			if (!is(c, "elif_clause") && !is(c, "else_clause"))
				continue;
			if (taken) {
				add_span(w->sp, c);
				continue;
			}
			if (is(c, "elif_clause")) {
				t = test(cx, ts_node_child_by_field_name(c, "condition", 9));
				if (t == MPSFIX_FALSE_ON_MPS)
					add_span(w->sp, ts_node_child_by_field_name(c, "consequence", 11));
				taken = t == MPSFIX_TRUE_ON_MPS;
			}
		}
		mpsfix_kids_end(&k);
		cuda_branches(w, n, up);
	} else if (!strcmp(type, "while_statement")) {
		if (test(cx, ts_node_child_by_field_name(n, "condition", 9)) == MPSFIX_FALSE_ON_MPS)
			add_span(w->sp, ts_node_child_by_field_name(n, "body", 4));
	} else if (!strcmp(type, "conditional_expression")) {
		/* A if T else B: named children A, T, B (comments aside) */
		TSNode part[3];
		uint32_t np = 0;
		truth t;

		mpsfix_kids_start(&k, n);
		while (np < 3 && mpsfix_kids_next(&k, &c))
			part[np++] = c;
		mpsfix_kids_end(&k);
		if (np == 3) {
			t = test(cx, part[1]);
			if (t == MPSFIX_FALSE_ON_MPS)
				add_span(w->sp, part[0]);
			else if (t == MPSFIX_TRUE_ON_MPS)
				add_span(w->sp, part[2]);
		}
	} else if (!strcmp(type, "boolean_operator")) {
		truth left = test(cx, ts_node_child_by_field_name(n, "left", 4));
		bool and = mpsfix_node_text_is(ts_node_child_by_field_name(n, "operator", 8), cx->src, "and");

		if ((and && left == MPSFIX_FALSE_ON_MPS) || (!and && left == MPSFIX_TRUE_ON_MPS))
			add_span(w->sp, ts_node_child_by_field_name(n, "right", 5));
	} else if (!strcmp(type, "block") || !strcmp(type, "module")) {
		/* after an early exit, the rest of the block */
		mpsfix_kids_start(&k, n);
		while (mpsfix_kids_next(&k, &c)) {
			if (exits_on_mps(cx, c)) {
				mpsfix_grow((void **)&w->sp->items, &w->sp->cap, w->sp->len + 1, sizeof(mpsfix_span));
				w->sp->items[w->sp->len++] = (mpsfix_span){ts_node_end_byte(c), ts_node_end_byte(n)};
				break;
			}
		}
		mpsfix_kids_end(&k);
	} else if (!strcmp(type, "function_definition")) {
		/* a function written for CUDA alone (cuda_code.h) */
		mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
		size_t nseen = mpsfix_cuda_function(&w->sp->defs, cx->names, cx->src,
						    ts_node_child_by_field_name(n, "body", 4), MPSFIX_CUDA_MOVES, seen);

		if (nseen)
			add_cuda_fn(w->sp, n, seen, nseen);
	} else if (!strcmp(type, "class_definition")) {
		/* a class whose __init__ is written for CUDA alone: no instance exists
		   on MPS, so its methods do not run there (its x.cuda() calls aside,
		   as the module's; not its static and class methods, nor the
		   statements of the class body) */
		TSNode body = ts_node_child_by_field_name(n, "body", 4), init = {0}, d;
		mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
		size_t nseen = 0;

		mpsfix_kids_start(&k, body);
		while (mpsfix_kids_next(&k, &c)) { /* the last __init__ is the one Python keeps */
			d = is(c, "decorated_definition") ? ts_node_child_by_field_name(c, "definition", 10) : c;
			if (is(d, "function_definition") &&
			    mpsfix_node_text_is(ts_node_child_by_field_name(d, "name", 4), cx->src, "__init__"))
				init = d;
		}
		mpsfix_kids_end(&k);
		if (!ts_node_is_null(init))
			nseen = mpsfix_cuda_function(&w->sp->defs, cx->names, cx->src,
						     ts_node_child_by_field_name(init, "body", 4), MPSFIX_CUDA_FAILING, seen);
		if (nseen && mpsfix_cuda_subclassed(&w->sp->defs, cx->src, n))
			nseen = 0; /* a subclass may make instances another way */
		mpsfix_kids_start(&k, body);
		while (nseen && mpsfix_kids_next(&k, &c))
			if ((is(c, "function_definition") || is(c, "decorated_definition")) &&
			    !mpsfix_members_instance_free(cx->src, c))
				add_cuda_fn(w->sp, c, seen, nseen);
		mpsfix_kids_end(&k);
		/* a class named for another accelerator (CUDA_Accelerator,
		   HPUFusedAdam): its methods run where that one is chosen (the
		   statements of its body run wherever it is defined) */
		d = ts_node_child_by_field_name(n, "name", 4);
		if (mpsfix_cuda_class_name(cx->src + ts_node_start_byte(d), ts_node_end_byte(d) - ts_node_start_byte(d)) &&
		    !mpsfix_cuda_subclassed(&w->sp->defs, cx->src, n)) {
			mpsfix_kids_start(&k, body);
			while (mpsfix_kids_next(&k, &c))
				if (is(c, "function_definition") || is(c, "decorated_definition") ||
				    is(c, "class_definition"))
					add_span(w->sp, c);
			mpsfix_kids_end(&k);
		}
	} else if (!strcmp(type, "decorated_definition")) {
		bool skip = false;

		mpsfix_kids_start(&k, n);
		while (!skip && mpsfix_kids_next(&k, &c))
			skip = is(c, "decorator") && skips_on_mps(cx, c);
		mpsfix_kids_end(&k);
		if (skip)
			add_span(w->sp, ts_node_child_by_field_name(n, "definition", 10));
	}
	return MPSFIX_WALK_DESCEND;
}

void mpsfix_reach_spans_release(mpsfix_reach_spans *s)
{
	free(s->items);
	free(s->fns);
	free(s->sorted);
	free(s->maxend);
	free(s->fn_parent);
	mpsfix_cuda_defs_release(&s->defs);
	mpsfix_truth_flags_free(s->flags);
	mpsfix_selfattr_index_free(s->selfattrs);
	free(s->attrs);
	memset(s, 0, sizeof(*s));
}

/* Is `node` a call `x.cuda(...)`? */
static bool cuda_move(const mpsfix_reach_ctx *cx, TSNode node)
{
	TSNode f = ts_node_child_by_field_name(node, "function", 8);

	return is(node, "call") && is(f, "attribute") &&
	       mpsfix_node_text_is(ts_node_child_by_field_name(f, "attribute", 9), cx->src, "cuda");
}

static int by_start(const void *a, const void *b)
{
	const mpsfix_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* the outer one first */
}

static int fn_by_start(const void *a, const void *b)
{
	const struct mpsfix_cuda_fn *x = a, *y = b;

	return by_start(&x->fn, &y->fn);
}

/* Sort the items once more when those added since the last sort are many. */
static void index_items(mpsfix_reach_spans *sp)
{
	if (sp->len - sp->nsorted <= 32 + sp->nsorted / 4)
		return;
	free(sp->sorted);
	free(sp->maxend);
	sp->sorted = mpsfix_xcalloc(sp->len, sizeof(*sp->sorted));
	sp->maxend = mpsfix_xcalloc(sp->len, sizeof(*sp->maxend));
	memcpy(sp->sorted, sp->items, sp->len * sizeof(*sp->items));
	qsort(sp->sorted, sp->len, sizeof(*sp->sorted), by_start);
	for (size_t i = 0; i < sp->len; i++)
		sp->maxend[i] = i && sp->maxend[i - 1] > sp->sorted[i].end ? sp->maxend[i - 1] : sp->sorted[i].end;
	sp->nsorted = sp->len;
}

/* Sort the fns, which are functions (or the module) and so nest, and find each one's parent. */
static void index_fns(mpsfix_reach_spans *sp)
{
	size_t depth = 0;
	long *stack;

	if (sp->nfns > 1)
		qsort(sp->fns, sp->nfns, sizeof(*sp->fns), fn_by_start);
	sp->fn_parent = mpsfix_xcalloc(sp->nfns ? sp->nfns : 1, sizeof(*sp->fn_parent));
	stack = mpsfix_xcalloc(sp->nfns ? sp->nfns : 1, sizeof(*stack));
	for (size_t i = 0; i < sp->nfns; i++) {
		while (depth && sp->fns[stack[depth - 1]].fn.end < sp->fns[i].fn.end)
			depth--;
		sp->fn_parent[i] = depth ? stack[depth - 1] : -1;
		stack[depth++] = (long)i;
	}
	free(stack);
}

/* The last of the first n spans of `a` (in `size` steps) that starts at or before `at`, or n. */
static size_t last_at(const void *a, size_t n, size_t size, size_t offset, uint32_t at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const mpsfix_span *s = (const mpsfix_span *)((const char *)a + mid * size + offset);

		if (s->start <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : n;
}

/* Does `node` lie in a span found to be unreachable? */
static bool unreachable(const mpsfix_reach_ctx *cx, TSNode node)
{
	uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
	mpsfix_reach_spans *sp = cx->spans;
	size_t k;

	index_items(sp);
	k = last_at(sp->sorted, sp->nsorted, sizeof(*sp->sorted), 0, start);
	if (k < sp->nsorted && sp->maxend[k] >= end)
		return true;
	for (size_t i = sp->nsorted; i < sp->len; i++)
		if (start >= sp->items[i].start && end <= sp->items[i].end)
			return true;
	/* the innermost fn that starts before the node, then the fns around it */
	k = last_at(sp->fns, sp->nfns, sizeof(*sp->fns), offsetof(struct mpsfix_cuda_fn, fn), start);
	for (long i = k < sp->nfns ? (long)k : -1; i >= 0; i = sp->fn_parent[i]) {
		const struct mpsfix_cuda_fn *f = &sp->fns[i];

		if (end > f->fn.end || (f->moves && cuda_move(cx, node)))
			continue;
		for (size_t j = 0; j < f->nseen; j++)
			if (f->seen[j].end <= start || f->seen[j].start >= end)
				return true; /* a call apart from the match says so */
	}
	return false;
}

/* callers.h's hooks: a reference is judged as a match would be */
static bool reference_unreachable(void *payload, TSNode at)
{
	return unreachable(payload, at);
}

static void function_unreachable(void *payload, TSNode def)
{
	const mpsfix_reach_ctx *cx = payload;

	add_span(cx->spans, def);
}

/* Does no other file of the project name `name` (callers.h)? */
static bool unnamed_elsewhere(void *payload, const char *name, size_t n)
{
	const mpsfix_reach_ctx *cx = payload;

	return mpsfix_project_unnamed(cx->defaults->project, cx->defaults->path, name, n);
}

bool mpsfix_reach_mps(mpsfix_reach_ctx *cx, TSNode node, TSNode root)
{
	mpsfix_reach_spans *sp = cx->spans;

	if (!sp->defs.read)
		mpsfix_cuda_defs_read(&sp->defs, cx->names, cx->src, root);
	sp->root = root;
	if (!sp->streams_read) {
		mpsfix_truth_ctx t = {.src = cx->src, .names = cx->names, .range = cx->range};

		mpsfix_truth_cuda_streams(&sp->streams, &t, root);
		sp->streams_read = true;
	}
	if (cx->cuda_file < 0)
		cx->cuda_file = mpsfix_cuda_script(&sp->defs, cx->names, cx->src, root, true);
	if (cx->cuda_file)
		return false; /* nothing else to find out */
	if (!sp->built) {
		/* one walk of the text finds what cannot run; a match is looked up in it */
		span_walk w = {cx, sp};
		mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
		size_t nseen;

		/* the module's own statements (a notebook's cells): a call that fails
		   on a Mac, or else an x.cuda(), which is no evidence against a match
		   that is an x.cuda() itself (MPS204 reports each of them) */
		if ((nseen = mpsfix_cuda_function(&sp->defs, cx->names, cx->src, root, MPSFIX_CUDA_FAILING, seen))) {
			add_cuda_fn(sp, root, seen, nseen);
		} else if ((nseen = mpsfix_cuda_function(&sp->defs, cx->names, cx->src, root,
							 MPSFIX_CUDA_FAILING | MPSFIX_CUDA_MOVES, seen))) {
			add_cuda_fn(sp, root, seen, nseen);
			sp->fns[sp->nfns - 1].moves = true;
		}
		mpsfix_walk_parents(root, find_spans, &w);
		index_fns(sp);
		/* then the functions only that code calls (callers.h), if any code is unreachable */
		if (sp->len || sp->nfns)
			mpsfix_callers_unreached(root, cx->src, &(mpsfix_callers_hooks){
				reference_unreachable, function_unreachable,
				cx->defaults && cx->defaults->project ? unnamed_elsewhere : NULL, cx});
		sp->built = true;
	}
	return !unreachable(cx, node);
}
