/*
 * check_fixtures.c: every case under fixtures/rules/<rule-id>/<case>/ runs
 * the shipped rule rules/<rule-id>.yml over input.py and compares, byte for
 * byte, the findings with expected.txt and the fixed text with expected.py
 * (unsafe fixes enabled).  Cases under fixtures/engine/<case>/ do the same
 * with the rule of their own rule.yml (engine capabilities no shipped rule
 * uses yet).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine.h"
#include "rule.h"
#include "source.h"
#include "tests.h"
#include "testutil.h"

#define MAX_CASES 512

static char *cases[MAX_CASES]; /* "rules/rule-id/case" or "engine/case" */
static int ncases;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*out = NULL;
	*n = 0;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		*out = mpsfix_xrealloc(*out, (*n + 1) * sizeof(char *));
		(*out)[(*n)++] = mpsfix_xstrdup(e->d_name);
	}
	closedir(d);
	qsort(*out, *n, sizeof(char *), cmp);
}

static void collect_cases(void)
{
	char *root = mpsfix_xasprintf("%s/fixtures/rules", mpsfix_test_top());
	char *engine = mpsfix_xasprintf("%s/fixtures/engine", mpsfix_test_top());
	char **rules;
	size_t nrules;

	list_dir(engine, &rules, &nrules);
	for (size_t i = 0; i < nrules; i++) {
		if (ncases < MAX_CASES)
			cases[ncases++] = mpsfix_xasprintf("engine/%s", rules[i]);
		free(rules[i]);
	}
	free(rules);
	free(engine);

	list_dir(root, &rules, &nrules);
	for (size_t i = 0; i < nrules; i++) {
		char *dir = mpsfix_xasprintf("%s/%s", root, rules[i]);
		char **names;
		size_t nnames;

		list_dir(dir, &names, &nnames);
		for (size_t k = 0; k < nnames; k++) {
			if (ncases < MAX_CASES)
				cases[ncases++] = mpsfix_xasprintf("rules/%s/%s", rules[i], names[k]);
			free(names[k]);
		}
		free(names);
		free(dir);
		free(rules[i]);
	}
	free(rules);
	free(root);
}

static void format_findings(mpsfix_buf *out, const mpsfix_result *res)
{
	for (size_t i = 0; i < res->len; i++) {
		const mpsfix_finding *f = &res->items[i];

		mpsfix_buf_printf(out, "input.py:%u:%u: %s ", f->line, f->col, f->rule->code);
		if (f->fix == MPSFIX_FIX_AVAILABLE)
			mpsfix_buf_printf(out, "[*] %s\n", f->rule->message);
		else if (f->fix == MPSFIX_FIX_MANUAL)
			mpsfix_buf_printf(out, "%s (needs a manual fix: %s)\n", f->rule->message, f->reason);
		else
			mpsfix_buf_printf(out, "%s\n", f->rule->message);
	}
}

START_TEST(test_fixture_case)
{
	const char *name = cases[_i];
	const char *top = mpsfix_test_top();
	bool engine = !strncmp(name, "engine/", 7);
	char *id = mpsfix_xstrndup(name + 6, strcspn(name + 6, "/"));
	char *dir = mpsfix_xasprintf("%s/fixtures/%s", top, name);
	char *rule_path = engine ? mpsfix_xasprintf("%s/rule.yml", dir)
				 : mpsfix_xasprintf("%s/rules/%s.yml", top, id);
	char *in_path = mpsfix_xasprintf("%s/input.py", dir);
	char *py_path = mpsfix_xasprintf("%s/expected.py", dir);
	char *txt_path = mpsfix_xasprintf("%s/expected.txt", dir);
	mpsfix_rule *rule = NULL;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_result found = MPSFIX_RESULT_INIT, fixed = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts check = {.fix = false, .unsafe_fixes = true};
	mpsfix_engine_opts fix = {.fix = true, .unsafe_fixes = true};
	mpsfix_ctx ctx;
	mpsfix_index *ix;
	mpsfix_buf lines = MPSFIX_BUF_INIT;
	size_t want_py_len, want_txt_len;
	char *want_py = tu_read_file(py_path, &want_py_len);
	char *want_txt = tu_read_file(txt_path, &want_txt_len);

	ck_assert_msg(mpsfix_rule_load_file(&rule, tu_parser(), rule_path) == 0,
		      "%s: %s", rule_path, mpsfix_error_last()->message);
	ck_assert_msg(want_py != NULL, "%s is missing", py_path);
	ck_assert_msg(want_txt != NULL, "%s is missing", txt_path);
	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_msg(mpsfix_source_read(&src, in_path) == 0, "%s", mpsfix_error_last()->message);
	ix = mpsfix_index_new(&rule, 1);
	ck_assert_int_eq(mpsfix_engine_run(&found, &ctx, ix, &src, &check), 0);
	format_findings(&lines, &found);
	ck_assert_msg(lines.len == want_txt_len && !memcmp(lines.data ? lines.data : "", want_txt, want_txt_len),
		      "%s: findings differ\n--- expected\n%s--- got\n%s", name, want_txt,
		      lines.data ? lines.data : "");
	ck_assert_int_eq(mpsfix_engine_run(&fixed, &ctx, ix, &src, &fix), 0);
	ck_assert_msg(fixed.text_len == want_py_len && !memcmp(fixed.text, want_py, want_py_len),
		      "%s: fixed text differs\n--- expected\n%s--- got\n%s", name, want_py, fixed.text);

	mpsfix_buf_release(&lines);
	mpsfix_result_release(&found);
	mpsfix_result_release(&fixed);
	mpsfix_index_free(ix);
	mpsfix_ctx_release(&ctx);
	mpsfix_source_release(&src);
	mpsfix_rule_free(rule);
	free(want_py);
	free(want_txt);
	free(id);
	free(rule_path);
	free(dir);
	free(in_path);
	free(py_path);
	free(txt_path);
}
END_TEST

START_TEST(test_fixture_cases_exist)
{
	/* every shipped rule has fixture cases */
	ck_assert_int_ge(ncases, 1);
}
END_TEST

Suite *mpsfix_suite_fixtures(void)
{
	Suite *s = suite_create("fixtures");
	TCase *tc = tcase_create("rules");

	if (ncases == 0)
		collect_cases();
	tcase_add_test(tc, test_fixture_cases_exist);
	tcase_add_loop_test(tc, test_fixture_case, 0, ncases);
	suite_add_tcase(s, tc);
	return s;
}
