/*
 * check_git.c: unified diffs from libgit2, checked with the real `git apply`;
 * file listing, staged content and changed lines in throwaway repositories
 * (built with the git command, isolated from the user's configuration).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git.h"
#include "tests.h"
#include "testutil.h"

static char tmpdir[64];
static char oldcwd[4096];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(getcwd(oldcwd, sizeof(oldcwd)));
	strcpy(tmpdir, "/tmp/mpsfix-git-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	tu_git_isolate(tmpdir);
	ck_assert_int_eq(mpsfix_git_init(), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(chdir(oldcwd), 0);
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	mpsfix_git_shutdown();
	tu_git_restore();
}

static void write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * Diff `old` → `new_text` as pkg/mod.py, write `old` there in tmpdir, apply the
 * diff with the real `git apply`, and expect exactly `new_text` back.
 */
static void round_trip(const char *old, const char *new_text)
{
	mpsfix_buf diff = MPSFIX_BUF_INIT;
	char *pkg = mpsfix_xasprintf("%s/pkg", tmpdir);
	char *file = mpsfix_xasprintf("%s/pkg/mod.py", tmpdir);
	char *patch = mpsfix_xasprintf("%s/change.diff", tmpdir);
	char *cmd = mpsfix_xasprintf("cd '%s' && git apply --whitespace=nowarn change.diff", tmpdir);
	size_t len;

	ck_assert_int_eq(mpsfix_git_diff(&diff, "pkg/mod.py", old, strlen(old),
					 new_text, strlen(new_text)), 0);
	ck_assert_uint_gt(diff.len, 0);
	mkdir(pkg, 0755);
	write_bytes(file, old, strlen(old));
	write_bytes(patch, diff.data, diff.len);
	ck_assert_msg(system(cmd) == 0, "git apply refused:\n%s", diff.data);
	char *got = tu_read_file(file, &len);
	ck_assert_uint_eq(len, strlen(new_text));
	ck_assert_mem_eq(got, new_text, len);
	free(got);
	free(pkg);
	free(file);
	free(patch);
	free(cmd);
	mpsfix_buf_release(&diff);
}

START_TEST(test_git_version)
{
	int major = -1, minor = -1, rev = -1;
	char tail;

	ck_assert_int_eq(sscanf(mpsfix_git_version(), "%d.%d.%d%c", &major, &minor, &rev, &tail), 3);
	ck_assert_int_ge(major, 1);
	ck_assert_int_ge(minor, 0);
	ck_assert_int_ge(rev, 0);
}
END_TEST

START_TEST(test_git_diff_headers)
{
	mpsfix_buf diff = MPSFIX_BUF_INIT;

	ck_assert_int_eq(mpsfix_git_diff(&diff, "pkg/m.py", "a\nb\nc\n", 6, "a\nB\nc\n", 6), 0);
	ck_assert_str_eq(diff.data,
			 "diff --git a/pkg/m.py b/pkg/m.py\n"
			 "index de98044..7be73ce 100644\n"
			 "--- a/pkg/m.py\n"
			 "+++ b/pkg/m.py\n"
			 "@@ -1,3 +1,3 @@\n"
			 " a\n"
			 "-b\n"
			 "+B\n"
			 " c\n");
	mpsfix_buf_release(&diff);
}
END_TEST

START_TEST(test_git_diff_identical_is_empty)
{
	mpsfix_buf diff = MPSFIX_BUF_INIT;

	mpsfix_buf_adds(&diff, "before");
	ck_assert_int_eq(mpsfix_git_diff(&diff, "x.py", "same\r\n", 6, "same\r\n", 6), 0);
	ck_assert_str_eq(diff.data, "before");
	ck_assert_int_eq(mpsfix_git_diff(&diff, "x.py", "", 0, "", 0), 0);
	ck_assert_int_eq(mpsfix_git_diff(&diff, "x.py", NULL, 0, "", 0), 0);
	ck_assert_uint_eq(diff.len, 6);

	/* NULL is empty text, not a missing file */
	mpsfix_buf_clear(&diff);
	ck_assert_int_eq(mpsfix_git_diff(&diff, "x.py", NULL, 0, "y\n", 2), 0);
	ck_assert_ptr_null(strstr(diff.data, "/dev/null"));
	ck_assert_ptr_null(strstr(diff.data, "new file"));
	mpsfix_buf_clear(&diff);
	mpsfix_buf_adds(&diff, "before");

	/* a real change is appended after what was there */
	ck_assert_int_eq(mpsfix_git_diff(&diff, "x.py", "a\n", 2, "b\n", 2), 0);
	ck_assert_int_eq(strncmp(diff.data, "beforediff --git a/x.py b/x.py\n", 31), 0);
	mpsfix_buf_release(&diff);
}
END_TEST

