/* check_source.c: reading, validation, line index, positions, atomic write. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"
#include "tests.h"
#include "testutil.h"

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void setup(void)
{
	strcpy(tmpdir, "/tmp/mpsfix-source-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *tpath(const char *name)
{
	return mpsfix_xasprintf("%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* Load `data` and expect a skip with exactly `message`. */
static void expect_skip(const char *data, size_t len, const char *message)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;

	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "x.py", data, len), MPSFIX_ESKIP);
	ck_assert_str_eq(mpsfix_error_last()->message, message);
	ck_assert_ptr_null(s.data);
	ck_assert_ptr_null(s.lines);
}

static void expect_ok(const char *data, size_t len)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;

	ck_assert_msg(mpsfix_source_from_buffer(&s, "x.py", data, len) == 0,
		      "rejected: %s", mpsfix_error_last()->message);
	mpsfix_source_release(&s);
}

/* PEP 263 on a text alone: an encoding other than UTF-8 or ASCII declared */
START_TEST(test_source_declares_other)
{
	static const struct {
		const char *text;
		bool other;
	} cases[] = {
		{"# coding: utf-7\nx = 1\n", true},
		{"# vim: set fileencoding=latin-1 :\n", true},
		{"\r\n# -*- coding: cp1252 -*-\r\n", true},     /* a blank line first */
		{"\xEF\xBB\xBF# coding: utf-7\n", true},           /* after a UTF-8 BOM */
		{"# -*- coding: utf-8 -*-\n", false},
		{"# coding=UTF_8\n", false},
		{"# coding: ascii\n", false},
		{"x = 1\n# coding: utf-7\n", false},            /* code first: line 2 is not read */
		{"#!/usr/bin/env python\n# coding: utf-7\n", true},
		{"x = 1\ny = 2\n# coding: utf-7\n", false},    /* line 3 */
		{"", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(mpsfix_source_declares_other(cases[i].text, strlen(cases[i].text)) == cases[i].other,
			      "case %zu: %s", i, cases[i].text);
}
END_TEST

START_TEST(test_source_bom)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	const char text[] = "\xEF\xBB\xBFx = 1\ny\n";
	uint32_t line, col;

	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "b.py", text, sizeof(text) - 1), 0);
	ck_assert(s.has_bom);
	ck_assert(!s.crlf);
	ck_assert_uint_eq(s.len, sizeof(text) - 1);
	ck_assert_mem_eq(s.data, text, sizeof(text)); /* bytes kept, NUL after */
	mpsfix_source_position(&s, 3, &line, &col); /* 'x' */
	ck_assert_uint_eq(line, 1);
	ck_assert_uint_eq(col, 1);
	mpsfix_source_position(&s, 5, &line, &col); /* '=' */
	ck_assert_uint_eq(col, 3);
	mpsfix_source_position(&s, 0, &line, &col); /* inside the BOM */
	ck_assert_uint_eq(col, 1);
	mpsfix_source_position(&s, 9, &line, &col); /* 'y' */
	ck_assert_uint_eq(line, 2);
	ck_assert_uint_eq(col, 1);
	mpsfix_span sp = mpsfix_source_line(&s, 1);
	ck_assert_uint_eq(sp.start, 3);
	ck_assert_uint_eq(sp.end, 8);
	mpsfix_source_release(&s);
}
END_TEST

START_TEST(test_source_crlf)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	const char text[] = "a\r\nbb\r\nc\n";

	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "c.py", text, sizeof(text) - 1), 0);
	ck_assert(s.crlf);
	ck_assert_str_eq(mpsfix_source_newline(&s), "\r\n");
	ck_assert_uint_eq(s.nlines, 4);
	ck_assert_uint_eq(s.lines[1], 3);
	ck_assert_uint_eq(s.lines[2], 7);
	ck_assert_uint_eq(s.lines[3], 9);
	mpsfix_span sp = mpsfix_source_line(&s, 2);
	ck_assert_uint_eq(sp.start, 3);
	ck_assert_uint_eq(sp.end, 5); /* "bb" without \r\n */
	sp = mpsfix_source_line(&s, 3);
	ck_assert_uint_eq(sp.end - sp.start, 1); /* "c" without \n */
	sp = mpsfix_source_line(&s, 4);
	ck_assert_uint_eq(sp.start, 9);
	ck_assert_uint_eq(sp.end, 9);
	sp = mpsfix_source_line(&s, 5); /* out of range: empty, at the end */
	ck_assert_uint_eq(sp.start, s.len);
	ck_assert_uint_eq(sp.end, s.len);
	mpsfix_source_release(&s);
}
END_TEST

