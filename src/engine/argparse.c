/*
 * argparse.c: is a value a command-line switch that is off by default
 * (see argparse.h)?
 */
#include "argparse.h"

#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "instance.h"
#include "literal.h"
#include "names.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Is the call's function `E.method` (or, with `bare`, `method` too)? */
static bool calls(const char *src, TSNode call, const char *method, bool bare)
{
	TSNode f = ts_node_child_by_field_name(call, "function", 8);

	if (bare && is(f, "identifier"))
		return mpsfix_node_text_is(f, src, method);
	return is(f, "attribute") && mpsfix_node_text_is(ts_node_child_by_field_name(f, "attribute", 9), src, method);
}

/* The dest argparse derives from option string `opt`: dashes in front off, the others read as `_`. */
static char *dest_of(const char *opt)
{
	char *d;

	while (*opt == '-')
		opt++;
	d = mpsfix_xstrdup(opt);
	for (char *p = d; *p; p++)
		if (*p == '-')
			*p = '_';
	return d;
}

/* Is `v` absent, False or None (a store_true switch's default)? */
static bool off(TSNode v)
{
	return ts_node_is_null(v) || is(v, "false") || is(v, "none");
}

/*
 * The dest that `add_argument(...)` with arguments `args` declares (free
 * it), as argparse derives it: its `dest=`, else its first long option
 * without `--` and with `-` read as `_`, else its first option without `-`;
 * NULL where an option or the dest is not a literal (*args, dest=VAR:
 * `*any`), or where there is no option.  `*positional`: the first option is
 * a positional argument's name.
 */
static char *declared_dest(const char *src, TSNode args, bool *positional, bool *any)
{
	mpsfix_literal lit;
	const char *str;
	char *dest = NULL, *first_long = NULL, *first = NULL;
	TSNode c;
	mpsfix_kids k;

	*positional = *any = false;
	mpsfix_kids_start(&k, args);
	while (!*any && mpsfix_kids_next(&k, &c)) {
		if (is(c, "keyword_argument")) {
			if (!mpsfix_node_text_is(ts_node_child_by_field_name(c, "name", 4), src, "dest"))
				continue;
			str = mpsfix_literal_string(&lit, ts_node_child_by_field_name(c, "value", 5), src);
			*any = !str; /* dest=VAR: any dest at all */
			if (str && !dest)
				dest = mpsfix_xstrdup(str); /* kept as written: argparse does not touch it */
		} else if ((str = mpsfix_literal_string(&lit, c, src))) {
			/* an option string, or a positional argument's name */
			if (!first_long && !strncmp(str, "--", 2))
				first_long = dest_of(str);
			if (!first) {
				first = dest_of(str);
				*positional = str[0] != '-';
			}
		} else {
			*any = true; /* *flags, **options, a name: any dest */
		}
		if (str)
			mpsfix_literal_release(&lit);
	}
	mpsfix_kids_end(&k);
	if (*any || (!dest && !first_long && !first)) {
		free(dest);
		dest = NULL;
	} else if (!dest) {
		dest = first_long ? first_long : first;
		first_long = first_long == dest ? NULL : first_long;
		first = first == dest ? NULL : first;
	}
	free(first_long);
	free(first);
	return dest;
}

/* `add_argument(...)`: which dest it declares, and how. */
static void add_argument(mpsfix_argparse *a, const char *src, TSNode args)
{
	mpsfix_literal lit;
	const char *str;
	char *dest;
	bool store_true = false, positional, any;
	TSNode deflt = {0}, c, key, v;
	mpsfix_kids k;

	if (!(dest = declared_dest(src, args, &positional, &any))) {
		a->any = any; /* no option at all declares nothing (add_argument() raises) */
		return;
	}
	mpsfix_kids_start(&k, args);
	while (mpsfix_kids_next(&k, &c)) {
		if (!is(c, "keyword_argument"))
			continue;
		key = ts_node_child_by_field_name(c, "name", 4);
		v = ts_node_child_by_field_name(c, "value", 5);
		if (mpsfix_node_text_is(key, src, "action") && (str = mpsfix_literal_string(&lit, v, src))) {
			store_true = !strcmp(str, "store_true");
			mpsfix_literal_release(&lit);
		} else if (mpsfix_node_text_is(key, src, "default")) {
			deflt = v;
		}
	}
	mpsfix_kids_end(&k);
	if (store_true && !positional && off(deflt))
		mpsfix_strvec_push(&a->off, dest);
	else
		mpsfix_strvec_push(&a->set, dest); /* a positional store_true is always True */
	free(dest);
}