START_TEST(test_git_diff_context)
{
	mpsfix_buf old = MPSFIX_BUF_INIT, new_text = MPSFIX_BUF_INIT, diff = MPSFIX_BUF_INIT;

	for (int i = 1; i <= 20; i++) {
		mpsfix_buf_printf(&old, "line %d\n", i);
		mpsfix_buf_printf(&new_text, i == 10 ? "LINE %d\n" : "line %d\n", i);
	}
	ck_assert_int_eq(mpsfix_git_diff(&diff, "c.py", old.data, old.len,
					 new_text.data, new_text.len), 0);
	const char *hunk = strstr(diff.data, "\n@@ -7,7 +7,7 @@");
	ck_assert_ptr_nonnull(hunk);
	/* after the range, git's heading: the last line starting with a letter */
	hunk = strchr(hunk + 1, '\n');
	ck_assert_ptr_nonnull(hunk);
	ck_assert_str_eq(hunk,
			 "\n line 7\n line 8\n line 9\n"
			 "-line 10\n+LINE 10\n"
			 " line 11\n line 12\n line 13\n");
	mpsfix_buf_release(&old);
	mpsfix_buf_release(&new_text);
	mpsfix_buf_release(&diff);
}
END_TEST

START_TEST(test_git_apply_crlf)
{
	round_trip("import torch\r\nx = torch.std_mean(y)\r\nprint(x)\r\n",
		   "import torch\r\nx = torch.std_mean(y.cpu())\r\nprint(x)\r\n");
	/* mixed endings, and a change on the last CRLF line */
	round_trip("a = 1\r\nb = 2\nc = 3\r\n", "a = 1\r\nb = 2\nc = 4\r\n");
}
END_TEST

START_TEST(test_git_apply_no_final_newline)
{
	/* neither side ends with a newline */
	round_trip("x = 1\ny = 2", "x = 1\ny = 3");
	/* the newline is added, then removed */
	round_trip("x = 1\ny = 2", "x = 1\ny = 2\n");
	round_trip("x = 1\ny = 2\n", "x = 1\ny = 2");
	/* CRLF without a final line ending */
	round_trip("a\r\nb\r\nc", "a\r\nB\r\nc");
	/* from and to an empty file */
	round_trip("", "x = 1\n");
	round_trip("x = 1\n", "");
	/* a change far from the end that leaves it alone */
	round_trip("1\n2\n3\n4\n5\n6\n7\n8\n9\nlast", "one\n2\n3\n4\n5\n6\n7\n8\n9\nlast");
}
END_TEST

START_TEST(test_git_apply_control_bytes)
{
	/* text with control characters stays a text diff */
	round_trip("s = '\x01\x02\x03\x04\x05\x06\x07\x08'\nt = '\x1b[0m'\n",
		   "s = '\x01\x02\x03\x04\x05\x06\x07\x08'\nt = '\x1b[1m'\n");

	/* even a NUL byte does not make it "Binary files differ" */
	mpsfix_buf diff = MPSFIX_BUF_INIT;
	ck_assert_int_eq(mpsfix_git_diff(&diff, "n.py", "a\0\nb\n", 5, "a\0\nc\n", 5), 0);
	ck_assert_uint_gt(diff.len, 6);
	ck_assert_ptr_null(strstr(diff.data, "Binary")); /* the headers come before the NUL */
	ck_assert_mem_eq(diff.data + diff.len - 6, "-b\n+c\n", 6);
	mpsfix_buf_release(&diff);
}
END_TEST

