/* check_suppress.c: `# noqa` and `# mpsfix: ignore` comments, alone and in the engine. */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "suppress.h"
#include "tests.h"
#include "testutil.h"

static const char *std_mean[] = {"torch.std_mean($X)", NULL};

/* MPS001 (id std-mean), fixed to fixed($X) when `fix`. */
static mpsfix_rule *std_rule(bool fix)
{
	mpsfix_rule *r = tu_rule("MPS001", std_mean, NULL, fix ? "fixed($X)" : NULL, NULL, false);

	free(r->id);
	r->id = mpsfix_xstrdup("std-mean");
	return r;
}

/* Run `r` over `code` with `opts`; the new text in fix mode (malloc'd). */
static char *run(mpsfix_rule *r, const char *code, const mpsfix_engine_opts *opts,
		 mpsfix_result *res)
{
	mpsfix_ctx ctx;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_index *ix = mpsfix_index_new(&r, 1);
	char *text = NULL;

	if (mpsfix_ctx_init(&ctx) < 0 ||
	    mpsfix_source_from_buffer(&src, "t.py", code, strlen(code)) < 0 ||
	    mpsfix_engine_run(res, &ctx, ix, &src, opts) < 0)
		abort();
	if (opts->fix)
		text = mpsfix_xstrndup(res->text, res->text_len);
	mpsfix_source_release(&src);
	mpsfix_index_free(ix);
	mpsfix_ctx_release(&ctx);
	return text;
}

