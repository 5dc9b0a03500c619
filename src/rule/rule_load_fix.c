/*
 * rule_load_fix.c: the loader of a rule's `fix:` key: its safety, its cases
 * (each with an optional `when`, and `manual` or the edits) and each edit's
 * target, template or module, as written in the rule file.
 */
#include "rule.h"

#include <stdio.h>
#include <string.h>

#include "rule_internal.h"
#include "template.h"
#include "yaml_util.h"

/* --- fix -------------------------------------------------------------------------- */

static const char *const edit_names[] = {"replace", "template", "remove", "before-import",
					 "add-argument"};
enum { E_REPLACE, E_TEMPLATE, E_REMOVE, E_BEFORE_IMPORT, E_ADD_ARGUMENT, E_COUNT };
#define EDIT_KEYS "replace, template, remove, before-import, add-argument"

/* A replace/remove target: "$X" (or "X", or a parameter); a multi "$$$X" is refused. */
static int load_target(const mpsfix_rule_loader *ld, const char *what, const mpsfix_yaml_node *v,
		       char **out)
{
	const char *s = v->value;

	if (!mpsfix_yaml_is_string(v))
		return mpsfix_rule__fail(ld, v, "'%s' must name a metavariable, like $X", what);
	if (!strcmp(what, "remove") && !strcmp(s, "match")) {
		*out = NULL; /* the whole match */
		return 0;
	}
	if (strncmp(s, "$$$", 3) == 0 && mpsfix_rule__is_metavar_name(s + 3))
		return mpsfix_rule__fail(ld, v, "'%s' needs a single-node metavariable, not %s", what, s);
	if (*s == '$')
		s++;
	if (!mpsfix_rule__is_metavar_name(s) &&
	    !(mpsfix_rule__is_param_name(s) && !strcmp(what, "replace")))
		return mpsfix_rule__fail(ld, v, "'%s' must name a metavariable, like $X%s", what,
					 strcmp(what, "replace") ? "" : ", or a signature parameter");
	if (strcmp(s, "_") == 0)
		return mpsfix_rule__fail(ld, v, "'%s' cannot name $_, which binds nothing", what);
	*out = mpsfix_xstrdup(s);
	return 0;
}

/* The template `tv` of key `key` (template, add-argument). */
static int compile_template(const mpsfix_rule_loader *ld, const char *key, const mpsfix_yaml_node *tv,
			    mpsfix_template **out)
{
	uint32_t off = 0, line, col;

	if (!mpsfix_yaml_is_string(tv))
		return mpsfix_rule__fail(ld, tv, "'%s' must be a string", key);
	if (mpsfix_template_compile(out, ld->parser, tv->value, tv->len, &off) < 0) {
		mpsfix_yaml_position(ld->doc, tv, off, &line, &col);
		return mpsfix_rule__fail_at(ld, line, col, "template does not parse: %s",
					    mpsfix_error_last()->message);
	}
	return 0;
}