/* Run a shell command in tmpdir; it must succeed. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	mpsfix_buf cmd = MPSFIX_BUF_INIT;
	va_list ap;

	mpsfix_buf_printf(&cmd, "cd '%s' && { ", tmpdir);
	va_start(ap, fmt);
	mpsfix_buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	mpsfix_buf_adds(&cmd, "; }");
	ck_assert_msg(system(cmd.data) == 0, "failed: %s", cmd.data);
	mpsfix_buf_release(&cmd);
}

/* Write `text` to tmpdir/`rel`, creating its folders. */
static void put(const char *rel, const char *text)
{
	char *path = mpsfix_xasprintf("%s/%s", tmpdir, rel);

	for (char *slash = strchr(path + strlen(tmpdir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	write_bytes(path, text, strlen(text));
	free(path);
}

/* A new repository tmpdir/`name` on branch main, with a local identity. */
static void new_repo(const char *name)
{
	sh("git -c init.defaultBranch=main init -q '%s' && cd '%s' && "
	   "git config user.name Test && git config user.email test@example.com", name, name);
}

/* List `dir` from the current folder and compare with `want` (NULL-terminated). */
static void expect_list(const char *dir, bool no_ignore, const char *const *want)
{
	mpsfix_buf got = MPSFIX_BUF_INIT, exp = MPSFIX_BUF_INIT;
	char **files = NULL;
	size_t n = 99;
	bool in_repo = false;

	ck_assert_msg(mpsfix_git_list_files(&files, &n, &in_repo, dir, no_ignore) == 0, "%s: %s",
		      dir, mpsfix_error_last()->message);
	ck_assert(in_repo);
	mpsfix_buf_adds(&got, "");
	mpsfix_buf_adds(&exp, "");
	for (size_t i = 0; i < n; i++) {
		mpsfix_buf_printf(&got, "%s\n", files[i]);
		free(files[i]);
	}
	free(files);
	for (size_t i = 0; want[i]; i++)
		mpsfix_buf_printf(&exp, "%s\n", want[i]);
	ck_assert_str_eq(got.data, exp.data);
	mpsfix_buf_release(&got);
	mpsfix_buf_release(&exp);
}

/* A repository with tracked, untracked, ignored files and nested repositories. */
static void make_rich_repo(void)
{
	new_repo("repo");
	put("repo/a.py", "a = 1\n");
	put("repo/sub/b.py", "b = 1\n");
	put("repo/notes.txt", "not python\n");
	put("repo/gone.py", "deleted from the work tree\n");
	put("repo/.gitignore", "ignored.py\nbuild/\n");
	put("repo/sub/.gitignore", "local_*.py\n");
	put("repo/build/forced.py", "tracked although ignored\n");
	put("repo/inner/in.py", "in a nested repository\n");
	sh("cd repo/inner && git -c init.defaultBranch=main init -q && git add in.py && "
	   "git -c user.name=T -c user.email=t@example.com commit -qm inner");
	sh("cd repo && git add a.py sub/b.py notes.txt gone.py .gitignore sub/.gitignore && "
	   "git add -f build/forced.py && git add inner 2>/dev/null && git commit -qm one && "
	   "rm gone.py");
	/* untracked */
	put("repo/new.py", "");
	put("repo/sub/new.pyi", "");
	put("repo/fresh/deep/x.py", "");
	put("repo/local_y.py", "");       /* the nested .gitignore is for sub/ only */
	put("repo/loose/l.py", "");       /* another nested repository, untracked */
	sh("cd repo/loose && git -c init.defaultBranch=main init -q");
	/* ignored, by each source of ignore rules */
	put("repo/ignored.py", "");
	put("repo/build/gen.py", "");
	put("repo/sub/local_x.py", "");
	put("repo/excluded.py", "");
	put("repo/.git/info/exclude", "excluded.py\n");
	put("repo/global.py", "");
	put("myexcludes", "global.py\n");
	sh("cd repo && git config core.excludesFile '%s/myexcludes'", tmpdir);
}

START_TEST(test_git_list_files)
{
	const char *want[] = {
		"repo/a.py", "repo/build/forced.py", "repo/fresh/deep/x.py",
		"repo/local_y.py", "repo/new.py", "repo/sub/b.py", "repo/sub/new.pyi", NULL,
	};
	const char *want_all[] = {
		"repo/a.py", "repo/build/forced.py", "repo/build/gen.py", "repo/excluded.py",
		"repo/fresh/deep/x.py", "repo/global.py", "repo/ignored.py", "repo/local_y.py",
		"repo/new.py", "repo/sub/b.py", "repo/sub/local_x.py", "repo/sub/new.pyi", NULL,
	};

	make_rich_repo();
	ck_assert_int_eq(chdir(tmpdir), 0);
	expect_list("repo", false, want);
	expect_list("repo", true, want_all);
	/* spelled as the walk spells it */
	expect_list("repo//", false, want);
	{
		const char *want_dot[] = {"./repo/sub/b.py", "./repo/sub/new.pyi", NULL};
		expect_list("./repo/sub", false, want_dot);
	}
	ck_assert_int_eq(chdir("repo"), 0);
	{
		const char *want_here[] = {
			"./a.py", "./build/forced.py", "./fresh/deep/x.py", "./local_y.py",
			"./new.py", "./sub/b.py", "./sub/new.pyi", NULL,
		};
		const char *want_build[] = {"build/forced.py", NULL};
		const char *want_build_all[] = {"build/forced.py", "build/gen.py", NULL};
		expect_list(".", false, want_here);
		expect_list("build", false, want_build);
		expect_list("build", true, want_build_all);
	}
	/* from a subfolder, upwards too */
	ck_assert_int_eq(chdir("sub"), 0);
	{
		const char *want_sub[] = {"./b.py", "./new.pyi", NULL};
		const char *want_sub_all[] = {"./b.py", "./local_x.py", "./new.pyi", NULL};
		const char *want_up[] = {
			"../a.py", "../build/forced.py", "../fresh/deep/x.py", "../local_y.py",
			"../new.py", "../sub/b.py", "../sub/new.pyi", NULL,
		};
		expect_list(".", false, want_sub);
		expect_list(".", true, want_sub_all);
		expect_list("..", false, want_up);
		ck_assert_int_eq(chdir("../fresh"), 0);
		expect_list("../fresh", false, (const char *[]){"../fresh/deep/x.py", NULL});
	}
}
END_TEST

START_TEST(test_git_list_not_a_worktree)
{
	char **files = NULL;
	size_t n = 9;
	bool in_repo = true;

	put("plain/x.py", "");
	new_repo("bare");
	sh("git -c init.defaultBranch=main init -q --bare bare.git");
	ck_assert_int_eq(chdir(tmpdir), 0);
	ck_assert_int_eq(mpsfix_git_list_files(&files, &n, &in_repo, "plain", false), 0);
	ck_assert(!in_repo);
	ck_assert_uint_eq(n, 0);
	free(files);
	in_repo = true;
	ck_assert_int_eq(mpsfix_git_list_files(&files, &n, &in_repo, "bare.git", false), 0);
	ck_assert(!in_repo);
	ck_assert_uint_eq(n, 0);
	free(files);
	/* the repository's own folder is not part of the work tree */
	put("bare/.git/hooks/h.py", "");
	in_repo = true;
	ck_assert_int_eq(mpsfix_git_list_files(&files, &n, &in_repo, "bare/.git/hooks", false), 0);
	ck_assert(!in_repo);
	free(files);
	/* a missing folder is an error */
	ck_assert_int_eq(mpsfix_git_list_files(&files, &n, &in_repo, "nowhere", false), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "nowhere"));
}
END_TEST

/* Whether git ignores a folder: by a rule on it or on a folder above it. */
START_TEST(test_git_ignores_folder)
{
	static const struct {
		const char *dir;
		bool ignored;
	} cases[] = {
		{"repo", false},             /* the top of the work tree */
		{"repo/sub", false},
		{"repo/build", true},        /* build/ in repo/.gitignore */
		{"repo/build/", true},
		{"repo/build/deep", true},   /* below an ignored folder */
		{"repo/fresh/deep", false},  /* untracked, not ignored */
		{"repo/loose", false},       /* the top of a nested repository */
		{"plain", false},            /* no work tree */
		{"repo/.git/info", false},   /* no part of the work tree */
	};
	bool ignored = true;

	make_rich_repo();
	put("repo/build/deep/z.py", "");
	put("plain/x.py", "");
	ck_assert_int_eq(chdir(tmpdir), 0);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
		ignored = !cases[i].ignored;
		ck_assert_msg(mpsfix_git_ignores_folder(&ignored, cases[i].dir) == 0, "%s: %s", cases[i].dir,
			      mpsfix_error_last()->message);
		ck_assert_msg(ignored == cases[i].ignored, "%s: ignored is %d", cases[i].dir, ignored);
	}
	/* from inside it */
	ck_assert_int_eq(chdir("repo/build/deep"), 0);
	ck_assert_int_eq(mpsfix_git_ignores_folder(&ignored, "."), 0);
	ck_assert(ignored);
	ck_assert_int_eq(mpsfix_git_ignores_folder(&ignored, "../../sub"), 0);
	ck_assert(!ignored);
	/* a missing folder is an error */
	ck_assert_int_eq(mpsfix_git_ignores_folder(&ignored, "nowhere"), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "nowhere"));
}
END_TEST

