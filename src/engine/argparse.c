/*
 * argparse.c: is a value a command-line switch that is off by default
 * (see argparse.h)?
 */
#include "argparse.h"

#include <string.h>

#include "literal.h"
#include "parse.h"

typedef struct {
	const char *src;
	const char *name;   /* NAME, in src */
	size_t len;
	bool off_switch;    /* an add_argument declares NAME as a store_true switch off by default */
	bool other;         /* something else may give NAME a value */
} scan;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Is `n` the identifier NAME? */
static bool is_name(const scan *s, TSNode n)
{
	return is(n, "identifier") && ts_node_end_byte(n) - ts_node_start_byte(n) == s->len &&
	       !memcmp(s->src + ts_node_start_byte(n), s->name, s->len);
}

/* Is the call's function `E.method`? */
static bool method_is(const scan *s, TSNode call, const char *method)
{
	TSNode f = ts_node_child_by_field_name(call, "function", 8);

	return is(f, "attribute") &&
	       mpsfix_node_text_is(ts_node_child_by_field_name(f, "attribute", 9), s->src, method);
}

/*
 * Is option string `opt` (dashes included) NAME as argparse's dest: the
 * dashes in front taken off, the others read as underscores?
 */
static bool dest_is(const scan *s, const char *opt, bool strip)
{
	size_t i = 0;

	if (strip)
		while (opt[0] == '-')
			opt++;
	for (; opt[i] && i < s->len; i++)
		if ((opt[i] == '-' ? '_' : opt[i]) != s->name[i])
			return false;
	return i == s->len && !opt[i];
}

/* Is `v` absent, False or None (a store_true switch's default)? */
static bool off(TSNode v)
{
	return ts_node_is_null(v) || is(v, "false") || is(v, "none");
}

/* `add_argument(...)`: does it declare NAME, and how? */
static void add_argument(scan *s, TSNode args)
{
	mpsfix_literal lit;
	const char *str;
	int dest = -1, first_long = -1, first = -1; /* is it NAME: -1 not given, 0 no, 1 yes */
	bool unknown = false, store_true = false;
	TSNode deflt = {0}, c;
	mpsfix_kids k;

	mpsfix_kids_start(&k, args);
	while (mpsfix_kids_next(&k, &c)) {
		if (is(c, "keyword_argument")) {
			TSNode key = ts_node_child_by_field_name(c, "name", 4);
			TSNode v = ts_node_child_by_field_name(c, "value", 5);

			str = mpsfix_literal_string(&lit, v, s->src);
			if (mpsfix_node_text_is(key, s->src, "dest")) {
				dest = str && dest_is(s, str, false);
				unknown |= !str;
			} else if (mpsfix_node_text_is(key, s->src, "action")) {
				store_true = str && !strcmp(str, "store_true");
			} else if (mpsfix_node_text_is(key, s->src, "default")) {
				deflt = v;
			}
			if (str)
				mpsfix_literal_release(&lit);
		} else if ((str = mpsfix_literal_string(&lit, c, s->src))) {
			/* an option string, or a positional argument's name */
			if (first_long < 0 && !strncmp(str, "--", 2))
				first_long = dest_is(s, str, true);
			if (first < 0)
				first = dest_is(s, str, true);
			mpsfix_literal_release(&lit);
		} else {
			unknown = true; /* *flags, **options, a name: any dest, any action */
		}
	}
	mpsfix_kids_end(&k);
	/* argparse's dest: `dest=`, else the first long option, else the first one */
	if (unknown)
		s->other = true;
	else if ((dest >= 0 ? dest : first_long >= 0 ? first_long : first) != 1)
		return;
	else if (store_true && off(deflt))
		s->off_switch = true;
	else
		s->other = true;
}

/* `set_defaults(...)` or `setattr(E, "NAME", v)`: does it give NAME a value? */
static void sets(scan *s, TSNode args, bool by_setattr)
{
	mpsfix_literal lit;
	const char *str;
	TSNode c;
	mpsfix_kids k;
	int i = 0;

	mpsfix_kids_start(&k, args);
	while (mpsfix_kids_next(&k, &c) && !s->other) {
		if (by_setattr) {
			if (i++ == 1) {
				if (!(str = mpsfix_literal_string(&lit, c, s->src)))
					s->other = true;
				else {
					s->other = dest_is(s, str, false);
					mpsfix_literal_release(&lit);
				}
			}
		} else if (is(c, "keyword_argument")) {
			s->other = is_name(s, ts_node_child_by_field_name(c, "name", 4));
		} else {
			s->other = true; /* set_defaults(**options) */
		}
	}
	mpsfix_kids_end(&k);
}

/* An assignment's target: `E.NAME`? */
static mpsfix_walk_action assigned(TSNode n, void *payload)
{
	scan *s = payload;

	if (is(n, "attribute") && is_name(s, ts_node_child_by_field_name(n, "attribute", 9)))
		s->other = true;
	return s->other ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

static mpsfix_walk_action visit(TSNode n, void *payload)
{
	scan *s = payload;
	const char *type = ts_node_type(n);

	if (!strcmp(type, "call")) {
		TSNode f = ts_node_child_by_field_name(n, "function", 8);
		TSNode args = ts_node_child_by_field_name(n, "arguments", 9);

		if (!is(args, "argument_list"))
			return MPSFIX_WALK_DESCEND;
		if (method_is(s, n, "add_argument"))
			add_argument(s, args);
		else if (method_is(s, n, "set_defaults"))
			sets(s, args, false);
		else if (is(f, "identifier") && mpsfix_node_text_is(f, s->src, "setattr"))
			sets(s, args, true);
	} else if (!strcmp(type, "assignment") || !strcmp(type, "augmented_assignment")) {
		/* `args.NAME = True`, in a tuple or not */
		mpsfix_walk(ts_node_child_by_field_name(n, "left", 4), assigned, s);
	}
	return s->other ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

bool mpsfix_argparse_opt_in(const char *src, TSNode root, TSNode value)
{
	TSNode v = mpsfix_unparenthesized(value), attr;
	scan s = {src, NULL, 0, false, false};

	if (!is(v, "attribute") || !is(attr = ts_node_child_by_field_name(v, "attribute", 9), "identifier"))
		return false;
	s.name = src + ts_node_start_byte(attr);
	s.len = ts_node_end_byte(attr) - ts_node_start_byte(attr);
	mpsfix_walk(root, visit, &s);
	return s.off_switch && !s.other;
}
