/*
 * reach_value.c: can a value be the MPS device (type), and is a test false
 * wherever the program runs on MPS?  See reach.h.  A name is followed to
 * the values its scope assigns it, a parameter to its default (where every
 * call keeps it) and `self.X` to what its class gives it.
 */
#include "reach.h"
#include "reach_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "dynamic.h"
#include "literal.h"
#include "parse.h"
#include "truth.h"

#define MAX_DEPTH 12

typedef mpsfix_truth truth;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* The expression inside parentheses (and comments). */
static TSNode bare(TSNode n)
{
	return mpsfix_unparenthesized(n);
}

static truth test(const mpsfix_reach_ctx *cx, TSNode e)
{
	return mpsfix_reach__truth(cx, e, false);
}

/* ---- values --------------------------------------------------------------- */

#define MAX_VALUES MPSFIX_REACH_MAX_VALUES
#define MAX_STEPS 4096 /* may_be_mps() calls for one question */

/* The plain assignments `NAME = v` of a scope (not of the scopes inside it). */
typedef struct {
	const char *src;
	TSNode name;                /* the identifier read */
	TSNode stmt[MAX_VALUES];    /* each assignment, in order */
	uint32_t n, total;          /* those kept; all of them */
} assignments;

static mpsfix_walk_action find_assignment(TSNode n, void *payload)
{
	assignments *as = payload;
	const char *type = ts_node_type(n);

	if (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") ||
	    !strcmp(type, "lambda"))
		return MPSFIX_WALK_SKIP; /* another scope */
	if (!strcmp(type, "assignment")) {
		TSNode left = ts_node_child_by_field_name(n, "left", 4);

		if (is(left, "identifier") && !ts_node_is_null(ts_node_child_by_field_name(n, "right", 5)) &&
		    mpsfix_node_same_text(left, as->name, as->src)) {
			if (as->n < MAX_VALUES)
				as->stmt[as->n++] = n;
			as->total++;
		}
	}
	return MPSFIX_WALK_DESCEND;
}

/* The block (or module) whose statement assignment `a` is. */
static TSNode statement_block(TSNode a)
{
	TSNode p = ts_node_parent(a);

	while (is(p, "assignment")) /* b of a = b = v */
		p = ts_node_parent(p);
	return ts_node_parent(p); /* the expression statement's */
}

