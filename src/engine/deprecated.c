/*
 * deprecated.c: code its authors have marked deprecated (see deprecated.h).
 */
#include "deprecated.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const char word[] = "deprecat";
#define WORD_LEN (sizeof(word) - 1)

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Does [p, end) hold "deprecat" in any case? */
static bool holds_word(const char *p, const char *end)
{
	for (; end - p >= (ptrdiff_t)WORD_LEN; p++) {
		size_t i = 0;

		while (i < WORD_LEN && (p[i] | 0x20) == word[i])
			i++;
		if (i == WORD_LEN)
			return true;
	}
	return false;
}

static const char *last_part(const mpsfix_buf *b)
{
	const char *dot = strrchr(b->data, '.');

	return dot ? dot + 1 : b->data;
}

/* Is argument value `v` a message that says deprecated, or a deprecation category? */
static bool deprecation_argument(TSNode v, const char *src, mpsfix_buf *name)
{
	v = mpsfix_unparenthesized(v);
	if (is(v, "string") || is(v, "concatenated_string"))
		return holds_word(src + ts_node_start_byte(v), src + ts_node_end_byte(v));
	mpsfix_buf_clear(name);
	return (is(v, "identifier") || is(v, "attribute")) && mpsfix_dotted_name(v, src, name) &&
	       (!strcmp(last_part(name), "DeprecationWarning") ||
		!strcmp(last_part(name), "PendingDeprecationWarning"));
}

/* Is statement `s` a deprecation notice (deprecated.h)? */
static bool notice(TSNode s, const char *src)
{
	static const char *const warns[] = {"warn", "warning", "warning_once"};
	TSNode call, args, a;
	mpsfix_buf name = MPSFIX_BUF_INIT;
	mpsfix_kids k;
	const char *last;
	bool yes = false, warn = false;

	if (!is(s, "expression_statement") || mpsfix_named_count(s) != 1)
		return false;
	call = ts_node_named_child(s, 0);
	if (!is(call, "call") || !mpsfix_dotted_name(ts_node_child_by_field_name(call, "function", 8), src, &name))
		goto done;
	last = last_part(&name);
	if (!strcmp(last, "deprecate") || !strcmp(last, "warn_deprecated")) {
		yes = true;
		goto done;
	}
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(warns); i++)
		warn = warn || !strcmp(last, warns[i]);
	args = ts_node_child_by_field_name(call, "arguments", 9);
	if (!warn || !is(args, "argument_list"))
		goto done;
	mpsfix_kids_start(&k, args);
	while (!yes && mpsfix_kids_next(&k, &a))
		yes = deprecation_argument(is(a, "keyword_argument") ? ts_node_child_by_field_name(a, "value", 5) : a,
					   src, &name);
	mpsfix_kids_end(&k);
done:
	mpsfix_buf_release(&name);
	return yes;
}

typedef struct {
	mpsfix_deprecated *d;
	const char *src;
} walk;

static mpsfix_walk_action find_blocks(TSNode n, void *payload)
{
	walk *w = payload;
	mpsfix_kids k;
	TSNode c;
	bool found = false;

	/* a string or a comment holds no statement */
	if (is(n, "string") || is(n, "comment") || is(n, "concatenated_string"))
		return MPSFIX_WALK_SKIP;
	if (!is(n, "block") && !is(n, "module"))
		return MPSFIX_WALK_DESCEND;
	mpsfix_kids_start(&k, n);
	while (!found && mpsfix_kids_next(&k, &c))
		found = notice(c, w->src);
	mpsfix_kids_end(&k);
	if (!found)
		return MPSFIX_WALK_DESCEND;
	mpsfix_grow((void **)&w->d->items, &w->d->cap, w->d->len + 1, sizeof(*w->d->items));
	w->d->items[w->d->len++] = (mpsfix_span){ts_node_start_byte(n), ts_node_end_byte(n)};
	return MPSFIX_WALK_SKIP; /* the blocks inside it are deprecated with it */
}

bool mpsfix_deprecated_at(mpsfix_deprecated *d, const char *src, size_t len, TSNode root, TSNode node)
{
	uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);

	if (!d->built) {
		d->built = true;
		if (holds_word(src, src + len)) {
			walk w = {d, src};

			mpsfix_walk(root, find_blocks, &w);
		}
	}
	/* the blocks come in source order, none inside another: the last one
	   that starts at or before the node is the only one that may hold it */
	size_t i = mpsfix_lower_bound(d->items, d->len, sizeof(*d->items), offsetof(mpsfix_span, start), start + 1);

	return i > 0 && d->items[i - 1].start <= start && end <= d->items[i - 1].end;
}

void mpsfix_deprecated_release(mpsfix_deprecated *d)
{
	free(d->items);
	memset(d, 0, sizeof(*d));
}
