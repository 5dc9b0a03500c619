/* check_discover.c: the plain file-system walk, git listing and globs. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover.h"
#include "tests.h"
#include "testutil.h"

static char tmpdir[64];
static char oldcwd[4096];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	chmod(path, 0700); /* folders made unreadable by a test */
	return remove(path);
}

/* Create the file or folder (trailing '/') `rel` under tmpdir. */
static void make(const char *rel)
{
	char *path = mpsfix_xasprintf("%s/%s", tmpdir, rel);
	size_t n = strlen(path);

	if (path[n - 1] == '/') {
		path[n - 1] = '\0';
		ck_assert_int_eq(mkdir(path, 0755), 0);
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	free(path);
}

static void link_to(const char *target, const char *rel)
{
	char *path = mpsfix_xasprintf("%s/%s", tmpdir, rel);

	ck_assert_int_eq(symlink(target, path), 0);
	free(path);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(getcwd(oldcwd, sizeof(oldcwd)));
	strcpy(tmpdir, "/tmp/mpsfix-discover-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	tu_git_isolate(tmpdir);
	ck_assert_int_eq(chdir(tmpdir), 0); /* short, relative paths */
	make("proj/");
	make("proj/a.py");
	make("proj/B.py");
	make("proj/b.pyi");
	make("proj/c.txt");
	make("proj/py");
	make("proj/.hidden.py");
	make("proj/sub/");
	make("proj/sub/z.py");
	make("proj/sub/deeper/");
	make("proj/sub/deeper/y.py");
	const char *skipped[] = {".git/", ".venv/", "venv/", "__pycache__/",
				 "node_modules/", "site-packages/", ".tox/"};
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(skipped); i++) {
		char *dir = mpsfix_xasprintf("proj/%s", skipped[i]);
		char *file = mpsfix_xasprintf("proj/%sx.py", skipped[i]);
		make(dir);
		make(file);
		free(dir);
		free(file);
	}
	make("proj/sub/site-packages/");
	make("proj/sub/site-packages/deep.py");
}

static void teardown(void)
{
	ck_assert_int_eq(chdir(oldcwd), 0);
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	tu_git_restore();
}

typedef struct {
	mpsfix_buf messages; /* one per line */
	int count;
} errors;

static void on_error(void *payload, const char *message)
{
	errors *e = payload;

	mpsfix_buf_printf(&e->messages, "%s\n", message);
	e->count++;
}

/*
 * Discover `args` (with mpsfix_discover_files and `opts`, or mpsfix_discover
 * when NULL) and compare with `want` (NULL-terminated).
 */
static void expect_opts(char *const *args, size_t nargs, const mpsfix_discover_opts *opts,
			const char *const *want, errors *e)
{
	mpsfix_strvec p = MPSFIX_STRVEC_INIT;
	mpsfix_buf got = MPSFIX_BUF_INIT, exp = MPSFIX_BUF_INIT;

	if (opts)
		ck_assert_msg(mpsfix_discover_files(&p, args, nargs, opts, on_error, e) == 0, "%s",
			      mpsfix_error_last()->message);
	else
		ck_assert_int_eq(mpsfix_discover(&p, args, nargs, on_error, e), 0);
	for (size_t i = 0; i < p.len; i++)
		mpsfix_buf_printf(&got, "%s\n", p.items[i]);
	for (size_t i = 0; want[i]; i++)
		mpsfix_buf_printf(&exp, "%s\n", want[i]);
	mpsfix_buf_add(&got, "", 0);
	mpsfix_buf_add(&exp, "", 0);
	ck_assert_str_eq(got.data, exp.data);
	mpsfix_buf_release(&got);
	mpsfix_buf_release(&exp);
	mpsfix_strvec_release(&p);
	ck_assert_ptr_null(p.items);
	ck_assert_uint_eq(p.len, 0);
}

static void expect(char *const *args, size_t nargs, const char *const *want, errors *e)
{
	expect_opts(args, nargs, NULL, want, e);
}

START_TEST(test_discover_walk_skips_and_sorts)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	char *args[] = {"proj"};
	const char *want[] = {
		"proj/.hidden.py", /* only folders starting with '.' are skipped */
		"proj/B.py",
		"proj/a.py",
		"proj/b.pyi",
		"proj/sub/deeper/y.py",
		"proj/sub/z.py",
		NULL,
	};

	expect(args, 1, want, &e);
	ck_assert_int_eq(e.count, 0);
	mpsfix_buf_release(&e.messages);
}
END_TEST

