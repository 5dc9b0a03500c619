/*
 * check_commit.c: a series of fixes recorded in throwaway repositories
 * (built with the git command, isolated from the user's configuration):
 * one commit per rule or one for all, a new branch, the user's uncommitted
 * changes, patches that `git am` applies, and what is refused.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"
#include "git.h"
#include "testutil.h"
#include "tests.h"

static char tmp[64];

static const char one_to_two[] =
	"id: one-to-two\ncode: MPS901\nseverity: warning\nmessage: one() becomes two()\n"
	"url: https://example.com/901\ntorch: all\n"
	"match: 'one($X)'\nfix:\n  safety: safe\n  template: 'two($X)'\n";
static const char two_to_three[] =
	"id: two-to-three\ncode: MPS902\nseverity: warning\nmessage: two() becomes three()\n"
	"torch: all\n"
	"match: 'two($X)'\nfix:\n  safety: safe\n  template: 'three($X)'\n";

/* ten lines, the call on the fifth: room for a change far from it */
#define TEN(call) "import os\n\n\n\n" call "\n\n\n\nz = 1\nw = 2\n"

static mpsfix_rule *rules[2];
static mpsfix_ctx ctx;

static void setup(void)
{
	strcpy(tmp, "/tmp/mpsfix-commit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	tu_git_isolate(tmp);
	ck_assert_int_eq(mpsfix_git_init(), 0);
	rules[0] = tu_yaml_rule(one_to_two);
	rules[1] = tu_yaml_rule(two_to_three);
	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
}

static void teardown(void)
{
	mpsfix_ctx_release(&ctx);
	mpsfix_rule_free(rules[0]);
	mpsfix_rule_free(rules[1]);
	tu_rm_rf(tmp);
	mpsfix_git_shutdown();
	tu_git_restore();
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	mpsfix_buf cmd = MPSFIX_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mpsfix_buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	ck_assert_msg(tu_sh(tmp, "%s", cmd.data) == 0, "failed: %s", cmd.data);
	mpsfix_buf_release(&cmd);
}

/* tmp/repo: a.py (one() on line 5), b.py (one() and two() on lines 1-2), c.py (nothing), on main. */
static void make_repo(void)
{
	sh("git -c init.defaultBranch=main init -q repo && cd repo && git config user.name 'Ada L' && "
	   "git config user.email ada@example.com");
	tu_put(tmp, "repo/a.py", TEN("x = one(1)"));
	tu_put(tmp, "repo/b.py", "y = one(2)\nz = two(3)\n\n\n\nend = 0\n");
	tu_put(tmp, "repo/c.py", "nothing = 0\n");
	sh("cd repo && git add . && git commit -qm init");
}

static char *repo_path(const char *rel)
{
	return mpsfix_xasprintf("%s/repo/%s", tmp, rel);
}

/* A recorder for tmp/repo, its files (a, b, c) in `s`, fixed rule by rule. */
static mpsfix_recorder *record(mpsfix_series *s, const mpsfix_commit_opts *o)
{
	mpsfix_recorder *rec = NULL;
	char *dir = repo_path("");
	const char *names[] = {"a.py", "b.py", "c.py"};
	mpsfix_engine_opts eo = {.fix = true, .suppress = true};

	ck_assert_msg(mpsfix_recorder_open(&rec, dir, o) == 0, "%s", mpsfix_error_last()->message);
	for (size_t i = 0; i < 3; i++) {
		char *p = repo_path(names[i]);

		ck_assert_msg(mpsfix_recorder_add(rec, s, p) == 0, "%s", mpsfix_error_last()->message);
		free(p);
	}
	ck_assert_int_eq(mpsfix_series_fix(s, &ctx, rules, 2, &eo, NULL, NULL), 0);
	free(dir);
	return rec;
}

/* The output of a command run in tmp/repo (malloc'd). */
static char *in_repo(const char *cmd)
{
	char *dir = repo_path(""), *out = tu_sh_out(dir, "%s", cmd);

	free(dir);
	return out;
}

#define EXPECT_OUT(cmd, want)                                    \
	do {                                                     \
		char *got_ = in_repo(cmd);                       \
		ck_assert_str_eq(got_, want);                    \
		free(got_);                                      \
	} while (0)

START_TEST(test_commit_patch_file_names)
{
	/* what git format-patch 2.39 names them */
	static const struct {
		const char *subject, *file;
	} cases[] = {
		{"a..b...c", "0001-a.b.c.patch"},
		{"x--y", "0001-x-y.patch"},
		{"trailing dots...", "0001-trailing-dots.patch"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		 "0001-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.patch"},
		{"\xc3\xbc" "n\xc3\xaf" "code \xe2\x80\x94 fix", "0001-n-code-fix.patch"},
		{"mpsfix: MPS006 to-mps-non-blocking: non_blocking=True copies to MPS can corrupt data (2 sites)",
		 "0001-mpsfix-MPS006-to-mps-non-blocking-non_blocking-True-.patch"},
		{"", "0001-.patch"},
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
		char *name = mpsfix_patch_file_name(1, cases[i].subject);

		ck_assert_str_eq(name, cases[i].file);
		free(name);
	}
	{
		char *name = mpsfix_patch_file_name(12, "x");

		ck_assert_str_eq(name, "0012-x.patch");
		free(name);
	}
}
END_TEST

START_TEST(test_commit_per_rule)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {.target_torch = "2.1", .signoff = true};
	mpsfix_recorder *rec;
	char *before;

	make_repo();
	before = in_repo("git rev-parse HEAD");
	rec = record(&s, &o);
	ck_assert_str_eq(mpsfix_recorder_branch(rec), "main");
	ck_assert_int_eq(mpsfix_recorder_check(rec, &s, false), 0);
	ck_assert_msg(mpsfix_recorder_commit(&made, rec, &s) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_uint_eq(made.len, 2);
	ck_assert_str_eq(made.items[0].subject, "mpsfix: MPS901 one-to-two: one() becomes two() (2 sites)");
	ck_assert_str_eq(made.items[1].subject, "mpsfix: MPS902 two-to-three: two() becomes three() (3 sites)");

	/* the branch moved by two commits, each with its rule's change only */
	EXPECT_OUT("git log --format=%s HEAD~2..HEAD",
		   "mpsfix: MPS902 two-to-three: two() becomes three() (3 sites)\n"
		   "mpsfix: MPS901 one-to-two: one() becomes two() (2 sites)");
	{
		char *base = in_repo("git rev-parse HEAD~2"), *head = in_repo("git rev-parse HEAD");

		ck_assert_str_eq(base, before);
		ck_assert_str_eq(head, made.items[1].id);
		free(base);
		free(head);
	}
	EXPECT_OUT("git show HEAD~1:b.py", "y = two(2)\nz = two(3)\n\n\n\nend = 0");
	EXPECT_OUT("git show HEAD:b.py", "y = three(2)\nz = three(3)\n\n\n\nend = 0");
	EXPECT_OUT("git diff --name-only HEAD~2 HEAD~1", "a.py\nb.py");
	/* author, committer and trailers */
	EXPECT_OUT("git log -1 --format='%an <%ae>|%cn <%ce>' HEAD", "Ada L <ada@example.com>|Ada L <ada@example.com>");
	EXPECT_OUT("git log -1 --format=%B HEAD~1 | git interpret-trailers --parse",
		   "Mpsfix-Rule: MPS901\nMpsfix-Target-Torch: 2.1\nSigned-off-by: Ada L <ada@example.com>");
	/* the work tree and the index follow: nothing to commit, and the files are fixed */
	EXPECT_OUT("git status --porcelain", "");
	EXPECT_OUT("cat a.py", "import os\n\n\n\nx = three(1)\n\n\n\nz = 1\nw = 2");
	EXPECT_OUT("git fsck --strict 2>&1 && echo fsck ok", "fsck ok");
	mpsfix_commit_list_release(&made);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
	free(before);
}
END_TEST

START_TEST(test_commit_squash)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {.squash = true};
	mpsfix_recorder *rec;

	make_repo();
	rec = record(&s, &o);
	ck_assert_int_eq(mpsfix_recorder_commit(&made, rec, &s), 0);
	ck_assert_uint_eq(made.len, 1);
	EXPECT_OUT("git log --format=%s HEAD~1..HEAD", "mpsfix: fix MPS901, MPS902 (5 sites)");
	EXPECT_OUT("git log -1 --format=%B | git interpret-trailers --parse",
		   "Mpsfix-Rule: MPS901\nMpsfix-Rule: MPS902");
	EXPECT_OUT("git show HEAD:b.py", "y = three(2)\nz = three(3)\n\n\n\nend = 0");
	EXPECT_OUT("git status --porcelain", "");
	mpsfix_commit_list_release(&made);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
}
END_TEST