START_TEST(test_source_mixed_endings)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	const char text[] = "a\r\nb\nc\rd\n";

	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "m.py", text, sizeof(text) - 1), 0);
	ck_assert(!s.crlf); /* one \r\n, two \n */
	ck_assert_str_eq(mpsfix_source_newline(&s), "\n");
	ck_assert_uint_eq(s.nlines, 4); /* a lone \r ends no line */
	mpsfix_span sp = mpsfix_source_line(&s, 3);
	ck_assert_uint_eq(sp.end - sp.start, 3); /* "c\rd" */
	mpsfix_source_release(&s);

	/* a tie is not "more": LF */
	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "t.py", "a\r\nb\n", 5), 0);
	ck_assert(!s.crlf);
	mpsfix_source_release(&s);
	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "t.py", "a\r\nb\r\nc\n", 8), 0);
	ck_assert(s.crlf);
	mpsfix_source_release(&s);
}
END_TEST

START_TEST(test_source_empty)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	uint32_t line, col;
	char *path = tpath("empty.py");

	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "e.py", "", 0), 0);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_uint_eq(s.nlines, 1);
	ck_assert_str_eq(s.data, "");
	mpsfix_source_position(&s, 0, &line, &col);
	ck_assert_uint_eq(line, 1);
	ck_assert_uint_eq(col, 1);
	mpsfix_source_release(&s);

	write_file(path, "", 0, 0644);
	ck_assert_int_eq(mpsfix_source_read(&s, path), 0);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_uint_eq(s.nlines, 1);
	ck_assert_str_eq(s.path, path);
	mpsfix_source_release(&s);
	free(path);
}
END_TEST

START_TEST(test_source_nul_byte)
{
	expect_skip("ab\nc\xC3\xA9\0x", 8,
		    "x.py: skipped: binary file (NUL byte at line 2, column 3)");
	expect_skip("\0", 1, "x.py: skipped: binary file (NUL byte at line 1, column 1)");
}
END_TEST

START_TEST(test_source_invalid_utf8)
{
	/* overlong "/" and NUL, on line 2 after one character */
	expect_skip("a\nx\xC0\xAF", 5, "x.py:2:2: skipped: invalid UTF-8");
	expect_skip("\xE0\x80\xAF", 3, "x.py:1:1: skipped: invalid UTF-8");
	expect_skip("\xF0\x80\x80\xAF", 4, "x.py:1:1: skipped: invalid UTF-8");
	/* surrogate U+D800 after "é" */
	expect_skip("\xC3\xA9\xED\xA0\x80", 5, "x.py:1:2: skipped: invalid UTF-8");
	/* above U+10FFFF, and lead bytes that can never appear */
	expect_skip("ok\n\xF4\x90\x80\x80", 7, "x.py:2:1: skipped: invalid UTF-8");
	expect_skip("\xF5\x80\x80\x80", 4, "x.py:1:1: skipped: invalid UTF-8");
	expect_skip("ab\xFF", 3, "x.py:1:3: skipped: invalid UTF-8");
	/* stray continuation byte, truncated sequence, bad continuation */
	expect_skip("\x80", 1, "x.py:1:1: skipped: invalid UTF-8");
	expect_skip("ab\xE2\x82", 4, "x.py:1:3: skipped: invalid UTF-8");
	expect_skip("\xE2\x28\xA1", 3, "x.py:1:1: skipped: invalid UTF-8");
	/* BOM not counted in the column */
	expect_skip("\xEF\xBB\xBF" "ab\xC1\x81", 7, "x.py:1:3: skipped: invalid UTF-8");

	/* the edges of what is valid */
	expect_ok("\xC2\x80", 2);
	expect_ok("\xED\x9F\xBF", 3);     /* U+D7FF */
	expect_ok("\xEE\x80\x80", 3);     /* U+E000 */
	expect_ok("\xF0\x90\x80\x80", 4); /* U+10000 */
	expect_ok("\xF4\x8F\xBF\xBF", 4); /* U+10FFFF */
	expect_ok("\xF0\x9F\x98\x80", 4); /* an emoji */
}
END_TEST

