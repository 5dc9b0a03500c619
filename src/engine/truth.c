/*
 * truth.c: what a Python test says where the program runs on MPS (see
 * truth.h).  A test is judged as "false on MPS" (it holds only where CUDA is
 * in use) or "true on MPS"; anything else is unknown.
 */
#include "truth.h"

#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "literal.h"
#include "parse.h"

#define MAX_DEPTH 12
#define TRUTH_SCOPES 8 /* functions whose bindings are kept (mpsfix_truth_flags) */
#define TRUTH_NESTING TRUTH_SCOPES /* scopes around a name, at most: all kept at once */
#define TRUTH_KEPT_BITS 6 /* 64 names whose scopes, and values whose answers, are kept */
#define TRUTH_KEPT (1u << TRUTH_KEPT_BITS)
#define TRUTH_DEPTH 200  /* nodes above a name, at most, for its scopes to be read */

typedef mpsfix_truth truth;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static truth flip(truth t)
{
	return t == MPSFIX_FALSE_ON_MPS  ? MPSFIX_TRUE_ON_MPS
	       : t == MPSFIX_TRUE_ON_MPS ? MPSFIX_FALSE_ON_MPS
					 : MPSFIX_UNKNOWN_ON_MPS;
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
static bool name_of(const mpsfix_truth_ctx *cx, TSNode n, mpsfix_buf *out)
{
	return mpsfix_names_name_of(cx->names, n, cx->src, out);
}

static const char *last_part(const mpsfix_buf *b)
{
	const char *dot = strrchr(b->data, '.');

	return dot ? dot + 1 : b->data;
}

/* The last part of `b`, in lower case (HAS_CUDA, self.STREAM), in place. */
static const char *lower(mpsfix_buf *b)
{
	char *last = (char *)last_part(b);

	for (char *c = last; *c; c++)
		*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
	return last;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* Is `s` a device type other than CUDA and MPS, or one of them with an index ("cpu", "xpu:1")? */
static bool other_device(const char *s)
{
	static const char *const types[] = {"cpu", "xpu", "npu", "hpu", "xla", "meta", "ipu", "mtia", "mlu", "sdaa"};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(types); i++) {
		size_t n = strlen(types[i]);

		if (!strncmp(s, types[i], n) && (s[n] == '\0' || s[n] == ':'))
			return true;
	}
	return false;
}

/* A device string's kind: 'c' for "cuda..." (and "nccl"), 'm' for "mps...", 0 otherwise. */
char mpsfix_truth_device_kind(const char *s)
{
	if (starts(s, "cuda") || !strcmp(s, "nccl"))
		return 'c';
	if (starts(s, "mps"))
		return 'm';
	return 0;
}

/*
 * The kinds of the strings of a list, tuple or set literal: bit 1 cuda, 2
 * mps, 4 another device type (cpu, xpu...), 8 any other string ("gpu",
 * "auto": a name that may stand for MPS).
 */
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
		k = mpsfix_truth_device_kind(v);
		kinds |= k == 'c' ? 1 : k == 'm' ? 2 : other_device(v) ? 4 : 8;
		mpsfix_literal_release(&lit);
	}
	return kinds;
}

static truth test(const mpsfix_truth_ctx *cx, TSNode e, int depth);

