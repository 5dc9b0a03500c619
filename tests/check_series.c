/* check_series.c: fixes rule by rule as steps, and the commit messages. */
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "testutil.h"
#include "tests.h"

/* one(X) → two(X), then two(X) → three(X): the second works on the first's output */
static const char one_to_two[] =
	"id: one-to-two\ncode: MPS901\nseverity: warning\nmessage: one() becomes two()\n"
	"url: https://example.com/901\ntorch: all\n"
	"match: 'one($X)'\nfix:\n  safety: safe\n  template: 'two($X)'\n";
static const char two_to_three[] =
	"id: two-to-three\ncode: MPS902\nseverity: warning\nmessage: two() becomes three()\n"
	"torch: all\n"
	"match: 'two($X)'\nfix:\n  safety: safe\n  template: 'three($X)'\n";
static const char unsafe_four[] =
	"id: four\ncode: MPS903\nseverity: warning\nmessage: four\ntorch: all\n"
	"match: 'four($X)'\nfix:\n  safety: unsafe\n  template: 'five($X)'\n";

static const char *text_of(const mpsfix_series *s, size_t f)
{
	size_t len;
	const char *t = mpsfix_series_text(s, f, &len);

	ck_assert_uint_eq(strlen(t), len);
	return t;
}

START_TEST(test_series_record_and_text)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *a = tu_yaml_rule(one_to_two), *b = tu_yaml_rule(two_to_three);
	size_t n, *changed;

	ck_assert_uint_eq(mpsfix_series_add_file(&s, "x.py", "pkg/x.py", "v0\n", 3, true, 0644), 0);
	ck_assert_uint_eq(mpsfix_series_add_file(&s, "y.py", NULL, "w0\n", 3, false, 0), 1);
	ck_assert_str_eq(text_of(&s, 0), "v0\n");
	/* the same text again: nothing */
	mpsfix_series_record(&s, a, 0, "v0\n", 3, 1);
	ck_assert_uint_eq(s.nsteps, 0);
	mpsfix_series_record(&s, a, 0, "v1\n", 3, 2);
	mpsfix_series_record(&s, a, 1, "w1\n", 3, 1);
	/* the same rule and file again: the step's change is replaced, its sites added */
	mpsfix_series_record(&s, a, 0, "v2\n", 3, 1);
	ck_assert_uint_eq(s.nsteps, 1);
	ck_assert_uint_eq(s.steps[0].nchanges, 2);
	ck_assert_uint_eq(s.steps[0].changes[0].sites, 3);
	ck_assert_uint_eq(s.steps[0].sites, 4);
	mpsfix_series_record(&s, b, 0, "v3\n", 3, 1);
	ck_assert_uint_eq(s.nsteps, 2);
	ck_assert_ptr_eq(s.steps[1].rule, b);
	ck_assert_str_eq(text_of(&s, 0), "v3\n");
	ck_assert_str_eq(text_of(&s, 1), "w1\n");
	/* the original stays */
	ck_assert_str_eq(s.files[0].text, "v0\n");
	changed = mpsfix_series_changed(&s, &n);
	ck_assert_uint_eq(n, 2);
	free(changed);
	/* back to the original text: not changed */
	mpsfix_series_record(&s, b, 1, "w0\n", 3, 1);
	changed = mpsfix_series_changed(&s, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(changed[0], 0);
	free(changed);
	/* warnings once each */
	mpsfix_series_warn(&s, "w");
	mpsfix_series_warn(&s, "w");
	ck_assert_uint_eq(s.nwarnings, 1);
	mpsfix_series_release(&s);
	mpsfix_rule_free(a);
	mpsfix_rule_free(b);
}
END_TEST

