/* check_git.c: unified diffs from libgit2, checked with the real `git apply`. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git.h"
#include "tests.h"
#include "testutil.h"

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void setup(void)
{
	ck_assert_int_eq(mpsfix_git_init(), 0);
	strcpy(tmpdir, "/tmp/mpsfix-git-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	mpsfix_git_shutdown();
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
	suite_add_tcase(s, tc);
	return s;
}