/* A call in a test: torch.cuda.is_available(), is_torch_mps_available(), s.startswith("cuda"). */
static truth call_test(const mpsfix_truth_ctx *cx, TSNode e)
{
	/* false on MPS: a Mac has no CUDA, no Intel XPU and no Ascend NPU */
	static const char *const cuda_calls[] = {
		"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.is_initialized",
		"torch.cuda.is_bf16_supported", "torch.backends.cudnn.is_available",
		"torch.distributed.is_nccl_available", "torch.xpu.is_available", "torch.xpu.device_count",
		"torch.npu.is_available", "torch.npu.device_count",
	};
	static const char *const mps_calls[] = {
		"torch.backends.mps.is_available", "torch.backends.mps.is_built", "torch.mps.is_available",
	};
	TSNode fn = ts_node_child_by_field_name(e, "function", 8);
	TSNode args = ts_node_child_by_field_name(e, "arguments", 9);
	mpsfix_buf name = MPSFIX_BUF_INIT;
	truth t = MPSFIX_UNKNOWN_ON_MPS;

	if (is(fn, "attribute") && mpsfix_node_text_is(ts_node_child_by_field_name(fn, "attribute", 9),
						       cx->src, "startswith")) {
		TSNode arg = mpsfix_first_named(args);
		mpsfix_literal lit;
		const char *v = mpsfix_literal_string(&lit, arg, cx->src);

		if (v) {
			char k = mpsfix_truth_device_kind(v);

			t = k == 'c' ? MPSFIX_FALSE_ON_MPS : k == 'm' ? MPSFIX_TRUE_ON_MPS : MPSFIX_UNKNOWN_ON_MPS;
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
			t = MPSFIX_FALSE_ON_MPS;
		if (v)
			mpsfix_literal_release(&lit);
		mpsfix_buf_release(&name);
		return t;
	}
	if (name_of(cx, fn, &name)) {
		const char *last = last_part(&name);

		/* is_cuda_available(), not is_cuda_not_available() nor cuda_unavailable() */
		bool negated = strstr(last, "not") || strstr(last, "unavailable") || !strncmp(last, "no_", 3);

		if (in_list(name.data, cuda_calls, MPSFIX_ARRAY_SIZE(cuda_calls)) ||
		    (!negated && strstr(last, "cuda") && strstr(last, "available")))
			t = MPSFIX_FALSE_ON_MPS;
		else if (in_list(name.data, mps_calls, MPSFIX_ARRAY_SIZE(mps_calls)) ||
			 (!negated && strstr(last, "mps") && strstr(last, "available")))
			t = MPSFIX_TRUE_ON_MPS;
	}
	mpsfix_buf_release(&name);
	return t;
}

/*
 * Is snake_case name `s` a flag that FSDP, DDP or DeepSpeed is in use: the
 * word fsdp, ddp or deepspeed, with only words that say "in use" around it
 * (use_fsdp, is_ddp_enabled, need_to_synchronize_fsdp_streams,
 * trainer.deepspeed, is_deepspeed_enabled), not ddp_off, non_ddp,
 * fsdp_version, ddp_timeout, ddp_kwargs or deepspeed_config?  (DeepSpeed's
 * ZeRO engine needs a torch.distributed backend, which MPS lacks.)
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

		if ((n == 4 && !strncmp(s, "fsdp", 4)) || (n == 3 && !strncmp(s, "ddp", 3)) ||
		    (n == 9 && !strncmp(s, "deepspeed", 9)))
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
	const mpsfix_truth_ctx *cx;
	mpsfix_buf name, target;
	mpsfix_truth_streams *out;
	bool cuda, other;
} stream_walk;

/* Is `last` (in lower case) the last part of a name the text stores a CUDA stream in? */
static bool stream_held(const mpsfix_truth_ctx *cx, const char *last)
{
	for (size_t i = 0; cx->streams && stream_name(last) && i < cx->streams->n; i++)
		if (!strcmp(cx->streams->names[i], last))
			return true;
	return false;
}

/* Keep the target of the assignment whose value holds `call`, a CUDA stream API's. */
static void keep_target(stream_walk *w, TSNode call)
{
	mpsfix_truth_streams *o = w->out;

	for (TSNode p = ts_node_parent(call); !ts_node_is_null(p); p = ts_node_parent(p)) {
		const char *last;
		size_t i;

		if (is(p, "expression_statement") || is(p, "block") || is(p, "lambda") || is(p, "module"))
			return;
		if (!is(p, "assignment"))
			continue;
		if (!mpsfix_dotted_name(ts_node_child_by_field_name(p, "left", 4), w->cx->src, &w->target))
			return;
		last = lower(&w->target);
		for (i = 0; i < o->n && strcmp(o->names[i], last); i++)
			;
		if (i == o->n && o->n < MPSFIX_TRUTH_STREAMS && stream_name(last) && strlen(last) < sizeof(o->names[0]))
			strcpy(o->names[o->n++], last);
		return;
	}
}

/*
 * Does `n` lie in the body of an if (or elif) or the true branch of a
 * conditional expression whose test is false on MPS (`elif
 * torch.xpu.is_available(): stream = torch.Stream()`)?
 */
static bool guarded_off_mps(const mpsfix_truth_ctx *cx, TSNode n)
{
	for (TSNode c = n, p = ts_node_parent(n); !ts_node_is_null(p); c = p, p = ts_node_parent(p)) {
		TSNode body = {0}, cond = {0};

		if (is(p, "if_statement") || is(p, "elif_clause")) {
			body = ts_node_child_by_field_name(p, "consequence", 11);
			cond = ts_node_child_by_field_name(p, "condition", 9);
		} else if (is(p, "conditional_expression")) {
			body = mpsfix_first_named(p);
			cond = mpsfix_next_token(body);
			while (!ts_node_is_null(cond) && !ts_node_is_named(cond))
				cond = mpsfix_next_token(cond);
		}
		if (!ts_node_is_null(body) && ts_node_start_byte(c) >= ts_node_start_byte(body) &&
		    ts_node_end_byte(c) <= ts_node_end_byte(body) && test(cx, cond, 0) == MPSFIX_FALSE_ON_MPS)
			return true;
	}
	return false;
}

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
	bool other = false;

	if (!is(n, "call") || !name_of(w->cx, ts_node_child_by_field_name(n, "function", 8), &w->name))
		return MPSFIX_WALK_DESCEND;
	last = last_part(&w->name);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cuda_like); i++)
		if (starts(w->name.data, cuda_like[i]) && in_list(last, apis, MPSFIX_ARRAY_SIZE(apis))) {
			w->cuda = true;
			keep_target(w, n);
		}
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(neutral); i++)
		if (starts(w->name.data, neutral[i]) && strstr(last, "tream"))
			other = true;
	/* torch.Stream() is a stream of the current accelerator: MPS's on a Mac */
	other = other || !strcmp(w->name.data, "torch.Stream");
	if (other && !guarded_off_mps(w->cx, n))
		w->other = true;
	return w->other ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

