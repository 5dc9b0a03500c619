/*
 * report_text.c: the text formats: concise (one line per finding) and full
 * (ruff-like: the line, the source lines with a gutter and carets, a help
 * line), with ANSI colors when asked.
 */
#include "report_internal.h"

#include <string.h>

#include "text.h"

#define TAB_WIDTH 4          /* full: a tab shows as this many spaces */
#define SNIPPET_LINES 4      /* full: longer findings show 2 lines, "...", the last */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_YELLOW "\033[1;33m"
#define C_BLUE "\033[1;34m"
#define C_GREEN "\033[1;32m"

static void put(const mpsfix_reporter *r, const char *color, const char *s)
{
	if (r->opts.color && color)
		fprintf(r->out, "%s%s%s", color, s, C_RESET);
	else
		fputs(s, r->out);
}

static const char *severity_color(mpsfix_severity s)
{
	switch (s) {
	case MPSFIX_SEV_ERROR:
		return C_RED;
	case MPSFIX_SEV_WARNING:
		return C_YELLOW;
	case MPSFIX_SEV_INFO:
		return C_BLUE;
	}
	return NULL;
}

/* A file's name as a terminal may show it (text.h): no control characters. */
static void put_path(const mpsfix_reporter *r, const char *path)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;

	mpsfix_text_visible(&b, path, strlen(path), NULL);
	put(r, C_BOLD, b.data ? b.data : "");
	mpsfix_buf_release(&b);
}

/* path:line:col: CODE [*] message, with the manual fix's reason when `reason`. */
void mpsfix_report__text_line(const mpsfix_reporter *r, const char *path,
			      const mpsfix_report_item *it, bool reason)
{
	put_path(r, path);
	if (it->cell)
		fprintf(r->out, ":cell %u:%u:%u: ", it->cell, it->cell_line, it->col);
	else
		fprintf(r->out, ":%u:%u: ", it->line, it->col);
	put(r, severity_color(it->severity), it->code);
	if (it->fix == MPSFIX_FIX_AVAILABLE) {
		fputc(' ', r->out);
		put(r, C_GREEN, "[*]");
	} else if (it->fix == MPSFIX_FIX_UNSAFE) {
		fputc(' ', r->out);
		put(r, C_GREEN, "[~]");
	}
	fprintf(r->out, " %s", it->message);
	if (reason && it->fix == MPSFIX_FIX_MANUAL)
		fprintf(r->out, " (needs a manual fix: %s)", it->reason);
	else if (reason && it->fix == MPSFIX_FIX_UNSAFE && *it->reason)
		fprintf(r->out, " (unsafe fix: %s)", it->reason);
	fputc('\n', r->out);
}

