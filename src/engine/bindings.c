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

/* A binding site, for an index of every name of a scope. */
typedef struct {
	uint64_t hash;
	size_t seq;          /* source order */
	TSNode id, value;
} site;

struct mpsfix_bindings_index {
	site *sites;         /* sorted by hash, then source order */
	size_t len, cap;
	bool dynamic;
	uint32_t star;       /* where the scope's last `import *` ends (0: none) */
	const char *src;
};

typedef struct {
	const char *src;
	const TSNode *ids;
	wanted *want;        /* sorted by hash */
	size_t n;
	mpsfix_binding *out;
	bool nested;         /* inside a function, class or lambda of the scope */
	uint32_t star;       /* where the scope's last `import *` ends (0: none) */
	TSNode scope;
	mpsfix_bindings_index *index; /* every name's sites, when building an index */
} walk;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static int by_hash(const void *a, const void *b)
{
	uint64_t x = ((const wanted *)a)->hash, y = ((const wanted *)b)->hash;

	return x < y ? -1 : x > y;
}

/* Count a binding of identifier `id` for each name asked for that it spells. */
static void bind(walk *w, TSNode id, TSNode value)
{
	wanted key = {mpsfix_node_hash(id, w->src), 0}, *hit;

	if (w->index) {
		mpsfix_bindings_index *ix = w->index;

		mpsfix_grow((void **)&ix->sites, &ix->cap, ix->len + 1, sizeof(*ix->sites));
		ix->sites[ix->len] = (site){key.hash, ix->len, id, value};
		ix->len++;
		return;
	}
	hit = bsearch(&key, w->want, w->n, sizeof(*w->want), by_hash);
	if (!hit)
		return;
	while (hit > w->want && hit[-1].hash == key.hash)
		hit--;
	for (; hit < w->want + w->n && hit->hash == key.hash; hit++) {
		mpsfix_binding *b = &w->out[hit->index];

		if (!mpsfix_node_same_text(id, w->ids[hit->index], w->src))
			continue;
		if (!b->count)
			b->first = ts_node_start_byte(id);
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
		/* import os.path binds os; from m import x binds x; the module of a from-import binds nothing */
		TSNode g = ts_node_parent(p);

		f = ts_node_child_by_field_name(g, "module_name", 11);
		return (is(g, "import_statement") || (is(g, "import_from_statement") && !ts_node_eq(p, f))) &&
		       ts_node_eq(n, ts_node_named_child(p, 0));
	}
	return false;
}

/*
 * Is `n` a call that may bind any name of the scope it runs in: exec(),
 * eval(), globals(), locals(), vars() (vars(obj) is obj.__dict__: only
 * vars() is the scope's namespace)?
 */
static bool namespace_call(TSNode n, const char *src)
{
	TSNode fn = ts_node_child_by_field_name(n, "function", 8);

	return is(n, "call") && is(fn, "identifier") &&
	       (mpsfix_node_text_is(fn, src, "exec") || mpsfix_node_text_is(fn, src, "eval") ||
		mpsfix_node_text_is(fn, src, "globals") || mpsfix_node_text_is(fn, src, "locals") ||
		(mpsfix_node_text_is(fn, src, "vars") &&
		 !mpsfix_named_count(ts_node_child_by_field_name(n, "arguments", 9))));
}