START_TEST(test_git_list_symlinked_folder)
{
	make_rich_repo();
	ck_assert_int_eq(chdir(tmpdir), 0);
	ck_assert_int_eq(symlink("repo/sub", "alias"), 0);
	expect_list("alias", false, (const char *[]){"alias/b.py", "alias/new.pyi", NULL});
}
END_TEST

START_TEST(test_git_list_linked_worktree)
{
	new_repo("repo");
	put("repo/a.py", "");
	put("repo/sub/b.py", "");
	sh("cd repo && git add . && git commit -qm one && "
	   "git worktree add -q -b other ../wt 2>/dev/null");
	put("repo/only_main.py", "");
	put("wt/u.py", "");
	put("wt/.gitignore", "skip.py\n");
	put("wt/skip.py", "");
	ck_assert_int_eq(chdir(tmpdir), 0);
	expect_list("wt", false, (const char *[]){"wt/a.py", "wt/sub/b.py", "wt/u.py", NULL});
	expect_list("wt/sub", false, (const char *[]){"wt/sub/b.py", NULL});
	expect_list("repo", false, (const char *[]){"repo/a.py", "repo/only_main.py", "repo/sub/b.py", NULL});
}
END_TEST

START_TEST(test_git_list_empty_repo)
{
	/* the global configuration (HOME is tmpdir) ignores home.py */
	put(".gitconfig", "[core]\n\texcludesFile = ~/homeexcl\n");
	put("homeexcl", "home.py\n");
	new_repo("repo");
	put("repo/a.py", "");
	put("repo/sub/b.py", "");
	put("repo/home.py", "");
	ck_assert_int_eq(chdir(tmpdir), 0);
	expect_list("repo", false, (const char *[]){"repo/a.py", "repo/sub/b.py", NULL});
	sh("cd repo && git add a.py");
	expect_list("repo", false, (const char *[]){"repo/a.py", "repo/sub/b.py", NULL});
	expect_list("repo", true, (const char *[]){"repo/a.py", "repo/home.py", "repo/sub/b.py", NULL});
}
END_TEST

