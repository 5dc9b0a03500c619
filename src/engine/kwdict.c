/*
 * kwdict.c: the keywords a call's `**NAME` passes (see kwdict.h).  A first
 * walk of the tree finds the names spread, a second their mentions.
 */
#include "kwdict.h"

#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "notebook.h"
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
	TSNode a, keys[MPSFIX_KWDICT_KEYS];
	size_t n = 0;
	bool ok = true, call = is(v, "call");

	if (call && !mpsfix_node_text_is(ts_node_child_by_field_name(v, "function", 8), src, "dict"))
		return false;
	if (call)
		v = ts_node_child_by_field_name(v, "arguments", 9); /* not dict(x for x in y) */
	if (!(call ? is(v, "argument_list") : is(v, "dictionary")))
		return false;
	mpsfix_kids_start(&k, v);
	while (ok && mpsfix_kids_next(&k, &a)) {
		ok = n < MPSFIX_KWDICT_KEYS && (call ? is(a, "keyword_argument") : is(a, "pair"));
		if (ok && !call) {
			/* {"device": a, "device": b} passes b: no key twice */
			keys[n] = plain_string(ts_node_child_by_field_name(a, "key", 3), src);
			ok = !ts_node_is_null(keys[n]);
			for (size_t i = 0; ok && i < n; i++)
				ok = !mpsfix_node_same_text(keys[i], keys[n], src);
		}
		n++;
	}
	mpsfix_kids_end(&k);
	return ok;
}

/* The slot of the name identifier `id` stands for, or NULL. */
static struct mpsfix_kwdict_slot *slot_of(mpsfix_kwdict_cache *c, TSNode id, uint64_t hash, const char *src)
{
	uint32_t at = ts_node_start_byte(id), len = ts_node_end_byte(id) - at;

	for (size_t i = 0; i < c->n; i++)
		if (c->slots[i].hash == hash && c->slots[i].id_len == len &&
		    !memcmp(src + c->slots[i].id_start, src + at, len))
			return &c->slots[i];
	return NULL;
}

typedef struct {
	mpsfix_kwdict_cache *c;
	const char *src;
} reading;

/* The first walk: each name spread, `**NAME`, gets a slot. */
static mpsfix_walk_action spread(TSNode n, void *payload)
{
	reading *r = payload;
	TSNode id;
	uint64_t hash;

	if (!is(n, "dictionary_splat") || !is(id = mpsfix_first_named(n), "identifier"))
		return MPSFIX_WALK_DESCEND;
	for (uint32_t i = ts_node_start_byte(id); i + 1 < ts_node_end_byte(id); i++)
		if (r->src[i] == '_' && r->src[i + 1] == '_')
			return MPSFIX_WALK_DESCEND; /* __kw in class C's body is _C__kw */
	hash = mpsfix_node_hash(id, r->src);
	if (!slot_of(r->c, id, hash, r->src) && r->c->n < MPSFIX_KWDICT_NAMES)
		r->c->slots[r->c->n++] = (struct mpsfix_kwdict_slot){
			.hash = hash,
			.id_start = ts_node_start_byte(id),
			.id_len = ts_node_end_byte(id) - ts_node_start_byte(id),
			.first = UINT32_MAX,
		};
	return MPSFIX_WALK_DESCEND;
}

/*
 * The body of the function that the statement `up` leads to (k: its
 * parent) stands in, or a null node.  (Its parameters' defaults run
 * outside it.)
 */
static TSNode assigning_function(const mpsfix_ancestors *up, size_t k)
{
	for (TSNode a = mpsfix_up(up, k); !ts_node_is_null(a); a = mpsfix_up(up, ++k))
		if (is(a, "function_definition"))
			return ts_node_child_by_field_name(a, "body", 4);
		else if (is(a, "class_definition") || is(a, "lambda") || is(a, "module"))
			break;
	return (TSNode){0};
}

/*
 * Does identifier `n` say a way to reach a function's locals or the
 * builtins without naming them: a frame (`sys._getframe().f_locals`,
 * `inspect.getargvalues(inspect.currentframe()).locals`), `builtins.dict
 * = ...`?  Or hold a byte past ASCII (Python reads `ｋw` as `kw`)?
 */
static bool reaches_unseen(TSNode n, const char *src)
{
	static const char *const words[] = {
		"f_locals", "f_globals", "f_back", "tb_frame", "locals", "_getframe", "currentframe",
		"getargvalues", "builtins", "__builtins__",
	};
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);

	for (uint32_t i = s; i < e; i++)
		if ((unsigned char)src[i] >= 0x80)
			return true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(words); i++)
		if (mpsfix_node_text_is(n, src, words[i]))
			return true;
	return false;
}

