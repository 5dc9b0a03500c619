/*
 * instance.c: which class a value is an instance of, and whether it can be
 * a tensor (see instance.h).
 */
#include "instance.h"

#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static const char *last_part(const mpsfix_buf *b)
{
	const char *dot = strrchr(b->data, '.');

	return dot ? dot + 1 : b->data;
}

/*
 * The class definition `name` at the top level of module `root`, when the
 * module binds that name there alone (not `Own = torch.Tensor` after it);
 * a null node otherwise.
 */
static TSNode module_class(const char *src, TSNode root, const char *name)
{
	mpsfix_kids k;
	TSNode d, found = {0};
	mpsfix_binding b;

	mpsfix_kids_start(&k, root);
	while (ts_node_is_null(found) && mpsfix_kids_next(&k, &d)) {
		if (is(d, "decorated_definition"))
			d = ts_node_child_by_field_name(d, "definition", 10);
		if (is(d, "class_definition") &&
		    mpsfix_node_text_is(ts_node_child_by_field_name(d, "name", 4), src, name))
			found = d;
	}
	mpsfix_kids_end(&k);
	if (!ts_node_is_null(found)) {
		TSNode id = ts_node_child_by_field_name(found, "name", 4);

		mpsfix_bindings_count(root, src, &id, 1, &b);
		if (b.count != 1 || b.dynamic)
			found = (TSNode){0};
	}
	return found;
}

/*
 * Is class `name` of module `root` one from nothing of torch's: its bases
 * are none, `object`, abc's ABC, or classes of the module that are (eight
 * deep at most); `metaclass=` aside?  A base from elsewhere (torch.Tensor,
 * a TensorDict, an alias) may be a tensor or pin tensors itself.
 */
static bool plain_class(const char *src, mpsfix_names *names, TSNode root, const char *name, int depth)
{
	mpsfix_buf base = MPSFIX_BUF_INIT;
	TSNode d = module_class(src, root, name), args, c;
	mpsfix_kids k;
	bool yes = !ts_node_is_null(d) && depth < 8;

	args = yes ? ts_node_child_by_field_name(d, "superclasses", 12) : (TSNode){0};
	mpsfix_kids_start(&k, args);
	while (yes && mpsfix_kids_next(&k, &c)) {
		if (is(c, "keyword_argument")) {
			yes = mpsfix_node_text_is(ts_node_child_by_field_name(c, "name", 4), src, "metaclass");
			continue;
		}
		yes = mpsfix_names_name_of(names, c, src, &base);
		if (yes && strcmp(base.data, "object") && strcmp(base.data, "abc.ABC"))
			yes = !strchr(base.data, '.') && plain_class(src, names, root, base.data, depth + 1);
	}
	mpsfix_kids_end(&k);
	mpsfix_buf_release(&base);
	return yes;
}