static unsigned digits(uint32_t n)
{
	unsigned d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/*
 * Line `s` (`n` bytes) as shown: tabs as TAB_WIDTH spaces.  `*from`/`*to`
 * come in as 1-based character columns [from, to) and go out as display
 * columns (0-based) of the same characters.
 */
static void render_line(mpsfix_buf *out, const char *s, size_t n, uint32_t *from, uint32_t *to)
{
	uint32_t ch = 1, width = 0, dfrom = 0, dto = 0;
	size_t i = 0;
	bool got_from = false, got_to = false;

	while (i < n) {
		uint32_t cp = (unsigned char)s[i];
		size_t len = mpsfix_text_utf8_char((const unsigned char *)s + i, n - i, &cp);

		if (ch == *from)
			dfrom = width, got_from = true;
		if (ch == *to)
			dto = width, got_to = true;
		if (!len)
			len = 1, cp = 0xfffd;
		if (cp == '\t') {
			for (int k = 0; k < TAB_WIDTH; k++)
				mpsfix_buf_addc(out, ' ');
			width += TAB_WIDTH;
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
			size_t at = out->len; /* a control character, shown as \xNN (text.h) */

			mpsfix_text_visible(out, s + i, len, NULL);
			width += (uint32_t)(out->len - at);
		} else {
			mpsfix_buf_add(out, s + i, len);
			width += mpsfix_text_char_width(cp);
		}
		i += len;
		ch++;
	}
	if (!got_from)
		dfrom = width;
	if (!got_to)
		dto = width;
	*from = dfrom;
	*to = dto > dfrom ? dto : dfrom + 1; /* at least one caret */
}

/* The first non-blank character's column (1-based) of line `s`, or 1. */
static uint32_t indent_col(const char *s, size_t n)
{
	uint32_t col = 1;

	for (size_t i = 0; i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'); i++)
		col++;
	return col < n + 1 ? col : 1;
}

static void write_source_line(const mpsfix_reporter *r, const mpsfix_source *src,
			      const mpsfix_report_item *it, uint32_t line, uint32_t last, unsigned width)
{
	mpsfix_span sp = mpsfix_source_line(src, line);
	const char *s = src->data + sp.start;
	size_t n = sp.end - sp.start;
	mpsfix_buf text = MPSFIX_BUF_INIT, caret = MPSFIX_BUF_INIT;
	uint32_t from = line == it->line ? it->col : indent_col(s, n);
	uint32_t to = line == it->end_line ? it->end_col : UINT32_MAX;
	char num[16];

	if (line == it->line && line != last)
		to = UINT32_MAX; /* the first line of several: to its end */
	render_line(&text, s, n, &from, &to);
	/* a notebook's lines are numbered in their cell */
	snprintf(num, sizeof(num), "%*u |", (int)width, it->cell ? line - it->line + it->cell_line : line);
	put(r, C_BLUE, num);
	if (text.len) {
		fputc(' ', r->out);
		fwrite(text.data, 1, text.len, r->out);
	}
	fputc('\n', r->out);
	for (uint32_t k = 0; k < from; k++)
		mpsfix_buf_addc(&caret, ' ');
	for (uint32_t k = from; k < to; k++)
		mpsfix_buf_addc(&caret, '^');
	fprintf(r->out, "%*s", (int)width, "");
	put(r, C_BLUE, " |");
	fputc(' ', r->out);
	put(r, severity_color(it->severity), caret.data);
	fputc('\n', r->out);
	mpsfix_buf_release(&text);
	mpsfix_buf_release(&caret);
}

static void write_help(const mpsfix_reporter *r, unsigned width, const char *fmt, const char *arg)
{
	fprintf(r->out, "%*s ", (int)width, "");
	put(r, C_BOLD, "= help:");
	fputc(' ', r->out);
	fprintf(r->out, fmt, arg);
	fputc('\n', r->out);
}

void mpsfix_report__text_full(mpsfix_reporter *r, const char *path, const mpsfix_source *src,
			      const mpsfix_report_item *it)
{
	uint32_t first = it->line, last = it->end_line;
	unsigned width;

	/* a finding that ends with its line's newline ends on that line */
	if (last > first && it->end_col == 1)
		last--;
	if (last < first)
		last = first;
	width = digits(it->cell ? last - it->line + it->cell_line : last);
	if (r->any)
		fputc('\n', r->out);
	r->any = true;
	mpsfix_report__text_line(r, path, it, false);
	fprintf(r->out, "%*s", (int)width, "");
	put(r, C_BLUE, " |");
	fputc('\n', r->out);
	for (uint32_t line = first; line <= last; line++) {
		if (last - first + 1 > SNIPPET_LINES && line == first + 2) {
			fprintf(r->out, "%*s", (int)width, "");
			put(r, C_BLUE, " ...");
			fputc('\n', r->out);
			line = last;
		}
		write_source_line(r, src, it, line, last, width);
	}
	fprintf(r->out, "%*s", (int)width, "");
	put(r, C_BLUE, " |");
	fputc('\n', r->out);
	if (!it->rule)
		write_help(r, width, "%s", "remove the comment, or the codes it names that hide nothing");
	else if (it->fix == MPSFIX_FIX_AVAILABLE)
		write_help(r, width, "%s", "safe fix available (mpsfix fix)");
	else if (it->fix == MPSFIX_FIX_UNSAFE && *it->reason)
		write_help(r, width, "unsafe fix available (mpsfix fix --unsafe-fixes): %s", it->reason);
	else if (it->fix == MPSFIX_FIX_UNSAFE)
		write_help(r, width, "%s", "unsafe fix available (mpsfix fix --unsafe-fixes)");
	else if (it->fix == MPSFIX_FIX_MANUAL)
		write_help(r, width, "needs a manual fix: %s", it->reason);
}
