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
 * module binds that name there alone (not `Own = torch.Tensor` after it)
 * and no decorator may change the class (`@tensorclass` gives it methods of
 * its own); a null node otherwise.
 */
static TSNode module_class(const char *src, TSNode root, const char *name)
{
	mpsfix_kids k;
	TSNode d, found = {0};
	mpsfix_binding b;

	mpsfix_kids_start(&k, root);
	while (ts_node_is_null(found) && mpsfix_kids_next(&k, &d))
		if (is(d, "class_definition") && mpsfix_node_text_is(ts_node_child_by_field_name(d, "name", 4), src, name))
			found = d;
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
 * What class body `body` says of `method`: 1 it defines it (`def method`),
 * -1 something else may stand for it there (`method = ...`, a
 * `__getattr__` or `__getattribute__` that can hand out anything), 0
 * neither.
 */
static int defines(const char *src, TSNode body, const char *method)
{
	mpsfix_kids k;
	TSNode c, d, left;
	int says = 0;

	mpsfix_kids_start(&k, body);
	while (says >= 0 && mpsfix_kids_next(&k, &c)) {
		d = is(c, "decorated_definition") ? ts_node_child_by_field_name(c, "definition", 10) : c;
		if (is(d, "function_definition")) {
			TSNode fn = ts_node_child_by_field_name(d, "name", 4);

			if (mpsfix_node_text_is(fn, src, "__getattr__") || mpsfix_node_text_is(fn, src, "__getattribute__"))
				says = -1;
			else if (mpsfix_node_text_is(fn, src, method))
				says = 1;
		} else if (is(c, "expression_statement") && is(d = mpsfix_first_named(c), "assignment")) {
			left = ts_node_child_by_field_name(d, "left", 4);
			if (!is(left, "identifier") || mpsfix_node_text_is(left, src, method))
				says = -1;
		}
	}
	mpsfix_kids_end(&k);
	return says;
}

/*
 * Is class `name` of module `root` one from nothing of torch's, with
 * `method` its own: its bases are none, `object`, abc's ABC, or classes of
 * the module that are such classes too (eight deep at most; `metaclass=`
 * aside), and it or one of those bases defines `method` (`*found`), nothing
 * standing in for it.  A base from elsewhere (torch.Tensor, a TensorDict,
 * an alias) may be a tensor or pin tensors itself.
 */
static bool plain_class(const char *src, mpsfix_names *names, TSNode root, const char *name, const char *method,
			int depth, bool *found)
{
	mpsfix_buf base = MPSFIX_BUF_INIT;
	TSNode d = module_class(src, root, name), args, c;
	mpsfix_kids k;
	bool yes = !ts_node_is_null(d) && depth < 8;
	int says = yes ? defines(src, ts_node_child_by_field_name(d, "body", 4), method) : 0;

	yes = yes && says >= 0;
	*found |= says > 0;
	args = yes ? ts_node_child_by_field_name(d, "superclasses", 12) : (TSNode){0};
	mpsfix_kids_start(&k, args);
	while (yes && mpsfix_kids_next(&k, &c)) {
		if (is(c, "keyword_argument")) {
			yes = mpsfix_node_text_is(ts_node_child_by_field_name(c, "name", 4), src, "metaclass");
			continue;
		}
		yes = mpsfix_names_name_of(names, c, src, &base);
		if (yes && strcmp(base.data, "object") && strcmp(base.data, "abc.ABC"))
			yes = !strchr(base.data, '.') && plain_class(src, names, root, base.data, method, depth + 1, found);
	}
	mpsfix_kids_end(&k);
	mpsfix_buf_release(&base);
	return yes;
}

bool mpsfix_instance_module_class(const char *src, mpsfix_names *names, TSNode root, const char *name,
				  const char *method, mpsfix_instance_memo *memo)
{
	char *key = mpsfix_xasprintf("%s.%s", name, method); /* no name holds a dot */
	bool found = false, yes;
	size_t i;

	for (i = 0; memo && i < memo->len; i++)
		if (memo->items[i].scope == root.id && !strcmp(memo->items[i].name, key))
			break;
	if (memo && i < memo->len) {
		free(key);
		return memo->items[i].ok;
	}
	yes = plain_class(src, names, root, name, method, 0, &found) && found;
	if (memo) {
		mpsfix_grow((void **)&memo->items, &memo->cap, memo->len + 1, sizeof(*memo->items));
		memo->items[memo->len++] = (struct mpsfix_instance_known){.name = key, .scope = root.id, .ok = yes};
	} else {
		free(key);
	}
	return yes;
}

/* The assignments `NAME = value` of a scope, outside the functions, classes and lambdas in it. */
#define PLAIN_MAX 4
typedef struct {
	const char *src;
	TSNode name;
	TSNode stmt[PLAIN_MAX]; /* their statements, in order */
	TSNode value;           /* the last one's right side */
	uint32_t n;
} plain_assignments;

static mpsfix_walk_action find_plain(TSNode n, void *payload)
{
	plain_assignments *p = payload;
	const char *type = ts_node_type(n);
	TSNode left;

	if (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") || !strcmp(type, "lambda"))
		return MPSFIX_WALK_SKIP; /* another scope */
	if (strcmp(type, "assignment") || !is(left = ts_node_child_by_field_name(n, "left", 4), "identifier") ||
	    !mpsfix_node_same_text(left, p->name, p->src))
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
	for (size_t i = 0; i < m->nscopes; i++)
		mpsfix_bindings_index_free(m->scopes[i].index);
	free(m->items);
	free(m->scopes);
	memset(m, 0, sizeof(*m));
}

/* The bindings of `id`'s name in `scope`, through the index `memo` keeps of it (or a walk). */
static void bindings_of(mpsfix_instance_memo *memo, TSNode scope, const char *src, TSNode id, mpsfix_binding *out)
{
	size_t i;

	if (!memo) {
		mpsfix_bindings_count(scope, src, &id, 1, out);
		return;
	}
	for (i = 0; i < memo->nscopes && memo->scopes[i].scope != scope.id; i++)
		;
	if (i == memo->nscopes) {
		mpsfix_grow((void **)&memo->scopes, &memo->capscopes, memo->nscopes + 1, sizeof(*memo->scopes));
		memo->scopes[memo->nscopes++] = (struct mpsfix_instance_scope){scope.id,
									   mpsfix_bindings_index_new(scope, src)};
	}
	mpsfix_bindings_index_get(memo->scopes[i].index, id, out);
}

uint32_t mpsfix_instance_count(mpsfix_instance_memo *memo, TSNode scope, const char *src, TSNode id,
			       bool *dynamic)
{
	mpsfix_binding b;

	bindings_of(memo, scope, src, id, &b);
	*dynamic = b.dynamic;
	return b.count;
}

/* What `memo` knows of name `id` in scope node `at` (its id); NULL if nothing. */
static struct mpsfix_instance_known *recall(mpsfix_instance_memo *memo, const char *src, TSNode id, const void *at)
{
	uint32_t start = ts_node_start_byte(id), len = ts_node_end_byte(id) - start;

	for (size_t i = 0; memo && i < memo->len; i++)
		if (memo->items[i].scope == at && strlen(memo->items[i].name) == len &&
		    !memcmp(memo->items[i].name, src + start, len))
			return &memo->items[i];
	return NULL;
}

/* Keep in `memo` (may be NULL) what was found of name `id` in scope node `at`. */
static void remember(mpsfix_instance_memo *memo, const char *src, TSNode id, const void *at,
		     struct mpsfix_instance_known known)
{
	if (!memo)
		return;
	known.name = mpsfix_node_text(id, src);
	known.scope = at;
	mpsfix_grow((void **)&memo->items, &memo->cap, memo->len + 1, sizeof(*memo->items));
	memo->items[memo->len++] = known;
}

/*
 * From scope `scope` (the function or module around `id`) outward: the
 * value of `id` there, and the byte from which the uses in that scope see
 * it into `from`.  What each scope says is kept in `memo`: a name many
 * functions use is looked for in the module once.
 */
static bool resolve(const char *src, TSNode id, TSNode scope, TSNode *out, uint32_t *from,
		    mpsfix_instance_memo *memo)
{
	struct mpsfix_instance_known *k;
	mpsfix_binding b;
	TSNode v = {0};
	bool ok = false;

	*from = 0;
	for (;; scope = ts_node_parent(scope)) {
		/* past a class body, which the methods in it do not see */
		while (!ts_node_is_null(scope) && !is(scope, "module") && !is(scope, "function_definition"))
			scope = ts_node_parent(scope);
		if (ts_node_is_null(scope))
			return false;
		if ((k = recall(memo, src, id, scope.id)) && k->outward)
			continue;
		if (k) {
			*out = k->value;
			*from = k->from;
			return k->ok;
		}
		bindings_of(memo, scope, src, id, &b);
		if (b.count || is(scope, "module"))
			break;
		remember(memo, src, id, scope.id, (struct mpsfix_instance_known){.outward = true});
	}
	/* bound once, by `id = value`, or by consecutive assignments, the uses
	   after the last of them seeing it (no loop, branch or parameter gives
	   it another value) */
	if (b.count == 1 && !b.dynamic && !ts_node_is_null(b.value)) {
		v = mpsfix_unparenthesized(b.value);
		*from = ts_node_end_byte(b.value);
		ok = true;
	} else if (b.count && !b.dynamic && last_of_consecutive(src, scope, id, b.count, &v, from)) {
		v = mpsfix_unparenthesized(v);
		ok = true;
	}
	remember(memo, src, id, scope.id, (struct mpsfix_instance_known){.ok = ok, .value = v, .from = ok ? *from : 0});
	*out = v;
	return ok;
}

bool mpsfix_instance_value(const char *src, TSNode value, TSNode *out, mpsfix_instance_memo *memo)
{
	TSNode id = mpsfix_unparenthesized(value), scope, v = {0};
	uint32_t from;

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
	if (ts_node_is_null(scope) || !resolve(src, id, scope, &v, &from, memo) || ts_node_start_byte(id) < from)
		return false; /* nothing bound, or used before it is bound */
	*out = v;
	return true;
}

bool mpsfix_instance_global(const char *src, TSNode id, mpsfix_instance_memo *memo)
{
	struct mpsfix_instance_known *k;
	mpsfix_binding b;

	for (TSNode s = ts_node_parent(id); !ts_node_is_null(s); s = ts_node_parent(s)) {
		if (!is(s, "function_definition"))
			continue;
		if ((k = recall(memo, src, id, s.id)) && k->outward)
			continue;
		bindings_of(memo, s, src, id, &b);
		if (b.count || b.dynamic)
			return false;
		if (!k)
			remember(memo, src, id, s.id, (struct mpsfix_instance_known){.outward = true});
	}
	return true;
}

bool mpsfix_instance_class(const char *src, mpsfix_names *names, TSNode value, mpsfix_buf *cls, TSNode *call,
			   mpsfix_instance_memo *memo)
{
	TSNode v = mpsfix_unparenthesized(value), head;
	const char *last;

	/* `Batch().pin_memory()`: the call itself; else the name's value */
	if ((!is(v, "call") && !mpsfix_instance_value(src, value, &v, memo)) || !is(v, "call") ||
	    !mpsfix_names_name_of(names, ts_node_child_by_field_name(v, "function", 8), src, cls))
		return false;
	/* `models.Own` after `from .. import models`: not a module path to look for */
	if (strchr(cls->data, '.') && names) {
		mpsfix_buf q = MPSFIX_BUF_INIT;
		bool resolved = mpsfix_names_qualify(names, ts_node_child_by_field_name(v, "function", 8), &q) ==
				MPSFIX_NAME_RESOLVED;

		mpsfix_buf_release(&q);
		if (!resolved)
			return false;
	}
	/* the class's name (or its module's) is the module's, not a parameter or a local */
	for (head = ts_node_child_by_field_name(v, "function", 8); is(head, "attribute");)
		head = ts_node_child_by_field_name(head, "object", 6);
	if (!is(head, "identifier") || !mpsfix_instance_global(src, head, memo))
		return false;
	last = last_part(cls);
	if (*last < 'A' || *last > 'Z')
		return false; /* a function's result */
	*call = v;
	return true;
}

bool mpsfix_instance_method(const char *src, TSNode match, TSNode value, mpsfix_buf *method)
{
	TSNode f = ts_node_child_by_field_name(match, "function", 8);

	if (!is(match, "call") || !is(f, "attribute") ||
	    !ts_node_eq(mpsfix_unparenthesized(ts_node_child_by_field_name(f, "object", 6)),
			mpsfix_unparenthesized(value)))
		return false;
	f = ts_node_child_by_field_name(f, "attribute", 9);
	mpsfix_buf_add(method, src + ts_node_start_byte(f), ts_node_end_byte(f) - ts_node_start_byte(f));
	return true;
}
