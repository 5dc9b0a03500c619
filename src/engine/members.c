/*
 * members.c: the method a `self.m()` call reaches (see members.h).
 */
#include "members.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

struct member {
	uint64_t hash;
	TSNode name;
	bool plain;        /* the one undecorated def of its name in the body */
	mpsfix_member m;
};

struct class_table {
	const void *id;    /* the class_definition's */
	struct member *items;
	size_t len;
	bool open;         /* its body may bind names the table does not hold (an if, a loop, a try) */
};

struct mpsfix_members {
	struct class_table *classes;
	size_t nclasses, cap;
	size_t last;              /* the class asked about last */
	uint64_t *rebound;        /* the attribute names the file binds or spells as strings, and */
	size_t nrebound, caprebound; /* the names it binds to another name (Base = A), by hash, sorted */
	bool rebound_read;
	bool any_rebound;         /* it may bind any attribute: __dict__, setattr(x, name, v) */
};

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static int by_hash(const void *a, const void *b)
{
	uint64_t x = ((const struct member *)a)->hash, y = ((const struct member *)b)->hash;

	return x < y ? -1 : x > y;
}

static int u64_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void mpsfix_members_free(mpsfix_members *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nclasses; i++)
		free(m->classes[i].items);
	free(m->classes);
	free(m->rebound);
	free(m);
}

static void add_member(struct class_table *t, size_t *cap, TSNode cls, TSNode name, TSNode def, bool plain,
		       const char *src)
{
	struct member e = {.hash = mpsfix_node_hash(name, src), .name = name, .plain = plain};

	e.m.cls = cls;
	e.m.def = plain ? def : (TSNode){0};
	e.m.cuda = -1;
	mpsfix_grow((void **)&t->items, cap, t->len + 1, sizeof(*t->items));
	t->items[t->len++] = e;
}

typedef struct {
	struct class_table *t;
	size_t *cap;
	TSNode cls;
	const char *src;
} target_reader;

/* The names an assignment's targets bind in the class (m, (m, other) = ...; not a.m). */
static mpsfix_walk_action read_target(TSNode n, void *payload)
{
	target_reader *tr = payload;

	if (is(n, "attribute") || is(n, "subscript"))
		return MPSFIX_WALK_SKIP;
	if (is(n, "identifier"))
		add_member(tr->t, tr->cap, tr->cls, n, (TSNode){0}, false, tr->src);
	return MPSFIX_WALK_DESCEND;
}

/*
 * The names class `cls`'s body binds: its defs (plain or not), classes and
 * assignments; any other statement but a docstring or a pass (an if, a
 * loop, a try, a with) leaves the table open.
 */
static void read_class(struct class_table *t, TSNode cls, const char *src)
{
	TSNode body = ts_node_child_by_field_name(cls, "body", 4), c, d, e;
	mpsfix_kids k;
	size_t cap = 0;
	target_reader tr = {t, &cap, cls, src};

	mpsfix_kids_start(&k, body);
	while (mpsfix_kids_next(&k, &c)) {
		d = is(c, "decorated_definition") ? ts_node_child_by_field_name(c, "definition", 10) : c;
		e = mpsfix_first_named(c);
		if (is(d, "function_definition") || is(d, "class_definition")) {
			add_member(t, &cap, cls, ts_node_child_by_field_name(d, "name", 4), d,
				   is(c, "function_definition"), src);
		} else if (is(c, "expression_statement") && (is(e, "assignment") || is(e, "augmented_assignment"))) {
			/* m = staticmethod(f), a = m = f, m, other = f, None */
			for (; is(e, "assignment") || is(e, "augmented_assignment"); e = ts_node_child_by_field_name(e, "right", 5))
				mpsfix_walk(ts_node_child_by_field_name(e, "left", 4), read_target, &tr);
		} else if (!is(c, "pass_statement") && !(is(c, "expression_statement") && is(e, "string"))) {
			t->open = true; /* if ...: def m(self): ... */
		}
	}
	mpsfix_kids_end(&k);
	if (t->len > 1)
		qsort(t->items, t->len, sizeof(*t->items), by_hash);
	/* a name bound twice (a def under two names' worth of text: redefined) is no one method */
	for (size_t i = 0; i < t->len; i++)
		for (size_t j = i + 1; j < t->len && t->items[j].hash == t->items[i].hash; j++)
			if (mpsfix_node_same_text(t->items[i].name, t->items[j].name, src))
				t->items[i].plain = t->items[j].plain = false;
}

static struct class_table *table_of(mpsfix_members *m, TSNode cls, const char *src)
{
	if (m->nclasses && m->classes[m->last].id == cls.id)
		return &m->classes[m->last];
	for (size_t i = 0; i < m->nclasses; i++)
		if (m->classes[i].id == cls.id)
			return &m->classes[m->last = i];
	mpsfix_grow((void **)&m->classes, &m->cap, m->nclasses + 1, sizeof(*m->classes));
	m->classes[m->nclasses] = (struct class_table){cls.id, NULL, 0, false};
	read_class(&m->classes[m->nclasses], cls, src);
	m->last = m->nclasses;
	return &m->classes[m->nclasses++];
}

typedef struct {
	mpsfix_members *m;
	const char *src;
} rebound_reader;

static void add_rebound(mpsfix_members *m, uint64_t hash)
{
	mpsfix_grow((void **)&m->rebound, &m->caprebound, m->nrebound + 1, sizeof(*m->rebound));
	m->rebound[m->nrebound++] = hash;
}

