/*
 * reach.c: can code run on MPS, and can a value be the MPS device?  See
 * reach.h for the forms.  A test is judged as "false on MPS" (it holds only
 * where CUDA is in use) or "true on MPS"; anything else is unknown, and
 * unknown code is reachable.
 */
#include "reach.h"

#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "callers.h"
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
	return mpsfix_unparenthesized(n);
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
	for (uint32_t i = 0; i < mpsfix_named_count(n); i++) {
		TSNode e = ts_node_named_child(n, i);
		mpsfix_literal lit;
		const char *v;
		char k;

		if (ts_node_is_extra(e))
			continue;
		if (!(v = mpsfix_literal_string(&lit, e, src)))
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
		TSNode arg = mpsfix_first_named(args);
		mpsfix_literal lit;
		const char *v = mpsfix_literal_string(&lit, arg, cx->src);

		if (v) {
			t = device_kind(v) == 'c' ? FALSE_ON_MPS : device_kind(v) == 'm' ? TRUE_ON_MPS : UNKNOWN;
			mpsfix_literal_release(&lit);
		}
		return t;
	}
	if (mpsfix_node_text_is(fn, cx->src, "hasattr") && mpsfix_named_count(args) == 2) {
		/* hasattr(torch, "accelerator"): torch.accelerator came with 2.6 */
		mpsfix_literal lit;
		const char *v = mpsfix_literal_string(&lit, ts_node_named_child(args, 1), cx->src);

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

/*
 * Is snake_case name `s` a flag that FSDP or DDP is in use: the word fsdp or
 * ddp, with only words that say "in use" around it (use_fsdp,
 * is_ddp_enabled, need_to_synchronize_fsdp_streams), not ddp_off,
 * non_ddp, fsdp_version, ddp_timeout or ddp_kwargs?
 */
static bool distributed_flag(const char *s)
{
	static const char *const words[] = {
		"use", "using", "is", "with", "enable", "enabled", "need", "needs", "to", "synchronize",
		"sync", "stream", "streams", "eval", "train", "training", "mode", "wrap", "wrapped", "on",
		"active",
	};
	bool seen = false;

	while (*s) {
		size_t n = strcspn(s, "_"), i;

		if ((n == 4 && !strncmp(s, "fsdp", 4)) || (n == 3 && !strncmp(s, "ddp", 3)))
			seen = true;
		else {
			for (i = 0; i < MPSFIX_ARRAY_SIZE(words); i++)
				if (strlen(words[i]) == n && !strncmp(s, words[i], n))
					break;
			if (i == MPSFIX_ARRAY_SIZE(words))
				return false;
		}
		s += n + (s[n] == '_');
	}
	return seen;
}

/* ---- device streams ------------------------------------------------------ */

/* Is snake_case name `s` a stream's: its last word stream or streams (stream, copy_stream, _streams)? */
static bool stream_name(const char *s)
{
	const char *w = strrchr(s, '_');

	w = w ? w + 1 : s;
	return !strcmp(w, "stream") || !strcmp(w, "streams");
}

typedef struct {
	const mpsfix_reach_ctx *cx;
	mpsfix_buf name;
	bool cuda, other;
} stream_walk;

/* The stream APIs a text calls: CUDA's (XPU's, an NPU's), or a device-neutral or MPS one. */
static mpsfix_walk_action find_stream_calls(TSNode n, void *payload)
{
	static const char *const apis[] = {
		"Stream", "ExternalStream", "stream", "current_stream", "default_stream", "set_stream",
	};
	static const char *const cuda_like[] = {"torch.cuda.", "torch.xpu.", "torch.npu."};
	static const char *const neutral[] = {"torch.mps.", "torch.accelerator."};
	stream_walk *w = payload;
	const char *last;

	if (!is(n, "call") || !name_of(w->cx, ts_node_child_by_field_name(n, "function", 8), &w->name))
		return MPSFIX_WALK_DESCEND;
	last = last_part(&w->name);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cuda_like); i++)
		if (starts(w->name.data, cuda_like[i]) && in_list(last, apis, MPSFIX_ARRAY_SIZE(apis)))
			w->cuda = true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(neutral); i++)
		if (starts(w->name.data, neutral[i]) && strstr(last, "tream"))
			w->other = true;
	return w->other ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

/*
 * Does the text make its device streams with CUDA's API alone (XPU's, an
 * NPU's), so that where it runs on MPS a stream of it is never made: `if
 * self.stream is not None:` guards code that does not run there?  Not where
 * it also asks torch.mps or torch.accelerator for a stream, which may be
 * an MPS one.
 */
static bool cuda_streams(const mpsfix_reach_ctx *cx)
{
	return cx->spans && cx->spans->streams > 0;
}