/* `set_defaults(...)`: the dests it sets. */
static void set_defaults(mpsfix_argparse *a, const char *src, TSNode args)
{
	mpsfix_kids k;
	TSNode c;

	mpsfix_kids_start(&k, args);
	while (mpsfix_kids_next(&k, &c)) {
		if (is(c, "keyword_argument"))
			mpsfix_strvec_push_owned(&a->set, mpsfix_node_text(ts_node_child_by_field_name(c, "name", 4), src));
		else
			a->any = true; /* set_defaults(**options) */
	}
	mpsfix_kids_end(&k);
}

/* `setattr(x, "NAME", v)`: NAME is set; a name that is not a literal may be any. */
static void set_attribute(mpsfix_argparse *a, const char *src, TSNode args)
{
	mpsfix_literal lit;
	const char *str;
	TSNode name = mpsfix_named_count(args) > 1 ? ts_node_named_child(args, 1) : (TSNode){0};

	if (ts_node_is_null(name))
		return;
	if (!(str = mpsfix_literal_string(&lit, name, src))) {
		a->any = true;
		return;
	}
	mpsfix_strvec_push(&a->set, str);
	mpsfix_literal_release(&lit);
}

typedef struct {
	mpsfix_argparse *a;
	const char *src;
	mpsfix_strvec aliases; /* names bound to vars(x): `config = vars(args)` */
} reading;

/* A target (of an assignment, a for, a with): `x.NAME` sets NAME. */
static mpsfix_walk_action assigned(TSNode n, void *payload)
{
	reading *r = payload;

	if (is(n, "attribute"))
		mpsfix_strvec_push_owned(&r->a->set, mpsfix_node_text(ts_node_child_by_field_name(n, "attribute", 9), r->src));
	return MPSFIX_WALK_DESCEND;
}

/*
 * `sys.argv` (or `argv`, node `n`): read where it is an argument, indexed,
 * compared or imported; anything else (`sys.argv += [...]`,
 * `sys.argv.append(...)`, `av = sys.argv`) may change every option.
 */
static bool argv_changed(TSNode n)
{
	static const char *const reads[] = {
		"argument_list", "comparison_operator", "dotted_name", "aliased_import", "import_from_statement",
	};
	TSNode p = ts_node_parent(n);

	if (is(p, "subscript"))
		return !ts_node_eq(ts_node_child_by_field_name(p, "value", 5), n) ||
		       is(ts_node_parent(p), "assignment") || is(ts_node_parent(p), "augmented_assignment");
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(reads); i++)
		if (is(p, reads[i]))
			return false;
	return true;
}

/* Is keyword `name` among the call's arguments (or, with `splat`, may `**options` hold it)? */
static bool has_keyword(const char *src, TSNode args, const char *name, bool splat)
{
	mpsfix_kids k;
	TSNode c;
	bool yes = false;

	mpsfix_kids_start(&k, args);
	while (!yes && mpsfix_kids_next(&k, &c))
		yes = (splat && is(c, "dictionary_splat")) ||
		      (is(c, "keyword_argument") &&
		       mpsfix_node_text_is(ts_node_child_by_field_name(c, "name", 4), src, name));
	mpsfix_kids_end(&k);
	return yes;
}

/*
 * `vars(x)` (call `n`, whose parent is `p`) used other than as an argument:
 * bound to a name, what is done with that name is read later; anything
 * else may change any option.
 */