START_TEST(test_source_foreign_bom)
{
	expect_skip("\xFF\xFEi\0m\0", 6,
		    "x.py: skipped: UTF-16 (little-endian) text (byte-order mark FF FE); "
		    "mpsfix reads only UTF-8");
	expect_skip("\xFE\xFF\0i\0m", 6,
		    "x.py: skipped: UTF-16 (big-endian) text (byte-order mark FE FF); "
		    "mpsfix reads only UTF-8");
	expect_skip("\xFF\xFE\0\0i\0\0\0", 8,
		    "x.py: skipped: UTF-32 (little-endian) text (byte-order mark FF FE 00 00); "
		    "mpsfix reads only UTF-8");
	expect_skip("\0\0\xFE\xFF\0\0\0i", 8,
		    "x.py: skipped: UTF-32 (big-endian) text (byte-order mark 00 00 FE FF); "
		    "mpsfix reads only UTF-8");
	/* without a mark, UTF-16 is binary */
	expect_skip("i\0m\0", 4, "x.py: skipped: binary file (NUL byte at line 1, column 2)");
	/* a lone FF is invalid UTF-8, not a mark */
	expect_skip("\xFFx", 2, "x.py:1:1: skipped: invalid UTF-8");
}
END_TEST

/* Load `text` and expect it kept, declaring `encoding` ("" for none) on `line`. */
static void expect_encoding(const char *text, const char *encoding, uint32_t line)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;

	ck_assert_msg(mpsfix_source_from_buffer(&s, "x.py", text, strlen(text)) == 0,
		      "rejected: %s", mpsfix_error_last()->message);
	ck_assert_str_eq(s.encoding, encoding);
	ck_assert_uint_eq(s.encoding_line, line);
	mpsfix_source_release(&s);
}

START_TEST(test_source_coding_line)
{
	/* PEP 263 spellings: Emacs, Vim, plain */
	expect_encoding("# -*- coding: latin-1 -*-\nx = 1\n", "latin-1", 1);
	expect_encoding("#!/usr/bin/python\n# vim: set fileencoding=ISO_8859_15 :\n", "iso-8859-15", 2);
	expect_encoding("\n  #coding=cp1252\n", "cp1252", 2);
	/* UTF-8 by any of its names is no declaration */
	expect_encoding("# -*- coding: utf-8 -*-\nname = 'caf\xC3\xA9'\n", "", 0);
	expect_encoding("# coding: UTF8\n", "", 0);
	expect_encoding("# coding=utf_8\n", "", 0);
	expect_encoding("# coding: utf-8-unix\n", "", 0);
	/* only lines 1 and 2, line 2 only after a comment or blank line, and
	 * only in a comment */
	expect_encoding("x = 1\n# coding: latin-1\nname = '\xC3\xA9'\n", "", 0);
	expect_encoding("#\n#\n# coding: latin-1\n\xC3\xA9\n", "", 0);
	expect_encoding("s = '# coding: latin-1'\n\xC3\xA9 = 1\n", "", 0);
	expect_encoding("# coding is: latin-1\n\xC3\xA9 = 1\n", "", 0);
	/* a UTF-8 byte-order mark wins over the line */
	expect_encoding("\xEF\xBB\xBF# coding: latin-1\n\xC3\xA9 = 1\n", "", 0);

	/* another encoding with text beyond ASCII: skipped, located */
	expect_skip("# -*- coding: latin-1 -*-\nname = \"caf\xE9\"\n", 40,
		    "x.py:2:12: skipped: the file declares encoding 'latin-1' (line 1) and has "
		    "non-ASCII text; mpsfix reads only UTF-8");
	/* even when those bytes happen to be valid UTF-8: Python reads them as Latin-1 */
	expect_skip("# coding: latin-1\n\xC3\xA9 = 1\n", 25,
		    "x.py:2:1: skipped: the file declares encoding 'latin-1' (line 1) and has "
		    "non-ASCII text; mpsfix reads only UTF-8");
}
END_TEST

