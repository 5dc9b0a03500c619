/*
 * check_fixtures.c: every case under fixtures/rules/<rule-id>/<case>/ runs
 * the shipped rule rules/<rule-id>.yml over input.py and compares, byte for
 * byte, the findings with expected.txt and the fixed text with expected.py
 * (unsafe fixes enabled).  Cases under fixtures/engine/<case>/ do the same
 * with the rule of their own rule.yml (engine capabilities no shipped rule
 * uses yet).  The check run leaves no text.
 *
 * A case may also have an expect.txt: more about the two runs, one
 * assertion a line (empty lines and lines starting with # are skipped):
 *
 *   RUN.findings=N    RUN.fixed=N    RUN.passes=N    RUN.warnings=N
 *                     the run's findings (for fix: those left), fixes
 *                     applied, passes and warnings; `>=N` in place of `=N`
 *                     asks for at least N
 *   RUN.changed=0|1   the run's text differs from input.py
 *   RUN.warning=TEXT  one of the run's warnings contains TEXT
 *   RUN.finding.N=LINE the run's N-th finding (from 1), as a line of
 *                     expected.txt
 *
 * where RUN is check (the run of expected.txt) or fix (that of expected.py).
 *
 * A case may have a target.txt: the file's torch target for both runs, one
 * line as --target-torch takes it (">=2.7"); without it the runs have none
 * (every MPS-capable version).
 *
 * Other .py files of a case are modules input.py imports from its folder;
 * the engine reads them there (sibling.h).
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

static void format_finding(mpsfix_buf *out, const mpsfix_finding *f)
{
	mpsfix_buf_printf(out, "input.py:%u:%u: %s ", f->line, f->col, f->rule->code);
	if (f->fix == MPSFIX_FIX_AVAILABLE)
		mpsfix_buf_printf(out, "[*] %s\n", f->rule->message);
	else if (f->fix == MPSFIX_FIX_MANUAL)
		mpsfix_buf_printf(out, "%s (needs a manual fix: %s)\n", f->rule->message, f->reason);
	else
		mpsfix_buf_printf(out, "%s\n", f->rule->message);
}

static void format_findings(mpsfix_buf *out, const mpsfix_result *res)
{
	for (size_t i = 0; i < res->len; i++)
		format_finding(out, &res->items[i]);
}

/* One line of expect.txt (see the top of this file) against the two runs. */
static void expect_line(const char *name, const char *line, const mpsfix_result *check,
			const mpsfix_result *fix)
{
	const char *eq = strchr(line, '=');
	const char *key = line, *value = eq ? eq + 1 : "";
	bool at_least = eq && eq > line && eq[-1] == '>';
	size_t keylen = eq ? (size_t)(eq - line) - at_least : 0;
	const mpsfix_result *res = NULL;
	unsigned long want = 0, got;
	char *end = NULL;
	bool count = true;

	if (keylen > 6 && !strncmp(line, "check.", 6)) {
		res = check;
		key += 6;
		keylen -= 6;
	} else if (keylen > 4 && !strncmp(line, "fix.", 4)) {
		res = fix;
		key += 4;
		keylen -= 4;
	}
	ck_assert_msg(res != NULL, "%s: expect.txt: not check.KEY=VALUE or fix.KEY=VALUE: %s", name, line);
	if (keylen == 7 && !strncmp(key, "warning", 7) && !at_least) {
		bool found = false;

		for (size_t i = 0; i < res->nwarnings; i++)
			found |= strstr(res->warnings[i], value) != NULL;
		ck_assert_msg(found, "%s: no warning contains what expect.txt says: %s", name, line);
		return;
	}
	if (keylen > 8 && !strncmp(key, "finding.", 8) && !at_least) {
		unsigned long n = strtoul(key + 8, &end, 10);
		mpsfix_buf got_line = MPSFIX_BUF_INIT;

		ck_assert_msg(end == key + keylen && n >= 1, "%s: expect.txt: bad finding number: %s", name, line);
		ck_assert_msg(n <= res->len, "%s: expect.txt: there are only %zu findings: %s", name, res->len, line);
		format_finding(&got_line, &res->items[n - 1]);
		ck_assert_msg(got_line.len == strlen(value) + 1 && !memcmp(got_line.data, value, got_line.len - 1),
			      "%s: expect.txt: %s\n--- got\n%s", name, line, got_line.data);
		mpsfix_buf_release(&got_line);
		return;
	}
	if (keylen == 8 && !strncmp(key, "findings", 8))
		got = res->len;
	else if (keylen == 5 && !strncmp(key, "fixed", 5))
		got = res->fixed;
	else if (keylen == 6 && !strncmp(key, "passes", 6))
		got = res->passes;
	else if (keylen == 8 && !strncmp(key, "warnings", 8))
		got = res->nwarnings;
	else if (keylen == 7 && !strncmp(key, "changed", 7))
		got = res->changed;
	else
		count = false;
	ck_assert_msg(count, "%s: expect.txt: unknown key: %s", name, line);
	want = strtoul(value, &end, 10);
	ck_assert_msg(*value >= '0' && *value <= '9' && *end == '\0', "%s: expect.txt: not a number: %s", name,
		      line);
	if (at_least)
		ck_assert_msg(got >= want, "%s: expect.txt: %s, got %lu", name, line, got);
	else
		ck_assert_msg(got == want, "%s: expect.txt: %s, got %lu", name, line, got);
}

