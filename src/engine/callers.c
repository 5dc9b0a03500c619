/*
 * callers.c: functions of a text that only its unreachable code calls (see
 * callers.h).  One walk finds every function definition, a second every
 * name and string that refers to one; reach.c's hooks then judge the
 * references, a few rounds over the candidates, until none changes.
 */
#include "callers.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"

typedef struct {
	TSNode def;           /* the function_definition */
	TSNode owner;         /* the class of a method, or null */
	uint32_t name_at;     /* where its name starts */
	const char *name;     /* its name, in the text (not NUL-terminated) */
	uint32_t len;
	bool candidate;       /* of a kind judged here (callers.h) */
	bool public_;         /* a public function of a script: judged when no other
				 file of the project names it */
} def_entry;

typedef struct {
	const char *name;
	uint32_t len;
	uint32_t ndefs;       /* definitions of the name in the text */
	bool candidate;       /* the one definition is of a kind judged here */
	bool public_;         /* it is a public function of a script (def_entry) */
	bool escapes;         /* a string names it */
	bool done;            /* found unreachable */
	TSNode def, owner;
	uint32_t name_at;
	size_t first, nrefs;  /* its references, in refs[] */
} name_entry;

typedef struct {
	size_t name;          /* index into names[] */
	TSNode at;
} ref_entry;

typedef struct {
	const char *src;
	bool script;          /* the module has an `if __name__ == "__main__":` block */
	bool ask_project;     /* the hooks can tell whether other files name a function */
	def_entry *defs;
	size_t ndefs, capdefs;
	TSNode *bases;        /* the names the file's classes derive from */
	size_t nbases, capbases;
	name_entry *names;
	size_t nnames;
	ref_entry *refs;
	size_t nrefs, caprefs;
} callers;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static bool dunder(const char *s, uint32_t n)
{
	return n >= 4 && !strncmp(s, "__", 2) && !strncmp(s + n - 2, "__", 2);
}

static bool private_name(const char *s, uint32_t n)
{
	return n >= 2 && s[0] == '_' && !dunder(s, n);
}

/* A class that derives from nothing (or object): no base calls its methods by name. */
static bool baseless(TSNode cls, const char *src)
{
	TSNode bases = ts_node_child_by_field_name(cls, "superclasses", 12);
	uint32_t n = mpsfix_named_count(bases);

	return n == 0 || (n == 1 && mpsfix_node_text_is(mpsfix_first_named(bases), src, "object"));
}

bool mpsfix_callers_plain_decorators(TSNode dd, const char *src)
{
	static const char *const plain[] = {
		"staticmethod", "classmethod", "property", "setter", "getter", "deleter", "cached_property",
		"contextmanager", "asynccontextmanager", "wraps", "lru_cache", "cache", "no_grad",
		"inference_mode", "enable_grad", "abstractmethod", "override", "final",
	};
	mpsfix_buf name = MPSFIX_BUF_INIT;
	mpsfix_kids k;
	TSNode d;
	bool ok = true;

	mpsfix_kids_start(&k, dd);
	while (ok && mpsfix_kids_next(&k, &d)) {
		TSNode e = mpsfix_first_named(d);
		const char *dot;
		size_t i;

		if (!is(d, "decorator"))
			continue;
		if (is(e, "call"))
			e = ts_node_child_by_field_name(e, "function", 8);
		mpsfix_buf_clear(&name);
		ok = mpsfix_dotted_name(e, src, &name);
		dot = ok ? strrchr(name.data, '.') : NULL;
		for (i = 0; ok && i < MPSFIX_ARRAY_SIZE(plain) && strcmp(dot ? dot + 1 : name.data, plain[i]); i++)
			;
		ok = ok && i < MPSFIX_ARRAY_SIZE(plain);
	}
	mpsfix_kids_end(&k);
	mpsfix_buf_release(&name);
	return ok;
}

/*
 * Is function definition `d`, named [s, s+n), of a kind callers.h judges?
 * Sets `*owner` to the class of a method, `*public_` for a public function
 * of a script (judged if no other file of the project names it).
 */