void mpsfix_truth_cuda_streams(mpsfix_truth_streams *out, const mpsfix_truth_ctx *cx, TSNode root)
{
	stream_walk w = {cx, MPSFIX_BUF_INIT, MPSFIX_BUF_INIT, out, false, false};

	out->n = 0;
	if (!strstr(cx->src, "tream"))
		return;
	mpsfix_walk(root, find_stream_calls, &w);
	mpsfix_buf_release(&w.name);
	mpsfix_buf_release(&w.target);
	if (!w.cuda || w.other)
		out->n = 0;
}

/*
 * The names a module's top-level statements assign (`NAME = value`), by
 * text, each with its value and how many such statements assign it; and
 * whether a walk of the whole module found the name bound there alone.
 */
struct mpsfix_truth_flags {
	struct truth_flag {
		const char *name;
		uint32_t len, count;
		TSNode value;
		int once; /* the module binds it there alone: 1 yes, -1 no, 0 not asked yet */
	} *items;
	size_t len, cap;
	/* every name some `NAME = value` assigns, anywhere in the module, sorted:
	   a name that is not one is bound to no test */
	struct truth_flag *assigned;
	size_t nassigned, capassigned;
	/* the scopes around names asked about, by where the name starts (a deep
	   `x and x and ...` asks about each x many times) */
	struct truth_around {
		uint32_t at;
		int n;     /* scopes_around()'s answer */
		bool kept;
		TSNode scope[TRUTH_NESTING];
	} around[TRUTH_KEPT];
	/* what the values of names asked about last said, by where the value
	   starts (`a1 = a0 if a0 else a0; a2 = a1 if ...` asks each many times) */
	struct truth_said {
		uint32_t at;
		mpsfix_torch_range range;
		bool values_only, streams, kept;
		truth t;
	} said[TRUTH_KEPT];
	/* the names the functions asked about last bind, each read in one walk */
	struct truth_scope {
		uint32_t start, end;
		mpsfix_bindings_index *ix;
	} scopes[TRUTH_SCOPES];
	unsigned next_scope;
};

void mpsfix_truth_flags_free(mpsfix_truth_flags *f)
{
	if (f) {
		free(f->items);
		free(f->assigned);
		for (size_t i = 0; i < TRUTH_SCOPES; i++)
			mpsfix_bindings_index_free(f->scopes[i].ix);
	}
	free(f);
}

/* How function `fn` binds the name `id`, from the few functions' indexes kept. */
static void scope_binding(mpsfix_truth_flags *f, TSNode fn, const char *src, TSNode id, mpsfix_binding *out)
{
	uint32_t start = ts_node_start_byte(fn), end = ts_node_end_byte(fn);
	struct truth_scope *s = NULL;

	for (size_t i = 0; i < TRUTH_SCOPES && !s; i++)
		if (f->scopes[i].ix && f->scopes[i].start == start && f->scopes[i].end == end)
			s = &f->scopes[i];
	if (!s) {
		s = &f->scopes[f->next_scope++ % TRUTH_SCOPES];
		mpsfix_bindings_index_free(s->ix);
		*s = (struct truth_scope){start, end, mpsfix_bindings_index_new(fn, src)};
	}
	mpsfix_bindings_index_get(s->ix, id, out);
}