START_TEST(test_source_symlink_loop_and_dangling)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *loop = tpath("loop.py"), *dangling = tpath("dangling.py"), *want;

	ck_assert_int_eq(symlink("loop.py", loop), 0);
	ck_assert_int_eq(symlink("nothing.py", dangling), 0);
	ck_assert_int_eq(mpsfix_source_read(&s, loop), MPSFIX_ESKIP);
	want = mpsfix_xasprintf("%s: skipped: a symbolic link loop", loop);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	free(want);
	ck_assert_int_eq(mpsfix_source_read(&s, dangling), MPSFIX_ESKIP);
	want = mpsfix_xasprintf("%s: skipped: a symbolic link to a file that does not exist", dangling);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	free(want);
	ck_assert_ptr_null(s.data);
	free(loop);
	free(dangling);
}
END_TEST

START_TEST(test_source_too_large)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("huge.py");
	char *want;
	int fd;

	/* the size is refused before any byte is looked at */
	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "big.py", "", MPSFIX_SOURCE_MAX + 1u),
			 MPSFIX_ESKIP);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "big.py: skipped: file too large (16777217 bytes; the limit is 16777216)");

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)MPSFIX_SOURCE_MAX + 10), 0); /* sparse */
	close(fd);
	ck_assert_int_eq(mpsfix_source_read(&s, path), MPSFIX_ESKIP);
	want = mpsfix_xasprintf("%s: skipped: file too large (16777226 bytes; the limit is 16777216)",
				path);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	free(want);
	free(path);
}
END_TEST

START_TEST(test_source_fifo_does_not_block)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("pipe.py");
	char *want = mpsfix_xasprintf("%s: skipped: not a regular file", path);

	ck_assert_int_eq(mkfifo(path, 0644), 0);
	alarm(10); /* a blocking open would hang: die instead */
	ck_assert_int_eq(mpsfix_source_read(&s, path), MPSFIX_ESKIP);
	alarm(0);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_ptr_null(s.data);
	free(want);
	free(path);
}
END_TEST

START_TEST(test_source_directory_and_missing)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *want = mpsfix_xasprintf("%s: skipped: is a directory", tmpdir);
	char *missing = tpath("missing.py");

	ck_assert_int_eq(mpsfix_source_read(&s, tmpdir), MPSFIX_ESKIP);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	free(want);

	ck_assert_int_eq(mpsfix_source_read(&s, missing), MPSFIX_ERROR);
	want = mpsfix_xasprintf("%s: cannot open: No such file or directory", missing);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	free(want);
	free(missing);
}
END_TEST

START_TEST(test_source_columns)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	/* α β γ are 2 bytes, 😀 is 4 */
	const char text[] = "x = 1\n\xCE\xB1\xCE\xB2\xCE\xB3 = '\xF0\x9F\x98\x80'\n";
	uint32_t line, col;

	ck_assert_int_eq(mpsfix_source_from_buffer(&s, "u.py", text, sizeof(text) - 1), 0);
	ck_assert(!s.has_bom);
	mpsfix_source_position(&s, 6 + 7, &line, &col); /* '=' */
	ck_assert_uint_eq(line, 2);
	ck_assert_uint_eq(col, 5);
	mpsfix_source_position(&s, 6 + 10, &line, &col); /* the emoji */
	ck_assert_uint_eq(col, 8);
	mpsfix_source_position(&s, 6 + 14, &line, &col); /* the closing quote */
	ck_assert_uint_eq(col, 9);
	mpsfix_source_position(&s, 4, &line, &col); /* '1' */
	ck_assert_uint_eq(line, 1);
	ck_assert_uint_eq(col, 5);
	mpsfix_source_position(&s, s.len, &line, &col); /* the end: empty line 3 */
	ck_assert_uint_eq(line, 3);
	ck_assert_uint_eq(col, 1);
	mpsfix_source_release(&s);
}
END_TEST

/* Names in tmpdir other than `keep`, to catch leftover temporary files. */
static int count_others(const char *keep1, const char *keep2)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, keep1) || (keep2 && !strcmp(e->d_name, keep2)))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

