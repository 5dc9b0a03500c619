/*
 * check_style.c: the line length a file's fixes keep to: the INI reader,
 * each lint configuration file, their order in one folder, bad values, the
 * nearest folder that sets one, and the option's and the configuration's.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git.h"
#include "ini.h"
#include "strvec.h"
#include "style.h"
#include "tests.h"
#include "testutil.h"

static char tmpdir[64];
static char oldcwd[PATH_MAX];
static mpsfix_strvec warnings;

static void on_warning(void *payload, const char *message)
{
	ck_assert_ptr_eq(payload, &warnings);
	mpsfix_strvec_push(&warnings, message);
}

static void put(const char *rel, const char *text)
{
	tu_put(tmpdir, rel, text);
}

static void go(const char *rel)
{
	char *path = mpsfix_xasprintf("%s/%s", tmpdir, rel);

	ck_assert_int_eq(chdir(path), 0);
	free(path);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(getcwd(oldcwd, sizeof(oldcwd)));
	strcpy(tmpdir, "/tmp/mpsfix-style-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	tu_git_isolate(tmpdir);
	ck_assert_int_eq(mpsfix_git_init(), 0);
	ck_assert_int_eq(chdir(tmpdir), 0);
	warnings = (mpsfix_strvec)MPSFIX_STRVEC_INIT;
}

static void teardown(void)
{
	ck_assert_int_eq(chdir(oldcwd), 0);
	tu_rm_rf(tmpdir);
	mpsfix_strvec_release(&warnings);
	mpsfix_git_shutdown();
	tu_git_restore();
}

/* The warnings so far, one a line (and forget them). */
static char *take_warnings(void)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;

	for (size_t i = 0; i < warnings.len; i++)
		mpsfix_buf_printf(&b, "%s\n", warnings.items[i]);
	mpsfix_buf_addc(&b, '\0');
	mpsfix_strvec_release(&warnings);
	return mpsfix_buf_detach(&b, NULL);
}

static void expect_warnings(const char *want)
{
	char *got = take_warnings();

	ck_assert_str_eq(got, want);
	free(got);
}

/* What folder `rel` sets: "N (origin)", or "none". */
static char *folder_says(const char *rel)
{
	mpsfix_style st;
	char *out, *summary;

	if (!mpsfix_style_read_folder(&st, rel, on_warning, &warnings))
		return mpsfix_xstrdup("none");
	out = mpsfix_xasprintf("%u (%s)", st.line_length, st.origin);
	summary = mpsfix_xasprintf("line length %s", out);
	ck_assert_str_eq(st.summary, summary);
	free(summary);
	mpsfix_style_release(&st);
	return out;
}

static void expect_folder(const char *rel, const char *want)
{
	char *got = folder_says(rel);

	ck_assert_str_eq(got, want);
	free(got);
}

/* --- the INI reader ------------------------------------------------------------------ */

static void add_ini_line(void *payload, const mpsfix_ini_line *l)
{
	mpsfix_buf_printf(payload, "%.*s|%.*s|%.*s|%u%s\n", (int)l->section.n, l->section.s, (int)l->key.n,
			  l->key.s, (int)l->value.n, l->value.s, l->line, l->continued ? "+" : "");
}