static int read_streams(const mpsfix_reach_ctx *cx, TSNode root)
{
	stream_walk w = {cx, MPSFIX_BUF_INIT, false, false};

	if (!strstr(cx->src, "tream"))
		return -1;
	mpsfix_walk(root, find_stream_calls, &w);
	mpsfix_buf_release(&w.name);
	return w.cuda && !w.other ? 1 : -1;
}

/* A flag that says CUDA is in use: args.cuda, use_cuda, x.is_cuda, torch.version.cuda, use_fsdp;
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
		const char *last = last_part(&name);

		if (in_list(last, cuda_flags, MPSFIX_ARRAY_SIZE(cuda_flags)))
			t = FALSE_ON_MPS;
		else if (distributed_flag(last))
			t = FALSE_ON_MPS; /* use_fsdp, need_to_sync_fsdp_streams: FSDP and DDP's
					     collectives have no MPS backend */
		else if (!strcmp(last, "is_mps") || in_list(last, no_cuda_flags, MPSFIX_ARRAY_SIZE(no_cuda_flags)))
			t = TRUE_ON_MPS;
		else if (stream_name(last) && cuda_streams(cx))
			t = FALSE_ON_MPS; /* `if self.stream:` where streams are CUDA's */
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
	lv = mpsfix_literal_string(&ll, left, cx->src);
	rv = mpsfix_literal_string(&rl, right, cx->src);
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

		/* torch.version.cuda is None on a Mac, and so is a stream made by CUDA's API */
		if (is(right, "none") && name_of(cx, left, &name) &&
		    (!strcmp(name.data, "torch.version.cuda") ||
		     ((is(left, "identifier") || is(left, "attribute")) && stream_name(last_part(&name)) &&
		      cuda_streams(cx))))
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
		       test(cx, ts_node_child_by_field_name(s, "condition", 9), 0) == TRUE_ON_MPS &&
		       leaves(cx, ts_node_child_by_field_name(s, "consequence", 11));
	if (is(s, "assert_statement"))
		return test(cx, mpsfix_first_named(s), 0) == FALSE_ON_MPS;
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
			skip = test(cx, first, 0) == TRUE_ON_MPS;
		else if (!strcmp(last, "skipUnless") && !ts_node_is_null(first))
			skip = test(cx, first, 0) == FALSE_ON_MPS;
		else if (!strcmp(last, "RunIf")) /* Lightning's RunIf(min_cuda_gpus=1) */
			skip = !ts_node_is_null(mpsfix_call_argument(args, cx->src, "min_cuda_gpus")) &&
			       is(mpsfix_call_argument(args, cx->src, "min_cuda_gpus"), "integer") &&
			       !mpsfix_node_text_is(mpsfix_call_argument(args, cx->src, "min_cuda_gpus"), cx->src, "0");
		else if (!strcmp(last, "xfail")) /* a failure on MPS is expected */
			skip = test(cx, mpsfix_call_argument(args, cx->src, "condition"), 0) == TRUE_ON_MPS;
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

/* The parts of node `n` that cannot run on MPS, into the spans. */
static mpsfix_walk_action find_spans(TSNode n, void *payload)
{
	span_walk *w = payload;
	const mpsfix_reach_ctx *cx = w->cx;
	const char *type = ts_node_type(n);
	mpsfix_kids k;
	TSNode c;

	if (!strcmp(type, "if_statement")) {
		/* the body of a test false on MPS; what follows a test true on MPS */
		truth t = test(cx, ts_node_child_by_field_name(n, "condition", 9), 0);
		bool taken = t == TRUE_ON_MPS;

		if (t == FALSE_ON_MPS)
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
				t = test(cx, ts_node_child_by_field_name(c, "condition", 9), 0);
				if (t == FALSE_ON_MPS)
					add_span(w->sp, ts_node_child_by_field_name(c, "consequence", 11));
				taken = t == TRUE_ON_MPS;
			}
		}
		mpsfix_kids_end(&k);
	} else if (!strcmp(type, "while_statement")) {
		if (test(cx, ts_node_child_by_field_name(n, "condition", 9), 0) == FALSE_ON_MPS)
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
			    !mpsfix_cuda_instance_free(cx->src, c))
				add_cuda_fn(w->sp, c, seen, nseen);
		mpsfix_kids_end(&k);
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
	mpsfix_cuda_defs_release(&s->defs);
	memset(s, 0, sizeof(*s));
}

/* Is `node` a call `x.cuda(...)`? */
static bool cuda_move(const mpsfix_reach_ctx *cx, TSNode node)
{
	TSNode f = ts_node_child_by_field_name(node, "function", 8);

	return is(node, "call") && is(f, "attribute") &&
	       mpsfix_node_text_is(ts_node_child_by_field_name(f, "attribute", 9), cx->src, "cuda");
}

