/*
 * defaults.c: is a parameter's default ever used (see defaults.h)?  The
 * text's identifiers and strings are read once, by hash; a question looks
 * up the function's name among them and reads each call.
 */
#include "defaults.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "callers.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static mpsfix_walk_action read_name(TSNode n, void *payload)
{
	struct {
		mpsfix_defaults_memo *m;
		const char *src;
	} *rd = payload;

	if (!is(n, "identifier") && !is(n, "string_content"))
		return MPSFIX_WALK_DESCEND;
	mpsfix_grow((void **)&rd->m->items, &rd->m->cap, rd->m->len + 1, sizeof(*rd->m->items));
	rd->m->items[rd->m->len++] = (struct mpsfix_defaults_name){mpsfix_node_hash(n, rd->src), n};
	return MPSFIX_WALK_DESCEND;
}

static int by_hash(const void *a, const void *b)
{
	const struct mpsfix_defaults_name *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return ts_node_start_byte(x->id) < ts_node_start_byte(y->id) ? -1
	       : ts_node_start_byte(x->id) > ts_node_start_byte(y->id);
}

static void memo_read(mpsfix_defaults_memo *m, TSNode root, const char *src)
{
	struct {
		mpsfix_defaults_memo *m;
		const char *src;
	} rd = {m, src};

	m->read = true;
	mpsfix_walk(root, read_name, &rd);
	if (m->len > 1)
		qsort(m->items, m->len, sizeof(*m->items), by_hash);
}

void mpsfix_defaults_memo_release(mpsfix_defaults_memo *m)
{
	free(m->items);
	memset(m, 0, sizeof(*m));
}

/*
 * Where parameter `param` stands among the positional parameters of
 * `params` (-1: keyword-only, or after `*args`), or -2 when the list has a
 * form not read here.
 */
static long position(TSNode params, TSNode param, const char *src)
{
	mpsfix_kids k;
	TSNode c;
	long at = 0, found = -2;
	bool keyword_only = false;

	mpsfix_kids_start(&k, params);
	while (found == -2 && mpsfix_kids_next(&k, &c)) {
		const char *t = src + ts_node_start_byte(c);

		if (ts_node_eq(c, param))
			found = keyword_only ? -1 : at;
		else if (is(c, "keyword_separator") || is(c, "list_splat_pattern") || *t == '*')
			keyword_only = true; /* `*`, `*args`, `*args: int` (and `**kw`, last) */
		else if (is(c, "positional_separator"))
			continue;
		else
			at++;
	}
	mpsfix_kids_end(&k);
	return found;
}

/*
 * Does call argument list `args` pass the parameter named [name, name+n)
 * at positional index `at` (-1: by keyword alone)?
 */
static bool passes(TSNode args, const char *src, const char *name, uint32_t n, long at)
{
	mpsfix_kids k;
	TSNode a;
	long positional = 0;
	bool keyword = false, unknown = false;

	if (!is(args, "argument_list"))
		return is(args, "generator_expression") && at == 0; /* f(x for x in y) */
	mpsfix_kids_start(&k, args);
	while (!keyword && mpsfix_kids_next(&k, &a)) {
		if (is(a, "keyword_argument")) {
			TSNode kn = ts_node_child_by_field_name(a, "name", 4);

			keyword = ts_node_end_byte(kn) - ts_node_start_byte(kn) == n &&
				  !memcmp(src + ts_node_start_byte(kn), name, n);
		} else if (is(a, "list_splat")) {
			unknown = unknown || (at >= 0 && positional <= at); /* *args may or may not reach it */
		} else if (!is(a, "dictionary_splat")) {
			positional++;
		}
	}
	mpsfix_kids_end(&k);
	/* not passed by position, **kwargs may or may not hold it: not known */
	return keyword || (!unknown && at >= 0 && positional > at);
}

/* The decorated definition around function definition `def`, or `def` itself. */
static TSNode definition(TSNode def)
{
	TSNode p = ts_node_parent(def);

	return is(p, "decorated_definition") ? p : def;
}