/* The second walk: each mention of a name spread. */
static mpsfix_walk_action mention(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	reading *r = payload;
	struct mpsfix_kwdict_slot *s;
	TSNode p, v, fn;
	uint32_t at = ts_node_start_byte(n);

	if (!is(n, "identifier"))
		return MPSFIX_WALK_DESCEND;
	if (reaches_unseen(n, r->src))
		r->c->trusted = false;
	if (!(s = slot_of(r->c, n, mpsfix_node_hash(n, r->src), r->src)))
		return MPSFIX_WALK_DESCEND;
	p = mpsfix_up(up, 1);
	if (is(p, "dictionary_splat")) {
		s->first = at < s->first ? at : s->first;
		s->last = at > s->last ? at : s->last;
		return MPSFIX_WALK_DESCEND; /* **NAME reads it */
	}
	if ((is(p, "attribute") && mpsfix_field_is(p, "attribute", n)) ||
	    (is(p, "keyword_argument") && mpsfix_field_is(p, "name", n)))
		return MPSFIX_WALK_DESCEND; /* x.NAME, f(NAME=...): another name */
	v = ts_node_child_by_field_name(p, "right", 5);
	if (!s->dict_end && is(p, "assignment") && mpsfix_field_is(p, "left", n) &&
	    is(mpsfix_up(up, 2), "expression_statement") && written_out(v, r->src) &&
	    !ts_node_is_null(fn = assigning_function(up, 3))) {
		s->dict_start = ts_node_start_byte(v);
		s->dict_end = ts_node_end_byte(v);
		s->scope_start = ts_node_start_byte(fn);
		s->scope_end = ts_node_end_byte(fn);
	} else {
		s->bad = true;
	}
	return MPSFIX_WALK_DESCEND;
}

/* Read the tree of `root` (the text `src`) into `c`. */
static void read_tree(mpsfix_kwdict_cache *c, TSNode root, const char *src)
{
	static const char *const dict_name[] = {"dict"};
	reading r = {c, src};

	memset(c, 0, sizeof(*c));
	c->tree = root.tree;
	/* exec(), eval(), vars(), import *, or `dict` bound: any name may change */
	c->trusted = !mpsfix_bindings_rebound(root, src, dict_name, 1) &&
		     !memchr(src, MPSFIX_NB_MARK, ts_node_end_byte(root)) && /* a notebook's IPython line */
		     !ts_node_has_error(root); /* code not read: a t-string's {kw.pop("device")} (3.14) */
	mpsfix_walk(root, spread, &r);
	mpsfix_walk_parents(root, mention, &r);
}

TSNode mpsfix_kwdict_of(mpsfix_kwdict_cache *c, TSNode splat, const char *src)
{
	TSNode id = mpsfix_first_named(splat), none = {0}, d;
	struct mpsfix_kwdict_slot *s;

	if (!is(splat, "dictionary_splat"))
		return none;
	if (c->tree != id.tree)
		read_tree(c, ts_tree_root_node(id.tree), src);
	if (is(id, "dictionary")) /* f(**{"k": v}) */
		return written_out(id, src) ? id : none;
	if (!c->trusted)
		return none;
	if (is(id, "call")) /* f(**dict(k=v)) */
		return written_out(id, src) ? id : none;
	if (!is(id, "identifier") || !(s = slot_of(c, id, mpsfix_node_hash(id, src), src)) || s->bad || !s->dict_end ||
	    s->first < s->scope_start || s->last >= s->scope_end)
		return none;
	d = ts_node_descendant_for_byte_range(ts_tree_root_node(id.tree), s->dict_start, s->dict_end);
	return (is(d, "call") || is(d, "dictionary")) && ts_node_start_byte(d) == s->dict_start &&
		       ts_node_end_byte(d) == s->dict_end
		       ? d
		       : none;
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

	if (text_is(key, f->src, f->key, f->n))
		f->value = value; /* the last, as Python keeps it */
}

TSNode mpsfix_kwdict_value(TSNode dict, const char *src, const char *key, size_t n)
{
	finding_key f = {.src = src, .key = key, .n = n};

	mpsfix_kwdict_keys(dict, match_key, &f);
	return f.value;
}

struct mpsfix_kwdict_store {
	struct stored {
		char *path;
		mpsfix_file_stamp stamp;
		mpsfix_kwdict_cache kw;
	} *files;
	size_t len, cap, next;
};

mpsfix_kwdict_cache *mpsfix_kwdict_store_get(mpsfix_kwdict_store **store, const char *path,
					     const mpsfix_file_stamp *stamp, const TSTree *tree)
{
	mpsfix_kwdict_store *st = *store ? *store : (*store = mpsfix_xcalloc(1, sizeof(**store)));
	struct stored *e;

	for (size_t i = 0; i < st->len; i++)
		if (!strcmp(st->files[i].path, path)) {
			e = &st->files[i];
			if (!mpsfix_file_stamp_same(&e->stamp, stamp)) {
				memset(&e->kw, 0, sizeof(e->kw)); /* changed since: read again */
				e->stamp = *stamp;
			}
			if (e->kw.tree)
				e->kw.tree = tree; /* the same text parsed again: its offsets hold */
			return &e->kw;
		}
	if (st->len == MPSFIX_KWDICT_FILES) {
		e = &st->files[st->next++ % MPSFIX_KWDICT_FILES]; /* in place of the oldest */
		free(e->path);
	} else {
		mpsfix_grow((void **)&st->files, &st->cap, st->len + 1, sizeof(*st->files));
		e = &st->files[st->len++];
	}
	memset(e, 0, sizeof(*e));
	e->path = mpsfix_xstrdup(path);
	e->stamp = *stamp;
	return &e->kw;
}

void mpsfix_kwdict_store_free(mpsfix_kwdict_store *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->len; i++)
		free(st->files[i].path);
	free(st->files);
	free(st);
}
