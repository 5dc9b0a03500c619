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

/* Does "deprecat" (any case) start at `s`, with WORD_LEN bytes there? */
static bool word_at(const char *s)
{
	size_t i = 0;

	while (i < WORD_LEN && (s[i] | 0x20) == word[i])
		i++;
	return i == WORD_LEN;
}

/* Does [p, end) hold "deprecat" in any case? */
static bool holds_word(const char *p, const char *end)
{
	for (; end - p >= (ptrdiff_t)WORD_LEN; p++)
		if (word_at(p))
			return true;
	return false;
}

static bool ident_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c & 0x80);
}

/* Does [p, end) hold a word that starts with "deprecat" ("Deprecated", not "deprecated_ok")? */
static bool holds_deprecat_word(const char *p, const char *end)
{
	for (const char *s = p; end - s >= (ptrdiff_t)WORD_LEN; s++) {
		const char *e = s + WORD_LEN;

		if (!word_at(s) || (s > p && ident_char(s[-1])))
			continue;
		while (e < end && ((*e | 0x20) >= 'a' && (*e | 0x20) <= 'z'))
			e++;
		if (e == end || !ident_char(*e))
			return true;
	}
	return false;
}

static const char *last_part(const mpsfix_buf *b)
{
	const char *dot = strrchr(b->data, '.');

	return dot ? dot + 1 : b->data;
}

/*
 * Does string `v` (or a concatenation of strings) say "deprecat" in its
 * literal text: its string_content parts, not an f-string's interpolations
 * (f"{deprecated_ok}")?
 */
static bool literal_says(TSNode v, const char *src)
{
	mpsfix_kids k;
	TSNode c;
	bool yes = false;

	mpsfix_kids_start(&k, v);
	while (!yes && mpsfix_kids_next(&k, &c)) {
		if (is(c, "string"))
			yes = literal_says(c, src);
		else if (is(c, "string_content"))
			yes = holds_deprecat_word(src + ts_node_start_byte(c), src + ts_node_end_byte(c));
	}
	mpsfix_kids_end(&k);
	return yes;
}

/*
 * The name a call calls, last part only: `warning` for
 * logging.getLogger(__name__).warning(...) as for logger.warning(...);
 * empty for anything else ((f or g)(...)).  Never NULL.
 */
static void callee(TSNode call, const char *src, mpsfix_buf *name)
{
	TSNode f = ts_node_child_by_field_name(call, "function", 8);

	if (is(f, "attribute"))
		f = ts_node_child_by_field_name(f, "attribute", 9);
	mpsfix_buf_clear(name);
	if (is(f, "identifier"))
		mpsfix_buf_add(name, src + ts_node_start_byte(f), ts_node_end_byte(f) - ts_node_start_byte(f));
	else
		mpsfix_buf_add(name, "", 0);
}

static bool is_category(const char *name)
{
	return !strcmp(name, "DeprecationWarning") || !strcmp(name, "PendingDeprecationWarning");
}

static bool deprecation_argument(TSNode v, const char *src, mpsfix_buf *name, int depth);

/* Does a call's argument list hold a deprecation message or category? */
static bool deprecation_arguments(TSNode args, const char *src, mpsfix_buf *name, int depth)
{
	mpsfix_kids k;
	TSNode a;
	bool yes = false;

	if (!is(args, "argument_list"))
		return false;
	mpsfix_kids_start(&k, args);
	while (!yes && mpsfix_kids_next(&k, &a))
		yes = deprecation_argument(is(a, "keyword_argument") ? ts_node_child_by_field_name(a, "value", 5) : a,
					   src, name, depth);
	mpsfix_kids_end(&k);
	return yes;
}

/*
 * Is argument value `v` a message that says deprecated, or a deprecation
 * category?  A message: a string literal, also formatted
 * ("{} is deprecated".format(x), "%s is deprecated" % x).  A category:
 * DeprecationWarning or PendingDeprecationWarning, also an instance of one
 * (DeprecationWarning("...")), or a warning made with a message that says
 * deprecated (FutureWarning("x is deprecated")).  `depth` bounds the
 * instances looked into.
 */
static bool deprecation_argument(TSNode v, const char *src, mpsfix_buf *name, int depth)
{
	/* a loop, not recursion, down the formatting: "..." % a % b % ... and
	   "...".format().format()... may be as long as the file */
	for (;;) {
		TSNode f, op;

		v = mpsfix_unparenthesized(v);
		if (is(v, "string") || is(v, "concatenated_string"))
			return literal_says(v, src);
		if (is(v, "binary_operator")) {
			op = ts_node_child_by_field_name(v, "operator", 8);
			if (ts_node_is_null(op) || ts_node_end_byte(op) - ts_node_start_byte(op) != 1 ||
			    src[ts_node_start_byte(op)] != '%')
				return false;
			v = ts_node_child_by_field_name(v, "left", 4);
			continue;
		}
		if (!is(v, "call"))
			break;
		f = ts_node_child_by_field_name(v, "function", 8);
		callee(v, src, name);
		if (!strcmp(name->data, "format") && is(f, "attribute")) {
			v = ts_node_child_by_field_name(f, "object", 6);
			continue;
		}
		if (is_category(name->data))
			return true;
		return depth > 0 &&
		       deprecation_arguments(ts_node_child_by_field_name(v, "arguments", 9), src, name, depth - 1);
	}
	mpsfix_buf_clear(name);
	return (is(v, "identifier") || is(v, "attribute")) && mpsfix_dotted_name(v, src, name) &&
	       is_category(last_part(name));
}

/* Is statement `s` a deprecation notice (deprecated.h)? */
static bool notice(TSNode s, const char *src)
{
	static const char *const warns[] = {"warn", "warning", "warning_once"};
	TSNode call;
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool yes = false, warn = false;

	if (!is(s, "expression_statement") || mpsfix_named_count(s) != 1)
		return false;
	call = ts_node_named_child(s, 0);
	if (!is(call, "call"))
		goto done;
	callee(call, src, &name);
	if (!strcmp(name.data, "deprecate") || !strcmp(name.data, "warn_deprecated")) {
		yes = true;
		goto done;
	}
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(warns); i++)
		warn = warn || !strcmp(name.data, warns[i]);
	yes = warn && deprecation_arguments(ts_node_child_by_field_name(call, "arguments", 9), src, &name, 1);
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
	/* a function's body: its signature and decorators too (the defaults) */
	if (is(ts_node_parent(n), "function_definition")) {
		n = ts_node_parent(n);
		if (is(ts_node_parent(n), "decorated_definition"))
			n = ts_node_parent(n);
	}
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