static bool inside(TSNode outer, TSNode n)
{
	return ts_node_start_byte(n) >= ts_node_start_byte(outer) && ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

static bool may_be_mps(const mpsfix_reach_ctx *cx, TSNode v, int depth);

/* Where is the selfattr index of the file of `at` (read when first asked)? */
static mpsfix_selfattr_index *selfattrs(const mpsfix_reach_ctx *cx, TSNode at)
{
	mpsfix_reach_spans *sp = cx->spans;

	if (!sp->selfattrs) {
		TSNode root = ts_node_is_null(sp->root) ? at : sp->root;

		while (!ts_node_is_null(ts_node_parent(root)))
			root = ts_node_parent(root);
		sp->selfattrs = mpsfix_selfattr_index_new(root, cx->src, cx->names);
	}
	return sp->selfattrs;
}

/*
 * A read of a module's name at its top level: can it be set where the
 * module does not bind it?  By exec() and the like in a function, or as an attribute of
 * the module (`sys.modules[__name__].device = ...`, `setattr(mod, ...)`):
 * any object's attribute of that name set in the file counts.
 */
static bool module_name_settable(const mpsfix_reach_ctx *cx, TSNode id, TSNode module)
{
	mpsfix_reach_spans *sp = cx->spans;

	if (!sp)
		return true;
	if (!sp->module_dynamic)
		sp->module_dynamic = mpsfix_dynamic_calls(cx->src, module) ? 2 : 1;
	if (sp->module_dynamic == 2)
		return true;
	return mpsfix_selfattr_foreign_set(selfattrs(cx, id), id);
}

/*
 * The values identifier `id` can hold where it is read, by the assignments
 * of its function (or module), into out[0, *n): the last one before it
 * when that one's block holds the read (it always runs first), else every
 * one before it.  False when something else may bind the name (a loop,
 * `with`, `global`, an import; a parameter or exec(), unless the last
 * assignment always runs after it and exec() not between), when nothing
 * assigns it before the read, or when a later assignment in a loop around
 * the read reaches it in the next round.
 */
static bool assigned_values(const mpsfix_reach_ctx *cx, TSNode id, TSNode *out, uint32_t *n)
{
	TSNode scope = ts_node_parent(id), body, loop = {0}, p;
	assignments as = {.src = cx->src, .name = id};
	mpsfix_binding b;
	mpsfix_kids k;
	TSNode s;
	uint32_t before = 0, at = ts_node_start_byte(id);
	struct mpsfix_reach_assigned local = {0}, *cache;
	bool param = false;

	for (; !ts_node_is_null(scope) && !is(scope, "function_definition") && !is(scope, "module");
	     scope = ts_node_parent(scope)) {
		if (is(scope, "for_statement") || is(scope, "while_statement"))
			loop = scope; /* the outermost loop around the read, in its scope */
		/* read later, when the name may hold anything: a lambda's body (or its
		 * parameter), a generator kept for later; a class body binds names of its own */
		if (is(scope, "lambda") || is(scope, "class_definition") ||
		    (is(scope, "generator_expression") &&
		     !mpsfix_bindings_generator_consumed(scope, cx->src, cx->spans ? &cx->spans->rebound_builtins : NULL)))
			return false;
	}
	if (ts_node_is_null(scope) || (is(scope, "module") && module_name_settable(cx, id, scope)))
		return false;
	/* the scope's assignments of the name: the last answer's when it is the same */
	cache = cx->spans ? &cx->spans->assigned : &local;
	if (!cache->valid || cache->scope != ts_node_start_byte(scope) || cache->scope_end != ts_node_end_byte(scope) ||
	    !mpsfix_node_same_text(cache->name, id, cx->src)) {
		body = is(scope, "function_definition") ? ts_node_child_by_field_name(scope, "body", 4) : scope;
		mpsfix_kids_start(&k, body);
		while (mpsfix_kids_next(&k, &s))
			mpsfix_walk(s, find_assignment, &as);
		mpsfix_kids_end(&k);
		param = false;
		if (is(scope, "function_definition")) {
			mpsfix_kids_start(&k, ts_node_child_by_field_name(scope, "parameters", 10));
			while (!param && mpsfix_kids_next(&k, &s))
				param = mpsfix_node_same_text(mpsfix_param_name(s), id, cx->src);
			mpsfix_kids_end(&k);
		}
		b.count = 0;
		b.dynamic = false;
		if (as.total && as.total <= as.n)
			mpsfix_bindings_count(scope, cx->src, &id, 1, &b);
		cache->valid = true;
		cache->scope = ts_node_start_byte(scope);
		cache->scope_end = ts_node_end_byte(scope);
		cache->name = id;
		memcpy(cache->stmt, as.stmt, sizeof(as.stmt));
		cache->n = as.n;
		cache->total = as.total;
		cache->count = b.count;
		cache->dynamic = b.dynamic;
		cache->param = param;
	}
	memcpy(as.stmt, cache->stmt, sizeof(as.stmt));
	as.n = cache->n;
	as.total = cache->total;
	b.count = cache->count;
	b.dynamic = cache->dynamic;
	param = cache->param;
	if (as.total == 0 || as.total > as.n)
		return false;
	if (b.count != as.total + param)
		return false; /* bound another way too */
	while (before < as.n && ts_node_start_byte(as.stmt[before]) < at)
		before++;
	if (!before || ts_node_end_byte(as.stmt[before - 1]) > at)
		return false; /* none before it, or the read is in the last one's value: not assigned yet */
	if (!ts_node_is_null(loop))
		for (uint32_t i = before; i < as.n; i++)
			if (inside(loop, as.stmt[i]))
				return false; /* assigned again later in the loop: the next round reads it */
	p = statement_block(as.stmt[before - 1]);
	if (b.dynamic && (!mpsfix_dynamic_free(cx->src, ts_node_end_byte(as.stmt[before - 1]), at) ||
			  (!ts_node_is_null(loop) && !mpsfix_dynamic_free(cx->src, at, ts_node_end_byte(loop)))))
		return false; /* exec() may bind it between, or later in the loop, for the next round */
	if (!ts_node_is_null(p) && inside(p, id)) {
		out[0] = ts_node_child_by_field_name(as.stmt[before - 1], "right", 5);
		*n = 1;
		return true;
	}
	if (param || b.dynamic)
		return false; /* the argument (what exec() binds) may reach it too */
	for (uint32_t i = 0; i < before; i++)
		out[i] = ts_node_child_by_field_name(as.stmt[i], "right", 5);
	*n = before;
	return true;
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
		return (test(cx, left) == MPSFIX_FALSE_ON_MPS || says_not_mps(cx, left, a, depth + 1)) &&
		       (test(cx, right) == MPSFIX_FALSE_ON_MPS || says_not_mps(cx, right, a, depth + 1));
	}
	if (!is(t, "comparison_operator") || mpsfix_named_count(t) != 2)
		return false;
	left = bare(ts_node_named_child(t, 0));
	if (!mpsfix_node_same_text(left, a, cx->src))
		return false;
	if (test(cx, t) == MPSFIX_FALSE_ON_MPS)
		return true;
	op = ts_node_child(t, 1);
	right = bare(ts_node_named_child(t, 1));
	if (ts_node_is_null(op) || strcmp(ts_node_type(op), "==") || !(v = mpsfix_literal_string(&lit, right, cx->src)))
		return false;
	other = mpsfix_truth_device_kind(v) != 'm';
	mpsfix_literal_release(&lit);
	return other;
}

