/* check_rule.c: the rule model, its YAML loader and its error messages. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests.h"

#include "parse.h"
#include "rule.h"
#include "template.h"
#include "yaml_util.h"

static TSParser *parser;

static void setup(void)
{
	ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
}

static void teardown(void)
{
	ts_parser_delete(parser);
	parser = NULL;
}

static int load(mpsfix_rule **out, const char *yaml)
{
	return mpsfix_rule_load_buffer(out, parser, "t.yml", yaml, strlen(yaml));
}

#define RULE_HEAD "id: demo\ncode: MPS900\nseverity: warning\nmessage: m\ntorch: all\n"

/* --- loading valid rules ---------------------------------------------------- */

static const char full_rule[] =
	"# a comment before the rule\n"
	"id: to-mps-non-blocking\n"
	"code: MPS006\n"
	"severity: error\n"
	"message: \"non_blocking copies to MPS can corrupt data\"\n"
	"note: |\n"
	"  Long text.\n"
	"  Second line.\n"
	"url: https://github.com/pytorch/pytorch/issues/139550\n"
	"torch: \">=2.3, <2.8\"\n"
	"enabled: false\n"
	"match: '$X.to(\"mps\", non_blocking=$NB)'\n"
	"where:\n"
	"  NB:\n"
	"    value: [true, 1]\n"
	"    regex: '^[A-Za-z]+$'\n"
	"    not-regex: 'False'\n"
	"    kind: [true, identifier]\n"
	"  X:\n"
	"    kind: identifier\n"
	"fix:\n"
	"  safety: unsafe\n"
	"  edits:\n"
	"    - replace: $X\n"
	"      template: 'torch.as_tensor($X)'\n"
	"    - remove: $NB\n"
	"examples:\n"
	"  invalid:\n"
	"    - input: |\n"
	"        x.to(\"mps\", non_blocking=True)\n"
	"      output: |\n"
	"        x.to(\"mps\")\n"
	"    - input: 'y.to(\"mps\", non_blocking=True)'\n"
	"  valid:\n"
	"    - |\n"
	"      x.to(\"cuda\", non_blocking=True)\n"
	"    - x.to(\"mps\")\n";

