/*
 * check_review.c: the review's questions and answers, with the answers
 * written into a pipe (the terminal itself is tested under tmux by
 * tests/t0310-review-tmux.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git.h"
#include "review.h"
#include "testutil.h"
#include "tests.h"

static const char one_to_two[] =
	"id: one-to-two\ncode: MPS901\nseverity: warning\nmessage: one() becomes two()\n"
	"torch: all\nmatch: 'one($X)'\nfix:\n  safety: safe\n  template: 'two($X)'\n";
static const char two_to_three[] =
	"id: two-to-three\ncode: MPS902\nseverity: warning\nmessage: two() becomes three()\n"
	"torch: all\nmatch: 'two($X)'\nfix:\n  safety: safe\n  template: 'three($X)'\n";

typedef struct {
	mpsfix_review_result res;
	char *out;               /* what the review printed */
	char *text;              /* the file's text after it */
	size_t steps;
} outcome;

static void outcome_release(outcome *o)
{
	free(o->out);
	free(o->text);
}

/*
 * Review `code` (one file, `path`, in the repository `name`) with rules
 * MPS901 then MPS902, answering with the bytes of `keys`; `stop` sets the
 * interrupt flag first.
 */
static outcome review_file(const char *path, const char *name, const char *code, const char *keys,
			   bool color, bool stop)
{
	mpsfix_rule *rules[] = {tu_yaml_rule(one_to_two), tu_yaml_rule(two_to_three)};
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_engine_opts eo = {.suppress = true};
	volatile sig_atomic_t flag = stop;
	mpsfix_review_opts ro = {.color = color, .interrupted = &flag};
	mpsfix_ctx ctx;
	outcome o = {0};
	size_t out_len = 0, len;
	int fds[2];

	ck_assert_int_eq(mpsfix_git_init(), 0);
	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], keys, strlen(keys)), (ssize_t)strlen(keys));
	close(fds[1]);
	ro.in = fds[0];
	ro.out = open_memstream(&o.out, &out_len);
	ck_assert_ptr_nonnull(ro.out);
	mpsfix_series_add_file(&s, path, name, code, strlen(code), false, 0);
	ck_assert_msg(mpsfix_review_run(&o.res, &s, &ctx, rules, 2, &eo, &ro, NULL, NULL) == 0, "%s",
		      mpsfix_error_last()->message);
	fclose(ro.out);
	close(fds[0]);
	o.text = mpsfix_xstrdup(mpsfix_series_text(&s, 0, &len));
	o.steps = s.nsteps;
	mpsfix_series_release(&s);
	mpsfix_rule_free(rules[0]);
	mpsfix_rule_free(rules[1]);
	mpsfix_ctx_release(&ctx);
	mpsfix_git_shutdown();
	return o;
}

