/*
 * rule_load.c: the rule loader.  A rule file is read into a small YAML tree
 * (yaml_util.c), then every key is checked and turned into the model in the
 * order it is written (`fix:` in rule_load_fix.c); checks that tie keys
 * together (which metavariables `where` and `fix` may name) run last
 * (rule_check.c).  The first problem stops the load with
 * "PATH:LINE:COL: message".
 */
#include "rule.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "rule_internal.h"
#include "yaml_util.h"

#define RULE_FILE_MAX (1024u * 1024u)

int mpsfix_rule__fail_at(const mpsfix_rule_loader *ld, uint32_t line, uint32_t col,
			 const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mpsfix_yaml_vfail_at(ld->doc, line, col, fmt, ap);
	va_end(ap);
	return error;
}

/* Record "PATH:LINE:COL: message" at node `n`. */
int mpsfix_rule__fail(const mpsfix_rule_loader *ld, const mpsfix_yaml_node *n, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mpsfix_yaml_vfail_at(ld->doc, n->line, n->col, fmt, ap);
	va_end(ap);
	return error;
}

/* Copy the string value of `v` (key `name`) into *out (owned). */
int mpsfix_rule__get_string(const mpsfix_rule_loader *ld, const char *name,
			    const mpsfix_yaml_node *v, char **out)
{
	if (!mpsfix_yaml_is_string(v))
		return mpsfix_rule__fail(ld, v, "'%s' must be a string", name);
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

static int load_message(const mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	size_t n;
	int error;

	if ((error = mpsfix_rule__get_string(ld, "message", v, &r->message)) < 0)
		return error;
	n = strlen(r->message);
	while (n > 0 && r->message[n - 1] == '\n')
		r->message[--n] = '\0';
	if (n == 0)
		return mpsfix_rule__fail(ld, v, "'message' must not be empty");
	if (strchr(r->message, '\n'))
		return mpsfix_rule__fail(ld, v, "'message' must be one line (put details in 'note')");
	return 0;
}

/* --- match ---------------------------------------------------------------------- */

static int compile_pattern(const mpsfix_rule_loader *ld, const char *key, const mpsfix_yaml_node *v,
			   mpsfix_pattern **out)
{
	uint32_t off = 0, line, col;

	if (!mpsfix_yaml_is_string(v))
		return mpsfix_rule__fail(ld, v, "'%s' must be a pattern or a list of patterns", key);
	if (mpsfix_pattern_compile(out, ld->parser, v->value, v->len, &off) < 0) {
		mpsfix_yaml_position(ld->doc, v, off, &line, &col);
		return mpsfix_rule__fail_at(ld, line, col, "pattern does not parse: %s",
					    mpsfix_error_last()->message);
	}
	return 0;
}

/* A pattern or a list of them (`match`, `inside`, `has`, ...). */
static int load_patterns(const mpsfix_rule_loader *ld, const char *key, const mpsfix_yaml_node *v,
			 mpsfix_pattern ***out, size_t *n)
{
	size_t count = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;
	int error = 0;

	if (v->type == MPSFIX_YAML_MAP)
		return mpsfix_rule__fail(ld, v, "'%s' must be a pattern or a list of patterns", key);
	if (count == 0)
		return mpsfix_rule__fail(ld, v, "'%s' must not be an empty list", key);
	*out = mpsfix_xcalloc(count, sizeof(**out));
	for (size_t i = 0; i < count && error == 0; i++) {
		error = compile_pattern(ld, key, v->type == MPSFIX_YAML_SEQ ? v->items[i] : v,
					&(*out)[i]);
		if (error == 0)
			*n = i + 1;
	}
	return error;
}

static int load_match(const mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	int error = load_patterns(ld, "match", v, &r->patterns, &r->npatterns);

	for (size_t i = 0; i < r->npatterns && error == 0; i++)
		if (mpsfix_pattern_metavar_index(r->patterns[i], "MATCH") >= 0)
			error = mpsfix_rule__fail(ld, v->type == MPSFIX_YAML_SEQ ? v->items[i] : v,
						  "$MATCH names the whole match: it may be used in "
						  "'inside' patterns, not in 'match'");
	return error;
}

/* `inside`/`not-inside`: $MATCH is the match, one node */
static int load_inside(const mpsfix_rule_loader *ld, const char *key, const mpsfix_yaml_node *v,
		       mpsfix_pattern ***out, size_t *n)
{
	int error = load_patterns(ld, key, v, out, n);

	for (size_t i = 0; i < *n && error == 0; i++) {
		int idx = mpsfix_pattern_metavar_index((*out)[i], "MATCH");

		if (idx >= 0 && (*out)[i]->metavars[idx].multi)
			error = mpsfix_rule__fail(ld, v->type == MPSFIX_YAML_SEQ ? v->items[i] : v,
							 "$MATCH stands for the match, one node: "
							 "write $MATCH, not $$$MATCH");
	}
	return error;
}

/* A top-level module name: a Python identifier. */
bool mpsfix_rule__is_module_name(const mpsfix_yaml_node *v)
{
	return mpsfix_yaml_is_string(v) && (isalpha((unsigned char)*v->value) || *v->value == '_') &&
	       strspn(v->value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
	       v->len;
}

/* --- where ---------------------------------------------------------------------- */

bool mpsfix_rule__is_metavar_name(const char *s)
{
	if (!(isupper((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

bool mpsfix_rule__is_param_name(const char *s)
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
	return mpsfix_rule__is_param_name(name) && !mpsfix_rule__is_metavar_name(name);
}

/* A `value:` literal, typed by the scalar's style (quoted = string). */
static int parse_literal(const mpsfix_rule_loader *ld, const mpsfix_yaml_node *v,
			 mpsfix_literal *out)
{
	*out = (mpsfix_literal){.type = MPSFIX_LIT_STRING};
	if (v->type != MPSFIX_YAML_SCALAR)
		return mpsfix_rule__fail(ld, v, "'value' must be a literal or a list of literals");
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
static int load_values(const mpsfix_rule_loader *ld, const char *key, const mpsfix_yaml_node *v,
		       mpsfix_literal **out, size_t *nout)
{
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;
	int error = 0;

	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return mpsfix_rule__fail(ld, v, "'%s' must be a literal or a list of literals", key);
	*out = mpsfix_xcalloc(n, sizeof(**out));
	for (size_t i = 0; i < n && error == 0; i++) {
		const mpsfix_yaml_node *item = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;

		error = parse_literal(ld, item, &(*out)[i]);
		*nout = i + 1;
	}
	return error;
}

/* `kind:` / `not-kind:`: a node kind or a list of them. */
static int load_kinds(const mpsfix_rule_loader *ld, const char *key, const mpsfix_yaml_node *v,
		      TSSymbol **out, size_t *nout)
{
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;

	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return mpsfix_rule__fail(ld, v, "'%s' must be a node kind or a list of node kinds", key);
	*out = mpsfix_xcalloc(n, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		const mpsfix_yaml_node *k = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;

		if (!mpsfix_yaml_is_string(k))
			return mpsfix_rule__fail(ld, k, "'%s' must be a node kind or a list of node kinds",
						 key);
		if (((*out)[i] = mpsfix_symbol(k->value)) == 0)
			return mpsfix_rule__fail(ld, k, "unknown node kind '%s'", k->value);
		*nout = i + 1;
	}
	return 0;
}

static int load_regex(const mpsfix_rule_loader *ld, const char *name, const mpsfix_yaml_node *v,
		      mpsfix_regex *re, bool *has, char **src)
{
	char msg[256];
	size_t at;
	int error;

	if ((error = mpsfix_rule__get_string(ld, name, v, src)) < 0)
		return error;
	if (mpsfix_regex_check(*src, &at) < 0) {
		uint32_t line, col;
		char *why = mpsfix_xstrdup(mpsfix_error_last()->message);

		mpsfix_yaml_position(ld->doc, v, at, &line, &col);
		error = mpsfix_rule__fail_at(ld, line, col, "%s: %s", name, why);
		free(why);
		return error;
	}
	if (mpsfix_regex_compile(re, *src, msg, sizeof(msg)) < 0)
		return mpsfix_rule__fail(ld, v, "bad regex '%s': %s", *src, msg);
	*has = true;
	return 0;
}

static int load_tristate(const mpsfix_rule_loader *ld, const char *key, const mpsfix_yaml_node *v,
			 int *out)
{
	bool b;

	if (!mpsfix_yaml_bool(v, &b))
		return mpsfix_rule__fail(ld, v, "'%s' must be true or false", key);
	*out = b;
	return 0;
}

static const char *const constraint_names[] = {
	"value", "regex", "not-regex", "kind", "pure", "not-value", "not-kind",
	"absent", "with-item", "statement", "opt-in", "used", "pattern", "has", "not-has", "any-of",
	"not-pattern",
};
enum {
	C_VALUE, C_REGEX, C_NOT_REGEX, C_KIND, C_PURE, C_NOT_VALUE, C_NOT_KIND,
	C_ABSENT, C_WITH_ITEM, C_STATEMENT, C_OPT_IN, C_USED, C_PATTERN, C_HAS, C_NOT_HAS, C_ANY_OF,
	C_NOT_PATTERN, C_COUNT
};
_Static_assert(C_COUNT <= MPSFIX_YAML_MAX_FIELDS, "a constraint has more keys than mpsfix_yaml_fields holds");
#define CONSTRAINT_KEYS "value, not-value, regex, not-regex, kind, not-kind, pure, " \
	"absent, with-item, statement, opt-in, used, pattern, not-pattern, has, not-has, any-of"

/*
 * The constraints `v` on `name` (as shown in messages: $X, MATCH, dim), in
 * `what` (where/when); `param` when it names a signature parameter.
 */
static int load_constraint(const mpsfix_rule_loader *ld, mpsfix_constraint *c, const char *what,
			   const char *name, bool param, const mpsfix_yaml_node *v, int depth)
{
	mpsfix_yaml_fields f;
	int error = 0;

	c->absent = c->with_item = c->statement = c->opt_in = c->used = -1;
	if (depth > 8)
		return mpsfix_rule__fail(ld, v, "'any-of' is nested too deeply");
	if (v->type != MPSFIX_YAML_MAP)
		return mpsfix_rule__fail(ld, v, "the constraints on %s must be a mapping ("
					 CONSTRAINT_KEYS ")", name);
	if (v->nitems == 0)
		return mpsfix_rule__fail(ld, v, "no constraint on %s: give one of " CONSTRAINT_KEYS, name);
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
				error = mpsfix_rule__fail(ld, val, "'pure' must be true or false");
			else if (depth > 0 && !strcmp(what, "where"))
				/* `where` leaves it to the fix, which sees no alternatives */
				error = mpsfix_rule__fail(ld, mpsfix_yaml_key(v, i),
							  "'pure' in 'where' is checked when the fix is "
							  "written, not as an alternative of 'any-of' "
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
				error = mpsfix_rule__fail(ld, val, "'absent' applies to signature parameters "
							  "(lower-case names), not to %s", name);
			else
				error = load_tristate(ld, key, val, &c->absent);
			break;
		case C_WITH_ITEM:
			error = load_tristate(ld, key, val, &c->with_item);
			break;
		case C_STATEMENT:
			error = load_tristate(ld, key, val, &c->statement);
			break;
		case C_OPT_IN:
			error = load_tristate(ld, key, val, &c->opt_in);
			break;
		case C_USED:
			error = load_tristate(ld, key, val, &c->used);
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
		case C_NOT_PATTERN:
			error = load_patterns(ld, key, val, &c->not_is, &c->nnot_is);
			break;
		default:
			if (val->type != MPSFIX_YAML_SEQ || val->nitems == 0)
				return mpsfix_rule__fail(ld, val,
							 "'any-of' must be a list of constraint mappings");
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
int mpsfix_rule__load_constraints(const mpsfix_rule_loader *ld, const char *what,
				  const mpsfix_yaml_node *v, mpsfix_constraint **out, size_t *nout,
				  const mpsfix_yaml_node ***keys)
{
	size_t n;
	int error = 0;

	if (v->type != MPSFIX_YAML_MAP)
		return mpsfix_rule__fail(ld, v, "'%s' must be a mapping from metavariable or parameter "
					 "names to constraints", what);
	n = mpsfix_yaml_npairs(v);
	*out = mpsfix_xcalloc(n, sizeof(**out));
	*keys = mpsfix_xcalloc(n, sizeof(**keys));
	for (size_t i = 0; i < n && error == 0; i++) {
		const mpsfix_yaml_node *k = mpsfix_yaml_key(v, i);
		mpsfix_constraint *c = &(*out)[*nout];
		const char *name = k->value;
		char *shown;

		if (!strcmp(what, "when") && !strcmp(name, "torch"))
			continue; /* the case's torch versions: rule_load_fix.c reads it */
		(*keys)[(*nout)++] = k;
		if (strncmp(name, "$$$", 3) == 0 && mpsfix_rule__is_metavar_name(name + 3))
			return mpsfix_rule__fail(ld, k, "%s binds a list of nodes and cannot be constrained",
						 name);
	if (name[0] == '$' &&
	    (mpsfix_rule__is_metavar_name(name + 1) || islower((unsigned char)name[1])))
			return mpsfix_rule__fail(ld, k, "write '%s' keys without '$': '%s'", what, name + 1);
		if (!mpsfix_rule__is_metavar_name(name) && !mpsfix_rule__is_param_name(name))
			return mpsfix_rule__fail(ld, k, "bad name '%s' in '%s' (metavariables are "
						 "[A-Z_][A-Z0-9_]*, signature parameters [a-z_][a-z0-9_]*)",
						 name, what);
		if (strcmp(name, "_") == 0)
			return mpsfix_rule__fail(ld, k, "$_ binds nothing and cannot be constrained");
		c->metavar = mpsfix_xstrdup(name);
		shown = mpsfix_xasprintf("%s%s", mpsfix_rule__is_metavar_name(name) ? "$" : "", name);
		error = load_constraint(ld, c, what, shown, mpsfix_rule_is_param(name),
					mpsfix_yaml_value(v, i), 0);
		free(shown);
	}
	return error;
}

static int load_where(mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;

	return mpsfix_rule__load_constraints(ld, "where", v, &r->constraints, &r->nconstraints,
					     &ld->where_keys);
}

/* --- examples ------------------------------------------------------------------ */

static void set_text(char **out, size_t *out_len, const mpsfix_yaml_node *v)
{
	*out = mpsfix_xstrndup(v->value, v->len);
	*out_len = v->len;
}

static const char *const example_names[] = {"input", "output", "manual"};

static int load_invalid(mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	int error;

	if (v->type != MPSFIX_YAML_SEQ)
		return mpsfix_rule__fail(ld, v, "'invalid' must be a list of examples");
	r->invalid = mpsfix_xcalloc(v->nitems, sizeof(*r->invalid));
	for (size_t i = 0; i < v->nitems; i++) {
		const mpsfix_yaml_node *item = v->items[i];
		mpsfix_example *ex = &r->invalid[r->ninvalid];
		mpsfix_yaml_fields f;

		if (item->type != MPSFIX_YAML_MAP)
			return mpsfix_rule__fail(ld, item, "each 'invalid' example must be a mapping "
						 "with 'input' and 'output'");
		error = mpsfix_yaml_collect(&f, ld->doc, item, "invalid", example_names, 3, 1u);
		if (error < 0)
			return error;
		if (!mpsfix_yaml_is_string(f.val[0]))
			return mpsfix_rule__fail(ld, f.val[0], "'input' must be a string");
		if (f.val[1] && !mpsfix_yaml_is_string(f.val[1]))
			return mpsfix_rule__fail(ld, f.val[1], "'output' must be a string");
		if (f.val[2] && (!mpsfix_yaml_is_string(f.val[2]) || !f.val[2]->len))
			return mpsfix_rule__fail(ld, f.val[2], "'manual' must be a string: part of "
						 "the reason the fix is not applied");
		if (f.val[1] && f.val[2])
			return mpsfix_rule__fail(ld, f.key[2], "an example with 'manual' is not fixed: "
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

static int load_valid(const mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;

	if (v->type != MPSFIX_YAML_SEQ)
		return mpsfix_rule__fail(ld, v, "'valid' must be a list of strings");
	r->valid = mpsfix_xcalloc(v->nitems, sizeof(*r->valid));
	for (size_t i = 0; i < v->nitems; i++) {
		const mpsfix_yaml_node *item = v->items[i];
		mpsfix_example *ex = &r->valid[r->nvalid];

		if (!mpsfix_yaml_is_string(item))
			return mpsfix_rule__fail(ld, item, "each 'valid' example must be a string");
		r->nvalid++;
		ex->line = item->line;
		set_text(&ex->input, &ex->input_len, item);
	}
	return 0;
}

static const char *const examples_names[] = {"invalid", "valid"};

static int load_examples(mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_yaml_fields f;
	int error;

	if (v->type != MPSFIX_YAML_MAP)
		return mpsfix_rule__fail(ld, v, "'examples' must be a mapping with 'invalid' and 'valid' "
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

static int load_signature(mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_signature *sig = &ld->rule->signature;
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;

	ld->signature_key = v;
	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return mpsfix_rule__fail(ld, v, "'signature' must be a parameter list like 'f(x, dim=None)', "
					 "or a list of them (overloads)");
	sig->items = mpsfix_xcalloc(n, sizeof(*sig->items));
	for (size_t i = 0; i < n; i++) {
		const mpsfix_yaml_node *item = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;
		uint32_t off = 0, line, col;

		if (!mpsfix_yaml_is_string(item))
			return mpsfix_rule__fail(ld, item, "'signature' must be a parameter list like "
						 "'f(x, dim=None)', or a list of them (overloads)");
		if (mpsfix_overload_parse(&sig->items[i], ld->parser, item->value, item->len, &off) < 0) {
			mpsfix_yaml_position(ld->doc, item, off, &line, &col);
			return mpsfix_rule__fail_at(ld, line, col, "bad signature: %s",
						    mpsfix_error_last()->message);
		}
		sig->len = i + 1;
	}
	return 0;
}

/* --- the rule ------------------------------------------------------------------ */

static const char *const rule_names[] = {
	"id", "code", "severity", "message", "note", "url",
	"torch", "enabled", "match", "where", "fix", "examples", "signature",
	"inside", "not-inside", "after-import", "reachable", "device", "skip-paths", "tensor",
	"enabled-by",
};
enum {
	R_ID, R_CODE, R_SEVERITY, R_MESSAGE, R_NOTE, R_URL,
	R_TORCH, R_ENABLED, R_MATCH, R_WHERE, R_FIX, R_EXAMPLES, R_SIGNATURE,
	R_INSIDE, R_NOT_INSIDE, R_AFTER_IMPORT, R_REACHABLE, R_DEVICE, R_SKIP_PATHS, R_TENSOR, R_ENABLED_BY,
	R_COUNT
};
_Static_assert(R_COUNT <= MPSFIX_YAML_MAX_FIELDS, "a rule has more keys than mpsfix_yaml_fields holds");
#define R_REQUIRED ((1u << R_ID) | (1u << R_CODE) | (1u << R_SEVERITY) | (1u << R_MESSAGE) | \
		    (1u << R_TORCH) | (1u << R_MATCH))

static int load_field(mpsfix_rule_loader *ld, size_t j, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	static const char *const sev[] = {"error", "warning", "info"};
	int error;

	switch (j) {
	case R_ID:
		if ((error = mpsfix_rule__get_string(ld, "id", v, &r->id)) == 0 && !is_slug(r->id))
			error = mpsfix_rule__fail(ld, v, "bad id '%s': use lowercase letters, digits "
						  "and single dashes", r->id);
		return error;
	case R_CODE:
		if ((error = mpsfix_rule__get_string(ld, "code", v, &r->code)) == 0 && !is_code(r->code))
			error = mpsfix_rule__fail(ld, v, "bad code '%s': expected MPS and three "
						  "digits, like MPS006", r->code);
		return error;
	case R_SEVERITY:
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(sev); i++) {
			if (mpsfix_yaml_is_string(v) && strcmp(v->value, sev[i]) == 0) {
				r->severity = (mpsfix_severity)i;
				return 0;
			}
		}
		return mpsfix_rule__fail(ld, v, "bad severity '%s': expected error, warning or info",
					 v->type == MPSFIX_YAML_SCALAR ? v->value : "...");
	case R_MESSAGE:
		return load_message(ld, v);
	case R_NOTE:
		return mpsfix_rule__get_string(ld, "note", v, &r->note);
	case R_URL:
		return mpsfix_rule__get_string(ld, "url", v, &r->url);
	case R_TORCH:
		if ((error = mpsfix_rule__get_string(ld, "torch", v, &r->torch)) < 0)
			return error;
		if (mpsfix_torch_range_parse(&r->range, r->torch, strlen(r->torch),
					     MPSFIX_TORCH_SYNTAX_RULE) < 0) {
			char reason[MPSFIX_ERROR_MAX];

			snprintf(reason, sizeof(reason), "%s", mpsfix_error_last()->message);
			return mpsfix_rule__fail(ld, v, "bad torch range '%s': %s", r->torch, reason);
		}
		return 0;
	case R_ENABLED:
		if (!mpsfix_yaml_bool(v, &r->enabled))
			return mpsfix_rule__fail(ld, v, "'enabled' must be true or false");
		return 0;
	case R_MATCH:
		return load_match(ld, v);
	case R_WHERE:
		return load_where(ld, v);
	case R_FIX:
		return mpsfix_rule__load_fix(ld, v);
	case R_SIGNATURE:
		return load_signature(ld, v);
	case R_INSIDE:
		ld->inside_key = v;
		return load_inside(ld, "inside", v, &r->inside, &r->ninside);
	case R_NOT_INSIDE:
		return load_inside(ld, "not-inside", v, &r->not_inside, &r->nnot_inside);
	case R_AFTER_IMPORT:
		if ((error = mpsfix_rule__get_string(ld, "after-import", v, &r->after_import)) == 0 &&
		    !mpsfix_rule__is_module_name(v))
			error = mpsfix_rule__fail(ld, v, "'after-import' names a top-level module, "
						  "like torch");
		return error;
	case R_REACHABLE:
		if (mpsfix_yaml_is_string(v) && !strcmp(v->value, "any"))
			r->reach_any = true;
		else if (!mpsfix_yaml_is_string(v) || strcmp(v->value, "mps"))
			return mpsfix_rule__fail(ld, v, "bad reachable '%s': expected mps (the default: "
						 "only code that can run on MPS) or any",
						 v->type == MPSFIX_YAML_SCALAR ? v->value : "...");
		return 0;
	case R_DEVICE:
		ld->device_key = v;
		return mpsfix_rule__get_string(ld, "device", v, &r->device);
	case R_TENSOR:
		ld->tensor_key = v;
		return mpsfix_rule__get_string(ld, "tensor", v, &r->tensor);
	case R_ENABLED_BY:
		ld->enabled_by_key = v;
		return mpsfix_rule__get_string(ld, "enabled-by", v, &r->enabled_by);
	case R_SKIP_PATHS:
		if (v->type != MPSFIX_YAML_SEQ)
			return mpsfix_rule__fail(ld, v, "'skip-paths' must be a list of globs");
		for (size_t i = 0; i < v->nitems; i++) {
			const mpsfix_yaml_node *g = v->items[i];

			if (!mpsfix_yaml_is_string(g) || !*g->value || strchr(g->value, '/'))
				return mpsfix_rule__fail(ld, g, "a 'skip-paths' glob is matched against one folder "
							 "or file name: a non-empty string without '/'");
			mpsfix_strvec_push(&r->skip_paths, g->value);
		}
		return 0;
	default:
		return load_examples(ld, v);
	}
}

static int load_rule(mpsfix_rule_loader *ld, const mpsfix_yaml_node *root)
{
	mpsfix_yaml_fields f;
	int error = 0;

	if (!root)
		return mpsfix_rule__fail_at(ld, 1, 1, "the file is empty; a rule is a mapping with id, code, "
					    "severity, message, torch and match");
	if (root->type != MPSFIX_YAML_MAP)
		return mpsfix_rule__fail(ld, root, "a rule must be a mapping of keys (id, code, severity, "
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
	if (error == 0 && (error = mpsfix_rule__check_names(ld)) == 0)
		mpsfix_rule__attach_constraints(ld->rule);
	return error;
}

int mpsfix_rule_load_buffer(mpsfix_rule **out, TSParser *parser, const char *path,
			    const char *data, size_t len)
{
	mpsfix_yaml_doc doc = MPSFIX_YAML_DOC_INIT;
	mpsfix_rule_loader ld = {.parser = parser, .doc = &doc};
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