START_TEST(test_rule_full)
{
	mpsfix_rule *r = NULL;
	const mpsfix_constraint *nb, *x;
	int i;

	ck_assert_msg(load(&r, full_rule) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_str_eq(r->path, "t.yml");
	ck_assert_str_eq(r->id, "to-mps-non-blocking");
	ck_assert_str_eq(r->code, "MPS006");
	ck_assert_int_eq(r->severity, MPSFIX_SEV_ERROR);
	ck_assert_str_eq(r->message, "non_blocking copies to MPS can corrupt data");
	ck_assert_str_eq(r->note, "Long text.\nSecond line.\n");
	ck_assert_str_eq(r->url, "https://github.com/pytorch/pytorch/issues/139550");
	ck_assert_str_eq(r->torch, ">=2.3, <2.8");
	ck_assert(!r->enabled);

	ck_assert_uint_eq(r->npatterns, 1);
	ck_assert_str_eq(r->patterns[0]->text, "$X.to(\"mps\", non_blocking=$NB)");

	ck_assert_uint_eq(r->nconstraints, 2);
	nb = &r->constraints[0];
	x = &r->constraints[1];
	ck_assert_str_eq(nb->metavar, "NB");
	ck_assert_uint_eq(nb->nvalues, 2);
	ck_assert_int_eq(nb->values[0].type, MPSFIX_LIT_BOOL);
	ck_assert(nb->values[0].b);
	ck_assert_int_eq(nb->values[1].type, MPSFIX_LIT_NUMBER);
	ck_assert(nb->values[1].num == 1.0);
	ck_assert(nb->has_regex && nb->has_not_regex);
	ck_assert_str_eq(nb->regex_src, "^[A-Za-z]+$");
	ck_assert_str_eq(nb->not_regex_src, "False");
	ck_assert_uint_eq(nb->nkinds, 2);
	ck_assert_uint_eq(nb->kinds[0], mpsfix_symbol("true"));
	ck_assert_uint_eq(nb->kinds[1], mpsfix_symbol("identifier"));
	ck_assert_str_eq(x->metavar, "X");
	ck_assert_uint_eq(x->nkinds, 1);
	ck_assert(!x->has_regex && x->nvalues == 0);

	/* the constraints hang on the pattern's metavariables */
	i = mpsfix_pattern_metavar_index(r->patterns[0], "NB");
	ck_assert_int_ge(i, 0);
	ck_assert_ptr_eq(r->patterns[0]->metavars[i].constraint, nb);
	i = mpsfix_pattern_metavar_index(r->patterns[0], "X");
	ck_assert_int_ge(i, 0);
	ck_assert_ptr_eq(r->patterns[0]->metavars[i].constraint, x);

	ck_assert(r->fix.present && r->fix.unsafe);
	ck_assert_uint_eq(r->fix.cases[0].nedits, 2);
	ck_assert_int_eq(r->fix.cases[0].edits[0].op, MPSFIX_FIX_REPLACE);
	ck_assert_str_eq(r->fix.cases[0].edits[0].target, "X");
	ck_assert_str_eq(mpsfix_template_text(r->fix.cases[0].edits[0].tmpl), "torch.as_tensor($X)");
	ck_assert_uint_eq(r->fix.cases[0].edits[0].line, 24);
	ck_assert_uint_eq(r->fix.cases[0].edits[0].col, 7);
	ck_assert_int_eq(r->fix.cases[0].edits[1].op, MPSFIX_FIX_REMOVE);
	ck_assert_str_eq(r->fix.cases[0].edits[1].target, "NB");
	ck_assert_ptr_null(r->fix.cases[0].edits[1].tmpl);

	ck_assert_uint_eq(r->ninvalid, 2);
	ck_assert_str_eq(r->invalid[0].input, "x.to(\"mps\", non_blocking=True)\n");
	ck_assert_uint_eq(r->invalid[0].input_len, strlen(r->invalid[0].input));
	ck_assert_str_eq(r->invalid[0].output, "x.to(\"mps\")\n");
	ck_assert_uint_eq(r->invalid[0].output_len, 12);
	ck_assert_uint_eq(r->invalid[0].line, 29);
	ck_assert_str_eq(r->invalid[1].input, "y.to(\"mps\", non_blocking=True)");
	ck_assert_ptr_null(r->invalid[1].output);
	ck_assert_uint_eq(r->nvalid, 2);
	ck_assert_str_eq(r->valid[0].input, "x.to(\"cuda\", non_blocking=True)\n");
	ck_assert_uint_eq(r->valid[0].line, 35);
	ck_assert_str_eq(r->valid[1].input, "x.to(\"mps\")");
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_rule_defaults)
{
	mpsfix_rule *r = NULL;

	ck_assert_msg(load(&r, RULE_HEAD "match: torch.std_mean($$$ARGS)\n") == 0, "%s",
		      mpsfix_error_last()->message);
	ck_assert(r->enabled);
	ck_assert_int_eq(r->severity, MPSFIX_SEV_WARNING);
	ck_assert_ptr_null(r->note);
	ck_assert_ptr_null(r->url);
	ck_assert(!r->fix.present);
	ck_assert_uint_eq(r->fix.ncases, 0);
	ck_assert_uint_eq(r->nconstraints + r->ninvalid + r->nvalid, 0);
	mpsfix_rule_free(r);
}
END_TEST

/* skip-paths globs match a folder or file name of the path, not the whole path */
START_TEST(test_rule_skips_path)
{
	mpsfix_rule *r = NULL;

	ck_assert_msg(load(&r, RULE_HEAD "match: torch.std_mean($$$ARGS)\n"
				 "skip-paths: [tests, 'test_*.py', 'convert_*.py']\n") == 0,
		      "%s", mpsfix_error_last()->message);
	ck_assert(mpsfix_rule_skips_path(r, "tests/models/a.py"));
	ck_assert(mpsfix_rule_skips_path(r, "pkg/tests/a.py"));
	ck_assert(mpsfix_rule_skips_path(r, "pkg/test_a.py"));
	ck_assert(mpsfix_rule_skips_path(r, "convert_b.py"));
	ck_assert(!mpsfix_rule_skips_path(r, "pkg/testsuite/a.py"));
	ck_assert(!mpsfix_rule_skips_path(r, "pkg/a_tests.py"));
	ck_assert(!mpsfix_rule_skips_path(r, "scripts/converter.py"));
	ck_assert(!mpsfix_rule_skips_path(r, ""));
	mpsfix_rule_free(r);
	ck_assert_msg(load(&r, RULE_HEAD "match: torch.std_mean($$$ARGS)\n") == 0, "%s",
		      mpsfix_error_last()->message);
	ck_assert(!mpsfix_rule_skips_path(r, "tests/a.py")); /* no skip-paths: nothing skipped */
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_rule_match_list)
{
	mpsfix_rule *r = NULL;
	int i;
	static const char yaml[] = RULE_HEAD
		"match:\n"
		"  - 'torch.amp.GradScaler(\"mps\", $$$A)'\n"
		"  - torch.GradScaler(device=$D, $$$A)\n"
		"where:\n"
		"  D: {value: mps}\n"
		"fix:\n"
		"  safety: safe\n"
		"  template: torch.GradScaler($$$A, enabled=False)\n";

	ck_assert_msg(load(&r, yaml) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_uint_eq(r->npatterns, 2);
	ck_assert_str_eq(r->patterns[1]->text, "torch.GradScaler(device=$D, $$$A)");
	/* D is only in the second pattern: its constraint hangs there only */
	ck_assert_int_lt(mpsfix_pattern_metavar_index(r->patterns[0], "D"), 0);
	i = mpsfix_pattern_metavar_index(r->patterns[1], "D");
	ck_assert_int_ge(i, 0);
	ck_assert_ptr_eq(r->patterns[1]->metavars[i].constraint, &r->constraints[0]);
	ck_assert_int_eq(r->constraints[0].values[0].type, MPSFIX_LIT_STRING);
	ck_assert_str_eq(r->constraints[0].values[0].s, "mps");
	ck_assert(r->fix.present && !r->fix.unsafe);
	ck_assert_uint_eq(r->fix.cases[0].nedits, 1);
	ck_assert_int_eq(r->fix.cases[0].edits[0].op, MPSFIX_FIX_REPLACE);
	ck_assert_ptr_null(r->fix.cases[0].edits[0].target);
	ck_assert_uint_eq(r->fix.cases[0].edits[0].line, 13);
	ck_assert_uint_eq(r->fix.cases[0].edits[0].col, 13);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_rule_literals)
{
	mpsfix_rule *r = NULL;
	const mpsfix_literal *v;
	static const char yaml[] = RULE_HEAD
		"match: f($V)\n"
		"where:\n"
		"  V:\n"
		"    value: [true, False, null, None, ~, 1, -2.5, 1_000, 'True', \"1\", mps,\n"
		"            0x10]\n";

	ck_assert_msg(load(&r, yaml) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_uint_eq(r->constraints[0].nvalues, 12);
	v = r->constraints[0].values;
	ck_assert(v[0].type == MPSFIX_LIT_BOOL && v[0].b);
	ck_assert(v[1].type == MPSFIX_LIT_BOOL && !v[1].b);
	ck_assert(v[2].type == MPSFIX_LIT_NONE && v[3].type == MPSFIX_LIT_NONE &&
		  v[4].type == MPSFIX_LIT_NONE);
	ck_assert(v[5].type == MPSFIX_LIT_NUMBER && v[5].num == 1);
	ck_assert(v[6].type == MPSFIX_LIT_NUMBER && v[6].num == -2.5);
	ck_assert(v[7].type == MPSFIX_LIT_NUMBER && v[7].num == 1000);
	ck_assert(v[8].type == MPSFIX_LIT_STRING);
	ck_assert_str_eq(v[8].s, "True");
	ck_assert(v[9].type == MPSFIX_LIT_STRING && v[9].slen == 1);
	ck_assert_str_eq(v[10].s, "mps");
	ck_assert(v[11].type == MPSFIX_LIT_NUMBER && v[11].num == 16);
	mpsfix_rule_free(r);
}
END_TEST

/* The keys checked after the match: the model the loader builds. */
START_TEST(test_rule_conditions_and_cases)
{
	mpsfix_rule *r = NULL;
	const mpsfix_constraint *c;
	const mpsfix_fix_case *fc;
	static const char yaml[] = RULE_HEAD
		"match: 'f($$$A)'\n"                                   /* 6 */
		"signature: 'f(x, dim=None, enabled=True)'\n"
		"inside: ['g($MATCH)', '$N = $MATCH']\n"
		"not-inside: 'h($$$B)'\n"
		"after-import: torch\n"                                /* 10 */
		"where:\n"
		"  dim: {absent: false, not-value: [1, x], not-kind: string}\n"
		"  N: {with-item: false, pattern: [a, b], has: c(), not-has: [d(), e()]}\n"
		"  MATCH:\n"
		"    any-of:\n"                                        /* 15 */
		"      - {with-item: true, statement: false}\n"
		"      - any-of: [{regex: z}]\n"
		"fix:\n"
		"  safety: safe\n"
		"  cases:\n"                                           /* 20 */
		"    - when: {enabled: {absent: true}, x: {pure: true}}\n"
		"      add-argument: 'enabled=False'\n"
		"    - when: {enabled: {value: true}}\n"
		"      replace: enabled\n"
		"      template: 'False'\n"                            /* 25 */
		"    - manual: \"an expression\"\n";

	ck_assert_msg(load(&r, yaml) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_uint_eq(r->ninside, 2);
	ck_assert_str_eq(r->inside[1]->text, "$N = $MATCH");
	ck_assert_uint_eq(r->nnot_inside, 1);
	ck_assert_str_eq(r->after_import, "torch");
	ck_assert_uint_eq(r->nconstraints, 3);
	c = &r->constraints[0];
	ck_assert_str_eq(c->metavar, "dim");
	ck_assert_int_eq(c->absent, 0);
	ck_assert_int_eq(c->with_item, -1);
	ck_assert_uint_eq(c->nnot_values, 2);
	ck_assert_int_eq(c->not_values[1].type, MPSFIX_LIT_STRING);
	ck_assert_uint_eq(c->nnot_kinds, 1);
	c = &r->constraints[1];
	ck_assert_str_eq(c->metavar, "N");
	ck_assert_int_eq(c->absent, -1);
	ck_assert_int_eq(c->with_item, 0);
	ck_assert_uint_eq(c->nis, 2);
	ck_assert_uint_eq(c->nhas, 1);
	ck_assert_uint_eq(c->nnot_has, 2);
	/* a metavariable of an inside pattern gets its constraint there */
	ck_assert_ptr_eq(r->inside[1]->metavars[mpsfix_pattern_metavar_index(r->inside[1], "N")].constraint,
			 c);
	c = &r->constraints[2];
	ck_assert_str_eq(c->metavar, "MATCH");
	ck_assert_uint_eq(c->nany_of, 2);
	ck_assert_int_eq(c->any_of[0].with_item, 1);
	ck_assert_int_eq(c->any_of[0].statement, 0);
	ck_assert_int_eq(c->any_of[1].statement, -1);
	ck_assert_uint_eq(c->any_of[1].nany_of, 1);
	ck_assert(c->any_of[1].any_of[0].has_regex);
	ck_assert_uint_eq(r->fix.ncases, 3);
	fc = &r->fix.cases[0];
	ck_assert_uint_eq(fc->nwhen, 2);
	ck_assert_int_eq(fc->when[0].absent, 1);
	ck_assert(fc->when[1].pure);
	ck_assert_uint_eq(fc->nedits, 1);
	ck_assert_int_eq(fc->edits[0].op, MPSFIX_FIX_ADD_ARGUMENT);
	ck_assert_ptr_null(fc->edits[0].target);
	ck_assert_uint_eq(fc->edits[0].line, 22);
	ck_assert_uint_eq(fc->edits[0].col, 21);
	ck_assert_uint_eq(fc->line, 21);
	ck_assert_uint_eq(fc->col, 7);
	fc = &r->fix.cases[1];
	ck_assert_int_eq(fc->edits[0].op, MPSFIX_FIX_REPLACE);
	ck_assert_str_eq(fc->edits[0].target, "enabled");
	fc = &r->fix.cases[2];
	ck_assert_uint_eq(fc->nwhen, 0);
	ck_assert_uint_eq(fc->nedits, 0);
	ck_assert_str_eq(fc->manual, "an expression");
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_rule_torch_ranges)
{
	static const char *const good[] = {"all", "<2.4", "==2.1", ">=2.3,<2.8", "> 1.13 , <= 2"};
	static const mpsfix_torch_range ranges[] = {
		{MPSFIX_TORCH_OLDEST, MPSFIX_TORCH_NEWEST},
		{MPSFIX_TORCH_OLDEST, MPSFIX_TORCH_VER(2, 3)},
		{MPSFIX_TORCH_VER(2, 1), MPSFIX_TORCH_VER(2, 1)},
		{MPSFIX_TORCH_VER(2, 3), MPSFIX_TORCH_VER(2, 7)},
		{MPSFIX_TORCH_VER(1, 13), MPSFIX_TORCH_VER(2, MPSFIX_TORCH_ANY_MINOR)},
	};
	static const char *const bad[] = {"", "2.1", ">=", ">=2.", "=2.1", "<2.4,", ">=2.3;<2.8",
					  "any", "<2..4", "!=2.1"};
	mpsfix_rule *r = NULL;
	char yaml[256];

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(good); i++) {
		snprintf(yaml, sizeof(yaml), "id: a\ncode: MPS001\nseverity: info\nmessage: m\n"
			 "match: f()\ntorch: '%s'\n", good[i]);
		ck_assert_msg(load(&r, yaml) == 0, "%s: %s", good[i], mpsfix_error_last()->message);
		ck_assert_str_eq(r->torch, good[i]);
		ck_assert_uint_eq(r->range.lo, ranges[i].lo);
		ck_assert_uint_eq(r->range.hi, ranges[i].hi);
		mpsfix_rule_free(r);
	}
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(bad); i++) {
		snprintf(yaml, sizeof(yaml), "id: a\ncode: MPS001\nseverity: info\nmessage: m\n"
			 "match: f()\ntorch: '%s'\n", bad[i]);
		ck_assert_msg(load(&r, yaml) < 0, "%s accepted", bad[i]);
		ck_assert_ptr_null(r);
		ck_assert_msg(strstr(mpsfix_error_last()->message, "t.yml:6:8: ") ==
			      mpsfix_error_last()->message, "%s", mpsfix_error_last()->message);
	}
}
END_TEST

/* `when: {torch: SPEC}` is the case's torch range, not a constraint */
START_TEST(test_rule_case_torch)
{
	mpsfix_rule *r = NULL;
	static const char yaml[] = RULE_HEAD
		"match: f($X)\n"
		"fix:\n"
		"  safety: safe\n"
		"  cases:\n"
		"    - when: {torch: '>= 2.7'}\n"
		"      template: g()\n"
		"    - when: {torch: '>=2.0,<2.7', X: {pure: true}}\n"
		"      template: h($X)\n"
		"    - manual: \"too old\"\n";

	ck_assert_msg(load(&r, yaml) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_uint_eq(r->fix.ncases, 3);
	ck_assert(r->fix.cases[0].has_torch);
	ck_assert_uint_eq(r->fix.cases[0].nwhen, 0);
	ck_assert_uint_eq(r->fix.cases[0].torch.lo, MPSFIX_TORCH_VER(2, 7));
	ck_assert_uint_eq(r->fix.cases[0].torch.hi, MPSFIX_TORCH_NEWEST);
	ck_assert(r->fix.cases[1].has_torch);
	ck_assert_uint_eq(r->fix.cases[1].nwhen, 1);
	ck_assert_str_eq(r->fix.cases[1].when[0].metavar, "X");
	ck_assert_uint_eq(r->fix.cases[1].torch.lo, MPSFIX_TORCH_VER(2, 0));
	ck_assert_uint_eq(r->fix.cases[1].torch.hi, MPSFIX_TORCH_VER(2, 6));
	ck_assert(!r->fix.cases[2].has_torch);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_rule_severity_name)
{
	ck_assert_str_eq(mpsfix_severity_name(MPSFIX_SEV_ERROR), "error");
	ck_assert_str_eq(mpsfix_severity_name(MPSFIX_SEV_WARNING), "warning");
	ck_assert_str_eq(mpsfix_severity_name(MPSFIX_SEV_INFO), "info");
}
END_TEST

/* --- broken rules: one exact message each ------------------------------------ */

typedef struct {
	const char *yaml;
	const char *message; /* exact, or a prefix when it ends in "..." */
} broken_case;

static const broken_case broken[] = {
	/* YAML itself */
	{"id: [a\n", "t.yml:2:1: did not find expected ',' or ']' (while parsing a flow "
		     "sequence at 1:5)"},
	{"id: a\n\tcode: b\n", "t.yml:2:1: found a tab character that violates indentation "
			       "(while scanning a plain scalar at 1:5)"},
	{"\tid: a\n", "t.yml:1:1: found character that cannot start any token "
		      "(YAML cannot indent with tabs)"},
	{"a: &x 1\nb: *x\n", "t.yml:2:4: aliases are not allowed in rule files"},
	{"id: !!str a\n", "t.yml:1:5: tags are not allowed in rule files"},
	{RULE_HEAD "match: f()\n---\nid: b\n",
	 "t.yml:7:1: a rule file holds one YAML document; a second one starts here"},
	{"", "t.yml:1:1: the file is empty; a rule is a mapping with id, code, severity, "
	     "message, torch and match"},
	{"- id: a\n", "t.yml:1:1: a rule must be a mapping of keys (id, code, severity, "
		      "message, torch, match, ...)"},
	{"id: a\ncode: MPS001\nid: b\n", "t.yml:3:1: duplicate key 'id' (first at line 1)"},
	{"id: a\n[x]: b\n", "t.yml:2:1: mapping keys must be plain strings"},
	/* keys */
	{"id: a\ncode: MPS001\nsevrity: info\n",
	 "t.yml:3:1: unknown key 'sevrity' (did you mean 'severity'?)"},
	{RULE_HEAD "match: f()\nsignature: [x]\n", "t.yml:7:13: bad signature: a signature is written `name(param, param=default, *, param)`"},
	{RULE_HEAD "match: f()\nsignature: 'f(x: Array)'\n", "t.yml:7:18: bad signature: unknown type in a signature: ..."},
	{RULE_HEAD "match: f()\nsignature: 'f(x, x)'\n", "t.yml:7:18: bad signature: parameter 'x' appears twice"},
	{RULE_HEAD "match: f()\nsignature: {f: x}\n", "t.yml:7:12: 'signature' must be a parameter list like ..."},
	{RULE_HEAD "match: a.f\nsignature: 'f(x)'\n", "t.yml:7:12: a rule with a 'signature' must match calls, but pattern 1 is not a call"},
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x)'\nfix:\n  safety: safe\n  template: g($y)\n",
	 "t.yml:10:15: fix names $y, which is not a parameter of the rule's signature"},
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x)'\nfix:\n  safety: safe\n  template: g($$$x)\n",
	 "t.yml:10:15: a signature parameter is used as $x in a template, not as $$$x or a replace/remove target"},
	{RULE_HEAD "match: f($x)\n", "t.yml:6:10: pattern does not parse: $x: metavariable names are in capitals ..."},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits:\n    - before-import: torch\n",
	 "t.yml:10:7: 'before-import' needs a 'template' to insert"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits:\n    - before-import: torch.cuda\n      template: g()\n",
	 "t.yml:10:22: 'before-import' names a top-level module, like torch"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits:\n    - before-import: torch\n      remove: $X\n      template: g()\n",
	 "t.yml:10:7: 'before-import' inserts new lines: it cannot be combined with 'replace' or 'remove'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  templat: g($X)\n",
	 "t.yml:9:3: unknown key 'templat' in 'fix' (did you mean 'template'?)"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not_regex: a}\n",
	 "t.yml:8:7: unknown key 'not_regex' in 'where' (did you mean 'not-regex'?)"},
	{RULE_HEAD "match: f()\nexamples:\n  invalid:\n    - {input: f(), outptu: g()}\n",
	 "t.yml:9:20: unknown key 'outptu' in 'invalid' (did you mean 'output'?)"},
	{"# rule\nid: a\ncode: MPS001\nseverity: info\nmessage: m\nmatch: f()\n",
	 "t.yml:2:1: missing required key 'torch'"},
	{RULE_HEAD "match: f()\nfix:\n  template: g()\n",
	 "t.yml:8:3: missing required key 'safety' in 'fix'"},
	/* types */
	{RULE_HEAD "match: {f: 1}\n", "t.yml:6:8: 'match' must be a pattern or a list of patterns"},
	{RULE_HEAD "match: [f(), [g()]]\n",
	 "t.yml:6:14: 'match' must be a pattern or a list of patterns"},
	{RULE_HEAD "match: []\n", "t.yml:6:8: 'match' must not be an empty list"},
	{RULE_HEAD "match:\n", "t.yml:6:7: 'match' must be a pattern or a list of patterns"},
	{"id: [a]\n", "t.yml:1:5: 'id' must be a string"},
	{RULE_HEAD "match: f()\nenabled: yes\n", "t.yml:7:10: 'enabled' must be true or false"},
	{RULE_HEAD "match: f($X)\nwhere: [X]\n",
	 "t.yml:7:8: 'where' must be a mapping from metavariable or parameter names to constraints"},
	{RULE_HEAD "match: f()\nfix: g()\n", "t.yml:7:6: 'fix' must be a mapping"},
	{RULE_HEAD "match: f()\nexamples:\n  valid: [[f()]]\n",
	 "t.yml:8:11: each 'valid' example must be a string"},
	/* values */
	{"id: To_MPS\n", "t.yml:1:5: bad id 'To_MPS': use lowercase letters, digits and single "
			 "dashes"},
	{"id: a--b\n", "t.yml:1:5: bad id 'a--b': use lowercase letters, digits and single dashes"},
	{"id: a\ncode: MPS06\n", "t.yml:2:7: bad code 'MPS06': expected MPS and three digits, "
				 "like MPS006"},
	{"id: a\ncode: MPS001\nseverity: warn\n",
	 "t.yml:3:11: bad severity 'warn': expected error, warning or info"},
	{"id: a\ncode: MPS001\nseverity: info\nmessage: m\ntorch: '>=2.3;<2.8'\n",
	 "t.yml:5:8: bad torch range '>=2.3;<2.8': expected 'all' or constraints like "
	 "'>=2.3,<2.8' (operators < <= > >= ==)"},
	{"id: a\ncode: MPS001\nseverity: info\nmessage: m\ntorch: '>=2.5, <2.3'\n",
	 "t.yml:5:8: bad torch range '>=2.5, <2.3': no version satisfies all of these constraints"},
	{"id: a\ncode: MPS001\nseverity: info\nmessage: m\ntorch: <0.0\n",
	 "t.yml:5:8: bad torch range '<0.0': no torch version is below 0.0"},
	{"id: a\ncode: MPS001\nseverity: info\nmessage: |\n  two\n  lines\n",
	 "t.yml:4:10: 'message' must be one line (put details in 'note')"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: maybe\n  template: g($X)\n",
	 "t.yml:8:11: bad safety 'maybe': expected safe or unsafe"},
	/* patterns and templates that do not parse, mapped into the file */
	{RULE_HEAD "match: foo($x)\n", "t.yml:6:12: pattern does not parse: ..."},
	{RULE_HEAD "match: \"foo(\\\"a\\\", $x)\"\n", "t.yml:6:20: pattern does not parse: ..."},
	{RULE_HEAD "match: 'foo(''a'', $x)'\n", "t.yml:6:20: pattern does not parse: ..."},
	{RULE_HEAD "match: |\n  foo(\n      a, $x)\n", "t.yml:8:10: pattern does not parse: ..."},
	{RULE_HEAD "match:\n  - f($X)\n  - >\n    g($X,\n    $$Y)\n",
	 "t.yml:10:5: pattern does not parse: ..."},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: |\n    [g(1),\n     h($x)]\n",
	 "t.yml:11:8: fix names $x: lower-case names are parameters of the rule's 'signature', and it has none"},
	/* metavariables across keys */
	{RULE_HEAD "match: f($X)\nwhere:\n  NB: {value: true}\n",
	 "t.yml:8:3: 'where' names $NB, which no pattern binds"},
	{RULE_HEAD "match: f($$$A)\nwhere:\n  A: {kind: identifier}\n",
	 "t.yml:8:3: $$$A binds a list of nodes and cannot be constrained"},
	{RULE_HEAD "match: f($X)\nwhere:\n  $$$X: {kind: identifier}\n",
	 "t.yml:8:3: $$$X binds a list of nodes and cannot be constrained"},
	{RULE_HEAD "match: f($X)\nwhere:\n  $X: {kind: identifier}\n",
	 "t.yml:8:3: write 'where' keys without '$': 'X'"},
	{RULE_HEAD "match:\n  - f($X, $Y)\n  - g($X)\nfix:\n  safety: safe\n"
		   "  template: h($X, $Y)\n",
	 "t.yml:11:19: fix names $Y, which pattern 2 does not bind"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  replace: $Y\n  template: g()\n",
	 "t.yml:9:12: fix names $Y, which pattern 1 does not bind"},
	/* a whitespace escape in a double-quoted template keeps the column right */
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: \"g(1, \\t $Y)\"\n",
	 "t.yml:9:22: fix names $Y, which pattern 1 does not bind"},
	{RULE_HEAD "match: f($$$A)\nfix:\n  safety: safe\n  remove: $$$A\n",
	 "t.yml:9:11: 'remove' needs a single-node metavariable, not $$$A"},
	{RULE_HEAD "match: f($$$A)\nfix:\n  safety: safe\n  replace: $A\n  template: g()\n",
	 "t.yml:9:12: 'replace' needs a single-node metavariable, but pattern 1 binds $$$A"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: g($$$X)\n",
	 "t.yml:9:15: fix uses $$$X, but pattern 1 binds $X to one node"},
	{RULE_HEAD "match: f($$$A)\nfix:\n  safety: safe\n  template: 'g(1, $A)'\n",
	 "t.yml:9:19: fix uses $A, but pattern 1 binds $$$A to a list of nodes"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: g($_)\n",
	 "t.yml:9:15: a fix cannot use $_, which binds nothing"},
	/* fix shapes */
	{RULE_HEAD "match: f($X)\nfix: {}\n",
	 "t.yml:7:6: 'fix' is empty: give 'safety' and a 'template', a 'remove', 'edits' or 'cases'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n",
	 "t.yml:8:3: 'fix' has no edit: give a 'template', a 'remove', an 'add-argument', 'edits' or 'cases'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: g()\n  remove: $X\n",
	 "t.yml:10:3: 'remove' cannot be combined with 'template'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits:\n    - remove: $X\n"
		   "      replace: $X\n",
	 "t.yml:10:7: 'remove' cannot be combined with 'replace'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  replace: $X\n",
	 "t.yml:9:3: 'replace' needs a 'template'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: g()\n  edits: []\n",
	 "t.yml:9:3: 'template' cannot be combined with 'edits' (put it in an edit)"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits: []\n",
	 "t.yml:9:10: 'edits' must not be empty"},
	{RULE_HEAD "match: f($X, $Y)\nfix:\n  safety: safe\n  edits:\n    - remove: $Y\n"
		   "    - template: g($X)\n",
	 "t.yml:11:7: an edit that replaces the whole match cannot be combined with other edits "
	 "(they would overlap); give it a 'replace' target"},
	/* constraints */
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {regex: '(a'}\n",
	 "t.yml:8:14: bad regex '(a': ..."},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {regex: '(a*)*\\1b'}\n",
	 "t.yml:8:20: regex: backreferences (\\1) are not allowed: they can take exponential time"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not-regex: 'x{300}'}\n",
	 "t.yml:8:20: not-regex: the repetition count 300 is over the limit of 255"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {regex: '((a{100}){100}){100}'}\n",
	 "t.yml:8:30: regex: the regex is too large to match in bounded time (its repetitions "
	 "multiply out to more than 10000 atoms)"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {kind: [identifier, idnetifier]}\n",
	 "t.yml:8:26: unknown node kind 'idnetifier'"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {}\n",
	 "t.yml:8:6: no constraint on $X: give one of value, not-value, regex, not-regex, kind, not-kind, pure, absent, with-item, statement, opt-in, used, pattern, not-pattern, has, not-has, any-of"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {value: {a: 1}}\n",
	 "t.yml:8:14: 'value' must be a literal or a list of literals"},
	/* examples */
	{RULE_HEAD "match: f()\nexamples:\n  invalid:\n    - output: g()\n",
	 "t.yml:9:7: missing required key 'input' in 'invalid'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: g()\nexamples:\n  invalid:\n"
		   "    - input: f(1)\n      output: g()\n      manual: \"x\"\n",
	 "t.yml:14:7: an example with 'manual' is not fixed: it has no 'output'"},
	{RULE_HEAD "match: f($X)\nexamples:\n  invalid:\n    - input: f(1)\n      manual: \"x\"\n",
	 "t.yml:10:7: an example with 'manual' expects a manual fix, but the rule has no 'fix'"},
	{RULE_HEAD "match: f($X)\nexamples:\n  invalid:\n    - input: f(1)\n      manual: \"\"\n",
	 "t.yml:10:15: 'manual' must be a string: part of the reason the fix is not applied"},
	{RULE_HEAD "match: f($X)\nexamples:\n  invalid:\n    - input: f(1)\n      manual: [a]\n",
	 "t.yml:10:15: 'manual' must be a string: part of the reason the fix is not applied"},
	/* constraint keys: types */
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not-value: {a: 1}}\n",
	 "t.yml:8:18: 'not-value' must be a literal or a list of literals"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not-value: []}\n",
	 "t.yml:8:18: 'not-value' must be a literal or a list of literals"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not-kind: {a: 1}}\n",
	 "t.yml:8:17: 'not-kind' must be a node kind or a list of node kinds"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not-kind: [identifier, idnetifier]}\n",
	 "t.yml:8:30: unknown node kind 'idnetifier'"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not-kind: [[a]]}\n",
	 "t.yml:8:18: 'not-kind' must be a node kind or a list of node kinds"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {with-item: 1}\n",
	 "t.yml:8:18: 'with-item' must be true or false"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {with-item: [true]}\n",
	 "t.yml:8:18: 'with-item' must be true or false"},
	{RULE_HEAD "match: f($X)\nwhere:\n  MATCH: {statement: yes please}\n",
	 "t.yml:8:22: 'statement' must be true or false"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {opt-in: 2}\n",
	 "t.yml:8:15: 'opt-in' must be true or false"},
	{RULE_HEAD "match: f($X)\nwhere:\n  MATCH: {used: maybe}\n",
	 "t.yml:8:17: 'used' must be true or false"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {pattern: {a: 1}}\n",
	 "t.yml:8:16: 'pattern' must be a pattern or a list of patterns"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {pattern: []}\n",
	 "t.yml:8:16: 'pattern' must not be an empty list"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {pattern: 'g('}\n",
	 "t.yml:8:17: pattern does not parse: syntax error"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {has: [g(), 'h(']}\n",
	 "t.yml:8:19: pattern does not parse: syntax error"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {not-has: [[g()]]}\n",
	 "t.yml:8:17: 'not-has' must be a pattern or a list of patterns"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: {value: 1}}\n",
	 "t.yml:8:15: 'any-of' must be a list of constraint mappings"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: []}\n",
	 "t.yml:8:15: 'any-of' must be a list of constraint mappings"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: [value]}\n",
	 "t.yml:8:16: the constraints on $X must be a mapping (value, not-value, regex, not-regex, "
	 "kind, not-kind, pure, absent, with-item, statement, opt-in, used, pattern, not-pattern, has, not-has, any-of)"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: [{}]}\n",
	 "t.yml:8:16: no constraint on $X: give one of value, not-value, regex, not-regex, kind, "
	 "not-kind, pure, absent, with-item, statement, opt-in, used, pattern, not-pattern, has, not-has, any-of"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: [{valeu: 1}]}\n",
	 "t.yml:8:17: unknown key 'valeu' in 'where' (did you mean 'value'?)"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X:\n    any-of:\n      - any-of:\n          - value: x\n"
		   "            bad: 1\n",
	 "t.yml:12:13: unknown key 'bad' in 'where'"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: [{any-of: [{any-of: [{any-of: [{any-of: [{any-of: "
		   "[{any-of: [{any-of: [{any-of: [{any-of: [{value: 1}]}]}]}]}]}]}]}]}]}]}\n",
	 "t.yml:8:96: 'any-of' is nested too deeply"},
	/* absent: parameters only */
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x)'\nwhere:\n  x: {absent: maybe}\n",
	 "t.yml:9:15: 'absent' must be true or false"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {absent: true}\n",
	 "t.yml:8:15: 'absent' applies to signature parameters (lower-case names), not to $X"},
	{RULE_HEAD "match: f($X)\nwhere:\n  MATCH: {absent: true}\n",
	 "t.yml:8:19: 'absent' applies to signature parameters (lower-case names), not to $MATCH"},
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: [{value: 1}, {absent: true}]}\n",
	 "t.yml:8:37: 'absent' applies to signature parameters (lower-case names), not to $X"},
	/* pure in `where` is the fix's business: it cannot be an alternative */
	{RULE_HEAD "match: f($X)\nwhere:\n  X: {any-of: [{kind: string}, {pure: true}]}\n",
	 "t.yml:8:33: 'pure' in 'where' is checked when the fix is written, not as an alternative "
	 "of 'any-of' (test it in a case's 'when')"},
	/* a key `when` does not know is named as in `when` */
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {X: {valeu: 1}}\n"
		   "      template: g()\n",
	 "t.yml:10:18: unknown key 'valeu' in 'when' (did you mean 'value'?)"},
	/* names in where/when: parameters of the signature, metavariables a pattern binds */
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x)'\nwhere:\n  x: {any-of: [{absent: true}, {value: 1}]}\n"
		   "  y: {absent: true}\n",
	 "t.yml:10:3: 'where' names y, which is not a parameter of the rule's signature"},
	/* *args and **kwargs parameters: nothing is bound to them */
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x, *rest, **kw)'\nwhere:\n  rest: {absent: true}\n",
	 "t.yml:9:3: 'where' names rest, a *args or **kwargs parameter: no argument is bound to it"},
	{RULE_HEAD "match: f($$$A)\nsignature: ['f(x, **kw)', 'f(x, kw)']\nfix:\n  safety: safe\n"
		   "  cases:\n    - when: {kw: {absent: false}}\n      manual: \"x\"\n",
	 "t.yml:11:14: 'when' names kw, a *args or **kwargs parameter: no argument is bound to it"},
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x, *rest)'\nfix:\n  safety: safe\n  template: g($x, $rest)\n",
	 "t.yml:10:19: fix names $rest, a *args or **kwargs parameter: no argument is bound to it"},
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x, *rest)'\nfix:\n  safety: safe\n  replace: rest\n"
		   "  template: '0'\n",
	 "t.yml:10:12: 'replace' names rest, a *args or **kwargs parameter: no argument is bound to it"},
	{RULE_HEAD "match: f($X)\nwhere:\n  dim: {absent: true}\n",
	 "t.yml:8:3: 'where' names dim: lower-case names are parameters of the rule's 'signature', "
	 "and it has none"},
	{RULE_HEAD "match: f($X)\ninside: g($N)\nwhere:\n  N: {value: 1}\n  M: {value: 2}\n",
	 "t.yml:10:3: 'where' names $M, which no pattern binds"},
	{RULE_HEAD "match: f($X)\nnot-inside: 'def $N(): $$$B'\nwhere:\n  N: {regex: a}\n  M: {value: 2}\n",
	 "t.yml:10:3: 'where' names $M, which no pattern binds"},
	{RULE_HEAD "match: f($X)\ninside: 'g($N)'\nnot-inside: 'h($$$N)'\nwhere:\n  N: {value: 1}\n",
	 "t.yml:10:3: $$$N binds a list of nodes and cannot be constrained"},
	{RULE_HEAD "match: f($X)\nnot-inside: 'g($N)'\nfix:\n  safety: safe\n  cases:\n"
		   "    - when: {N: {value: 1}}\n      template: '0'\n",
	 "t.yml:11:14: 'when' names $N, which no pattern binds"},
	/* enabled-by: a metavariable that one node binds, or a parameter of the signature */
	{RULE_HEAD "match: f($X)\nenabled-by: Y\n",
	 "t.yml:7:13: 'enabled-by' names $Y, which no pattern binds"},
	{RULE_HEAD "match: f($$$X)\nenabled-by: X\n",
	 "t.yml:7:13: $$$X binds a list of nodes and cannot be constrained"},
	{RULE_HEAD "match: f($X)\nenabled-by: enabled\n",
	 "t.yml:7:13: 'enabled-by' names enabled: lower-case names are parameters of the rule's "
	 "'signature', and it has none"},
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x, enabled=True)'\nenabled-by: on\n",
	 "t.yml:8:13: 'enabled-by' names on, which is not a parameter of the rule's signature"},
	{RULE_HEAD "match: f($X)\nwhere:\n  Bad: {value: 2}\n",
	 "t.yml:8:3: bad name 'Bad' in 'where' (metavariables are [A-Z_][A-Z0-9_]*, signature "
	 "parameters [a-z_][a-z0-9_]*)"},
	{RULE_HEAD "match: f($X)\nwhere:\n  _: {value: 2}\n",
	 "t.yml:8:3: $_ binds nothing and cannot be constrained"},
	{RULE_HEAD "match: f($MATCH)\n",
	 "t.yml:6:8: $MATCH names the whole match: it may be used in 'inside' patterns, not in 'match'"},
	/* the pattern of a list that uses it (it named the list) */
	{RULE_HEAD "match:\n  - f()\n  - g($MATCH)\n",
	 "t.yml:8:5: $MATCH names the whole match: it may be used in 'inside' patterns, not in 'match'"},
	{RULE_HEAD "match: f($X)\ninside: ['g($MATCH)', 'h($$$MATCH)']\n",
	 "t.yml:7:23: $MATCH stands for the match, one node: write $MATCH, not $$$MATCH"},
	{RULE_HEAD "match: f($X)\nnot-inside: 'h($$$MATCH)'\n",
	 "t.yml:7:13: $MATCH stands for the match, one node: write $MATCH, not $$$MATCH"},
	/* inside, not-inside, after-import */
	{RULE_HEAD "match: f($X)\ninside: {a: 1}\n",
	 "t.yml:7:9: 'inside' must be a pattern or a list of patterns"},
	{RULE_HEAD "match: f($X)\ninside: []\n", "t.yml:7:9: 'inside' must not be an empty list"},
	{RULE_HEAD "match: f($X)\ninside: 'g('\n", "t.yml:7:10: pattern does not parse: syntax error"},
	{RULE_HEAD "match: f($X)\nnot-inside: [g($MATCH), 'h(']\n",
	 "t.yml:7:26: pattern does not parse: syntax error"},
	{RULE_HEAD "match: f($X)\nnot-inside: {}\n",
	 "t.yml:7:13: 'not-inside' must be a pattern or a list of patterns"},
	{RULE_HEAD "match: f($X)\nafter-import: [torch]\n", "t.yml:7:15: 'after-import' must be a string"},
	{RULE_HEAD "match: f($X)\nafter-import: torch.nn\n",
	 "t.yml:7:15: 'after-import' names a top-level module, like torch"},
	{RULE_HEAD "match: f($X)\nafter-import: ''\n",
	 "t.yml:7:15: 'after-import' names a top-level module, like torch"},
	{RULE_HEAD "match: f($X)\nafter-import: 2torch\n",
	 "t.yml:7:15: 'after-import' names a top-level module, like torch"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits:\n    - before-import: 1os\n      template: g()\n",
	 "t.yml:10:22: 'before-import' names a top-level module, like torch"},
	/* cases */
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  when: {X: {value: 1}}\n  template: g()\n",
	 "t.yml:9:3: 'when' belongs to an item of 'cases'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  manual: \"no\"\n",
	 "t.yml:9:3: 'manual' belongs to an item of 'cases'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - manual: \"no\"\n      template: g()\n",
	 "t.yml:10:7: a case with 'manual' has no edits: it says why this form needs a manual fix"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - manual: \"no\"\n"
		   "      edits: [{remove: $X}]\n",
	 "t.yml:10:7: a case with 'manual' has no edits: it says why this form needs a manual fix"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - manual: \"\"\n",
	 "t.yml:10:15: 'manual' must give the reason"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - manual: [a]\n",
	 "t.yml:10:15: 'manual' must be a string"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - template: g()\n    - template: h()\n",
	 "t.yml:10:7: only the last case may leave out 'when': the cases after this one could never be used"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {}\n      template: g()\n"
		   "    - template: h()\n",
	 "t.yml:10:13: 'when' is empty: name what it checks, or leave it out (in the last case)"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases: []\n",
	 "t.yml:9:10: 'cases' must be a list of cases, each with an optional 'when' and the edits or 'manual'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases: {when: {}}\n",
	 "t.yml:9:10: 'cases' must be a list of cases, each with an optional 'when' and the edits or 'manual'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - g()\n",
	 "t.yml:10:7: each case must be a mapping (when, manual, edits, replace, template, remove, "
	 "before-import, add-argument)"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {X: {value: 1}}\n",
	 "t.yml:10:7: a case needs a 'template', a 'remove', an 'add-argument', 'edits' or 'manual'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {X: {value: 1}}\n"
		   "      templat: g()\n",
	 "t.yml:11:7: unknown key 'templat' in 'cases' (did you mean 'template'?)"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  template: g()\n  cases:\n    - template: h()\n",
	 "t.yml:9:3: 'template' cannot be combined with 'cases' (put it in a case)"},
	/* `when: {torch: SPEC}`: a rule's torch syntax, at the value */
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {torch: '>= 2.x'}\n"
		   "      template: g()\n    - template: h()\n",
	 "t.yml:10:21: bad torch range '>= 2.x' in 'when': ..."},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {torch: '>=2.5,<2.3'}\n"
		   "      template: g()\n    - template: h()\n",
	 "t.yml:10:21: bad torch range '>=2.5,<2.3' in 'when': ..."},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {torch: [2.6]}\n"
		   "      template: g()\n    - template: h()\n",
	 "t.yml:10:21: 'torch' in 'when' must be a version range, like '>= 2.7'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {torch: '>= 2.6', X: {valeu: 1}}\n"
		   "      template: g()\n    - template: h()\n",
	 "t.yml:10:35: unknown key 'valeu' in 'when' (did you mean 'value'?)"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: [X]\n      template: g()\n",
	 "t.yml:10:13: 'when' must be a mapping from metavariable or parameter names to constraints"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {Y: {value: 1}}\n"
		   "      template: g()\n",
	 "t.yml:10:14: 'when' names $Y, which no pattern binds"},
	/* `when` sees the match, not the metavariables of inside patterns */
	{RULE_HEAD "match: f($X)\ninside: g($N, $MATCH)\nfix:\n  safety: safe\n  cases:\n"
		   "    - when: {N: {value: 1}}\n      template: g()\n",
	 "t.yml:11:14: 'when' names $N, which no pattern binds"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {dim: {absent: true}}\n"
		   "      template: g()\n",
	 "t.yml:10:14: 'when' names dim: lower-case names are parameters of the rule's 'signature', "
	 "and it has none"},
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x)'\nfix:\n  safety: safe\n  cases:\n"
		   "    - when: {dim: {absent: true}}\n      template: g()\n",
	 "t.yml:11:14: 'when' names dim, which is not a parameter of the rule's signature"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  cases:\n    - when: {X: {absent: true}}\n"
		   "      template: g()\n",
	 "t.yml:10:26: 'absent' applies to signature parameters (lower-case names), not to $X"},
	/* add-argument is an edit of its own */
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  add-argument: e=0\n  template: g()\n",
	 "t.yml:10:3: 'add-argument' is its own edit: it cannot be combined with 'template'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  add-argument: e=0\n  remove: $X\n",
	 "t.yml:10:3: 'add-argument' is its own edit: it cannot be combined with 'remove'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits:\n    - add-argument: e=0\n      replace: $X\n",
	 "t.yml:11:7: 'add-argument' is its own edit: it cannot be combined with 'replace'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  edits:\n    - add-argument: e=0\n"
		   "      before-import: torch\n",
	 "t.yml:11:7: 'add-argument' is its own edit: it cannot be combined with 'before-import'"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  add-argument: [e]\n",
	 "t.yml:9:17: 'add-argument' must be a string"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  add-argument: 'e=('\n",
	 "t.yml:9:18: template does not parse: syntax error"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  add-argument: 'e=$Y'\n",
	 "t.yml:9:20: fix names $Y, which pattern 1 does not bind"},
	/* replace: a parameter; remove: a metavariable only */
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  remove: dim\n",
	 "t.yml:9:11: 'remove' must name a metavariable, like $X"},
	{RULE_HEAD "match: f($X)\nfix:\n  safety: safe\n  replace: dim\n  template: '0'\n",
	 "t.yml:9:12: 'replace' names dim: lower-case names are parameters of the rule's 'signature', "
	 "and it has none"},
	{RULE_HEAD "match: f($$$A)\nsignature: 'f(x)'\nfix:\n  safety: safe\n  replace: dim\n  template: '0'\n",
	 "t.yml:10:12: 'replace' names dim, which is not a parameter of the rule's signature"},
};