/* The attribute names the targets of an assignment or a del bind (self.m, a, self.m = ...). */
static void add_targets(rebound_reader *r, TSNode t)
{
	if (is(t, "attribute")) {
		add_rebound(r->m, mpsfix_node_hash(ts_node_child_by_field_name(t, "attribute", 9), r->src));
		return;
	}
	if (is(t, "pattern_list") || is(t, "tuple_pattern") || is(t, "list_pattern") || is(t, "tuple") ||
	    is(t, "list") || is(t, "expression_list") || is(t, "parenthesized_expression"))
		for (uint32_t i = 0; i < mpsfix_named_count(t); i++)
			add_targets(r, ts_node_named_child(t, i));
}

static mpsfix_walk_action read_rebound(TSNode n, void *payload)
{
	rebound_reader *r = payload;
	TSNode right, fn, args;

	if (is(n, "assignment") || is(n, "augmented_assignment")) {
		add_targets(r, ts_node_child_by_field_name(n, "left", 4));
		if (is(right = ts_node_child_by_field_name(n, "right", 5), "identifier"))
			add_rebound(r->m, mpsfix_node_hash(right, r->src)); /* Base = A: a subclass of A unseen */
	} else if (is(n, "for_statement") || is(n, "for_in_clause")) {
		add_targets(r, ts_node_child_by_field_name(n, "left", 4)); /* for self.m in fns */
	} else if (is(n, "as_pattern_target") || is(n, "delete_statement")) {
		add_targets(r, mpsfix_first_named(n)); /* with ctx as self.m, del self.m */
	} else if (is(n, "string_content")) {
		add_rebound(r->m, mpsfix_node_hash(n, r->src)); /* setattr(self, "m", f), getattr(...) */
	} else if (is(n, "identifier") && (mpsfix_node_text_is(n, r->src, "__dict__") ||
					   mpsfix_node_text_is(n, r->src, "vars"))) {
		r->m->any_rebound = true; /* self.__dict__.update(m=f) */
	} else if (is(n, "call") && mpsfix_node_text_is(fn = ts_node_child_by_field_name(n, "function", 8), r->src,
							"setattr") &&
		   !is(ts_node_named_child(args = ts_node_child_by_field_name(n, "arguments", 9), 1), "string")) {
		r->m->any_rebound = true; /* setattr(self, name, f) */
	}
	return MPSFIX_WALK_DESCEND;
}

static bool rebound(mpsfix_members *m, TSNode root, TSNode name, const char *src)
{
	uint64_t h = mpsfix_node_hash(name, src);
	size_t i;

	if (!m->rebound_read) {
		rebound_reader r = {m, src};

		m->rebound_read = true;
		mpsfix_walk(root, read_rebound, &r);
		if (m->nrebound > 1)
			qsort(m->rebound, m->nrebound, sizeof(*m->rebound), u64_order);
	}
	if (m->any_rebound)
		return true;
	i = mpsfix_lower_bound64(m->rebound, m->nrebound, sizeof(*m->rebound), 0, h);
	return i < m->nrebound && m->rebound[i] == h;
}

bool mpsfix_members_instance_free(const char *src, TSNode d)
{
	static const char *const hooks[] = {"__new__", "__init_subclass__", "__class_getitem__"};
	mpsfix_kids k;
	TSNode c, f = is(d, "decorated_definition") ? ts_node_child_by_field_name(d, "definition", 10) : d;
	bool yes = !is(f, "function_definition");

	for (size_t i = 0; !yes && i < MPSFIX_ARRAY_SIZE(hooks); i++)
		yes = mpsfix_node_text_is(ts_node_child_by_field_name(f, "name", 4), src, hooks[i]);
	mpsfix_kids_start(&k, d);
	while (!yes && is(d, "decorated_definition") && mpsfix_kids_next(&k, &c))
		yes = is(c, "decorator") && (mpsfix_node_text_is(mpsfix_first_named(c), src, "staticmethod") ||
					     mpsfix_node_text_is(mpsfix_first_named(c), src, "classmethod"));
	mpsfix_kids_end(&k);
	return yes;
}

mpsfix_member *mpsfix_members_self_call(mpsfix_members **cache, const char *src, TSNode scope, TSNode fn)
{
	TSNode obj = ts_node_child_by_field_name(fn, "object", 6), attr = ts_node_child_by_field_name(fn, "attribute", 9);
	TSNode first, outer, body, cls;
	struct class_table *t;
	uint64_t h;

	if (!is(fn, "attribute") || !is(obj, "identifier") || !is(attr, "identifier") ||
	    !is(scope, "function_definition"))
		return NULL;
	first = mpsfix_first_named(ts_node_child_by_field_name(scope, "parameters", 10));
	if (!is(first, "identifier") || !mpsfix_node_same_text(first, obj, src))
		return NULL; /* not the method's `self` */
	outer = is(ts_node_parent(scope), "decorated_definition") ? ts_node_parent(scope) : scope;
	body = ts_node_parent(outer);
	cls = ts_node_parent(body);
	if (!is(body, "block") || !is(cls, "class_definition") || mpsfix_members_instance_free(src, outer))
		return NULL;
	if (!*cache)
		*cache = mpsfix_xcalloc(1, sizeof(**cache));
	t = table_of(*cache, cls, src);
	if (t->open || rebound(*cache, ts_tree_root_node(scope.tree), ts_node_child_by_field_name(cls, "name", 4), src))
		return NULL; /* its body may bind m unseen; Base = A, class Mac(Base) may override it */
	h = mpsfix_node_hash(attr, src);
	for (size_t i = mpsfix_lower_bound64(t->items, t->len, sizeof(*t->items), offsetof(struct member, hash), h);
	     i < t->len && t->items[i].hash == h; i++)
		if (mpsfix_node_same_text(t->items[i].name, attr, src))
			return t->items[i].plain && !rebound(*cache, ts_tree_root_node(scope.tree), attr, src)
				       ? &t->items[i].m
				       : NULL;
	return NULL;
}