START_TEST(test_git_read_staged)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;

	new_repo("repo");
	put("repo/sub/m.py", "v1\n");
	sh("cd repo && git add . && git commit -qm one");
	put("repo/sub/m.py", "v2\n");
	sh("cd repo && git add sub/m.py");
	put("repo/sub/m.py", "v3 in the work tree\n");
	put("repo/new.py", "untracked\n");
	put("plain/x.py", "");
	ck_assert_int_eq(chdir(tmpdir), 0);
	ck_assert_int_eq(symlink("repo/sub", "alias"), 0);

	ck_assert_int_eq(mpsfix_git_read_staged(&b, "repo/sub/m.py"), 0);
	mpsfix_buf_add(&b, "", 0);
	ck_assert_str_eq(b.data, "v2\n");
	/* through a symlinked folder, and from inside the work tree */
	mpsfix_buf_clear(&b);
	ck_assert_int_eq(mpsfix_git_read_staged(&b, "alias/m.py"), 0);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_mem_eq(b.data, "v2\n", 3);
	ck_assert_int_eq(chdir("repo/sub"), 0);
	mpsfix_buf_clear(&b);
	ck_assert_int_eq(mpsfix_git_read_staged(&b, "m.py"), 0);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_int_eq(chdir(tmpdir), 0);

	mpsfix_buf_clear(&b);
	ck_assert_int_eq(mpsfix_git_read_staged(&b, "repo/new.py"), MPSFIX_ENOMATCH);
	ck_assert_int_eq(mpsfix_git_read_staged(&b, "plain/x.py"), MPSFIX_ERROR);
	ck_assert_uint_eq(b.len, 0);
	mpsfix_buf_release(&b);
}
END_TEST