/* One edit of case `fc` from its keys; `at` is where it is written. */
static int load_edit(mpsfix_rule_loader *ld, mpsfix_fix_case *fc, mpsfix_rule_edit_src *srcs,
		     const mpsfix_yaml_fields *f, const mpsfix_yaml_node *at)
{
	mpsfix_fix_edit *e = &fc->edits[fc->nedits];
	mpsfix_rule_edit_src *es = &srcs[fc->nedits];
	const mpsfix_yaml_node *tv = f->val[E_TEMPLATE];
	int error;

	if (f->key[E_ADD_ARGUMENT]) {
		for (int j = 0; j < E_COUNT; j++)
			if (j != E_ADD_ARGUMENT && f->key[j])
				return mpsfix_rule__fail(ld, f->key[j], "'add-argument' is its own edit: "
							 "it cannot be combined with '%s'", edit_names[j]);
		tv = f->val[E_ADD_ARGUMENT];
	}
	if (f->key[E_BEFORE_IMPORT] && (f->key[E_REMOVE] || f->key[E_REPLACE]))
		return mpsfix_rule__fail(ld, f->key[E_BEFORE_IMPORT], "'before-import' inserts new "
					 "lines: it cannot be combined with 'replace' or 'remove'");
	if (f->key[E_BEFORE_IMPORT] && !tv)
		return mpsfix_rule__fail(ld, f->key[E_BEFORE_IMPORT],
					 "'before-import' needs a 'template' to insert");
	if (f->key[E_REMOVE] && f->key[E_TEMPLATE])
		return mpsfix_rule__fail(ld, f->key[E_REMOVE], "'remove' cannot be combined with 'template'");
	if (f->key[E_REMOVE] && f->key[E_REPLACE])
		return mpsfix_rule__fail(ld, f->key[E_REMOVE], "'remove' cannot be combined with 'replace'");
	if (!tv && !f->key[E_REMOVE]) {
		if (f->key[E_REPLACE])
			return mpsfix_rule__fail(ld, f->key[E_REPLACE], "'replace' needs a 'template'");
		return mpsfix_rule__fail(ld, at, "an edit needs a 'template', a 'remove' or an "
					 "'add-argument'");
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

		if (!mpsfix_rule__is_module_name(mv))
			return mpsfix_rule__fail(ld, mv, "'before-import' names a top-level module, "
						 "like torch");
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

static int load_edits(mpsfix_rule_loader *ld, mpsfix_fix_case *fc, mpsfix_rule_case_src *cs,
		      const mpsfix_yaml_node *v)
{
	int error = 0;

	if (v->type != MPSFIX_YAML_SEQ)
		return mpsfix_rule__fail(ld, v, "'edits' must be a list of edits");
	if (v->nitems == 0)
		return mpsfix_rule__fail(ld, v, "'edits' must not be empty");
	fc->edits = mpsfix_xcalloc(v->nitems, sizeof(*fc->edits));
	cs->edits = mpsfix_xcalloc(v->nitems, sizeof(*cs->edits));
	for (size_t i = 0; i < v->nitems && error == 0; i++) {
		const mpsfix_yaml_node *item = v->items[i];
		mpsfix_yaml_fields f;
		const mpsfix_fix_edit *last;

		if (item->type != MPSFIX_YAML_MAP)
			return mpsfix_rule__fail(ld, item, "each edit must be a mapping (" EDIT_KEYS ")");
		error = mpsfix_yaml_collect(&f, ld->doc, item, "edits", edit_names, E_COUNT, 0);
		if (error < 0)
			return error;
		if ((error = load_edit(ld, fc, cs->edits, &f, item)) < 0 || fc->nedits == 0)
			break;
		last = &fc->edits[fc->nedits - 1];
		if (v->nitems > 1 && !last->target && last->op == MPSFIX_FIX_REPLACE)
			return mpsfix_rule__fail(ld, item, "an edit that replaces the whole match cannot "
						 "be combined with other edits (they would overlap); "
						 "give it a 'replace' target");
	}
	return error;
}

/* the first ones as in edit_names, so that a shorthand fix or case is an edit */
static const char *const case_names[] = {"replace", "template", "remove", "before-import",
					 "add-argument", "edits", "when", "manual"};
enum { K_EDITS = E_COUNT, K_WHEN, K_MANUAL, K_COUNT };

/*
 * The `torch:` key of a case's `when` mapping `w`, if it has one: the torch
 * versions (a rule's `torch:` syntax) that must hold the file's whole target.
 */
static int load_case_torch(const mpsfix_rule_loader *ld, mpsfix_fix_case *fc, const mpsfix_yaml_node *w)
{
	for (size_t i = 0; i < mpsfix_yaml_npairs(w); i++) {
		const mpsfix_yaml_node *v = mpsfix_yaml_value(w, i);
		char reason[MPSFIX_ERROR_MAX];

		if (strcmp(mpsfix_yaml_key(w, i)->value, "torch"))
			continue;
		if (!mpsfix_yaml_is_string(v) || !v->len)
			return mpsfix_rule__fail(ld, v, "'torch' in 'when' must be a version range, "
						 "like '>= 2.7'");
		if (mpsfix_torch_range_parse(&fc->torch, v->value, v->len, MPSFIX_TORCH_SYNTAX_RULE) == 0) {
			fc->has_torch = true;
			return 0;
		}
		snprintf(reason, sizeof(reason), "%s", mpsfix_error_last()->message);
		return mpsfix_rule__fail(ld, v, "bad torch range '%s' in 'when': %s", v->value, reason);
	}
	return 0;
}

/* One case: `when`, then `manual` or edits.  `v` is its mapping. */
static int load_case(mpsfix_rule_loader *ld, const mpsfix_yaml_fields *f, const mpsfix_yaml_node *v,
		     bool in_cases)
{
	mpsfix_fix *fix = &ld->rule->fix;
	mpsfix_fix_case *fc = &fix->cases[fix->ncases];
	mpsfix_rule_case_src *cs = &ld->case_srcs[fix->ncases];
	bool has_edit = false;
	int error;

	fix->ncases++;
	fc->line = v->line;
	fc->col = v->col;
	if (f->key[K_WHEN] && !in_cases)
		return mpsfix_rule__fail(ld, f->key[K_WHEN], "'when' belongs to an item of 'cases'");
	if (f->key[K_MANUAL] && !in_cases)
		return mpsfix_rule__fail(ld, f->key[K_MANUAL], "'manual' belongs to an item of 'cases'");
	if (f->val[K_WHEN] && f->val[K_WHEN]->type == MPSFIX_YAML_MAP &&
	    !mpsfix_yaml_npairs(f->val[K_WHEN]))
		return mpsfix_rule__fail(ld, f->val[K_WHEN], "'when' is empty: name what it checks, or leave "
					 "it out (in the last case)");
	if (f->val[K_WHEN] && f->val[K_WHEN]->type == MPSFIX_YAML_MAP &&
	    (error = load_case_torch(ld, fc, f->val[K_WHEN])) < 0)
		return error;
	if (f->val[K_WHEN] &&
	    (error = mpsfix_rule__load_constraints(ld, "when", f->val[K_WHEN], &fc->when, &fc->nwhen,
						   &cs->when_keys)) < 0)
		return error;
	for (int j = 0; j < E_COUNT; j++)
		has_edit |= f->key[j] != NULL;
	if (f->key[K_MANUAL]) {
		if (has_edit || f->key[K_EDITS])
			return mpsfix_rule__fail(ld, f->key[K_MANUAL], "a case with 'manual' has no "
						 "edits: it says why this form needs a manual fix");
		if ((error = mpsfix_rule__get_string(ld, "manual", f->val[K_MANUAL], &fc->manual)) < 0)
			return error;
		if (!*fc->manual)
			return mpsfix_rule__fail(ld, f->val[K_MANUAL], "'manual' must give the reason");
		return 0;
	}
	if (f->key[K_EDITS]) {
		for (int j = 0; j < E_COUNT; j++)
			if (f->key[j])
				return mpsfix_rule__fail(ld, f->key[j], "'%s' cannot be combined with "
							 "'edits' (put it in an edit)", edit_names[j]);
		return load_edits(ld, fc, cs, f->val[K_EDITS]);
	}
	if (!has_edit)
		return mpsfix_rule__fail(ld, v, in_cases ? "a case needs a 'template', a 'remove', an "
					 "'add-argument', 'edits' or 'manual'"
					 : "'fix' has no edit: give a 'template', a 'remove', "
					 "an 'add-argument', 'edits' or 'cases'");
	fc->edits = mpsfix_xcalloc(1, sizeof(*fc->edits));
	cs->edits = mpsfix_xcalloc(1, sizeof(*cs->edits));
	return load_edit(ld, fc, cs->edits, f,
			 f->val[E_TEMPLATE] ? f->val[E_TEMPLATE]
			 : f->val[E_ADD_ARGUMENT] ? f->val[E_ADD_ARGUMENT]
			 : f->val[E_REMOVE] ? f->val[E_REMOVE] : v);
}

static const char *const fix_names[] = {"replace", "template", "remove", "before-import",
					"add-argument", "edits", "when", "manual", "safety", "cases",
					"exact-outside-range"};
enum { F_SAFETY = K_COUNT, F_CASES, F_EXACT, F_COUNT };
_Static_assert(F_COUNT <= MPSFIX_YAML_MAX_FIELDS, "a fix has more keys than mpsfix_yaml_fields holds");

int mpsfix_rule__load_fix(mpsfix_rule_loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_fix *fix = &ld->rule->fix;
	const mpsfix_yaml_node *safety, *cases;
	mpsfix_yaml_fields f;
	int error = 0;

	if (v->type != MPSFIX_YAML_MAP)
		return mpsfix_rule__fail(ld, v, "'fix' must be a mapping");
	if (v->nitems == 0)
		return mpsfix_rule__fail(ld, v, "'fix' is empty: give 'safety' and a 'template', "
					 "a 'remove', 'edits' or 'cases'");
	error = mpsfix_yaml_collect(&f, ld->doc, v, "fix", fix_names, F_COUNT, 1u << F_SAFETY);
	if (error < 0)
		return error;
	fix->present = true;
	safety = f.val[F_SAFETY];
	if (mpsfix_yaml_is_string(safety) && strcmp(safety->value, "unsafe") == 0)
		fix->unsafe = true;
	else if (!mpsfix_yaml_is_string(safety) || strcmp(safety->value, "safe") != 0)
		return mpsfix_rule__fail(ld, safety, "bad safety '%s': expected safe or unsafe",
					 safety->type == MPSFIX_YAML_SCALAR ? safety->value : "...");
	if (f.val[F_EXACT] && !mpsfix_yaml_bool(f.val[F_EXACT], &fix->exact_outside_range))
		return mpsfix_rule__fail(ld, f.val[F_EXACT], "'exact-outside-range' must be true or false");
	if (!(cases = f.val[F_CASES])) {
		fix->cases = mpsfix_xcalloc(1, sizeof(*fix->cases));
		ld->case_srcs = mpsfix_xcalloc(1, sizeof(*ld->case_srcs));
		ld->ncase_srcs = 1;
		return load_case(ld, &f, v, false);
	}
	for (int j = 0; j < F_SAFETY; j++) /* safety, cases and exact-outside-range are the fix's own */
		if (f.key[j])
			return mpsfix_rule__fail(ld, f.key[j], "'%s' cannot be combined with 'cases' "
						 "(put it in a case)", fix_names[j]);
	if (cases->type != MPSFIX_YAML_SEQ || cases->nitems == 0)
		return mpsfix_rule__fail(ld, cases, "'cases' must be a list of cases, each with an optional "
					 "'when' and the edits or 'manual'");
	fix->cases = mpsfix_xcalloc(cases->nitems, sizeof(*fix->cases));
	ld->case_srcs = mpsfix_xcalloc(cases->nitems, sizeof(*ld->case_srcs));
	ld->ncase_srcs = cases->nitems;
	for (size_t i = 0; i < cases->nitems && error == 0; i++) {
		const mpsfix_yaml_node *item = cases->items[i];
		mpsfix_yaml_fields cf;

		if (item->type != MPSFIX_YAML_MAP)
			return mpsfix_rule__fail(ld, item, "each case must be a mapping (when, manual, "
						 "edits, " EDIT_KEYS ")");
		error = mpsfix_yaml_collect(&cf, ld->doc, item, "cases", case_names, K_COUNT, 0);
		if (error == 0)
			error = load_case(ld, &cf, item, true);
		if (error == 0 && i + 1 < cases->nitems && !fix->cases[i].nwhen &&
		    !fix->cases[i].has_torch)
			return mpsfix_rule__fail(ld, item, "only the last case may leave out 'when': "
						 "the cases after this one could never be used");
	}
	return error;
}
