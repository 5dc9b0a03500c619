/* check_ruletest.c: `mpsfix test` counts passes and failures honestly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruletest.h"
#include "tests.h"
#include "testutil.h"

static const char *good =
	"id: drop-flag\n"
	"code: MPS901\n"
	"severity: info\n"
	"message: drop flag=True\n"
	"torch: all\n"
	"match: 'f($$$A, flag=$F)'\n"
	"where:\n"
	"  F: {value: true}\n"
	"fix:\n"
	"  safety: safe\n"
	"  remove: $F\n"
	"examples:\n"
	"  invalid:\n"
	"    - input: |\n"
	"        f(1, flag=True)\n"
	"      output: |\n"
	"        f(1)\n"
	"    - input: |\n"
	"        f(flag=True)\n"
	"  valid:\n"
	"    - |\n"
	"      f(1, flag=False)\n";

static char *run_rule(const char *yaml, mpsfix_ruletest_counts *counts)
{
	mpsfix_rule *rule = NULL;
	mpsfix_ctx ctx;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_msg(mpsfix_rule_load_buffer(&rule, tu_parser(), "t.yml", yaml, strlen(yaml)) == 0,
		      "%s", mpsfix_error_last()->message);
	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_int_eq(mpsfix_ruletest_run(counts, out, &ctx, &rule, 1), 0);
	fclose(out);
	mpsfix_ctx_release(&ctx);
	mpsfix_rule_free(rule);
	return text;
}

START_TEST(test_ruletest_passing_examples)
{
	mpsfix_ruletest_counts c;
	char *text = run_rule(good, &c);

	ck_assert_uint_eq(c.passed, 3);
	ck_assert_uint_eq(c.failed, 0);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

START_TEST(test_ruletest_wrong_output_and_false_match_fail)
{
	char *yaml = mpsfix_xstrdup(good);
	mpsfix_ruletest_counts c;
	char *text;

	/* the expected output is wrong, and the valid example now matches */
	memcpy(strstr(yaml, "        f(1)\n"), "        f(2)\n", 13);
	memcpy(strstr(yaml, "flag=False"), "flag=True ", 10);
	text = run_rule(yaml, &c);
	ck_assert_uint_eq(c.passed, 1);
	ck_assert_uint_eq(c.failed, 2);
	ck_assert_ptr_nonnull(strstr(text, "FAIL t.yml:14: invalid example 1: the fix gives another text"));
	ck_assert_ptr_nonnull(strstr(text, "FAIL t.yml:21: valid example 1: MPS901 matched at 1:1, but must not"));
	free(text);
	free(yaml);
}
END_TEST

/* An invalid example may expect a manual fix: the reason must contain its text. */
START_TEST(test_ruletest_manual_examples)
{
	static const char yaml[] =
		"id: wrap\n"
		"code: MPS902\n"
		"severity: info\n"
		"message: wrap f\n"
		"torch: all\n"
		"match: 'f($X)'\n"
		"fix:\n"
		"  safety: safe\n"
		"  cases:\n"
		"    - when: {X: {kind: string}}\n"
		"      manual: \"a string argument\"\n"
		"    - template: 'g($X)'\n"
		"examples:\n"
		"  invalid:\n"
		"    - input: f('s')\n"          /* 15: passes */
		"      manual: \"string argument\"\n"
		"    - input: f('s')\n"          /* 17: another reason */
		"      manual: \"an integer\"\n"
		"    - input: f(1)\n"            /* 19: fixed, not manual */
		"      manual: \"a string\"\n"
		"    - input: h(1)\n"            /* 21: no match at all */
		"      manual: \"a string\"\n";
	mpsfix_ruletest_counts c;
	char *text = run_rule(yaml, &c);

	ck_assert_uint_eq(c.passed, 1);
	ck_assert_uint_eq(c.failed, 3);
	ck_assert_ptr_nonnull(strstr(text, "FAIL t.yml:17: invalid example 2: expected a manual fix "
				 "(\"an integer\"), got \"a string argument\"\n"));
	ck_assert_ptr_nonnull(strstr(text, "FAIL t.yml:19: invalid example 3: expected a manual fix "
				 "(\"a string\"), got a fix\n"));
	ck_assert_ptr_nonnull(strstr(text, "FAIL t.yml:21: invalid example 4: MPS902 did not match\n"));
	ck_assert_ptr_null(strstr(text, "t.yml:15"));
	free(text);
}
END_TEST

Suite *mpsfix_suite_ruletest(void)
{
	Suite *s = suite_create("ruletest");
	TCase *tc = tcase_create("examples");

	tcase_add_test(tc, test_ruletest_passing_examples);
	tcase_add_test(tc, test_ruletest_wrong_output_and_false_match_fail);
	tcase_add_test(tc, test_ruletest_manual_examples);
	suite_add_tcase(s, tc);
	return s;
}
