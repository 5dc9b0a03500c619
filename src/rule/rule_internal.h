/*
 * rule_internal.h: what the rule loader's files share and nothing else
 * includes: the loader's state while one rule file is read (rule_load.c,
 * rule_load_fix.c), its "PATH:LINE:COL: message" errors and name checks, and
 * the checks across keys that run once every key is read (rule_check.c).
 * Its functions are mpsfix_rule__*: shared by those files, not part of rule.h.
 */
#ifndef MPSFIX_RULE_INTERNAL_H
#define MPSFIX_RULE_INTERNAL_H

#include "rule.h"
#include "yaml_util.h"

/* Where a fix edit was written, for the checks against `match`. */
typedef struct {
	const mpsfix_yaml_node *target; /* the replace/remove value, or NULL */
	const mpsfix_yaml_node *tmpl;   /* the template value, or NULL */
} mpsfix_rule_edit_src;

/* Where a fix case was written. */
typedef struct {
	mpsfix_rule_edit_src *edits;        /* parallel to the case's edits */
	const mpsfix_yaml_node **when_keys; /* parallel to the case's `when` */
} mpsfix_rule_case_src;

typedef struct {
	TSParser *parser;
	const mpsfix_yaml_doc *doc;
	mpsfix_rule *rule;
	const mpsfix_yaml_node **where_keys; /* parallel to rule->constraints */
	mpsfix_rule_case_src *case_srcs;     /* parallel to rule->fix.cases */
	size_t ncase_srcs;
	const mpsfix_yaml_node *signature_key; /* the `signature:` value */
	const mpsfix_yaml_node *inside_key;  /* the `inside:` value */
	const mpsfix_yaml_node *device_key;  /* the `device:` value */
	const mpsfix_yaml_node *tensor_key;  /* the `tensor:` value */
	const mpsfix_yaml_node *enabled_by_key; /* the `enabled-by:` value */
	const mpsfix_yaml_node *manual_example; /* the first example's `manual` key */
} mpsfix_rule_loader;

/* rule_load.c: record "PATH:LINE:COL: message" at a position or at node `n` */
int mpsfix_rule__fail_at(const mpsfix_rule_loader *ld, uint32_t line, uint32_t col,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int mpsfix_rule__fail(const mpsfix_rule_loader *ld, const mpsfix_yaml_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* rule_load.c: a string value; a top-level module name (a Python identifier) */
int mpsfix_rule__get_string(const mpsfix_rule_loader *ld, const char *name,
			    const mpsfix_yaml_node *v, char **out);
bool mpsfix_rule__is_module_name(const mpsfix_yaml_node *v);

/* rule_load.c: metavariable names are [A-Z_][A-Z0-9_]*, parameter names [a-z_][a-z0-9_]* */
bool mpsfix_rule__is_metavar_name(const char *s);
bool mpsfix_rule__is_param_name(const char *s);

/* rule_load.c: a `where`/`when` mapping, with its keys for the checks across keys */
int mpsfix_rule__load_constraints(const mpsfix_rule_loader *ld, const char *what,
				  const mpsfix_yaml_node *v, mpsfix_constraint **out, size_t *nout,
				  const mpsfix_yaml_node ***keys);

/* rule_load_fix.c: the `fix:` key */
int mpsfix_rule__load_fix(mpsfix_rule_loader *ld, const mpsfix_yaml_node *v);

/* rule_check.c: the checks across keys, then each constraint on its metavariables */
int mpsfix_rule__check_names(const mpsfix_rule_loader *ld);
void mpsfix_rule__attach_constraints(mpsfix_rule *r);

#endif
