/* check_rulelist.c: the rules table, its JSON, the explain page, finding a rule by name. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rulelist.h"
#include "tests.h"
#include "testutil.h"

static mpsfix_rule *load(const char *yaml)
{
	mpsfix_rule *r = NULL;

	ck_assert_msg(mpsfix_rule_load_buffer(&r, tu_parser(), "rules/x.yml", yaml, strlen(yaml)) == 0,
		      "%s", mpsfix_error_last()->message);
	return r;
}

/* Three rules: a safe fix before 2.4, an unsafe fix for every version, a lint off by default. */
static mpsfix_rule *rules[3];

static void setup(void)
{
	rules[0] = load("id: zeta-old\ncode: MPS020\nseverity: error\nmessage: old bug\n"
			"note: |\n  Two lines\n  of note.\nurl: https://x/1\ntorch: '< 2.4'\n"
			"match: f()\nfix:\n  safety: safe\n  template: g()\n");
	rules[1] = load("id: alpha-any\ncode: MPS010\nseverity: warning\nmessage: any bug\n"
			"torch: all\nmatch: h()\nfix:\n  safety: unsafe\n  template: k()\n");
	rules[2] = load("id: lint-new\ncode: MPS201\nseverity: info\nmessage: a lint\n"
			"torch: '>=2.5'\nenabled: false\nmatch: m()\n");
}

static void teardown(void)
{
	for (size_t i = 0; i < 3; i++)
		mpsfix_rule_free(rules[i]);
}

/* What `fn` writes to a stream, as a string (malloc'd). */
static char *capture_print(const mpsfix_rule_status *st, mpsfix_rulelist_format format)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(mpsfix_rulelist_print(f, rules, st, 3, format), 0);
	fclose(f);
	return text;
}

START_TEST(test_rulelist_format_parse)
{
	mpsfix_rulelist_format f;

	ck_assert_int_eq(mpsfix_rulelist_format_parse(&f, NULL), 0);
	ck_assert_int_eq(f, MPSFIX_RULELIST_TEXT);
	ck_assert_int_eq(mpsfix_rulelist_format_parse(&f, "concise"), 0);
	ck_assert_int_eq(f, MPSFIX_RULELIST_TEXT);
	ck_assert_int_eq(mpsfix_rulelist_format_parse(&f, "full"), 0);
	ck_assert_int_eq(f, MPSFIX_RULELIST_TEXT);
	ck_assert_int_eq(mpsfix_rulelist_format_parse(&f, "json"), 0);
	ck_assert_int_eq(f, MPSFIX_RULELIST_JSON);
	ck_assert_int_eq(mpsfix_rulelist_format_parse(&f, "jsonl"), 0);
	ck_assert_int_eq(f, MPSFIX_RULELIST_JSONL);
	ck_assert_int_eq(mpsfix_rulelist_format_parse(&f, "sarif"), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "--format sarif: rules are listed as text (full, concise), json or jsonl");
}
END_TEST

START_TEST(test_rulelist_reason)
{
	mpsfix_rule_status runs = {true, false, true}, out = {true, false, false},
			   unselected = {false, false, true}, ignored = {false, true, true};

	ck_assert_ptr_null(mpsfix_rule_status_reason(rules[0], &runs));
	ck_assert_str_eq(mpsfix_rule_status_reason(rules[0], &out), "not for the torch target");
	ck_assert_str_eq(mpsfix_rule_status_reason(rules[0], &unselected), "not selected");
	ck_assert_str_eq(mpsfix_rule_status_reason(rules[2], &unselected), "off by default");
	ck_assert_str_eq(mpsfix_rule_status_reason(rules[2], &ignored), "ignored");
}
END_TEST