static bool judged(const callers *c, TSNode d, const char *s, uint32_t n, TSNode *owner, bool *public_)
{
	const char *src = c->src;
	TSNode p = ts_node_parent(d), o;

	if (is(p, "decorated_definition")) {
		if (!mpsfix_callers_plain_decorators(p, src))
			return false;
		p = ts_node_parent(p);
	}
	if (is(p, "module")) {
		*public_ = c->script && !private_name(s, n) && !dunder(s, n);
		return c->script && (private_name(s, n) || (*public_ && c->ask_project));
	}
	if (!is(p, "block"))
		return false;
	o = ts_node_parent(p);
	if (is(o, "function_definition"))
		return !dunder(s, n);
	if (!is(o, "class_definition") || !baseless(o, src) || !private_name(s, n))
		return false;
	*owner = o;
	return true;
}

static mpsfix_walk_action find_defs(TSNode n, void *payload)
{
	callers *c = payload;
	TSNode name, bases;

	if (is(n, "class_definition")) { /* a class derived from in the file may be a mixin */
		bases = ts_node_child_by_field_name(n, "superclasses", 12);
		for (uint32_t i = 0; i < mpsfix_named_count(bases); i++) {
			mpsfix_grow((void **)&c->bases, &c->capbases, c->nbases + 1, sizeof(*c->bases));
			c->bases[c->nbases++] = ts_node_named_child(bases, i);
		}
		return MPSFIX_WALK_DESCEND;
	}
	if (!is(n, "function_definition"))
		return MPSFIX_WALK_DESCEND;
	name = ts_node_child_by_field_name(n, "name", 4);
	if (ts_node_is_null(name))
		return MPSFIX_WALK_DESCEND;
	mpsfix_grow((void **)&c->defs, &c->capdefs, c->ndefs + 1, sizeof(*c->defs));
	c->defs[c->ndefs] = (def_entry){
		.def = n,
		.name_at = ts_node_start_byte(name),
		.name = c->src + ts_node_start_byte(name),
		.len = ts_node_end_byte(name) - ts_node_start_byte(name),
	};
	c->defs[c->ndefs].candidate = judged(c, n, c->defs[c->ndefs].name, c->defs[c->ndefs].len,
					     &c->defs[c->ndefs].owner, &c->defs[c->ndefs].public_);
	c->ndefs++;
	return MPSFIX_WALK_DESCEND;
}

static int compare_text(const char *a, uint32_t na, const char *b, uint32_t nb)
{
	int d = memcmp(a, b, na < nb ? na : nb);

	return d ? d : na < nb ? -1 : na > nb;
}

static int compare_defs(const void *a, const void *b)
{
	const def_entry *x = a, *y = b;
	int d = compare_text(x->name, x->len, y->name, y->len);

	return d ? d : x->name_at < y->name_at ? -1 : x->name_at > y->name_at;
}

