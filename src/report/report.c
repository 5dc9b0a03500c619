/*
 * report.c: the reporters' common part: format names, the reporter, which
 * merges one file's findings and unused suppressions into items in position
 * order and hands each to its format's writer (report_text.c,
 * report_json.c, report_sarif.c, report_github.c; the diff format, the
 * file's unified diff as it comes, is written here), the UTF-8 and JSON
 * string helpers they share, and the `--statistics` table.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

static const char *const format_names[] = {
	[MPSFIX_FORMAT_FULL] = "full",
	[MPSFIX_FORMAT_CONCISE] = "concise",
	[MPSFIX_FORMAT_JSON] = "json",
	[MPSFIX_FORMAT_JSONL] = "jsonl",
	[MPSFIX_FORMAT_SARIF] = "sarif",
	[MPSFIX_FORMAT_GITHUB] = "github",
	[MPSFIX_FORMAT_DIFF] = "diff",
};

int mpsfix_format_parse(mpsfix_format *out, const char *name)
{
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(format_names); i++)
		if (name && !strcmp(name, format_names[i])) {
			*out = (mpsfix_format)i;
			return 0;
		}
	return mpsfix_error_set(MPSFIX_ERROR, "unknown format '%s' (valid: full, concise, json, "
				"jsonl, sarif, github, diff)", name ? name : "");
}

const char *mpsfix_format_name(mpsfix_format f)
{
	if ((size_t)f < MPSFIX_ARRAY_SIZE(format_names))
		return format_names[f];
	return "unknown";
}

/* --- UTF-8 and JSON strings ----------------------------------------------------- */

/* A JSON string of `n` bytes; bytes that are not UTF-8 (a file name) become U+FFFD. */
json_t *mpsfix_report__jstrn(const char *s, size_t n)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if ((j = json_stringn(s, n)) != NULL)
		return j;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = mpsfix_text_utf8_char((const unsigned char *)s + i, n - i, &cp);

		if (len) {
			mpsfix_buf_add(&b, s + i, len);
			i += len;
		} else {
			mpsfix_buf_adds(&b, "\xef\xbf\xbd");
			i++;
		}
	}
	j = json_stringn(b.data ? b.data : "", b.len);
	mpsfix_buf_release(&b);
	return j ? j : json_string("");
}

json_t *mpsfix_report__jstr(const char *s)
{
	return s ? mpsfix_report__jstrn(s, strlen(s)) : json_null();
}

/* --- items -------------------------------------------------------------------- */

static void item_from_finding(mpsfix_report_item *it, const mpsfix_finding *f)
{
	*it = (mpsfix_report_item){
		.rule = f->rule,
		.code = f->rule->code,
		.id = f->rule->id,
		.message = f->rule->message,
		.url = f->rule->url,
		.severity = f->rule->severity,
		.start = f->start,
		.end = f->end,
		.line = f->line,
		.col = f->col,
		.end_line = f->end_line,
		.end_col = f->end_col,
		.fix = f->fix,
		.reason = f->reason ? f->reason : "",
		.edits = f->edits,
		.nedits = f->nedits,
	};
}

/* An unused suppression spans its comment: from its column to the end of the line. */
static void item_from_unused(mpsfix_report_item *it, const mpsfix_unused_suppression *u,
			     const mpsfix_source *src)
{
	mpsfix_span line = mpsfix_source_line(src, u->line);
	uint32_t byte = line.start;

	for (uint32_t c = 1; c < u->col && byte < line.end; c++) {
		byte++;
		while (byte < line.end && ((unsigned char)src->data[byte] & 0xc0) == 0x80)
			byte++;
	}
	*it = (mpsfix_report_item){
		.code = UNUSED_CODE,
		.id = UNUSED_ID,
		.severity = MPSFIX_SEV_WARNING,
		.start = byte,
		.end = line.end,
		.line = u->line,
		.col = u->col,
		.fix = MPSFIX_FIX_NONE,
		.reason = "",
	};
	mpsfix_source_position(src, line.end, &it->end_line, &it->end_col);
	if (u->codes)
		it->owned = mpsfix_xasprintf(UNUSED_MESSAGE " for %s", u->codes);
	else
		it->owned = mpsfix_xstrdup(UNUSED_MESSAGE);
	it->message = it->owned;
}

/* Where `it` is in the file: a notebook's cell and JSON lines. */
static void place(mpsfix_report_item *it, const mpsfix_source *src)
{
	uint32_t cell, end_cell, cell_end;

	it->file_line = it->line;
	it->file_end_line = it->end_line;
	if (src && mpsfix_source_cell_of(src, it->line, &cell, &it->cell_line, &it->file_line) &&
	    mpsfix_source_cell_of(src, it->end_line, &end_cell, &cell_end, &it->file_end_line))
		it->cell = cell;
}

/* The findings and (with show_unused) unused suppressions of `res` in position order. */
static mpsfix_report_item *collect(const mpsfix_reporter *r, const mpsfix_source *src,
				   const mpsfix_result *res, size_t *n)
{
	size_t nunused = r->opts.show_unused && src ? res->nunused : 0;
	mpsfix_report_item *items = mpsfix_xcalloc(res->len + nunused + 1, sizeof(*items));
	size_t i = 0, k = 0, m = 0;

	while (i < res->len || k < nunused) {
		const mpsfix_finding *f = i < res->len ? &res->items[i] : NULL;
		const mpsfix_unused_suppression *u = k < nunused ? &res->unused[k] : NULL;

		if (f && (!u || f->line < u->line || (f->line == u->line && f->col <= u->col))) {
			item_from_finding(&items[m++], f);
			i++;
		} else {
			item_from_unused(&items[m++], u, src);
			k++;
		}
		place(&items[m - 1], src);
	}
	*n = m;
	return items;
}

