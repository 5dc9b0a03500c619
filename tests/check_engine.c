/*
 * check_engine.c: what the engine fixtures (fixtures/engine/<case>/, run by
 * check_fixtures.c with unsafe fixes on) cannot say: that an unsafe fix
 * needs the opt-in, and that passes stop at MPSFIX_MAX_PASSES.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "testutil.h"

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

Suite *mpsfix_suite_engine(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_engine_unsafe_fix_needs_opt_in);
	tcase_add_test(tc, test_engine_pass_limit);
	suite_add_tcase(s, tc);
	return s;
}