START_TEST(test_source_write_atomic_keeps_mode)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("m.py");
	const char repl[] = "y = 2\r\n";
	struct stat st;
	size_t len;

	write_file(path, "x = 1\n", 6, 0751);
	ck_assert_int_eq(mpsfix_source_read(&s, path), 0);
	ck_assert(s.have_mode);
	ck_assert_uint_eq(s.mode, 0751);
	ck_assert_int_eq(mpsfix_source_write_atomic(path, repl, sizeof(repl) - 1,
						    s.have_mode, s.mode), 0);
	char *got = tu_read_file(path, &len);
	ck_assert_uint_eq(len, sizeof(repl) - 1);
	ck_assert_mem_eq(got, repl, len);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0751);
	ck_assert_int_eq(count_others("m.py", NULL), 0);
	free(got);

	/* without a mode: 0644 minus the umask */
	mode_t old = umask(027);
	ck_assert_int_eq(mpsfix_source_write_atomic(path, "", 0, false, 0), 0);
	umask(old);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(st.st_size, 0);
	mpsfix_source_release(&s);
	free(path);
}
END_TEST

START_TEST(test_source_write_atomic_failure_leaves_nothing)
{
	char *sub = tpath("sub");
	char *inner = tpath("sub/keep.py");
	char *nodir = tpath("nodir/x.py");
	size_t len;

	/* renaming a file over a non-empty folder fails: the folder stays */
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	write_file(inner, "keep\n", 5, 0644);
	ck_assert_int_eq(mpsfix_source_write_atomic(sub, "new\n", 4, true, 0644), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "cannot rename"));
	ck_assert_int_eq(count_others("sub", NULL), 0);
	char *got = tu_read_file(inner, &len);
	ck_assert_str_eq(got, "keep\n");
	free(got);

	ck_assert_int_eq(mpsfix_source_write_atomic(nodir, "x", 1, false, 0), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "cannot create a temporary file"));
	free(sub);
	free(inner);
	free(nodir);
}
END_TEST

START_TEST(test_source_write_atomic_through_symlink)
{
	char *real = tpath("real.py");
	char *link = tpath("link.py");
	struct stat st;
	size_t len;

	write_file(real, "old\n", 4, 0600);
	ck_assert_int_eq(symlink("real.py", link), 0);
	ck_assert_int_eq(mpsfix_source_write_atomic(link, "new\n", 4, true, 0600), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	char *got = tu_read_file(real, &len);
	ck_assert_str_eq(got, "new\n");
	ck_assert_int_eq(lstat(real, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(count_others("real.py", "link.py"), 0);
	free(got);
	free(real);
	free(link);
}
END_TEST

/* Read `path` (holding `text`) into `s`, with its stamp. */
static void read_into(mpsfix_source *s, const char *path, const char *text, mode_t mode)
{
	write_file(path, text, strlen(text), mode);
	ck_assert_msg(mpsfix_source_read(s, path) == 0, "%s", mpsfix_error_last()->message);
	ck_assert(s->stamp.known);
}

static void expect_content(const char *path, const char *want)
{
	size_t len;
	char *got = tu_read_file(path, &len);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_source_write_back)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("w.py");
	struct stat st;

	read_into(&s, path, "old\n", 0640);
	ck_assert_int_eq(mpsfix_source_check_writable(&s, path), 0);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), 0);
	expect_content(path, "new\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_uint_eq(st.st_uid, s.stamp.uid);
	ck_assert_int_eq(count_others("w.py", NULL), 0);
	mpsfix_source_release(&s);
	free(path);
}
END_TEST

START_TEST(test_source_write_back_keeps_owner)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("owned.py");
	struct stat st;

	if (geteuid() != 0)
		return; /* only root can give a file away */
	read_into(&s, path, "old\n", 0644);
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	mpsfix_source_release(&s);
	ck_assert_int_eq(mpsfix_source_read(&s, path), 0);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_uid, 65534);
	ck_assert_uint_eq(st.st_gid, 65534);
	expect_content(path, "new\n");
	mpsfix_source_release(&s);
	free(path);
}
END_TEST