static int compare_flags(const void *a, const void *b)
{
	const struct truth_flag *x = a, *y = b;
	int d = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return d ? d : x->len < y->len ? -1 : x->len > y->len;
}

typedef struct {
	mpsfix_truth_flags *f;
	const char *src;
} assigned_walk;

static mpsfix_walk_action find_assigned(TSNode n, void *payload)
{
	assigned_walk *w = payload;
	TSNode left = is(n, "assignment") ? ts_node_child_by_field_name(n, "left", 4) : (TSNode){0};

	if (is(left, "identifier")) {
		mpsfix_grow((void **)&w->f->assigned, &w->f->capassigned, w->f->nassigned + 1, sizeof(*w->f->assigned));
		w->f->assigned[w->f->nassigned++] = (struct truth_flag){
			.name = w->src + ts_node_start_byte(left),
			.len = ts_node_end_byte(left) - ts_node_start_byte(left)};
	}
	return MPSFIX_WALK_DESCEND;
}

static mpsfix_truth_flags *read_flags(const char *src, TSNode root)
{
	mpsfix_truth_flags *f = mpsfix_xcalloc(1, sizeof(*f));
	assigned_walk w = {f, src};
	mpsfix_kids k;
	TSNode st;
	size_t n = 0;

	mpsfix_kids_start(&k, root);
	while (mpsfix_kids_next(&k, &st)) {
		TSNode a = is(st, "expression_statement") ? mpsfix_first_named(st) : (TSNode){0};
		TSNode left = is(a, "assignment") ? ts_node_child_by_field_name(a, "left", 4) : (TSNode){0};
		TSNode right = is(a, "assignment") ? ts_node_child_by_field_name(a, "right", 5) : (TSNode){0};

		if (!is(left, "identifier") || ts_node_is_null(right) || is(right, "assignment"))
			continue;
		mpsfix_grow((void **)&f->items, &f->cap, f->len + 1, sizeof(*f->items));
		f->items[f->len++] = (struct truth_flag){src + ts_node_start_byte(left),
							 ts_node_end_byte(left) - ts_node_start_byte(left), 1, right, 0};
	}
	mpsfix_kids_end(&k);
	if (f->len > 1)
		qsort(f->items, f->len, sizeof(*f->items), compare_flags);
	for (size_t i = 0; i < f->len; i++) { /* one entry a name: the first value, the count */
		if (n && !compare_flags(&f->items[n - 1], &f->items[i]))
			f->items[n - 1].count++;
		else
			f->items[n++] = f->items[i];
	}
	f->len = n;
	mpsfix_walk(root, find_assigned, &w);
	if (f->nassigned > 1)
		qsort(f->assigned, f->nassigned, sizeof(*f->assigned), compare_flags);
	return f;
}

/*
 * The scopes around `id` in module `root`, outermost first, found going
 * down from the root (a parent walk up a deep expression costs its depth
 * squared): each function or lambda whose body holds it, and each class
 * whose body does.  -1 where more than TRUTH_NESTING are, or more than
 * TRUTH_DEPTH nodes lie above it.
 */
static int scopes_around(TSNode root, TSNode id, TSNode *scope)
{
	uint32_t at = ts_node_start_byte(id);
	TSTreeCursor cur = ts_tree_cursor_new(root);
	TSNode up = root;
	int n = 0;

	for (int steps = 0; n >= 0 && ts_tree_cursor_goto_first_child_for_byte(&cur, at) >= 0; steps++) {
		TSNode c = ts_tree_cursor_current_node(&cur);
		const char *field = ts_tree_cursor_current_field_name(&cur);

		if (ts_node_start_byte(c) > at || ts_node_eq(c, id))
			break;
		if (steps > TRUTH_DEPTH) {
			n = -1; /* no code of a person's nests so deep: not worth the walk */
			break;
		}
		if (field && !strcmp(field, "body") &&
		    (is(up, "function_definition") || is(up, "lambda") || is(up, "class_definition")))
			n = n < TRUTH_NESTING ? (scope[n] = up, n + 1) : -1;
		up = c;
	}
	ts_tree_cursor_delete(&cur);
	return n;
}

/* The entry of the kept names and values for a node that starts at byte `at` (Fibonacci hashing). */
static size_t kept_slot(uint32_t at)
{
	return (uint32_t)(at * 2654435761u) >> (32 - TRUTH_KEPT_BITS);
}