/* The changed lines of `path` against `ref`, as "a-b,c-d" (MAX for UINT32_MAX). */
static char *changed(const char *path, const char *ref, bool staged)
{
	mpsfix_line_range *r = NULL;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	size_t n = 99;

	ck_assert_msg(mpsfix_git_changed_lines(&r, &n, path, ref, staged) == 0, "%s: %s", path,
		      mpsfix_error_last()->message);
	mpsfix_buf_adds(&b, "");
	for (size_t i = 0; i < n; i++) {
		mpsfix_buf_printf(&b, "%s%u-", i ? "," : "", r[i].first);
		if (r[i].last == UINT32_MAX)
			mpsfix_buf_adds(&b, "MAX");
		else
			mpsfix_buf_printf(&b, "%u", r[i].last);
	}
	free(r);
	return b.data;
}

#define EXPECT_CHANGED(path, ref, staged, want)                 \
	do {                                                    \
		char *got_ = changed(path, ref, staged);        \
		ck_assert_str_eq(got_, want);                   \
		free(got_);                                     \
	} while (0)

START_TEST(test_git_changed_lines)
{
	const char *ten = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n";

	new_repo("repo");
	put("repo/m.py", ten);
	put("repo/same.py", ten);
	put("repo/del.py", ten);
	put("repo/.gitignore", "ign.py\n");
	sh("cd repo && git add . && git commit -qm one");
	put("repo/same.py", "l1\nl2\nl3\nl4\nL5\nl6\nl7\nl8\nl9\nl10\n");
	sh("cd repo && git commit -qam two");
	put("repo/same.py", ten);
	sh("cd repo && git commit -qam three");
	ck_assert_int_eq(chdir(tmpdir), 0);

	/* unchanged: nothing, staged or not; HEAD~1 had L5 at line 5 */
	EXPECT_CHANGED("repo/same.py", "HEAD", false, "");
	EXPECT_CHANGED("repo/same.py", "HEAD", true, "");
	EXPECT_CHANGED("repo/same.py", "HEAD~1", false, "5-5");
	EXPECT_CHANGED("repo/same.py", "HEAD~2", false, "");

	/* lines 3 and 4 changed, 7 changed, a line inserted after 9: staged */
	put("repo/m.py", "l1\nl2\nL3\nL4\nl5\nl6\nL7\nl8\nl9\nnew\nl10\n");
	sh("cd repo && git add m.py");
	/* and in the work tree only, line 1 as well */
	put("repo/m.py", "L1\nl2\nL3\nL4\nl5\nl6\nL7\nl8\nl9\nnew\nl10\n");
	EXPECT_CHANGED("repo/m.py", "HEAD", true, "3-4,7-7,10-10");
	EXPECT_CHANGED("repo/m.py", "HEAD", false, "1-1,3-4,7-7,10-10");
	EXPECT_CHANGED("repo/m.py", "main", false, "1-1,3-4,7-7,10-10");

	/* a removed line adds nothing */
	put("repo/del.py", "l1\nl2\nl3\nl5\nl6\nl7\nl8\nl9\nl10\n");
	EXPECT_CHANGED("repo/del.py", "HEAD", false, "");

	/* a new file is changed entirely: untracked in the work tree, added in the index */
	put("repo/sub/new.py", "x = 1\n");
	EXPECT_CHANGED("repo/sub/new.py", "HEAD", false, "1-MAX");
	EXPECT_CHANGED("repo/sub/new.py", "HEAD", true, "");
	sh("cd repo && git add sub/new.py");
	EXPECT_CHANGED("repo/sub/new.py", "HEAD", true, "1-MAX");
	EXPECT_CHANGED("repo/sub/new.py", "HEAD", false, "1-MAX");
	/* an ignored file that did not exist at REF too */
	put("repo/ign.py", "y = 2\n");
	EXPECT_CHANGED("repo/ign.py", "HEAD", false, "1-MAX");
	/* from inside the work tree */
	ck_assert_int_eq(chdir("repo"), 0);
	EXPECT_CHANGED("m.py", "HEAD", true, "3-4,7-7,10-10");
	ck_assert_int_eq(chdir(tmpdir), 0);

	/* a bad ref is an error naming it */
	mpsfix_line_range *r = NULL;
	size_t n = 0;
	ck_assert_int_eq(mpsfix_git_changed_lines(&r, &n, "repo/m.py", "no-such-ref", false),
			 MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "no-such-ref"));
	ck_assert_ptr_null(r);
	ck_assert_uint_eq(n, 0);
	/* outside a work tree too */
	put("plain/x.py", "");
	ck_assert_int_eq(mpsfix_git_changed_lines(&r, &n, "plain/x.py", "HEAD", false), MPSFIX_ERROR);
}
END_TEST