START_TEST(test_rule_broken)
{
	const broken_case *c = &broken[_i];
	const char *got;
	size_t n = strlen(c->message);
	static mpsfix_rule dummy;
	mpsfix_rule *r = &dummy; /* must come back NULL */

	ck_assert_msg(load(&r, c->yaml) < 0, "case %d loaded:\n%s", _i, c->yaml);
	got = mpsfix_error_last()->message;
	ck_assert_ptr_null(r);
	if (n > 3 && strcmp(c->message + n - 3, "...") == 0) {
		ck_assert_msg(strncmp(got, c->message, n - 3) == 0 && strlen(got) > n - 3,
			      "case %d: got '%s' for\n%s", _i, got, c->yaml);
	} else {
		ck_assert_msg(strcmp(got, c->message) == 0, "case %d: got '%s' for\n%s", _i, got,
			      c->yaml);
	}
}
END_TEST

START_TEST(test_rule_too_big)
{
	size_t n = 1024 * 1024 + 1;
	char *big = malloc(n);
	mpsfix_rule *r = NULL;

	memset(big, '#', n);
	ck_assert_int_lt(mpsfix_rule_load_buffer(&r, parser, "big.yml", big, n), 0);
	ck_assert_str_eq(mpsfix_error_last()->message, "big.yml: the file is larger than 1024 KiB");
	/* exactly 1 MiB of comments is an empty rule file, not too big */
	ck_assert_int_lt(mpsfix_rule_load_buffer(&r, parser, "big.yml", big, n - 1), 0);
	ck_assert_str_eq(mpsfix_error_last()->message, "big.yml:1:1: the file is empty; a rule is "
			 "a mapping with id, code, severity, message, torch and match");
	free(big);
}
END_TEST