START_TEST(test_discover_join_and_order)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	/* trailing slashes, argument order kept, duplicates dropped */
	char *args[] = {"proj/sub//", "proj/c.txt", "proj/a.py", "proj/", "proj/sub/z.py"};
	const char *want[] = {
		"proj/sub/deeper/y.py",
		"proj/sub/z.py",
		"proj/c.txt", /* named explicitly: kept whatever its name */
		"proj/a.py",
		"proj/.hidden.py",
		"proj/B.py",
		"proj/b.pyi",
		NULL,
	};

	expect(args, MPSFIX_ARRAY_SIZE(args), want, &e);
	ck_assert_int_eq(e.count, 0);

	/* a folder argument that itself starts with '.' is walked */
	char *dot[] = {"./proj/sub"};
	const char *want_dot[] = {"./proj/sub/deeper/y.py", "./proj/sub/z.py", NULL};
	expect(dot, 1, want_dot, &e);
	mpsfix_buf_release(&e.messages);
}
END_TEST

START_TEST(test_discover_symlinks)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	char *args[] = {"proj"};
	const char *want[] = {
		"proj/.hidden.py", "proj/B.py", "proj/a.py", "proj/b.pyi",
		/* a link to nothing and a link loop are listed: reading them says so */
		"proj/dangling.py", "proj/loop.py",
		/* proj/link.py -> sub/z.py is the same file as proj/sub/z.py: one name */
		"proj/sub/deeper/y.py", "proj/sub/z.py",
		NULL,
	};

	link_to("..", "proj/sub/up");          /* a loop */
	link_to(".", "proj/self");             /* another loop */
	link_to("sub", "proj/alias");          /* a folder twice: not followed */
	link_to("sub/z.py", "proj/link.py");
	link_to("nowhere.py", "proj/dangling.py");
	link_to("loop.py", "proj/loop.py");     /* a file link loop */
	link_to("sub", "proj/dir.py");         /* a folder named like a file */
	alarm(20);                             /* a loop would hang: die instead */
	expect(args, 1, want, &e);
	alarm(0);
	ck_assert_int_eq(e.count, 0);

	/* a symlink to a file outside the walk is taken; two names of one file give one */
	{
		char *two[] = {"proj/sub", "proj/link.py", "./proj/link.py"};
		const char *want_two[] = {"proj/sub/deeper/y.py", "proj/sub/z.py", NULL};
		char *outside[] = {"proj/link.py", "proj/sub/deeper"};
		const char *want_outside[] = {"proj/link.py", "proj/sub/deeper/y.py", NULL};

		expect(two, 3, want_two, &e);
		expect(outside, 2, want_outside, &e);
	}

	/* a symlink named on the command line is followed */
	char *alias[] = {"proj/alias"};
	const char *want_alias[] = {"proj/alias/deeper/y.py", "proj/alias/z.py", NULL};
	expect(alias, 1, want_alias, &e);
	mpsfix_buf_release(&e.messages);
}
END_TEST

START_TEST(test_discover_missing_and_unreadable)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	char *args[] = {"proj/missing.py", "proj/sub", "nope/"};
	const char *want[] = {"proj/sub/deeper/y.py", "proj/sub/z.py", NULL};

	expect(args, MPSFIX_ARRAY_SIZE(args), want, &e);
	ck_assert_int_eq(e.count, 2);
	ck_assert_str_eq(e.messages.data,
			 "proj/missing.py: No such file or directory\n"
			 "nope/: No such file or directory\n");

	/* no callback: problems are skipped silently */
	mpsfix_strvec p = MPSFIX_STRVEC_INIT;
	ck_assert_int_eq(mpsfix_discover(&p, args, 1, NULL, NULL), 0);
	ck_assert_uint_eq(p.len, 0);
	mpsfix_strvec_release(&p);

	/* an unreadable folder (root reads everything: only as a normal user) */
	if (geteuid() != 0) {
		mpsfix_buf_clear(&e.messages);
		e.count = 0;
		ck_assert_int_eq(chmod("proj/sub/deeper", 0), 0);
		char *sub[] = {"proj/sub"};
		const char *want_sub[] = {"proj/sub/z.py", NULL};
		expect(sub, 1, want_sub, &e);
		ck_assert_int_eq(e.count, 1);
		ck_assert_str_eq(e.messages.data, "proj/sub/deeper: Permission denied\n");
	}
	mpsfix_buf_release(&e.messages);
}
END_TEST

