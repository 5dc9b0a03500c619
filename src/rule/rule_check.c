/*
 * rule_check.c: the checks across a rule's keys, once every key is read:
 * what `where`, `when` and the fix's edits name must be bound by `match`
 * (or `inside`) as one node or a list, or be a parameter of `signature`;
 * then each `where` constraint is hung on the metavariables it constrains.
 */
#include "rule.h"

#include <string.h>

#include "parse.h"
#include "rule_internal.h"
#include "template.h"
#include "yaml_util.h"

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
static int check_use(const mpsfix_rule_loader *ld, uint32_t line, uint32_t col, const char *name,
		     bool multi, const char *target)
{
	const mpsfix_rule *r = ld->rule;
	const char *mark = multi ? "$$$" : "$";

	if (strcmp(name, "_") == 0)
		return mpsfix_rule__fail_at(ld, line, col, "a fix cannot use %s_, which binds nothing",
					    mark);
	if (strcmp(name, "MATCH") == 0) {
		if (multi || target)
			return mpsfix_rule__fail_at(ld, line, col, "$MATCH is the whole match, one node: "
						    "a template may write $MATCH, not %sMATCH or a target",
						    mark);
		return 0;
	}
	if (mpsfix_rule_is_param(name)) {
		if (!r->signature.len)
			return mpsfix_rule__fail_at(ld, line, col, "fix names $%s: lower-case names are "
						    "parameters of the rule's 'signature', and it has none",
						    name);
		if (!mpsfix_signature_has_param(&r->signature, name))
			return mpsfix_rule__fail_at(ld, line, col, "fix names $%s, which is not a "
						    "parameter of the rule's signature", name);
		if (var_param(&r->signature, name))
			return mpsfix_rule__fail_at(ld, line, col, "fix names $%s, a *args or **kwargs "
						    "parameter: no argument is bound to it", name);
		if (multi || target)
			return mpsfix_rule__fail_at(ld, line, col, "a signature parameter is used as $%s "
						    "in a template, not as $$$%s or a replace/remove target",
						    name, name);
		return 0;
	}
	for (size_t j = 0; j < r->npatterns; j++) {
		int idx = mpsfix_pattern_metavar_index(r->patterns[j], name);
		bool pm;

		if (idx < 0)
			return mpsfix_rule__fail_at(ld, line, col,
						    "fix names %s%s, which pattern %zu does not bind",
						    mark, name, j + 1);
		pm = r->patterns[j]->metavars[idx].multi;
		if (target && pm)
			return mpsfix_rule__fail_at(ld, line, col,
						    "'%s' needs a single-node metavariable, "
						    "but pattern %zu binds $$$%s", target, j + 1, name);
		if (!target && multi && !pm)
			return mpsfix_rule__fail_at(ld, line, col,
						    "fix uses $$$%s, but pattern %zu binds $%s to one "
						    "node",
						    name, j + 1, name);
		if (!target && !multi && pm)
			return mpsfix_rule__fail_at(ld, line, col,
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
static int check_constrained(const mpsfix_rule_loader *ld, const mpsfix_yaml_node *key,
			     const char *name, const char *what)
{
	const mpsfix_rule *r = ld->rule;
	int in_match, in_inside, in_not;

	if (!strcmp(name, "MATCH"))
		return 0;
	if (mpsfix_rule_is_param(name)) {
		if (!r->signature.len)
			return mpsfix_rule__fail(ld, key, "'%s' names %s: lower-case names are "
						 "parameters of the rule's 'signature', and it has none",
						 what, name);
		if (!mpsfix_signature_has_param(&r->signature, name))
			return mpsfix_rule__fail(ld, key, "'%s' names %s, which is not a parameter "
						 "of the rule's signature", what, name);
		if (var_param(&r->signature, name))
			return mpsfix_rule__fail(ld, key, "'%s' names %s, a *args or **kwargs "
						 "parameter: no argument is bound to it", what, name);
		return 0;
	}
	in_match = bound_in(r->patterns, r->npatterns, name);
	in_inside = bound_in(r->inside, r->ninside, name);
	in_not = bound_in(r->not_inside, r->nnot_inside, name);
	if (in_match == 1 || in_inside == 1 || in_not == 1)
		return mpsfix_rule__fail(ld, key, "$$$%s binds a list of nodes and cannot be "
					 "constrained", name);
	if (in_match < 0 && ((in_inside < 0 && in_not < 0) || strcmp(what, "where")))
		return mpsfix_rule__fail(ld, key, "'%s' names $%s, which no pattern binds", what, name);
	return 0;
}

static int check_case(const mpsfix_rule_loader *ld, const mpsfix_fix_case *fc,
		      const mpsfix_rule_case_src *cs)
{
	int error;

	for (size_t k = 0; k < fc->nwhen; k++)
		if ((error = check_constrained(ld, cs->when_keys[k], fc->when[k].metavar, "when")) < 0)
			return error;
	for (size_t i = 0; i < fc->nedits; i++) {
		const mpsfix_fix_edit *e = &fc->edits[i];
		const mpsfix_rule_edit_src *es = &cs->edits[i];

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

int mpsfix_rule__check_names(const mpsfix_rule_loader *ld)
{
	const mpsfix_rule *r = ld->rule;
	int error;

	for (size_t j = 0; r->signature.len && j < r->npatterns; j++)
		if (r->patterns[j]->root->kind != MPSFIX_PN_NODE ||
		    r->patterns[j]->root->symbol != mpsfix_symbol("call"))
			return mpsfix_rule__fail(ld, ld->signature_key, "a rule with a 'signature' "
						 "must match calls, but pattern %zu is not a call", j + 1);
	for (size_t k = 0; k < r->nconstraints; k++)
		if ((error = check_constrained(ld, ld->where_keys[k], r->constraints[k].metavar,
					       "where")) < 0)
			return error;
	if (r->device && (error = check_constrained(ld, ld->device_key, r->device, "device")) < 0)
		return error;
	if (r->tensor && (error = check_constrained(ld, ld->tensor_key, r->tensor, "tensor")) < 0)
		return error;
	if (r->enabled_by &&
	    (error = check_constrained(ld, ld->enabled_by_key, r->enabled_by, "enabled-by")) < 0)
		return error;
	for (size_t c = 0; c < r->fix.ncases; c++)
		if ((error = check_case(ld, &r->fix.cases[c], &ld->case_srcs[c])) < 0)
			return error;
	if (ld->manual_example && !r->fix.present)
		return mpsfix_rule__fail(ld, ld->manual_example, "an example with 'manual' "
					 "expects a manual fix, but the rule has no 'fix'");
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

void mpsfix_rule__attach_constraints(mpsfix_rule *r)
{
	for (size_t k = 0; k < r->nconstraints; k++) {
		attach(r->patterns, r->npatterns, &r->constraints[k]);
		attach(r->inside, r->ninside, &r->constraints[k]);
		attach(r->not_inside, r->nnot_inside, &r->constraints[k]);
	}
}
