/*
 * fuzz_notebook.c: bytes of a Jupyter notebook in, read as the Python of its
 * cells and written back (files/notebook.c).  Then:
 * - reading either works or is refused with MPSFIX_ESKIP and a message
 *   naming the file;
 * - the text holds the Python cells in order, each after its cell line, and
 *   every line of it maps to a cell and to a line of the file;
 * - writing the text back unchanged gives the very bytes read;
 * - a changed text (a line put at the top of each Python cell, then every
 *   shipped rule's fixes, as `fix --unsafe-fixes` makes them) is written
 *   or refused with MPSFIX_ESKIP; when written, it reads back as that text,
 *   is byte for byte the same outside the Python cells' `source` values
 *   (and the same JSON there, where jansson reads it).
 * - json_scan.c's verdict (is it JSON?) is jansson's, where jansson's
 *   own limits do not decide (nesting depth, integer and real range,
 *   \uD800 escapes without their pair, which Python's json reads, \u0000
 *   in a key) and
 *   where the text has no NUL byte (jansson takes one after a number);
 * The rules come from $MPSFIX_RULES_DIR, else the source tree's rules/.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fuzz.h"
#include "json_scan.h"
#include "notebook.h"
#include "rule.h"
#include "source.h"

#define PATH "fuzz.ipynb"

static mpsfix_ctx ctx;
static mpsfix_ruleset rules;
static mpsfix_index *ix;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ix = fuzz_load_rules(&ctx, &rules);
	return 0;
}

/* The cells of the JSON `data` without their `source` (a new reference), or NULL. */
static json_t *without_sources(const char *data, size_t len)
{
	json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL), *cell;
	size_t i;

	if (!root)
		return NULL;
	json_array_foreach(json_object_get(root, "cells"), i, cell)
		json_object_del(cell, "source");
	return root;
}

/* The text and its cell map agree: each Python cell after its cell line, every line mapped. */
static void check_map(const mpsfix_notebook *nb, const mpsfix_source *src, const char *data, size_t len)
{
	uint32_t file_lines = 1, cell, cell_line, file_line, last_cell = 0;

	for (size_t i = 0; i < len; i++)
		file_lines += data[i] == '\n';
	for (size_t k = 0; k < nb->nmap; k++) {
		const mpsfix_source_cell *c = &nb->map[k];
		char mark[32];
		int n = snprintf(mark, sizeof(mark), "#%c%u\n", MPSFIX_NB_MARK, c->number);

		if (c->line < 1 || c->line > src->nlines)
			fuzz_fail("cell %u starts on line %u of a %u-line text", c->number, c->line, src->nlines);
		if (k > 0 && (c->line < 2 || memcmp(src->data + src->lines[c->line - 2], mark, (size_t)n)))
			fuzz_fail("cell %u: its cell line is not above its first line", c->number);
		if (k > 0 && c->number <= nb->map[k - 1].number)
			fuzz_fail("cell %u after cell %u", c->number, nb->map[k - 1].number);
	}
	for (uint32_t line = 1; line <= src->nlines; line++) {
		if (!nb->nmap) {
			if (mpsfix_source_cell_of(src, line, &cell, &cell_line, &file_line))
				fuzz_fail("line %u maps to a cell of a notebook without Python cells", line);
			continue;
		}
		if (!mpsfix_source_cell_of(src, line, &cell, &cell_line, &file_line))
			fuzz_fail("line %u of the text maps to no cell", line);
		if (cell < last_cell || cell_line < 1 || file_line < 1 || file_line > file_lines)
			fuzz_fail("line %u maps to cell %u line %u, file line %u", line, cell, cell_line,
				  file_line);
		last_cell = cell;
	}
}

/* `text` with "y = 0\n" at the top of each Python cell (after its cell line). */
static char *edited(const char *text, size_t len, size_t *out_len)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	const char *p = text, *end = text + len;

	mpsfix_buf_adds(&b, "y = 0\n");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl + 1 : end;

		mpsfix_buf_add(&b, p, (size_t)(e - p));
		if (p[0] == '#' && e - p > 1 && p[1] == MPSFIX_NB_MARK && p[2] >= '0' && p[2] <= '9')
			mpsfix_buf_adds(&b, "y = 0\n");
		p = e;
	}
	*out_len = b.len;
	return mpsfix_buf_detach(&b, NULL);
}

