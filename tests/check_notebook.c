/* check_notebook.c: a notebook read as Python text, masks, cell map, writing back byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "notebook.h"
#include "tests.h"

/* nbformat's layout: indent 1, source as a list of lines */
#define NB_HEAD "{\n \"cells\": [\n"
#define NB_TAIL " ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n"
#define CODE_CELL(src) \
	"  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"metadata\": {},\n" \
	"   \"outputs\": [{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"ok\\n\"]}],\n" \
	"   \"source\": " src "\n  }"

static const char notebook[] =
	NB_HEAD
	"  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": [\"# torch?\\n\", \"%% not code\"]\n  },\n"
	CODE_CELL("[\n    \"!pip install torch\\n\",\n    \"import torch\\n\",\n    \"%matplotlib inline\"\n   ]") ",\n"
	CODE_CELL("[\n    \"%%bash\\n\",\n    \"echo hi\"\n   ]") ",\n"
	CODE_CELL("[\n    \"files = !ls\\n\",\n    \"s, m = torch.std_mean(x)  # caf\xc3\xa9\\n\",\n    \"x?\"\n   ]") "\n"
	NB_TAIL;

START_TEST(test_notebook_text_and_map)
{
	mpsfix_notebook nb;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	uint32_t cell, cell_line, file_line;

	ck_assert_int_eq(mpsfix_notebook_source(&src, &nb, "a.ipynb", notebook, strlen(notebook)), 0);
	ck_assert_uint_eq(nb.ncells, 4);
	ck_assert(!nb.cells[0].python && nb.cells[1].python && !nb.cells[2].python && nb.cells[3].python);
	ck_assert_str_eq(nb.text,
			 "pass  #\x1fm0\nimport torch\npass  #\x1fm1\n"
			 "#\x1f" "4\nfiles = 0  #\x1fm2\ns, m = torch.std_mean(x)  # caf\xc3\xa9\npass  #\x1fm3\n");
	ck_assert_str_eq(nb.masks[0], "!pip install torch");
	ck_assert_str_eq(nb.masks[4], "files = !ls");
	ck_assert_str_eq(nb.masks[6], "x?");
	ck_assert_str_eq(src.data, nb.text);
	ck_assert(mpsfix_source_cell_of(&src, 6, &cell, &cell_line, &file_line));
	ck_assert_uint_eq(cell, 4);
	ck_assert_uint_eq(cell_line, 2);
	/* the line of "s, m = ..." in the file */
	{
		const char *at = strstr(notebook, "s, m =");
		uint32_t want = 1;

		for (const char *p = notebook; p < at; p++)
			want += *p == '\n';
		ck_assert_uint_eq(file_line, want);
	}
	mpsfix_source_release(&src);
	mpsfix_notebook_release(&nb);
}
END_TEST

/* render `fixed` into a copy of `data`; returns the error, the bytes in *out */
static int render(const char *data, const char *(*edit)(const char *), mpsfix_buf *out)
{
	mpsfix_notebook nb;
	int error;

	ck_assert_int_eq(mpsfix_notebook_read(&nb, "a.ipynb", data, strlen(data)), 0);
	{
		const char *fixed = edit(nb.text);

		error = mpsfix_notebook_render(out, NULL, &nb, "a.ipynb", data, strlen(data), fixed,
					       strlen(fixed));
		free((void *)fixed);
	}
	mpsfix_notebook_release(&nb);
	return error;
}

static char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	mpsfix_buf b = MPSFIX_BUF_INIT;

	ck_assert_ptr_nonnull(at);
	mpsfix_buf_add(&b, s, (size_t)(at - s));
	mpsfix_buf_adds(&b, to);
	mpsfix_buf_adds(&b, at + strlen(from));
	return mpsfix_buf_detach(&b, NULL);
}