START_TEST(test_rulelist_table)
{
	mpsfix_rule_status st[3] = {{true, false, false}, {true, false, true}, {false, false, false}};
	char *text = capture_print(st, MPSFIX_RULELIST_TEXT);

	ck_assert_str_eq(text,
			 "CODE    ID         SEVERITY  FIX     AFFECTS  DEFAULT  RUNS\n"
			 "MPS010  alpha-any  warning   unsafe  all      on       yes\n"
			 "MPS020  zeta-old   error     safe    <2.4     on       no (not for the torch target)\n"
			 "MPS201  lint-new   info      no      >=2.5    off      no (off by default)\n");
	free(text);
}
END_TEST

START_TEST(test_rulelist_json)
{
	mpsfix_rule_status st[3] = {{true, false, true}, {true, false, true}, {false, true, true}};
	char *text = capture_print(st, MPSFIX_RULELIST_JSON);
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr), *o;

	ck_assert_msg(doc != NULL, "%s: %s", jerr.text, text);
	ck_assert(json_is_array(doc));
	ck_assert_uint_eq(json_array_size(doc), 3);
	o = json_array_get(doc, 1); /* sorted by code: MPS010, MPS020, MPS201 */
	ck_assert_str_eq(json_string_value(json_object_get(o, "code")), "MPS020");
	ck_assert_str_eq(json_string_value(json_object_get(o, "id")), "zeta-old");
	ck_assert_str_eq(json_string_value(json_object_get(o, "severity")), "error");
	ck_assert_str_eq(json_string_value(json_object_get(o, "message")), "old bug");
	ck_assert_str_eq(json_string_value(json_object_get(o, "fix")), "safe");
	ck_assert_str_eq(json_string_value(json_object_get(o, "torch")), "< 2.4");
	ck_assert_str_eq(json_string_value(json_object_get(o, "affects")), "<2.4");
	ck_assert(json_is_true(json_object_get(o, "enabled")));
	ck_assert(json_is_true(json_object_get(o, "selected")));
	ck_assert(json_is_true(json_object_get(o, "in_target")));
	ck_assert(json_is_true(json_object_get(o, "runs")));
	ck_assert(json_is_null(json_object_get(o, "reason")));
	ck_assert_str_eq(json_string_value(json_object_get(o, "note")), "Two lines\nof note.\n");
	ck_assert_str_eq(json_string_value(json_object_get(o, "url")), "https://x/1");
	ck_assert_str_eq(json_string_value(json_object_get(o, "path")), "rules/x.yml");
	o = json_array_get(doc, 2);
	ck_assert(json_is_false(json_object_get(o, "runs")));
	ck_assert(json_is_false(json_object_get(o, "enabled")));
	ck_assert_str_eq(json_string_value(json_object_get(o, "reason")), "ignored");
	ck_assert(json_is_null(json_object_get(o, "note")));
	ck_assert(json_is_null(json_object_get(o, "url")));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(doc, 0), "fix")), "unsafe");
	json_decref(doc);
	free(text);
	/* jsonl: the same objects, one a line */
	text = capture_print(st, MPSFIX_RULELIST_JSONL);
	ck_assert_int_eq(strncmp(text, "{\"code\":\"MPS010\",\"id\":\"alpha-any\",", 34), 0);
	ck_assert_ptr_nonnull(strstr(text, "}\n{\"code\":\"MPS020\""));
	ck_assert_ptr_nonnull(strstr(text, "}\n{\"code\":\"MPS201\""));
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
	free(text);
}
END_TEST

static char *capture_explain(size_t i, const mpsfix_rule_status *st, const char *target)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(mpsfix_rulelist_explain(f, rules[i], st, target, MPSFIX_RULELIST_TEXT), 0);
	fclose(f);
	return text;
}