/* The name entry of text [s, s+n), or -1. */
static long find_name(const callers *c, const char *s, uint32_t n)
{
	size_t lo = 0, hi = c->nnames;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = compare_text(c->names[mid].name, c->names[mid].len, s, n);

		if (!d)
			return (long)mid;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Is identifier `id` the method of `self._m`, `cls._m` or `Class._m` inside the method's own class? */
static bool own_call(const callers *c, const name_entry *e, TSNode id)
{
	TSNode a = ts_node_parent(id), obj;
	TSNode cls_name = ts_node_child_by_field_name(e->owner, "name", 4);

	if (!is(a, "attribute") || !ts_node_eq(ts_node_child_by_field_name(a, "attribute", 9), id))
		return false;
	obj = ts_node_child_by_field_name(a, "object", 6);
	return ts_node_start_byte(id) >= ts_node_start_byte(e->owner) &&
	       ts_node_end_byte(id) <= ts_node_end_byte(e->owner) &&
	       (mpsfix_node_text_is(obj, c->src, "self") || mpsfix_node_text_is(obj, c->src, "cls") ||
		mpsfix_node_same_text(obj, cls_name, c->src));
}

/* Is the class of method entry `e` one the file derives another class from (a mixin)? */
static bool derived_from(const callers *c, const name_entry *e)
{
	TSNode cls_name = ts_node_child_by_field_name(e->owner, "name", 4);

	for (size_t i = 0; i < c->nbases; i++)
		if (mpsfix_node_same_text(c->bases[i], cls_name, c->src))
			return true;
	return false;
}

static mpsfix_walk_action find_refs(TSNode n, void *payload)
{
	callers *c = payload;
	uint32_t start = ts_node_start_byte(n), len = ts_node_end_byte(n) - start;
	bool id = is(n, "identifier");
	long i;
	name_entry *e;

	if (!id && !is(n, "string_content"))
		return MPSFIX_WALK_DESCEND;
	if ((i = find_name(c, c->src + start, len)) < 0)
		return MPSFIX_WALK_DESCEND;
	e = &c->names[i];
	if (!id) {
		/* getattr(self, "_load"), __all__; not monkeypatch.setattr(m, "_load", g), which rebinds it */
		if (!mpsfix_string_inert(n, c->src))
			e->escapes = true;
		return MPSFIX_WALK_DESCEND;
	}
	if (!e->candidate || start == e->name_at)
		return MPSFIX_WALK_DESCEND;
	if (start >= ts_node_start_byte(e->def) && start < ts_node_end_byte(e->def))
		return MPSFIX_WALK_DESCEND; /* its own body: a recursive call */
	if (!ts_node_is_null(e->owner) && !own_call(c, e, n)) {
		e->escapes = true; /* obj._pin() from outside its class */
		return MPSFIX_WALK_DESCEND;
	}
	mpsfix_grow((void **)&c->refs, &c->caprefs, c->nrefs + 1, sizeof(*c->refs));
	c->refs[c->nrefs++] = (ref_entry){(size_t)i, n};
	return MPSFIX_WALK_DESCEND;
}

static int compare_refs(const void *a, const void *b)
{
	const ref_entry *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return ts_node_start_byte(x->at) < ts_node_start_byte(y->at) ? -1
	       : ts_node_start_byte(x->at) > ts_node_start_byte(y->at);
}

/* One entry per name, from the sorted definitions. */
static void index_names(callers *c)
{
	c->names = mpsfix_xcalloc(c->ndefs ? c->ndefs : 1, sizeof(*c->names));
	for (size_t i = 0; i < c->ndefs; i++) {
		const def_entry *d = &c->defs[i];
		name_entry *last = c->nnames ? &c->names[c->nnames - 1] : NULL;

		if (last && !compare_text(last->name, last->len, d->name, d->len)) {
			last->ndefs++;
			last->candidate = false; /* which of them a call runs is not known */
			continue;
		}
		c->names[c->nnames++] = (name_entry){
			.name = d->name, .len = d->len, .ndefs = 1, .candidate = d->candidate,
			.def = d->def, .owner = d->owner, .name_at = d->name_at, .public_ = d->public_,
		};
		if (!ts_node_is_null(d->owner) && derived_from(c, &c->names[c->nnames - 1]))
			c->names[c->nnames - 1].candidate = false;
	}
}

/* Is every reference of name entry `e` unreachable? */
static bool unreached(const callers *c, const name_entry *e, const mpsfix_callers_hooks *h)
{
	for (size_t j = e->first; j < e->first + e->nrefs; j++)
		if (!h->unreachable(h->payload, c->refs[j].at))
			return false;
	return true;
}

void mpsfix_callers_unreached(TSNode root, const char *src, const mpsfix_callers_hooks *hooks)
{
	callers c = {.src = src, .script = !ts_node_is_null(mpsfix_main_block(root, src)),
		     .ask_project = hooks->unnamed_elsewhere != NULL};
	bool any = false;

	mpsfix_walk(root, find_defs, &c);
	for (size_t i = 0; i < c.ndefs && !any; i++)
		any = c.defs[i].candidate;
	if (!any)
		goto done;
	if (c.ndefs > 1)
		qsort(c.defs, c.ndefs, sizeof(*c.defs), compare_defs);
	index_names(&c);
	mpsfix_walk(root, find_refs, &c);
	if (c.nrefs > 1)
		qsort(c.refs, c.nrefs, sizeof(*c.refs), compare_refs);
	for (size_t j = 0; j < c.nrefs; j++) {
		name_entry *e = &c.names[c.refs[j].name];

		if (!e->nrefs++)
			e->first = j;
	}
	for (int round = 0; round < MPSFIX_CALLERS_ROUNDS; round++) {
		bool changed = false;

		for (size_t i = 0; i < c.nnames; i++) {
			name_entry *e = &c.names[i];

			if (!e->candidate || e->escapes || e->done || !e->nrefs || !unreached(&c, e, hooks))
				continue;
			if (e->public_ && !hooks->unnamed_elsewhere(hooks->payload, e->name, e->len)) {
				e->candidate = false; /* another module may call it */
				continue;
			}
			e->done = changed = true;
			hooks->found(hooks->payload, e->def);
		}
		if (!changed)
			break;
	}
done:
	free(c.defs);
	free(c.bases);
	free(c.names);
	free(c.refs);
}