static outcome review(const char *code, const char *keys, bool color, bool stop)
{
	return review_file("src/a.py", "a.py", code, keys, color, stop);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

START_TEST(test_review_yes_no)
{
	outcome o = review("x = one(1)\ny = one(2)\nz = one(3)\n", "yny" "ny", false, false);

	ck_assert_str_eq(o.text, "x = two(1)\ny = one(2)\nz = three(3)\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_DONE);
	/* MPS901: y n y; MPS902 on two(1) and two(3): n, then y */
	ck_assert_uint_eq(o.res.accepted, 3);
	ck_assert_uint_eq(o.res.declined, 2);
	ck_assert_uint_eq(o.steps, 2);
	/* each fix with its place, rule and message, its hunk, and the question */
	ck_assert_ptr_nonnull(strstr(o.out, "\nsrc/a.py:1:5: MPS901 one-to-two: one() becomes two()\n"
					    "@@ -1,3 +1,3 @@\n"
					    "-x = one(1)\n"
					    "+x = two(1)\n"
					    " y = one(2)\n"
					    " z = one(3)\n"
					    "(1/3) MPS901: apply this fix? [y]es [n]o [a]ll for this rule "
					    "[s]kip rule [q]uit [?] y\n"));
	ck_assert_ptr_nonnull(strstr(o.out, "src/a.py:3:5: MPS901"));
	ck_assert_ptr_nonnull(strstr(o.out, "(3/3) MPS901: apply this fix?"));
	ck_assert_ptr_nonnull(strstr(o.out, "(2/2) MPS902: apply this fix?"));
	ck_assert_ptr_null(strstr(o.out, "\033["));
	outcome_release(&o);
}
END_TEST

START_TEST(test_review_all_and_skip_rule)
{
	/* a: every MPS901 fix without asking; s: no MPS902 fix */
	outcome o = review("one(1)\none(2)\none(3)\n", "as", false, false);

	ck_assert_str_eq(o.text, "two(1)\ntwo(2)\ntwo(3)\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_DONE);
	ck_assert_uint_eq(o.res.accepted, 3);
	ck_assert_uint_eq(o.res.declined, 3);
	ck_assert_uint_eq(count(o.out, "apply this fix?"), 2);
	outcome_release(&o);
}
END_TEST

START_TEST(test_review_quit_keeps_answers)
{
	outcome o = review("one(1)\none(2)\n", "yq", false, false);

	ck_assert_str_eq(o.text, "two(1)\none(2)\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_QUIT);
	ck_assert_uint_eq(o.res.accepted, 1);
	ck_assert_uint_eq(o.res.declined, 0);
	/* nothing is asked after q, not even the next rule */
	ck_assert_uint_eq(count(o.out, "apply this fix?"), 2);
	ck_assert_ptr_null(strstr(o.out, "MPS902"));
	outcome_release(&o);
	/* the end of the answers is a q; line breaks and spaces are not answers */
	o = review("one(1)\none(2)\n", "y\n \r\n", false, false);
	ck_assert_str_eq(o.text, "two(1)\none(2)\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_QUIT);
	outcome_release(&o);
	/* ^D too */
	o = review("one(1)\n", "\004y", false, false);
	ck_assert_str_eq(o.text, "one(1)\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_QUIT);
	outcome_release(&o);
}
END_TEST

START_TEST(test_review_help_and_unknown)
{
	outcome o = review("one(1)\n", "?xY" "n", false, false);

	ck_assert_str_eq(o.text, "two(1)\n");
	ck_assert_ptr_nonnull(strstr(o.out, "a - apply this fix and every later fix of this rule\n"));
	ck_assert_ptr_nonnull(strstr(o.out, "unknown answer 'x'\n"));
	/* the question is asked again after each */
	ck_assert_uint_eq(count(o.out, "(1/1) MPS901: apply this fix?"), 3);
	outcome_release(&o);
}
END_TEST

START_TEST(test_review_interrupted)
{
	outcome o = review("one(1)\n", "yyyy", false, true);

	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_INTERRUPTED);
	ck_assert_str_eq(o.text, "one(1)\n");
	ck_assert_uint_eq(o.steps, 0);
	outcome_release(&o);
}
END_TEST

START_TEST(test_review_answers_carry_over)
{
	/* the first fix makes the text longer; the declined second is not asked again */
	outcome o = review("two(1)\ntwo(2)\n", "yn", false, false);

	ck_assert_str_eq(o.text, "three(1)\ntwo(2)\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_DONE);
	ck_assert_uint_eq(count(o.out, "apply this fix?"), 2);
	outcome_release(&o);
}
END_TEST

START_TEST(test_review_nested_fixes)
{
	/* the inner call waits for the outer fix, then is asked about again in its new text */
	outcome o = review("x = one(one(1))\n", "yyy", false, false);

	ck_assert_str_eq(o.text, "x = two(two(1))\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_QUIT); /* MPS902 asked: no answer left */
	ck_assert_uint_eq(count(o.out, "MPS901: apply this fix?"), 3);
	outcome_release(&o);
	o = review("x = one(one(1))\n", "yynss", false, false);
	ck_assert_str_eq(o.text, "x = two(one(1))\n");
	ck_assert_int_eq(o.res.end, MPSFIX_REVIEW_DONE);
	outcome_release(&o);
}
END_TEST

#define NB_CELL(type, source) \
	"  {\n   \"cell_type\": \"" type "\",\n   \"metadata\": {},\n   \"source\": " source "\n  }"
#define NB(cells) \
	"{\n \"cells\": [\n" cells "\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n" \
	" \"nbformat_minor\": 5\n}\n"

START_TEST(test_review_notebook)
{
	/* the hunks are the cells' sources (IPython lines as written), not the JSON */
	static const char nb[] = NB(
		NB_CELL("markdown", "[\n    \"# one\"\n   ]") ",\n"
		NB_CELL("code", "[\n    \"import torch\\n\",\n    \"x = one(1)\\n\",\n"
				"    \"y = one(2)\"\n   ]") ",\n"
		NB_CELL("code", "[\n    \"!ls\\n\",\n    \"z = one(3)\\n\"\n   ]"));
	static const char want[] = NB(
		NB_CELL("markdown", "[\n    \"# one\"\n   ]") ",\n"
		NB_CELL("code", "[\n    \"import torch\\n\",\n    \"x = three(1)\\n\",\n"
				"    \"y = one(2)\"\n   ]") ",\n"
		NB_CELL("code", "[\n    \"!ls\\n\",\n    \"z = two(3)\\n\"\n   ]"));
	outcome o = review_file("nb/a.ipynb", "a.ipynb", nb, "yny" "yn", false, false);

	ck_assert_str_eq(o.text, want);
	ck_assert_uint_eq(o.res.accepted, 3);
	ck_assert_uint_eq(o.res.declined, 2);
	ck_assert_ptr_nonnull(strstr(o.out, "\nnb/a.ipynb:cell 2:2:5: MPS901 one-to-two: one() becomes two()\n"
					    "@@ -1,3 +1,3 @@\n"
					    " import torch\n"
					    "-x = one(1)\n"
					    "+x = two(1)\n"
					    " y = one(2)\n"));
	ck_assert_ptr_nonnull(strstr(o.out, "\nnb/a.ipynb:cell 3:2:5: MPS901 one-to-two: one() becomes two()\n"
					    "@@ -1,2 +1,2 @@\n"
					    " !ls\n"
					    "-z = one(3)\n"
					    "+z = two(3)\n"
					    "(3/3) MPS901"));
	ck_assert_ptr_null(strstr(o.out, "\"source\""));
	ck_assert_ptr_null(strstr(o.out, "\x1f"));
	outcome_release(&o);
}
END_TEST

START_TEST(test_review_colors)
{
	outcome o = review("one(1)\n", "n", true, false);

	ck_assert_ptr_nonnull(strstr(o.out, "\033[36m@@ -1 +1 @@\033[0m\n"));
	ck_assert_ptr_nonnull(strstr(o.out, "\033[31m-one(1)\033[0m\n"));
	ck_assert_ptr_nonnull(strstr(o.out, "\033[32m+two(1)\033[0m\n"));
	outcome_release(&o);
}
END_TEST

Suite *mpsfix_suite_review(void)
{
	Suite *s = suite_create("review");
	TCase *tc = tcase_create("review");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_review_yes_no);
	tcase_add_test(tc, test_review_all_and_skip_rule);
	tcase_add_test(tc, test_review_quit_keeps_answers);
	tcase_add_test(tc, test_review_help_and_unknown);
	tcase_add_test(tc, test_review_interrupted);
	tcase_add_test(tc, test_review_answers_carry_over);
	tcase_add_test(tc, test_review_nested_fixes);
	tcase_add_test(tc, test_review_colors);
	tcase_add_test(tc, test_review_notebook);
	suite_add_tcase(s, tc);
	return s;
}