START_TEST(test_commit_branch_leaves_checkout)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {.branch = "mps-fixes"};
	mpsfix_recorder *rec;
	const char *state = "git rev-parse HEAD; git symbolic-ref HEAD; sha1sum .git/index *.py; "
			    "git status --porcelain";
	char *before, *after;

	make_repo();
	/* uncommitted changes do not matter: the work tree is not read */
	tu_put(tmp, "repo/a.py", TEN("x = one(1)") "# mine\n");
	sh("cd repo && echo '# staged' >> b.py && git add b.py");
	before = in_repo(state);
	rec = record(&s, &o);
	ck_assert_int_eq(mpsfix_recorder_check(rec, &s, false), 0);
	ck_assert_int_eq(mpsfix_recorder_commit(&made, rec, &s), 0);
	ck_assert_uint_eq(made.len, 2);
	after = in_repo(state);
	ck_assert_str_eq(after, before);
	EXPECT_OUT("git show mps-fixes:b.py", "y = three(2)\nz = three(3)\n\n\n\nend = 0");
	EXPECT_OUT("test $(git rev-parse mps-fixes~2) = $(git rev-parse HEAD) && echo same", "same");
	mpsfix_commit_list_release(&made);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
	free(before);
	free(after);
}
END_TEST

START_TEST(test_commit_dirty)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {0};
	mpsfix_recorder *rec;
	const char *msg;

	make_repo();
	/* a.py: an unstaged change far from the fix; b.py: a staged one; c.py: no fix */
	tu_put(tmp, "repo/a.py", "# mine\n" TEN("x = one(1)"));
	sh("cd repo && echo '# staged' >> b.py && git add b.py && "
	   "echo '# unstaged' >> b.py && echo '# not fixed' >> c.py");
	rec = record(&s, &o);
	ck_assert_int_eq(mpsfix_recorder_check(rec, &s, false), MPSFIX_ERROR);
	msg = mpsfix_error_last()->message;
	ck_assert_msg(strstr(msg, "a.py (unstaged changes), b.py (staged and unstaged changes)") != NULL, "%s", msg);
	ck_assert_ptr_null(strstr(msg, "c.py"));
	ck_assert_ptr_nonnull(strstr(msg, "--allow-dirty"));
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);

	/* --allow-dirty: the commits hold the fixes only; the changes stay where they were */
	o.allow_dirty = true;
	rec = record(&s, &o);
	ck_assert_msg(mpsfix_recorder_check(rec, &s, false) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_msg(mpsfix_recorder_commit(&made, rec, &s) == 0, "%s", mpsfix_error_last()->message);
	EXPECT_OUT("git show HEAD:a.py", "import os\n\n\n\nx = three(1)\n\n\n\nz = 1\nw = 2");
	EXPECT_OUT("git show HEAD:b.py", "y = three(2)\nz = three(3)\n\n\n\nend = 0");
	EXPECT_OUT("git status --porcelain", " M a.py\nMM b.py\n M c.py");
	EXPECT_OUT("cat a.py", "# mine\nimport os\n\n\n\nx = three(1)\n\n\n\nz = 1\nw = 2");
	EXPECT_OUT("git diff --cached | grep '^[-+][^-+]'", "+# staged");
	EXPECT_OUT("git show :b.py", "y = three(2)\nz = three(3)\n\n\n\nend = 0\n# staged");
	EXPECT_OUT("git diff a.py | grep '^[-+][^-+]'", "+# mine");
	EXPECT_OUT("git diff b.py | grep '^[-+][^-+]'", "+# unstaged");
	EXPECT_OUT("git fsck 2>&1 | grep -v '^dangling blob'; echo rc=$?", "rc=1");
	mpsfix_commit_list_release(&made);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
}
END_TEST