/* Does `node` lie in a span found to be unreachable? */
static bool unreachable(const mpsfix_reach_ctx *cx, TSNode node)
{
	uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
	const mpsfix_reach_spans *sp = cx->spans;

	for (size_t i = 0; i < sp->len; i++)
		if (start >= sp->items[i].start && end <= sp->items[i].end)
			return true;
	for (size_t i = 0; i < sp->nfns; i++) {
		const struct mpsfix_cuda_fn *f = &sp->fns[i];

		if (start < f->fn.start || end > f->fn.end || (f->moves && cuda_move(cx, node)))
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

bool mpsfix_reach_mps(mpsfix_reach_ctx *cx, TSNode node, TSNode root)
{
	mpsfix_reach_spans *sp = cx->spans;

	if (!sp->defs.read)
		mpsfix_cuda_defs_read(&sp->defs, cx->names, cx->src, root);
	if (!sp->streams)
		sp->streams = read_streams(cx, root);
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
		mpsfix_walk(root, find_spans, &w);
		/* then the functions only that code calls (callers.h) */
		mpsfix_callers_unreached(root, cx->src, &(mpsfix_callers_hooks){
			reference_unreachable, function_unreachable, cx});
		sp->built = true;
	}
	return !unreachable(cx, node);
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
	mpsfix_kids k;
	TSNode s;

	while (!ts_node_is_null(scope) && !is(scope, "function_definition") && !is(scope, "module"))
		scope = ts_node_parent(scope);
	if (ts_node_is_null(scope))
		return false;
	if (is(scope, "function_definition"))
		scope = ts_node_child_by_field_name(scope, "body", 4);
	mpsfix_kids_start(&k, scope);
	while (mpsfix_kids_next(&k, &s))
		mpsfix_walk(s, find_assignment, &la);
	mpsfix_kids_end(&k);
	*out = la.value;
	return la.found;
}

/*
 * When test `t` holds on MPS, is `a` other than "mps"?  `a != "mps"` (or a
 * test of `a` false on MPS), `a == "cpu"` (a string other than "mps..."),
 * alone or as a part of an `and`; an `or` each of whose sides either says
 * so or is false on MPS (`torch.cuda.is_available() or a == "cpu"`).
 */
static bool says_not_mps(const mpsfix_reach_ctx *cx, TSNode t, TSNode a, int depth)
{
	TSNode left, right, op;
	mpsfix_literal lit;
	const char *v;
	bool other;

	t = bare(t);
	a = bare(a);
	if (depth > MAX_DEPTH)
		return false;
	if (is(t, "boolean_operator")) {
		left = ts_node_child_by_field_name(t, "left", 4);
		right = ts_node_child_by_field_name(t, "right", 5);
		if (mpsfix_node_text_is(ts_node_child_by_field_name(t, "operator", 8), cx->src, "and"))
			return says_not_mps(cx, left, a, depth + 1) || says_not_mps(cx, right, a, depth + 1);
		return (test(cx, left, 0) == FALSE_ON_MPS || says_not_mps(cx, left, a, depth + 1)) &&
		       (test(cx, right, 0) == FALSE_ON_MPS || says_not_mps(cx, right, a, depth + 1));
	}
	if (!is(t, "comparison_operator") || mpsfix_named_count(t) != 2)
		return false;
	left = bare(ts_node_named_child(t, 0));
	if (!mpsfix_node_same_text(left, a, cx->src))
		return false;
	if (test(cx, t, 0) == FALSE_ON_MPS)
		return true;
	op = ts_node_child(t, 1);
	right = bare(ts_node_named_child(t, 1));
	if (ts_node_is_null(op) || strcmp(ts_node_type(op), "==") || !(v = mpsfix_literal_string(&lit, right, cx->src)))
		return false;
	other = device_kind(v) != 'm';
	mpsfix_literal_release(&lit);
	return other;
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
	if ((s = mpsfix_literal_string(&lit, v, cx->src))) {
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
			   !strcmp(name.data, "torch.device") && mpsfix_named_count(args) > 0;

		mpsfix_buf_release(&name);
		return dev ? may_be_mps(cx, mpsfix_first_named(args), depth + 1) : true;
	}
	if (!strcmp(type, "conditional_expression")) {
		TSNode part[3];
		uint32_t n = 0;
		truth t;

		for (uint32_t i = 0; i < mpsfix_named_count(v) && n < 3; i++)
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

/*
 * Does the module define class `name` at its top level, deriving from
 * nothing of torch's (a Tensor or Parameter subclass pins as tensors do)?
 */