START_TEST(test_git_changed_lines_no_commit)
{
	mpsfix_line_range *r = NULL;
	size_t n = 0;

	new_repo("repo");
	put("repo/a.py", "a\n");
	ck_assert_int_eq(chdir(tmpdir), 0);
	ck_assert_int_eq(mpsfix_git_changed_lines(&r, &n, "repo/a.py", "HEAD", false), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "HEAD"));
}
END_TEST

START_TEST(test_git_repo_head)
{
	mpsfix_git_repo *r = NULL;
	const mpsfix_git_head *h;
	char *top = mpsfix_xasprintf("%s/repo/", tmpdir), *sub = mpsfix_xasprintf("%s/repo/sub", tmpdir);

	new_repo("repo");
	put("repo/sub/a.py", "a = 1\n");
	/* no commit yet */
	ck_assert_int_eq(mpsfix_git_repo_open(&r, sub, false), 0);
	h = mpsfix_git_repo_head(r);
	ck_assert(h->unborn);
	ck_assert_str_eq(h->branch, "main");
	ck_assert_str_eq(h->head, "");
	ck_assert_str_eq(h->top, top);
	mpsfix_git_repo_free(r);
	/* on a branch */
	sh("cd repo && git add . && git commit -qm one && git checkout -q -b topic");
	ck_assert_int_eq(mpsfix_git_repo_open(&r, sub, false), 0);
	h = mpsfix_git_repo_head(r);
	ck_assert(!h->unborn);
	ck_assert_str_eq(h->branch, "topic");
	ck_assert_uint_eq(strlen(h->head), 40);
	mpsfix_git_repo_free(r);
	/* detached */
	sh("cd repo && git checkout -q --detach");
	ck_assert_int_eq(mpsfix_git_repo_open(&r, sub, false), 0);
	ck_assert_ptr_null(mpsfix_git_repo_head(r)->branch);
	mpsfix_git_repo_free(r);
	/* not a work tree */
	ck_assert_int_eq(mpsfix_git_repo_open(&r, tmpdir, false), MPSFIX_ERROR);
	ck_assert_ptr_null(r);
	free(top);
	free(sub);
}
END_TEST

START_TEST(test_git_repo_read_status)
{
	mpsfix_git_repo *r = NULL;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *dir = mpsfix_xasprintf("%s/repo", tmpdir), *name = NULL, *subm = NULL;
	bool exec = false, staged, unstaged;

	new_repo("repo");
	put("repo/x.py", "v1\n");
	put("repo/tool.py", "#!/usr/bin/env python\n");
	put("repo/clean.py", "c\n");
	sh("cd repo && chmod +x tool.py && ln -s x.py l.py && git add . && git commit -qm one");
	put("repo/x.py", "v2 staged\n");
	sh("cd repo && git add x.py");
	put("repo/x.py", "v3 in the work tree\n");
	ck_assert_int_eq(mpsfix_git_repo_open(&r, dir, false), 0);

	/* HEAD's content, whatever the index and the work tree hold */
	ck_assert_int_eq(mpsfix_git_repo_read(&b, &exec, r, "x.py"), 0);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_mem_eq(b.data, "v1\n", 3);
	ck_assert(!exec);
	mpsfix_buf_clear(&b);
	ck_assert_int_eq(mpsfix_git_repo_read(&b, &exec, r, "tool.py"), 0);
	ck_assert(exec);
	ck_assert_int_eq(mpsfix_git_repo_read(&b, NULL, r, "l.py"), MPSFIX_ESKIP);
	ck_assert_int_eq(mpsfix_git_repo_read(&b, NULL, r, "none.py"), MPSFIX_ENOMATCH);

	ck_assert_int_eq(mpsfix_git_repo_status(&staged, &unstaged, r, "x.py"), 0);
	ck_assert(staged && unstaged);
	ck_assert_int_eq(mpsfix_git_repo_status(&staged, &unstaged, r, "clean.py"), 0);
	ck_assert(!staged && !unstaged);
	put("repo/clean.py", "changed\n");
	ck_assert_int_eq(mpsfix_git_repo_status(&staged, &unstaged, r, "clean.py"), 0);
	ck_assert(!staged && unstaged);

	/* names: from anywhere, through the folder's real path */
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_int_eq(mpsfix_git_repo_name(&name, &subm, r, "./x.py"), 0);
	ck_assert_str_eq(name, "x.py");
	ck_assert_ptr_null(subm);
	free(name);
	ck_assert_int_eq(mpsfix_git_repo_name(&name, NULL, r, "../elsewhere.py"), 0);
	ck_assert_ptr_null(name);
	ck_assert_int_eq(mpsfix_git_repo_name(&name, NULL, r, ".git/config"), 0);
	ck_assert_ptr_null(name);
	mpsfix_git_repo_free(r);
	mpsfix_buf_release(&b);
	free(dir);
}
END_TEST

