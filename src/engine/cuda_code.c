/*
 * cuda_code.c: code written for CUDA alone (see cuda_code.h).  The evidence
 * is a call that fails, or measures nothing, without CUDA and that a program
 * meant to run on a Mac would not make unconditionally: CUDA events and
 * streams, CUDA memory statistics, a device asked for as "cuda" by name.
 */
#include "cuda_code.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bindings.h"
#include "literal.h"
#include "parse.h"

/*
 * Device APIs that exist for CUDA alone (no MPS counterpart is called the
 * same), after `torch.cuda.`; XPU has most of them under `torch.xpu.`, and
 * code that calls those cannot run on a Mac either.
 */
static const char *const device_apis[] = {
	"Event", "Stream", "current_stream", "default_stream", "stream", "set_device", "current_device",
	"get_device_properties", "get_device_name", "get_device_capability", "memory_allocated",
	"max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats", "memory_summary",
	"reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached", "mem_get_info",
	"CUDAGraph", "graph", "nvtx.range_push", "nvtx.range_pop", "nvtx.range", "amp.autocast",
};

/*
 * Wrappers whose collectives have no MPS backend (gloo takes CPU tensors,
 * NCCL CUDA ones): a model wrapped in one is not on MPS.
 */
static const char *const distributed_apis[] = {
	"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel",
	"torch.distributed.fsdp.FullyShardedDataParallel",
	"torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
	"torch.distributed.fsdp.fully_shard", "torch.distributed._composable.fsdp.fully_shard",
	"torch.distributed._composable.fsdp.fully_shard.fully_shard",
};

