/* check_engine.c: findings, fix passes, guards. */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "testutil.h"

static const char *to_mps[] = {"$X.to(\"mps\", $$$A, non_blocking=$NB)", NULL};

static mpsfix_rule *nb_rule(void)
{
	mpsfix_rule *r = tu_rule("MPS006", to_mps, NULL, NULL, "NB", false);

	tu_rule_value(r, "NB", NULL, 1);
	return r;
}

static char *fix_with(mpsfix_rule *r, const char *code, mpsfix_result *res)
{
	return tu_run(r, code, strlen(code), true, res);
}

START_TEST(test_engine_unsafe_fix_needs_opt_in)
{
	const char *pats[] = {"f($X)", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, "g($X)", NULL, true);
	mpsfix_ctx ctx;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_index *ix = mpsfix_index_new(&r, 1);
	mpsfix_engine_opts opts = {.fix = true, .unsafe_fixes = false};
	mpsfix_result res = MPSFIX_RESULT_INIT;

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "t.py", "f(1)\n", 5), 0);
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
	ck_assert(!res.changed);
	ck_assert_int_eq(res.items[0].fix, MPSFIX_FIX_UNSAFE);
	mpsfix_result_release(&res);
	opts.unsafe_fixes = true;
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
	ck_assert_str_eq(res.text, "g(1)\n");
	mpsfix_result_release(&res);
	mpsfix_source_release(&src);
	mpsfix_index_free(ix);
	mpsfix_ctx_release(&ctx);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_engine_pass_limit)
{
	/* a fix whose output matches again: stops after MPSFIX_MAX_PASSES */
	const char *pats[] = {"f($X)", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, "f(f($X))", NULL, false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	char *out = fix_with(r, "f(1)\n", &res);

	ck_assert_uint_eq(res.passes, MPSFIX_MAX_PASSES);
	ck_assert_uint_eq(res.nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(res.warnings[0], "passes"));
	/* what is left is not shown as fixable */
	ck_assert_uint_ge(res.len, 1);
	for (size_t i = 0; i < res.len; i++)
		ck_assert_int_eq(res.items[i].fix, MPSFIX_FIX_MANUAL);
	free(out);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

/*
 * tree-sitter's error recovery is not local: here, removing the reported
 * non_blocking=True of the call on line 3 makes the broken code below parse
 * another way, so that a second pass would remove the one on line 16, of a
 * call the first parse put inside a syntax error, which no finding offered
 * to fix (found by tests/fuzz/fuzz_pipeline.c).  No fix is kept.
 */
START_TEST(test_engine_fix_that_moves_syntax_errors)
{
	static const char code[] =
		"\t\tself.:3:10: MPS104 [*] device selection neveru=True):\n"
		"def to_mpr(sample):\n"
		"\t\tfor _ in range(epochsample[\"depth\"].to(\n"
		"        # the Apple GPU\n"
		"        \"mps\",\n"
		"        non_blocking=True,\n"
		"    )\n"
		"    mask = sample[\"mask\"].to(\n"
		"        torch=tos):\n"
		"\t\t\tfor bat5h in loader:\n"
		"def to_mpr(sample):\n"
		"    # kept: 7:15: MPS104 device selection never tries MPS: ocomments inside a bound node, or away from the removed argument\n"
		"    image = torch.stack(\n"
		"    )*    flow = sample[\"flow\"].to(\n"
		"        \"mps\",\n"
		"        non_blocking=True,  # overlap the copy with compute\n"
		"                                 device=\"mps\")\n"
		"    return image, depth, mask, ff.speprch.bool,  # masks are boolean\n"
		"        non_blocking=True,\n"
		"\n"
		;
	mpsfix_rule *r = nb_rule();
	mpsfix_result res = MPSFIX_RESULT_INIT;
	char *out = fix_with(r, code, &res);
	bool warned = false;

	ck_assert_str_eq(out, code);
	ck_assert_uint_eq(res.fixed, 0);
	for (size_t i = 0; i < res.nwarnings; i++)
		warned |= strstr(res.warnings[i], "would change how the code around the file's syntax "
				 "errors parses") != NULL;
	ck_assert(warned);
	ck_assert_uint_ge(res.len, 1);
	ck_assert_int_eq(res.items[0].fix, MPSFIX_FIX_MANUAL);
	ck_assert_str_eq(res.items[0].reason, "the fix would change how the code around a syntax error parses");
	free(out);
	mpsfix_result_release(&res);

	/* a syntax error the fix does not reach: fixed as usual */
	out = fix_with(r, "def f(:\n    pass\n\ny = x.to('mps', non_blocking=True)\n", &res);
	ck_assert_str_eq(out, "def f(:\n    pass\n\ny = x.to('mps')\n");
	ck_assert_uint_eq(res.fixed, 1);
	free(out);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

Suite *mpsfix_suite_engine(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_engine_unsafe_fix_needs_opt_in);
	tcase_add_test(tc, test_engine_pass_limit);
	tcase_add_test(tc, test_engine_fix_that_moves_syntax_errors);
	suite_add_tcase(s, tc);
	return s;
}