START_TEST(test_ini_read)
{
	static const char text[] =
		"top = 1\n"
		"[flake8]\n"
		"max-line-length = 100\r\n"
		"select =\n"
		"    E,\n"
		"    # a comment inside the value\n"
		"\n"
		"    W\n"
		"; a comment\n"
		"exclude: a\n"
		"  [not a header]\n"
		"[ pycodestyle ] # after the header\n"
		"Max_Line_Length=79\n"
		"no delimiter\n"
		"    not a continuation\n"
		"= no key\n"
		"[unclosed\n"
		"k = v = w\n";
	mpsfix_buf b = MPSFIX_BUF_INIT;

	mpsfix_ini_read(text, sizeof(text) - 1, add_ini_line, &b);
	mpsfix_buf_addc(&b, '\0');
	ck_assert_str_eq(b.data, "|top|1|1\n"
				 "flake8|max-line-length|100|3\n"
				 "flake8|select||4\n"
				 "flake8|select|E,|5+\n"
				 "flake8|select|W|8+\n"
				 "flake8|exclude|a|10\n"
				 "flake8|exclude|[not a header]|11+\n"
				 "pycodestyle|Max_Line_Length|79|13\n"
				 "pycodestyle|k|v = w|18\n");
	mpsfix_buf_release(&b);
	/* no newline at the end, and nothing at all */
	b = (mpsfix_buf)MPSFIX_BUF_INIT;
	mpsfix_ini_read("[a]\nx=1", 7, add_ini_line, &b);
	mpsfix_ini_read("", 0, add_ini_line, &b);
	mpsfix_buf_addc(&b, '\0');
	ck_assert_str_eq(b.data, "a|x|1|2\n");
	mpsfix_buf_release(&b);
	ck_assert(mpsfix_ini_name_is((mpsfix_text_slice){"Max_Line_Length", 15}, "max-line-length"));
	ck_assert(mpsfix_ini_name_is((mpsfix_text_slice){"MAX-LINE-LENGTH", 15}, "max-line-length"));
	ck_assert(mpsfix_ini_name_is((mpsfix_text_slice){"install-requires", 16}, "install_requires"));
	ck_assert(!mpsfix_ini_name_is((mpsfix_text_slice){"max-line-lengths", 16}, "max-line-length"));
	ck_assert(!mpsfix_ini_name_is((mpsfix_text_slice){"max-line", 8}, "max-line-length"));
}
END_TEST

/* --- one folder ------------------------------------------------------------------------ */

START_TEST(test_style_each_file)
{
	put("a/.ruff.toml", "# ruff\nline-length = 100\n");
	expect_folder("a", "100 (a/.ruff.toml:2)");
	/* at the top only: [lint] line-length is not ruff's line length */
	put("b/ruff.toml", "[lint]\nline-length = 5\n");
	expect_folder("b", "none");
	put("b/ruff.toml", "line-length = 110\n[lint]\nline-length = 5\n");
	expect_folder("b", "110 (b/ruff.toml:1)");
	/* ruff's before black's, wherever they are in the file */
	put("c/pyproject.toml", "[tool.black]\nline-length = 99\n\n[tool.ruff]\nline-length = 120\n");
	expect_folder("c", "120 (c/pyproject.toml:5)");
	put("d/pyproject.toml", "[project]\nname = \"d\"\n[tool.black]\nline-length = 99\n");
	expect_folder("d", "99 (d/pyproject.toml:4)");
	put("e/pyproject.toml", "[tool]\nruff.line-length = 0x82\n");
	expect_folder("e", "130 (e/pyproject.toml:2)");
	/* a pyproject.toml that sets none: the next file */
	put("f/pyproject.toml", "[tool.ruff]\nselect = [\"E\"]\n[tool.isort]\nline_length = 100\n");
	put("f/setup.cfg", "[isort]\nline_length = 70\n[flake8]\nmax-line-length = 101\n");
	expect_folder("f", "101 (f/setup.cfg:4)");
	/* flake8's before pycodestyle's in one file */
	put("g/setup.cfg", "[pycodestyle]\nmax-line-length = 80\n[flake8]\nmax-line-length = 90\n");
	expect_folder("g", "90 (g/setup.cfg:4)");
	put("h/tox.ini", "[tox]\nenvlist = py3\n[pycodestyle]\nmax_line_length = 127\n");
	expect_folder("h", "127 (h/tox.ini:4)");
	put("i/.flake8", "[flake8]\nMax-Line-Length = 79\n");
	expect_folder("i", "79 (i/.flake8:2)");
	/* .flake8 is flake8's alone */
	put("j/.flake8", "[pycodestyle]\nmax-line-length = 79\n");
	expect_folder("j", "none");
	expect_folder("nothing-here", "none");
	/* a folder named like a configuration file is not one */
	put("k/pyproject.toml/x", "");
	expect_folder("k", "none");
	/* yapf's column_limit: .style.yapf's [style], setup.cfg's [yapf] (before flake8's), [tool.yapf] */
	put("l/.style.yapf", "[style]\nbased_on_style = pep8\nCOLUMN_LIMIT = 119\n");
	put("l/.flake8", "[flake8]\nmax-line-length = 79\n");
	expect_folder("l", "119 (l/.style.yapf:3)");
	put("m/setup.cfg", "[flake8]\nmax-line-length = 120\n[yapf]\ncolumn_limit = 100\n");
	expect_folder("m", "100 (m/setup.cfg:4)");
	put("n/pyproject.toml", "[tool.yapf]\nbased_on_style = \"google\"\ncolumn_limit = 110\n");
	expect_folder("n", "110 (n/pyproject.toml:3)");
	/* black's before yapf's; yapf reads neither tox.ini nor [style] elsewhere */
	put("o/pyproject.toml", "[tool.yapf]\ncolumn_limit = 110\n[tool.black]\nline-length = 99\n");
	expect_folder("o", "99 (o/pyproject.toml:4)");
	put("q/tox.ini", "[yapf]\ncolumn_limit = 100\n[style]\ncolumn_limit = 101\n");
	put("q/setup.cfg", "[style]\ncolumn_limit = 102\n");
	expect_folder("q", "none");
	put("r/.style.yapf", "[yapf]\ncolumn_limit = 103\n[flake8]\nmax-line-length = 104\n");
	expect_folder("r", "none");
	expect_warnings("");
}
END_TEST