/* Is decorated definition `dd` a @staticmethod? */
static bool static_method(TSNode dd, const char *src)
{
	mpsfix_kids k;
	TSNode d;
	bool yes = false;

	mpsfix_kids_start(&k, dd);
	while (!yes && mpsfix_kids_next(&k, &d))
		yes = is(d, "decorator") && mpsfix_node_text_is(mpsfix_first_named(d), src, "staticmethod");
	mpsfix_kids_end(&k);
	return yes;
}

bool mpsfix_defaults_overridden(mpsfix_defaults_memo *memo, const char *src, TSNode param)
{
	mpsfix_defaults_memo once = {0}, *m = memo ? memo : &once;
	TSNode params = ts_node_parent(param), def = ts_node_parent(params), outer, body, cls = {0};
	TSNode pname = ts_node_child_by_field_name(param, "name", 4), fname, root;
	const char *name, *pn;
	uint32_t n, pnlen;
	long at;
	size_t i, calls = 0;
	bool ok = false, method = false, is_static = false;

	if (!is(params, "parameters") || !is(def, "function_definition") || !is(pname, "identifier"))
		return false;
	fname = ts_node_child_by_field_name(def, "name", 4);
	name = src + ts_node_start_byte(fname);
	n = ts_node_end_byte(fname) - ts_node_start_byte(fname);
	pn = src + ts_node_start_byte(pname);
	pnlen = ts_node_end_byte(pname) - ts_node_start_byte(pname);
	if ((n >= 4 && !strncmp(name, "__", 2) && !strncmp(name + n - 2, "__", 2)) ||
	    (n == 7 && !strncmp(name, "forward", 7)))
		return false;
	outer = definition(def);
	if (!ts_node_eq(outer, def)) {
		if (!mpsfix_callers_plain_decorators(outer, src))
			return false;
		is_static = static_method(outer, src);
	}
	body = ts_node_parent(outer);
	if (is(body, "block") && is(ts_node_parent(body), "class_definition")) {
		method = true;
		cls = ts_node_parent(body);
	} else if (!is(body, "module") && !(is(body, "block") && is(ts_node_parent(body), "function_definition"))) {
		return false; /* defined under an if, a try, a loop: which one runs is not known */
	}
	at = position(params, param, src);
	if (at == -2)
		return false;
	if (method && !is_static)
		at = at > 0 ? at - 1 : at == 0 ? -2 : -1; /* `self` is the call's object */
	if (at == -2)
		return false;
	for (root = def; !ts_node_is_null(ts_node_parent(root)); root = ts_node_parent(root))
		;
	if (!m->read)
		memo_read(m, root, src);
	i = mpsfix_lower_bound64(m->items, m->len, sizeof(*m->items), offsetof(struct mpsfix_defaults_name, hash),
				 mpsfix_node_hash(fname, src));
	ok = true;
	for (; ok && i < m->len && m->items[i].hash == mpsfix_node_hash(fname, src); i++) {
		TSNode id = m->items[i].id, p = ts_node_parent(id), call;

		if (!mpsfix_node_same_text(id, fname, src))
			continue; /* another text of the same hash */
		if (ts_node_eq(id, fname))
			continue;
		if (is(id, "string_content") || is(p, "function_definition")) {
			ok = false; /* getattr(self, "f"), a second definition */
			break;
		}
		if (!method) {
			call = p;
			ok = is(call, "call") && ts_node_eq(ts_node_child_by_field_name(call, "function", 8), id);
		} else {
			TSNode obj = ts_node_child_by_field_name(p, "object", 6);

			call = ts_node_parent(p);
			ok = is(p, "attribute") && ts_node_eq(ts_node_child_by_field_name(p, "attribute", 9), id) &&
			     is(call, "call") && ts_node_eq(ts_node_child_by_field_name(call, "function", 8), p) &&
			     (is_static ||
			      !mpsfix_node_same_text(obj, ts_node_child_by_field_name(cls, "name", 4), src));
		}
		ok = ok && passes(ts_node_child_by_field_name(call, "arguments", 9), src, pn, pnlen, at);
		calls += ok;
	}
	if (!memo)
		mpsfix_defaults_memo_release(&once);
	return ok && calls > 0;
}