START_TEST(test_discover_many)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	mpsfix_strvec p = MPSFIX_STRVEC_INIT;
	char *args[] = {"proj/many"};
	char name[64];

	/* a deep chain of folders and a wide one: no recursion limits */
	make("proj/many/");
	mpsfix_buf deep = MPSFIX_BUF_INIT;
	mpsfix_buf_adds(&deep, "proj/many");
	for (int i = 0; i < 300; i++) {
		mpsfix_buf_adds(&deep, "/d");
		ck_assert_int_eq(mkdir(deep.data, 0755), 0);
	}
	mpsfix_buf_adds(&deep, "/leaf.py");
	make(deep.data);
	for (int i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "proj/many/f%03d.py", 499 - i);
		make(name);
	}
	ck_assert_int_eq(mpsfix_discover(&p, args, 1, on_error, &e), 0);
	ck_assert_int_eq(e.count, 0);
	ck_assert_uint_eq(p.len, 501);
	ck_assert_str_eq(p.items[0], deep.data);
	mpsfix_buf_release(&deep);
	ck_assert_str_eq(p.items[1], "proj/many/f000.py");
	ck_assert_str_eq(p.items[500], "proj/many/f499.py");
	for (size_t i = 1; i < p.len; i++)
		ck_assert_int_lt(strcmp(p.items[i - 1], p.items[i]), 0);
	mpsfix_strvec_release(&p);
	mpsfix_buf_release(&e.messages);
}
END_TEST

/* Run a shell command in tmpdir; it must succeed. */
static void sh(const char *cmd)
{
	char *full = mpsfix_xasprintf("cd '%s' && { %s; }", tmpdir, cmd);

	ck_assert_msg(system(full) == 0, "failed: %s", full);
	free(full);
}

static void write_text(const char *rel, const char *text)
{
	FILE *f = fopen(rel, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_discover_files_git)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	mpsfix_discover_opts git = {.use_git = true}, all = {.use_git = true, .no_ignore = true};
	mpsfix_discover_opts walk = {.use_git = false};
	char *repo[] = {"repo"};

	sh("git -c init.defaultBranch=main init -q repo && cd repo && "
	   "git config user.name Test && git config user.email test@example.com");
	make("repo/a.py");
	make("repo/b.py");
	make("repo/c.py");
	make("repo/notes.txt");
	make("repo/sub/");
	make("repo/sub/d.py");
	make("repo/.hidden/");
	make("repo/.hidden/h.py");
	make("repo/.venv/");
	make("repo/.venv/v.py");
	write_text("repo/.gitignore", "c.py\n");
	sh("cd repo && git add a.py sub/d.py .hidden/h.py .gitignore && git commit -qm one");

	/* tracked + untracked, not ignored; the walk's skipped folders skipped too */
	expect_opts(repo, 1, &git, (const char *[]){"repo/a.py", "repo/b.py", "repo/sub/d.py", NULL}, &e);
	expect_opts(repo, 1, &all,
		    (const char *[]){"repo/a.py", "repo/b.py", "repo/c.py", "repo/sub/d.py", NULL}, &e);
	expect_opts(repo, 1, &walk,
		    (const char *[]){"repo/a.py", "repo/b.py", "repo/c.py", "repo/sub/d.py", NULL}, &e);
	/* an ignored file named explicitly is taken; order and duplicates as before */
	{
		char *args[] = {"repo/sub", "repo/c.py", "./repo", "repo/sub/d.py"};
		expect_opts(args, 4, &git,
			    (const char *[]){"repo/sub/d.py", "repo/c.py", "./repo/a.py", "./repo/b.py", NULL},
			    &e);
	}
	/* outside a work tree (proj/.git is an empty folder, no repository): the walk */
	{
		char *args[] = {"proj/sub", "repo"};
		expect_opts(args, 2, &git,
			    (const char *[]){"proj/sub/deeper/y.py", "proj/sub/z.py",
					     "repo/a.py", "repo/b.py", "repo/sub/d.py", NULL},
			    &e);
	}
	/* from inside the work tree */
	ck_assert_int_eq(chdir("repo/sub"), 0);
	{
		char *args[] = {".", ".."};
		expect_opts(args, 2, &git, (const char *[]){"./d.py", "../a.py", "../b.py", NULL}, &e);
	}
	ck_assert_int_eq(e.count, 0);
	mpsfix_buf_release(&e.messages);
}
END_TEST