START_TEST(test_commit_dirty_conflict)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {.allow_dirty = true};
	mpsfix_recorder *rec;
	char *before;

	make_repo();
	/* the user changed the very line the fix changes */
	tu_put(tmp, "repo/a.py", TEN("x = one(1) + 1"));
	before = in_repo("git rev-parse HEAD; sha1sum .git/index *.py");
	rec = record(&s, &o);
	ck_assert_int_eq(mpsfix_recorder_check(rec, &s, false), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "a.py: the uncommitted change touches"));
	/* and if the work tree changed after the check: refused all the same, nothing written */
	ck_assert_int_eq(mpsfix_recorder_commit(&made, rec, &s), MPSFIX_ERROR);
	{
		char *after = in_repo("git rev-parse HEAD; sha1sum .git/index *.py");

		ck_assert_str_eq(after, before);
		free(after);
	}
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
	free(before);
}
END_TEST

START_TEST(test_commit_crlf_work_tree)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {.allow_dirty = true};
	mpsfix_recorder *rec;

	/* the repository keeps LF, the work tree has CRLF (eol=crlf) */
	sh("git -c init.defaultBranch=main init -q repo && cd repo && git config user.name A && "
	   "git config user.email a@example.com && echo '*.py text eol=crlf' > .gitattributes");
	tu_put(tmp, "repo/a.py", TEN("x = one(1)"));
	tu_put(tmp, "repo/b.py", TEN("x = one(1)"));
	tu_put(tmp, "repo/c.py", "");
	sh("cd repo && git add . 2>/dev/null && git commit -qm init && rm a.py b.py && git checkout -- a.py b.py");
	EXPECT_OUT("od -c a.py | head -1 | grep -c '\\\\r'", "1");
	/* b.py: the user's line, in CRLF too */
	sh("cd repo && printf '# mine\\r\\n' >> b.py");
	rec = record(&s, &o);
	ck_assert_msg(mpsfix_recorder_check(rec, &s, false) == 0, "%s", mpsfix_error_last()->message);
	ck_assert_msg(mpsfix_recorder_commit(&made, rec, &s) == 0, "%s", mpsfix_error_last()->message);
	EXPECT_OUT("git show HEAD:a.py | grep -c \"$(printf '\\r')\"", "0");
	EXPECT_OUT("tr -d '\\r' < a.py | sed -n 5p; grep -c \"$(printf '\\r')\" a.py", "x = three(1)\n10");
	EXPECT_OUT("tr -d '\\r' < b.py | sed -n '5p;11p'; grep -c \"$(printf '\\r')\" b.py", "x = three(1)\n# mine\n11");
	EXPECT_OUT("git status --porcelain", " M b.py");
	EXPECT_OUT("git diff b.py | grep '^[-+][^-+]' | tr -d '\\r'", "+# mine");
	mpsfix_commit_list_release(&made);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
}
END_TEST