static void vars_used(reading *r, TSNode n, TSNode p)
{
	TSNode left = ts_node_child_by_field_name(p, "left", 4);

	if (is(p, "assignment") && ts_node_eq(ts_node_child_by_field_name(p, "right", 5), n) && is(left, "identifier") &&
	    !is(ts_node_parent(p), "assignment")) /* a = b = vars(args): two names */
		mpsfix_strvec_push_owned(&r->aliases, mpsfix_node_text(left, r->src));
	else
		r->a->any = true;
}

/* Is the text of node `n` an item of `v`? */
static bool has_name(const mpsfix_strvec *v, const char *src, TSNode n)
{
	uint32_t start = ts_node_start_byte(n), len = ts_node_end_byte(n) - start;

	for (size_t i = 0; i < v->len; i++)
		if (strlen(v->items[i]) == len && !memcmp(v->items[i], src + start, len))
			return true;
	return false;
}

/*
 * A use of a name bound to vars(x): `config["key"] = v` sets key; a key
 * that is not a literal, or a method that may write (`config.update(...)`),
 * may set any; reading it or passing it on sets nothing.
 */
static mpsfix_walk_action alias_use(TSNode n, void *payload)
{
	static const char *const readers[] = {"get", "items", "keys", "values", "copy"};
	reading *r = payload;
	TSNode p, g, key;
	mpsfix_literal lit;
	const char *str;
	bool reads = false;

	if (!is(n, "identifier") || !has_name(&r->aliases, r->src, n))
		return MPSFIX_WALK_DESCEND;
	p = ts_node_parent(n); /* an identifier is never the module */
	g = ts_node_parent(p);
	if (is(p, "subscript") && ts_node_eq(ts_node_child_by_field_name(p, "value", 5), n) &&
	    (is(g, "assignment") || is(g, "augmented_assignment")) &&
	    ts_node_eq(ts_node_child_by_field_name(g, "left", 4), p)) {
		key = ts_node_child_by_field_name(p, "subscript", 9);
		if ((str = mpsfix_literal_string(&lit, key, r->src))) {
			mpsfix_strvec_push(&r->a->set, str);
			mpsfix_literal_release(&lit);
		} else {
			r->a->any = true;
		}
	} else if ((is(p, "assignment") || is(p, "augmented_assignment")) &&
		   !ts_node_eq(ts_node_child_by_field_name(p, "left", 4), n)) {
		r->a->any = true; /* c2 = config, then c2["pin_memory"] = True */
	} else if (is(p, "augmented_assignment")) {
		r->a->any = true; /* config |= {"pin_memory": True} */
	} else if (is(p, "attribute") && ts_node_eq(ts_node_child_by_field_name(p, "object", 6), n)) {
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(readers); i++)
			reads |= mpsfix_node_text_is(ts_node_child_by_field_name(p, "attribute", 9), r->src, readers[i]);
		r->a->any |= !reads;
	}
	return r->a->any ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

/* A call: what it declares or changes. */
static void read_call(reading *r, TSNode n)
{
	mpsfix_argparse *a = r->a;
	const char *src = r->src;
	TSNode args = ts_node_child_by_field_name(n, "arguments", 9), p = ts_node_parent(n);
	bool splat = calls(src, n, "ArgumentParser", true); /* ArgumentParser(**options) */

	if (!is(args, "argument_list"))
		return;
	if (calls(src, n, "add_argument", false))
		add_argument(a, src, args);
	else if (calls(src, n, "set_defaults", false))
		set_defaults(a, src, args);
	else if (calls(src, n, "setattr", true))
		set_attribute(a, src, args);
	else if (has_keyword(src, args, "argument_default", splat) || has_keyword(src, args, "parents", splat) ||
		 has_keyword(src, args, "prefix_chars", splat))
		a->any = true; /* ArgumentParser(...) in any spelling, a subclass's super().__init__(...) */
	else if (calls(src, n, "parse_args", false) || calls(src, n, "parse_known_args", false) ||
		 calls(src, n, "parse_intermixed_args", false))
		a->any |= mpsfix_named_count(args) > 0; /* parse_args(["--pin"]), namespace=... */
	else if (calls(src, n, "Namespace", true))
		a->any = true;
	else if (calls(src, n, "vars", true) && mpsfix_named_count(args) > 0 && !is(p, "argument_list"))
		vars_used(r, n, p); /* vars(args).update(...), config = vars(args) */
}