/*
 * What `value`, bound to a name, says as a test (test()), kept for the last
 * values asked about.  An answer found nearer the depth limit may be
 * unknown where a fresh one is not: it errs toward reporting.
 */
static truth value_test(const mpsfix_truth_ctx *cx, TSNode value, int depth)
{
	uint32_t at = ts_node_start_byte(value);
	struct truth_said *k = &(*cx->flags)->said[kept_slot(at)];
	bool streams = cx->streams != NULL;
	truth t;

	if (k->kept && k->at == at && k->values_only == cx->values_only && k->streams == streams &&
	    k->range.lo == cx->range.lo && k->range.hi == cx->range.hi)
		return k->t;
	t = test(cx, value, depth);
	k = &(*cx->flags)->said[kept_slot(at)]; /* the test may have asked about others */
	*k = (struct truth_said){.at = at, .range = cx->range, .values_only = cx->values_only,
				 .streams = streams, .kept = true, .t = t};
	return t;
}

/* scopes_around(), kept for the last names asked about. */
static int kept_scopes_around(mpsfix_truth_flags *f, TSNode root, TSNode id, TSNode *scope)
{
	uint32_t at = ts_node_start_byte(id);
	struct truth_around *a = &f->around[kept_slot(at)];
	int n;

	if (a->kept && a->at == at) {
		if (a->n > 0)
			memcpy(scope, a->scope, (size_t)a->n * sizeof(*scope));
		return a->n;
	}
	n = scopes_around(root, id, scope);
	*a = (struct truth_around){.at = at, .n = n, .kept = true}; /* -1 (too deep to read) too */
	if (n > 0)
		memcpy(a->scope, scope, (size_t)n * sizeof(*scope));
	return n;
}

/*
 * A name bound once to a test, what that test says: by the innermost
 * function around the read that binds it (`use_gpu = torch.cuda.is_available()`
 * and nothing else binds use_gpu there: no parameter, loop, second
 * assignment, `global` or `nonlocal` of a function inside), or, where no
 * function around binds it, by the module at its top level (HAS_CUDA =
 * torch.cuda.is_available()).  Where the read runs, the assignment has run
 * (else the name is unbound), and a test of the device says the same each
 * time it is asked.
 */
static truth alias_test(const mpsfix_truth_ctx *cx, TSNode id, int depth)
{
	struct truth_flag key, *e;
	TSNode scope[TRUTH_NESTING];
	mpsfix_binding b;
	int n;
	truth t;

	if (!cx->flags || ts_node_is_null(cx->root) || !is(id, "identifier"))
		return MPSFIX_UNKNOWN_ON_MPS;
	if (!*cx->flags)
		*cx->flags = read_flags(cx->src, cx->root);
	key.name = cx->src + ts_node_start_byte(id);
	key.len = ts_node_end_byte(id) - ts_node_start_byte(id);
	if (!(*cx->flags)->nassigned || !bsearch(&key, (*cx->flags)->assigned, (*cx->flags)->nassigned,
						  sizeof(key), compare_flags))
		return MPSFIX_UNKNOWN_ON_MPS; /* no assignment binds it anywhere: most names read */
	if ((n = kept_scopes_around(*cx->flags, cx->root, id, scope)) < 0)
		return MPSFIX_UNKNOWN_ON_MPS;
	while (n-- > 0) { /* the innermost first */
		if (is(scope[n], "class_definition"))
			return MPSFIX_UNKNOWN_ON_MPS; /* read in a class body, which may bind it */
		scope_binding(*cx->flags, scope[n], cx->src, id, &b);
		if (b.dynamic)
			return MPSFIX_UNKNOWN_ON_MPS;
		if (!b.count)
			continue; /* not the function's own: the one around it, or the module's */
		if (b.count != 1 || ts_node_is_null(b.value) || is(bare(b.value), "assignment") ||
		    (ts_node_start_byte(id) >= ts_node_start_byte(b.value) && ts_node_end_byte(id) <= ts_node_end_byte(b.value)))
			return MPSFIX_UNKNOWN_ON_MPS; /* a parameter, bound twice, read in its own value */
		return value_test(cx, b.value, depth + 1);
	}
	e = (*cx->flags)->len ? bsearch(&key, (*cx->flags)->items, (*cx->flags)->len, sizeof(key), compare_flags)
			      : NULL;
	if (!e || e->count != 1 || e->once < 0 ||
	    (ts_node_start_byte(id) >= ts_node_start_byte(e->value) && ts_node_start_byte(id) < ts_node_end_byte(e->value)))
		return MPSFIX_UNKNOWN_ON_MPS; /* not a flag, or read in its own value */
	/* the test first: most names bound once are no test, and need no walk */
	if ((t = value_test(cx, e->value, depth + 1)) == MPSFIX_UNKNOWN_ON_MPS)
		return t;
	if (!e->once) { /* bound nowhere else in the module: no if, loop, import, global, import *... */
		mpsfix_bindings_count(cx->root, cx->src, &id, 1, &b);
		e->once = b.count == 1 && !b.dynamic ? 1 : -1;
	}
	return e->once < 0 ? MPSFIX_UNKNOWN_ON_MPS : t;
}