/* In one folder: .ruff.toml, ruff.toml, [tool.ruff], [tool.black], setup.cfg, tox.ini, .flake8. */
START_TEST(test_style_order_in_folder)
{
	static const char *const files[] = {".ruff.toml", "ruff.toml", "pyproject.toml", "setup.cfg", "tox.ini",
					    ".flake8"};

	put("p/.ruff.toml", "line-length = 101\n");
	put("p/ruff.toml", "line-length = 102\n");
	put("p/pyproject.toml", "[tool.black]\nline-length = 104\n[tool.ruff]\nline-length = 103\n");
	put("p/setup.cfg", "[flake8]\nmax-line-length = 105\n");
	put("p/tox.ini", "[flake8]\nmax-line-length = 106\n");
	put("p/.flake8", "[flake8]\nmax-line-length = 107\n");
	expect_folder("p", "101 (p/.ruff.toml:1)");
	ck_assert_int_eq(remove("p/.ruff.toml"), 0);
	expect_folder("p", "102 (p/ruff.toml:1)");
	ck_assert_int_eq(remove("p/ruff.toml"), 0);
	expect_folder("p", "103 (p/pyproject.toml:4)");
	put("p/pyproject.toml", "[tool.black]\nline-length = 104\n[tool.ruff]\nselect = []\n");
	expect_folder("p", "104 (p/pyproject.toml:2)");
	for (size_t i = 2; i + 1 < MPSFIX_ARRAY_SIZE(files); i++) {
		char *path = mpsfix_xasprintf("p/%s", files[i]), *want;

		ck_assert_int_eq(remove(path), 0);
		want = mpsfix_xasprintf("%zu (p/%s:2)", 103 + i, files[i + 1]);
		expect_folder("p", want);
		free(want);
		free(path);
	}
	expect_warnings("");
}
END_TEST