START_TEST(test_source_write_back_read_only)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("ro.py"), *other = tpath("other.txt");
	char *want = mpsfix_xasprintf("%s: not fixed: the file is read-only", path);
	char *want_links;

	/* no write bit at all: read-only even for root */
	read_into(&s, path, "old\n", 0444);
	ck_assert_int_eq(mpsfix_source_check_writable(&s, path), MPSFIX_ESKIP);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), MPSFIX_ESKIP);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	expect_content(path, "old\n");
	ck_assert_int_eq(count_others("ro.py", NULL), 0);
	mpsfix_source_release(&s);

	/* a second hard link: replacing the file would separate the names */
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(link(path, other), 0);
	ck_assert_int_eq(mpsfix_source_read(&s, path), 0);
	want_links = mpsfix_xasprintf("%s: not fixed: the file has 2 hard links "
				      "(replacing it would separate them)", path);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), MPSFIX_ESKIP);
	ck_assert_str_eq(mpsfix_error_last()->message, want_links);
	expect_content(other, "old\n");
	mpsfix_source_release(&s);
	free(want_links);
	free(want);
	free(other);
	free(path);
}
END_TEST

START_TEST(test_source_write_back_changed)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("c.py"), *moved = tpath("c.py.new");
	char *want = mpsfix_xasprintf("%s: not fixed: the file changed while mpsfix was working "
				      "on it; nothing was written (run mpsfix again)", path);

	/* written to meanwhile: the writer's bytes stay, ours are dropped */
	read_into(&s, path, "old\n", 0644);
	write_file(path, "old\nmore\n", 9, 0644);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	expect_content(path, "old\nmore\n");
	ck_assert_int_eq(count_others("c.py", NULL), 0);
	mpsfix_source_release(&s);

	/* the same size, other bytes */
	read_into(&s, path, "abc\n", 0644);
	write_file(path, "xyz\n", 4, 0644);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), MPSFIX_ERROR);
	expect_content(path, "xyz\n");
	mpsfix_source_release(&s);

	/* replaced by another file (as editors save) with the same bytes */
	read_into(&s, path, "abc\n", 0644);
	write_file(moved, "abc\n", 4, 0644);
	ck_assert_int_eq(rename(moved, path), 0);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	expect_content(path, "abc\n");
	mpsfix_source_release(&s);

	/* removed meanwhile: not brought back */
	read_into(&s, path, "abc\n", 0644);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), MPSFIX_ERROR);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(count_others("none", NULL), 0);
	mpsfix_source_release(&s);

	/* permissions changed meanwhile: the file's metadata changed too */
	read_into(&s, path, "abc\n", 0644);
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "new\n", 4), MPSFIX_ERROR);
	expect_content(path, "abc\n");
	mpsfix_source_release(&s);
	free(want);
	free(moved);
	free(path);
}
END_TEST

START_TEST(test_source_write_back_declared_encoding)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	char *path = tpath("l.py");
	const char *old = "# -*- coding: latin-1 -*-\nx = 1\n";
	char *want = mpsfix_xasprintf("%s: not fixed: the fixed text is not ASCII, and the file "
				      "declares encoding 'latin-1' (line 1)", path);

	read_into(&s, path, old, 0644);
	ck_assert_str_eq(s.encoding, "latin-1");
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "# -*- coding: latin-1 -*-\nx = '\xC3\xA9'\n",
						  36), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, want);
	expect_content(path, old);
	ck_assert_int_eq(mpsfix_source_write_back(&s, path, "# -*- coding: latin-1 -*-\nx = 2\n", 32), 0);
	expect_content(path, "# -*- coding: latin-1 -*-\nx = 2\n");
	mpsfix_source_release(&s);
	free(want);
	free(path);
}
END_TEST

START_TEST(test_source_temp_names)
{
	ck_assert(mpsfix_source_is_temp_name(".a.py.mpsfix-Ab12Cd"));
	ck_assert(mpsfix_source_is_temp_name(".x.mpsfix-000000"));
	ck_assert(!mpsfix_source_is_temp_name("a.py.mpsfix-Ab12Cd"));   /* not hidden */
	ck_assert(!mpsfix_source_is_temp_name(".a.py.mpsfix-Ab12C"));   /* five */
	ck_assert(!mpsfix_source_is_temp_name(".a.py.mpsfix-Ab12Cde")); /* seven */
	ck_assert(!mpsfix_source_is_temp_name(".a.py.mpsfix-Ab1.Cd"));
	ck_assert(!mpsfix_source_is_temp_name("..mpsfix-Ab12Cd"));      /* no name */
	ck_assert(!mpsfix_source_is_temp_name(".a.py"));
	ck_assert(!mpsfix_source_is_temp_name(""));
}
END_TEST

