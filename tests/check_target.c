/*
 * check_target.c: the torch target of a run: --target-torch, then the
 * configuration, then the project's pins, then every MPS-capable version;
 * the folder whose pins count; which rules run.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git.h"
#include "target.h"
#include "tests.h"
#include "testutil.h"

static char tmpdir[64];
static char oldcwd[PATH_MAX];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static char *tmp_path(const char *rel)
{
	return mpsfix_xasprintf("%s/%s", tmpdir, rel);
}

static void make_dir(const char *rel)
{
	char *path = tmp_path(rel);

	ck_assert_int_eq(mkdir(path, 0755), 0);
	free(path);
}

static void put(const char *rel, const char *text)
{
	char *path = tmp_path(rel);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
}

static void go(const char *rel)
{
	char *path = tmp_path(rel);

	ck_assert_int_eq(chdir(path), 0);
	free(path);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(getcwd(oldcwd, sizeof(oldcwd)));
	strcpy(tmpdir, "/tmp/mpsfix-target-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	tu_git_isolate(tmpdir);
	ck_assert_int_eq(mpsfix_git_init(), 0);
	make_dir("proj");
	make_dir("proj/sub");
	make_dir("empty");
}

static void teardown(void)
{
	ck_assert_int_eq(chdir(oldcwd), 0);
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	mpsfix_git_shutdown();
	tu_git_restore();
}

static int resolve(mpsfix_target *t, const char *option, const char *config_value,
		   const char *config_rel, const char *root_rel)
{
	char *config = config_rel ? tmp_path(config_rel) : NULL, *root = root_rel ? tmp_path(root_rel) : NULL;
	mpsfix_target_opts o = {
		.option = option, .config_value = config_value, .config_path = config, .root = root,
	};
	int error = mpsfix_target_resolve(t, &o);

	free(config);
	free(root);
	return error;
}

START_TEST(test_target_option)
{
	mpsfix_target t;

	put("proj/requirements.txt", "torch==2.1.0\ntorch==oops\n");
	go("proj");
	ck_assert_int_eq(resolve(&t, ">=2.4", "2.1", "proj/.mpsfix.yml", "proj"), 0);
	ck_assert_int_eq(t.source, MPSFIX_TARGET_OPTION);
	ck_assert_str_eq(mpsfix_target_label(&t), ">=2.4");
	ck_assert_str_eq(t.origin, "--target-torch");
	ck_assert_str_eq(t.summary, "target torch >=2.4 (--target-torch)");
	ck_assert_uint_eq(t.pins.len, 0);      /* not read: the option decides */
	ck_assert_uint_eq(t.pins.nwarnings, 0);
	mpsfix_target_release(&t);
	ck_assert_int_eq(resolve(&t, " 2.1.0 ", NULL, NULL, "proj"), 0);
	ck_assert_str_eq(t.summary, "target torch 2.1 (--target-torch)");
	mpsfix_target_release(&t);
	ck_assert_int_eq(resolve(&t, "all", NULL, NULL, "proj"), 0);
	ck_assert_str_eq(t.summary, "target torch all (--target-torch)");
	mpsfix_target_release(&t);
}
END_TEST

START_TEST(test_target_option_bad)
{
	mpsfix_target t;

	ck_assert_int_eq(resolve(&t, "2.x", NULL, NULL, "proj"), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "--target-torch '2.x': '2.x' is not a version");
	ck_assert_ptr_null(t.summary);
	ck_assert_int_eq(resolve(&t, ">=2.6,<2.1", NULL, NULL, "proj"), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "--target-torch '>=2.6,<2.1': no version satisfies all of these constraints");
	ck_assert_int_eq(resolve(&t, "", NULL, NULL, "proj"), MPSFIX_ERROR);
	ck_assert_int_eq(resolve(&t, NULL, "=>2", "proj/.mpsfix.yml", "proj"), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message,
				     "/proj/.mpsfix.yml: target-torch '=>2': unknown operator '=>'"));
}
END_TEST