START_TEST(test_rulelist_explain)
{
	mpsfix_rule_status runs = {true, false, true}, out = {true, false, false},
			   off = {false, false, true};
	char *text = capture_explain(0, &runs, "target torch 2.1 (requirements.txt:1)");

	ck_assert_str_eq(text,
			 "MPS020 (zeta-old): old bug\n"
			 "\n"
			 "  severity  error\n"
			 "  fix       safe\n"
			 "  affects   torch <2.4\n"
			 "  runs      yes; target torch 2.1 (requirements.txt:1)\n"
			 "  default   on\n"
			 "  url       https://x/1\n"
			 "  file      rules/x.yml\n"
			 "\n"
			 "Two lines\n"
			 "of note.\n");
	free(text);
	text = capture_explain(0, &out, "target torch 2.5 (--target-torch)");
	ck_assert_ptr_nonnull(strstr(text, "  runs      no: torch <2.4 is outside the target torch 2.5 "
					   "(--target-torch)\n"));
	free(text);
	text = capture_explain(1, &runs, "target torch: every MPS-capable version");
	ck_assert_ptr_nonnull(strstr(text, "  fix       unsafe (applied with --unsafe-fixes)\n"));
	ck_assert_ptr_null(strstr(text, "url"));
	free(text);
	text = capture_explain(2, &off, "t");
	ck_assert_ptr_nonnull(strstr(text, "  fix       no (report only)\n"));
	ck_assert_ptr_nonnull(strstr(text, "  runs      no: off by default\n"));
	ck_assert_ptr_nonnull(strstr(text, "  default   off (turn it on with --extend-select or select:)\n"));
	free(text);
}
END_TEST

START_TEST(test_rulelist_find)
{
	size_t i = 99;

	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "MPS010"), 0);
	ck_assert_uint_eq(i, 1);
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "lint-new"), 0);
	ck_assert_uint_eq(i, 2);
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "mps020"), 0);
	ck_assert_uint_eq(i, 0);
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "MPS02"), MPSFIX_ENOMATCH);
	ck_assert_str_eq(mpsfix_error_last()->message, "unknown rule 'MPS02' (did you mean MPS020?)");
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "MPS0"), MPSFIX_ENOMATCH);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "unknown rule 'MPS0' (did you mean MPS010, MPS020 or MPS201?)");
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "MPS01"), MPSFIX_ENOMATCH);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "unknown rule 'MPS01' (did you mean MPS010 or MPS201?)");
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "zeta-olb"), MPSFIX_ENOMATCH);
	ck_assert_str_eq(mpsfix_error_last()->message, "unknown rule 'zeta-olb' (did you mean zeta-old?)");
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 3, "frobnicate"), MPSFIX_ENOMATCH);
	ck_assert_str_eq(mpsfix_error_last()->message, "unknown rule 'frobnicate' (give a code such as "
			 "MPS001 or a rule id; 'mpsfix rules' lists them)");
	ck_assert_int_eq(mpsfix_rulelist_find(&i, rules, 0, "MPS010"), MPSFIX_ENOMATCH);
}
END_TEST

/* A stream that cannot be written is an error, not a silent success. */
START_TEST(test_rulelist_write_error)
{
	mpsfix_rule_status st[3] = {{true, false, true}, {true, false, true}, {true, false, true}};
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		return; /* no /dev/full here */
	ck_assert_int_eq(mpsfix_rulelist_print(f, rules, st, 3, MPSFIX_RULELIST_TEXT), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_rulelist_explain(f, rules[0], &st[0], "t", MPSFIX_RULELIST_JSON), MPSFIX_ERROR);
	fclose(f);
}
END_TEST

Suite *mpsfix_suite_rulelist(void)
{
	Suite *s = suite_create("rulelist");
	TCase *tc = tcase_create("rulelist");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rulelist_format_parse);
	tcase_add_test(tc, test_rulelist_reason);
	tcase_add_test(tc, test_rulelist_table);
	tcase_add_test(tc, test_rulelist_json);
	tcase_add_test(tc, test_rulelist_explain);
	tcase_add_test(tc, test_rulelist_find);
	tcase_add_test(tc, test_rulelist_write_error);
	suite_add_tcase(s, tc);
	return s;
}
