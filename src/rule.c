/*
 * rule.c: the rule model and its loader.  A rule file is read into a small
 * YAML tree (yaml_util.c), then every key is checked and turned into the
 * model in the order it is written; checks that tie keys together (which
 * metavariables `where` and `fix` may name) run last.  The first problem
 * stops the load with "PATH:LINE:COL: message".
 */
#include "rule.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "yaml_util.h"

#define RULE_FILE_MAX (1024u * 1024u)

/* Where a fix edit was written, for the checks against `match`. */
typedef struct {
	const mpsfix_yaml_node *target; /* the replace/remove value, or NULL */
	const mpsfix_yaml_node *tmpl;   /* the template value, or NULL */
} edit_src;

typedef struct {
	TSParser *parser;
	const mpsfix_yaml_doc *doc;
	mpsfix_rule *rule;
	const mpsfix_yaml_node **where_keys; /* parallel to rule->constraints */
	edit_src *edit_srcs;                 /* parallel to rule->fix.edits */
	const mpsfix_yaml_node *signature_key; /* the `signature:` value */
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

/* "all", or constraints like ">=2.3,<2.8": ops < <= > >= ==, versions N(.N)*. */
static bool is_torch_range(const char *s)
{
	if (strcmp(s, "all") == 0)
		return true;
	for (;;) {
		while (*s == ' ')
			s++;
		if ((s[0] == '<' || s[0] == '>' || s[0] == '=') && s[1] == '=')
			s += 2;
		else if (s[0] == '<' || s[0] == '>')
			s++;
		else
			return false;
		while (*s == ' ')
			s++;
		for (;;) {
			if (!isdigit((unsigned char)*s))
				return false;
			while (isdigit((unsigned char)*s))
				s++;
			if (*s != '.')
				break;
			s++;
		}
		while (*s == ' ')
			s++;
		if (*s == '\0')
			return true;
		if (*s++ != ',')
			return false;
	}
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

static int compile_pattern(const loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	mpsfix_pattern *p = NULL;
	uint32_t off = 0, line, col;

	if (!mpsfix_yaml_is_string(v))
		return fail(ld, v, "'match' must be a string or a list of strings");
	if (mpsfix_pattern_compile(&p, ld->parser, v->value, v->len, &off) < 0) {
		mpsfix_yaml_position(ld->doc, v, off, &line, &col);
		return fail_at(ld, line, col, "pattern does not parse: %s",
			       mpsfix_error_last()->message);
	}
	r->patterns[r->npatterns++] = p;
	return 0;
}

static int load_match(const loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	int error = 0;

	if (v->type == MPSFIX_YAML_SCALAR) {
		r->patterns = mpsfix_xcalloc(1, sizeof(*r->patterns));
		return compile_pattern(ld, v);
	}
	if (v->type != MPSFIX_YAML_SEQ)
		return fail(ld, v, "'match' must be a string or a list of strings");
	if (v->nitems == 0)
		return fail(ld, v, "'match' must not be an empty list");
	r->patterns = mpsfix_xcalloc(v->nitems, sizeof(*r->patterns));
	for (size_t i = 0; i < v->nitems && error == 0; i++)
		error = compile_pattern(ld, v->items[i]);
	return error;
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

static int load_values(const loader *ld, mpsfix_constraint *c, const mpsfix_yaml_node *v)
{
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;
	int error = 0;

	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return fail(ld, v, "'value' must be a literal or a list of literals");
	c->values = mpsfix_xcalloc(n, sizeof(*c->values));
	for (size_t i = 0; i < n && error == 0; i++) {
		const mpsfix_yaml_node *item = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;

		error = parse_literal(ld, item, &c->values[i]);
		c->nvalues = i + 1;
	}
	return error;
}

static int load_kinds(const loader *ld, mpsfix_constraint *c, const mpsfix_yaml_node *v)
{
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;

	if (v->type == MPSFIX_YAML_MAP || n == 0)
		return fail(ld, v, "'kind' must be a node kind or a list of node kinds");
	c->kinds = mpsfix_xcalloc(n, sizeof(*c->kinds));
	for (size_t i = 0; i < n; i++) {
		const mpsfix_yaml_node *k = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;

		if (!mpsfix_yaml_is_string(k))
			return fail(ld, k, "'kind' must be a node kind or a list of node kinds");
		if ((c->kinds[i] = mpsfix_symbol(k->value)) == 0)
			return fail(ld, k, "unknown node kind '%s'", k->value);
		c->nkinds = i + 1;
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

static const char *const constraint_names[] = {"value", "regex", "not-regex", "kind", "pure"};
enum { C_VALUE, C_REGEX, C_NOT_REGEX, C_KIND, C_PURE, C_COUNT };

static int load_constraint(const loader *ld, mpsfix_constraint *c, const mpsfix_yaml_node *v)
{
	mpsfix_yaml_fields f;
	int error = 0;

	if (v->type != MPSFIX_YAML_MAP)
		return fail(ld, v, "the constraints on $%s must be a mapping "
			    "(value, regex, not-regex, kind, pure)", c->metavar);
	if (v->nitems == 0)
		return fail(ld, v, "no constraint on $%s: give 'value', 'regex', "
			    "'not-regex', 'kind' or 'pure'", c->metavar);
	error = mpsfix_yaml_collect(&f, ld->doc, v, "where", constraint_names, C_COUNT, 0);
	if (error < 0)
		return error;
	for (size_t i = 0; i < mpsfix_yaml_npairs(v) && error == 0; i++) {
		const mpsfix_yaml_node *val = mpsfix_yaml_value(v, i);
		const char *key = mpsfix_yaml_key(v, i)->value;

		switch (mpsfix_yaml_field_index(constraint_names, C_COUNT, key)) {
		case C_VALUE:
			error = load_values(ld, c, val);
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
			break;
		default:
			error = load_kinds(ld, c, val);
			break;
		}
	}
	return error;
}

static int load_where(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_rule *r = ld->rule;
	size_t n;
	int error = 0;

	if (v->type != MPSFIX_YAML_MAP)
		return fail(ld, v, "'where' must be a mapping from metavariable names "
			    "to constraints");
	n = mpsfix_yaml_npairs(v);
	r->constraints = mpsfix_xcalloc(n, sizeof(*r->constraints));
	ld->where_keys = mpsfix_xcalloc(n, sizeof(*ld->where_keys));
	for (size_t i = 0; i < n && error == 0; i++) {
		const mpsfix_yaml_node *k = mpsfix_yaml_key(v, i);
		mpsfix_constraint *c = &r->constraints[r->nconstraints];
		const char *name = k->value;

		ld->where_keys[r->nconstraints++] = k;
		if (strncmp(name, "$$$", 3) == 0 && is_metavar_name(name + 3))
			return fail(ld, k, "%s binds a list of nodes and cannot be constrained",
				    name);
		if (name[0] == '$' && is_metavar_name(name + 1))
			return fail(ld, k, "write 'where' keys without '$': '%s'", name + 1);
		if (!is_metavar_name(name))
			return fail(ld, k, "bad metavariable name '%s' in 'where' "
				    "(names are [A-Z_][A-Z0-9_]*)", name);
		if (strcmp(name, "_") == 0)
			return fail(ld, k, "$_ binds nothing and cannot be constrained");
		c->metavar = mpsfix_xstrdup(name);
		error = load_constraint(ld, c, mpsfix_yaml_value(v, i));
	}
	return error;
}

/* --- fix -------------------------------------------------------------------------- */

static const char *const edit_names[] = {"replace", "template", "remove", "before-import"};
enum { E_REPLACE, E_TEMPLATE, E_REMOVE, E_BEFORE_IMPORT, E_COUNT };

/* A replace/remove target: "$X" (or "X"); a multi "$$$X" is refused. */
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
	if (!is_metavar_name(s))
		return fail(ld, v, "'%s' must name a metavariable, like $X", what);
	if (strcmp(s, "_") == 0)
		return fail(ld, v, "'%s' cannot name $_, which binds nothing", what);
	*out = mpsfix_xstrdup(s);
	return 0;
}

/* One edit from its replace/template/remove keys; `at` is where it is written. */
static int load_edit(loader *ld, const mpsfix_yaml_fields *f, const mpsfix_yaml_node *at)
{
	mpsfix_fix *fix = &ld->rule->fix;
	mpsfix_fix_edit *e = &fix->edits[fix->nedits];
	edit_src *es = &ld->edit_srcs[fix->nedits];
	const mpsfix_yaml_node *tv = f->val[E_TEMPLATE];
	uint32_t off = 0, line, col;
	int error;

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
		return fail(ld, at, "an edit needs a 'template' or a 'remove'");
	}
	fix->nedits++;
	*e = (mpsfix_fix_edit){
		.op = f->key[E_BEFORE_IMPORT] ? MPSFIX_FIX_INSERT : tv ? MPSFIX_FIX_REPLACE : MPSFIX_FIX_REMOVE,
		.line = at->line,
		.col = at->col,
	};
	if (f->val[E_BEFORE_IMPORT]) {
		const mpsfix_yaml_node *mv = f->val[E_BEFORE_IMPORT];

		if (!mpsfix_yaml_is_string(mv) || !*mv->value || strspn(mv->value,
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != mv->len)
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
	if (!mpsfix_yaml_is_string(tv))
		return fail(ld, tv, "'template' must be a string");
	if (mpsfix_template_compile(&e->tmpl, ld->parser, tv->value, tv->len, &off) < 0) {
		mpsfix_yaml_position(ld->doc, tv, off, &line, &col);
		return fail_at(ld, line, col, "template does not parse: %s",
			       mpsfix_error_last()->message);
	}
	return 0;
}

static int load_edits(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_fix *fix = &ld->rule->fix;
	int error = 0;

	if (v->type != MPSFIX_YAML_SEQ)
		return fail(ld, v, "'edits' must be a list of edits");
	if (v->nitems == 0)
		return fail(ld, v, "'edits' must not be empty");
	fix->edits = mpsfix_xcalloc(v->nitems, sizeof(*fix->edits));
	ld->edit_srcs = mpsfix_xcalloc(v->nitems, sizeof(*ld->edit_srcs));
	for (size_t i = 0; i < v->nitems && error == 0; i++) {
		const mpsfix_yaml_node *item = v->items[i];
		mpsfix_yaml_fields f;

		if (item->type != MPSFIX_YAML_MAP)
			return fail(ld, item, "each edit must be a mapping "
				    "(replace, template, remove, before-import)");
		error = mpsfix_yaml_collect(&f, ld->doc, item, "edits", edit_names, E_COUNT, 0);
		if (error < 0)
			return error;
		error = load_edit(ld, &f, item);
		if (error == 0 && v->nitems > 1 && fix->edits[fix->nedits - 1].op != MPSFIX_FIX_INSERT &&
		    !fix->edits[fix->nedits - 1].target && fix->edits[fix->nedits - 1].op == MPSFIX_FIX_REPLACE)
			return fail(ld, item, "an edit that replaces the whole match cannot "
				    "be combined with other edits (they would overlap); give it a 'replace' target");
	}
	return error;
}

/* the first three as in edit_names, so that a shorthand fix is an edit */
static const char *const fix_names[] = {"replace", "template", "remove", "before-import", "safety", "edits"};
enum { F_SAFETY = E_COUNT, F_EDITS, F_COUNT };

static int load_fix(loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_fix *fix = &ld->rule->fix;
	const mpsfix_yaml_node *safety;
	mpsfix_yaml_fields f;
	int error;

	if (v->type != MPSFIX_YAML_MAP)
		return fail(ld, v, "'fix' must be a mapping");
	if (v->nitems == 0)
		return fail(ld, v, "'fix' is empty: give 'safety' and a 'template', "
			    "a 'remove' or 'edits'");
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
	if (f.key[F_EDITS]) {
		for (int j = 0; j < E_COUNT; j++)
			if (f.key[j])
				return fail(ld, f.key[j], "'%s' cannot be combined with "
					    "'edits' (put it in an edit)", fix_names[j]);
		return load_edits(ld, f.val[F_EDITS]);
	}
	if (!f.key[E_TEMPLATE] && !f.key[E_REMOVE] && !f.key[E_REPLACE])
		return fail(ld, v, "'fix' has no edit: give a 'template', a 'remove' or 'edits'");
	fix->edits = mpsfix_xcalloc(1, sizeof(*fix->edits));
	ld->edit_srcs = mpsfix_xcalloc(1, sizeof(*ld->edit_srcs));
	return load_edit(ld, &f, f.val[E_TEMPLATE] ? f.val[E_TEMPLATE]
				 : f.val[E_REMOVE] ? f.val[E_REMOVE] : v);
}

/* --- examples ------------------------------------------------------------------ */

static void set_text(char **out, size_t *out_len, const mpsfix_yaml_node *v)
{
	*out = mpsfix_xstrndup(v->value, v->len);
	*out_len = v->len;
}

static const char *const example_names[] = {"input", "output"};

static int load_invalid(const loader *ld, const mpsfix_yaml_node *v)
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
		error = mpsfix_yaml_collect(&f, ld->doc, item, "invalid", example_names, 2, 1u);
		if (error < 0)
			return error;
		if (!mpsfix_yaml_is_string(f.val[0]))
			return fail(ld, f.val[0], "'input' must be a string");
		if (f.val[1] && !mpsfix_yaml_is_string(f.val[1]))
			return fail(ld, f.val[1], "'output' must be a string");
		r->ninvalid++;
		ex->line = item->line;
		set_text(&ex->input, &ex->input_len, f.val[0]);
		if (f.val[1])
			set_text(&ex->output, &ex->output_len, f.val[1]);
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

static int load_examples(const loader *ld, const mpsfix_yaml_node *v)
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

/* A metavariable the fix uses (a target when `target` names the key). */
static int check_use(const loader *ld, uint32_t line, uint32_t col, const char *name,
		     bool multi, const char *target)
{
	const mpsfix_rule *r = ld->rule;
	const char *mark = multi ? "$$$" : "$";

	if (strcmp(name, "_") == 0)
		return fail_at(ld, line, col, "a fix cannot use %s_, which binds nothing", mark);
	if (*name >= 'a' && *name <= 'z') {
		if (!r->signature.len)
			return fail_at(ld, line, col, "fix names $%s: lower-case names are parameters "
				       "of the rule's 'signature', and it has none", name);
		if (!mpsfix_signature_has_param(&r->signature, name))
			return fail_at(ld, line, col, "fix names $%s, which is not a parameter of the "
				       "rule's signature", name);
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

static int check_names(const loader *ld)
{
	const mpsfix_rule *r = ld->rule;
	int error;

	for (size_t j = 0; r->signature.len && j < r->npatterns; j++)
		if (r->patterns[j]->root->kind != MPSFIX_PN_NODE ||
		    r->patterns[j]->root->symbol != mpsfix_symbol("call"))
			return fail(ld, ld->signature_key, "a rule with a 'signature' must match calls, "
				    "but pattern %zu is not a call", j + 1);

	for (size_t k = 0; k < r->nconstraints; k++) {
		const char *name = r->constraints[k].metavar;
		bool bound = false;

		for (size_t j = 0; j < r->npatterns; j++) {
			int idx = mpsfix_pattern_metavar_index(r->patterns[j], name);

			if (idx >= 0 && r->patterns[j]->metavars[idx].multi)
				return fail(ld, ld->where_keys[k],
					    "$$$%s binds a list of nodes and cannot be "
					    "constrained", name);
			bound |= idx >= 0;
		}
		if (!bound)
			return fail(ld, ld->where_keys[k],
				    "'where' names $%s, which no pattern binds", name);
	}
	for (size_t i = 0; i < r->fix.nedits; i++) {
		const mpsfix_fix_edit *e = &r->fix.edits[i];
		const edit_src *es = &ld->edit_srcs[i];

		if (e->target &&
		    (error = check_use(ld, es->target->line, es->target->col, e->target, false,
				       e->op == MPSFIX_FIX_REMOVE ? "remove" : "replace")) < 0)
			return error;
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

/* Hang every constraint on each pattern's metavariable of that name. */
static void attach_constraints(mpsfix_rule *r)
{
	for (size_t k = 0; k < r->nconstraints; k++) {
		for (size_t j = 0; j < r->npatterns; j++) {
			mpsfix_pattern *p = r->patterns[j];
			int idx = mpsfix_pattern_metavar_index(p, r->constraints[k].metavar);

			if (idx >= 0)
				p->metavars[idx].constraint = &r->constraints[k];
		}
	}
}

/* --- the rule ------------------------------------------------------------------ */

static const char *const rule_names[] = {
	"id", "code", "severity", "message", "note", "url",
	"torch", "enabled", "match", "where", "fix", "examples", "signature",
};
enum {
	R_ID, R_CODE, R_SEVERITY, R_MESSAGE, R_NOTE, R_URL,
	R_TORCH, R_ENABLED, R_MATCH, R_WHERE, R_FIX, R_EXAMPLES, R_SIGNATURE, R_COUNT
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
		error = get_string(ld, "torch", v, &r->torch);
		if (error == 0 && !is_torch_range(r->torch))
			error = fail(ld, v, "bad torch range '%s': expected 'all' or constraints "
				     "like '>=2.3,<2.8' (operators < <= > >= ==)", r->torch);
		return error;
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
	free(ld.edit_srcs);
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
	for (size_t i = 0; i < r->fix.nedits; i++) {
		free(r->fix.edits[i].target);
		free(r->fix.edits[i].module);
		mpsfix_template_free(r->fix.edits[i].tmpl);
	}
	free(r->fix.edits);
	for (size_t i = 0; i < r->ninvalid; i++) {
		free(r->invalid[i].input);
		free(r->invalid[i].output);
	}
	free(r->invalid);
	for (size_t i = 0; i < r->nvalid; i++)
		free(r->valid[i].input);
	free(r->valid);
	free(r);
}