START_TEST(test_rule_deep_nesting)
{
	char yaml[256];
	mpsfix_rule *r = NULL;

	memset(yaml, '[', 100);
	strcpy(yaml + 100, "\n");
	ck_assert_int_lt(load(&r, yaml), 0);
	ck_assert_str_eq(mpsfix_error_last()->message, "t.yml:1:33: nested deeper than 32 levels");
}
END_TEST

/* Offsets in a scalar's value map back to where they are written. */
START_TEST(test_rule_yaml_position)
{
	static const char text[] =
		"a: foo($x)\n"                 /* 1 */
		"b: 'it''s $x'\n"              /* 2 */
		"c: \"q\\\"\\t $x\"\n"         /* 3 */
		"d: |\n"                       /* 4 */
		"    f(\n"                     /* 5 */
		"\n"                           /* 6 */
		"      $x)\n"                  /* 7 */
		"e: \"\xc3\xa9t\xc3\xa9 $x\"\n" /* 8 */
		"f: one\n"                     /* 9 */
		"   two $x\n"                  /* 10 */
		"g: >\n"                       /* 11 */
		"  fold\n"                     /* 12 */
		"  ed $x\n";                   /* 13 */
	static const struct {
		size_t pair, offset;
		uint32_t line, col;
	} want[] = {
		{0, 0, 1, 4}, {0, 7, 1, 11}, {0, 10, 1, 11},
		{1, 0, 2, 5}, {1, 3, 2, 9}, {1, 5, 2, 11}, {1, 7, 2, 13},
		{2, 2, 3, 8}, {2, 4, 3, 11}, {2, 6, 3, 13},
		{3, 0, 5, 5}, {3, 6, 7, 7}, {3, 8, 7, 9}, {3, 10, 8, 5},
		{4, 6, 8, 9},
		{5, 0, 9, 4}, {5, 8, 10, 8},
		{6, 0, 12, 3}, {6, 8, 13, 6},
	};
	mpsfix_yaml_doc doc;

	ck_assert_int_eq(mpsfix_yaml_load(&doc, "p.yml", text, strlen(text)), 0);
	ck_assert_uint_eq(mpsfix_yaml_npairs(doc.root), 7);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(want); i++) {
		const mpsfix_yaml_node *v = mpsfix_yaml_value(doc.root, want[i].pair);
		uint32_t line = 0, col = 0;

		mpsfix_yaml_position(&doc, v, want[i].offset, &line, &col);
		ck_assert_msg(line == want[i].line && col == want[i].col,
			      "case %zu ('%s' + %zu): got %u:%u, want %u:%u", i, v->value,
			      want[i].offset, line, col, want[i].line, want[i].col);
	}
	mpsfix_yaml_release(&doc);
}
END_TEST