START_TEST(test_series_fix_rule_by_rule)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *rules[] = {tu_yaml_rule(two_to_three), tu_yaml_rule(one_to_two)};
	mpsfix_engine_opts eo = {.fix = true, .suppress = true};
	mpsfix_series_left left;
	mpsfix_index *ix;
	mpsfix_ctx ctx;
	const char *a = "x = one(1)\ny = two(2)\n", *b = "z = 0\n", *c = "w = one(one(3))\n";

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	mpsfix_series_order(rules, 2);
	ck_assert_str_eq(rules[0]->code, "MPS901");
	mpsfix_series_add_file(&s, "a.py", "a.py", a, strlen(a), false, 0);
	mpsfix_series_add_file(&s, "b.py", "b.py", b, strlen(b), false, 0);
	mpsfix_series_add_file(&s, "c.py", "c.py", c, strlen(c), false, 0);
	ck_assert_int_eq(mpsfix_series_fix(&s, &ctx, rules, 2, &eo, NULL, NULL), 0);

	/* MPS901 first, then MPS902 on what MPS901 left */
	ck_assert_uint_eq(s.nsteps, 2);
	ck_assert_str_eq(s.steps[0].rule->code, "MPS901");
	ck_assert_uint_eq(s.steps[0].nchanges, 2);
	ck_assert_uint_eq(s.steps[0].changes[0].file, 0);
	ck_assert_str_eq(s.steps[0].changes[0].text, "x = two(1)\ny = two(2)\n");
	ck_assert_uint_eq(s.steps[0].changes[0].sites, 1);
	ck_assert_uint_eq(s.steps[0].changes[1].file, 2);
	ck_assert_str_eq(s.steps[0].changes[1].text, "w = two(two(3))\n");
	ck_assert_uint_eq(s.steps[0].changes[1].sites, 2); /* nested: two passes */
	ck_assert_uint_eq(s.steps[0].sites, 3);
	ck_assert_str_eq(s.steps[1].rule->code, "MPS902");
	ck_assert_str_eq(s.steps[1].changes[0].text, "x = three(1)\ny = three(2)\n");
	ck_assert_uint_eq(s.steps[1].sites, 4);
	ck_assert_str_eq(text_of(&s, 1), b);
	ck_assert_str_eq(text_of(&s, 2), "w = three(three(3))\n");

	/* nothing left of either rule */
	ix = mpsfix_index_new(rules, 2);
	ck_assert_int_eq(mpsfix_series_remaining(&left, &s, &ctx, ix, &eo, NULL, NULL, NULL, NULL), 0);
	ck_assert_uint_eq(left.findings, 0);
	mpsfix_index_free(ix);
	mpsfix_series_release(&s);
	mpsfix_rule_free(rules[0]);
	mpsfix_rule_free(rules[1]);
	mpsfix_ctx_release(&ctx);
}
END_TEST

static const mpsfix_series_file *seen_file;
static int seen_count;

static void on_file(void *payload, const mpsfix_series_file *f, mpsfix_engine_opts *eo)
{
	ck_assert_ptr_eq(payload, &seen_count);
	ck_assert(eo->fix); /* a copy of the caller's options */
	seen_file = f;
	seen_count++;
}

/* Each file's own options: unsafe fixes for b.py alone. */
static void unsafe_in_b(void *payload, const mpsfix_series_file *f, mpsfix_engine_opts *eo)
{
	eo->unsafe_fixes = !strcmp(f->path, "b.py");
}

/* mpsfix_series_remaining's report of a file's findings: "PATH:LINE;" each */
static void note_left(void *payload, const mpsfix_source *src, const mpsfix_result *res)
{
	mpsfix_buf *b = payload;

	for (size_t i = 0; i < res->len; i++)
		mpsfix_buf_printf(b, "%s:%u;", src->path, res->items[i].line);
}

START_TEST(test_series_unsafe_and_remaining)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *rules[] = {tu_yaml_rule(unsafe_four), tu_yaml_rule(one_to_two)};
	mpsfix_engine_opts eo = {.fix = true, .suppress = true};
	mpsfix_series_left left;
	mpsfix_index *ix = mpsfix_index_new(rules, 2);
	mpsfix_ctx ctx;
	const char *a = "four(1)\none(2)  # noqa: MPS901\none(3)\n";

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	mpsfix_series_add_file(&s, "a.py", "a.py", a, strlen(a), false, 0);
	ck_assert_int_eq(mpsfix_series_fix(&s, &ctx, rules, 2, &eo, on_file, &seen_count), 0);
	ck_assert_int_eq(seen_count, 2); /* once per rule and file */
	ck_assert_ptr_eq(seen_file, &s.files[0]);
	/* the unsafe fix waits for --unsafe-fixes; the suppressed call stays */
	ck_assert_uint_eq(s.nsteps, 1);
	ck_assert_str_eq(text_of(&s, 0), "four(1)\none(2)  # noqa: MPS901\ntwo(3)\n");
	ck_assert_int_eq(mpsfix_series_remaining(&left, &s, &ctx, ix, &eo, NULL, NULL, NULL, NULL), 0);
	ck_assert_uint_eq(left.findings, 1);
	ck_assert_uint_eq(left.unsafe_fixable, 1);
	/* with unsafe fixes */
	eo.unsafe_fixes = true;
	ck_assert_int_eq(mpsfix_series_fix(&s, &ctx, rules, 2, &eo, NULL, NULL), 0);
	ck_assert_str_eq(text_of(&s, 0), "five(1)\none(2)  # noqa: MPS901\ntwo(3)\n");
	ck_assert_int_eq(mpsfix_series_remaining(&left, &s, &ctx, ix, &eo, NULL, NULL, NULL, NULL), 0);
	ck_assert_uint_eq(left.findings, 0);
	mpsfix_index_free(ix);
	mpsfix_series_release(&s);
	mpsfix_rule_free(rules[0]);
	mpsfix_rule_free(rules[1]);
	mpsfix_ctx_release(&ctx);
}
END_TEST