START_TEST(test_git_commit_in_memory)
{
	mpsfix_git_repo *r = NULL;
	mpsfix_git_change c = {"x.py", "fixed\n", 6};
	mpsfix_buf mail = MPSFIX_BUF_INIT;
	char *dir = mpsfix_xasprintf("%s/repo", tmpdir), id[41], id2[41], *cmd;

	new_repo("repo");
	put("repo/x.py", "v1\n");
	sh("cd repo && git add . && git commit -qm one");
	ck_assert_int_eq(mpsfix_git_repo_open(&r, dir, true), 0);
	ck_assert_int_eq(mpsfix_git_commit_write(id, r, NULL, &c, 1, "subject line\n\nbody\n"), 0);
	/* the commit can be read back through the repository, and is nowhere on disk */
	ck_assert_int_eq(mpsfix_git_email(&mail, r, id, 1, 1), 0);
	mpsfix_buf_adds(&mail, "");
	ck_assert_ptr_nonnull(strstr(mail.data, "\nSubject: [PATCH] subject line\n\nbody\n---\n x.py | 2 +-\n"));
	ck_assert_ptr_nonnull(strstr(mail.data, "\n-v1\n+fixed\n"));
	cmd = mpsfix_xasprintf("cd '%s' && git cat-file -e %s 2>/dev/null", dir, id);
	ck_assert_int_ne(system(cmd), 0);
	free(cmd);
	/* a commit on top of that one */
	c.data = "fixed twice\n";
	c.len = strlen(c.data);
	ck_assert_int_eq(mpsfix_git_commit_write(id2, r, id, &c, 1, "second\n"), 0);
	mpsfix_buf_clear(&mail);
	ck_assert_int_eq(mpsfix_git_email(&mail, r, id2, 2, 2), 0);
	mpsfix_buf_adds(&mail, "");
	ck_assert_ptr_nonnull(strstr(mail.data, "\nSubject: [PATCH 2/2] second\n"));
	ck_assert_ptr_nonnull(strstr(mail.data, "\n-fixed\n+fixed twice\n"));
	/* a file the parent lacks, a bad id */
	c.name = "new.py";
	ck_assert_int_eq(mpsfix_git_commit_write(id2, r, NULL, &c, 1, "x\n"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_git_commit_write(id2, r, "nonsense", &c, 1, "x\n"), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "'nonsense' is not a commit id");
	mpsfix_git_repo_free(r);
	mpsfix_buf_release(&mail);
	free(dir);
}
END_TEST

Suite *mpsfix_suite_git(void)
{
	Suite *s = suite_create("git");
	TCase *tc = tcase_create("git");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_git_version);
	tcase_add_test(tc, test_git_diff_headers);
	tcase_add_test(tc, test_git_diff_identical_is_empty);
	tcase_add_test(tc, test_git_diff_context);
	tcase_add_test(tc, test_git_apply_crlf);
	tcase_add_test(tc, test_git_apply_no_final_newline);
	tcase_add_test(tc, test_git_apply_control_bytes);
	tcase_add_test(tc, test_git_list_files);
	tcase_add_test(tc, test_git_list_not_a_worktree);
	tcase_add_test(tc, test_git_ignores_folder);
	tcase_add_test(tc, test_git_list_symlinked_folder);
	tcase_add_test(tc, test_git_list_linked_worktree);
	tcase_add_test(tc, test_git_list_empty_repo);
	tcase_add_test(tc, test_git_read_staged);
	tcase_add_test(tc, test_git_changed_lines);
	tcase_add_test(tc, test_git_changed_lines_no_commit);
	tcase_add_test(tc, test_git_repo_head);
	tcase_add_test(tc, test_git_repo_read_status);
	tcase_add_test(tc, test_git_commit_in_memory);
	suite_add_tcase(s, tc);
	return s;
}
