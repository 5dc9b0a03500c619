/*
 * kwdict.c: the keywords a call's `**NAME` passes (see kwdict.h).  One
 * walk of the tree per name finds its mentions; the first that is neither
 * a spread nor the one assignment ends it.
 */
#include "kwdict.h"

#include <string.h>

#include "bindings.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static bool text_is(TSNode n, const char *src, const char *s, size_t len)
{
	return ts_node_end_byte(n) - ts_node_start_byte(n) == len && !memcmp(src + ts_node_start_byte(n), s, len);
}

/* The content of string `s` when it is a plain one with no prefix, escape or interpolation: "device". */
static TSNode plain_string(TSNode s, const char *src)
{
	TSNode start, content;

	if (!is(s, "string") || ts_node_named_child_count(s) != 3)
		return (TSNode){0};
	start = ts_node_named_child(s, 0);
	content = ts_node_named_child(s, 1);
	if (!is(content, "string_content") || ts_node_named_child_count(content) > 0)
		return (TSNode){0};
	if (!text_is(start, src, "\"", 1) && !text_is(start, src, "'", 1) && !text_is(start, src, "\"\"\"", 3) &&
	    !text_is(start, src, "'''", 3))
		return (TSNode){0};
	return content;
}

/* Is `v` a dictionary written out with keys known: dict(k=v, ...), {"k": v, ...}? */
static bool written_out(TSNode v, const char *src)
{
	mpsfix_kids k;
	TSNode a, args;
	bool ok = true;

	if (is(v, "call")) {
		if (!mpsfix_node_text_is(ts_node_child_by_field_name(v, "function", 8), src, "dict"))
			return false;
		args = ts_node_child_by_field_name(v, "arguments", 9);
		if (!is(args, "argument_list"))
			return false; /* dict(x for x in y) */
		mpsfix_kids_start(&k, args);
		while (ok && mpsfix_kids_next(&k, &a))
			ok = is(a, "keyword_argument");
		mpsfix_kids_end(&k);
		return ok;
	}
	if (!is(v, "dictionary"))
		return false;
	mpsfix_kids_start(&k, v);
	while (ok && mpsfix_kids_next(&k, &a))
		ok = is(a, "pair") && !ts_node_is_null(plain_string(ts_node_child_by_field_name(a, "key", 3), src));
	mpsfix_kids_end(&k);
	return ok;
}

typedef struct {
	const char *src;
	const char *name;
	size_t len;
	TSNode dict;
	bool assigned, bad;
} reading;

static mpsfix_walk_action mention(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	reading *r = payload;
	TSNode p, v;

	if (!is(n, "identifier") || !text_is(n, r->src, r->name, r->len))
		return MPSFIX_WALK_DESCEND;
	p = mpsfix_up(up, 1);
	if (is(p, "dictionary_splat"))
		return MPSFIX_WALK_DESCEND; /* **NAME reads it */
	if ((is(p, "attribute") && mpsfix_field_is(p, "attribute", n)) ||
	    (is(p, "keyword_argument") && mpsfix_field_is(p, "name", n)))
		return MPSFIX_WALK_DESCEND; /* x.NAME, f(NAME=...): another name */
	v = ts_node_child_by_field_name(p, "right", 5);
	if (!r->assigned && is(p, "assignment") && mpsfix_field_is(p, "left", n) &&
	    is(mpsfix_up(up, 2), "expression_statement") && written_out(v, r->src)) {
		r->assigned = true;
		r->dict = v;
		return MPSFIX_WALK_DESCEND;
	}
	r->bad = true;
	return MPSFIX_WALK_STOP;
}

TSNode mpsfix_kwdict_of(mpsfix_kwdict_cache *c, TSNode splat, const char *src)
{
	static const char *const dict_name[] = {"dict"};
	TSNode id = mpsfix_first_named(splat), root, none = {0};
	uint64_t hash;
	reading r = {.src = src};

	if (!is(splat, "dictionary_splat"))
		return none;
	root = ts_tree_root_node(id.tree);
	if (c->tree != id.tree) {
		memset(c, 0, sizeof(*c));
		c->tree = id.tree;
	}
	if (is(id, "dictionary") || is(id, "call")) { /* f(**{"k": v}), f(**dict(k=v)) */
		if (is(id, "call") && !c->dict_free)
			c->dict_free = mpsfix_bindings_rebound(root, src, dict_name, 1) ? -1 : 1;
		return written_out(id, src) && (is(id, "dictionary") || c->dict_free > 0) ? id : none;
	}
	if (!is(id, "identifier"))
		return none;
	hash = mpsfix_node_hash(id, src);
	for (size_t i = 0; i < c->n; i++)
		if (c->slots[i].hash == hash && mpsfix_node_same_text(c->slots[i].id, id, src))
			return c->slots[i].dict;
	if (c->n == MPSFIX_KWDICT_NAMES)
		return none;
	if (!c->dict_free)
		c->dict_free = mpsfix_bindings_rebound(root, src, dict_name, 1) ? -1 : 1;
	if (c->dict_free > 0) {
		r.name = src + ts_node_start_byte(id);
		r.len = ts_node_end_byte(id) - ts_node_start_byte(id);
		mpsfix_walk_parents(root, mention, &r);
	}
	c->slots[c->n++] = (struct mpsfix_kwdict_slot){hash, id, r.bad || !r.assigned ? none : r.dict};
	return c->slots[c->n - 1].dict;
}

void mpsfix_kwdict_keys(TSNode dict, void (*each)(TSNode key, TSNode value, void *payload), void *payload)
{
	mpsfix_kids k;
	TSNode a, key;

	if (is(dict, "call")) {
		mpsfix_kids_start(&k, ts_node_child_by_field_name(dict, "arguments", 9));
		while (mpsfix_kids_next(&k, &a))
			each(ts_node_child_by_field_name(a, "name", 4), ts_node_child_by_field_name(a, "value", 5),
			     payload);
		mpsfix_kids_end(&k);
	} else if (is(dict, "dictionary")) {
		mpsfix_kids_start(&k, dict);
		while (mpsfix_kids_next(&k, &a)) {
			key = ts_node_named_child(ts_node_child_by_field_name(a, "key", 3), 1);
			each(key, ts_node_child_by_field_name(a, "value", 5), payload);
		}
		mpsfix_kids_end(&k);
	}
}

typedef struct {
	const char *src, *key;
	size_t n;
	TSNode value;
} finding_key;

static void match_key(TSNode key, TSNode value, void *payload)
{
	finding_key *f = payload;

	if (ts_node_is_null(f->value) && text_is(key, f->src, f->key, f->n))
		f->value = value;
}

TSNode mpsfix_kwdict_value(TSNode dict, const char *src, const char *key, size_t n)
{
	finding_key f = {.src = src, .key = key, .n = n};

	mpsfix_kwdict_keys(dict, match_key, &f);
	return f.value;
}
