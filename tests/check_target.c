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
#include "targets.h"
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

static void drop(const char *rel)
{
	char *path = tmp_path(rel);

	ck_assert_int_eq(remove(path), 0);
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

START_TEST(test_target_implied)
{
	mpsfix_target t;

	/* no torch pin: every MPS-capable version, within accelerate's floor */
	put("proj/pyproject.toml", "[project]\ndependencies = ['accelerate>=1.4.0', 'numpy']\n");
	go("proj");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_int_eq(t.source, MPSFIX_TARGET_PINS);
	ck_assert_str_eq(mpsfix_target_label(&t), ">=2.0");
	ck_assert_str_eq(t.summary, "target torch >=2.0 (pyproject.toml:2)");
	mpsfix_target_release(&t);
	/* a torch pin is narrowed, not widened */
	put("proj/requirements.txt", "torch>=1.13\n");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_str_eq(mpsfix_target_label(&t), ">=2.0");
	mpsfix_target_release(&t);
	put("proj/requirements.txt", "torch>=2.4,<2.6\n");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_str_eq(mpsfix_target_label(&t), ">=2.4,<2.6");
	mpsfix_target_release(&t);
	/* pins that cannot be installed together: the torch pin is kept */
	put("proj/requirements.txt", "torch==1.13.1\n");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_str_eq(mpsfix_target_label(&t), "1.13");
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

/* The label of the target the pins of folder proj give (and release it). */
static const char *label_of(mpsfix_target *t, char buf[MPSFIX_TORCH_RANGE_STRMAX])
{
	ck_assert_int_eq(resolve(t, NULL, NULL, NULL, "proj"), 0);
	strcpy(buf, mpsfix_target_label(t));
	mpsfix_target_release(t);
	return buf;
}

START_TEST(test_target_pin_sets)
{
	mpsfix_target t;
	char buf[MPSFIX_TORCH_RANGE_STRMAX];
	FILE *f;
	char *path;

	go("proj");
	/* pins installed together all hold: a constraints file, two lines of one file */
	put("proj/requirements.txt", "torch>=2.4\n-c constraints.txt\n");
	put("proj/constraints.txt", "torch<2.6\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.4,<2.6");
	put("proj/requirements.txt", "torch>=2.1\nnumpy\ntorch<2.3\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.1,<2.3");
	/* pins for some machines (a marker) are alternatives */
	put("proj/requirements.txt", "torch>=2.7,<3.0; sys_platform != 'darwin'\n"
				     "torch>=2.7,<2.8; sys_platform == 'darwin'\ntorch>=2.5\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.5");
	/* pins that leave no version (pip refuses them): the range around them */
	put("proj/requirements.txt", "torch>=2.5\ntorch<2.3\n");
	ck_assert_str_eq(label_of(&t, buf), ">=1.12");
	/* another requirement file is an alternative setup */
	put("proj/requirements.txt", "torch>=2.4\n-c constraints.txt\n");
	put("proj/requirements-old.txt", "torch==2.1.*\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.1,<2.6");
	drop("proj/requirements-old.txt");
	drop("proj/constraints.txt");
	/* a file two sets include is read for each: requirements-ci.txt (read
	   first) includes requirements.txt, which is a setup of its own too */
	put("proj/requirements.txt", "torch>=2.4\ntorch==oops\n");
	put("proj/requirements-ci.txt", "-r requirements.txt\ntorch==2.4.1\n");
	ck_assert_int_eq(resolve(&t, NULL, NULL, NULL, "proj"), 0);
	ck_assert_str_eq(mpsfix_target_label(&t), ">=2.4");
	ck_assert_str_eq(t.summary, "target torch >=2.4 (requirements.txt:1 and 1 more)");
	ck_assert_uint_eq(t.pins.nwarnings, 1); /* the bad pin, once */
	mpsfix_target_release(&t);
	drop("proj/requirements-ci.txt");
	drop("proj/requirements.txt");
	make_dir("proj/requirements");
	put("proj/requirements/base.txt", "torch>=2.4\n");
	put("proj/requirements/dev.txt", "-r base.txt\ntorch<2.6\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.4");
	drop("proj/requirements/base.txt");
	drop("proj/requirements/dev.txt");
	drop("proj/requirements");
	/* [project] dependencies with uv's constraints; extras apart */
	put("proj/pyproject.toml", "[project]\ndependencies = ['torch>=2.4']\n"
				   "[project.optional-dependencies]\nold = ['torch==2.0']\n"
				   "[tool.uv]\nconstraint-dependencies = ['torch<2.6']\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.4,<2.6");
	put("proj/pyproject.toml", "[project]\nname = 'x'\n[project.optional-dependencies]\n"
				   "a = ['torch==2.1']\nb = ['torch==2.3']\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.1,<2.4");
	drop("proj/pyproject.toml");
	/* an upper bound alone starts at 1.12, the first release with MPS */
	put("proj/requirements.txt", "torch<2.3\n");
	ck_assert_str_eq(label_of(&t, buf), ">=1.12,<2.3");
	put("proj/requirements.txt", "torch==1.10\n");
	ck_assert_str_eq(label_of(&t, buf), "1.10");
	/* a byte order mark; UTF-16, as PowerShell writes `pip freeze >` */
	put("proj/requirements.txt", "\xEF\xBB\xBFtorch>=2.6\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.6");
	path = tmp_path("proj/requirements.txt");
	ck_assert_ptr_nonnull(f = fopen(path, "wb"));
	fwrite("\xFF\xFEt\0o\0r\0c\0h\0=\0=\0\x31\0.\0\x31\0\x33\0\r\0\n\0", 1, 28, f);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
	ck_assert_str_eq(label_of(&t, buf), "1.13");
	drop("proj/requirements.txt");
	put("proj/environment.yml", "\xEF\xBB\xBFname: x\ndependencies:\n  - pytorch>=2.6\n");
	ck_assert_str_eq(label_of(&t, buf), ">=2.6");
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

static int count_warnings;

static void on_warning(void *payload, const char *message)
{
	(void)payload;
	(void)message;
	count_warnings++;
}

/* The summary of item `k` of `t`, for a comparison. */
static const char *summary_of(const mpsfix_targets *t, size_t k)
{
	ck_assert_uint_lt(k, t->len);
	return t->items[k].summary;
}

START_TEST(test_targets_per_folder)
{
	mpsfix_targets t;
	mpsfix_target_opts o = {0};
	char *file, *root;
	size_t a, b, c, k;

	make_dir("proj/a");
	make_dir("proj/a/pkg");
	make_dir("proj/b");
	make_dir("proj/docs");
	make_dir("proj/trainer");
	put("proj/a/requirements.txt", "torch==2.1.0\ntorch==oops\n");
	put("proj/b/pyproject.toml", "[project]\ndependencies = [\"torch>=2.6\"]\n");
	put("proj/docs/requirements.txt", "sphinx\n");
	put("proj/trainer/setup.py", "def setup(trainer):\n    pass\n"); /* a module, not a project */
	put("proj/sub/requirements.txt", "torch\n");
	put("proj/requirements.txt", "torch>=2.0\n");
	go("proj");
	o.root = root = tmp_path("proj");
	count_warnings = 0;
	ck_assert_int_eq(mpsfix_targets_init(&t, &o, on_warning, NULL), 0);
	ck_assert(!t.forced);
	ck_assert_str_eq(summary_of(&t, 0), "target torch >=2.0 (requirements.txt:1)");
	/* the nearest folder above whose pins name torch; each read once */
	a = mpsfix_targets_of_file(&t, "a/pkg/x.py", NULL, on_warning, NULL);
	ck_assert_str_eq(summary_of(&t, a), "target torch 2.1 (a/requirements.txt:1)");
	ck_assert_int_eq(count_warnings, 1); /* torch==oops */
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "a/y.py", NULL, on_warning, NULL), a);
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "./a/../a/pkg/z.py", NULL, on_warning, NULL), a);
	ck_assert_int_eq(count_warnings, 1);
	b = mpsfix_targets_of_file(&t, "b/x.py", NULL, on_warning, NULL);
	ck_assert_str_eq(summary_of(&t, b), "target torch >=2.6 (b/pyproject.toml:2)");
	/* pins that do not name torch are passed over: the project's */
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "docs/conf.py", NULL, on_warning, NULL), 0);
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "trainer/setup.py", NULL, on_warning, NULL), 0);
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "x.py", NULL, on_warning, NULL), 0);
	/* torch without a version says nothing of it: the project's target */
	c = mpsfix_targets_of_file(&t, "sub/x.py", NULL, on_warning, NULL);
	ck_assert_uint_eq(c, 0);
	ck_assert_uint_eq(t.len, 3);
	/* a file that is not there: its folder's (standard input's --stdin-filename) */
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "b/new.py", NULL, on_warning, NULL), b);
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "new.py", NULL, on_warning, NULL), 0);
	ck_assert_uint_eq(mpsfix_targets_of_folder(&t, "a/pkg", on_warning, NULL), a);
	mpsfix_targets_release(&t);
	/* outside git the search stops at the current folder (as the run starts), or at a higher folder operand */
	go("proj/a/pkg");
	o.root = NULL;
	ck_assert_int_eq(mpsfix_targets_init(&t, &o, on_warning, NULL), 0);
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "x.py", NULL, on_warning, NULL), 0);
	k = mpsfix_targets_of_file(&t, "x.py", "../..", on_warning, NULL);
	ck_assert_str_eq(summary_of(&t, k), "target torch 2.1 (../requirements.txt:1)");
	mpsfix_targets_release(&t);
	/* ... or, for a file outside the current folder, its folder operand, else its own folder */
	go("empty");
	ck_assert_int_eq(mpsfix_targets_init(&t, &o, on_warning, NULL), 0);
	file = tmp_path("proj/a/pkg/x.py");
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, file, NULL, on_warning, NULL), 0);
	k = mpsfix_targets_of_file(&t, file, root, on_warning, NULL);
	ck_assert_str_eq(summary_of(&t, k), "target torch 2.1 (../proj/a/requirements.txt:1)");
	free(file);
	file = tmp_path("proj/a/y.py");
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, file, NULL, on_warning, NULL), k);
	free(file);
	mpsfix_targets_release(&t);
	free(root);
}
END_TEST