/* Every line of the case's expect.txt, if it has one. */
static void check_expect(const char *name, const char *path, const mpsfix_result *check,
			 const mpsfix_result *fix)
{
	char *text = tu_read_file(path, NULL);
	char *line, *next;

	if (!text)
		return;
	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (*line && *line != '#')
			expect_line(name, line, check, fix);
	}
	free(text);
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
	char *expect_path = mpsfix_xasprintf("%s/expect.txt", dir);
	char *target_path = mpsfix_xasprintf("%s/target.txt", dir);
	char *target_text = tu_read_file(target_path, NULL);
	mpsfix_torch_range target;
	mpsfix_rule *rule = NULL;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_result found = MPSFIX_RESULT_INIT, fixed = MPSFIX_RESULT_INIT;
	/* the modules beside input.py are read, as beside any file (sibling.h) */
	mpsfix_engine_opts check = {.fix = false, .unsafe_fixes = true, .verbose = true, .disk_path = in_path};
	mpsfix_engine_opts fix = {.fix = true, .unsafe_fixes = true, .verbose = true, .disk_path = in_path};
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
	if (target_text) {
		ck_assert_msg(mpsfix_torch_range_parse(&target, target_text, strcspn(target_text, "\n"),
						       MPSFIX_TORCH_SYNTAX_SPEC) == 0,
			      "%s: %s", target_path, mpsfix_error_last()->message);
		check.target = fix.target = &target;
	}
	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_msg(mpsfix_source_read(&src, in_path) == 0, "%s", mpsfix_error_last()->message);
	ix = mpsfix_index_new(&rule, 1);
	ck_assert_int_eq(mpsfix_engine_run(&found, &ctx, ix, &src, &check), 0);
	format_findings(&lines, &found);
	if (getenv("MPSFIX_UPDATE_FIXTURES") &&
	    (lines.len != want_txt_len || memcmp(lines.data ? lines.data : "", want_txt, want_txt_len))) {
		/* MPSFIX_UPDATE_FIXTURES=1 also rewrites expected.txt (review the diff) */
		FILE *f = fopen(txt_path, "wb");

		ck_assert_msg(f && fwrite(lines.data ? lines.data : "", 1, lines.len, f) == lines.len && !fclose(f),
			      "cannot write %s", txt_path);
		free(want_txt);
		want_txt = tu_read_file(txt_path, &want_txt_len);
	}
	ck_assert_msg(lines.len == want_txt_len && !memcmp(lines.data ? lines.data : "", want_txt, want_txt_len),
		      "%s: findings differ\n--- expected\n%s--- got\n%s", name, want_txt,
		      lines.data ? lines.data : "");
	ck_assert_ptr_null(found.text);
	ck_assert_int_eq(mpsfix_engine_run(&fixed, &ctx, ix, &src, &fix), 0);
	if (getenv("MPSFIX_UPDATE_FIXTURES") &&
	    (fixed.text_len != want_py_len || memcmp(fixed.text, want_py, want_py_len))) {
		/* MPSFIX_UPDATE_FIXTURES=1 make unit-tests: rewrite expected.py (review the diff) */
		FILE *f = fopen(py_path, "wb");

		ck_assert_msg(f && fwrite(fixed.text, 1, fixed.text_len, f) == fixed.text_len && !fclose(f),
			      "cannot write %s", py_path);
		free(want_py);
		want_py = tu_read_file(py_path, &want_py_len);
	}
	ck_assert_msg(fixed.text_len == want_py_len && !memcmp(fixed.text, want_py, want_py_len),
		      "%s: fixed text differs\n--- expected\n%s--- got\n%s", name, want_py, fixed.text);
	check_expect(name, expect_path, &found, &fixed);

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
	free(expect_path);
	free(target_path);
	free(target_text);
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
