/*
 * rule.c: the rule model and its loader.  A rule file is read into a small
 * YAML tree (yaml_util.c), then every key is checked and turned into the
 * model in the order it is written; checks that tie keys together (which
 * metavariables `where` and `fix` may name) run last.  The first problem
 * stops the load with "PATH:LINE:COL: message".
 */
#include "rule.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "template.h"
#include "yaml_util.h"

#define RULE_FILE_MAX (1024u * 1024u)

/* Where a fix edit was written, for the checks against `match`. */
typedef struct {
	const mpsfix_yaml_node *target; /* the replace/remove value, or NULL */
	const mpsfix_yaml_node *tmpl;   /* the template value, or NULL */
} edit_src;

/* Where a fix case was written. */
typedef struct {
	edit_src *edits;                     /* parallel to the case's edits */
	const mpsfix_yaml_node **when_keys;  /* parallel to the case's `when` */
} case_src;

typedef struct {
	TSParser *parser;
	const mpsfix_yaml_doc *doc;
	mpsfix_rule *rule;
	const mpsfix_yaml_node **where_keys; /* parallel to rule->constraints */
	case_src *case_srcs;                 /* parallel to rule->fix.cases */
	size_t ncase_srcs;
	const mpsfix_yaml_node *signature_key; /* the `signature:` value */
	const mpsfix_yaml_node *inside_key;  /* the `inside:` value */
	const mpsfix_yaml_node *manual_example; /* the first example's `manual` key */
} loader;

const char *mpsfix_severity_name(mpsfix_severity s)
{
	switch (s) {
	case MPSFIX_SEV_ERROR:
		return "error";
	case MPSFIX_SEV_WARNING:
		return "warning";
	case MPSFIX_SEV_INFO:
		return "info";
	}
	return "unknown";
}