/*
 * A folder argument that git ignores is walked (with walk_ignored); one
 * that gives no file is named in a warning with why.
 */
START_TEST(test_discover_files_git_ignored)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	mpsfix_discover_opts o = {.use_git = true, .walk_ignored = true, .on_warning = on_error};
	mpsfix_discover_opts from_git = {.use_git = true, .on_warning = on_error};
	char *build[] = {"repo/build"}, *repo[] = {"repo"}, *dot[] = {"."};

	sh("git -c init.defaultBranch=main init -q repo && cd repo && "
	   "git config user.name Test && git config user.email test@example.com");
	make("repo/src/");
	make("repo/src/x.py");
	make("repo/build/");
	make("repo/build/a.py");
	make("repo/build/t.py");
	make("repo/build/sub/");
	make("repo/build/sub/b.py");
	make("repo/build/.hidden/");
	make("repo/build/.hidden/h.py");
	make("repo/docs/");
	make("repo/docs/index.md");
	make("repo/data/");
	make("repo/data/d.py");
	write_text("repo/.gitignore", "build/\n");
	write_text("repo/data/.gitignore", "*.py\n");
	sh("cd repo && git add .gitignore src/x.py && git add -f build/t.py && git commit -qm one");

	/* named: walked, as outside a work tree; found inside a folder: skipped as before */
	expect_opts(build, 1, &o,
		    (const char *[]){"repo/build/a.py", "repo/build/sub/b.py", "repo/build/t.py", NULL}, &e);
	expect_opts(repo, 1, &o, (const char *[]){"repo/build/t.py", "repo/src/x.py", NULL}, &e);
	ck_assert_int_eq(e.count, 0);
	/* without walk_ignored (what reads git's content): its tracked files */
	expect_opts(build, 1, &from_git, (const char *[]){"repo/build/t.py", NULL}, &e);
	ck_assert_int_eq(e.count, 0);
	/* nothing found: why */
	{
		char *args[] = {"repo/docs", "repo/data", "repo/src"};
		mpsfix_discover_opts ex = o;
		static char *const exclude[] = {"repo/src/x.py"};

		expect_opts(args, 2, &o, (const char *[]){NULL}, &e);
		ck_assert_int_eq(e.count, 2);
		ck_assert_str_eq(e.messages.data,
				 "repo/docs: nothing to check: no *.py, *.pyi or *.ipynb file in it\n"
				 "repo/data: nothing to check: git ignores its 1 Python file (--no-ignore reads it)\n");
		mpsfix_buf_clear(&e.messages);
		e.count = 0;
		ex.exclude = exclude;
		ex.nexclude = 1;
		expect_opts(args + 2, 1, &ex, (const char *[]){NULL}, &e);
		ck_assert_int_eq(e.count, 1);
		ck_assert_str_eq(e.messages.data, "repo/src: nothing to check: --exclude, --include or the "
				 "configuration's exclude leave out its 1 Python file\n");
		mpsfix_buf_clear(&e.messages);
		e.count = 0;
	}
	/* from inside the ignored folder */
	ck_assert_int_eq(chdir("repo/build/sub"), 0);
	expect_opts(dot, 1, &o, (const char *[]){"./b.py", NULL}, &e);
	ck_assert_int_eq(e.count, 0);
	mpsfix_buf_release(&e.messages);
}
END_TEST