/* A flag that says CUDA is in use: args.cuda, use_cuda, x.is_cuda, torch.version.cuda, use_fsdp;
 * or that it is not: args.no_cuda, disable_cuda (a Mac runs with the flag set). */
static truth flag_test(const mpsfix_truth_ctx *cx, TSNode e, int depth)
{
	static const char *const cuda_flags[] = {
		"cuda", "use_cuda", "is_cuda", "on_cuda", "has_cuda", "with_cuda", "using_cuda",
		"cuda_available", "cuda_is_available", "is_cuda_available",
	};
	static const char *const no_cuda_flags[] = {"no_cuda", "disable_cuda", "without_cuda"};
	mpsfix_buf name = MPSFIX_BUF_INIT;
	truth t = MPSFIX_UNKNOWN_ON_MPS;

	/* what the module binds the name to comes first: USE_CUDA = torch.cuda.is_available() or
	   torch.backends.mps.is_available() holds on MPS, whatever the name says */
	if ((t = alias_test(cx, e, depth)) != MPSFIX_UNKNOWN_ON_MPS)
		return t;
	if (cx->values_only) { /* a tensor's or a device's own attribute: x.is_cuda, x.is_mps */
		TSNode attr = is(e, "attribute") ? ts_node_child_by_field_name(e, "attribute", 9) : (TSNode){0};

		return mpsfix_node_text_is(attr, cx->src, "is_cuda") ? MPSFIX_FALSE_ON_MPS
		       : mpsfix_node_text_is(attr, cx->src, "is_mps") ? MPSFIX_TRUE_ON_MPS
								      : MPSFIX_UNKNOWN_ON_MPS;
	}
	if (!ts_node_is_null(e) && mpsfix_dotted_name(e, cx->src, &name)) {
		const char *last = lower(&name); /* HAS_CUDA, USE_FSDP: a module's constants */

		if (in_list(last, cuda_flags, MPSFIX_ARRAY_SIZE(cuda_flags)))
			t = MPSFIX_FALSE_ON_MPS;
		else if (distributed_flag(last))
			t = MPSFIX_FALSE_ON_MPS; /* use_fsdp, need_to_sync_fsdp_streams, args.deepspeed:
					     their collectives have no MPS backend */
		else if (!strcmp(last, "is_mps") || in_list(last, no_cuda_flags, MPSFIX_ARRAY_SIZE(no_cuda_flags)))
			t = MPSFIX_TRUE_ON_MPS;
		else if (stream_held(cx, last))
			t = MPSFIX_FALSE_ON_MPS; /* `if self.stream:` where streams are CUDA's */
	}
	mpsfix_buf_release(&name);
	return t;
}

/*
 * Is `n` a device's text: str(...) of something, or a name or attribute
 * named like a device (device, dev, *_device, *_dev, device_type, x.type)?
 * Not a list that may hold anything (`"mps" in args.skip`).
 */
static bool device_text(const mpsfix_truth_ctx *cx, TSNode n)
{
	TSNode last = is(n, "attribute") ? ts_node_child_by_field_name(n, "attribute", 9) : n;
	const char *s;
	size_t len;

	if (is(n, "call"))
		return mpsfix_node_text_is(ts_node_child_by_field_name(n, "function", 8), cx->src, "str");
	if (!is(last, "identifier"))
		return false;
	s = cx->src + ts_node_start_byte(last);
	len = ts_node_end_byte(last) - ts_node_start_byte(last);
	return (len == 3 && !memcmp(s, "dev", 3)) || (len == 6 && !memcmp(s, "device", 6)) ||
	       (len == 11 && !memcmp(s, "device_type", 11)) || (len == 4 && !memcmp(s, "type", 4)) ||
	       (len > 7 && !memcmp(s + len - 7, "_device", 7)) || (len > 4 && !memcmp(s + len - 4, "_dev", 4));
}