START_TEST(test_targets_git_top)
{
	mpsfix_targets t;
	mpsfix_target_opts o = {0};
	char *cmd;
	size_t k;

	put("requirements.txt", "torch==1.13\n"); /* above the work tree: never read */
	make_dir("repo");
	make_dir("repo/p");
	make_dir("repo/p/src");
	put("repo/p/setup.cfg", "[options]\ninstall_requires = torch~=2.2.0\n");
	cmd = mpsfix_xasprintf("git init -q '%s/repo'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	go("repo/p/src");
	o.root = mpsfix_target_root(NULL, NULL);
	ck_assert_int_eq(mpsfix_targets_init(&t, &o, NULL, NULL), 0);
	ck_assert_str_eq(summary_of(&t, 0), "target torch: every MPS-capable version");
	/* in a work tree the search goes up to its top, whatever the current folder */
	k = mpsfix_targets_of_file(&t, "x.py", NULL, NULL, NULL);
	ck_assert_str_eq(summary_of(&t, k), "target torch 2.2 (../setup.cfg:2)");
	ck_assert_uint_eq(mpsfix_targets_of_folder(&t, ".", NULL, NULL), k);
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "../../x.py", NULL, NULL, NULL), 0);
	mpsfix_targets_release(&t);
	free((char *)o.root);
}
END_TEST