/* torch's functions that make a tensor on their `device=`: there, "cuda" raises on a Mac */
static const char *const tensor_factories[] = {
	"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn", "torch.randint",
	"torch.randperm", "torch.arange", "torch.linspace", "torch.logspace", "torch.eye", "torch.tensor",
	"torch.as_tensor", "torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
	"torch.rand_like", "torch.randn_like", "torch.randint_like", "torch.empty_strided",
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Is `n` a string literal that names a CUDA device ("cuda", "cuda:1", f"cuda:{i}")? */
static bool cuda_string(TSNode n, const char *src)
{
	mpsfix_literal lit;
	bool yes;

	if (!is(n, "string"))
		return false;
	if (!mpsfix_literal_from_node(&lit, n, src)) {
		/* an f-string: its text after the prefix and the quote */
		const char *p = src + ts_node_start_byte(n), *end = src + ts_node_end_byte(n);

		while (p < end && (*p == 'f' || *p == 'F' || *p == 'r' || *p == 'R'))
			p++;
		if (p < end && (*p == '"' || *p == '\''))
			p++;
		return end - p > 5 && !strncmp(p, "cuda", 4) && (p[4] == ':' || p[4] == p[-1]);
	}
	yes = lit.type == MPSFIX_LIT_STRING && !strncmp(lit.s, "cuda", 4) && (lit.s[4] == '\0' || lit.s[4] == ':');
	mpsfix_literal_release(&lit);
	return yes;
}

/*
 * What one scope (a function definition or the module) binds, found once
 * and shared by every question asked while reading it: the names bound only
 * by `NAME = "cuda..."`, and which helpers of the module a name of the scope
 * hides (a parameter `log`, a nested `def step`).
 */
typedef struct {
	TSNode scope;
	bool built;
	TSNode *cuda_names;  /* the identifiers bound once, to a CUDA string */
	uint32_t *cuda_at;   /* where each is bound */
	size_t ncuda;
	bool *hidden;        /* per helper of defs: the scope binds its name too */
} scope_info;

typedef struct {
	mpsfix_names *names;
	const char *src;
	mpsfix_cuda_defs *defs; /* the module's functions (may be NULL) */
	mpsfix_buf name;
	bool found;        /* enough evidence: stop */
	mpsfix_span *seen; /* where the calls are (NULL: the first is enough) */
	size_t nseen;
	bool methods;      /* x.cuda() counts */
	bool strict;       /* only calls that fail on a Mac count */
	bool factories;    /* torch.zeros(..., device="cuda") counts where strict */
	bool whole_module; /* the statements read are the module's own (which holds its helpers) */
	scope_info *si;    /* the scope read (may be NULL: no names are looked up) */
} evidence;

/* Device APIs of torch.cuda (and torch.xpu) that raise without CUDA (checked on a torch built without it). */
static const char *const failing_apis[] = {
	"Event", "Stream", "current_stream", "default_stream", "set_device", "current_device",
	"get_device_properties", "get_device_name", "get_device_capability", "mem_get_info", "CUDAGraph",
};

/* The identifiers `NAME = "cuda..."` binds in scope `scope` (not in functions inside it). */
typedef struct {
	mpsfix_names *names;
	const char *src;
	TSNode scope;
	TSNode *ids;
	size_t len, cap;
	mpsfix_buf name;
} cuda_assignments;

/* Is `v` a CUDA device written out: "cuda", "cuda:0", torch.device("cuda")? */
static bool cuda_device(mpsfix_names *names, const char *src, TSNode v, mpsfix_buf *name)
{
	TSNode args;

	if (cuda_string(v, src))
		return true;
	if (!is(v, "call") || !mpsfix_names_name_of(names, ts_node_child_by_field_name(v, "function", 8), src, name) ||
	    strcmp(name->data, "torch.device"))
		return false;
	args = ts_node_child_by_field_name(v, "arguments", 9);
	return mpsfix_named_count(args) > 0 && cuda_string(mpsfix_first_named(args), src);
}

static mpsfix_walk_action find_cuda_assignments(TSNode n, void *payload)
{
	cuda_assignments *ca = payload;
	TSNode left;

	if (!ts_node_eq(n, ca->scope) &&
	    (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")))
		return MPSFIX_WALK_SKIP;
	if (is(n, "assignment") && is(left = ts_node_child_by_field_name(n, "left", 4), "identifier") &&
	    cuda_device(ca->names, ca->src, ts_node_child_by_field_name(n, "right", 5), &ca->name)) {
		mpsfix_grow((void **)&ca->ids, &ca->cap, ca->len + 1, sizeof(TSNode));
		ca->ids[ca->len++] = left;
	}
	return MPSFIX_WALK_DESCEND;
}

static void scope_build(scope_info *si, const evidence *ev)
{
	cuda_assignments ca = {ev->names, ev->src, si->scope, NULL, 0, 0, MPSFIX_BUF_INIT};
	mpsfix_binding *b;
	size_t nh = ev->defs ? ev->defs->len : 0;

	si->built = true;
	mpsfix_walk(si->scope, find_cuda_assignments, &ca);
	b = mpsfix_xcalloc(ca.len + nh + 1, sizeof(*b));
	mpsfix_bindings_count(si->scope, ev->src, ca.ids, ca.len, b);
	si->cuda_names = mpsfix_xcalloc(ca.len + 1, sizeof(TSNode));
	si->cuda_at = mpsfix_xcalloc(ca.len + 1, sizeof(uint32_t));
	for (size_t i = 0; i < ca.len; i++)
		if (b[i].count == 1 && !b[i].dynamic && !ts_node_is_null(b[i].value)) { /* that assignment alone */
			si->cuda_names[si->ncuda] = ca.ids[i];
			si->cuda_at[si->ncuda++] = b[i].at;
		}
	si->hidden = mpsfix_xcalloc(nh + 1, sizeof(bool));
	if (nh && !is(si->scope, "module")) {
		mpsfix_bindings_count(si->scope, ev->src, ev->defs->names, nh, b);
		for (size_t i = 0; i < nh; i++)
			si->hidden[i] = b[i].count > 0 || b[i].dynamic;
	}
	free(b);
	free(ca.ids);
	mpsfix_buf_release(&ca.name);
}

static void scope_release(scope_info *si)
{
	free(si->cuda_names);
	free(si->cuda_at);
	free(si->hidden);
}

/*
 * Does argument `v` name a CUDA device: a string ("cuda", "cuda:0"),
 * torch.device of one, or a name that the scope binds once, before `v`, to
 * one and nowhere else (`device = "cuda"` then `model.to(device)`)?
 */
static bool cuda_value(evidence *ev, TSNode v)
{
	if (cuda_device(ev->names, ev->src, v, &ev->name))
		return true;
	if (!is(v, "identifier") || !ev->si)
		return false;
	if (!ev->si->built)
		scope_build(ev->si, ev);
	for (size_t i = 0; i < ev->si->ncuda; i++)
		if (ev->si->cuda_at[i] < ts_node_start_byte(v) && mpsfix_node_same_text(ev->si->cuda_names[i], v, ev->src))
			return true;
	return false;
}

/* Is `name` a device API of torch.cuda or torch.xpu (failing_apis only when strict), or any of torch.npu? */
static bool device_api(const char *name, bool strict)
{
	const char *rest;

	if (!strncmp(name, "torch.npu.", 10) || !strncmp(name, "torch_npu.", 10))
		return true; /* Ascend NPUs: torch.npu exists only with torch_npu */
	if (strncmp(name, "torch.cuda.", 11) && strncmp(name, "torch.xpu.", 10))
		return false;
	rest = name + (name[6] == 'c' ? 11 : 10); /* after "torch.cuda." or "torch.xpu." */
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(failing_apis); i++)
		if (!strcmp(rest, failing_apis[i]))
			return true;
	for (size_t i = 0; !strict && i < MPSFIX_ARRAY_SIZE(device_apis); i++)
		if (!strcmp(rest, device_apis[i]))
			return true;
	return false;
}

static bool generator_body(TSNode body);

/* Does method `m` (a member of a class, members.h) need CUDA whenever it runs (`*at`: where)?  Asked once. */
static bool method_needs_cuda(evidence *ev, mpsfix_member *m, mpsfix_span *at)
{
	mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
	TSNode body = ts_node_child_by_field_name(m->def, "body", 4);

	if (m->cuda < 0) {
		/* its own statements, as a helper of the module is judged (not the calls it makes in turn) */
		m->cuda = !generator_body(body) &&
			  mpsfix_cuda_function(NULL, ev->names, ev->src, body, MPSFIX_CUDA_FAILING | MPSFIX_CUDA_MOVES,
					       seen) > 0;
		if (m->cuda)
			m->at = seen[0];
	}
	*at = m->at;
	return m->cuda > 0;
}

/*
 * Does `call` need CUDA?  `*at` is where: the call; for a helper of the
 * module or a method, the name called (`load_gpu`, `self._to_gpu`: so that
 * the name is not out of reach because of the helper itself, callers.h,
 * while the call's arguments are), or, for a helper called from the
 * module's own statements, the call inside it that needs CUDA (the module
 * holds the helper, and a rule reporting that call is not to be told it
 * cannot run because of itself; not an if of the module's, which does not
 * hold it).
 */
static bool call_needs_cuda(evidence *ev, TSNode call, mpsfix_span *at)
{
	TSNode fn = ts_node_child_by_field_name(call, "function", 8);
	TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
	/* qualified through the imports, else the dotted name as written */
	bool imported = ev->names && mpsfix_names_qualify(ev->names, fn, &ev->name) == MPSFIX_NAME_RESOLVED;
	bool named = imported || mpsfix_names_name_of(NULL, fn, ev->src, &ev->name);
	bool to = is(fn, "attribute") && mpsfix_node_text_is(ts_node_child_by_field_name(fn, "attribute", 9), ev->src, "to");

	*at = (mpsfix_span){ts_node_start_byte(call), ts_node_end_byte(call)};
	if (ev->methods && is(fn, "attribute") && mpsfix_node_text_is(ts_node_child_by_field_name(fn, "attribute", 9), ev->src, "cuda") &&
	    !(named && !strcmp(ev->name.data, "torch.cuda")))
		return true; /* x.cuda(): a tensor or module moved to CUDA by name */
	if (named) {
		if (device_api(ev->name.data, ev->strict))
			return true;
		/* a function of Megatron-LM, Triton, flash-attn...: none runs on a Mac
		   (imported: not a parameter or a fallback spelled the same) */
		if (imported && mpsfix_cuda_module(ev->name.data, ev->name.len))
			return true;
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(distributed_apis); i++)
			if (!strcmp(ev->name.data, distributed_apis[i]))
				return true;
		if (!ev->strict && !strcmp(ev->name.data, "torch.device") && is(args, "argument_list") &&
		    ts_node_named_child_count(args) > 0 && cuda_string(ts_node_named_child(args, 0), ev->src))
			return true; /* asks for CUDA by name (making the device fails nothing) */
	}
	for (uint32_t i = 0; is(args, "argument_list") && i < ts_node_named_child_count(args); i++) {
		TSNode a = ts_node_named_child(args, i);

		/* device="cuda": a tensor made there fails on a Mac, a GradScaler only warns */
		if (is(a, "keyword_argument") &&
		    (to || !ev->strict ||
		     (named && ev->factories &&
		      in_list(ev->name.data, tensor_factories, MPSFIX_ARRAY_SIZE(tensor_factories)))) &&
		    mpsfix_node_text_is(ts_node_child_by_field_name(a, "name", 4), ev->src, "device") &&
		    cuda_value(ev, ts_node_child_by_field_name(a, "value", 5)))
			return true;
		if (i == 0 && !is(a, "keyword_argument") && to && cuda_value(ev, a))
			return true; /* x.to("cuda"), x.to(device) after device = "cuda" */
	}
	if (ev->defs && is(fn, "identifier")) /* a helper of the module that needs CUDA */
		for (size_t i = 0; i < ev->defs->len; i++)
			if (ev->defs->cuda[i] && mpsfix_node_same_text(ev->defs->names[i], fn, ev->src)) {
				if (ev->si && !ev->si->built)
					scope_build(ev->si, ev);
				if (ev->si && ev->si->hidden[i])
					return false; /* a name of this scope, not the helper */
				*at = ev->whole_module
					      ? ev->defs->at[i] /* the module holds the helper's body too */
					      : (mpsfix_span){ts_node_start_byte(fn), ts_node_end_byte(fn)};
				return true;
			}
	if (ev->defs && ev->si && is(fn, "attribute")) { /* self.m(), m a method of its class that needs CUDA */
		mpsfix_member *m = mpsfix_members_self_call(&ev->defs->members, ev->src, ev->si->scope, fn);
		mpsfix_span where;

		if (m && !mpsfix_cuda_subclassed(ev->defs, ev->src, m->cls) && method_needs_cuda(ev, m, &where)) {
			*at = (mpsfix_span){ts_node_start_byte(fn), ts_node_end_byte(fn)};
			return true;
		}
	}
	return false;
}

/* What runs whenever the statement runs: not what a condition or a lambda holds back. */
static mpsfix_walk_action find_evidence(TSNode n, void *payload)
{
	static const char *const held_back[] = {
		"lambda", "conditional_expression", "boolean_operator", "list_comprehension",
		"set_comprehension", "dictionary_comprehension", "generator_expression",
		"function_definition", "class_definition", "block",
	};
	evidence *ev = payload;
	const char *type = ts_node_type(n);
	mpsfix_span at;

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(held_back); i++)
		if (!strcmp(type, held_back[i]))
			return MPSFIX_WALK_SKIP;
	if (!strcmp(type, "call") && call_needs_cuda(ev, n, &at)) {
		if (ev->seen)
			ev->seen[ev->nseen] = at;
		ev->found = !ev->seen || ++ev->nseen == MPSFIX_CUDA_EVIDENCE;
		return ev->found ? MPSFIX_WALK_STOP : MPSFIX_WALK_SKIP;
	}
	return MPSFIX_WALK_DESCEND;
}