bool mpsfix_instance_module_class(const char *src, mpsfix_names *names, TSNode root, const char *name)
{
	return plain_class(src, names, root, name, 0);
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
 * The value of `id` after the bindings of it in `scope` (`count` of them),
 * when each is an assignment statement, one right after the other in one
 * block that no try holds: the last one's right side, and where that
 * statement ends into `from`.  `ema = Model(...)` then `ema = EMAModel(ema...)`.
 */
static bool last_of_consecutive(const char *src, TSNode scope, TSNode id, uint32_t count, TSNode *out,
				uint32_t *from)
{
	plain_assignments p = {.src = src, .name = id};
	TSNode prev;

	mpsfix_walk(is(scope, "function_definition") ? ts_node_child_by_field_name(scope, "body", 4) : scope,
		    find_plain, &p);
	if (p.n != count || p.n > PLAIN_MAX)
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
	*from = ts_node_end_byte(p.stmt[p.n - 1]);
	return true;
}

/* Is `n` a lambda or a comprehension, a scope of its own? */
static bool scope_node(TSNode n)
{
	static const char *const kinds[] = {
		"lambda", "list_comprehension", "set_comprehension", "dictionary_comprehension",
		"generator_expression",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(kinds); i++)
		if (is(n, kinds[i]))
			return true;
	return false;
}

void mpsfix_instance_memo_release(mpsfix_instance_memo *m)
{
	for (size_t i = 0; i < m->len; i++)
		free(m->items[i].name);
	free(m->items);
	memset(m, 0, sizeof(*m));
}

/* What `memo` knows of name `id` in the scope that starts at `at`; NULL if nothing. */
static struct mpsfix_instance_known *recall(mpsfix_instance_memo *memo, const char *src, TSNode id, uint32_t at)
{
	uint32_t start = ts_node_start_byte(id), len = ts_node_end_byte(id) - start;

	for (size_t i = 0; memo && i < memo->len; i++)
		if (memo->items[i].scope == at && strlen(memo->items[i].name) == len &&
		    !memcmp(memo->items[i].name, src + start, len))
			return &memo->items[i];
	return NULL;
}

/*
 * From scope `scope` (the function or module around `id`) outward: the
 * value of `id` there, with the byte from which every use of the name in
 * that function sees it into `from` (0 when no value holds anywhere).
 */
static bool resolve(const char *src, TSNode id, TSNode scope, TSNode *out, uint32_t *from)
{
	mpsfix_binding b;
	TSNode v;

	*from = 0;
	for (;; scope = ts_node_parent(scope)) {
		/* past a class body, which the methods in it do not see */
		while (!ts_node_is_null(scope) && !is(scope, "module") && !is(scope, "function_definition"))
			scope = ts_node_parent(scope);
		if (ts_node_is_null(scope))
			return false;
		mpsfix_bindings_count(scope, src, &id, 1, &b);
		if (b.count || is(scope, "module"))
			break;
	}
	/* bound once, by `id = value` before it, or by consecutive assignments,
	   the last of them before it (no loop, branch or parameter gives it
	   another value) */
	if (b.count == 0 || b.dynamic)
		return false;
	if (b.count == 1 && !ts_node_is_null(b.value)) {
		v = b.value;
		*from = ts_node_end_byte(v);
	} else if (!last_of_consecutive(src, scope, id, b.count, &v, from)) {
		return false;
	}
	*out = mpsfix_unparenthesized(v);
	return true;
}

bool mpsfix_instance_value(const char *src, TSNode value, TSNode *out, mpsfix_instance_memo *memo)
{
	TSNode id = mpsfix_unparenthesized(value), scope, v = {0};
	struct mpsfix_instance_known *k;
	uint32_t from;
	bool ok;

	if (!is(id, "identifier"))
		return false;
	/* the scope that binds the name: its function, or one around it (a
	   closure's), or the module; not a class body, a lambda or a
	   comprehension, which may bind it themselves */
	for (scope = ts_node_parent(id); !ts_node_is_null(scope) && !is(scope, "module") &&
					 !is(scope, "function_definition");
	     scope = ts_node_parent(scope))
		if (scope_node(scope) || is(scope, "class_definition"))
			return false;
	if (ts_node_is_null(scope))
		return false;
	/* a use after the value is bound sees what any other such use does */
	if ((k = recall(memo, src, id, ts_node_start_byte(scope))) && ts_node_start_byte(id) >= k->from) {
		*out = k->value;
		return k->ok;
	}
	ok = resolve(src, id, scope, &v, &from);
	if (ok && ts_node_start_byte(id) < from)
		return false; /* used before it is bound */
	if (memo && !k) {
		uint32_t start = ts_node_start_byte(id);

		mpsfix_grow((void **)&memo->items, &memo->cap, memo->len + 1, sizeof(*memo->items));
		memo->items[memo->len++] = (struct mpsfix_instance_known){
			mpsfix_xstrndup(src + start, ts_node_end_byte(id) - start), ts_node_start_byte(scope), ok, v,
			ok ? from : 0};
	}
	*out = v;
	return ok;
}

bool mpsfix_instance_class(const char *src, mpsfix_names *names, TSNode value, mpsfix_buf *cls, TSNode *call,
			   mpsfix_instance_memo *memo)
{
	TSNode v;
	const char *last;

	if (!mpsfix_instance_value(src, value, &v, memo) || !is(v, "call") ||
	    !mpsfix_names_name_of(names, ts_node_child_by_field_name(v, "function", 8), src, cls))
		return false;
	last = last_part(cls);
	if (*last < 'A' || *last > 'Z')
		return false; /* a function's result */
	*call = v;
	return true;
}