static int fail_at(const loader *ld, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(const loader *ld, const mpsfix_yaml_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(const loader *ld, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mpsfix_yaml_vfail_at(ld->doc, line, col, fmt, ap);
	va_end(ap);
	return error;
}

/* Record "PATH:LINE:COL: message" at node `n`. */
static int fail(const loader *ld, const mpsfix_yaml_node *n, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mpsfix_yaml_vfail_at(ld->doc, n->line, n->col, fmt, ap);
	va_end(ap);
	return error;
}

/* Copy the string value of `v` (key `name`) into *out (owned). */
static int get_string(const loader *ld, const char *name, const mpsfix_yaml_node *v, char **out)
{
	if (!mpsfix_yaml_is_string(v))
		return fail(ld, v, "'%s' must be a string", name);
	*out = mpsfix_xstrndup(v->value, v->len);
	return 0;
}

/* --- simple fields ------------------------------------------------------------ */

static bool is_slug(const char *s)
{
	bool prev_dash = true;

	for (; *s; s++) {
		if (*s == '-') {
			if (prev_dash)
				return false;
			prev_dash = true;
		} else if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')) {
			prev_dash = false;
		} else {
			return false;
		}
	}
	return !prev_dash;
}

static bool is_code(const char *s)
{
	return strncmp(s, "MPS", 3) == 0 && isdigit((unsigned char)s[3]) &&
	       isdigit((unsigned char)s[4]) && isdigit((unsigned char)s[5]) && s[6] == '\0';
}


/* A plain scalar YAML or Python reads as None. */
static bool is_none(const mpsfix_yaml_node *n)
{
	return mpsfix_yaml_is_null(n) ||
	       (n->style == MPSFIX_YAML_PLAIN && (strcmp(n->value, "none") == 0 ||
						  strcmp(n->value, "None") == 0));
}

static int load_message(const loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	size_t n;
	int error;

	if ((error = get_string(ld, "message", v, &r->message)) < 0)
		return error;
	n = strlen(r->message);
	while (n > 0 && r->message[n - 1] == '\n')
		r->message[--n] = '\0';
	if (n == 0)
		return fail(ld, v, "'message' must not be empty");
	if (strchr(r->message, '\n'))
		return fail(ld, v, "'message' must be one line (put details in 'note')");
	return 0;
}

/* --- match ---------------------------------------------------------------------- */

static int compile_pattern(const loader *ld, const char *key, const mpsfix_yaml_node *v,
			   mpsfix_pattern **out)
{
	uint32_t off = 0, line, col;

	if (!mpsfix_yaml_is_string(v))
		return fail(ld, v, "'%s' must be a pattern or a list of patterns", key);
	if (mpsfix_pattern_compile(out, ld->parser, v->value, v->len, &off) < 0) {
		mpsfix_yaml_position(ld->doc, v, off, &line, &col);
		return fail_at(ld, line, col, "pattern does not parse: %s",
			       mpsfix_error_last()->message);
	}
	return 0;
}

/* A pattern or a list of them (`match`, `inside`, `has`, ...). */
static int load_patterns(const loader *ld, const char *key, const mpsfix_yaml_node *v,
			 mpsfix_pattern ***out, size_t *n)
{
	size_t count = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;
	int error = 0;

	if (v->type == MPSFIX_YAML_MAP)
		return fail(ld, v, "'%s' must be a pattern or a list of patterns", key);
	if (count == 0)
		return fail(ld, v, "'%s' must not be an empty list", key);
	*out = mpsfix_xcalloc(count, sizeof(**out));
	for (size_t i = 0; i < count && error == 0; i++) {
		error = compile_pattern(ld, key, v->type == MPSFIX_YAML_SEQ ? v->items[i] : v,
					&(*out)[i]);
		if (error == 0)
			*n = i + 1;
	}
	return error;
}

static int load_match(const loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	int error = load_patterns(ld, "match", v, &r->patterns, &r->npatterns);

	for (size_t i = 0; i < r->npatterns && error == 0; i++)
		if (mpsfix_pattern_metavar_index(r->patterns[i], "MATCH") >= 0)
			error = fail(ld, v->type == MPSFIX_YAML_SEQ ? v->items[i] : v,
				     "$MATCH names the whole match: it may be used in "
				     "'inside' patterns, not in 'match'");
	return error;
}

/* `inside`/`not-inside`: $MATCH is the match, one node */
static int load_inside(const loader *ld, const char *key, const mpsfix_yaml_node *v,
		       mpsfix_pattern ***out, size_t *n)
{
	int error = load_patterns(ld, key, v, out, n);

	for (size_t i = 0; i < *n && error == 0; i++) {
		int idx = mpsfix_pattern_metavar_index((*out)[i], "MATCH");

		if (idx >= 0 && (*out)[i]->metavars[idx].multi)
			error = fail(ld, v->type == MPSFIX_YAML_SEQ ? v->items[i] : v,
				     "$MATCH stands for the match, one node: write $MATCH, not $$$MATCH");
	}
	return error;
}

/* A top-level module name: a Python identifier. */
static bool is_module_name(const mpsfix_yaml_node *v)
{
	return mpsfix_yaml_is_string(v) && (isalpha((unsigned char)*v->value) || *v->value == '_') &&
	       strspn(v->value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
	       v->len;
}

/* --- where ---------------------------------------------------------------------- */

static bool is_metavar_name(const char *s)
{
	if (!(isupper((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static bool is_param_name(const char *s)
{
	if (!(islower((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* a name of underscores and digits (`_1`) is a metavariable */
bool mpsfix_rule_is_param(const char *name)
{
	return is_param_name(name) && !is_metavar_name(name);
}

/* A `value:` literal, typed by the scalar's style (quoted = string). */
static int parse_literal(const loader *ld, const mpsfix_yaml_node *v, mpsfix_literal *out)
{
	*out = (mpsfix_literal){.type = MPSFIX_LIT_STRING};
	if (v->type != MPSFIX_YAML_SCALAR)
		return fail(ld, v, "'value' must be a literal or a list of literals");
	if (mpsfix_yaml_bool(v, &out->b)) {
		out->type = MPSFIX_LIT_BOOL;
	} else if (is_none(v)) {
		*out = (mpsfix_literal){.type = MPSFIX_LIT_NONE};
	} else if (mpsfix_yaml_number(v, &out->num)) {
		out->type = MPSFIX_LIT_NUMBER;
	} else {
		out->s = mpsfix_xstrndup(v->value, v->len);
		out->slen = v->len;
	}
	return 0;
}

/* `value:` / `not-value:`: a literal or a list of literals. */
static int load_values(const loader *ld, const char *key, const mpsfix_yaml_node *v,
		       mpsfix_literal **out, size_t *nout)
{
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;
	int error = 0;

	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return fail(ld, v, "'%s' must be a literal or a list of literals", key);
	*out = mpsfix_xcalloc(n, sizeof(**out));
	for (size_t i = 0; i < n && error == 0; i++) {
		const mpsfix_yaml_node *item = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;

		error = parse_literal(ld, item, &(*out)[i]);
		*nout = i + 1;
	}
	return error;
}

/* `kind:` / `not-kind:`: a node kind or a list of them. */
static int load_kinds(const loader *ld, const char *key, const mpsfix_yaml_node *v,
		      TSSymbol **out, size_t *nout)
{
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;

	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return fail(ld, v, "'%s' must be a node kind or a list of node kinds", key);
	*out = mpsfix_xcalloc(n, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		const mpsfix_yaml_node *k = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;

		if (!mpsfix_yaml_is_string(k))
			return fail(ld, k, "'%s' must be a node kind or a list of node kinds", key);
		if (((*out)[i] = mpsfix_symbol(k->value)) == 0)
			return fail(ld, k, "unknown node kind '%s'", k->value);
		*nout = i + 1;
	}
	return 0;
}

static int load_regex(const loader *ld, const char *name, const mpsfix_yaml_node *v,
		      regex_t *re, bool *has, char **src)
{
	char msg[256];
	size_t at;
	int rc, error;

	if ((error = get_string(ld, name, v, src)) < 0)
		return error;
	if (mpsfix_regex_check(*src, &at) < 0) {
		uint32_t line, col;
		char *why = mpsfix_xstrdup(mpsfix_error_last()->message);

		mpsfix_yaml_position(ld->doc, v, at, &line, &col);
		error = fail_at(ld, line, col, "%s: %s", name, why);
		free(why);
		return error;
	}
	if ((rc = regcomp(re, *src, REG_EXTENDED | REG_NOSUB)) != 0) {
		regerror(rc, re, msg, sizeof(msg));
		return fail(ld, v, "bad regex '%s': %s", *src, msg);
	}
	*has = true;
	return 0;
}

static int load_tristate(const loader *ld, const char *key, const mpsfix_yaml_node *v, int *out)
{
	bool b;

	if (!mpsfix_yaml_bool(v, &b))
		return fail(ld, v, "'%s' must be true or false", key);
	*out = b;
	return 0;
}

static const char *const constraint_names[] = {
	"value", "regex", "not-regex", "kind", "pure", "not-value", "not-kind",
	"absent", "with-item", "pattern", "has", "not-has", "any-of",
};
enum {
	C_VALUE, C_REGEX, C_NOT_REGEX, C_KIND, C_PURE, C_NOT_VALUE, C_NOT_KIND,
	C_ABSENT, C_WITH_ITEM, C_PATTERN, C_HAS, C_NOT_HAS, C_ANY_OF, C_COUNT
};
#define CONSTRAINT_KEYS "value, not-value, regex, not-regex, kind, not-kind, pure, " \
	"absent, with-item, pattern, has, not-has, any-of"

/*
 * The constraints `v` on `name` (as shown in messages: $X, MATCH, dim), in
 * `what` (where/when); `param` when it names a signature parameter.
 */
static int load_constraint(const loader *ld, mpsfix_constraint *c, const char *what,
			   const char *name, bool param, const mpsfix_yaml_node *v, int depth)
{
	mpsfix_yaml_fields f;
	int error = 0;

	c->absent = c->with_item = -1;
	if (depth > 8)
		return fail(ld, v, "'any-of' is nested too deeply");
	if (v->type != MPSFIX_YAML_MAP)
		return fail(ld, v, "the constraints on %s must be a mapping (" CONSTRAINT_KEYS ")",
			    name);
	if (v->nitems == 0)
		return fail(ld, v, "no constraint on %s: give one of " CONSTRAINT_KEYS, name);
	error = mpsfix_yaml_collect(&f, ld->doc, v, what, constraint_names, C_COUNT, 0);
	if (error < 0)
		return error;
	for (size_t i = 0; i < mpsfix_yaml_npairs(v) && error == 0; i++) {
		const mpsfix_yaml_node *val = mpsfix_yaml_value(v, i);
		const char *key = mpsfix_yaml_key(v, i)->value;

		switch (mpsfix_yaml_field_index(constraint_names, C_COUNT, key)) {
		case C_VALUE:
			error = load_values(ld, key, val, &c->values, &c->nvalues);
			break;
		case C_NOT_VALUE:
			error = load_values(ld, key, val, &c->not_values, &c->nnot_values);
			break;
		case C_REGEX:
			error = load_regex(ld, "regex", val, &c->regex, &c->has_regex,
					   &c->regex_src);
			break;
		case C_NOT_REGEX:
			error = load_regex(ld, "not-regex", val, &c->not_regex, &c->has_not_regex,
					   &c->not_regex_src);
			break;
		case C_PURE:
			if (!mpsfix_yaml_bool(val, &c->pure))
				error = fail(ld, val, "'pure' must be true or false");
			else if (depth > 0 && !strcmp(what, "where"))
				/* `where` leaves it to the fix, which sees no alternatives */
				error = fail(ld, mpsfix_yaml_key(v, i), "'pure' in 'where' is checked when "
					     "the fix is written, not as an alternative of 'any-of' "
					     "(test it in a case's 'when')");
			break;
		case C_KIND:
			error = load_kinds(ld, key, val, &c->kinds, &c->nkinds);
			break;
		case C_NOT_KIND:
			error = load_kinds(ld, key, val, &c->not_kinds, &c->nnot_kinds);
			break;
		case C_ABSENT:
			if (!param)
				error = fail(ld, val, "'absent' applies to signature parameters "
					     "(lower-case names), not to %s", name);
			else
				error = load_tristate(ld, key, val, &c->absent);
			break;
		case C_WITH_ITEM:
			error = load_tristate(ld, key, val, &c->with_item);
			break;
		case C_PATTERN:
			error = load_patterns(ld, key, val, &c->is, &c->nis);
			break;
		case C_HAS:
			error = load_patterns(ld, key, val, &c->has, &c->nhas);
			break;
		case C_NOT_HAS:
			error = load_patterns(ld, key, val, &c->not_has, &c->nnot_has);
			break;
		default:
			if (val->type != MPSFIX_YAML_SEQ || val->nitems == 0)
				return fail(ld, val, "'any-of' must be a list of constraint mappings");
			c->any_of = mpsfix_xcalloc(val->nitems, sizeof(*c->any_of));
			for (size_t k = 0; k < val->nitems && error == 0; k++) {
				c->nany_of = k + 1;
				error = load_constraint(ld, &c->any_of[k], what, name, param,
							val->items[k], depth + 1);
			}
			break;
		}
	}
	return error;
}

/*
 * A `where`/`when` mapping: names (METAVAR, a signature parameter in lower
 * case, or MATCH for the whole match) to constraints.  `keys` gets the key
 * nodes, for the checks that run once the whole rule is read.
 */
static int load_constraints(const loader *ld, const char *what, const mpsfix_yaml_node *v,
			    mpsfix_constraint **out, size_t *nout, const mpsfix_yaml_node ***keys)
{
	size_t n;
	int error = 0;

	if (v->type != MPSFIX_YAML_MAP)
		return fail(ld, v, "'%s' must be a mapping from metavariable or parameter "
			    "names to constraints", what);
	n = mpsfix_yaml_npairs(v);
	*out = mpsfix_xcalloc(n, sizeof(**out));
	*keys = mpsfix_xcalloc(n, sizeof(**keys));
	for (size_t i = 0; i < n && error == 0; i++) {
		const mpsfix_yaml_node *k = mpsfix_yaml_key(v, i);
		mpsfix_constraint *c = &(*out)[*nout];
		const char *name = k->value;
		char *shown;

		(*keys)[(*nout)++] = k;
		if (strncmp(name, "$$$", 3) == 0 && is_metavar_name(name + 3))
			return fail(ld, k, "%s binds a list of nodes and cannot be constrained",
				    name);
		if (name[0] == '$' && (is_metavar_name(name + 1) || islower((unsigned char)name[1])))
			return fail(ld, k, "write '%s' keys without '$': '%s'", what, name + 1);
		if (!is_metavar_name(name) && !is_param_name(name))
			return fail(ld, k, "bad name '%s' in '%s' (metavariables are [A-Z_][A-Z0-9_]*, "
				    "signature parameters [a-z_][a-z0-9_]*)", name, what);
		if (strcmp(name, "_") == 0)
			return fail(ld, k, "$_ binds nothing and cannot be constrained");
		c->metavar = mpsfix_xstrdup(name);
		shown = mpsfix_xasprintf("%s%s", is_metavar_name(name) ? "$" : "", name);
		error = load_constraint(ld, c, what, shown, mpsfix_rule_is_param(name),
					mpsfix_yaml_value(v, i), 0);
		free(shown);
	}
	return error;
}

static int load_where(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;

	return load_constraints(ld, "where", v, &r->constraints, &r->nconstraints, &ld->where_keys);
}

/* --- fix -------------------------------------------------------------------------- */

static const char *const edit_names[] = {"replace", "template", "remove", "before-import",
					 "add-argument"};
enum { E_REPLACE, E_TEMPLATE, E_REMOVE, E_BEFORE_IMPORT, E_ADD_ARGUMENT, E_COUNT };
#define EDIT_KEYS "replace, template, remove, before-import, add-argument"

/* A replace/remove target: "$X" (or "X", or a parameter); a multi "$$$X" is refused. */
static int load_target(const loader *ld, const char *what, const mpsfix_yaml_node *v, char **out)
{
	const char *s = v->value;

	if (!mpsfix_yaml_is_string(v))
		return fail(ld, v, "'%s' must name a metavariable, like $X", what);
	if (!strcmp(what, "remove") && !strcmp(s, "match")) {
		*out = NULL; /* the whole match */
		return 0;
	}
	if (strncmp(s, "$$$", 3) == 0 && is_metavar_name(s + 3))
		return fail(ld, v, "'%s' needs a single-node metavariable, not %s", what, s);
	if (*s == '$')
		s++;
	if (!is_metavar_name(s) && !(is_param_name(s) && !strcmp(what, "replace")))
		return fail(ld, v, "'%s' must name a metavariable, like $X%s", what,
			    strcmp(what, "replace") ? "" : ", or a signature parameter");
	if (strcmp(s, "_") == 0)
		return fail(ld, v, "'%s' cannot name $_, which binds nothing", what);
	*out = mpsfix_xstrdup(s);
	return 0;
}

/* The template `tv` of key `key` (template, add-argument). */
static int compile_template(const loader *ld, const char *key, const mpsfix_yaml_node *tv,
			    mpsfix_template **out)
{
	uint32_t off = 0, line, col;

	if (!mpsfix_yaml_is_string(tv))
		return fail(ld, tv, "'%s' must be a string", key);
	if (mpsfix_template_compile(out, ld->parser, tv->value, tv->len, &off) < 0) {
		mpsfix_yaml_position(ld->doc, tv, off, &line, &col);
		return fail_at(ld, line, col, "template does not parse: %s",
			       mpsfix_error_last()->message);
	}
	return 0;
}

/* One edit of case `fc` from its keys; `at` is where it is written. */
static int load_edit(loader *ld, mpsfix_fix_case *fc, edit_src *srcs, const mpsfix_yaml_fields *f,
		     const mpsfix_yaml_node *at)
{
	mpsfix_fix_edit *e = &fc->edits[fc->nedits];
	edit_src *es = &srcs[fc->nedits];
	const mpsfix_yaml_node *tv = f->val[E_TEMPLATE];
	int error;

	if (f->key[E_ADD_ARGUMENT]) {
		for (int j = 0; j < E_COUNT; j++)
			if (j != E_ADD_ARGUMENT && f->key[j])
				return fail(ld, f->key[j], "'add-argument' is its own edit: it cannot be "
					    "combined with '%s'", edit_names[j]);
		tv = f->val[E_ADD_ARGUMENT];
	}
	if (f->key[E_BEFORE_IMPORT] && (f->key[E_REMOVE] || f->key[E_REPLACE]))
		return fail(ld, f->key[E_BEFORE_IMPORT], "'before-import' inserts new lines: it cannot be "
			    "combined with 'replace' or 'remove'");
	if (f->key[E_BEFORE_IMPORT] && !tv)
		return fail(ld, f->key[E_BEFORE_IMPORT], "'before-import' needs a 'template' to insert");
	if (f->key[E_REMOVE] && f->key[E_TEMPLATE])
		return fail(ld, f->key[E_REMOVE], "'remove' cannot be combined with 'template'");
	if (f->key[E_REMOVE] && f->key[E_REPLACE])
		return fail(ld, f->key[E_REMOVE], "'remove' cannot be combined with 'replace'");
	if (!tv && !f->key[E_REMOVE]) {
		if (f->key[E_REPLACE])
			return fail(ld, f->key[E_REPLACE], "'replace' needs a 'template'");
		return fail(ld, at, "an edit needs a 'template', a 'remove' or an 'add-argument'");
	}
	fc->nedits++;
	*e = (mpsfix_fix_edit){
		.op = f->key[E_ADD_ARGUMENT] ? MPSFIX_FIX_ADD_ARGUMENT
		      : f->key[E_BEFORE_IMPORT] ? MPSFIX_FIX_INSERT
		      : tv ? MPSFIX_FIX_REPLACE : MPSFIX_FIX_REMOVE,
		.line = at->line,
		.col = at->col,
	};
	if (f->val[E_BEFORE_IMPORT]) {
		const mpsfix_yaml_node *mv = f->val[E_BEFORE_IMPORT];

		if (!is_module_name(mv))
			return fail(ld, mv, "'before-import' names a top-level module, like torch");
		e->module = mpsfix_xstrdup(mv->value);
	}
	if (f->val[E_REMOVE]) {
		es->target = f->val[E_REMOVE];
		return load_target(ld, "remove", es->target, &e->target);
	}
	if (f->val[E_REPLACE]) {
		es->target = f->val[E_REPLACE];
		if ((error = load_target(ld, "replace", es->target, &e->target)) < 0)
			return error;
	}
	es->tmpl = tv;
	return compile_template(ld, f->key[E_ADD_ARGUMENT] ? "add-argument" : "template", tv, &e->tmpl);
}

static int load_edits(loader *ld, mpsfix_fix_case *fc, case_src *cs, const mpsfix_yaml_node *v)
{
	int error = 0;

	if (v->type != MPSFIX_YAML_SEQ)
		return fail(ld, v, "'edits' must be a list of edits");
	if (v->nitems == 0)
		return fail(ld, v, "'edits' must not be empty");
	fc->edits = mpsfix_xcalloc(v->nitems, sizeof(*fc->edits));
	cs->edits = mpsfix_xcalloc(v->nitems, sizeof(*cs->edits));
	for (size_t i = 0; i < v->nitems && error == 0; i++) {
		const mpsfix_yaml_node *item = v->items[i];
		mpsfix_yaml_fields f;
		const mpsfix_fix_edit *last;

		if (item->type != MPSFIX_YAML_MAP)
			return fail(ld, item, "each edit must be a mapping (" EDIT_KEYS ")");
		error = mpsfix_yaml_collect(&f, ld->doc, item, "edits", edit_names, E_COUNT, 0);
		if (error < 0)
			return error;
		error = load_edit(ld, fc, cs->edits, &f, item);
		last = &fc->edits[fc->nedits - 1];
		if (error == 0 && v->nitems > 1 && !last->target && last->op == MPSFIX_FIX_REPLACE)
			return fail(ld, item, "an edit that replaces the whole match cannot "
				    "be combined with other edits (they would overlap); give it a 'replace' target");
	}
	return error;
}

/* the first ones as in edit_names, so that a shorthand fix or case is an edit */
static const char *const case_names[] = {"replace", "template", "remove", "before-import",
					 "add-argument", "edits", "when", "manual"};
enum { K_EDITS = E_COUNT, K_WHEN, K_MANUAL, K_COUNT };

/* One case: `when`, then `manual` or edits.  `v` is its mapping. */
static int load_case(loader *ld, const mpsfix_yaml_fields *f, const mpsfix_yaml_node *v,
		     bool in_cases)
{
	mpsfix_fix *fix = &ld->rule->fix;
	mpsfix_fix_case *fc = &fix->cases[fix->ncases];
	case_src *cs = &ld->case_srcs[fix->ncases];
	bool has_edit = false;
	int error;

	fix->ncases++;
	fc->line = v->line;
	fc->col = v->col;
	if (f->key[K_WHEN] && !in_cases)
		return fail(ld, f->key[K_WHEN], "'when' belongs to an item of 'cases'");
	if (f->key[K_MANUAL] && !in_cases)
		return fail(ld, f->key[K_MANUAL], "'manual' belongs to an item of 'cases'");
	if (f->val[K_WHEN] && f->val[K_WHEN]->type == MPSFIX_YAML_MAP &&
	    !mpsfix_yaml_npairs(f->val[K_WHEN]))
		return fail(ld, f->val[K_WHEN], "'when' is empty: name what it checks, or leave "
			    "it out (in the last case)");
	if (f->val[K_WHEN] &&
	    (error = load_constraints(ld, "when", f->val[K_WHEN], &fc->when, &fc->nwhen,
				      &cs->when_keys)) < 0)
		return error;
	for (int j = 0; j < E_COUNT; j++)
		has_edit |= f->key[j] != NULL;
	if (f->key[K_MANUAL]) {
		if (has_edit || f->key[K_EDITS])
			return fail(ld, f->key[K_MANUAL], "a case with 'manual' has no edits: it says "
				    "why this form needs a manual fix");
		if ((error = get_string(ld, "manual", f->val[K_MANUAL], &fc->manual)) < 0)
			return error;
		if (!*fc->manual)
			return fail(ld, f->val[K_MANUAL], "'manual' must give the reason");
		return 0;
	}
	if (f->key[K_EDITS]) {
		for (int j = 0; j < E_COUNT; j++)
			if (f->key[j])
				return fail(ld, f->key[j], "'%s' cannot be combined with "
					    "'edits' (put it in an edit)", edit_names[j]);
		return load_edits(ld, fc, cs, f->val[K_EDITS]);
	}
	if (!has_edit)
		return fail(ld, v, in_cases ? "a case needs a 'template', a 'remove', an "
			    "'add-argument', 'edits' or 'manual'"
			    : "'fix' has no edit: give a 'template', a 'remove', an 'add-argument', "
			    "'edits' or 'cases'");
	fc->edits = mpsfix_xcalloc(1, sizeof(*fc->edits));
	cs->edits = mpsfix_xcalloc(1, sizeof(*cs->edits));
	return load_edit(ld, fc, cs->edits, f,
			 f->val[E_TEMPLATE] ? f->val[E_TEMPLATE]
			 : f->val[E_ADD_ARGUMENT] ? f->val[E_ADD_ARGUMENT]
			 : f->val[E_REMOVE] ? f->val[E_REMOVE] : v);
}

static const char *const fix_names[] = {"replace", "template", "remove", "before-import",
					"add-argument", "edits", "when", "manual", "safety", "cases"};
enum { F_SAFETY = K_COUNT, F_CASES, F_COUNT };

static int load_fix(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_fix *fix = &ld->rule->fix;
	const mpsfix_yaml_node *safety, *cases;
	mpsfix_yaml_fields f;
	int error = 0;

	if (v->type != MPSFIX_YAML_MAP)
		return fail(ld, v, "'fix' must be a mapping");
	if (v->nitems == 0)
		return fail(ld, v, "'fix' is empty: give 'safety' and a 'template', "
			    "a 'remove', 'edits' or 'cases'");
	error = mpsfix_yaml_collect(&f, ld->doc, v, "fix", fix_names, F_COUNT, 1u << F_SAFETY);
	if (error < 0)
		return error;
	fix->present = true;
	safety = f.val[F_SAFETY];
	if (mpsfix_yaml_is_string(safety) && strcmp(safety->value, "unsafe") == 0)
		fix->unsafe = true;
	else if (!mpsfix_yaml_is_string(safety) || strcmp(safety->value, "safe") != 0)
		return fail(ld, safety, "bad safety '%s': expected safe or unsafe",
			    safety->type == MPSFIX_YAML_SCALAR ? safety->value : "...");
	if (!(cases = f.val[F_CASES])) {
		fix->cases = mpsfix_xcalloc(1, sizeof(*fix->cases));
		ld->case_srcs = mpsfix_xcalloc(1, sizeof(*ld->case_srcs));
		ld->ncase_srcs = 1;
		return load_case(ld, &f, v, false);
	}
	for (int j = 0; j < F_SAFETY; j++)
		if (f.key[j])
			return fail(ld, f.key[j], "'%s' cannot be combined with 'cases' "
				    "(put it in a case)", fix_names[j]);
	if (cases->type != MPSFIX_YAML_SEQ || cases->nitems == 0)
		return fail(ld, cases, "'cases' must be a list of cases, each with an optional "
			    "'when' and the edits or 'manual'");
	fix->cases = mpsfix_xcalloc(cases->nitems, sizeof(*fix->cases));
	ld->case_srcs = mpsfix_xcalloc(cases->nitems, sizeof(*ld->case_srcs));
	ld->ncase_srcs = cases->nitems;
	for (size_t i = 0; i < cases->nitems && error == 0; i++) {
		const mpsfix_yaml_node *item = cases->items[i];
		mpsfix_yaml_fields cf;

		if (item->type != MPSFIX_YAML_MAP)
			return fail(ld, item, "each case must be a mapping (when, manual, edits, "
				    EDIT_KEYS ")");
		error = mpsfix_yaml_collect(&cf, ld->doc, item, "cases", case_names, K_COUNT, 0);
		if (error == 0)
			error = load_case(ld, &cf, item, true);
		if (error == 0 && i + 1 < cases->nitems && !fix->cases[i].nwhen)
			return fail(ld, item, "only the last case may leave out 'when': "
				    "the cases after this one could never be used");
	}
	return error;
}

/* --- examples ------------------------------------------------------------------ */

static void set_text(char **out, size_t *out_len, const mpsfix_yaml_node *v)
{
	*out = mpsfix_xstrndup(v->value, v->len);
	*out_len = v->len;
}

static const char *const example_names[] = {"input", "output", "manual"};

static int load_invalid(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	int error;

	if (v->type != MPSFIX_YAML_SEQ)
		return fail(ld, v, "'invalid' must be a list of examples");
	r->invalid = mpsfix_xcalloc(v->nitems, sizeof(*r->invalid));
	for (size_t i = 0; i < v->nitems; i++) {
		const mpsfix_yaml_node *item = v->items[i];
		mpsfix_example *ex = &r->invalid[r->ninvalid];
		mpsfix_yaml_fields f;

		if (item->type != MPSFIX_YAML_MAP)
			return fail(ld, item, "each 'invalid' example must be a mapping "
				    "with 'input' and 'output'");
		error = mpsfix_yaml_collect(&f, ld->doc, item, "invalid", example_names, 3, 1u);
		if (error < 0)
			return error;
		if (!mpsfix_yaml_is_string(f.val[0]))
			return fail(ld, f.val[0], "'input' must be a string");
		if (f.val[1] && !mpsfix_yaml_is_string(f.val[1]))
			return fail(ld, f.val[1], "'output' must be a string");
		if (f.val[2] && (!mpsfix_yaml_is_string(f.val[2]) || !f.val[2]->len))
			return fail(ld, f.val[2], "'manual' must be a string: part of the reason "
				    "the fix is not applied");
		if (f.val[1] && f.val[2])
			return fail(ld, f.key[2], "an example with 'manual' is not fixed: "
				    "it has no 'output'");
		r->ninvalid++;
		ex->line = item->line;
		set_text(&ex->input, &ex->input_len, f.val[0]);
		if (f.val[1])
			set_text(&ex->output, &ex->output_len, f.val[1]);
		if (f.val[2]) {
			ex->manual = mpsfix_xstrndup(f.val[2]->value, f.val[2]->len);
			if (!ld->manual_example)
				ld->manual_example = f.key[2];
		}
	}
	return 0;
}

static int load_valid(const loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;

	if (v->type != MPSFIX_YAML_SEQ)
		return fail(ld, v, "'valid' must be a list of strings");
	r->valid = mpsfix_xcalloc(v->nitems, sizeof(*r->valid));
	for (size_t i = 0; i < v->nitems; i++) {
		const mpsfix_yaml_node *item = v->items[i];
		mpsfix_example *ex = &r->valid[r->nvalid];

		if (!mpsfix_yaml_is_string(item))
			return fail(ld, item, "each 'valid' example must be a string");
		r->nvalid++;
		ex->line = item->line;
		set_text(&ex->input, &ex->input_len, item);
	}
	return 0;
}

static const char *const examples_names[] = {"invalid", "valid"};

static int load_examples(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_yaml_fields f;
	int error;

	if (v->type != MPSFIX_YAML_MAP)
		return fail(ld, v, "'examples' must be a mapping with 'invalid' and 'valid' "
			    "lists");
	error = mpsfix_yaml_collect(&f, ld->doc, v, "examples", examples_names, 2, 0);
	if (error < 0)
		return error;
	for (size_t i = 0; i < mpsfix_yaml_npairs(v) && error == 0; i++) {
		const mpsfix_yaml_node *val = mpsfix_yaml_value(v, i);

		if (strcmp(mpsfix_yaml_key(v, i)->value, "invalid") == 0)
			error = load_invalid(ld, val);
		else
			error = load_valid(ld, val);
	}
	return error;
}

/* --- signature ----------------------------------------------------------------- */

static int load_signature(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_signature *sig = &ld->rule->signature;
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;

	ld->signature_key = v;
	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return fail(ld, v, "'signature' must be a parameter list like 'f(x, dim=None)', "
			    "or a list of them (overloads)");
	sig->items = mpsfix_xcalloc(n, sizeof(*sig->items));
	for (size_t i = 0; i < n; i++) {
		const mpsfix_yaml_node *item = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;
		uint32_t off = 0, line, col;

		if (!mpsfix_yaml_is_string(item))
			return fail(ld, item, "'signature' must be a parameter list like 'f(x, dim=None)', "
				    "or a list of them (overloads)");
		if (mpsfix_overload_parse(&sig->items[i], ld->parser, item->value, item->len, &off) < 0) {
			mpsfix_yaml_position(ld->doc, item, off, &line, &col);
			return fail_at(ld, line, col, "bad signature: %s", mpsfix_error_last()->message);
		}
		sig->len = i + 1;
	}
	return 0;
}

/* --- checks across keys ------------------------------------------------------- */

/* Is `name` the *args or **kwargs of some overload?  No argument is bound to it. */
static bool var_param(const mpsfix_signature *sig, const char *name)
{
	for (size_t i = 0; i < sig->len; i++)
		for (size_t k = 0; k < sig->items[i].nparams; k++)
			if (!strcmp(sig->items[i].params[k].name, name) &&
			    (sig->items[i].params[k].kind == MPSFIX_PARAM_VARARGS ||
			     sig->items[i].params[k].kind == MPSFIX_PARAM_VARKW))
				return true;
	return false;
}

/* A metavariable the fix uses (a target when `target` names the key). */
static int check_use(const loader *ld, uint32_t line, uint32_t col, const char *name,
		     bool multi, const char *target)
{
	const mpsfix_rule *r = ld->rule;
	const char *mark = multi ? "$$$" : "$";

	if (strcmp(name, "_") == 0)
		return fail_at(ld, line, col, "a fix cannot use %s_, which binds nothing", mark);
	if (mpsfix_rule_is_param(name)) {
		if (!r->signature.len)
			return fail_at(ld, line, col, "fix names $%s: lower-case names are parameters "
				       "of the rule's 'signature', and it has none", name);
		if (!mpsfix_signature_has_param(&r->signature, name))
			return fail_at(ld, line, col, "fix names $%s, which is not a parameter of the "
				       "rule's signature", name);
		if (var_param(&r->signature, name))
			return fail_at(ld, line, col, "fix names $%s, a *args or **kwargs parameter: "
				       "no argument is bound to it", name);
		if (multi || target)
			return fail_at(ld, line, col, "a signature parameter is used as $%s in a "
				       "template, not as $$$%s or a replace/remove target", name, name);
		return 0;
	}
	for (size_t j = 0; j < r->npatterns; j++) {
		int idx = mpsfix_pattern_metavar_index(r->patterns[j], name);
		bool pm;

		if (idx < 0)
			return fail_at(ld, line, col,
				       "fix names %s%s, which pattern %zu does not bind",
				       mark, name, j + 1);
		pm = r->patterns[j]->metavars[idx].multi;
		if (target && pm)
			return fail_at(ld, line, col,
				       "'%s' needs a single-node metavariable, "
				       "but pattern %zu binds $$$%s", target, j + 1, name);
		if (!target && multi && !pm)
			return fail_at(ld, line, col,
				       "fix uses $$$%s, but pattern %zu binds $%s to one node",
				       name, j + 1, name);
		if (!target && !multi && pm)
			return fail_at(ld, line, col,
				       "fix uses $%s, but pattern %zu binds $$$%s "
				       "to a list of nodes", name, j + 1, name);
	}
	return 0;
}

/* Is metavariable `name` bound by some pattern of the list? (-1 no, 0 one node, 1 a list) */
static int bound_in(mpsfix_pattern *const *ps, size_t n, const char *name)
{
	int kind = -1;

	for (size_t j = 0; j < n; j++) {
		int idx = mpsfix_pattern_metavar_index(ps[j], name);

		if (idx >= 0 && (kind = ps[j]->metavars[idx].multi) == 1)
			return 1;
	}
	return kind;
}

/* A `where`/`when` key: something the match binds. */
static int check_constrained(const loader *ld, const mpsfix_yaml_node *key, const char *name,
			     const char *what)
{
	const mpsfix_rule *r = ld->rule;
	int in_match, in_inside;

	if (!strcmp(name, "MATCH"))
		return 0;
	if (mpsfix_rule_is_param(name)) {
		if (!r->signature.len)
			return fail(ld, key, "'%s' names %s: lower-case names are parameters of the "
				    "rule's 'signature', and it has none", what, name);
		if (!mpsfix_signature_has_param(&r->signature, name))
			return fail(ld, key, "'%s' names %s, which is not a parameter of the "
				    "rule's signature", what, name);
		if (var_param(&r->signature, name))
			return fail(ld, key, "'%s' names %s, a *args or **kwargs parameter: no "
				    "argument is bound to it", what, name);
		return 0;
	}
	in_match = bound_in(r->patterns, r->npatterns, name);
	in_inside = bound_in(r->inside, r->ninside, name);
	if (in_match == 1 || in_inside == 1)
		return fail(ld, key, "$$$%s binds a list of nodes and cannot be constrained", name);
	if (in_match < 0 && (in_inside < 0 || strcmp(what, "where")))
		return fail(ld, key, "'%s' names $%s, which no pattern binds", what, name);
	return 0;
}

static int check_case(const loader *ld, const mpsfix_fix_case *fc, const case_src *cs)
{
	int error;

	for (size_t k = 0; k < fc->nwhen; k++)
		if ((error = check_constrained(ld, cs->when_keys[k], fc->when[k].metavar, "when")) < 0)
			return error;
	for (size_t i = 0; i < fc->nedits; i++) {
		const mpsfix_fix_edit *e = &fc->edits[i];
		const edit_src *es = &cs->edits[i];

		if (e->target && mpsfix_rule_is_param(e->target)) {
			if ((error = check_constrained(ld, es->target, e->target, "replace")) < 0)
				return error;
		} else if (e->target &&
			   (error = check_use(ld, es->target->line, es->target->col, e->target, false,
					      e->op == MPSFIX_FIX_REMOVE ? "remove" : "replace")) < 0) {
			return error;
		}
		for (size_t u = 0; e->tmpl && u < mpsfix_template_metavar_count(e->tmpl); u++) {
			bool multi = false;
			uint32_t off = 0, line, col;
			const char *name = mpsfix_template_metavar(e->tmpl, u, &multi, &off);

			mpsfix_yaml_position(ld->doc, es->tmpl, off, &line, &col);
			if ((error = check_use(ld, line, col, name, multi, NULL)) < 0)
				return error;
		}
	}
	return 0;
}

static int check_names(const loader *ld)
{
	const mpsfix_rule *r = ld->rule;
	int error;

	for (size_t j = 0; r->signature.len && j < r->npatterns; j++)
		if (r->patterns[j]->root->kind != MPSFIX_PN_NODE ||
		    r->patterns[j]->root->symbol != mpsfix_symbol("call"))
			return fail(ld, ld->signature_key, "a rule with a 'signature' must match calls, "
				    "but pattern %zu is not a call", j + 1);
	for (size_t k = 0; k < r->nconstraints; k++)
		if ((error = check_constrained(ld, ld->where_keys[k], r->constraints[k].metavar,
					       "where")) < 0)
			return error;
	for (size_t c = 0; c < r->fix.ncases; c++)
		if ((error = check_case(ld, &r->fix.cases[c], &ld->case_srcs[c])) < 0)
			return error;
	if (ld->manual_example && !r->fix.present)
		return fail(ld, ld->manual_example, "an example with 'manual' expects a manual fix, "
			    "but the rule has no 'fix'");
	return 0;
}

/* Hang every constraint on each pattern's metavariable of that name. */
static void attach(mpsfix_pattern *const *ps, size_t n, const mpsfix_constraint *c)
{
	for (size_t j = 0; j < n; j++) {
		int idx = mpsfix_pattern_metavar_index(ps[j], c->metavar);

		if (idx >= 0)
			ps[j]->metavars[idx].constraint = c;
	}
}

static void attach_constraints(mpsfix_rule *r)
{
	for (size_t k = 0; k < r->nconstraints; k++) {
		attach(r->patterns, r->npatterns, &r->constraints[k]);
		attach(r->inside, r->ninside, &r->constraints[k]);
	}
}

/* --- the rule ------------------------------------------------------------------ */

static const char *const rule_names[] = {
	"id", "code", "severity", "message", "note", "url",
	"torch", "enabled", "match", "where", "fix", "examples", "signature",
	"inside", "not-inside", "after-import",
};
enum {
	R_ID, R_CODE, R_SEVERITY, R_MESSAGE, R_NOTE, R_URL,
	R_TORCH, R_ENABLED, R_MATCH, R_WHERE, R_FIX, R_EXAMPLES, R_SIGNATURE,
	R_INSIDE, R_NOT_INSIDE, R_AFTER_IMPORT, R_COUNT
};
#define R_REQUIRED ((1u << R_ID) | (1u << R_CODE) | (1u << R_SEVERITY) | (1u << R_MESSAGE) | \
		    (1u << R_TORCH) | (1u << R_MATCH))

static int load_field(loader *ld, size_t j, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	static const char *const sev[] = {"error", "warning", "info"};
	int error;

	switch (j) {
	case R_ID:
		if ((error = get_string(ld, "id", v, &r->id)) == 0 && !is_slug(r->id))
			error = fail(ld, v, "bad id '%s': use lowercase letters, digits "
				     "and single dashes", r->id);
		return error;
	case R_CODE:
		if ((error = get_string(ld, "code", v, &r->code)) == 0 && !is_code(r->code))
			error = fail(ld, v, "bad code '%s': expected MPS and three "
				     "digits, like MPS006", r->code);
		return error;
	case R_SEVERITY:
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(sev); i++) {
			if (mpsfix_yaml_is_string(v) && strcmp(v->value, sev[i]) == 0) {
				r->severity = (mpsfix_severity)i;
				return 0;
			}
		}
		return fail(ld, v, "bad severity '%s': expected error, warning or info",
			    v->type == MPSFIX_YAML_SCALAR ? v->value : "...");
	case R_MESSAGE:
		return load_message(ld, v);
	case R_NOTE:
		return get_string(ld, "note", v, &r->note);
	case R_URL:
		return get_string(ld, "url", v, &r->url);
	case R_TORCH:
		if ((error = get_string(ld, "torch", v, &r->torch)) < 0)
			return error;
		if (mpsfix_torch_range_parse(&r->range, r->torch, strlen(r->torch),
					     MPSFIX_TORCH_SYNTAX_RULE) < 0) {
			char reason[MPSFIX_ERROR_MAX];

			snprintf(reason, sizeof(reason), "%s", mpsfix_error_last()->message);
			return fail(ld, v, "bad torch range '%s': %s", r->torch, reason);
		}
		return 0;
	case R_ENABLED:
		if (!mpsfix_yaml_bool(v, &r->enabled))
			return fail(ld, v, "'enabled' must be true or false");
		return 0;
	case R_MATCH:
		return load_match(ld, v);
	case R_WHERE:
		return load_where(ld, v);
	case R_FIX:
		return load_fix(ld, v);
	case R_SIGNATURE:
		return load_signature(ld, v);
	case R_INSIDE:
		ld->inside_key = v;
		return load_inside(ld, "inside", v, &r->inside, &r->ninside);
	case R_NOT_INSIDE:
		return load_inside(ld, "not-inside", v, &r->not_inside, &r->nnot_inside);
	case R_AFTER_IMPORT:
		if ((error = get_string(ld, "after-import", v, &r->after_import)) == 0 &&
		    !is_module_name(v))
			error = fail(ld, v, "'after-import' names a top-level module, like torch");
		return error;
	default:
		return load_examples(ld, v);
	}
}

static int load_rule(loader *ld, const mpsfix_yaml_node *root)
{
	mpsfix_yaml_fields f;
	int error = 0;

	if (!root)
		return fail_at(ld, 1, 1, "the file is empty; a rule is a mapping with id, code, "
			       "severity, message, torch and match");
	if (root->type != MPSFIX_YAML_MAP)
		return fail(ld, root, "a rule must be a mapping of keys (id, code, severity, "
			    "message, torch, match, ...)");
	/* unknown keys first, then each value in order, then what is missing */
	if ((error = mpsfix_yaml_collect(&f, ld->doc, root, NULL, rule_names, R_COUNT, 0)) < 0)
		return error;
	for (size_t i = 0; i < mpsfix_yaml_npairs(root); i++) {
		const char *key = mpsfix_yaml_key(root, i)->value;

		error = load_field(ld, mpsfix_yaml_field_index(rule_names, R_COUNT, key),
				   mpsfix_yaml_value(root, i));
		if (error < 0)
			return error;
	}
	error = mpsfix_yaml_require(&f, ld->doc, root, NULL, rule_names, R_COUNT, R_REQUIRED);
	if (error == 0 && (error = check_names(ld)) == 0)
		attach_constraints(ld->rule);
	return error;
}

int mpsfix_rule_load_buffer(mpsfix_rule **out, TSParser *parser, const char *path,
			    const char *data, size_t len)
{
	mpsfix_yaml_doc doc = MPSFIX_YAML_DOC_INIT;
	loader ld = {.parser = parser, .doc = &doc};
	mpsfix_rule *r = NULL;
	int error;

	*out = NULL;
	if (len > RULE_FILE_MAX)
		return mpsfix_error_set(MPSFIX_ERROR, "%s: the file is larger than %u KiB", path,
					RULE_FILE_MAX / 1024);
	if ((error = mpsfix_yaml_load(&doc, path, data, len)) < 0)
		goto done;
	r = mpsfix_xcalloc(1, sizeof(*r));
	r->path = mpsfix_xstrdup(path);
	r->enabled = true;
	ld.rule = r;
	if ((error = load_rule(&ld, doc.root)) < 0)
		goto done;
	*out = r;
	r = NULL;
done:
	mpsfix_rule_free(r);
	free(ld.where_keys);
	for (size_t i = 0; i < ld.ncase_srcs; i++) {
		free(ld.case_srcs[i].edits);
		free(ld.case_srcs[i].when_keys);
	}
	free(ld.case_srcs);
	mpsfix_yaml_release(&doc);
	return error;
}

int mpsfix_rule_load_file(mpsfix_rule **out, TSParser *parser, const char *path)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error;

	*out = NULL;
	if ((error = mpsfix_yaml_read_file(&b, path, RULE_FILE_MAX)) == 0)
		error = mpsfix_rule_load_buffer(out, parser, path, b.data ? b.data : "", b.len);
	mpsfix_buf_release(&b);
	return error;
}

void mpsfix_rule_free(mpsfix_rule *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->id);
	free(r->code);
	free(r->message);
	free(r->note);
	free(r->url);
	free(r->torch);
	for (size_t i = 0; i < r->npatterns; i++)
		mpsfix_pattern_free(r->patterns[i]);
	free(r->patterns);
	for (size_t i = 0; i < r->nconstraints; i++)
		mpsfix_constraint_release(&r->constraints[i]);
	free(r->constraints);
	mpsfix_signature_release(&r->signature);
	for (size_t i = 0; i < r->ninside; i++)
		mpsfix_pattern_free(r->inside[i]);
	free(r->inside);
	for (size_t i = 0; i < r->nnot_inside; i++)
		mpsfix_pattern_free(r->not_inside[i]);
	free(r->not_inside);
	free(r->after_import);
	for (size_t c = 0; c < r->fix.ncases; c++) {
		mpsfix_fix_case *fc = &r->fix.cases[c];

		for (size_t i = 0; i < fc->nwhen; i++)
			mpsfix_constraint_release(&fc->when[i]);
		free(fc->when);
		free(fc->manual);
		for (size_t i = 0; i < fc->nedits; i++) {
			free(fc->edits[i].target);
			free(fc->edits[i].module);
			mpsfix_template_free(fc->edits[i].tmpl);
		}
		free(fc->edits);
	}
	free(r->fix.cases);
	for (size_t i = 0; i < r->ninvalid; i++) {
		free(r->invalid[i].input);
		free(r->invalid[i].output);
		free(r->invalid[i].manual);
	}
	free(r->invalid);
	for (size_t i = 0; i < r->nvalid; i++)
		free(r->valid[i].input);
	free(r->valid);
	free(r);
}