/*
 * Does `n` hold a device's type, "mps" and never "mps:0": `x.type`,
 * `x.device.type`, a name that ends in "type" (device_type)?  A device
 * itself (`device`, `args.device`) may be "mps:0", which `== "mps"` and
 * `in ("mps",)` miss; an accelerator may be a torch.device (never equal to
 * a string) or "gpu", "auto" (which choose MPS on a Mac).
 */
static bool holds_type(const mpsfix_truth_ctx *cx, TSNode n)
{
	static const char *const ends[] = {"type"};
	TSNode last = is(n, "attribute") ? ts_node_child_by_field_name(n, "attribute", 9) : n;
	const char *s;
	size_t len;

	if (!is(last, "identifier"))
		return false;
	s = cx->src + ts_node_start_byte(last);
	len = ts_node_end_byte(last) - ts_node_start_byte(last);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(ends); i++) {
		size_t n_end = strlen(ends[i]);

		if (len >= n_end && !memcmp(s + len - n_end, ends[i], n_end))
			return true;
	}
	return false;
}

/* torch.distributed.Backend.NCCL, which stands for "nccl" (CUDA's collectives). */
static bool is_nccl(const mpsfix_truth_ctx *cx, TSNode n)
{
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool yes;

	yes = is(n, "attribute") && name_of(cx, n, &name) && !strcmp(name.data, "torch.distributed.Backend.NCCL");
	mpsfix_buf_release(&name);
	return yes;
}

/* `a OP b` with one operator: device == "cuda", x.type != "mps", "cuda" in str(d), ... */
static truth compare_test(const mpsfix_truth_ctx *cx, TSNode e, int depth)
{
	TSNode left = {0}, right = {0};
	char op[8] = "";
	uint32_t nops = 0, noperands = 0;
	mpsfix_literal ll, rl;
	const char *lv, *rv;
	truth t = MPSFIX_UNKNOWN_ON_MPS;
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
		return MPSFIX_UNKNOWN_ON_MPS;
	if (nops == 2)
		strcpy(op, !strcmp(op, "not") ? "not in" : "is not");
	left = bare(left);
	right = bare(right);
	lv = mpsfix_literal_string(&ll, left, cx->src);
	rv = mpsfix_literal_string(&rl, right, cx->src);
	if (!strcmp(op, "==") || !strcmp(op, "!=")) {
		k = mpsfix_truth_device_kind(lv ? lv : rv ? rv : "");
		if (!lv && !rv && (is_nccl(cx, left) || is_nccl(cx, right)))
			k = 'c'; /* get_backend() == dist.Backend.NCCL */
		if (k == 'm' && (strcmp(lv ? lv : rv, "mps") || !holds_type(cx, lv ? right : left)))
			k = 0; /* device == "mps" misses "mps:0" */
		if (k)
			t = (k == 'c') == !strcmp(op, "==") ? MPSFIX_FALSE_ON_MPS : MPSFIX_TRUE_ON_MPS;
	} else if (!strcmp(op, "in") || !strcmp(op, "not in")) {
		int kinds = list_kinds(right, cx->src);

		if (lv && mpsfix_truth_device_kind(lv) && device_text(cx, right)) /* "cuda" in str(device) */
			t = mpsfix_truth_device_kind(lv) == 'c' ? MPSFIX_FALSE_ON_MPS : MPSFIX_TRUE_ON_MPS;
		else if (kinds >= 0 && (kinds & 10) == 0 && (kinds & 1)) /* x in ("cuda", "xpu"), not ("gpu", "cuda") */
			t = MPSFIX_FALSE_ON_MPS;
		else if (kinds == 2 && holds_type(cx, left)) /* x.type in ("mps",) */
			t = MPSFIX_TRUE_ON_MPS;
		if (!strcmp(op, "not in"))
			t = flip(t);
	} else if (!strcmp(op, "is not") || !strcmp(op, "is")) {
		mpsfix_buf name = MPSFIX_BUF_INIT;

		/* torch.version.cuda is None on a Mac, and so is a stream made by CUDA's API */
		if (is(right, "none") && name_of(cx, left, &name) &&
		    (!strcmp(name.data, "torch.version.cuda") ||
		     ((is(left, "identifier") || is(left, "attribute")) && stream_held(cx, lower(&name)))))
			t = !strcmp(op, "is not") ? MPSFIX_FALSE_ON_MPS : MPSFIX_TRUE_ON_MPS;
		mpsfix_buf_release(&name);
	} else if (!strcmp(op, ">") || !strcmp(op, ">=")) {
		/* torch.cuda.device_count() > 0, >= 1 (not >= 0, which always holds) */
		if (is(left, "call") && test(cx, left, depth + 1) == MPSFIX_FALSE_ON_MPS && is(right, "integer") &&
		    (!strcmp(op, ">") || !mpsfix_node_text_is(right, cx->src, "0")))
			t = MPSFIX_FALSE_ON_MPS;
	}
	if (lv)
		mpsfix_literal_release(&ll);
	if (rv)
		mpsfix_literal_release(&rl);
	return t;
}

