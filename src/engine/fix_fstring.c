/*
 * fix_fstring.c: fixes inside f-strings, as Python before 3.12 reads them
 * (see fix_fstring.h).
 */
#include "fix_fstring.h"

#include <string.h>

#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* What the f-strings around one place forbid in an expression there. */
typedef struct {
	bool quote[2];  /* '"' and '\'': the quote of a one-quoted f-string */
	bool oneline;   /* a one-quoted f-string: no line break */
	bool any;       /* inside an f-string's replacement field at all */
	bool echoed;    /* in `{expr=}`, which prints the expression's text */
} fstring_limits;

/* What the f-string `str` (a string node) forbids in an expression of its fields. */
static void string_limits(fstring_limits *l, const char *src, TSNode str)
{
	TSNode open = mpsfix_first_named(str);
	uint32_t os, oe;

	if (!is(open, "string_start"))
		return;
	os = ts_node_start_byte(open);
	oe = ts_node_end_byte(open);
	l->any = true;
	if (oe - os >= 3 && src[oe - 1] == src[oe - 2] && src[oe - 2] == src[oe - 3])
		return; /* f"""...""": either quote may stand inside */
	l->quote[src[oe - 1] == '\''] = true;
	l->oneline = true;
}

/*
 * The limits of the f-strings whose replacement fields hold [start, end),
 * found from the root down (a node's parent costs a walk from the root in
 * tree-sitter: from the place up, a long chain `a + b + ...` of fixes took
 * the cube of its length).
 */
static fstring_limits limits_at(TSNode root, const char *src, uint32_t start, uint32_t end)
{
	fstring_limits l = {{false, false}, false, false, false};
	TSTreeCursor c = ts_tree_cursor_new(root);
	TSNode str = {0};

	while (ts_tree_cursor_goto_first_child_for_byte(&c, start) >= 0) {
		TSNode n = ts_tree_cursor_current_node(&c);

		if (ts_node_start_byte(n) > start || ts_node_end_byte(n) < end)
			break; /* no node below holds all of it */
		if (is(n, "string"))
			str = n;
		if (!is(n, "interpolation") || ts_node_is_null(str))
			continue;
		for (uint32_t i = 0; i < ts_node_child_count(n); i++)
			l.echoed = l.echoed || is(ts_node_child(n, i), "=");
		string_limits(&l, src, str);
	}
	ts_tree_cursor_delete(&c);
	return l;
}

/* May text `src` hold an f-string: a quote after an f (f"", rf"", fR'')? */
static bool may_hold_fstrings(const char *src, size_t len)
{
	for (size_t i = 1; i < len; i++)
		if ((src[i] == '"' || src[i] == '\'') &&
		    ((src[i - 1] | 0x20) == 'f' || (i > 1 && (src[i - 2] | 0x20) == 'f' && (src[i - 1] | 0x20) == 'r')))
			return true;
	return false;
}

char *mpsfix_fix_fstring(TSNode root, const char *src, mpsfix_edit *items, size_t n, signed char *fstrings)
{
	static const char quotes[2] = {'"', '\''};

	if (!*fstrings)
		*fstrings = may_hold_fstrings(src, ts_node_end_byte(root)) ? 1 : -1;
	if (*fstrings < 0)
		return NULL;

	for (size_t i = 0; i < n; i++) {
		mpsfix_edit *e = &items[i];
		fstring_limits l = limits_at(root, src, e->start, e->end);
		bool has[2];

		if (!l.any)
			continue;
		if (l.echoed)
			return mpsfix_xstrdup("inside an f-string's {...=}, which prints the expression's own text");
		if (memchr(e->text, '\\', e->len) || memchr(e->text, '#', e->len) ||
		    (l.oneline && memchr(e->text, '\n', e->len)))
			return mpsfix_xstrdup("inside an f-string, where Python before 3.12 allows no backslash, "
					      "comment or line break");
		for (int q = 0; q < 2; q++)
			has[q] = memchr(e->text, quotes[q], e->len) != NULL;
		for (int q = 0; q < 2; q++) {
			if (!(has[q] && l.quote[q]))
				continue;
			if (has[!q] || l.quote[!q])
				return mpsfix_xstrdup("inside an f-string that takes both quotes, where Python before "
						      "3.12 allows neither");
			for (size_t k = 0; k < e->len; k++) /* "mps" -> 'mps' in f"{...}" */
				if (e->text[k] == quotes[q])
					e->text[k] = quotes[!q];
		}
	}
	return NULL;
}