START_TEST(test_target_config)
{
	mpsfix_target t;

	put("proj/.mpsfix.yml", "target-torch: '2.1'\n");
	put("proj/requirements.txt", "torch==2.5\n");
	go("proj");
	ck_assert_int_eq(resolve(&t, NULL, "2.1", "proj/.mpsfix.yml", "proj"), 0);
	ck_assert_int_eq(t.source, MPSFIX_TARGET_CONFIG);
	ck_assert_str_eq(t.summary, "target torch 2.1 (.mpsfix.yml)");
	ck_assert_uint_eq(t.pins.len, 0);
	mpsfix_target_release(&t);
	/* the file is named from the current folder */
	go("proj/sub");
	ck_assert_int_eq(resolve(&t, NULL, ">=2.1,<2.6", "proj/.mpsfix.yml", "proj"), 0);
	ck_assert_str_eq(t.summary, "target torch >=2.1,<2.6 (../.mpsfix.yml)");
	mpsfix_target_release(&t);
	go("");
	ck_assert_int_eq(resolve(&t, NULL, "2.1", "proj/.mpsfix.yml", "proj"), 0);
	ck_assert_str_eq(t.summary, "target torch 2.1 (proj/.mpsfix.yml)");
	mpsfix_target_release(&t);
	go("empty");
	ck_assert_int_eq(resolve(&t, NULL, "2.1", "proj/.mpsfix.yml", "proj"), 0);
	ck_assert_str_eq(t.summary, "target torch 2.1 (../proj/.mpsfix.yml)");
	mpsfix_target_release(&t);
}
END_TEST

START_TEST(test_target_pins)
{
	mpsfix_target t;

	put("proj/requirements.txt", "numpy\ntorch==2.1.0\n");
	go("proj");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_int_eq(t.source, MPSFIX_TARGET_PINS);
	ck_assert_str_eq(mpsfix_target_label(&t), "2.1");
	ck_assert_str_eq(t.summary, "target torch 2.1 (requirements.txt:2)");
	mpsfix_target_release(&t);
	/* several pins: their hull, the first named */
	put("proj/pyproject.toml", "[project]\ndependencies = ['torch>=2.4']\n");
	put("proj/setup.cfg", "[options]\ninstall_requires = torch==oops\n");
	put("proj/environment.yml", "dependencies: [pytorch=2.3]\n");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_str_eq(t.summary, "target torch >=2.1 (requirements.txt:2 and 2 more)");
	ck_assert_uint_eq(t.pins.nwarnings, 1);
	ck_assert_str_eq(t.pins.warnings[0],
			 "setup.cfg:2: torch pin 'torch==oops' ignored: 'oops' is not a version");
	mpsfix_target_release(&t);
	go("proj/sub");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_str_eq(t.summary, "target torch >=2.1 (../requirements.txt:2 and 2 more)");
	mpsfix_target_release(&t);
}
END_TEST

START_TEST(test_target_default)
{
	mpsfix_target t;

	put("proj/requirements.txt", "torch\ntorchvision==0.16\n");
	go("proj");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_int_eq(t.source, MPSFIX_TARGET_DEFAULT);
	ck_assert_ptr_null(t.origin);
	ck_assert_str_eq(mpsfix_target_label(&t), ">=1.12");
	ck_assert_str_eq(t.summary, "target torch: every MPS-capable version");
	mpsfix_target_release(&t);
	/* no folder to read pins from */
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, NULL), 0);
	ck_assert_str_eq(t.summary, "target torch: every MPS-capable version");
	mpsfix_target_release(&t);
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "missing"), MPSFIX_ERROR);
}
END_TEST