/* What a branch of a conditional expression says: `True` holds everywhere, `False` nowhere. */
static truth branch_test(const mpsfix_truth_ctx *cx, TSNode e, int depth)
{
	e = bare(e);
	return is(e, "true") ? MPSFIX_TRUE_ON_MPS : is(e, "false") ? MPSFIX_FALSE_ON_MPS : test(cx, e, depth);
}

/*
 * `A if T else B`: B where T fails on MPS, A where it holds, else what A and
 * B both say (`True if torch.cuda.is_available() else False`).
 */
static truth choice_test(const mpsfix_truth_ctx *cx, TSNode e, int depth)
{
	TSNode part[3];
	size_t n = 0;
	truth t, a, b;
	mpsfix_kids k;
	TSNode c;

	mpsfix_kids_start(&k, e);
	while (mpsfix_kids_next(&k, &c))
		if (n++ < 3)
			part[n - 1] = c;
	mpsfix_kids_end(&k);
	if (n != 3)
		return MPSFIX_UNKNOWN_ON_MPS;
	t = test(cx, part[1], depth + 1);
	a = t == MPSFIX_FALSE_ON_MPS ? MPSFIX_UNKNOWN_ON_MPS : branch_test(cx, part[0], depth + 1);
	b = t == MPSFIX_TRUE_ON_MPS ? MPSFIX_UNKNOWN_ON_MPS : branch_test(cx, part[2], depth + 1);
	return t == MPSFIX_FALSE_ON_MPS ? b : t == MPSFIX_TRUE_ON_MPS ? a : a == b ? a : MPSFIX_UNKNOWN_ON_MPS;
}

static truth test(const mpsfix_truth_ctx *cx, TSNode e, int depth)
{
	const char *type;

	e = bare(e);
	if (ts_node_is_null(e) || depth > MAX_DEPTH)
		return MPSFIX_UNKNOWN_ON_MPS;
	type = ts_node_type(e);
	if (!strcmp(type, "not_operator"))
		return flip(test(cx, ts_node_child_by_field_name(e, "argument", 8), depth + 1));
	if (!strcmp(type, "boolean_operator")) {
		TSNode op = ts_node_child_by_field_name(e, "operator", 8);
		truth a = test(cx, ts_node_child_by_field_name(e, "left", 4), depth + 1);
		truth b = test(cx, ts_node_child_by_field_name(e, "right", 5), depth + 1);

		if (mpsfix_node_text_is(op, cx->src, "and"))
			return a == MPSFIX_FALSE_ON_MPS || b == MPSFIX_FALSE_ON_MPS ? MPSFIX_FALSE_ON_MPS
			       : a == MPSFIX_TRUE_ON_MPS && b == MPSFIX_TRUE_ON_MPS ? MPSFIX_TRUE_ON_MPS : MPSFIX_UNKNOWN_ON_MPS;
		return a == MPSFIX_TRUE_ON_MPS || b == MPSFIX_TRUE_ON_MPS ? MPSFIX_TRUE_ON_MPS
		       : a == MPSFIX_FALSE_ON_MPS && b == MPSFIX_FALSE_ON_MPS ? MPSFIX_FALSE_ON_MPS : MPSFIX_UNKNOWN_ON_MPS;
	}
	if (!strcmp(type, "conditional_expression"))
		return choice_test(cx, e, depth);
	if (!strcmp(type, "call"))
		return call_test(cx, e);
	if (!strcmp(type, "comparison_operator"))
		return compare_test(cx, e, depth);
	if (!strcmp(type, "attribute") || !strcmp(type, "identifier"))
		return flag_test(cx, e, depth);
	return MPSFIX_UNKNOWN_ON_MPS;
}

mpsfix_truth mpsfix_truth_of(const mpsfix_truth_ctx *cx, TSNode e)
{
	return test(cx, e, 0);
}