static void items_free(mpsfix_report_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i].owned);
	free(items);
}

/* --- the reporter ------------------------------------------------------------------------- */

mpsfix_reporter *mpsfix_reporter_new(FILE *out, const mpsfix_report_opts *opts)
{
	mpsfix_reporter *r = mpsfix_xcalloc(1, sizeof(*r));

	r->out = out;
	r->opts = *opts;
	if (opts->format == MPSFIX_FORMAT_JSON)
		r->findings = json_array();
	if (opts->format == MPSFIX_FORMAT_SARIF) {
		r->sarif_rules = json_array();
		r->results = json_array();
		for (size_t i = 0; i < opts->nrules; i++)
			mpsfix_report__sarif_add_rule(r, opts->rules[i]);
		if (opts->show_unused)
			mpsfix_report__sarif_add_rule(r, NULL);
	}
	return r;
}

static int write_error(void)
{
	return mpsfix_error_set(MPSFIX_ERROR, "cannot write the report: %s",
				errno ? strerror(errno) : "write error");
}

int mpsfix_report_file(mpsfix_reporter *r, const char *path, const mpsfix_source *src,
		       const mpsfix_result *res, const char *diff, size_t diff_len)
{
	mpsfix_report_item *items = NULL;
	size_t n = 0;
	int error = 0;

	if (r->opts.format == MPSFIX_FORMAT_DIFF) {
		if (diff && diff_len)
			fwrite(diff, 1, diff_len, r->out);
		goto done;
	}
	if (!src)
		return mpsfix_error_set(MPSFIX_ERROR, "%s: no source to report on", path);
	items = collect(r, src, res, &n);
	for (size_t i = 0; i < n; i++) {
		const mpsfix_report_item *it = &items[i];
		json_t *j;

		switch (r->opts.format) {
		case MPSFIX_FORMAT_FULL:
			mpsfix_report__text_full(r, path, src, it);
			break;
		case MPSFIX_FORMAT_CONCISE:
			mpsfix_report__text_line(r, path, it, true);
			break;
		case MPSFIX_FORMAT_JSON:
			json_array_append_new(r->findings, mpsfix_report__json_finding(path, src, it));
			break;
		case MPSFIX_FORMAT_JSONL:
			j = mpsfix_report__json_finding(path, src, it);
			if (json_dumpf(j, r->out, JSON_COMPACT) < 0)
				error = write_error();
			json_decref(j);
			fputc('\n', r->out);
			break;
		case MPSFIX_FORMAT_SARIF:
			json_array_append_new(r->results, mpsfix_report__sarif_result(r, path, it));
			break;
		case MPSFIX_FORMAT_GITHUB:
			mpsfix_report__github_line(r, path, it);
			break;
		case MPSFIX_FORMAT_DIFF:
			break;
		}
		if (error < 0)
			goto done;
	}
done:
	if (!error && ferror(r->out))
		error = write_error();
	items_free(items, n);
	return error;
}

int mpsfix_report_finish(mpsfix_reporter *r, const mpsfix_report_summary *sum)
{
	json_t *doc = NULL;
	int error = 0;

	if (r->opts.format == MPSFIX_FORMAT_JSON) {
		doc = mpsfix_report__json_document(r, sum);
	} else if (r->opts.format == MPSFIX_FORMAT_SARIF) {
		doc = mpsfix_report__sarif_log(r, sum);
	}
	if (doc) {
		if (json_dumpf(doc, r->out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
			error = write_error();
			goto done;
		}
		fputc('\n', r->out);
	}
	if (fflush(r->out) != 0 || ferror(r->out))
		error = write_error();
done:
	json_decref(doc);
	return error;
}

void mpsfix_reporter_free(mpsfix_reporter *r)
{
	if (!r)
		return;
	json_decref(r->findings);
	json_decref(r->sarif_rules);
	json_decref(r->results);
	free(r->rules.items);
	free(r);
}

/* --- statistics ---------------------------------------------------------------------------- */

typedef struct {
	const mpsfix_rule *rule;
	size_t count, fixable;
} stat_row;

static int compare_rows(const void *a, const void *b)
{
	const stat_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->rule->code, y->rule->code);
}

void mpsfix_report_statistics(FILE *out, mpsfix_rule *const *rules, size_t n,
			      const size_t *counts, const size_t *fixable)
{
	stat_row *rows = mpsfix_xcalloc(n + 1, sizeof(*rows));
	size_t m = 0, len, count_width = 1, code_width = 1;
	char num[32];

	for (size_t i = 0; i < n; i++) {
		if (!counts[i])
			continue;
		rows[m++] = (stat_row){rules[i], counts[i], fixable ? fixable[i] : 0};
		len = (size_t)snprintf(num, sizeof(num), "%zu", counts[i]);
		if (len > count_width)
			count_width = len;
		if (strlen(rules[i]->code) > code_width)
			code_width = strlen(rules[i]->code);
	}
	qsort(rows, m, sizeof(*rows), compare_rows);
	for (size_t i = 0; i < m; i++)
		fprintf(out, "%*zu %-*s %s %s\n", (int)count_width, rows[i].count, (int)code_width,
			rows[i].rule->code, rows[i].fixable ? "[*]" : "   ", rows[i].rule->id);
	free(rows);
}