/* Does node `outer` hold node `n` (false for a null `outer`)? */
static bool within(TSNode n, TSNode outer)
{
	return !ts_node_is_null(outer) && ts_node_start_byte(n) >= ts_node_start_byte(outer) &&
	       ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

/*
 * Is the name a walk is at bound where binds() cannot tell from its parent
 * alone: in a tuple or list after `with ... as` (`as (a, b)`, `as [a, b]`,
 * `as (a)`), a type parameter (`def f[T]()`, `class C[T]`), the name of a
 * `type` statement (`type T = int`)?
 */
static bool binds_up(const mpsfix_ancestors *up)
{
	size_t k = 1;
	TSNode a = mpsfix_up(up, 1), g = mpsfix_up(up, 2);

	if (is(a, "type"))
		return is(g, "type_parameter") || (is(g, "type_alias_statement") && mpsfix_field_is(g, "left", a));
	while (is(a, "tuple") || is(a, "list") || is(a, "parenthesized_expression") || is(a, "list_splat"))
		a = mpsfix_up(up, ++k);
	return k > 1 && is(a, "as_pattern_target");
}

static mpsfix_walk_action bind_all(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	(void)up;
	if (!strcmp(ts_node_type(n), "identifier"))
		bind(payload, n, (TSNode){0});
	return MPSFIX_WALK_DESCEND;
}

static mpsfix_walk_action visit(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	walk *w = payload;
	const char *type = ts_node_type(n);
	TSNode p = mpsfix_up(up, 1);

	if (!w->nested && namespace_call(n, w->src)) {
		for (size_t i = 0; i < w->n; i++)
			w->out[i].dynamic = true; /* exec(open("configurator.py").read()) */
		if (w->index)
			w->index->dynamic = true;
		return MPSFIX_WALK_DESCEND;
	}
	if (!w->nested && !strcmp(type, "wildcard_import")) {
		w->star = ts_node_end_byte(n); /* from cfg import *: the last one so far */
		if (w->index)
			w->index->star = w->star;
		return MPSFIX_WALK_SKIP;
	}
	if (!ts_node_eq(n, w->scope) && !w->nested &&
	    (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") || !strcmp(type, "lambda"))) {
		walk inner = *w;
		TSNode name = ts_node_child_by_field_name(n, "name", 4);

		if (!ts_node_is_null(name))
			bind(w, name, (TSNode){0}); /* def f / class C binds f / C here */
		inner.nested = true;
		inner.scope = n;
		mpsfix_walk_parents(n, visit, &inner);
		return MPSFIX_WALK_SKIP;
	}
	if (!w->nested && !strcmp(type, "case_pattern")) {
		/* `case x:`, `case P() as x:`, `case P(k=x):`, `case [*x]:`, `case {**x}:`
		   capture: every name of a pattern counts, a class or a value too */
		mpsfix_walk_parents(n, bind_all, w);
		return MPSFIX_WALK_SKIP;
	}
	if (strcmp(type, "identifier"))
		return MPSFIX_WALK_DESCEND;
	if (w->nested) {
		/* a function inside binds the scope's name only through global or
		   nonlocal, and by a walrus in its header, which runs in the scope
		   (`def g(x=(f := 1))`, `class C((f := B))`) */
		if (is(p, "global_statement") || is(p, "nonlocal_statement") ||
		    (is(p, "named_expression") && mpsfix_field_is(p, "name", n) &&
		     !within(n, ts_node_child_by_field_name(w->scope, "body", 4))))
			bind(w, n, (TSNode){0});
		return MPSFIX_WALK_DESCEND;
	}
	if ((is(p, "function_definition") || is(p, "class_definition")) && ts_node_eq(p, w->scope))
		return MPSFIX_WALK_DESCEND; /* the scope's own name is bound around it */
	if (binds(n, p) || binds_up(up))
		bind(w, n, is(p, "assignment") ? ts_node_child_by_field_name(p, "right", 5) : (TSNode){0});
	return MPSFIX_WALK_DESCEND;
}

/* May an `import *` that ends at `star` (0: none) bind the name of `b` after its first binding? */
static bool starred(uint32_t star, const mpsfix_binding *b)
{
	return star && (!b->count || star > b->first);
}

void mpsfix_bindings_count(TSNode scope, const char *src, const TSNode *ids, size_t n, mpsfix_binding *out)
{
	walk w = {.src = src, .ids = ids, .n = n, .out = out, .scope = scope};

	memset(out, 0, n * sizeof(*out));
	if (!n || ts_node_is_null(scope))
		return;
	w.want = mpsfix_xmalloc(n * sizeof(*w.want));
	for (size_t i = 0; i < n; i++)
		w.want[i] = (wanted){mpsfix_node_hash(ids[i], src), i};
	qsort(w.want, n, sizeof(*w.want), by_hash);
	mpsfix_walk_parents(scope, visit, &w);
	for (size_t i = 0; i < n; i++)
		out[i].dynamic |= starred(w.star, &out[i]);
	free(w.want);
}

static int by_site(const void *a, const void *b)
{
	const site *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

mpsfix_bindings_index *mpsfix_bindings_index_new(TSNode scope, const char *src)
{
	mpsfix_bindings_index *ix = mpsfix_xcalloc(1, sizeof(*ix));
	walk w = {.src = src, .scope = scope, .index = ix};

	ix->src = src;
	if (!ts_node_is_null(scope))
		mpsfix_walk_parents(scope, visit, &w);
	if (ix->len > 1)
		qsort(ix->sites, ix->len, sizeof(*ix->sites), by_site);
	return ix;
}

void mpsfix_bindings_index_free(mpsfix_bindings_index *ix)
{
	if (!ix)
		return;
	free(ix->sites);
	free(ix);
}

void mpsfix_bindings_index_get(const mpsfix_bindings_index *ix, TSNode id, mpsfix_binding *out)
{
	uint64_t hash = mpsfix_node_hash(id, ix->src);
	size_t lo = 0, hi = ix->len;

	memset(out, 0, sizeof(*out));
	out->dynamic = ix->dynamic;
	while (lo < hi) { /* the first site of the hash */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->sites[mid].hash < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->len && ix->sites[lo].hash == hash; lo++) {
		const site *s = &ix->sites[lo];

		if (!mpsfix_node_same_text(s->id, id, ix->src))
			continue;
		if (!out->count)
			out->first = ts_node_start_byte(s->id);
		if (!out->count++ && !ts_node_is_null(s->value)) { /* as bind() counts */
			out->value = s->value;
			out->at = ts_node_start_byte(s->id);
		}
	}
	out->dynamic |= starred(ix->star, out);
}

typedef struct {
	const char *src;
	const char *const *names;
	size_t n;
	uint32_t bits;
} rebinding;

/* Set the bit of each name asked for that identifier `n` spells. */
static void rebind(rebinding *r, TSNode n)
{
	for (size_t i = 0; i < r->n; i++)
		if (mpsfix_node_text_is(n, r->src, r->names[i]))
			r->bits |= 1u << i;
}

static mpsfix_walk_action rebind_all(TSNode n, void *payload)
{
	if (is(n, "identifier"))
		rebind(payload, n);
	return MPSFIX_WALK_DESCEND;
}

static mpsfix_walk_action find_rebound(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	rebinding *r = payload;
	TSNode p = mpsfix_up(up, 1);

	if (is(n, "wildcard_import") || namespace_call(n, r->src)) {
		r->bits = UINT32_MAX; /* any name may be bound */
		return MPSFIX_WALK_STOP;
	}
	if (is(n, "case_pattern")) { /* every name of a pattern binds, as visit() counts it */
		mpsfix_walk(n, rebind_all, r);
		return MPSFIX_WALK_SKIP;
	}
	if (is(n, "identifier") && (binds(n, p) || is(p, "global_statement") || is(p, "nonlocal_statement")))
		rebind(r, n);
	return MPSFIX_WALK_DESCEND;
}

uint32_t mpsfix_bindings_rebound(TSNode root, const char *src, const char *const *names, size_t n)
{
	rebinding r = {src, names, n < 32 ? n : 32, 0};

	mpsfix_walk_parents(root, find_rebound, &r);
	return r.bits;
}

bool mpsfix_bindings_generator_consumed(TSNode g, const char *src, uint64_t *cache)
{
	static const char *const builtins[] = {"all", "any", "bytearray", "bytes", "dict", "frozenset", "list",
					       "max", "min", "next", "set", "sorted", "sum", "tuple"};
	TSNode call = ts_node_parent(g), fn = ts_node_child_by_field_name(call, "function", 8), a, root = call;
	uint64_t once = 0;

	if (!is(call, "call"))
		return false;
	if (is(fn, "attribute")) { /* str.join, list.extend, dict.fromkeys */
		a = ts_node_child_by_field_name(fn, "attribute", 9);
		return mpsfix_node_text_is(a, src, "join") || mpsfix_node_text_is(a, src, "extend") ||
		       mpsfix_node_text_is(a, src, "fromkeys");
	}
	for (size_t i = 0; is(fn, "identifier") && i < MPSFIX_ARRAY_SIZE(builtins); i++) {
		if (!mpsfix_node_text_is(fn, src, builtins[i]))
			continue;
		/* the builtin itself: the text binds the name nowhere (`def list(g)`, `sum=iter`) */
		cache = cache ? cache : &once;
		if (!*cache) {
			while (!ts_node_is_null(ts_node_parent(root)))
				root = ts_node_parent(root);
			*cache = (uint64_t)1 << 32 | mpsfix_bindings_rebound(root, src, builtins, MPSFIX_ARRAY_SIZE(builtins));
		}
		return !(*cache & (uint64_t)1 << i);
	}
	return false;
}