START_TEST(test_commit_patches_am)
{
	mpsfix_series s = MPSFIX_SERIES_INIT, s2 = MPSFIX_SERIES_INIT;
	mpsfix_patch_list patches = {NULL, 0};
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {.patch = true, .target_torch = "all"};
	mpsfix_commit_opts oc = {.target_torch = "all"};
	mpsfix_recorder *rec;
	char *objects, *tree;

	make_repo();
	sh("git clone -q repo copy && cd copy && git config user.name B && git config user.email b@example.com");
	objects = in_repo("find .git -type f | sort | xargs sha1sum");
	rec = record(&s, &o);
	ck_assert_msg(mpsfix_recorder_patches(&patches, rec, &s) == 0, "%s", mpsfix_error_last()->message);
	mpsfix_recorder_free(rec);
	ck_assert_uint_eq(patches.len, 2);
	ck_assert_str_eq(patches.items[0].file, "0001-mpsfix-MPS901-one-to-two-one-becomes-two-2-sites.patch");
	ck_assert_str_eq(patches.items[1].file, "0002-mpsfix-MPS902-two-to-three-two-becomes-three-3-sites.patch");
	ck_assert_int_eq(strncmp(patches.items[0].text.data, "From ", 5), 0);
	ck_assert_ptr_nonnull(strstr(patches.items[0].text.data, "\nFrom: Ada L <ada@example.com>\n"));
	ck_assert_ptr_nonnull(strstr(patches.items[0].text.data,
				     "\nSubject: [PATCH 1/2] mpsfix: MPS901 one-to-two: one() becomes two() (2 sites)\n"));
	ck_assert_ptr_nonnull(strstr(patches.items[0].text.data, "\nMpsfix-Rule: MPS901\n"));
	/* nothing was written to the repository: no object, no ref, no index */
	{
		char *now = in_repo("find .git -type f | sort | xargs sha1sum");

		ck_assert_str_eq(now, objects);
		free(now);
	}
	/* git am in the copy gives the tree mpsfix commit gives here */
	for (size_t i = 0; i < patches.len; i++) {
		char *rel = mpsfix_xasprintf("%s", patches.items[i].file);

		tu_put(tmp, rel, patches.items[i].text.data);
		free(rel);
	}
	sh("cd copy && git am -q ../0001-*.patch ../0002-*.patch");
	rec = record(&s2, &oc);
	ck_assert_int_eq(mpsfix_recorder_commit(&made, rec, &s2), 0);
	tree = in_repo("git rev-parse HEAD^{tree}");
	{
		char *am_tree = tu_sh_out(tmp, "cd copy && git rev-parse HEAD^{tree}");
		char *am_log = tu_sh_out(tmp, "cd copy && git log --format='%%an|%%s' -2");

		ck_assert_str_eq(am_tree, tree);
		ck_assert_str_eq(am_log, "Ada L|mpsfix: MPS902 two-to-three: two() becomes three() (3 sites)\n"
				 "Ada L|mpsfix: MPS901 one-to-two: one() becomes two() (2 sites)");
		free(am_tree);
		free(am_log);
	}
	mpsfix_commit_list_release(&made);
	mpsfix_patch_list_release(&patches);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
	mpsfix_series_release(&s2);
	free(objects);
	free(tree);
}
END_TEST