START_TEST(test_targets_forced)
{
	mpsfix_targets t;
	mpsfix_target_opts o = {.option = "2.5"};

	put("proj/requirements.txt", "torch==2.1.0\n");
	ck_assert_int_eq(mpsfix_targets_init(&t, &o, NULL, NULL), 0);
	ck_assert(t.forced);
	ck_assert_uint_eq(mpsfix_targets_of_file(&t, "proj/x.py", NULL, NULL, NULL), 0);
	ck_assert_uint_eq(t.len, 1);
	ck_assert_str_eq(summary_of(&t, 0), "target torch 2.5 (--target-torch)");
	mpsfix_targets_release(&t);
	o.option = "2.x";
	ck_assert_int_eq(mpsfix_targets_init(&t, &o, NULL, NULL), MPSFIX_ERROR);
	mpsfix_targets_release(&t);
}
END_TEST

START_TEST(test_targets_summary)
{
	static const char *const pins[] = {"torch==2.1\n", "torch>=2.6\n", "torch<2.0\n", "torch==2.3.*\n",
					   "torch==2.4\n"};
	mpsfix_targets t;
	mpsfix_target_opts o = {0};
	size_t files[8] = {0};
	char *words;
	mpsfix_torch_range r;
	char buf[MPSFIX_TORCH_RANGE_STRMAX];

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(pins); i++) {
		char *dir = mpsfix_xasprintf("p%zu", i), *req = mpsfix_xasprintf("p%zu/requirements.txt", i);

		make_dir(dir);
		put(req, pins[i]);
		free(dir);
		free(req);
	}
	go("");
	ck_assert_int_eq(mpsfix_targets_init(&t, &o, NULL, NULL), 0);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(pins); i++) {
		char *f = mpsfix_xasprintf("p%zu/x.py", i);

		ck_assert_uint_eq(mpsfix_targets_of_file(&t, f, NULL, NULL, NULL), i + 1);
		free(f);
	}
	ck_assert_uint_eq(t.len, 6);
	/* none or one used: that target's summary */
	words = mpsfix_targets_summary(&t, files);
	ck_assert_str_eq(words, "target torch: every MPS-capable version");
	free(words);
	files[2] = 7;
	words = mpsfix_targets_summary(&t, files);
	ck_assert_str_eq(words, "target torch >=2.6 (p1/requirements.txt:1)");
	free(words);
	r = mpsfix_targets_hull(&t, files);
	ck_assert_str_eq(mpsfix_torch_range_format(buf, r), ">=2.6");
	/* several: most files first, then in the order found */
	files[0] = 1;
	files[1] = 3;
	words = mpsfix_targets_summary(&t, files);
	ck_assert_str_eq(words, "targets: torch >=2.6 (p1/requirements.txt:1) for 7 files, "
				"torch 2.1 (p0/requirements.txt:1) for 3 files, "
				"every MPS-capable version for 1 file");
	free(words);
	r = mpsfix_targets_hull(&t, files);
	ck_assert_str_eq(mpsfix_torch_range_format(buf, r), ">=1.12");
	/* past four, the rest counted together */
	files[3] = 1;
	files[4] = 2;
	files[5] = 1;
	words = mpsfix_targets_summary(&t, files);
	ck_assert_str_eq(words, "targets: torch >=2.6 (p1/requirements.txt:1) for 7 files, "
				"torch 2.1 (p0/requirements.txt:1) for 3 files, "
				"torch 2.3 (p3/requirements.txt:1) for 2 files, "
				"every MPS-capable version for 1 file, and 2 more for 2 files");
	free(words);
	files[0] = 0;
	r = mpsfix_targets_hull(&t, files);
	ck_assert_str_eq(mpsfix_torch_range_format(buf, r), ">=1.12"); /* p2's <2.0 from 1.12 on */
	mpsfix_targets_release(&t);
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
	tcase_add_test(tc, test_target_implied);
	tcase_add_test(tc, test_target_pin_sets);
	tcase_add_test(tc, test_target_default);
	tcase_add_test(tc, test_target_runs);
	tcase_add_test(tc, test_target_root);
	tcase_add_test(tc, test_targets_per_folder);
	tcase_add_test(tc, test_targets_git_top);
	tcase_add_test(tc, test_targets_forced);
	tcase_add_test(tc, test_targets_summary);
	suite_add_tcase(s, tc);
	return s;
}
