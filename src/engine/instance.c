/*
 * instance.c: which class a value is an instance of, and whether it can be
 * a tensor (see instance.h).
 */
#include "instance.h"

#include <string.h>

#include "bindings.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *last_part(const mpsfix_buf *b)
{
	const char *dot = strrchr(b->data, '.');

	return dot ? dot + 1 : b->data;
}

bool mpsfix_instance_module_class(const char *src, mpsfix_names *names, TSNode root, const char *name)
{
	mpsfix_buf base = MPSFIX_BUF_INIT;
	mpsfix_kids k;
	TSNode d, args;
	bool yes = false;

	mpsfix_kids_start(&k, root);
	while (!yes && mpsfix_kids_next(&k, &d)) {
		if (is(d, "decorated_definition"))
			d = ts_node_child_by_field_name(d, "definition", 10);
		if (!is(d, "class_definition") ||
		    !mpsfix_node_text_is(ts_node_child_by_field_name(d, "name", 4), src, name))
			continue;
		yes = true;
		args = ts_node_child_by_field_name(d, "superclasses", 12);
		for (uint32_t i = 0; yes && i < mpsfix_named_count(args); i++)
			yes = !(mpsfix_names_name_of(names, ts_node_named_child(args, i), src, &base) && starts(base.data, "torch."));
	}
	mpsfix_kids_end(&k);
	mpsfix_buf_release(&base);
	return yes;
}

/* The assignments `NAME = value` of a scope, outside the functions, classes and lambdas in it. */
#define PLAIN_MAX 4
typedef struct {
	const char *src;
	TSNode name;
	TSNode stmt[PLAIN_MAX]; /* their statements, in order */
	TSNode value;                         /* the last one's right side */
	uint32_t n;
} plain_assignments;

static mpsfix_walk_action find_plain(TSNode n, void *payload)
{
	plain_assignments *p = payload;
	const char *type = ts_node_type(n);
	TSNode left = ts_node_child_by_field_name(n, "left", 4);

	if (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") || !strcmp(type, "lambda"))
		return MPSFIX_WALK_SKIP; /* another scope */
	if (strcmp(type, "assignment") || !mpsfix_node_same_text(left, p->name, p->src) || !is(left, "identifier"))
		return MPSFIX_WALK_DESCEND;
	if (p->n < PLAIN_MAX && is(ts_node_parent(n), "expression_statement"))
		p->stmt[p->n] = ts_node_parent(n);
	p->value = ts_node_child_by_field_name(n, "right", 5);
	p->n++;
	return MPSFIX_WALK_DESCEND;
}

/*
 * The value of `id` where it is used, when every binding of it in `scope`
 * (`count` of them) is an assignment statement, one right after the other
 * in one block that no try holds, and `id` comes after the last: that
 * last one's right side.  `ema = Model(...)` then `ema = EMAModel(ema...)`.
 */
static bool last_of_consecutive(const char *src, TSNode scope, TSNode id, uint32_t count, TSNode *out)
{
	plain_assignments p = {.src = src, .name = id};
	TSNode prev;

	mpsfix_walk(is(scope, "function_definition") ? ts_node_child_by_field_name(scope, "body", 4) : scope,
		    find_plain, &p);
	if (p.n != count || p.n > PLAIN_MAX || ts_node_end_byte(p.stmt[p.n - 1]) > ts_node_start_byte(id))
		return false;
	for (uint32_t i = 0; i < p.n; i++) {
		if (ts_node_is_null(p.stmt[i]))
			return false; /* `a = NAME = v`, `(NAME := v)`: not a statement of its own */
		for (prev = ts_node_prev_named_sibling(p.stmt[i]); !ts_node_is_null(prev) && ts_node_is_extra(prev);)
			prev = ts_node_prev_named_sibling(prev);
		if (i > 0 && !ts_node_eq(prev, p.stmt[i - 1]))
			return false;
	}
	for (TSNode a = ts_node_parent(p.stmt[0]); !ts_node_eq(a, scope); a = ts_node_parent(a))
		if (ts_node_is_null(a) || is(a, "try_statement"))
			return false; /* a later one may raise, and the earlier value live on */
	*out = p.value;
	return true;
}

bool mpsfix_instance_class(const char *src, mpsfix_names *names, TSNode value, mpsfix_buf *cls, TSNode *call)
{
	TSNode id = mpsfix_unparenthesized(value), v, scope;
	mpsfix_binding b;
	const char *last;

	if (!is(id, "identifier"))
		return false;
	/* the scope that binds the name: the function's, or one around it (a
	   closure's), or the module's */
	for (scope = ts_node_parent(id);; scope = ts_node_parent(scope)) {
		while (!ts_node_is_null(scope) && !is(scope, "function_definition") && !is(scope, "module"))
			scope = ts_node_parent(scope);
		if (ts_node_is_null(scope))
			return false;
		mpsfix_bindings_count(scope, src, &id, 1, &b);
		if (b.count || is(scope, "module"))
			break;
	}
	/* bound once, by `id = Class(...)` before it, or by consecutive
	   assignments the last of which is that (no loop, branch or parameter
	   gives it another value) */
	if (b.count == 0 || b.dynamic)
		return false;
	if (b.count == 1 && !ts_node_is_null(b.value) && b.at < ts_node_start_byte(id))
		v = mpsfix_unparenthesized(b.value);
	else if (!last_of_consecutive(src, scope, id, b.count, &v))
		return false;
	else
		v = mpsfix_unparenthesized(v);
	if (!is(v, "call") || !mpsfix_names_name_of(names, ts_node_child_by_field_name(v, "function", 8), src, cls))
		return false;
	last = last_part(cls);
	if (*last < 'A' || *last > 'Z')
		return false; /* a function's result */
	*call = v;
	return true;
}

bool mpsfix_instance_may_be_tensor(const char *src, mpsfix_names *names, TSNode value)
{
	mpsfix_buf name = MPSFIX_BUF_INIT;
	TSNode v, root, fn;
	mpsfix_binding b;
	bool yes = true;

	if (!mpsfix_instance_class(src, names, value, &name, &v) || strchr(name.data, '.'))
		goto done; /* a class from elsewhere (whose method may pin tensors): engine.c asks sibling.h */
	for (root = v; !ts_node_is_null(ts_node_parent(root)); root = ts_node_parent(root))
		;
	if (!mpsfix_instance_module_class(src, names, root, name.data))
		goto done;
	/* the module binds the class's name that once (not `Wrapper = torch.as_tensor` later) */
	fn = ts_node_child_by_field_name(v, "function", 8);
	mpsfix_bindings_count(root, src, &fn, 1, &b);
	yes = b.count != 1 || b.dynamic;
done:
	mpsfix_buf_release(&name);
	return yes;
}