static void count_removed(void *payload, const char *path)
{
	(void)path;
	(*(int *)payload)++;
}

START_TEST(test_source_remove_stale_temps)
{
	char *stale = tpath(".a.py.mpsfix-Ab12Cd"), *busy = tpath(".b.py.mpsfix-Zz99zz");
	char *lookalike = tpath("a.py.mpsfix-Ab12Cd"), *linked = tpath(".c.py.mpsfix-Qq11qq");
	char *folder = tpath(".d.py.mpsfix-Rr22rr"), *keep = tpath("a.py");
	int removed = 0, fd;

	write_file(stale, "half", 4, 0600);
	write_file(busy, "half", 4, 0600);
	write_file(lookalike, "mine", 4, 0644);
	write_file(keep, "x = 1\n", 6, 0644);
	ck_assert_int_eq(symlink("a.py", linked), 0);
	ck_assert_int_eq(mkdir(folder, 0755), 0);
	/* a writer still at work holds the lock of its temporary file */
	fd = open(busy, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);

	ck_assert_int_eq(mpsfix_source_remove_stale_temps(tmpdir, count_removed, &removed), 0);
	ck_assert_int_eq(removed, 1);
	ck_assert_int_eq(access(stale, F_OK), -1);
	ck_assert_int_eq(access(busy, F_OK), 0);
	ck_assert_int_eq(access(lookalike, F_OK), 0);
	ck_assert_int_eq(access(keep, F_OK), 0);
	ck_assert_int_eq(access(folder, F_OK), 0);
	ck_assert_int_eq(access(linked, F_OK), 0); /* a symlink is never someone's temporary file */
	close(fd);

	/* the writer is gone: now it is stale */
	ck_assert_int_eq(mpsfix_source_remove_stale_temps(tmpdir, count_removed, &removed), 0);
	ck_assert_int_eq(removed, 2);
	ck_assert_int_eq(access(busy, F_OK), -1);

	if (geteuid() != 0) { /* root lists any folder */
		ck_assert_int_eq(chmod(tmpdir, 0300), 0);
		ck_assert_int_eq(mpsfix_source_remove_stale_temps(tmpdir, NULL, NULL), 0);
		ck_assert_int_eq(chmod(tmpdir, 0700), 0);
	}
	char *missing = tpath("nowhere");
	ck_assert_int_eq(mpsfix_source_remove_stale_temps(missing, NULL, NULL), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "No such file"));
	free(missing);
	free(stale);
	free(busy);
	free(lookalike);
	free(linked);
	free(folder);
	free(keep);
}
END_TEST

Suite *mpsfix_suite_source(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("source");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_source_declares_other);
	tcase_add_test(tc, test_source_bom);
	tcase_add_test(tc, test_source_crlf);
	tcase_add_test(tc, test_source_mixed_endings);
	tcase_add_test(tc, test_source_empty);
	tcase_add_test(tc, test_source_nul_byte);
	tcase_add_test(tc, test_source_invalid_utf8);
	tcase_add_test(tc, test_source_foreign_bom);
	tcase_add_test(tc, test_source_coding_line);
	tcase_add_test(tc, test_source_symlink_loop_and_dangling);
	tcase_add_test(tc, test_source_too_large);
	tcase_add_test(tc, test_source_fifo_does_not_block);
	tcase_add_test(tc, test_source_directory_and_missing);
	tcase_add_test(tc, test_source_columns);
	tcase_add_test(tc, test_source_write_atomic_keeps_mode);
	tcase_add_test(tc, test_source_write_atomic_failure_leaves_nothing);
	tcase_add_test(tc, test_source_write_atomic_through_symlink);
	tcase_add_test(tc, test_source_write_back);
	tcase_add_test(tc, test_source_write_back_keeps_owner);
	tcase_add_test(tc, test_source_write_back_read_only);
	tcase_add_test(tc, test_source_write_back_changed);
	tcase_add_test(tc, test_source_write_back_declared_encoding);
	tcase_add_test(tc, test_source_temp_names);
	tcase_add_test(tc, test_source_remove_stale_temps);
	suite_add_tcase(s, tc);
	return s;
}