/*
 * Is identifier `id` a parameter of the function it is read in, bound
 * nowhere else in it, whose default (into `*out`) is always its value?
 */
static bool default_kept(const mpsfix_reach_ctx *cx, TSNode id, TSNode *out)
{
	TSNode def = ts_node_parent(id), params, p;
	mpsfix_binding b;
	mpsfix_kids k;
	bool kept = false;

	while (!ts_node_is_null(def) && !is(def, "function_definition") && !is(def, "lambda") &&
	       !is(def, "class_definition"))
		def = ts_node_parent(def);
	if (!is(def, "function_definition") ||
	    ts_node_start_byte(id) < ts_node_start_byte(ts_node_child_by_field_name(def, "body", 4)))
		return false; /* a default or an annotation: read where the def stands */
	params = ts_node_child_by_field_name(def, "parameters", 10);
	mpsfix_kids_start(&k, params);
	while (!kept && mpsfix_kids_next(&k, &p))
		if ((is(p, "default_parameter") || is(p, "typed_default_parameter")) &&
		    mpsfix_node_same_text(ts_node_child_by_field_name(p, "name", 4), id, cx->src)) {
			/* the memo's answer first: the scope's walk only when it is yes */
			kept = mpsfix_defaults_kept(cx->defaults, cx->src, p);
			if (kept) {
				mpsfix_bindings_count(def, cx->src, &id, 1, &b);
				kept = b.count == 1 && !b.dynamic;
			}
			*out = ts_node_child_by_field_name(p, "value", 5);
		}
	mpsfix_kids_end(&k);
	return kept;
}