/*
 * Can statement `s` leave its block early on a path that is not an error: a
 * return, break or continue in it (not in a def)?  A raise is not counted:
 * `if bad: raise ValueError(...)` before a CUDA call leaves it to run
 * whenever the input is good.
 */
typedef struct {
	bool loop;   /* `s` is a loop: its own break and continue stay in it */
	bool found;
} exits;

static mpsfix_walk_action find_exit(TSNode n, void *payload)
{
	exits *x = payload;

	if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda"))
		return MPSFIX_WALK_SKIP;
	if (is(n, "return_statement") || (!x->loop && (is(n, "break_statement") || is(n, "continue_statement")))) {
		x->found = true;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

static bool may_exit(TSNode s)
{
	exits x = {is(s, "for_statement") || is(s, "while_statement"), false};

	mpsfix_walk(s, find_exit, &x);
	return x.found;
}

/* Is with statement `s` one whose block may be cut short silently: `with contextlib.suppress(...)`? */
static bool suppresses(const evidence *ev, TSNode s)
{
	mpsfix_buf name = MPSFIX_BUF_INIT;
	TSNode clause = mpsfix_first_named(s);
	bool yes = false;

	for (uint32_t i = 0; !yes && i < mpsfix_named_count(clause); i++) {
		TSNode item = mpsfix_first_named(ts_node_named_child(clause, i));

		if (is(item, "as_pattern"))
			item = mpsfix_first_named(item);
		if (is(item, "call") &&
		    mpsfix_names_name_of(ev->names, ts_node_child_by_field_name(item, "function", 8), ev->src, &name)) {
			const char *dot = strrchr(name.data, '.');

			yes = !strcmp(dot ? dot + 1 : name.data, "suppress");
		}
	}
	mpsfix_buf_release(&name);
	return yes;
}

static void block_evidence(evidence *ev, TSNode b, int depth);

/* Does branch `b` (a block) need CUDA (2), end by raising (1), or neither (0)? */
static int branch_fails(const evidence *ev, TSNode b, int depth)
{
	evidence sub = *ev;
	mpsfix_kids k;
	TSNode s, last = {0};

	mpsfix_kids_start(&k, b);
	while (mpsfix_kids_next(&k, &s))
		last = s;
	mpsfix_kids_end(&k);
	sub.name = (mpsfix_buf)MPSFIX_BUF_INIT;
	sub.found = false;
	sub.seen = NULL;
	sub.nseen = 0;
	block_evidence(&sub, b, depth);
	mpsfix_buf_release(&sub.name);
	return sub.found ? 2 : is(last, "raise_statement") ? 1 : 0;
}

/*
 * Does if statement `s` fail on a Mac whichever way it goes: it has an else,
 * every branch needs CUDA (or XPU, or an NPU) or raises, and one needs it?
 */
static bool if_fails(const evidence *ev, TSNode s, int depth)
{
	bool has_else = false;
	int f = branch_fails(ev, ts_node_child_by_field_name(s, "consequence", 11), depth), any = f;
	mpsfix_kids k;
	TSNode c;

	mpsfix_kids_start(&k, s);
	while (f && mpsfix_kids_next(&k, &c)) {
		if (is(c, "elif_clause"))
			f = branch_fails(ev, ts_node_child_by_field_name(c, "consequence", 11), depth);
		else if (is(c, "else_clause"))
			has_else = (f = branch_fails(ev, ts_node_child_by_field_name(c, "body", 4), depth)) != 0;
		any = f > any ? f : any;
	}
	mpsfix_kids_end(&k);
	return f && has_else && any == 2;
}

/* Is `n` (or a part of it) a call that asks how many CUDA (XPU) devices there are, or whether any? */
typedef struct {
	evidence *ev;
	bool yes;
} counts_devices;

static mpsfix_walk_action find_device_count(TSNode n, void *payload)
{
	static const char *const asks[] = {
		"torch.cuda.device_count", "torch.cuda.is_available", "torch.xpu.device_count", "torch.xpu.is_available",
	};
	counts_devices *cd = payload;

	if (!is(n, "call"))
		return MPSFIX_WALK_DESCEND;
	if (mpsfix_names_name_of(cd->ev->names, ts_node_child_by_field_name(n, "function", 8), cd->ev->src,
				 &cd->ev->name))
		for (size_t i = 0; !cd->yes && i < MPSFIX_ARRAY_SIZE(asks); i++)
			cd->yes = !strcmp(cd->ev->name.data, asks[i]);
	return cd->yes ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

/*
 * Does loop `s` run where CUDA is missing?  Not `for i in
 * range(torch.cuda.device_count()):` (no devices, no turn) nor `while
 * torch.cuda.is_available():`.
 */
static bool loop_runs(evidence *ev, TSNode s)
{
	counts_devices cd = {ev, false};
	TSNode head = ts_node_child_by_field_name(s, is(s, "for_statement") ? "right" : "condition",
						  is(s, "for_statement") ? 5 : 9);

	if (!is(s, "for_statement") && !is(s, "while_statement"))
		return true;
	mpsfix_walk(head, find_device_count, &cd);
	return !cd.yes;
}

/*
 * Does try statement `s` hand on whatever its body raises: no except
 * clause, and a finally clause (if any) that cannot return, break or
 * continue (which would swallow the error)?
 */
static bool try_propagates(TSNode s)
{
	mpsfix_kids k;
	TSNode c;
	bool yes = true;

	mpsfix_kids_start(&k, s);
	while (yes && mpsfix_kids_next(&k, &c))
		yes = !is(c, "except_clause") && !is(c, "except_group_clause") && !(is(c, "finally_clause") && may_exit(c));
	mpsfix_kids_end(&k);
	return yes;
}

/*
 * The statements of block `b` (or the module) that run whenever it runs,
 * and those of the loops, with blocks and tries with no except clause
 * among them (a loop over a program's data runs; not one over the CUDA
 * devices, loop_runs; a try_propagates() what fails), up to
 * the first that may leave the block (a
 * return or raise, or an if or a try that may return, break or continue);
 * not those under an if, a try or a match, but an if all of whose ways fail
 * (if_fails) counts as a whole.
 */
static void block_evidence(evidence *ev, TSNode b, int depth)
{
	mpsfix_kids k;
	TSNode s, before = {0}; /* a compound statement that may leave the block, asked only when more follows */

	if (!is(b, "block") && !is(b, "module"))
		return;
	mpsfix_kids_start(&k, b);
	while (!ev->found && mpsfix_kids_next(&k, &s)) {
		if (!ts_node_is_null(before) && may_exit(before))
			break; /* what follows may not run */
		before = (TSNode){0};
		if (is(s, "expression_statement") || is(s, "return_statement"))
			mpsfix_walk(s, find_evidence, ev);
		if (is(s, "with_statement"))
			mpsfix_walk(s, find_evidence, ev); /* its items; the block is held back */
		if ((is(s, "for_statement") || is(s, "while_statement") || is(s, "with_statement")) && depth < 8 &&
		    !ev->found && !(is(s, "with_statement") && suppresses(ev, s)) && loop_runs(ev, s))
			block_evidence(ev, ts_node_child_by_field_name(s, "body", 4), depth + 1);
		if (is(s, "try_statement") && depth < 8 && !ev->found && try_propagates(s))
			block_evidence(ev, ts_node_child_by_field_name(s, "body", 4), depth + 1);
		if (is(s, "if_statement") && depth < 8 && !ev->found && if_fails(ev, s, depth + 1)) {
			if (ev->seen)
				ev->seen[ev->nseen] = (mpsfix_span){ts_node_start_byte(s), ts_node_end_byte(s)};
			ev->found = !ev->seen || ++ev->nseen == MPSFIX_CUDA_EVIDENCE;
		}
		if (is(s, "return_statement") || is(s, "raise_statement") || is(s, "break_statement") ||
		    is(s, "continue_statement"))
			break; /* what follows does not run */
		if (is(s, "if_statement") || is(s, "try_statement") || is(s, "match_statement") ||
		    is(s, "with_statement") || is(s, "for_statement") || is(s, "while_statement"))
			before = s; /* walked through only if a statement follows it (nested ifs: each once) */
	}
	mpsfix_kids_end(&k);
}

bool mpsfix_cuda_statement(mpsfix_names *names, const char *src, TSNode s)
{
	evidence ev = {.names = names, .src = src, .name = MPSFIX_BUF_INIT, .strict = true};

	if (is(s, "expression_statement") || is(s, "return_statement"))
		mpsfix_walk(s, find_evidence, &ev);
	mpsfix_buf_release(&ev.name);
	return ev.found;
}

size_t mpsfix_cuda_block(mpsfix_cuda_defs *defs, mpsfix_names *names, const char *src, TSNode body, TSNode scope,
			 unsigned flags, mpsfix_span seen[MPSFIX_CUDA_EVIDENCE])
{
	scope_info si = {scope, false, NULL, NULL, 0, NULL};
	evidence ev = {names, src, defs, MPSFIX_BUF_INIT, false, seen, 0,
		       (flags & MPSFIX_CUDA_MOVES) != 0, (flags & MPSFIX_CUDA_FAILING) != 0, true, is(body, "module"), &si};

	block_evidence(&ev, body, 0);
	mpsfix_buf_release(&ev.name);
	scope_release(&si);
	return ev.nseen;
}

size_t mpsfix_cuda_function(mpsfix_cuda_defs *defs, mpsfix_names *names, const char *src, TSNode body,
			    unsigned flags, mpsfix_span seen[MPSFIX_CUDA_EVIDENCE])
{
	TSNode scope = is(ts_node_parent(body), "function_definition") ? ts_node_parent(body) : body;

	return mpsfix_cuda_block(defs, names, src, body, scope, flags, seen);
}

/* Is the function with body `body` a generator (a call only makes it, and runs none of it)? */
static mpsfix_walk_action find_yield(TSNode n, void *payload)
{
	if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda"))
		return MPSFIX_WALK_SKIP;
	if (is(n, "yield")) {
		*(bool *)payload = true;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

static bool generator_body(TSNode body)
{
	bool generator = false;

	mpsfix_walk(body, find_yield, &generator);
	return generator;
}

void mpsfix_cuda_defs_read(mpsfix_cuda_defs *fd, mpsfix_names *names, const char *src, TSNode root)
{
	mpsfix_kids k;
	TSNode d;
	mpsfix_binding *b;

	mpsfix_kids_start(&k, root);
	while (mpsfix_kids_next(&k, &d)) {
		mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
		bool generator;

		if (is(d, "decorated_definition"))
			d = ts_node_child_by_field_name(d, "definition", 10);
		if (!is(d, "function_definition"))
			continue;
		if (fd->len == fd->cap) {
			fd->cap = fd->cap ? 2 * fd->cap : 16;
			fd->names = mpsfix_xrealloc(fd->names, fd->cap * sizeof(TSNode));
			fd->bodies = mpsfix_xrealloc(fd->bodies, fd->cap * sizeof(TSNode));
			fd->cuda = mpsfix_xrealloc(fd->cuda, fd->cap * sizeof(bool));
			fd->at = mpsfix_xrealloc(fd->at, fd->cap * sizeof(mpsfix_span));
		}
		fd->names[fd->len] = ts_node_child_by_field_name(d, "name", 4);
		fd->bodies[fd->len] = ts_node_child_by_field_name(d, "body", 4);
		generator = generator_body(fd->bodies[fd->len]);
		/* a helper counts when calling it fails on a Mac */
		fd->cuda[fd->len] = !generator &&
				    mpsfix_cuda_function(NULL, names, src, fd->bodies[fd->len],
							 MPSFIX_CUDA_FAILING | MPSFIX_CUDA_MOVES, seen) > 0;
		fd->at[fd->len] = seen[0];
		fd->len++;
	}
	mpsfix_kids_end(&k);
	fd->read = true;
	/* and when the module binds its name nowhere else (a second def, an import) */
	b = mpsfix_xcalloc(fd->len + 1, sizeof(*b));
	mpsfix_bindings_count(root, src, fd->names, fd->len, b);
	for (size_t i = 0; i < fd->len; i++)
		fd->cuda[i] = fd->cuda[i] && b[i].count == 1 && !b[i].dynamic;
	free(b);
}

void mpsfix_cuda_defs_release(mpsfix_cuda_defs *fd)
{
	free(fd->names);
	free(fd->bodies);
	free(fd->cuda);
	free(fd->at);
	free(fd->bases);
	mpsfix_members_free(fd->members);
	memset(fd, 0, sizeof(*fd));
}

/* ---- classes -------------------------------------------------------------- */


/* The names the file's classes derive from. */
static mpsfix_walk_action find_bases(TSNode n, void *payload)
{
	mpsfix_cuda_defs *sp = payload;
	TSNode args, a;

	if (!is(n, "class_definition"))
		return MPSFIX_WALK_DESCEND;
	args = ts_node_child_by_field_name(n, "superclasses", 12);
	for (uint32_t i = 0; i < mpsfix_named_count(args); i++) {
		a = ts_node_named_child(args, i);
		if (is(a, "attribute"))
			a = ts_node_child_by_field_name(a, "attribute", 9);
		if (is(a, "identifier")) {
			mpsfix_grow((void **)&sp->bases, &sp->capbases, sp->nbases + 1, sizeof(TSNode));
			sp->bases[sp->nbases++] = a;
		}
	}
	return MPSFIX_WALK_DESCEND;
}

bool mpsfix_cuda_subclassed(mpsfix_cuda_defs *defs, const char *src, TSNode cls)
{
	TSNode name = ts_node_child_by_field_name(cls, "name", 4), root = cls;

	if (!defs->bases_read) {
		while (!ts_node_is_null(ts_node_parent(root)))
			root = ts_node_parent(root);
		mpsfix_walk(root, find_bases, defs);
		defs->bases_read = true;
	}
	for (size_t i = 0; i < defs->nbases; i++)
		if (mpsfix_node_same_text(defs->bases[i], name, src))
			return true;
	return false;
}

static bool up(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool low(char c)
{
	return c >= 'a' && c <= 'z';
}

bool mpsfix_cuda_class_name(const char *p, size_t n)
{
	static const char *const words[] = {
		"CUDA", "Cuda", "NPU", "Npu", "MLU", "Mlu", "HPU", "Hpu", "XPU", "Xpu", "SDAA", "Sdaa",
		"XLA", "Xla", "TPU", "Tpu", "NCCL", "Nccl", "ROCM", "Rocm", "Habana", "Gaudi", "Ascend",
	};
	size_t i = 0, j;

	for (; i < n; i = j) {
		j = i + 1;
		if (p[i] == '_')
			continue;
		if (up(p[i]) && j < n && !low(p[j])) {
			/* an upper-case run, less its last letter when a lower-case one
			   follows: HPUFused is HPU, then Fused */
			while (j < n && !low(p[j]) && p[j] != '_')
				j++;
			if (j < n && low(p[j]) && j - i > 1)
				j--;
		} else {
			/* a capital (or not) and the lower-case letters and digits after it */
			while (j < n && !up(p[j]) && p[j] != '_')
				j++;
		}
		for (size_t w = 0; w < MPSFIX_ARRAY_SIZE(words); w++)
			if (strlen(words[w]) == j - i && !memcmp(p + i, words[w], j - i))
				return true;
	}
	return false;
}

/* Does file stem [p, p+n) hold one of `words` as a word (split at '_' and '-'), in any case? */
static bool stem_word(const char *p, size_t n, const char *const *words, size_t nwords)
{
	for (size_t i = 0, j; i < n; i = j + 1) {
		for (j = i; j < n && p[j] != '_' && p[j] != '-';)
			j++;
		for (size_t w = 0; w < nwords; w++)
			if (strlen(words[w]) == j - i && !strncasecmp(p + i, words[w], j - i))
				return true;
	}
	return false;
}

bool mpsfix_cuda_module_file(const char *path)
{
	static const char *const others[] = {
		"cuda", "npu", "mlu", "hpu", "xpu", "sdaa", "xla", "tpu", "rocm", "habana", "gaudi", "ascend",
	};
	static const char *const mps[] = {"mps"};
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t n = strlen(base);
	char *dir;
	DIR *d;
	struct dirent *e;
	bool found = false;

	if (n < 4 || strcmp(base + n - 3, ".py") || !stem_word(base, n - 3, others, MPSFIX_ARRAY_SIZE(others)))
		return false;
	dir = slash ? mpsfix_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : mpsfix_xstrdup(".");
	if ((d = opendir(dir)) != NULL) {
		while (!found && (e = readdir(d)) != NULL) {
			size_t k = strlen(e->d_name);

			found = k > 3 && !strcmp(e->d_name + k - 3, ".py") &&
				stem_word(e->d_name, k - 3, mps, MPSFIX_ARRAY_SIZE(mps));
		}
		closedir(d);
	}
	free(dir);
	return found;
}

bool mpsfix_cuda_in_definition(TSNode root, TSNode n)
{
	TSNode top = ts_node_child_with_descendant(root, n);

	return !ts_node_is_null(top) && !ts_node_eq(top, n) &&
	       (!strcmp(ts_node_type(top), "function_definition") || !strcmp(ts_node_type(top), "class_definition") ||
		!strcmp(ts_node_type(top), "decorated_definition"));
}

/* Is dotted name [p, p+n) module `mod` or inside it? */
static bool in_module(const char *p, size_t n, const char *mod)
{
	size_t k = strlen(mod);

	return n >= k && !memcmp(p, mod, k) && (n == k || p[k] == '.');
}

bool mpsfix_cuda_module(const char *p, size_t n)
{
	static const char *const mods[] = {
		"triton", "flash_attn", "apex", "transformer_engine", "deepspeed", "torchao.float8", "torch_tensorrt",
		"tensorrt", "colossalai", "megatron", "msamp",
		/* ONNX Runtime's ORTModule training and its fused optimizers (CUDA
		   and ROCm; torch-ort asks for "a working pytorch gpu environment");
		   not its on-device training API, onnxruntime.training.api */
		"onnxruntime.training.ortmodule", "onnxruntime.training.optim", "torch_ort",
		/* bitsandbytes' Triton kernels and the layers built on them (the rest
		   of bitsandbytes has CPU, MPS and XPU backends) */
		"bitsandbytes.triton", "bitsandbytes.nn.triton_based_modules", "bitsandbytes.nn.SwitchBackLinear",
		"bitsandbytes.nn.SwitchBackLinearGlobal", "bitsandbytes.nn.SwitchBackLinearVectorwise",
		"bitsandbytes.nn.StandardLinear",
	};

	if (in_module(p, n, "deepspeed.accelerator"))
		return false; /* DeepSpeed's accelerator API picks MPS on a Mac (its MPS_Accelerator) */
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(mods); i++)
		if (in_module(p, n, mods[i]))
			return true;
	return false;
}