START_TEST(test_commit_refusals)
{
	mpsfix_recorder *rec = NULL;
	mpsfix_commit_opts o = {0}, ob = {.branch = "fix"}, op = {.patch = true};
	char *dir = repo_path("");

	/* not a work tree */
	ck_assert_int_eq(mpsfix_recorder_open(&rec, tmp, &o), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "not in a git work tree"));
	/* no commit yet: for commit and patch alike */
	sh("git -c init.defaultBranch=main init -q repo && cd repo && git config user.name A && "
	   "git config user.email a@example.com");
	tu_put(tmp, "repo/a.py", "one(1)\n");
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &o), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "no commit yet"));
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &op), MPSFIX_ERROR);
	ck_assert_ptr_null(rec);
	/* detached HEAD: only with --branch, or for patches */
	sh("cd repo && git add . && git commit -qm one && git checkout -q --detach");
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &o), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "HEAD is detached"));
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "--branch"));
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &ob), 0);
	ck_assert_ptr_null(mpsfix_recorder_branch(rec));
	mpsfix_recorder_free(rec);
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &op), 0);
	mpsfix_recorder_free(rec);
	/* a branch name that is taken or invalid */
	sh("cd repo && git checkout -q main && git branch fix");
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &ob), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "a branch named 'fix' already exists");
	ob.branch = "bad..name";
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &ob), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "'bad..name' is not a valid branch name");
	/* no identity */
	sh("cd repo && git config --unset user.name && git config --unset user.email");
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &o), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "git config user.email"));
	free(dir);
}
END_TEST