/* What the callback sets in the options reaches the engine for that file only. */
START_TEST(test_series_options_per_file)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *rule = tu_yaml_rule(unsafe_four);
	mpsfix_engine_opts eo = {.fix = true, .suppress = true};
	mpsfix_series_left left;
	mpsfix_index *ix = mpsfix_index_new(&rule, 1);
	mpsfix_ctx ctx;
	mpsfix_buf where = MPSFIX_BUF_INIT;

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	mpsfix_series_add_file(&s, "a.py", "a.py", "four(1)\n", 8, false, 0);
	mpsfix_series_add_file(&s, "b.py", "b.py", "four(2)\n", 8, false, 0);
	ck_assert_int_eq(mpsfix_series_fix(&s, &ctx, &rule, 1, &eo, unsafe_in_b, NULL), 0);
	ck_assert_str_eq(text_of(&s, 0), "four(1)\n");
	ck_assert_str_eq(text_of(&s, 1), "five(2)\n");
	ck_assert(!eo.unsafe_fixes); /* the caller's options stay as they were */
	ck_assert_int_eq(mpsfix_series_remaining(&left, &s, &ctx, ix, &eo, unsafe_in_b, NULL, note_left, &where), 0);
	ck_assert_uint_eq(left.findings, 1);
	ck_assert_uint_eq(left.unsafe_fixable, 1);
	ck_assert_str_eq(where.data, "a.py:1;"); /* the one left, named */
	mpsfix_buf_release(&where);
	mpsfix_index_free(ix);
	mpsfix_series_release(&s);
	mpsfix_rule_free(rule);
	mpsfix_ctx_release(&ctx);
}
END_TEST

START_TEST(test_series_skipped_file)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *rule = tu_yaml_rule(one_to_two);
	mpsfix_engine_opts eo = {.fix = true};
	mpsfix_buf deep = MPSFIX_BUF_INIT;
	mpsfix_ctx ctx;

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	/* a file the engine will not take (a NUL byte): skipped with a message */
	mpsfix_buf_adds(&deep, "x = one(1)\ny = ");
	mpsfix_buf_addc(&deep, '\0');
	mpsfix_buf_adds(&deep, "\n");
	mpsfix_series_add_file(&s, "deep.py", "deep.py", deep.data, deep.len, false, 0);
	mpsfix_series_add_file(&s, "ok.py", "ok.py", "one(1)\n", 7, false, 0);
	ck_assert_int_eq(mpsfix_series_fix(&s, &ctx, &rule, 1, &eo, NULL, NULL), 0);
	ck_assert(s.files[0].skipped);
	ck_assert(!s.files[1].skipped);
	ck_assert_uint_eq(s.nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(s.warnings[0], "deep.py"));
	ck_assert_uint_eq(s.nsteps, 1);
	ck_assert_uint_eq(s.steps[0].nchanges, 1);
	ck_assert_uint_eq(s.steps[0].changes[0].file, 1);
	mpsfix_buf_release(&deep);
	mpsfix_series_release(&s);
	mpsfix_rule_free(rule);
	mpsfix_ctx_release(&ctx);
}
END_TEST

/* A series of two steps over two files, recorded by hand. */
static void two_steps(mpsfix_series *s, mpsfix_rule *a, mpsfix_rule *b)
{
	mpsfix_series_add_file(s, "src/x.py", "pkg/x.py", "x\n", 2, false, 0);
	mpsfix_series_add_file(s, "y.py", NULL, "y\n", 2, false, 0);
	mpsfix_series_record(s, a, 0, "x1\n", 3, 2);
	mpsfix_series_record(s, a, 1, "y1\n", 3, 1);
	mpsfix_series_record(s, b, 0, "x2\n", 3, 1);
}

