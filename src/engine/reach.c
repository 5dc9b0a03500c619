/*
 * reach.c: can code run on MPS, and can a value be the MPS device?  See
 * reach.h for the forms.  A test is judged as "false on MPS" (it holds only
 * where CUDA is in use) or "true on MPS"; anything else is unknown, and
 * unknown code is reachable.
 */
#include "reach.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_code.h"
#include "literal.h"
#include "parse.h"

#define MAX_DEPTH 12

typedef enum {
	UNKNOWN = 0,
	FALSE_ON_MPS, /* the test fails whenever the program runs on MPS */
	TRUE_ON_MPS   /* the test holds whenever the program runs on MPS */
} truth;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* Named children of `n` (none for a null node, which tree-sitter does not check). */
static uint32_t nkids(TSNode n)
{
	return ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
}

/* The first named child that is not a comment, or a null node. */
static TSNode first_kid(TSNode n)
{
	for (uint32_t i = 0; i < nkids(n); i++)
		if (!ts_node_is_extra(ts_node_named_child(n, i)))
			return ts_node_named_child(n, i);
	return (TSNode){0};
}

/*
 * The named children of a node in order, through a cursor: a module can hold
 * thousands of statements, and ts_node_named_child(n, i) walks i of them.
 */
typedef struct {
	TSTreeCursor cur;
	bool live, more;
} kids;

static void kids_start(kids *k, TSNode n)
{
	k->live = !ts_node_is_null(n);
	k->more = false;
	if (k->live) {
		k->cur = ts_tree_cursor_new(n);
		k->more = ts_tree_cursor_goto_first_child(&k->cur);
	}
}

static bool kids_next(kids *k, TSNode *out)
{
	while (k->more) {
		TSNode c = ts_tree_cursor_current_node(&k->cur);

		k->more = ts_tree_cursor_goto_next_sibling(&k->cur);
		if (ts_node_is_named(c) && !ts_node_is_extra(c)) {
			*out = c;
			return true;
		}
	}
	return false;
}

static void kids_end(kids *k)
{
	if (k->live)
		ts_tree_cursor_delete(&k->cur);
	k->live = false;
}