/* Values that are not line lengths, and files that cannot be read, are warnings; the next one counts. */
START_TEST(test_style_bad_values)
{
	char *path;
	FILE *f;

	put("bad/ruff.toml", "line-length = 88.5\n");
	put("bad/pyproject.toml", "[tool.ruff]\nline-length = 0\n[tool.black]\nline-length = \"100\"\n");
	put("bad/setup.cfg", "[flake8]\nmax-line-length = 400\n[pycodestyle]\nmax-line-length = 79 # no\n");
	put("bad/tox.ini", "[flake8]\nmax-line-length = 12O\n");
	put("bad/.flake8", "[flake8]\nmax-line-length = -1\nmax-line-length = 90\n");
	expect_folder("bad", "90 (bad/.flake8:3)");
	expect_warnings("bad/ruff.toml:1: line-length 88.5 ignored: not a whole number from 1 to 320\n"
			"bad/pyproject.toml:2: line-length 0 ignored: not a whole number from 1 to 320\n"
			"bad/pyproject.toml:4: line-length \"100\" ignored: not a whole number from 1 to 320\n"
			"bad/setup.cfg:2: max-line-length '400' ignored: not a whole number from 1 to 320\n"
			"bad/setup.cfg:4: max-line-length '79 # no' ignored: not a whole number from 1 to 320\n"
			"bad/tox.ini:2: max-line-length '12O' ignored: not a whole number from 1 to 320\n"
			"bad/.flake8:2: max-line-length '-1' ignored: not a whole number from 1 to 320\n");
	put("badyapf/.style.yapf", "[style]\ncolumn_limit = 1e3\n");
	put("badyapf/pyproject.toml", "[tool.yapf]\ncolumn_limit = 400\n");
	put("badyapf/setup.cfg", "[yapf]\ncolumn_limit = 95\n");
	expect_folder("badyapf", "95 (badyapf/setup.cfg:2)");
	expect_warnings("badyapf/pyproject.toml:2: column_limit 400 ignored: not a whole number from 1 to 320\n"
			"badyapf/.style.yapf:2: column_limit '1e3' ignored: not a whole number from 1 to 320\n");
	/* 320 is the most, 1 the least */
	put("edge/ruff.toml", "line-length = 320\n");
	expect_folder("edge", "320 (edge/ruff.toml:1)");
	put("edge/ruff.toml", "line-length = 321\n");
	put("edge/setup.cfg", "[flake8]\nmax-line-length = 1\n");
	expect_folder("edge", "1 (edge/setup.cfg:2)");
	expect_warnings("edge/ruff.toml:1: line-length 321 ignored: not a whole number from 1 to 320\n");
	/* TOML that cannot be read: what comes before the problem counts */
	put("broken/pyproject.toml", "[tool.black]\nline-length = 100\n[tool.ruff\n");
	expect_folder("broken", "100 (broken/pyproject.toml:2)");
	expect_warnings("broken/pyproject.toml:3: not read for the line length: a table header is not closed\n");
	/* a file too large to read */
	put("big/setup.cfg", "[flake8]\nmax-line-length = 100\n");
	path = mpsfix_xasprintf("%s/big/ruff.toml", tmpdir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	for (int i = 0; i < 4 * 1024 * 1024 / 64 + 1; i++)
		fputs("# a comment line of 64 bytes ..................................\n", f);
	ck_assert_int_eq(fclose(f), 0);
	expect_folder("big", "100 (big/setup.cfg:2)");
	ck_assert_uint_eq(warnings.len, 1);
	ck_assert_ptr_nonnull(strstr(warnings.items[0], "the file is larger than 4096 KiB (looking for the line "
						 "length in big/ruff.toml)"));
	mpsfix_strvec_release(&warnings);
	free(path);
}
END_TEST

/* --- the files of a run ---------------------------------------------------------------- */

/* The summary of the style of file `path`. */
static const char *style_of(mpsfix_styles *s, const char *path, const char *operand)
{
	size_t k = mpsfix_styles_of_file(s, path, operand, on_warning, &warnings);

	ck_assert_uint_lt(k, s->len);
	return s->items[k].summary;
}

START_TEST(test_styles_nearest)
{
	mpsfix_styles s;
	size_t a;

	put("proj/pyproject.toml", "[tool.black]\nline-length = 100\n");
	put("proj/a/ruff.toml", "line-length = 120\n");
	put("proj/a/pkg/x.py", "");
	put("proj/b/pyproject.toml", "[project]\nname = \"b\"\n[tool.ruff]\nselect = [\"E\"]\n");
	put("proj/b/x.py", "");
	put("proj/c/setup.cfg", "[flake8]\nmax-line-length = 0\n");
	put("proj/c/x.py", "");
	go("proj");
	mpsfix_styles_init(&s, 0, NULL);
	ck_assert(!s.forced);
	ck_assert_str_eq(s.items[0].summary, "line length 88");
	ck_assert_uint_eq(s.items[0].line_length, 88);
	ck_assert_ptr_null(s.items[0].origin);
	/* the nearest folder that sets one, each folder read once */
	a = mpsfix_styles_of_file(&s, "a/pkg/x.py", NULL, on_warning, &warnings);
	ck_assert_str_eq(s.items[a].summary, "line length 120 (a/ruff.toml:1)");
	ck_assert_uint_eq(mpsfix_styles_of_file(&s, "./a/../a/pkg/x.py", NULL, on_warning, &warnings), a);
	ck_assert_uint_eq(mpsfix_styles_of_folder(&s, "a/pkg", on_warning, &warnings), a);
	/* a folder that sets none is passed over, even with a ruff configuration */
	ck_assert_str_eq(style_of(&s, "b/x.py", NULL), "line length 100 (pyproject.toml:2)");
	ck_assert_str_eq(style_of(&s, "x.py", NULL), "line length 100 (pyproject.toml:2)");
	/* a bad value: a warning, once, and the folder above */
	ck_assert_str_eq(style_of(&s, "c/x.py", NULL), "line length 100 (pyproject.toml:2)");
	ck_assert_str_eq(style_of(&s, "c/y.py", NULL), "line length 100 (pyproject.toml:2)");
	expect_warnings("c/setup.cfg:2: max-line-length '0' ignored: not a whole number from 1 to 320\n");
	/* a file that is not there (standard input's --stdin-filename): its folder's */
	ck_assert_str_eq(style_of(&s, "a/new.py", NULL), "line length 120 (a/ruff.toml:1)");
	ck_assert_uint_eq(s.len, 3); /* the default, a's and the project's */
	mpsfix_styles_release(&s);
	/* outside git the search stops at the current folder, or at a higher folder operand */
	go("proj/b");
	mpsfix_styles_init(&s, 0, NULL);
	ck_assert_str_eq(style_of(&s, "x.py", NULL), "line length 88");
	ck_assert_str_eq(style_of(&s, "x.py", ".."), "line length 100 (../pyproject.toml:2)");
	mpsfix_styles_release(&s);
	/* the run's, for the files whose own search finds none: upward from the first path, to the root */
	mpsfix_styles_init(&s, 0, NULL);
	mpsfix_styles_find_run(&s, NULL, NULL, on_warning, &warnings);
	ck_assert_str_eq(s.items[s.run].summary, "line length 100 (../pyproject.toml:2)");
	ck_assert_str_eq(style_of(&s, "x.py", NULL), "line length 100 (../pyproject.toml:2)");
	mpsfix_styles_release(&s);
	mpsfix_styles_init(&s, 0, NULL);
	mpsfix_styles_find_run(&s, NULL, "../a/pkg/x.py", on_warning, &warnings);
	ck_assert_str_eq(s.items[s.run].summary, "line length 120 (../a/ruff.toml:1)");
	mpsfix_styles_release(&s);
	/* ... or from the configuration's folder */
	mpsfix_styles_init(&s, 0, NULL);
	mpsfix_styles_find_run(&s, "../c", "../a", on_warning, &warnings);
	ck_assert_str_eq(style_of(&s, "x.py", NULL), "line length 100 (../pyproject.toml:2)");
	expect_warnings("../c/setup.cfg:2: max-line-length '0' ignored: not a whole number from 1 to 320\n");
	mpsfix_styles_release(&s);
	/* forced: nothing read */
	mpsfix_styles_init(&s, 60, ".mpsfix.yml");
	mpsfix_styles_find_run(&s, NULL, NULL, on_warning, &warnings);
	ck_assert_uint_eq(s.run, 0);
	ck_assert_str_eq(style_of(&s, "x.py", NULL), "line length 60 (.mpsfix.yml)");
	mpsfix_styles_release(&s);
	expect_warnings("");
}
END_TEST

START_TEST(test_styles_git_top)
{
	mpsfix_styles s;

	put("g/pyproject.toml", "[tool.ruff]\nline-length = 99\n"); /* above the work tree: never read */
	put("g/repo/sub/x.py", "");
	put("g/repo/other/setup.cfg", "[flake8]\nmax-line-length = 111\n");
	put("g/repo/other/deep/x.py", "");
	ck_assert_int_eq(tu_sh(tmpdir, "git init -q g/repo"), 0);
	go("g");
	mpsfix_styles_init(&s, 0, NULL);
	ck_assert_str_eq(style_of(&s, "repo/sub/x.py", NULL), "line length 88");
	ck_assert_str_eq(style_of(&s, "repo/other/deep/x.py", NULL), "line length 111 (repo/other/setup.cfg:2)");
	/* outside the work tree, the current folder's */
	ck_assert_str_eq(style_of(&s, "x.py", NULL), "line length 99 (pyproject.toml:2)");
	mpsfix_styles_release(&s);
	/* the run's: from the top of the work tree of the first path, never above it */
	mpsfix_styles_init(&s, 0, NULL);
	mpsfix_styles_find_run(&s, NULL, "repo/sub", on_warning, &warnings);
	ck_assert_uint_eq(s.run, 0);
	ck_assert_str_eq(style_of(&s, "repo/sub/x.py", NULL), "line length 88");
	mpsfix_styles_release(&s);
	/* in the work tree the search goes up to its top, whatever the current folder */
	go("g/repo/other/deep");
	mpsfix_styles_init(&s, 0, NULL);
	ck_assert_str_eq(style_of(&s, "x.py", NULL), "line length 111 (../setup.cfg:2)");
	mpsfix_styles_release(&s);
	expect_warnings("");
}
END_TEST

/* --line-length and the configuration's line-length: one for every file, nothing read. */
START_TEST(test_styles_forced)
{
	mpsfix_styles s;
	uint32_t n = 0;

	put("proj/ruff.toml", "line-length = 0\n");
	mpsfix_styles_init(&s, 77, "--line-length");
	ck_assert(s.forced);
	ck_assert_uint_eq(mpsfix_styles_of_file(&s, "proj/x.py", NULL, on_warning, &warnings), 0);
	ck_assert_uint_eq(mpsfix_styles_of_folder(&s, "proj", on_warning, &warnings), 0);
	ck_assert_uint_eq(s.len, 1);
	ck_assert_uint_eq(s.items[0].line_length, 77);
	ck_assert_str_eq(s.items[0].summary, "line length 77 (--line-length)");
	mpsfix_styles_release(&s);
	expect_warnings("");
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "100", "'--line-length'"), 0);
	ck_assert_uint_eq(n, 100);
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "320", "'--line-length'"), 0);
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "1", "'--line-length'"), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "321", "'--line-length'"), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "invalid value '321' for '--line-length' (give a number "
						       "of columns from 1 to 320)");
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "0", "x"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "", "x"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "1e2", "x"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, " 100", "x"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_style_parse_line_length(&n, "99999999999999999999", "x"), MPSFIX_ERROR);
	ck_assert_uint_eq(n, 1);
}
END_TEST

Suite *mpsfix_suite_style(void)
{
	Suite *s = suite_create("style");
	TCase *tc = tcase_create("style");

	tcase_add_test(tc, test_ini_read);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_style_each_file);
	tcase_add_test(tc, test_style_order_in_folder);
	tcase_add_test(tc, test_style_bad_values);
	tcase_add_test(tc, test_styles_nearest);
	tcase_add_test(tc, test_styles_git_top);
	tcase_add_test(tc, test_styles_forced);
	suite_add_tcase(s, tc);
	return s;
}