START_TEST(test_series_message_per_rule)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *a = tu_yaml_rule(one_to_two), *b = tu_yaml_rule(two_to_three);
	mpsfix_message_opts mo = {.target_torch = ">=2.1,<2.6", .signoff = "Ada <ada@example.com>"};
	char *m;

	two_steps(&s, a, b);
	m = mpsfix_series_message(&s, 0, 1, &mo);
	ck_assert_str_eq(m,
			 "mpsfix: MPS901 one-to-two: one() becomes two() (3 sites)\n"
			 "\n"
			 "MPS901 one-to-two (3 sites): one() becomes two()\n"
			 "See https://example.com/901\n"
			 "\n"
			 "Files:\n"
			 "    pkg/x.py (2 sites)\n"
			 "    y.py (1 site)\n"
			 "\n"
			 "Mpsfix-Rule: MPS901\n"
			 "Mpsfix-Target-Torch: >=2.1,<2.6\n"
			 "Signed-off-by: Ada <ada@example.com>\n");
	free(m);
	/* no url, no target, no sign-off */
	m = mpsfix_series_message(&s, 1, 1, NULL);
	ck_assert_str_eq(m,
			 "mpsfix: MPS902 two-to-three: two() becomes three() (1 site)\n"
			 "\n"
			 "MPS902 two-to-three (1 site): two() becomes three()\n"
			 "\n"
			 "Files:\n"
			 "    pkg/x.py (1 site)\n"
			 "\n"
			 "Mpsfix-Rule: MPS902\n");
	free(m);
	mpsfix_series_release(&s);
	mpsfix_rule_free(a);
	mpsfix_rule_free(b);
}
END_TEST

START_TEST(test_series_message_squash)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *a = tu_yaml_rule(one_to_two), *b = tu_yaml_rule(two_to_three);
	mpsfix_message_opts mo = {.target_torch = "all"};
	char *m;

	two_steps(&s, a, b);
	m = mpsfix_series_message(&s, 0, 2, &mo);
	ck_assert_str_eq(m,
			 "mpsfix: fix MPS901, MPS902 (4 sites)\n"
			 "\n"
			 "MPS901 one-to-two (3 sites): one() becomes two()\n"
			 "See https://example.com/901\n"
			 "\n"
			 "MPS902 two-to-three (1 site): two() becomes three()\n"
			 "\n"
			 "Files:\n"
			 "    pkg/x.py (3 sites)\n"
			 "    y.py (1 site)\n"
			 "\n"
			 "Mpsfix-Rule: MPS901\n"
			 "Mpsfix-Rule: MPS902\n"
			 "Mpsfix-Target-Torch: all\n");
	free(m);
	mpsfix_series_release(&s);
	mpsfix_rule_free(a);
	mpsfix_rule_free(b);
}
END_TEST

START_TEST(test_series_message_wraps)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_rule *a = tu_yaml_rule(one_to_two);
	char *m;

	free(a->message);
	a->message = mpsfix_xstrdup("a long message\nacross lines that goes on and on about what the "
				    "rule finds and why it matters so much on a Mac");
	mpsfix_series_add_file(&s, "x.py", "x.py", "x\n", 2, false, 0);
	mpsfix_series_record(&s, a, 0, "y\n", 2, 1);
	m = mpsfix_series_message(&s, 0, 1, NULL);
	/* the subject is one line, whatever the message; the body is wrapped at 72 columns */
	ck_assert_str_eq(m,
			 "mpsfix: MPS901 one-to-two: a long message across lines that goes on and on "
			 "about what the rule finds and why it matters so much on a Mac (1 site)\n"
			 "\n"
			 "MPS901 one-to-two (1 site): a long message across lines that goes on and\n"
			 "on about what the rule finds and why it matters so much on a Mac\n"
			 "See https://example.com/901\n"
			 "\n"
			 "Files:\n"
			 "    x.py (1 site)\n"
			 "\n"
			 "Mpsfix-Rule: MPS901\n");
	free(m);
	mpsfix_series_release(&s);
	mpsfix_rule_free(a);
}
END_TEST

Suite *mpsfix_suite_series(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("series");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_series_record_and_text);
	tcase_add_test(tc, test_series_fix_rule_by_rule);
	tcase_add_test(tc, test_series_unsafe_and_remaining);
	tcase_add_test(tc, test_series_options_per_file);
	tcase_add_test(tc, test_series_skipped_file);
	tcase_add_test(tc, test_series_message_per_rule);
	tcase_add_test(tc, test_series_message_squash);
	tcase_add_test(tc, test_series_message_wraps);
	suite_add_tcase(s, tc);
	return s;
}