/* Write `fixed` (a changed text of nb's) into the notebook; check what comes out. */
static void check_render(const mpsfix_notebook *nb, const char *data, size_t len, const char *fixed,
			 size_t fixed_len)
{
	mpsfix_buf out = MPSFIX_BUF_INIT;
	mpsfix_notebook back;
	int error = mpsfix_notebook_render(&out, &back, nb, PATH, data, len, fixed, fixed_len);
	json_t *a, *b;

	if (error == MPSFIX_ESKIP) {
		if (!strstr(mpsfix_error_last()->message, PATH))
			fuzz_fail("a refusal that does not name the file: %s", mpsfix_error_last()->message);
		mpsfix_buf_release(&out);
		return;
	}
	if (error < 0)
		fuzz_fail("render failed: %s", mpsfix_error_last()->message);
	if (back.text_len != fixed_len || memcmp(back.text, fixed, fixed_len))
		fuzz_fail("the notebook written does not read back as the fixed text");
	/* byte for byte outside the sources: the stretches between them, as the
	 * notebook written back read them */
	if (back.ncells != nb->ncells)
		fuzz_fail("the notebook written has %zu cells, the one read %zu", back.ncells, nb->ncells);
	for (size_t i = 0; i <= nb->ncells; i++) {
		size_t from = i ? nb->cells[i - 1].end : 0, to = i < nb->ncells ? nb->cells[i].start : len;
		size_t bfrom = i ? back.cells[i - 1].end : 0;
		size_t bto = i < nb->ncells ? back.cells[i].start : out.len;

		if (to - from != bto - bfrom || memcmp(data + from, out.data + bfrom, to - from))
			fuzz_fail("bytes between cell %zu's source and the next changed", i);
		if (i < nb->ncells && !nb->cells[i].python &&
		    (nb->cells[i].end - nb->cells[i].start != back.cells[i].end - back.cells[i].start ||
		     memcmp(data + nb->cells[i].start, out.data + back.cells[i].start,
			    nb->cells[i].end - nb->cells[i].start)))
			fuzz_fail("cell %u is not Python, and its source changed", nb->cells[i].number);
	}
	/* and the same JSON, where jansson reads it (it refuses integers past 64 bits) */
	a = without_sources(data, len);
	b = without_sources(out.data, out.len);
	if (a && (!b || !json_equal(a, b)))
		fuzz_fail("the notebook written differs from the one read outside the cells' sources");
	json_decref(a);
	json_decref(b);
	mpsfix_notebook_release(&back);
	mpsfix_buf_release(&out);
}

/* json_scan.c and jansson agree on what is JSON. */
static void check_valid(const char *data, size_t size)
{
	json_error_t jerr;
	json_t *j = json_loadb(data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	size_t at;
	const char *why;
	bool ours = mpsfix_json_valid(data, size, &at, &why);

	if (j) {
		json_decref(j);
		if (!ours && !memchr(data, '\0', size))
			fuzz_fail("jansson reads JSON that json_scan refuses at %zu: %s expected", at, why);
	} else if (ours && !strstr(jerr.text, "depth") && !strstr(jerr.text, "too big") &&
		   !strstr(jerr.text, "overflow") && !strstr(jerr.text, "nicode") &&
		   !strstr(jerr.text, "surrogate") && !strstr(jerr.text, "NUL byte")) {
		fuzz_fail("json_scan accepts what jansson refuses: %s", jerr.text);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
	const char *data = (const char *)bytes;
	mpsfix_notebook nb;
	mpsfix_source src;
	mpsfix_buf same = MPSFIX_BUF_INIT;
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts opts = {.fix = true, .unsafe_fixes = true, .suppress = true};
	char *changed;
	size_t changed_len;
	int error;

	check_valid(data, size);
	error = mpsfix_notebook_source(&src, &nb, PATH, data, size);
	if (error == MPSFIX_ESKIP) {
		if (!strstr(mpsfix_error_last()->message, PATH))
			fuzz_fail("a refusal that does not name the file: %s", mpsfix_error_last()->message);
		return 0;
	}
	if (error < 0)
		fuzz_fail("reading failed: %s", mpsfix_error_last()->message);
	check_map(&nb, &src, data, size);

	/* unchanged: the very bytes */
	if (mpsfix_notebook_render(&same, NULL, &nb, PATH, data, size, nb.text, nb.text_len) < 0)
		fuzz_fail("the unchanged text is not written back: %s", mpsfix_error_last()->message);
	if (same.len != size || (size && memcmp(same.data, data, size)))
		fuzz_fail("the unchanged text is written back as other bytes");
	mpsfix_buf_release(&same);

	if (nb.nmap) {
		changed = edited(nb.text, nb.text_len, &changed_len);
		check_render(&nb, data, size, changed, changed_len);
		free(changed);
	}
	error = mpsfix_engine_run(&res, &ctx, ix, &src, &opts);
	if (error < 0 && error != MPSFIX_ESKIP)
		fuzz_fail("the engine failed: %s", mpsfix_error_last()->message);
	if (error == 0 && res.changed)
		check_render(&nb, data, size, res.text, res.text_len);
	mpsfix_result_release(&res);
	mpsfix_source_release(&src);
	mpsfix_notebook_release(&nb);
	return 0;
}