START_TEST(test_target_runs)
{
	static const char *const yaml = "id: old-bug\ncode: MPS900\nseverity: error\nmessage: m\n"
					"torch: '< 2.4'\nmatch: f()\n";
	mpsfix_rule *r = NULL, *all = NULL;
	mpsfix_target t;

	ck_assert_int_eq(mpsfix_rule_load_buffer(&r, tu_parser(), "r.yml", yaml, strlen(yaml)), 0);
	all = tu_rule("MPS901", (const char *const[]){"g()", NULL}, NULL, NULL, NULL, false);
	ck_assert_int_eq(resolve(&t, "2.1", NULL, NULL, NULL), 0);
	ck_assert(mpsfix_target_runs(&t, r));
	ck_assert(mpsfix_target_runs(&t, all));
	mpsfix_target_release(&t);
	ck_assert_int_eq(resolve(&t, "2.4", NULL, NULL, NULL), 0);
	ck_assert(!mpsfix_target_runs(&t, r));
	ck_assert(mpsfix_target_runs(&t, all));
	mpsfix_target_release(&t);
	ck_assert_int_eq(resolve(&t, ">=2.3,<2.6", NULL, NULL, NULL), 0);
	ck_assert(mpsfix_target_runs(&t, r));
	mpsfix_target_release(&t);
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, NULL), 0); /* every MPS version */
	ck_assert(mpsfix_target_runs(&t, r));
	mpsfix_target_release(&t);
	mpsfix_rule_free(r);
	mpsfix_rule_free(all);
}
END_TEST

/* `got` (newly allocated) names the same folder as tmpdir/`rel`. */
static void expect_root(char *got, const char *rel)
{
	char *want = tmp_path(rel), *real_got = realpath(got, NULL), *real_want = realpath(want, NULL);

	ck_assert_ptr_nonnull(real_got);
	ck_assert_ptr_nonnull(real_want);
	ck_assert_str_eq(real_got, real_want);
	free(real_got);
	free(real_want);
	free(want);
	free(got);
}

START_TEST(test_target_root)
{
	char *cmd, *p;

	make_dir("repo");
	make_dir("repo/pkg");
	put("repo/pkg/a.py", "import torch\n");
	put("proj/sub/b.py", "import torch\n");
	cmd = mpsfix_xasprintf("git init -q '%s/repo'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	/* the configuration's folder first */
	p = tmp_path("repo/pkg");
	expect_root(mpsfix_target_root(p, p), "repo/pkg");
	free(p);
	/* then the work tree's top, from a file or a folder */
	p = tmp_path("repo/pkg/a.py");
	expect_root(mpsfix_target_root(NULL, p), "repo");
	free(p);
	p = tmp_path("repo/pkg");
	expect_root(mpsfix_target_root(NULL, p), "repo");
	free(p);
	/* outside a work tree: the nearest folder upward with a pin file (a
	 * setup.py in tmpdir keeps the search from leaving it) */
	put("setup.py", "from setuptools import setup\n");
	p = tmp_path("proj/sub");
	expect_root(mpsfix_target_root(NULL, p), "");
	free(p);
	put("proj/requirements.txt", "torch==2.1\n");
	p = tmp_path("proj/sub/b.py");
	expect_root(mpsfix_target_root(NULL, p), "proj");
	free(p);
	p = tmp_path("proj/sub");
	expect_root(mpsfix_target_root(NULL, p), "proj");
	free(p);
	put("proj/sub/pyproject.toml", "[project]\nname = 'sub'\n");
	p = tmp_path("proj/sub/b.py");
	expect_root(mpsfix_target_root(NULL, p), "proj/sub");
	free(p);
	/* no operand, or standard input: from the current folder (its work tree) */
	go("repo/pkg");
	expect_root(mpsfix_target_root(NULL, NULL), "repo");
	expect_root(mpsfix_target_root(NULL, "-"), "repo");
	go("proj");
	expect_root(mpsfix_target_root(NULL, NULL), "proj");
	ck_assert_str_eq((p = mpsfix_target_root(NULL, "missing/x.py")), ".");
	free(p);
}
END_TEST

Suite *mpsfix_suite_target(void)
{
	Suite *s = suite_create("target");
	TCase *tc = tcase_create("target");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_target_option);
	tcase_add_test(tc, test_target_option_bad);
	tcase_add_test(tc, test_target_config);
	tcase_add_test(tc, test_target_pins);
	tcase_add_test(tc, test_target_default);
	tcase_add_test(tc, test_target_runs);
	tcase_add_test(tc, test_target_root);
	suite_add_tcase(s, tc);
	return s;
}