static const char *same(const char *t) { return mpsfix_xstrdup(t); }
static const char *split_std_mean(const char *t)
{
	return replace(t, "torch.std_mean(x)", "torch.std(x), torch.mean(x)\n\"q\"");
}
static const char *touch_mask(const char *t) { return replace(t, "files = 0", "files = 1"); }
static const char *drop_cell_line(const char *t) { return replace(t, "#\x1f" "4\n", ""); }

START_TEST(test_notebook_render)
{
	mpsfix_buf out = MPSFIX_BUF_INIT;
	char *want;

	/* nothing changed: the same bytes */
	ck_assert_int_eq(render(notebook, same, &out), 0);
	ck_assert_str_eq(out.data, notebook);
	mpsfix_buf_clear(&out);

	/* only the changed cell's source, in nbformat's layout, masks given back */
	ck_assert_int_eq(render(notebook, split_std_mean, &out), 0);
	want = replace(notebook, "    \"s, m = torch.std_mean(x)  # caf\xc3\xa9\\n\",\n",
		       "    \"s, m = torch.std(x), torch.mean(x)\\n\",\n    \"\\\"q\\\"  # caf\xc3\xa9\\n\",\n");
	ck_assert_str_eq(out.data, want);
	free(want);
	mpsfix_buf_clear(&out);

	/* a fix that touched a masked line, or lost a cell line: refused */
	ck_assert_int_eq(render(notebook, touch_mask, &out), MPSFIX_ESKIP);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "a.ipynb: cell 4: not fixed: a fix changed an IPython line"));
	mpsfix_buf_clear(&out);
	ck_assert_int_eq(render(notebook, drop_cell_line, &out), MPSFIX_ESKIP);
	mpsfix_buf_release(&out);
}
END_TEST

static const char *edit_one_string(const char *t) { return replace(t, "y = 1", "y = \"\xc3\xa9\\t\""); }

/* one string, escaped non-ASCII (ensure_ascii), an unusual layout */
START_TEST(test_notebook_forms)
{
	const char *one = "{\"nbformat\": 4, \"nbformat_minor\": 2, \"metadata\": {}, \"cells\": [{\"cell_type\": "
			  "\"code\", \"source\": \"x = '\\u00e9'\\ny = 1\", \"outputs\": [], \"metadata\": {}}]}";
	const char *compact = "{\"nbformat\": 4, \"nbformat_minor\": 2, \"metadata\": {}, \"cells\": [{\"cell_type\": "
			      "\"code\", \"source\": [\"x = 1\\n\", \"y = 1\"], \"outputs\": [], \"metadata\": {}}]}";
	mpsfix_buf out = MPSFIX_BUF_INIT;
	char *want;

	ck_assert_int_eq(render(one, edit_one_string, &out), 0);
	want = replace(one, "y = 1", "y = \\\"\\u00e9\\\\t\\\"");
	ck_assert_str_eq(out.data, want);
	free(want);
	mpsfix_buf_clear(&out);
	/* a list on one line: not nbformat's layout, so not written */
	ck_assert_int_eq(render(compact, edit_one_string, &out), MPSFIX_ESKIP);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "cell 1: not fixed: its source is not written"));
	mpsfix_buf_release(&out);
}
END_TEST