START_TEST(test_discover_files_globs)
{
	errors e = {MPSFIX_BUF_INIT, 0};
	char *proj[] = {"proj"};
	mpsfix_discover_opts o = {.use_git = true};

#define GLOBS(field, ...)                                                    \
	do {                                                                 \
		static char *const globs_[] = {__VA_ARGS__};                 \
		o.field = globs_;                                            \
		o.n##field = MPSFIX_ARRAY_SIZE(globs_);                      \
	} while (0)

	/* a bare name: any folder or file of that name, and what is under it */
	GLOBS(exclude, "sub");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/.hidden.py", "proj/B.py", "proj/a.py", "proj/b.pyi", NULL}, &e);
	GLOBS(exclude, "*.pyi", "deeper");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/.hidden.py", "proj/B.py", "proj/a.py", "proj/sub/z.py", NULL}, &e);
	/* with a '/': from the base folder, `*` within one component, `**` across */
	GLOBS(exclude, "proj/*.py");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/b.pyi", "proj/sub/deeper/y.py", "proj/sub/z.py", NULL}, &e);
	GLOBS(exclude, "proj/**/y.py", "./proj/.hidden.py");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/B.py", "proj/a.py", "proj/b.pyi", "proj/sub/z.py", NULL}, &e);
	GLOBS(exclude, "proj/sub/**");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/.hidden.py", "proj/B.py", "proj/a.py", "proj/b.pyi", NULL}, &e);
	/* a trailing '/' is for folders only */
	GLOBS(exclude, "sub/", "z.py/");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/.hidden.py", "proj/B.py", "proj/a.py", "proj/b.pyi", NULL}, &e);
	/* a file named explicitly is always taken */
	GLOBS(exclude, "*.py", "c.txt");
	{
		char *args[] = {"proj", "proj/a.py", "proj/c.txt"};
		expect_opts(args, 3, &o, (const char *[]){"proj/b.pyi", "proj/a.py", "proj/c.txt", NULL}, &e);
	}

	/* --include: only matching files (explicit ones still taken); exclude wins */
	o.nexclude = 0;
	GLOBS(include, "sub");
	{
		char *args[] = {"proj", "proj/c.txt"};
		expect_opts(args, 2, &o,
			    (const char *[]){"proj/sub/deeper/y.py", "proj/sub/z.py", "proj/c.txt", NULL}, &e);
	}
	GLOBS(include, "**/y.py", "[AB].py");
	expect_opts(proj, 1, &o, (const char *[]){"proj/B.py", "proj/sub/deeper/y.py", NULL}, &e);
	GLOBS(exclude, "deeper");
	expect_opts(proj, 1, &o, (const char *[]){"proj/B.py", NULL}, &e);

	/* relative to glob_base: the files under it; those outside it are kept */
	char *base = mpsfix_xasprintf("%s/proj", tmpdir);
	o.glob_base = base;
	o.ninclude = 0;
	GLOBS(exclude, "sub/deeper", "proj");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/.hidden.py", "proj/B.py", "proj/a.py", "proj/b.pyi",
				     "proj/sub/z.py", NULL},
		    &e);
	free(base);
	base = mpsfix_xasprintf("%s/proj/sub/../sub", tmpdir);
	o.glob_base = base;
	o.nexclude = 0;
	GLOBS(include, "z.py");
	expect_opts(proj, 1, &o,
		    (const char *[]){"proj/.hidden.py", "proj/B.py", "proj/a.py", "proj/b.pyi",
				     "proj/sub/z.py", NULL},
		    &e);
	free(base);
	/* from another folder (the base, by default): paths are made absolute first */
	o.glob_base = NULL;
	o.ninclude = 0;
	GLOBS(exclude, "sub/deeper");
	ck_assert_int_eq(chdir("proj"), 0);
	{
		char *args[] = {"../proj/sub"};
		expect_opts(args, 1, &o, (const char *[]){"../proj/sub/z.py", NULL}, &e);
		char *here[] = {"."};
		expect_opts(here, 1, &o,
			    (const char *[]){"./.hidden.py", "./B.py", "./a.py", "./b.pyi", "./sub/z.py", NULL},
			    &e);
	}
#undef GLOBS
	ck_assert_int_eq(e.count, 0);
	mpsfix_buf_release(&e.messages);
}
END_TEST

Suite *mpsfix_suite_discover(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("discover");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_discover_walk_skips_and_sorts);
	tcase_add_test(tc, test_discover_join_and_order);
	tcase_add_test(tc, test_discover_symlinks);
	tcase_add_test(tc, test_discover_missing_and_unreadable);
	tcase_add_test(tc, test_discover_many);
	tcase_add_test(tc, test_discover_files_git);
	tcase_add_test(tc, test_discover_files_git_ignored);
	tcase_add_test(tc, test_discover_files_globs);
	suite_add_tcase(s, tc);
	return s;
}