/* Findings left in check mode with suppression on; suppressed count in *hidden. */
static size_t remaining(const char *code, size_t *hidden)
{
	mpsfix_rule *r = std_rule(false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts opts = {.suppress = true};
	size_t n;

	run(r, code, &opts, &res);
	n = res.len;
	if (hidden)
		*hidden = res.suppressed;
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
	return n;
}

START_TEST(test_suppress_comment_forms)
{
	const char *code =
		"a = torch.std_mean(x)  # noqa\n"
		"b = torch.std_mean(x)  # noqa: MPS001\n"
		"c = torch.std_mean(x)  # NOQA:MPS001\n"
		"d = torch.std_mean(x)  # noqa: E501,MPS001 because\n"
		"e = torch.std_mean(x)  # type: ignore # noqa\n"
		"f = torch.std_mean(x)  # mpsfix: ignore\n"
		"g = torch.std_mean(x)  # mpsfix: ignore[MPS002, std-mean]\n"
		"h = torch.std_mean(x)  #mpsfix:ignore [ MPS001 ]\n"
		"i = torch.std_mean(x)  #noqa:MPS0\n"
		"j = torch.std_mean(x)  # noqa: MPS\n"        /* flake8: no code, a blanket noqa */
		"k = torch.std_mean(x)  # noqa:E501 MPS00\n"
		"l = torch.std_mean(x)  # mpsfix: ignore[ALL]\n"
		"m = torch.std_mean(x)  # noqa E501\n";      /* no colon: blanket */
	size_t hidden;

	ck_assert_uint_eq(remaining(code, &hidden), 0);
	ck_assert_uint_eq(hidden, 13);
}
END_TEST

START_TEST(test_suppress_not_directives)
{
	const char *code =
		"a = torch.std_mean(x)  # see noqa docs\n"
		"b = torch.std_mean(x)  # noqa: MPS002\n"
		"c = torch.std_mean(x)  # noqa: E501\n"
		"d = torch.std_mean(x)  # noqa: MPS01\n"
		"e = torch.std_mean(x)  # mpsfix: ignore[other-rule]\n"
		"f = torch.std_mean(x)  # mpsfix: ignored\n"
		"g = torch.std_mean(x)  # mpsfix: ignore[MPS001\n"
		"h = torch.std_mean(x)  # noqa-ish\n"
		"i = torch.std_mean(x)  # noqa: mps001\n"
		"s = '# noqa'; t = torch.std_mean(x)\n"
		"u = torch.std_mean(x)  # mpsfix: ignore[]\n"
		"v = torch.std_mean(x)  # mpsfix: ignore-files\n"
		"w = torch.std_mean(x)  # MPSFIX: ignore\n"
		"x = torch.std_mean(x)  # mpsfix: ignore[MPS001 + x]\n"
		"y = '''\n# noqa\n''' + torch.std_mean(x)\n";
	size_t hidden;

	ck_assert_uint_eq(remaining(code, &hidden), 15);
	ck_assert_uint_eq(hidden, 0);
}
END_TEST

START_TEST(test_suppress_off_by_default)
{
	mpsfix_rule *r = std_rule(false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts opts = {.suppress = false};

	run(r, "a = torch.std_mean(x)  # noqa\n# mpsfix: ignore-file\n", &opts, &res);
	ck_assert_uint_eq(res.len, 1);
	ck_assert_uint_eq(res.suppressed, 0);
	ck_assert(!res.file_ignored);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_suppress_multiline_statement)
{
	/* on the statement's first line: covers it all */
	ck_assert_uint_eq(remaining("y = foo(  # noqa: MPS001\n"
				    "    torch.std_mean(x),\n"
				    "    torch.std_mean(z),\n"
				    ")\n", NULL), 0);
	/* on a later line: only what starts there */
	ck_assert_uint_eq(remaining("y = foo(\n"
				    "    torch.std_mean(x),  # noqa: MPS001\n"
				    "    torch.std_mean(z),\n"
				    ")\n", NULL), 1);
	/* the header of a compound statement covers its header only */
	ck_assert_uint_eq(remaining("with torch.std_mean(a) as b:  # noqa\n"
				    "    c = torch.std_mean(b)\n", NULL), 1);
	ck_assert_uint_eq(remaining("if (a or  # mpsfix: ignore\n"
				    "        torch.std_mean(b)):\n"
				    "    pass\n", NULL), 0);
	ck_assert_uint_eq(remaining("if a:\n"
				    "    pass\n"
				    "elif (b or  # noqa: MPS0\n"
				    "      torch.std_mean(c)):\n"
				    "    pass\n", NULL), 0);
	ck_assert_uint_eq(remaining("def f(a=torch.std_mean(\n"
				    "        x)):  # noqa\n"
				    "    pass\n", NULL), 1);
	ck_assert_uint_eq(remaining("def f(a=(0,  # noqa\n"
				    "        torch.std_mean(x))):\n"
				    "    pass\n", NULL), 0);
	ck_assert_uint_eq(remaining("@deco(  # noqa\n"
				    "    torch.std_mean(x))\n"
				    "def f():\n"
				    "    pass\n", NULL), 0);
	/* a comment on the last line of a statement does not cover its first */
	ck_assert_uint_eq(remaining("y = [torch.std_mean(x),\n"
				    "     1]  # noqa\n", NULL), 1);
	/* nor does a comprehension clause make a statement */
	ck_assert_uint_eq(remaining("y = [a  # noqa\n"
				    "     for a in torch.std_mean(x)]\n", NULL), 0);
}
END_TEST

START_TEST(test_suppress_ignore_file)
{
	mpsfix_rule *r = std_rule(true);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts opts = {.fix = true, .suppress = true, .unused_suppressions = true};
	const char *code = "import torch\n"
			   "# generated code  # mpsfix: ignore-file\n"
			   "a = torch.std_mean(x)  # noqa: MPS002\n"
			   "b = torch.std_mean(y)\n";
	char *out = run(r, code, &opts, &res);

	ck_assert_str_eq(out, code);
	ck_assert(res.file_ignored);
	ck_assert_uint_eq(res.len, 0);
	ck_assert_uint_eq(res.fixed, 0);
	ck_assert_uint_eq(res.suppressed, 2);
	ck_assert_uint_eq(res.nunused, 0); /* nothing else counts in an ignored file */
	free(out);
	mpsfix_result_release(&res);

	/* known with unused_suppressions even without a match */
	run(r, "# mpsfix: ignore-file\nx = 1\n", &(mpsfix_engine_opts){.suppress = true,
		.unused_suppressions = true}, &res);
	ck_assert(res.file_ignored);
	ck_assert_uint_eq(res.nunused, 0);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_suppress_unused)
{
	mpsfix_rule *r = std_rule(false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts opts = {.suppress = true, .unused_suppressions = true};
	const char *code =
		"a = torch.std_mean(x)  # noqa: MPS001, MPS002, E501\n"
		"b = 1  # noqa\n"
		"c = 2  # mpsfix: ignore\n"
		"d = 3  # mpsfix: ignore[std-mean, MPS0]\n"
		"e = torch.std_mean(x)  # mpsfix: ignore[MPS0, other-rule]\n"
		"f = torch.std_mean(x)  # noqa: E501 # mpsfix: ignore\n"
		"g = 4  # noqa: E501\n";

	run(r, code, &opts, &res);
	ck_assert_uint_eq(res.len, 0);
	ck_assert_uint_eq(res.suppressed, 3);
	ck_assert_uint_eq(res.nunused, 4);
	ck_assert_uint_eq(res.unused[0].line, 1);
	ck_assert_uint_eq(res.unused[0].col, 24);
	ck_assert_str_eq(res.unused[0].codes, "MPS002");
	ck_assert_uint_eq(res.unused[1].line, 3);
	ck_assert_uint_eq(res.unused[1].col, 8);
	ck_assert_ptr_null(res.unused[1].codes);
	ck_assert_uint_eq(res.unused[2].line, 4);
	ck_assert_str_eq(res.unused[2].codes, "std-mean, MPS0");
	ck_assert_uint_eq(res.unused[3].line, 5);
	ck_assert_str_eq(res.unused[3].codes, "other-rule");
	mpsfix_result_release(&res);

	/* not asked: none listed */
	opts.unused_suppressions = false;
	run(r, code, &opts, &res);
	ck_assert_uint_eq(res.nunused, 0);
	ck_assert_ptr_null(res.unused);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_suppress_api)
{
	mpsfix_rule *r = std_rule(false);
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	const char *code = "a = torch.std_mean(x)  # noqa: MPS0, MPS001\n"
			   "b = torch.std_mean(y)  # mpsfix: ignore[MPS002]\n";
	TSTree *tree = NULL;
	mpsfix_match m = {0};
	mpsfix_suppressions *s;
	mpsfix_unused_suppression *u;
	size_t n;
	TSNode call;

	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "t.py", code, strlen(code)), 0);
	ck_assert_int_eq(mpsfix_parse(&tree, tu_parser(), src.data, src.len), 0);
	s = mpsfix_suppressions_scan(ts_tree_root_node(tree), &src);
	ck_assert(!mpsfix_suppressions_file_ignored(s));
	u = mpsfix_suppressions_unused(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(u[0].codes, "MPS0, MPS001");
	for (size_t i = 0; i < n; i++)
		free(u[i].codes);
	free(u);

	ck_assert_int_eq(tu_match_tree(&m, r->patterns[0], tree, src.data), 2);
	call = m.node;
	ck_assert(mpsfix_suppressed(s, r, call));
	mpsfix_match_release(&m);
	/* both matching codes count as used */
	u = mpsfix_suppressions_unused(s, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(u[0].line, 2);
	ck_assert_str_eq(u[0].codes, "MPS002");
	free(u[0].codes);
	free(u);

	mpsfix_suppressions_free(s);
	mpsfix_suppressions_free(NULL);
	ts_tree_delete(tree);
	mpsfix_source_release(&src);
	mpsfix_rule_free(r);
}
END_TEST

/* --- the engine ---------------------------------------------------------------------- */

START_TEST(test_suppress_engine_not_fixed)
{
	mpsfix_rule *r = std_rule(true);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts opts = {.fix = true, .suppress = true, .unused_suppressions = true};
	const char *code = "a = torch.std_mean(x)  # noqa: MPS001\n"
			   "b = torch.std_mean(y)\n"
			   "c = foo(  # mpsfix: ignore[std-mean]\n"
			   "    torch.std_mean(z))\n";
	char *out = run(r, code, &opts, &res);

	ck_assert_str_eq(out, "a = torch.std_mean(x)  # noqa: MPS001\n"
			      "b = fixed(y)\n"
			      "c = foo(  # mpsfix: ignore[std-mean]\n"
			      "    torch.std_mean(z))\n");
	ck_assert_uint_eq(res.fixed, 1);
	ck_assert_uint_eq(res.len, 0);
	ck_assert_uint_eq(res.suppressed, 2);   /* of the final text */
	ck_assert_uint_eq(res.nunused, 0);
	ck_assert(!res.file_ignored);
	free(out);
	mpsfix_result_release(&res);

	/* without suppression, everything is fixed */
	opts.suppress = false;
	out = run(r, code, &opts, &res);
	ck_assert_ptr_null(strstr(out, "std_mean"));
	ck_assert_uint_eq(res.fixed, 3);
	free(out);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_suppress_engine_unused_after_fix)
{
	/* the fix removes what the comment hid nothing of: the final text counts */
	mpsfix_rule *r = std_rule(true);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts opts = {.fix = true, .suppress = true, .unused_suppressions = true};
	char *out = run(r, "a = torch.std_mean(x)  # noqa: E501\n"
			"b = 1  # noqa: MPS001\n", &opts, &res);

	ck_assert_str_eq(out, "a = fixed(x)  # noqa: E501\nb = 1  # noqa: MPS001\n");
	ck_assert_uint_eq(res.nunused, 1);
	ck_assert_uint_eq(res.unused[0].line, 2);
	ck_assert_str_eq(res.unused[0].codes, "MPS001");
	free(out);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

typedef struct {
	uint32_t only;      /* the line kept */
	unsigned calls;
} keep_state;

static bool keep_line(void *payload, const mpsfix_rule *rule, uint32_t line)
{
	keep_state *k = payload;

	ck_assert_str_eq(rule->code, "MPS001");
	k->calls++;
	return line == k->only;
}

START_TEST(test_suppress_engine_keep)
{
	mpsfix_rule *r = std_rule(true);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	keep_state k = {.only = 2};
	mpsfix_engine_opts opts = {.fix = true, .keep = keep_line, .keep_payload = &k};
	const char *code = "a = torch.std_mean(x)\nb = torch.std_mean(y)\nc = torch.std_mean(z)\n";
	char *out = run(r, code, &opts, &res);

	ck_assert_str_eq(out, "a = torch.std_mean(x)\nb = fixed(y)\nc = torch.std_mean(z)\n");
	ck_assert_uint_eq(res.fixed, 1);
	ck_assert_uint_eq(res.len, 0);
	ck_assert_uint_ge(k.calls, 3);
	free(out);
	mpsfix_result_release(&res);

	/* check mode: only the kept line is a finding */
	k = (keep_state){.only = 3};
	opts.fix = false;
	run(r, code, &opts, &res);
	ck_assert_uint_eq(res.len, 1);
	ck_assert_uint_eq(res.items[0].line, 3);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_suppress_big_file)
{
	/* 60,000 lines of comments, one finding per 100 lines, every other one hidden */
	mpsfix_buf b = MPSFIX_BUF_INIT;
	size_t hidden;

	for (int i = 0; i < 60000; i++) {
		if (i % 100 == 0)
			mpsfix_buf_printf(&b, "a = torch.std_mean(x)  # %s\n",
					  i % 200 == 0 ? "noqa: MPS001" : "mentions nothing");
		else
			mpsfix_buf_printf(&b, "x%d = %d  # a comment, noqa: MPS002 %d\n", i, i, i);
	}
	ck_assert_uint_eq(remaining(b.data, &hidden), 300);
	ck_assert_uint_eq(hidden, 300);
	mpsfix_buf_release(&b);
}
END_TEST

Suite *mpsfix_suite_suppress(void)
{
	Suite *s = suite_create("suppress");
	TCase *tc = tcase_create("suppress");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_suppress_comment_forms);
	tcase_add_test(tc, test_suppress_not_directives);
	tcase_add_test(tc, test_suppress_off_by_default);
	tcase_add_test(tc, test_suppress_multiline_statement);
	tcase_add_test(tc, test_suppress_ignore_file);
	tcase_add_test(tc, test_suppress_unused);
	tcase_add_test(tc, test_suppress_api);
	tcase_add_test(tc, test_suppress_engine_not_fixed);
	tcase_add_test(tc, test_suppress_engine_unused_after_fix);
	tcase_add_test(tc, test_suppress_engine_keep);
	tcase_add_test(tc, test_suppress_big_file);
	suite_add_tcase(s, tc);
	return s;
}
