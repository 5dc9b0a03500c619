/*
 * texts.c: modules read and parsed for the project's questions, kept for
 * the next ones (see texts.h).
 */
#include "texts.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "projfiles.h"

static void text_release(mpsfix_text *t)
{
	free(t->path);
	free(t->data);
	if (t->tree)
		ts_tree_delete(t->tree);
	memset(t, 0, sizeof(*t));
}

void mpsfix_texts_release(mpsfix_texts *c)
{
	if (c->parser)
		ts_parser_delete(c->parser);
	for (size_t i = 0; i < MPSFIX_TEXTS_KEPT; i++)
		text_release(&c->items[i]);
	memset(c, 0, sizeof(*c));
}

/* A free place for a text of `size` bytes: the kept texts used longest ago
 * that nobody reads now make room; NULL when there is none. */
static mpsfix_text *make_room(mpsfix_texts *c, uint64_t size)
{
	if (size > MPSFIX_TEXTS_KEPT_BYTES)
		return NULL;
	for (;;) {
		mpsfix_text *free_slot = NULL, *oldest = NULL;

		for (size_t i = 0; i < MPSFIX_TEXTS_KEPT; i++) {
			mpsfix_text *e = &c->items[i];

			if (!e->path)
				free_slot = e;
			else if (!e->pins && (!oldest || e->used < oldest->used))
				oldest = e;
		}
		if (free_slot && c->bytes + size <= MPSFIX_TEXTS_KEPT_BYTES)
			return free_slot;
		if (!oldest)
			return NULL;
		c->bytes -= oldest->len;
		text_release(oldest);
	}
}

mpsfix_text *mpsfix_texts_get(mpsfix_texts *c, const char *path, bool *owned)
{
	mpsfix_file_stamp st;
	mpsfix_text *t = NULL;

	*owned = false;
	if (!mpsfix_file_stamp_read(&st, path))
		return NULL;
	for (size_t i = 0; i < MPSFIX_TEXTS_KEPT; i++) {
		mpsfix_text *e = &c->items[i];

		if (e->path && !strcmp(e->path, path) && mpsfix_file_stamp_same(&e->stamp, &st)) {
			e->used = ++c->clock;
			e->pins++;
			return e;
		}
	}
	/* The text is read with the file's size at most a little off (it may
	 * change between the two): counted by what was read. */
	if (st.size < 0 || !(t = make_room(c, (uint64_t)st.size))) {
		t = mpsfix_xcalloc(1, sizeof(*t));
		*owned = true;
	}
	if (mpsfix_read_whole(path, MPSFIX_PROJECT_MAX_BYTES, &t->data, &t->len) != 0 || t->len > UINT32_MAX) {
		text_release(t);
		if (*owned)
			free(t);
		return NULL;
	}
	t->path = mpsfix_xstrdup(path);
	t->stamp = st;
	if (!c->parser && mpsfix_parser_new(&c->parser) < 0)
		c->parser = NULL;
	if (!c->parser || mpsfix_parse_named(&t->tree, c->parser, path, t->data, (uint32_t)t->len) < 0) {
		t->tree = NULL;
		if (!*owned) { /* out of time (or memory): another question may be luckier, so not kept */
			mpsfix_text *o = mpsfix_xcalloc(1, sizeof(*o));

			*o = *t;
			memset(t, 0, sizeof(*t));
			t = o;
			*owned = true;
		}
	}
	if (t->tree && ts_node_has_error(ts_tree_root_node(t->tree))) {
		ts_tree_delete(t->tree);
		t->tree = NULL;
	}
	t->used = ++c->clock;
	t->pins++;
	if (!*owned)
		c->bytes += t->len;
	return t;
}

void mpsfix_texts_put(mpsfix_text *t, bool owned)
{
	if (owned) {
		text_release(t);
		free(t);
	} else {
		t->pins--;
	}
}