static mpsfix_walk_action visit(TSNode n, void *payload)
{
	reading *r = payload;
	const char *type = ts_node_type(n);
	TSNode attr;

	if (!strcmp(type, "call")) {
		read_call(r, n);
	} else if (!strcmp(type, "assignment") || !strcmp(type, "augmented_assignment") ||
		   !strcmp(type, "for_statement") || !strcmp(type, "for_in_clause")) {
		mpsfix_walk(ts_node_child_by_field_name(n, "left", 4), assigned, r);
	} else if (!strcmp(type, "as_pattern_target")) {
		mpsfix_walk(n, assigned, r); /* with f() as args.pin_memory */
	} else if (!strcmp(type, "attribute")) {
		/* x.__dict__, parser._actions (their defaults), parser._defaults,
		   x.__setattr__(...), sys.argv changed */
		attr = ts_node_child_by_field_name(n, "attribute", 9);
		if (mpsfix_node_text_is(attr, r->src, "__dict__") || mpsfix_node_text_is(attr, r->src, "_actions") ||
		    mpsfix_node_text_is(attr, r->src, "_defaults") || mpsfix_node_text_is(attr, r->src, "__setattr__") ||
		    (mpsfix_node_text_is(attr, r->src, "argv") && argv_changed(n)))
			r->a->any = true;
	} else if (!strcmp(type, "identifier") && mpsfix_node_text_is(n, r->src, "argv") &&
		   !is(ts_node_parent(n), "attribute") && argv_changed(n)) {
		r->a->any = true; /* from sys import argv; argv.append(...) */
	}
	return r->a->any ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

void mpsfix_argparse_release(mpsfix_argparse *a)
{
	mpsfix_strvec_release(&a->off);
	mpsfix_strvec_release(&a->set);
	mpsfix_instance_memo_release(&a->memo);
	memset(a, 0, sizeof(*a));
}

/* Is `v` a call `parser.parse_args()` with no arguments? */
static bool parse_args_call(const char *src, TSNode v)
{
	return is(v, "call") && calls(src, v, "parse_args", false) &&
	       !mpsfix_named_count(ts_node_child_by_field_name(v, "arguments", 9));
}

typedef struct {
	const char *src;
	mpsfix_instance_memo *memo;
	int returns, parsed; /* return statements, and those that give parse_args() */
} returning;

static mpsfix_walk_action find_returns(TSNode n, void *payload)
{
	returning *r = payload;
	TSNode v;

	if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda"))
		return MPSFIX_WALK_SKIP;
	if (!is(n, "return_statement"))
		return MPSFIX_WALK_DESCEND;
	r->returns++;
	v = mpsfix_unparenthesized(mpsfix_first_named(n));
	if (parse_args_call(r->src, v) ||
	    (is(v, "identifier") && mpsfix_instance_value(r->src, v, &v, r->memo) && parse_args_call(r->src, v)))
		r->parsed++;
	return MPSFIX_WALK_SKIP;
}

/* Is `e` the namespace parse_args() gives, or a function of the module gives back? */
static bool parsed_namespace(mpsfix_argparse *a, const char *src, TSNode root, TSNode e)
{
	TSNode v, fn, d;
	mpsfix_kids k;
	bool dynamic;
	returning r = {src, &a->memo, 0, 0};

	if (!mpsfix_instance_value(src, e, &v, &a->memo))
		return false;
	if (parse_args_call(src, v))
		return true;
	/* args = parse_args(), a function of the module that returns it */
	fn = ts_node_child_by_field_name(v, "function", 8);
	if (!is(v, "call") || !is(fn, "identifier") ||
	    mpsfix_named_count(ts_node_child_by_field_name(v, "arguments", 9)))
		return false;
	if (mpsfix_instance_count(&a->memo, root, src, fn, &dynamic) != 1 || dynamic ||
	    !mpsfix_instance_global(src, fn, &a->memo))
		return false;
	mpsfix_kids_start(&k, root);
	while (mpsfix_kids_next(&k, &d)) {
		if (is(d, "decorated_definition"))
			continue; /* a decorator may return anything */
		if (is(d, "function_definition") && mpsfix_node_same_text(ts_node_child_by_field_name(d, "name", 4), fn, src))
			mpsfix_walk(ts_node_child_by_field_name(d, "body", 4), find_returns, &r);
	}
	mpsfix_kids_end(&k);
	return r.returns > 0 && r.parsed == r.returns;
}

bool mpsfix_argparse_opt_in(mpsfix_argparse *a, const char *src, TSNode root, TSNode value)
{
	TSNode v = mpsfix_unparenthesized(value), attr;
	char *name;
	bool yes;

	if (!is(v, "attribute") || !is(attr = ts_node_child_by_field_name(v, "attribute", 9), "identifier"))
		return false;
	if (!a->read) {
		reading r = {a, src, MPSFIX_STRVEC_INIT};

		mpsfix_walk(root, visit, &r);
		if (r.aliases.len && !a->any)
			mpsfix_walk(root, alias_use, &r);
		mpsfix_strvec_release(&r.aliases);
		a->read = true;
	}
	if (a->any)
		return false;
	name = mpsfix_node_text(attr, src);
	yes = mpsfix_strvec_has(&a->off, name) && !mpsfix_strvec_has(&a->set, name) &&
	      parsed_namespace(a, src, root, ts_node_child_by_field_name(v, "object", 6));
	free(name);
	return yes;
}

typedef struct {
	mpsfix_argparse *a;  /* for parsed_namespace() */
	mpsfix_names *names;
	const char *src;
	TSNode root;
	const char *dest;    /* the option's dest */
	const char *deflt;   /* its default, a string */
	mpsfix_buf name;
	bool found;
} fallback;

/* Is `n` torch.cuda.is_available()? */
static bool cuda_available(fallback *f, TSNode n)
{
	n = mpsfix_unparenthesized(n);
	return is(n, "call") && !mpsfix_named_count(ts_node_child_by_field_name(n, "arguments", 9)) &&
	       mpsfix_names_name_of(f->names, ts_node_child_by_field_name(n, "function", 8), f->src, &f->name) &&
	       !strcmp(f->name.data, "torch.cuda.is_available");
}

/* Is `n` `x.DEST`, x the parsed options (parse_args()'s value)? */
static bool option(fallback *f, TSNode n)
{
	n = mpsfix_unparenthesized(n);
	return is(n, "attribute") &&
	       mpsfix_node_text_is(ts_node_child_by_field_name(n, "attribute", 9), f->src, f->dest) &&
	       parsed_namespace(f->a, f->src, f->root, ts_node_child_by_field_name(n, "object", 6));
}

/* Is `n` `x.DEST == "S"` (or `"S" == x.DEST`), and is S the default (`same`) or another string? */
static bool compares(fallback *f, TSNode n, bool same)
{
	TSNode l, r, op;
	mpsfix_literal lit;
	const char *str;
	bool yes;

	n = mpsfix_unparenthesized(n);
	if (!is(n, "comparison_operator") || mpsfix_named_count(n) != 2)
		return false;
	l = ts_node_named_child(n, 0);
	r = ts_node_named_child(n, 1);
	op = ts_node_child(n, 1);
	if (strcmp(ts_node_type(op), "=="))
		return false;
	if (!option(f, l)) {
		TSNode t = l;

		l = r;
		r = t;
		if (!option(f, l))
			return false;
	}
	if (!(str = mpsfix_literal_string(&lit, mpsfix_unparenthesized(r), f->src)))
		return false;
	yes = !strcmp(str, f->deflt) == same;
	mpsfix_literal_release(&lit);
	return yes;
}

/*
 * Is test `t` `want` where CUDA is missing, while the option holds its
 * default S?  True: `not torch.cuda.is_available()`, alone or in an `and`
 * whose other terms are `x.DEST == S`.  False: `torch.cuda.is_available()`,
 * alone or in an `or` whose other terms are `x.DEST == T`, T another string.
 */
static bool without_cuda(fallback *f, TSNode t, bool want)
{
	TSNode side;

	t = mpsfix_unparenthesized(t);
	if (want ? is(t, "not_operator") && cuda_available(f, ts_node_child_by_field_name(t, "argument", 8))
		 : cuda_available(f, t))
		return true;
	if (!is(t, "boolean_operator") ||
	    strcmp(ts_node_type(ts_node_child_by_field_name(t, "operator", 8)), want ? "and" : "or"))
		return false;
	for (int i = 0; i < 2; i++) {
		side = ts_node_child_by_field_name(t, i ? "right" : "left", i ? 5 : 4);
		if (!without_cuda(f, side, want) && !compares(f, side, want))
			return false;
	}
	return true;
}

/* Does block `b` assign `x.DEST` in a statement of its own (not under another if)? */
static bool assigns(fallback *f, TSNode b)
{
	mpsfix_kids k;
	TSNode st, e;
	bool yes = false;

	mpsfix_kids_start(&k, b);
	while (!yes && mpsfix_kids_next(&k, &st)) {
		e = is(st, "expression_statement") ? ts_node_named_child(st, 0) : (TSNode){0};
		yes = is(e, "assignment") && option(f, ts_node_child_by_field_name(e, "left", 4));
	}
	mpsfix_kids_end(&k);
	return yes;
}

/* The named children of `n` but comments, into c[0, max): how many there are. */
static uint32_t parts(TSNode n, TSNode *c, uint32_t max)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
		TSNode x = ts_node_named_child(n, i);

		if (is(x, "comment"))
			continue;
		if (m < max)
			c[m] = x;
		m++;
	}
	return m;
}