START_TEST(test_commit_add_skips)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_opts o = {0};
	mpsfix_recorder *rec = NULL;
	char *dir = repo_path(""), **subs = NULL, *args[1];
	size_t n = 0;

	sh("git -c init.defaultBranch=main init -q inner && cd inner && git config user.name A && "
	   "git config user.email a@example.com && echo 'one(1)' > in.py && git add . && git commit -qm i");
	make_repo();
	sh("cd repo && ln -s a.py link.py && git -c protocol.file.allow=always submodule add -q ../inner sub "
	   "2>/dev/null && git add link.py && git commit -qm more && echo 'one(9)' > new.py");
	tu_put(tmp, "outside.py", "one(1)\n");
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &o), 0);
	{
		static const struct {
			const char *rel, *message;
		} cases[] = {
			{"repo/new.py", "repo/new.py: not in HEAD"},
			{"repo/sub/in.py", "repo/sub/in.py: inside submodule 'sub': skipped"},
			{"repo/link.py", "link.py: a symbolic link in git: skipped"},
			{"outside.py", "outside.py: not in the work tree of"},
		};

		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
			char *p = mpsfix_xasprintf("%s/%s", tmp, cases[i].rel);

			ck_assert_int_eq(mpsfix_recorder_add(rec, &s, p), MPSFIX_ESKIP);
			ck_assert_msg(strstr(mpsfix_error_last()->message, cases[i].message) != NULL,
				      "%s: %s", cases[i].rel, mpsfix_error_last()->message);
			free(p);
		}
	}
	ck_assert_uint_eq(s.nfiles, 0);
	/* from a subfolder: the name in the repository */
	{
		char *p = mpsfix_xasprintf("%s/repo/./a.py", tmp);

		ck_assert_int_eq(mpsfix_recorder_add(rec, &s, p), 0);
		ck_assert_str_eq(s.files[0].name, "a.py");
		ck_assert_str_eq(s.files[0].path, p);
		free(p);
	}
	/* the submodules in a folder named */
	args[0] = dir;
	ck_assert_int_eq(mpsfix_recorder_submodules(&subs, &n, rec, args, 1), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(subs[0], "sub");
	free(subs[0]);
	free(subs);
	args[0] = mpsfix_xasprintf("%s/repo/sub", tmp);
	ck_assert_int_eq(mpsfix_recorder_submodules(&subs, &n, rec, args, 1), 0);
	ck_assert_uint_eq(n, 1);
	free(subs[0]);
	free(subs);
	free(args[0]);
	args[0] = mpsfix_xasprintf("%s/repo/a.py", tmp);
	ck_assert_int_eq(mpsfix_recorder_submodules(&subs, &n, rec, args, 1), 0);
	ck_assert_uint_eq(n, 0);
	free(subs);
	free(args[0]);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
	free(dir);
}
END_TEST

START_TEST(test_commit_linked_worktree)
{
	mpsfix_series s = MPSFIX_SERIES_INIT;
	mpsfix_commit_list made = {NULL, 0};
	mpsfix_commit_opts o = {0};
	mpsfix_recorder *rec = NULL;
	mpsfix_engine_opts eo = {.fix = true};
	char *dir = mpsfix_xasprintf("%s/wt", tmp), *file = mpsfix_xasprintf("%s/wt/a.py", tmp);

	make_repo();
	sh("cd repo && git worktree add -q -b side ../wt 2>/dev/null");
	ck_assert_int_eq(mpsfix_recorder_open(&rec, dir, &o), 0);
	ck_assert_str_eq(mpsfix_recorder_branch(rec), "side");
	ck_assert_int_eq(mpsfix_recorder_add(rec, &s, file), 0);
	ck_assert_int_eq(mpsfix_series_fix(&s, &ctx, rules, 2, &eo, NULL, NULL), 0);
	ck_assert_int_eq(mpsfix_recorder_check(rec, &s, false), 0);
	ck_assert_int_eq(mpsfix_recorder_commit(&made, rec, &s), 0);
	ck_assert_uint_eq(made.len, 2);
	EXPECT_OUT("git log --format=%s -1 side", "mpsfix: MPS902 two-to-three: two() becomes three() (1 site)");
	EXPECT_OUT("git log --format=%s -1 main", "init");
	EXPECT_OUT("cat a.py | sed -n 5p", "x = one(1)");
	{
		char *wt = tu_sh_out(tmp, "cd wt && sed -n 5p a.py && git status --porcelain");

		ck_assert_str_eq(wt, "x = three(1)");
		free(wt);
	}
	mpsfix_commit_list_release(&made);
	mpsfix_recorder_free(rec);
	mpsfix_series_release(&s);
	free(dir);
	free(file);
}
END_TEST

Suite *mpsfix_suite_commit(void)
{
	Suite *s = suite_create("commit");
	TCase *tc = tcase_create("commit");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_commit_patch_file_names);
	tcase_add_test(tc, test_commit_per_rule);
	tcase_add_test(tc, test_commit_squash);
	tcase_add_test(tc, test_commit_branch_leaves_checkout);
	tcase_add_test(tc, test_commit_dirty);
	tcase_add_test(tc, test_commit_dirty_conflict);
	tcase_add_test(tc, test_commit_crlf_work_tree);
	tcase_add_test(tc, test_commit_patches_am);
	tcase_add_test(tc, test_commit_refusals);
	tcase_add_test(tc, test_commit_add_skips);
	tcase_add_test(tc, test_commit_linked_worktree);
	suite_add_tcase(s, tc);
	return s;
}