/* --- the bad rule files the command-line tests use ------------------------- */

static const char *const bad_files[] = {
	"not-yaml", "unknown-key", "bad-pattern", "unbound-metavar", "wrong-type", "empty",
	"alias-bomb",
};

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 4096);
	size_t n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	n = fread(buf, 1, 4095, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

START_TEST(test_rule_bad_files)
{
	const char *top = mpsfix_test_top();
	bool here = strcmp(top, ".") == 0;
	char *path = mpsfix_xasprintf("%s%sfixtures/bad-rules/%s.yml", here ? "" : top,
				      here ? "" : "/", bad_files[_i]);
	char *exp_path = mpsfix_xasprintf("%s%sfixtures/bad-rules/%s.expected", here ? "" : top,
					  here ? "" : "/", bad_files[_i]);
	char *expected = read_text(exp_path);
	char *want;
	mpsfix_rule *r = NULL;

	expected[strcspn(expected, "\n")] = '\0';
	want = mpsfix_xasprintf("%s%s%s", here ? "" : top, here ? "" : "/", expected);
	ck_assert_int_lt(mpsfix_rule_load_file(&r, parser, path), 0);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	free(want);
	free(expected);
	free(exp_path);
	free(path);
}
END_TEST

/* --- rule sets from folders ----------------------------------------------------- */

static char *sandbox_new(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = mpsfix_xasprintf("%s/mpsfix-rule-XXXXXX", tmp && *tmp ? tmp : "/tmp");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

static void sandbox_write(const char *dir, const char *name, const char *text)
{
	char *path = mpsfix_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
}

/* Remove `dir`, its files and its empty subfolders. */
static void sandbox_free(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *path;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = mpsfix_xasprintf("%s/%s", dir, de->d_name);
		if (unlink(path) < 0)
			rmdir(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

static char *rule_text(const char *id, const char *code)
{
	return mpsfix_xasprintf("id: %s\ncode: %s\nseverity: info\nmessage: m\ntorch: all\n"
				"match: f($X)\n", id, code);
}

static void sandbox_rule(const char *dir, const char *name, const char *id, const char *code)
{
	char *text = rule_text(id, code);

	sandbox_write(dir, name, text);
	free(text);
}

START_TEST(test_rule_set_folder_order)
{
	char *dir = sandbox_new(), *sub, *file;
	mpsfix_ruleset set = MPSFIX_RULESET_INIT;

	sandbox_rule(dir, "b.yml", "bee", "MPS002");
	sandbox_rule(dir, "a.yaml", "ay", "MPS001");
	sandbox_rule(dir, "B.yml", "big-bee", "MPS003");
	sandbox_write(dir, ".hidden.yml", "not: [a rule");
	sandbox_write(dir, "notes.txt", "not a rule");
	sandbox_write(dir, "x.yml.orig", "not a rule");
	sub = mpsfix_xasprintf("%s/sub.yml", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_msg(mpsfix_ruleset_load(&set, parser, dir) == 0, "%s",
		      mpsfix_error_last()->message);
	ck_assert_uint_eq(set.len, 3);
	ck_assert_str_eq(set.items[0]->id, "big-bee"); /* strcmp order: 'B' < 'a' < 'b' */
	ck_assert_str_eq(set.items[1]->id, "ay");
	ck_assert_str_eq(set.items[2]->id, "bee");
	file = mpsfix_xasprintf("%s/a.yaml", dir);
	ck_assert_str_eq(set.items[1]->path, file);
	free(file);

	/* one file by name, whatever its extension */
	sandbox_rule(dir, "single.rule", "single", "MPS004");
	file = mpsfix_xasprintf("%s/single.rule", dir);
	ck_assert_int_eq(mpsfix_ruleset_load(&set, parser, file), 0);
	ck_assert_uint_eq(set.len, 4);
	ck_assert_str_eq(set.items[3]->id, "single");
	free(file);
	mpsfix_ruleset_release(&set);
	ck_assert_uint_eq(set.len, 0);
	free(sub);
	sandbox_free(dir);
}
END_TEST

START_TEST(test_rule_set_duplicates)
{
	char *dir = sandbox_new(), *dir2 = sandbox_new(), *want;
	mpsfix_ruleset set = MPSFIX_RULESET_INIT;

	sandbox_rule(dir, "a.yml", "same", "MPS001");
	sandbox_rule(dir, "b.yml", "same", "MPS002");
	ck_assert_int_lt(mpsfix_ruleset_load(&set, parser, dir), 0);
	want = mpsfix_xasprintf("%s/b.yml: rule id 'same' is already used by %s/a.yml", dir, dir);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_uint_eq(set.len, 0);
	free(want);

	/* the same code across two loads */
	sandbox_rule(dir2, "c.yml", "other", "MPS001");
	sandbox_write(dir, "b.yml", "id: bee\ncode: MPS002\nseverity: info\nmessage: m\n"
				    "torch: all\nmatch: f()\n");
	ck_assert_int_eq(mpsfix_ruleset_load(&set, parser, dir), 0);
	ck_assert_uint_eq(set.len, 2);
	ck_assert_int_lt(mpsfix_ruleset_load(&set, parser, dir2), 0);
	want = mpsfix_xasprintf("%s/c.yml: rule code 'MPS001' is already used by %s/a.yml",
				dir2, dir);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_uint_eq(set.len, 2);
	free(want);
	mpsfix_ruleset_release(&set);
	sandbox_free(dir);
	sandbox_free(dir2);
}
END_TEST

START_TEST(test_rule_set_rollback)
{
	char *dir = sandbox_new(), *dir2 = sandbox_new(), *want;
	mpsfix_ruleset set = MPSFIX_RULESET_INIT;

	sandbox_rule(dir, "first.yml", "first", "MPS001");
	ck_assert_int_eq(mpsfix_ruleset_load(&set, parser, dir), 0);
	/* two good rules, then a broken one: none of the three stays */
	sandbox_rule(dir2, "a.yml", "a", "MPS010");
	sandbox_rule(dir2, "b.yml", "b", "MPS011");
	sandbox_write(dir2, "c.yml", "id: c\ncode: MPS012\nsevrity: info\n");
	ck_assert_int_lt(mpsfix_ruleset_load(&set, parser, dir2), 0);
	want = mpsfix_xasprintf("%s/c.yml:3:1: unknown key 'sevrity' (did you mean 'severity'?)",
				dir2);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_uint_eq(set.len, 1);
	ck_assert_str_eq(set.items[0]->id, "first");
	free(want);
	mpsfix_ruleset_release(&set);
	sandbox_free(dir);
	sandbox_free(dir2);
}
END_TEST

START_TEST(test_rule_set_unreadable)
{
	char *dir = sandbox_new(), *missing, *fifo, *file, *want;
	mpsfix_ruleset set = MPSFIX_RULESET_INIT;
	mpsfix_rule *r = NULL;
	FILE *f;

	missing = mpsfix_xasprintf("%s/nope", dir);
	ck_assert_int_lt(mpsfix_ruleset_load(&set, parser, missing), 0);
	want = mpsfix_xasprintf("cannot open rules '%s': No such file or directory", missing);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	free(want);

	/* a FIFO never blocks the loader */
	fifo = mpsfix_xasprintf("%s/pipe.yml", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_lt(mpsfix_rule_load_file(&r, parser, fifo), 0);
	want = mpsfix_xasprintf("%s: not a regular file", fifo);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_int_lt(mpsfix_ruleset_load(&set, parser, dir), 0);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_uint_eq(set.len, 0);
	free(want);

	if (geteuid() != 0) { /* root reads anything */
		ck_assert_int_eq(chmod(dir, 0), 0);
		ck_assert_int_lt(mpsfix_ruleset_load(&set, parser, dir), 0);
		want = mpsfix_xasprintf("cannot open rule folder '%s': Permission denied", dir);
		ck_assert_str_eq(mpsfix_error_last()->message, want);
		free(want);
		ck_assert_int_eq(chmod(dir, 0700), 0);
	}
	/* a file over 1 MiB is refused before it is parsed */
	file = mpsfix_xasprintf("%s/big.yml", dir);
	f = fopen(file, "wb");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 1024 * 1024 / 8 + 1; i++)
		fputs("# 3456\n\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_lt(mpsfix_rule_load_file(&r, parser, file), 0);
	want = mpsfix_xasprintf("%s: the file is larger than 1024 KiB", file);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_ptr_null(r);
	free(want);
	free(file);
	free(missing);
	free(fifo);
	mpsfix_ruleset_release(&set);
	sandbox_free(dir);
}
END_TEST

Suite *mpsfix_suite_rule(void)
{
	Suite *s = suite_create("rule");
	TCase *tc = tcase_create("load");
	TCase *sets = tcase_create("sets");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rule_full);
	tcase_add_test(tc, test_rule_defaults);
	tcase_add_test(tc, test_rule_skips_path);
	tcase_add_test(tc, test_rule_match_list);
	tcase_add_test(tc, test_rule_literals);
	tcase_add_test(tc, test_rule_conditions_and_cases);
	tcase_add_test(tc, test_rule_torch_ranges);
	tcase_add_test(tc, test_rule_case_torch);
	tcase_add_test(tc, test_rule_severity_name);
	tcase_add_loop_test(tc, test_rule_broken, 0, (int)MPSFIX_ARRAY_SIZE(broken));
	tcase_add_test(tc, test_rule_too_big);
	tcase_add_test(tc, test_rule_deep_nesting);
	tcase_add_test(tc, test_rule_yaml_position);
	tcase_add_loop_test(tc, test_rule_bad_files, 0, (int)MPSFIX_ARRAY_SIZE(bad_files));
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(sets, setup, teardown);
	tcase_add_test(sets, test_rule_set_folder_order);
	tcase_add_test(sets, test_rule_set_duplicates);
	tcase_add_test(sets, test_rule_set_rollback);
	tcase_add_test(sets, test_rule_set_unreadable);
	suite_add_tcase(s, sets);
	return s;
}