static mpsfix_walk_action find_fallback(TSNode n, void *payload)
{
	fallback *f = payload;
	TSNode c[3];

	/* if args.device == "cuda" and not torch.cuda.is_available(): args.device = "cpu" */
	if (is(n, "if_statement"))
		f->found = without_cuda(f, ts_node_child_by_field_name(n, "condition", 9), true) &&
			   assigns(f, ts_node_child_by_field_name(n, "consequence", 11));
	/* args.device if torch.cuda.is_available() else "cpu" */
	else if (is(n, "conditional_expression") && parts(n, c, 3) == 3)
		f->found = without_cuda(f, c[1], false) && option(f, c[0]);
	return f->found ? MPSFIX_WALK_STOP : MPSFIX_WALK_DESCEND;
}

bool mpsfix_argparse_falls_back(mpsfix_names *names, const char *src, TSNode deflt)
{
	TSNode kw = ts_node_parent(deflt), args = ts_node_parent(kw), call = ts_node_parent(args), root = call;
	mpsfix_argparse a = MPSFIX_ARGPARSE_INIT;
	fallback f = {.a = &a, .names = names, .src = src, .name = MPSFIX_BUF_INIT};
	mpsfix_literal lit;
	char *dest = NULL;
	bool positional, any;

	if (!is(kw, "keyword_argument") ||
	    !mpsfix_node_text_is(ts_node_child_by_field_name(kw, "name", 4), src, "default") || !is(call, "call") ||
	    !calls(src, call, "add_argument", false) || !(f.deflt = mpsfix_literal_string(&lit, deflt, src)))
		return false; /* a string only: a device chosen at run time is what it is */
	while (!ts_node_is_null(ts_node_parent(root)))
		root = ts_node_parent(root);
	if (!(dest = declared_dest(src, args, &positional, &any)))
		goto done;
	f.root = root;
	f.dest = dest;
	mpsfix_walk(root, find_fallback, &f);
done:
	mpsfix_literal_release(&lit);
	mpsfix_argparse_release(&a);
	mpsfix_buf_release(&f.name);
	free(dest);
	return f.found;
}