START_TEST(test_notebook_bad_input)
{
	static const struct {
		const char *data, *message;
	} bad[] = {
		{"{\"cells\": [", "a.ipynb:1:12: skipped: not a notebook: a value expected (the file ends there)"},
		/* every byte is JSON, outputs too, though they are not decoded */
		{"{\"nbformat\": 4, \"cells\": [], \"x\": [01]}", "a.ipynb:1:37: skipped: not a notebook: ',' or ']' expected"},
		{"{\"nbformat\": 4, \"cells\": [], \"x\": [1.]}", "1:38: skipped: not a notebook: a digit expected"},
		{"{\"nbformat\": 4, \"cells\": [], \"x\": \"a\tb\"}", "1:37: skipped: not a notebook: an escaped control character"},
		{"{\"nbformat\": 4, \"cells\": [], \"x\": \"\\x\"}", "1:37: skipped: not a notebook: an escape"},
		{"{\"nbformat\": 4, \"cells\": [], \"x\": \"\\u12g4\"}", "four hexadecimal digits"},
		{"{\"nbformat\": 4, \"cells\": [], \"x\": \"\xff\"}", "1:36: skipped: not a notebook: UTF-8 expected"},
		{"{\"nbformat\": 4, \"cells\": [1,]}", "not a notebook: a value expected"},
		{"{\"nbformat\": 4, \"cells\": []} x", "the end of the text after the value expected"},
		{"{\"nbformat\": 4, \"cells\": [], \"x\": tru}", "not a notebook: a value expected"},
		{"{\"nbformat\": 4\n \"cells\": []}", "a.ipynb:2:2: skipped: not a notebook: ',' or '}' expected"},
		{"[1, 2]", "a.ipynb: skipped: not a notebook (no nbformat)"},
		{"{\"nbformat\": 3, \"worksheets\": []}", "a.ipynb: skipped: nbformat 3 notebook"},
		{"{\"nbformat\": 4, \"cells\": {}}", "a.ipynb: skipped: not a notebook (no cells)"},
		{"{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": 7}]}", "a.ipynb: cell 1: skipped: not a notebook cell"},
		{"{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"a\\u0000b\"}]}", "cell 1: skipped: the code holds a NUL"},
		{"{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"a\\u001fb\"}]}", "holds a U+001F"},
		{"{\"nbformat\": 4, \"cells\": [], \"cells\": []}", "a.ipynb:1:31: skipped: a key given twice"},
		{"{\"nbformat\": 4, \"c\\u0065lls\": [{\"cell_type\": \"code\", \"source\": \"\"}]}",
		 "a.ipynb:1:18: skipped: a key written with an escape"},
		{"{\"nbformat\": 4, \"cells\": [{}, {\"cell_type\": \"code\", \"source\": \"\", \"source\": \"x\"}]}",
		 "a.ipynb:1:68: cell 2: skipped: a key given twice"},
		{"{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": [\"\\ud800\"]}]}",
		 "a.ipynb: cell 1: skipped: not a notebook cell"},
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(bad); i++) {
		mpsfix_notebook nb;

		ck_assert_int_eq(mpsfix_notebook_read(&nb, "a.ipynb", bad[i].data, strlen(bad[i].data)), MPSFIX_ESKIP);
		ck_assert_msg(strstr(mpsfix_error_last()->message, bad[i].message) != NULL, "%zu: %s", i,
			      mpsfix_error_last()->message);
		ck_assert_ptr_null(nb.cells);
	}
}
END_TEST

/* Statements that look like IPython inside brackets or strings stay Python. */
START_TEST(test_notebook_masks_only_statements)
{
	const char *data = "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": "
			   "\"x = (a\\n     % b)\\ns = '''\\n!not shell\\n'''\\nok = x == !y\"}]}";
	mpsfix_notebook nb;

	ck_assert_int_eq(mpsfix_notebook_read(&nb, "a.ipynb", data, strlen(data)), 0);
	ck_assert_str_eq(nb.text, "x = (a\n     % b)\ns = '''\n!not shell\n'''\nok = x == !y\n");
	ck_assert_uint_eq(nb.nmasks, 0);
	mpsfix_notebook_release(&nb);
	ck_assert(mpsfix_is_notebook_path("a/b.ipynb"));
	ck_assert(!mpsfix_is_notebook_path(".ipynb") && !mpsfix_is_notebook_path("a.ipynb.py"));
}
END_TEST

Suite *mpsfix_suite_notebook(void)
{
	Suite *s = suite_create("notebook");
	TCase *tc = tcase_create("notebook");

	tcase_add_test(tc, test_notebook_text_and_map);
	tcase_add_test(tc, test_notebook_render);
	tcase_add_test(tc, test_notebook_forms);
	tcase_add_test(tc, test_notebook_bad_input);
	tcase_add_test(tc, test_notebook_masks_only_statements);
	suite_add_tcase(s, tc);
	return s;
}