static truth flip(truth t)
{
	return t == FALSE_ON_MPS ? TRUE_ON_MPS : t == TRUE_ON_MPS ? FALSE_ON_MPS : UNKNOWN;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The expression inside parentheses (and comments). */
static TSNode bare(TSNode n)
{
	while (is(n, "parenthesized_expression") && nkids(n) > 0) {
		TSNode inner = {0};

		for (uint32_t i = 0; i < nkids(n); i++)
			if (!ts_node_is_extra(ts_node_named_child(n, i)))
				inner = ts_node_named_child(n, i);
		if (ts_node_is_null(inner))
			break;
		n = inner;
	}
	return n;
}

/* The qualified (or, unresolved, dotted) name of `n` into `out`; false if it has none. */
static bool name_of(const mpsfix_reach_ctx *cx, TSNode n, mpsfix_buf *out)
{
	return mpsfix_names_name_of(cx->names, n, cx->src, out);
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

/* The decoded value of a plain string literal (owned by `lit`), or NULL. */
static const char *string_value(TSNode n, const char *src, mpsfix_literal *lit)
{
	if (!is(n, "string") || !mpsfix_literal_from_node(lit, n, src))
		return NULL;
	if (lit->type != MPSFIX_LIT_STRING) {
		mpsfix_literal_release(lit);
		return NULL;
	}
	return lit->s;
}

/* A device string's kind: 'c' for "cuda..." (and "nccl"), 'm' for "mps...", 0 otherwise. */
static char device_kind(const char *s)
{
	if (starts(s, "cuda") || !strcmp(s, "nccl"))
		return 'c';
	if (starts(s, "mps"))
		return 'm';
	return 0;
}

/* The kinds of the strings of a list, tuple or set literal: bit 1 cuda, 2 mps, 4 other. */
static int list_kinds(TSNode n, const char *src)
{
	int kinds = 0;

	n = bare(n);
	if (!is(n, "list") && !is(n, "tuple") && !is(n, "set"))
		return -1;
	for (uint32_t i = 0; i < nkids(n); i++) {
		TSNode e = ts_node_named_child(n, i);
		mpsfix_literal lit;
		const char *v;
		char k;

		if (ts_node_is_extra(e))
			continue;
		if (!(v = string_value(e, src, &lit)))
			return -1;
		k = device_kind(v);
		kinds |= k == 'c' ? 1 : k == 'm' ? 2 : 4;
		mpsfix_literal_release(&lit);
	}
	return kinds;
}

static truth test(const mpsfix_reach_ctx *cx, TSNode e, int depth);

/* A call in a test: torch.cuda.is_available(), is_torch_mps_available(), s.startswith("cuda"). */
static truth call_test(const mpsfix_reach_ctx *cx, TSNode e)
{
	static const char *const cuda_calls[] = {
		"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.is_initialized",
		"torch.cuda.is_bf16_supported", "torch.backends.cudnn.is_available",
		"torch.distributed.is_nccl_available",
	};
	static const char *const mps_calls[] = {
		"torch.backends.mps.is_available", "torch.backends.mps.is_built", "torch.mps.is_available",
	};
	TSNode fn = ts_node_child_by_field_name(e, "function", 8);
	TSNode args = ts_node_child_by_field_name(e, "arguments", 9);
	mpsfix_buf name = MPSFIX_BUF_INIT;
	truth t = UNKNOWN;

	if (is(fn, "attribute") && mpsfix_node_text_is(ts_node_child_by_field_name(fn, "attribute", 9),
						       cx->src, "startswith")) {
		TSNode arg = first_kid(args);
		mpsfix_literal lit;
		const char *v = string_value(arg, cx->src, &lit);

		if (v) {
			t = device_kind(v) == 'c' ? FALSE_ON_MPS : device_kind(v) == 'm' ? TRUE_ON_MPS : UNKNOWN;
			mpsfix_literal_release(&lit);
		}
		return t;
	}
	if (mpsfix_node_text_is(fn, cx->src, "hasattr") && nkids(args) == 2) {
		/* hasattr(torch, "accelerator"): torch.accelerator came with 2.6 */
		mpsfix_literal lit;
		const char *v = string_value(ts_node_named_child(args, 1), cx->src, &lit);

		if (v && !strcmp(v, "accelerator") && name_of(cx, ts_node_named_child(args, 0), &name) &&
		    !strcmp(name.data, "torch") && cx->range.hi < MPSFIX_TORCH_VER(2, 6))
			t = FALSE_ON_MPS;
		if (v)
			mpsfix_literal_release(&lit);
		mpsfix_buf_release(&name);
		return t;
	}
	if (name_of(cx, fn, &name)) {
		const char *last = last_part(&name);

		if (in_list(name.data, cuda_calls, MPSFIX_ARRAY_SIZE(cuda_calls)) ||
		    (strstr(last, "cuda") && strstr(last, "available")))
			t = FALSE_ON_MPS;
		else if (in_list(name.data, mps_calls, MPSFIX_ARRAY_SIZE(mps_calls)) ||
			 (strstr(last, "mps") && strstr(last, "available")))
			t = TRUE_ON_MPS;
	}
	mpsfix_buf_release(&name);
	return t;
}

/* A flag that says CUDA is in use: args.cuda, use_cuda, x.is_cuda, torch.version.cuda;
 * or that it is not: args.no_cuda, disable_cuda (a Mac runs with the flag set). */
static truth flag_test(const mpsfix_reach_ctx *cx, TSNode e)
{
	static const char *const cuda_flags[] = {
		"cuda", "use_cuda", "is_cuda", "on_cuda", "has_cuda", "with_cuda", "using_cuda",
		"cuda_available", "cuda_is_available", "is_cuda_available",
	};
	static const char *const no_cuda_flags[] = {"no_cuda", "disable_cuda", "without_cuda"};
	mpsfix_buf name = MPSFIX_BUF_INIT;
	truth t = UNKNOWN;

	if (!ts_node_is_null(e) && mpsfix_dotted_name(e, cx->src, &name)) {
		if (in_list(last_part(&name), cuda_flags, MPSFIX_ARRAY_SIZE(cuda_flags)))
			t = FALSE_ON_MPS;
		else if (!strcmp(last_part(&name), "is_mps") ||
			 in_list(last_part(&name), no_cuda_flags, MPSFIX_ARRAY_SIZE(no_cuda_flags)))
			t = TRUE_ON_MPS;
	}
	mpsfix_buf_release(&name);
	return t;
}

/* `a OP b` with one operator: device == "cuda", x.type != "mps", "cuda" in str(d), ... */
static truth compare_test(const mpsfix_reach_ctx *cx, TSNode e, int depth)
{
	TSNode left = {0}, right = {0};
	char op[8] = "";
	uint32_t nops = 0, noperands = 0;
	mpsfix_literal ll, rl;
	const char *lv, *rv;
	truth t = UNKNOWN;
	char k;

	for (uint32_t i = 0; i < ts_node_child_count(e); i++) {
		TSNode c = ts_node_child(e, i);

		if (ts_node_is_extra(c))
			continue;
		if (ts_node_is_named(c)) {
			if (noperands++ == 0)
				left = c;
			else
				right = c;
		} else {
			uint32_t n = ts_node_end_byte(c) - ts_node_start_byte(c);

			if (nops++ == 0 && n < sizeof(op)) {
				memcpy(op, cx->src + ts_node_start_byte(c), n);
				op[n] = '\0';
			}
		}
	}
	/* `not in` and `is not` are one operator of two tokens */
	if (noperands != 2 || !(nops == 1 || (nops == 2 && (!strcmp(op, "not") || !strcmp(op, "is")))))
		return UNKNOWN;
	if (nops == 2)
		strcpy(op, !strcmp(op, "not") ? "not in" : "is not");
	left = bare(left);
	right = bare(right);
	lv = string_value(left, cx->src, &ll);
	rv = string_value(right, cx->src, &rl);
	if (!strcmp(op, "==") || !strcmp(op, "!=")) {
		k = device_kind(lv ? lv : rv ? rv : "");
		if (k)
			t = (k == 'c') == !strcmp(op, "==") ? FALSE_ON_MPS : TRUE_ON_MPS;
	} else if (!strcmp(op, "in") || !strcmp(op, "not in")) {
		int kinds = list_kinds(right, cx->src);

		if (lv && device_kind(lv)) /* "cuda" in str(device) */
			t = device_kind(lv) == 'c' ? FALSE_ON_MPS : TRUE_ON_MPS;
		else if (kinds >= 0 && (kinds & 2) == 0 && (kinds & 1)) /* x in ("cuda", "xpu") */
			t = FALSE_ON_MPS;
		else if (kinds == 2) /* x in ("mps",) */
			t = TRUE_ON_MPS;
		if (!strcmp(op, "not in"))
			t = flip(t);
	} else if (!strcmp(op, "is not") || !strcmp(op, "is")) {
		mpsfix_buf name = MPSFIX_BUF_INIT;

		/* torch.version.cuda is None on a Mac */
		if (is(right, "none") && name_of(cx, left, &name) && !strcmp(name.data, "torch.version.cuda"))
			t = !strcmp(op, "is not") ? FALSE_ON_MPS : TRUE_ON_MPS;
		mpsfix_buf_release(&name);
	} else if (!strcmp(op, ">") || !strcmp(op, ">=")) {
		/* torch.cuda.device_count() > 0 */
		if (is(left, "call") && test(cx, left, depth + 1) == FALSE_ON_MPS && is(right, "integer"))
			t = FALSE_ON_MPS;
	}
	if (lv)
		mpsfix_literal_release(&ll);
	if (rv)
		mpsfix_literal_release(&rl);
	return t;
}

static truth test(const mpsfix_reach_ctx *cx, TSNode e, int depth)
{
	const char *type;

	e = bare(e);
	if (ts_node_is_null(e) || depth > MAX_DEPTH)
		return UNKNOWN;
	type = ts_node_type(e);
	if (!strcmp(type, "not_operator"))
		return flip(test(cx, ts_node_child_by_field_name(e, "argument", 8), depth + 1));
	if (!strcmp(type, "boolean_operator")) {
		TSNode op = ts_node_child_by_field_name(e, "operator", 8);
		truth a = test(cx, ts_node_child_by_field_name(e, "left", 4), depth + 1);
		truth b = test(cx, ts_node_child_by_field_name(e, "right", 5), depth + 1);

		if (mpsfix_node_text_is(op, cx->src, "and"))
			return a == FALSE_ON_MPS || b == FALSE_ON_MPS ? FALSE_ON_MPS
			       : a == TRUE_ON_MPS && b == TRUE_ON_MPS ? TRUE_ON_MPS : UNKNOWN;
		return a == TRUE_ON_MPS || b == TRUE_ON_MPS ? TRUE_ON_MPS
		       : a == FALSE_ON_MPS && b == FALSE_ON_MPS ? FALSE_ON_MPS : UNKNOWN;
	}
	if (!strcmp(type, "call"))
		return call_test(cx, e);
	if (!strcmp(type, "comparison_operator"))
		return compare_test(cx, e, depth);
	if (!strcmp(type, "attribute") || !strcmp(type, "identifier"))
		return flag_test(cx, e);
	return UNKNOWN;
}

/* ---- early exits ---------------------------------------------------------- */

/* Does block `b` always leave it: its last statement returns, raises, exits? */
static bool leaves(const mpsfix_reach_ctx *cx, TSNode b)
{
	static const char *const exits[] = {"exit", "_exit", "quit", "skip", "skipTest", "fail"};
	TSNode last = {0};
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool out;

	kids k;
	TSNode c;

	kids_start(&k, b);
	while (kids_next(&k, &c))
		last = c;
	kids_end(&k);
	if (is(last, "return_statement") || is(last, "raise_statement") ||
	    is(last, "continue_statement") || is(last, "break_statement"))
		return true;
	if (!is(last, "expression_statement") || nkids(last) != 1)
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
		       test(cx, ts_node_child_by_field_name(s, "condition", 9), 0) == TRUE_ON_MPS &&
		       leaves(cx, ts_node_child_by_field_name(s, "consequence", 11));
	if (is(s, "assert_statement"))
		return test(cx, first_kid(s), 0) == FALSE_ON_MPS;
	return false;
}

/* The argument `name=` of call arguments `args`, else the first positional one. */
static TSNode keyword_or_first(const mpsfix_reach_ctx *cx, TSNode args, const char *name)
{
	for (uint32_t i = 0; i < nkids(args); i++) {
		TSNode a = ts_node_named_child(args, i);

		if (is(a, "keyword_argument") &&
		    mpsfix_node_text_is(ts_node_child_by_field_name(a, "name", 4), cx->src, name))
			return ts_node_child_by_field_name(a, "value", 5);
	}
	return is(first_kid(args), "keyword_argument") ? (TSNode){0} : first_kid(args);
}

/* A decorator that skips the function (or class) where the program runs on MPS. */
static bool skips_on_mps(const mpsfix_reach_ctx *cx, TSNode decorator)
{
	static const char *const cuda_only[] = {
		"require_cuda", "requires_cuda", "require_torch_cuda", "require_torch_gpu",
		"require_torch_multi_gpu", "require_multi_gpu", "require_multi_cuda",
		"require_triton", "require_deepspeed", "require_fp8",
	};
	TSNode e = first_kid(decorator);
	TSNode fn = is(e, "call") ? ts_node_child_by_field_name(e, "function", 8) : e;
	TSNode args = is(e, "call") ? ts_node_child_by_field_name(e, "arguments", 9) : (TSNode){0};
	TSNode first = first_kid(args);
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool skip = false;

	if (!ts_node_is_null(fn) && mpsfix_dotted_name(fn, cx->src, &name)) {
		const char *last = last_part(&name);

		if (in_list(last, cuda_only, MPSFIX_ARRAY_SIZE(cuda_only)))
			skip = true;
		else if ((!strcmp(last, "skipIf") || !strcmp(last, "skipif")) && !ts_node_is_null(first))
			skip = test(cx, first, 0) == TRUE_ON_MPS;
		else if (!strcmp(last, "skipUnless") && !ts_node_is_null(first))
			skip = test(cx, first, 0) == FALSE_ON_MPS;
		else if (!strcmp(last, "RunIf")) /* Lightning's RunIf(min_cuda_gpus=1) */
			skip = !ts_node_is_null(keyword_or_first(cx, args, "min_cuda_gpus")) &&
			       is(keyword_or_first(cx, args, "min_cuda_gpus"), "integer") &&
			       !mpsfix_node_text_is(keyword_or_first(cx, args, "min_cuda_gpus"), cx->src, "0");
		else if (!strcmp(last, "xfail")) /* a failure on MPS is expected */
			skip = test(cx, keyword_or_first(cx, args, "condition"), 0) == TRUE_ON_MPS;
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

typedef struct {
	const mpsfix_reach_ctx *cx;
	mpsfix_reach_spans *sp;
} span_walk;

/* The parts of node `n` that cannot run on MPS, into the spans. */
static mpsfix_walk_action find_spans(TSNode n, void *payload)
{
	span_walk *w = payload;
	const mpsfix_reach_ctx *cx = w->cx;
	const char *type = ts_node_type(n);
	kids k;
	TSNode c;

	if (!strcmp(type, "if_statement")) {
		/* the body of a test false on MPS; what follows a test true on MPS */
		truth t = test(cx, ts_node_child_by_field_name(n, "condition", 9), 0);
		bool taken = t == TRUE_ON_MPS;

		if (t == FALSE_ON_MPS)
			add_span(w->sp, ts_node_child_by_field_name(n, "consequence", 11));
		kids_start(&k, n);
		while (kids_next(&k, &c)) {
			if (!is(c, "elif_clause") && !is(c, "else_clause"))
				continue;
			if (taken) {
				add_span(w->sp, c);
				continue;
			}
			if (is(c, "elif_clause")) {
				t = test(cx, ts_node_child_by_field_name(c, "condition", 9), 0);
				if (t == FALSE_ON_MPS)
					add_span(w->sp, ts_node_child_by_field_name(c, "consequence", 11));
				taken = t == TRUE_ON_MPS;
			}
		}
		kids_end(&k);
	} else if (!strcmp(type, "while_statement")) {
		if (test(cx, ts_node_child_by_field_name(n, "condition", 9), 0) == FALSE_ON_MPS)
			add_span(w->sp, ts_node_child_by_field_name(n, "body", 4));
	} else if (!strcmp(type, "conditional_expression")) {
		/* A if T else B: named children A, T, B (comments aside) */
		TSNode part[3];
		uint32_t np = 0;
		truth t;

		kids_start(&k, n);
		while (np < 3 && kids_next(&k, &c))
			part[np++] = c;
		kids_end(&k);
		if (np == 3) {
			t = test(cx, part[1], 0);
			if (t == FALSE_ON_MPS)
				add_span(w->sp, part[0]);
			else if (t == TRUE_ON_MPS)
				add_span(w->sp, part[2]);
		}
	} else if (!strcmp(type, "boolean_operator")) {
		truth left = test(cx, ts_node_child_by_field_name(n, "left", 4), 0);
		bool and = mpsfix_node_text_is(ts_node_child_by_field_name(n, "operator", 8), cx->src, "and");

		if ((and && left == FALSE_ON_MPS) || (!and && left == TRUE_ON_MPS))
			add_span(w->sp, ts_node_child_by_field_name(n, "right", 5));
	} else if (!strcmp(type, "block") || !strcmp(type, "module")) {
		/* after an early exit, the rest of the block */
		kids_start(&k, n);
		while (kids_next(&k, &c)) {
			if (exits_on_mps(cx, c)) {
				mpsfix_grow((void **)&w->sp->items, &w->sp->cap, w->sp->len + 1, sizeof(mpsfix_span));
				w->sp->items[w->sp->len++] = (mpsfix_span){ts_node_end_byte(c), ts_node_end_byte(n)};
				break;
			}
		}
		kids_end(&k);
	} else if (!strcmp(type, "function_definition")) {
		/* a function written for CUDA alone (cuda_code.h) */
		struct mpsfix_cuda_fn f = {{ts_node_start_byte(n), ts_node_end_byte(n)}, {{0, 0}, {0, 0}}, 0};

		f.nseen = mpsfix_cuda_function(cx->names, cx->src, ts_node_child_by_field_name(n, "body", 4), f.seen);
		if (f.nseen) {
			mpsfix_grow((void **)&w->sp->fns, &w->sp->capfns, w->sp->nfns + 1, sizeof(f));
			w->sp->fns[w->sp->nfns++] = f;
		}
	} else if (!strcmp(type, "decorated_definition")) {
		bool skip = false;

		kids_start(&k, n);
		while (!skip && kids_next(&k, &c))
			skip = is(c, "decorator") && skips_on_mps(cx, c);
		kids_end(&k);
		if (skip)
			add_span(w->sp, ts_node_child_by_field_name(n, "definition", 10));
	}
	return MPSFIX_WALK_DESCEND;
}

void mpsfix_reach_spans_release(mpsfix_reach_spans *s)
{
	free(s->items);
	free(s->fns);
	memset(s, 0, sizeof(*s));
}

/* Is call `n` one that sets CUDA up: init_process_group("nccl"), torch.cuda.set_device()? */
static bool sets_up_cuda(const mpsfix_reach_ctx *cx, TSNode n)
{
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool yes = false;

	if (name_of(cx, ts_node_child_by_field_name(n, "function", 8), &name)) {
		const char *last = last_part(&name);

		if (!strcmp(name.data, "torch.cuda.set_device")) {
			yes = true;
		} else if (!strcmp(last, "init_process_group")) {
			mpsfix_literal lit;
			const char *v = string_value(keyword_or_first(cx, ts_node_child_by_field_name(n, "arguments", 9),
								      "backend"), cx->src, &lit);

			yes = v && !strcmp(v, "nccl");
			if (v)
				mpsfix_literal_release(&lit);
		}
	}
	mpsfix_buf_release(&name);
	return yes;
}

/* The functions defined at the module's top level, by name (read once per text). */
typedef struct {
	TSNode *names, *bodies;
	size_t len, cap;
} module_defs;

static void read_defs(module_defs *fd, TSNode root)
{
	kids k;
	TSNode d;

	kids_start(&k, root);
	while (kids_next(&k, &d)) {
		if (is(d, "decorated_definition"))
			d = ts_node_child_by_field_name(d, "definition", 10);
		if (!is(d, "function_definition"))
			continue;
		if (fd->len == fd->cap) {
			fd->cap = fd->cap ? 2 * fd->cap : 16;
			fd->names = mpsfix_xrealloc(fd->names, fd->cap * sizeof(TSNode));
			fd->bodies = mpsfix_xrealloc(fd->bodies, fd->cap * sizeof(TSNode));
		}
		fd->names[fd->len] = ts_node_child_by_field_name(d, "name", 4);
		fd->bodies[fd->len++] = ts_node_child_by_field_name(d, "body", 4);
	}
	kids_end(&k);
}

/* The body of the module-level function called `name`, or a null node. */
static TSNode module_function(const mpsfix_reach_ctx *cx, const module_defs *fd, TSNode name)
{
	uint32_t len = ts_node_end_byte(name) - ts_node_start_byte(name);

	for (size_t i = 0; i < fd->len; i++)
		if (ts_node_end_byte(fd->names[i]) - ts_node_start_byte(fd->names[i]) == len &&
		    !memcmp(cx->src + ts_node_start_byte(fd->names[i]), cx->src + ts_node_start_byte(name), len))
			return fd->bodies[i];
	return (TSNode){0};
}

/* Does import statement `s` (of the module body) import a CUDA-only module? */
static bool imports_cuda_only(const mpsfix_reach_ctx *cx, TSNode s)
{
	if (is(s, "import_from_statement")) {
		TSNode m = ts_node_child_by_field_name(s, "module_name", 11);

		return is(m, "dotted_name") &&
		       mpsfix_cuda_module(cx->src + ts_node_start_byte(m), ts_node_end_byte(m) - ts_node_start_byte(m));
	}
	if (!is(s, "import_statement"))
		return false;
	for (uint32_t i = 0; i < nkids(s); i++) {
		TSNode m = ts_node_named_child(s, i);

		if (is(m, "aliased_import"))
			m = ts_node_child_by_field_name(m, "name", 4);
		if (is(m, "dotted_name") &&
		    mpsfix_cuda_module(cx->src + ts_node_start_byte(m), ts_node_end_byte(m) - ts_node_start_byte(m)))
			return true;
	}
	return false;
}

/*
 * Does block `b` set CUDA up unconditionally: one of its statements is such
 * a call, or calls a function of the module (or hands one to a call, as
 * `mp.spawn(main, ...)` does) whose body does?
 */
static bool statement_sets_up_cuda(const mpsfix_reach_ctx *cx, const module_defs *fd, TSNode root, TSNode b,
				   TSNode s, int depth);

static bool block_sets_up_cuda(const mpsfix_reach_ctx *cx, const module_defs *fd, TSNode root, TSNode b, int depth)
{
	kids k;
	TSNode s;
	bool yes = false;

	kids_start(&k, b);
	while (!yes && depth < 4 && kids_next(&k, &s))
		yes = statement_sets_up_cuda(cx, fd, root, b, s, depth);
	kids_end(&k);
	return yes;
}

/* Does statement `s` of block `b` set CUDA up (block_sets_up_cuda)? */
static bool statement_sets_up_cuda(const mpsfix_reach_ctx *cx, const module_defs *fd, TSNode root, TSNode b,
				   TSNode s, int depth)
{
	TSNode cond = is(s, "if_statement") ? ts_node_child_by_field_name(s, "condition", 9) : (TSNode){0};
	TSNode e, fn, args;

	if (is(cond, "comparison_operator") && ts_node_eq(b, root) &&
	    mpsfix_node_text_is(first_kid(cond), cx->src, "__name__"))
		/* if __name__ == "__main__": runs when the file is run */
		return block_sets_up_cuda(cx, fd, root, ts_node_child_by_field_name(s, "consequence", 11), depth);
	if (ts_node_eq(b, root) && imports_cuda_only(cx, s))
		return true;
	if (!is(s, "expression_statement"))
		return false;
	if (mpsfix_cuda_statement(cx->names, cx->src, s))
		return true; /* model.to(torch.device("cuda")), x.cuda() */
	e = first_kid(s);
	if (is(e, "assignment"))
		e = ts_node_child_by_field_name(e, "right", 5);
	if (!is(e, "call"))
		return false;
	if (sets_up_cuda(cx, e))
		return true;
	fn = ts_node_child_by_field_name(e, "function", 8);
	if (is(fn, "identifier") && block_sets_up_cuda(cx, fd, root, module_function(cx, fd, fn), depth + 1))
		return true;
	args = ts_node_child_by_field_name(e, "arguments", 9);
	for (uint32_t k = 0; k < nkids(args); k++)
		if (is(ts_node_named_child(args, k), "identifier") &&
		    block_sets_up_cuda(cx, fd, root, module_function(cx, fd, ts_node_named_child(args, k)), depth + 1))
			return true;
	return false;
}

bool mpsfix_reach_mps(mpsfix_reach_ctx *cx, TSNode node, TSNode root)
{
	uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);

	if (cx->cuda_file < 0) {
		module_defs fd = {0};

		read_defs(&fd, root);
		cx->cuda_file = block_sets_up_cuda(cx, &fd, root, root, 0);
		free(fd.names);
		free(fd.bodies);
	}
	if (cx->cuda_file)
		return false;
	/* one walk of the text finds what cannot run; a match is looked up in it */
	if (!cx->spans->built) {
		span_walk w = {cx, cx->spans};

		mpsfix_walk(root, find_spans, &w);
		cx->spans->built = true;
	}
	for (size_t i = 0; i < cx->spans->len; i++)
		if (start >= cx->spans->items[i].start && end <= cx->spans->items[i].end)
			return false;
	for (size_t i = 0; i < cx->spans->nfns; i++) {
		const struct mpsfix_cuda_fn *f = &cx->spans->fns[i];

		if (start < f->fn.start || end > f->fn.end)
			continue;
		for (size_t j = 0; j < f->nseen; j++)
			if (f->seen[j].start < start || f->seen[j].end > end)
				return false;
	}
	return true;
}

/* ---- values --------------------------------------------------------------- */

typedef struct {
	const char *src;
	TSNode name;          /* the identifier used */
	uint32_t before;      /* assignments that start before this byte */
	TSNode value;         /* the last one's right side */
	uint32_t at;
	bool found;
} last_assignment;

static mpsfix_walk_action find_assignment(TSNode n, void *payload)
{
	last_assignment *la = payload;
	const char *type = ts_node_type(n);

	if (ts_node_start_byte(n) >= la->before)
		return MPSFIX_WALK_SKIP;
	if (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") ||
	    !strcmp(type, "lambda"))
		return MPSFIX_WALK_SKIP; /* another scope */
	if (!strcmp(type, "assignment")) {
		TSNode left = ts_node_child_by_field_name(n, "left", 4);
		TSNode right = ts_node_child_by_field_name(n, "right", 5);
		uint32_t len = ts_node_end_byte(la->name) - ts_node_start_byte(la->name);

		if (is(left, "identifier") && !ts_node_is_null(right) &&
		    ts_node_end_byte(left) - ts_node_start_byte(left) == len &&
		    !memcmp(la->src + ts_node_start_byte(left), la->src + ts_node_start_byte(la->name), len) &&
		    (!la->found || ts_node_start_byte(n) > la->at)) {
			la->found = true;
			la->at = ts_node_start_byte(n);
			la->value = right;
		}
	}
	return MPSFIX_WALK_DESCEND;
}

static bool may_be_mps(const mpsfix_reach_ctx *cx, TSNode v, int depth);

/* The right side of the last assignment to identifier `id` before it, in its function. */
static bool assigned_value(const mpsfix_reach_ctx *cx, TSNode id, TSNode *out)
{
	TSNode scope = ts_node_parent(id);
	last_assignment la = {.src = cx->src, .name = id, .before = ts_node_start_byte(id)};
	kids k;
	TSNode s;

	while (!ts_node_is_null(scope) && !is(scope, "function_definition") && !is(scope, "module"))
		scope = ts_node_parent(scope);
	if (ts_node_is_null(scope))
		return false;
	if (is(scope, "function_definition"))
		scope = ts_node_child_by_field_name(scope, "body", 4);
	kids_start(&k, scope);
	while (kids_next(&k, &s))
		mpsfix_walk(s, find_assignment, &la);
	kids_end(&k);
	*out = la.value;
	return la.found;
}

/* Does test `t` say `a != "mps"` (alone or as a part of an `and`)? */
static bool says_not_mps(const mpsfix_reach_ctx *cx, TSNode t, TSNode a, int depth)
{
	t = bare(t);
	if (depth > MAX_DEPTH)
		return false;
	if (is(t, "boolean_operator") && mpsfix_node_text_is(ts_node_child_by_field_name(t, "operator", 8),
							     cx->src, "and"))
		return says_not_mps(cx, ts_node_child_by_field_name(t, "left", 4), a, depth + 1) ||
		       says_not_mps(cx, ts_node_child_by_field_name(t, "right", 5), a, depth + 1);
	if (is(t, "comparison_operator") && test(cx, t, 0) == FALSE_ON_MPS) {
		TSNode left = bare(ts_node_named_child(t, 0));
		uint32_t len = ts_node_end_byte(left) - ts_node_start_byte(left);

		a = bare(a);
		return len == ts_node_end_byte(a) - ts_node_start_byte(a) &&
		       !memcmp(cx->src + ts_node_start_byte(left), cx->src + ts_node_start_byte(a), len);
	}
	return false;
}

static bool may_be_mps(const mpsfix_reach_ctx *cx, TSNode v, int depth)
{
	const char *type;
	mpsfix_literal lit;
	const char *s;

	v = bare(v);
	if (ts_node_is_null(v) || depth > MAX_DEPTH)
		return true;
	type = ts_node_type(v);
	if ((s = string_value(v, cx->src, &lit))) {
		bool mps = device_kind(s) == 'm';

		mpsfix_literal_release(&lit);
		return mps;
	}
	if (!strcmp(type, "string")) { /* an f-string: its text before the first field */
		uint32_t i = ts_node_start_byte(v), end = ts_node_end_byte(v);

		while (i < end && strchr("rRbBfFuU", cx->src[i]))
			i++;
		while (i < end && (cx->src[i] == '"' || cx->src[i] == '\''))
			i++;
		return !(end - i >= 4 && (!strncmp(cx->src + i, "cuda", 4) || !strncmp(cx->src + i, "cpu", 3)));
	}
	if (!strcmp(type, "call")) {
		mpsfix_buf name = MPSFIX_BUF_INIT;
		TSNode args = ts_node_child_by_field_name(v, "arguments", 9);
		bool dev = name_of(cx, ts_node_child_by_field_name(v, "function", 8), &name) &&
			   !strcmp(name.data, "torch.device") && nkids(args) > 0;

		mpsfix_buf_release(&name);
		return dev ? may_be_mps(cx, first_kid(args), depth + 1) : true;
	}
	if (!strcmp(type, "conditional_expression")) {
		TSNode part[3];
		uint32_t n = 0;
		truth t;

		for (uint32_t i = 0; i < nkids(v) && n < 3; i++)
			if (!ts_node_is_extra(ts_node_named_child(v, i)))
				part[n++] = ts_node_named_child(v, i);
		if (n != 3)
			return true;
		t = test(cx, part[1], 0);
		if (t != FALSE_ON_MPS && !says_not_mps(cx, part[1], part[0], 0) &&
		    may_be_mps(cx, part[0], depth + 1))
			return true;
		return t != TRUE_ON_MPS && may_be_mps(cx, part[2], depth + 1);
	}
	if (!strcmp(type, "identifier")) {
		TSNode value;

		return !assigned_value(cx, v, &value) || may_be_mps(cx, value, depth + 1);
	}
	/* dev.type of a name assigned a device */
	if (!strcmp(type, "attribute") &&
	    mpsfix_node_text_is(ts_node_child_by_field_name(v, "attribute", 9), cx->src, "type") &&
	    is(ts_node_child_by_field_name(v, "object", 6), "identifier"))
		return may_be_mps(cx, ts_node_child_by_field_name(v, "object", 6), depth + 1);
	return true;
}

bool mpsfix_reach_may_be_mps(const mpsfix_reach_ctx *cx, TSNode value)
{
	return may_be_mps(cx, value, 0);
}