/* Can `self.X` be the MPS device: can any value its class gives it (selfattr.h)? */
static bool self_attribute_may_be_mps(const mpsfix_reach_ctx *cx, TSNode v, int depth)
{
	mpsfix_reach_spans *sp = cx->spans;
	TSNode cls, name = ts_node_child_by_field_name(v, "attribute", 9);
	mpsfix_selfattr_values vals = {0};
	size_t at;
	bool may = false;

	if (!sp)
		return true;
	if (!mpsfix_selfattr_owner(selfattrs(cx, v), v, &cls))
		return true;
	for (size_t i = 0; i < sp->nattrs; i++)
		if (sp->attrs[i].cls == ts_node_start_byte(cls) && mpsfix_node_same_text(sp->attrs[i].name, name, cx->src))
			return sp->attrs[i].may;
	/* asked again while its values are read (self.X = self.X.to(...)): it may */
	mpsfix_grow((void **)&sp->attrs, &sp->capattrs, sp->nattrs + 1, sizeof(*sp->attrs));
	at = sp->nattrs++;
	sp->attrs[at] = (struct mpsfix_reach_attr){ts_node_start_byte(cls), name, true};
	if (mpsfix_selfattr_values_of(sp->selfattrs, cls, name, &vals))
		for (size_t i = 0; !may && i < vals.len; i++)
			may = may_be_mps(cx, vals.items[i], depth + 1);
	else
		may = true;
	free(vals.items);
	sp->attrs[at].may = may;
	return may;
}

static bool may_be_mps(const mpsfix_reach_ctx *cx, TSNode v, int depth)
{
	const char *type;
	mpsfix_literal lit;
	const char *s;

	v = bare(v);
	if (ts_node_is_null(v) || depth > MAX_DEPTH)
		return true;
	/* names assigned from names in branches multiply the paths: past a budget, it may */
	if (cx->spans && ++cx->spans->steps > MAX_STEPS)
		return true;
	type = ts_node_type(v);
	if ((s = mpsfix_literal_string(&lit, v, cx->src))) {
		bool mps = mpsfix_truth_device_kind(s) == 'm';

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
		bool dev = mpsfix_names_name_of(cx->names, ts_node_child_by_field_name(v, "function", 8), cx->src,
						&name) &&
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
		t = test(cx, part[1]);
		if (t != MPSFIX_FALSE_ON_MPS && !says_not_mps(cx, part[1], part[0], 0) &&
		    may_be_mps(cx, part[0], depth + 1))
			return true;
		return t != MPSFIX_TRUE_ON_MPS && may_be_mps(cx, part[2], depth + 1);
	}
	if (!strcmp(type, "identifier")) {
		TSNode values[MAX_VALUES];
		uint32_t n = 0;

		if (assigned_values(cx, v, values, &n)) {
			for (uint32_t i = 0; i < n; i++)
				if (may_be_mps(cx, values[i], depth + 1))
					return true;
			return false;
		}
		if (default_kept(cx, v, values))
			return may_be_mps(cx, values[0], depth + 1);
		return true;
	}
	if (!strcmp(type, "attribute")) {
		TSNode obj = ts_node_child_by_field_name(v, "object", 6);

		/* dev.type of a name (or self.X) assigned a device */
		if (mpsfix_node_text_is(ts_node_child_by_field_name(v, "attribute", 9), cx->src, "type") &&
		    (is(obj, "identifier") || is(obj, "attribute")))
			return may_be_mps(cx, obj, depth + 1);
		return self_attribute_may_be_mps(cx, v, depth);
	}
	return true;
}

bool mpsfix_reach_false_on_mps(const mpsfix_reach_ctx *cx, TSNode e)
{
	return mpsfix_reach__truth(cx, e, true) == MPSFIX_FALSE_ON_MPS;
}

bool mpsfix_reach_may_be_mps(const mpsfix_reach_ctx *cx, TSNode value)
{
	if (cx->spans)
		cx->spans->steps = 0;
	return may_be_mps(cx, value, 0);
}
