/*
 * bindings.c: where a Python scope binds a name (see bindings.h).  The names
 * asked for are hashed once and sorted; the walk hashes each identifier it
 * meets and looks it up, so many names cost one walk.
 */
#include "bindings.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"

typedef struct {
	uint64_t hash;
	size_t index; /* into ids and out */
} wanted;

typedef struct {
	const char *src;
	const TSNode *ids;
	wanted *want;        /* sorted by hash */
	size_t n;
	mpsfix_binding *out;
	bool nested;         /* inside a function, class or lambda of the scope */
	TSNode scope;
} walk;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static uint64_t text_hash(const char *p, uint32_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static uint64_t node_hash(TSNode n, const char *src)
{
	return text_hash(src + ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
}

static int by_hash(const void *a, const void *b)
{
	uint64_t x = ((const wanted *)a)->hash, y = ((const wanted *)b)->hash;

	return x < y ? -1 : x > y;
}

/* Count a binding of identifier `id` for each name asked for that it spells. */
static void bind(walk *w, TSNode id, TSNode value)
{
	wanted key = {node_hash(id, w->src), 0}, *hit;

	hit = bsearch(&key, w->want, w->n, sizeof(*w->want), by_hash);
	if (!hit)
		return;
	while (hit > w->want && hit[-1].hash == key.hash)
		hit--;
	for (; hit < w->want + w->n && hit->hash == key.hash; hit++) {
		mpsfix_binding *b = &w->out[hit->index];

		if (!mpsfix_node_same_text(id, w->ids[hit->index], w->src))
			continue;
		if (!b->count++ && !ts_node_is_null(value)) {
			b->value = value;
			b->at = ts_node_start_byte(id);
		}
	}
}

/* Is identifier `n`, whose parent is `p`, a place where the name is bound? */
static bool binds(TSNode n, TSNode p)
{
	static const char *const targets[] = {
		"pattern_list", "tuple_pattern", "list_pattern", "as_pattern_target", "list_splat_pattern",
		"dictionary_splat_pattern", "parameters", "lambda_parameters", "global_statement",
		"nonlocal_statement", "aliased_import",
	};
	const char *t = ts_node_type(p);
	TSNode f;

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(targets); i++)
		if (!strcmp(t, targets[i]))
			return strcmp(t, "aliased_import") || ts_node_eq(n, ts_node_child_by_field_name(p, "alias", 5));
	if (!strcmp(t, "assignment") || !strcmp(t, "augmented_assignment") || !strcmp(t, "for_statement") ||
	    !strcmp(t, "for_in_clause"))
		return ts_node_eq(n, ts_node_child_by_field_name(p, "left", 4));
	if (!strcmp(t, "named_expression") || !strcmp(t, "default_parameter") ||
	    !strcmp(t, "typed_default_parameter") || !strcmp(t, "function_definition") ||
	    !strcmp(t, "class_definition"))
		return ts_node_eq(n, ts_node_child_by_field_name(p, "name", 4));
	if (!strcmp(t, "typed_parameter"))
		return !ts_node_eq(n, ts_node_child_by_field_name(p, "type", 4));
	if (!strcmp(t, "as_pattern")) /* except E as e, with x as y (older grammars) */
		return ts_node_eq(n, ts_node_child_by_field_name(p, "alias", 5));
	if (!strcmp(t, "dotted_name")) {
		/* import os.path binds os; from m import x binds x; the module of a from-import binds nothing;
		   `case x:` captures x */
		TSNode g = ts_node_parent(p);

		if (is(g, "case_pattern") && ts_node_named_child_count(p) == 1)
			return true;

		f = ts_node_child_by_field_name(g, "module_name", 11);
		return (is(g, "import_statement") || (is(g, "import_from_statement") && !ts_node_eq(p, f))) &&
		       ts_node_eq(n, ts_node_named_child(p, 0));
	}
	return false;
}

static mpsfix_walk_action visit(TSNode n, void *payload)
{
	walk *w = payload;
	const char *type = ts_node_type(n);
	TSNode fn, p;

	/* vars(obj) is obj.__dict__: only vars() is the scope's namespace */
	if (!w->nested && !strcmp(type, "call") && is(fn = ts_node_child_by_field_name(n, "function", 8), "identifier") &&
	    (mpsfix_node_text_is(fn, w->src, "exec") || mpsfix_node_text_is(fn, w->src, "globals") ||
	     mpsfix_node_text_is(fn, w->src, "locals") ||
	     (mpsfix_node_text_is(fn, w->src, "vars") &&
	      !mpsfix_named_count(ts_node_child_by_field_name(n, "arguments", 9))))) {
		for (size_t i = 0; i < w->n; i++)
			w->out[i].dynamic = true; /* exec(open("configurator.py").read()) */
		return MPSFIX_WALK_DESCEND;
	}
	if (!ts_node_eq(n, w->scope) && !w->nested &&
	    (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") || !strcmp(type, "lambda"))) {
		walk inner = *w;
		TSNode name = ts_node_child_by_field_name(n, "name", 4);

		if (!ts_node_is_null(name))
			bind(w, name, (TSNode){0}); /* def f / class C binds f / C here */
		inner.nested = true;
		inner.scope = n;
		mpsfix_walk(n, visit, &inner);
		return MPSFIX_WALK_SKIP;
	}
	if (strcmp(type, "identifier"))
		return MPSFIX_WALK_DESCEND;
	p = ts_node_parent(n);
	if (w->nested) {
		/* a function inside binds the scope's name only through global or nonlocal */
		if (is(p, "global_statement") || is(p, "nonlocal_statement"))
			bind(w, n, (TSNode){0});
		return MPSFIX_WALK_DESCEND;
	}
	if ((is(p, "function_definition") || is(p, "class_definition")) && ts_node_eq(p, w->scope))
		return MPSFIX_WALK_DESCEND; /* the scope's own name is bound around it */
	if (binds(n, p))
		bind(w, n, is(p, "assignment") ? ts_node_child_by_field_name(p, "right", 5) : (TSNode){0});
	return MPSFIX_WALK_DESCEND;
}

void mpsfix_bindings_count(TSNode scope, const char *src, const TSNode *ids, size_t n, mpsfix_binding *out)
{
	walk w = {src, ids, NULL, n, out, false, scope};

	memset(out, 0, n * sizeof(*out));
	if (!n || ts_node_is_null(scope))
		return;
	w.want = mpsfix_xmalloc(n * sizeof(*w.want));
	for (size_t i = 0; i < n; i++)
		w.want[i] = (wanted){node_hash(ids[i], src), i};
	qsort(w.want, n, sizeof(*w.want), by_hash);
	mpsfix_walk(scope, visit, &w);
	free(w.want);
}
