/*
 * report.c: the reporters (text, json, jsonl, sarif, github, diff) and the
 * `--statistics` table.  Findings and unused suppressions of one file are
 * merged into one list of items in position order; each format writes items.
 * JSON and SARIF documents are built with jansson and written at the end.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* The project's home page for SARIF's informationUri; left out when empty. */
#ifndef MPSFIX_HOMEPAGE
#define MPSFIX_HOMEPAGE ""
#endif

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SARIF_VERSION "2.1.0"

#define TAB_WIDTH 4          /* full: a tab shows as this many spaces */
#define SNIPPET_LINES 4      /* full: longer findings show 2 lines, "...", the last */

#define UNUSED_CODE "MPS000"
#define UNUSED_ID "unused-suppression"
#define UNUSED_MESSAGE "unused suppression comment"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_YELLOW "\033[1;33m"
#define C_BLUE "\033[1;34m"
#define C_GREEN "\033[1;32m"

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

struct mpsfix_reporter {
	FILE *out;
	mpsfix_report_opts opts;
	bool any;                        /* full: a finding was written */
	json_t *findings;                /* json: the finding objects */
	json_t *sarif_rules;             /* sarif: tool.driver.rules */
	json_t *results;                 /* sarif: runs[0].results */
	ARRAY(const mpsfix_rule *) rules; /* sarif: the rule of each driver rule, NULL for MPS000 */
};

/* One thing to report: a finding or an unused suppression. */
typedef struct {
	const mpsfix_rule *rule;         /* NULL for an unused suppression */
	const char *code, *id, *message, *url;
	mpsfix_severity severity;
	uint32_t start, end;             /* bytes */
	uint32_t line, col, end_line, end_col;
	mpsfix_fix_status fix;
	const char *reason;              /* MANUAL */
	const mpsfix_edit *edits;        /* AVAILABLE, UNSAFE */
	size_t nedits;
	char *owned;                     /* the message, when built here */
} item;

/* --- UTF-8 ------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at `s` (at most `n` bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Terminal columns of code point `c` (tabs are handled by the caller). */
static unsigned char_width(uint32_t c)
{
	if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || c == 0xfeff)
		return 0; /* combining marks, zero-width spaces */
	if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) ||
	    (c >= 0x3041 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
	    (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) ||
	    (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) ||
	    (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) ||
	    (c >= 0x20000 && c <= 0x3fffd))
		return 2; /* East Asian wide, emoji */
	return 1;
}

/* A JSON string of `n` bytes; bytes that are not UTF-8 (a file name) become U+FFFD. */
static json_t *jstrn(const char *s, size_t n)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if ((j = json_stringn(s, n)) != NULL)
		return j;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_len((const unsigned char *)s + i, n - i, &cp);

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

static json_t *jstr(const char *s)
{
	return s ? jstrn(s, strlen(s)) : json_null();
}

/* --- items -------------------------------------------------------------------- */

static void item_from_finding(item *it, const mpsfix_finding *f)
{
	*it = (item){
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
static void item_from_unused(item *it, const mpsfix_unused_suppression *u, const mpsfix_source *src)
{
	mpsfix_span line = mpsfix_source_line(src, u->line);
	uint32_t byte = line.start;

	for (uint32_t c = 1; c < u->col && byte < line.end; c++) {
		byte++;
		while (byte < line.end && ((unsigned char)src->data[byte] & 0xc0) == 0x80)
			byte++;
	}
	*it = (item){
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

/* The findings and (with show_unused) unused suppressions of `res` in position order. */
static item *collect(const mpsfix_reporter *r, const mpsfix_source *src,
		     const mpsfix_result *res, size_t *n)
{
	size_t nunused = r->opts.show_unused && src ? res->nunused : 0;
	item *items = mpsfix_xcalloc(res->len + nunused + 1, sizeof(*items));
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
	}
	*n = m;
	return items;
}

static void items_free(item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i].owned);
	free(items);
}

/* --- text: concise and full --------------------------------------------------- */

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

/* path:line:col: CODE [*] message, with the manual fix's reason when `reason`. */
static void write_line(const mpsfix_reporter *r, const char *path, const item *it, bool reason)
{
	put(r, C_BOLD, path);
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
		size_t len = utf8_len((const unsigned char *)s + i, n - i, &cp);

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
		} else {
			mpsfix_buf_add(out, s + i, len);
			width += char_width(cp);
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

static void write_source_line(const mpsfix_reporter *r, const mpsfix_source *src, const item *it,
			      uint32_t line, uint32_t last, unsigned width)
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
	snprintf(num, sizeof(num), "%*u |", (int)width, line);
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

static void write_full(mpsfix_reporter *r, const char *path, const mpsfix_source *src, const item *it)
{
	uint32_t first = it->line, last = it->end_line;
	unsigned width;

	/* a finding that ends with its line's newline ends on that line */
	if (last > first && it->end_col == 1)
		last--;
	if (last < first)
		last = first;
	width = digits(last);
	if (r->any)
		fputc('\n', r->out);
	r->any = true;
	write_line(r, path, it, false);
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
	else if (it->fix == MPSFIX_FIX_UNSAFE)
		write_help(r, width, "%s", "unsafe fix available (mpsfix fix --unsafe-fixes)");
	else if (it->fix == MPSFIX_FIX_MANUAL)
		write_help(r, width, "needs a manual fix: %s", it->reason);
}

/* --- json and jsonl --------------------------------------------------------------- */

static json_t *json_position(uint32_t line, uint32_t col, uint32_t byte)
{
	json_t *o = json_object();

	json_object_set_new(o, "line", json_integer(line));
	json_object_set_new(o, "column", json_integer(col));
	json_object_set_new(o, "byte", json_integer(byte));
	return o;
}

static json_t *json_edit_position(const mpsfix_source *src, uint32_t byte)
{
	uint32_t line, col;

	mpsfix_source_position(src, byte, &line, &col);
	return json_position(line, col, byte);
}

static const char *applicability(mpsfix_fix_status s)
{
	switch (s) {
	case MPSFIX_FIX_AVAILABLE:
		return "safe";
	case MPSFIX_FIX_UNSAFE:
		return "unsafe";
	case MPSFIX_FIX_MANUAL:
		return "manual";
	case MPSFIX_FIX_NONE:
		break;
	}
	return NULL;
}

static json_t *json_finding(const char *path, const mpsfix_source *src, const item *it)
{
	json_t *o = json_object(), *fix = json_null();

	json_object_set_new(o, "code", jstr(it->code));
	json_object_set_new(o, "rule", jstr(it->id));
	json_object_set_new(o, "severity", jstr(mpsfix_severity_name(it->severity)));
	json_object_set_new(o, "message", jstr(it->message));
	json_object_set_new(o, "path", jstr(path));
	json_object_set_new(o, "start", json_position(it->line, it->col, it->start));
	json_object_set_new(o, "end", json_position(it->end_line, it->end_col, it->end));
	json_object_set_new(o, "url", jstr(it->url));
	if (it->fix != MPSFIX_FIX_NONE) {
		fix = json_object();
		json_object_set_new(fix, "applicability", jstr(applicability(it->fix)));
		if (it->fix == MPSFIX_FIX_MANUAL) {
			json_object_set_new(fix, "reason", jstr(it->reason));
		} else {
			json_t *edits = json_array();

			for (size_t i = 0; i < it->nedits; i++) {
				const mpsfix_edit *e = &it->edits[i];
				json_t *je = json_object();

				json_object_set_new(je, "start", json_edit_position(src, e->start));
				json_object_set_new(je, "end", json_edit_position(src, e->end));
				json_object_set_new(je, "content", jstrn(e->text ? e->text : "", e->len));
				json_array_append_new(edits, je);
			}
			json_object_set_new(fix, "edits", edits);
		}
	}
	json_object_set_new(o, "fix", fix);
	return o;
}

static json_t *json_summary(const mpsfix_report_summary *sum)
{
	json_t *o = json_object();

	json_object_set_new(o, "command", jstr(sum->command));
	json_object_set_new(o, "target", jstr(sum->target));
	json_object_set_new(o, "files", json_integer((json_int_t)sum->files));
	json_object_set_new(o, "skipped", json_integer((json_int_t)sum->skipped));
	json_object_set_new(o, "findings", json_integer((json_int_t)sum->findings));
	json_object_set_new(o, "fixable", json_integer((json_int_t)sum->fixable));
	json_object_set_new(o, "unsafe_fixable", json_integer((json_int_t)sum->unsafe_fixable));
	json_object_set_new(o, "manual", json_integer((json_int_t)sum->manual));
	json_object_set_new(o, "fixed", json_integer((json_int_t)sum->fixed));
	json_object_set_new(o, "errors", json_integer((json_int_t)sum->errors));
	return o;
}

/* --- sarif ------------------------------------------------------------------------ */

static const char *sarif_level(mpsfix_severity s)
{
	switch (s) {
	case MPSFIX_SEV_ERROR:
		return "error";
	case MPSFIX_SEV_WARNING:
		return "warning";
	case MPSFIX_SEV_INFO:
		return "note";
	}
	return "warning";
}

static json_t *sarif_text(const char *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "text", jstr(s));
	return o;
}

static json_t *sarif_rule(const char *code, const char *id, const char *message, const char *note,
			  const char *url, mpsfix_severity severity)
{
	json_t *o = json_object(), *conf = json_object();

	json_object_set_new(o, "id", jstr(code));
	json_object_set_new(o, "name", jstr(id));
	json_object_set_new(o, "shortDescription", sarif_text(message));
	if (note && *note)
		json_object_set_new(o, "fullDescription", sarif_text(note));
	if (url && *url)
		json_object_set_new(o, "helpUri", jstr(url));
	json_object_set_new(conf, "level", jstr(sarif_level(severity)));
	json_object_set_new(o, "defaultConfiguration", conf);
	return o;
}

static size_t sarif_add_rule(mpsfix_reporter *r, const mpsfix_rule *rule)
{
	json_t *o;

	if (rule)
		o = sarif_rule(rule->code, rule->id, rule->message, rule->note, rule->url, rule->severity);
	else
		o = sarif_rule(UNUSED_CODE, UNUSED_ID, UNUSED_MESSAGE,
			       "A `# noqa` or `# mpsfix: ignore` comment (or a code it names) "
			       "that suppressed no finding.", NULL, MPSFIX_SEV_WARNING);
	json_array_append_new(r->sarif_rules, o);
	ARRAY_PUSH(&r->rules, rule);
	return r->rules.len - 1;
}

/* The driver rule index of `rule` (NULL: MPS000); a rule not loaded is added. */
static size_t sarif_rule_index(mpsfix_reporter *r, const mpsfix_rule *rule)
{
	for (size_t i = 0; i < r->rules.len; i++)
		if (r->rules.items[i] == rule)
			return i;
	for (size_t i = 0; rule && i < r->rules.len; i++)
		if (r->rules.items[i] && !strcmp(r->rules.items[i]->code, rule->code))
			return i;
	return sarif_add_rule(r, rule);
}

/* `path` as a URI reference: relative stays relative; each byte but unreserved ones and '/' escaped. */
static json_t *sarif_uri(const char *path)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	json_t *j;

	while (path[0] == '.' && path[1] == '/') {
		path += 2;
		while (*path == '/')
			path++;
	}
	if (path[0] == '/')
		mpsfix_buf_adds(&b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/')
			mpsfix_buf_addc(&b, (char)*p);
		else
			mpsfix_buf_printf(&b, "%%%02X", *p);
	}
	j = jstrn(b.data ? b.data : "", b.len);
	mpsfix_buf_release(&b);
	return j;
}

static json_t *sarif_artifact(const char *path)
{
	json_t *o = json_object();

	json_object_set_new(o, "uri", sarif_uri(path));
	return o;
}

static json_t *sarif_fix(const char *path, const item *it)
{
	json_t *fix = json_object(), *change = json_object(), *repl = json_array();

	json_object_set_new(fix, "description",
			    sarif_text(it->fix == MPSFIX_FIX_UNSAFE ?
				       "unsafe fix (mpsfix fix --unsafe-fixes)" : "safe fix (mpsfix fix)"));
	for (size_t i = 0; i < it->nedits; i++) {
		const mpsfix_edit *e = &it->edits[i];
		json_t *o = json_object(), *del = json_object(), *ins = json_object();

		json_object_set_new(del, "byteOffset", json_integer(e->start));
		json_object_set_new(del, "byteLength", json_integer(e->end - e->start));
		json_object_set_new(ins, "text", jstrn(e->text ? e->text : "", e->len));
		json_object_set_new(o, "deletedRegion", del);
		json_object_set_new(o, "insertedContent", ins);
		json_array_append_new(repl, o);
	}
	json_object_set_new(change, "artifactLocation", sarif_artifact(path));
	json_object_set_new(change, "replacements", repl);
	json_object_set_new(fix, "artifactChanges", json_pack("[o]", change));
	return json_pack("[o]", fix);
}

static json_t *sarif_result(mpsfix_reporter *r, const char *path, const item *it)
{
	json_t *o = json_object(), *region = json_object(), *phys = json_object(), *loc = json_object();
	size_t index = sarif_rule_index(r, it->rule);
	char *text = NULL;

	json_object_set_new(o, "ruleId", jstr(it->code));
	json_object_set_new(o, "ruleIndex", json_integer((json_int_t)index));
	json_object_set_new(o, "level", jstr(sarif_level(it->severity)));
	if (it->fix == MPSFIX_FIX_MANUAL)
		text = mpsfix_xasprintf("%s (needs a manual fix: %s)", it->message, it->reason);
	json_object_set_new(o, "message", sarif_text(text ? text : it->message));
	free(text);
	json_object_set_new(region, "startLine", json_integer(it->line));
	json_object_set_new(region, "startColumn", json_integer(it->col));
	json_object_set_new(region, "endLine", json_integer(it->end_line));
	json_object_set_new(region, "endColumn", json_integer(it->end_col));
	json_object_set_new(region, "byteOffset", json_integer(it->start));
	json_object_set_new(region, "byteLength", json_integer(it->end - it->start));
	json_object_set_new(phys, "artifactLocation", sarif_artifact(path));
	json_object_set_new(phys, "region", region);
	json_object_set_new(loc, "physicalLocation", phys);
	json_object_set_new(o, "locations", json_pack("[o]", loc));
	if ((it->fix == MPSFIX_FIX_AVAILABLE || it->fix == MPSFIX_FIX_UNSAFE) && it->nedits)
		json_object_set_new(o, "fixes", sarif_fix(path, it));
	return o;
}

static json_t *sarif_log(mpsfix_reporter *r, const mpsfix_report_summary *sum)
{
	json_t *log = json_object(), *run = json_object(), *tool = json_object(),
	       *driver = json_object();

	json_object_set_new(driver, "name", json_string("mpsfix"));
	if (r->opts.tool_version)
		json_object_set_new(driver, "version", jstr(r->opts.tool_version));
	if (*MPSFIX_HOMEPAGE)
		json_object_set_new(driver, "informationUri", json_string(MPSFIX_HOMEPAGE));
	json_object_set_new(driver, "rules", json_incref(r->sarif_rules));
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);
	if (sum) {
		json_t *inv = json_object();

		json_object_set_new(inv, "executionSuccessful", json_boolean(sum->errors == 0));
		json_object_set_new(run, "invocations", json_pack("[o]", inv));
	}
	json_object_set_new(run, "columnKind", json_string("unicodeCodePoints"));
	json_object_set_new(run, "results", json_incref(r->results));
	json_object_set_new(log, "$schema", json_string(SARIF_SCHEMA));
	json_object_set_new(log, "version", json_string(SARIF_VERSION));
	json_object_set_new(log, "runs", json_pack("[o]", run));
	return log;
}

/* --- github --------------------------------------------------------------------------- */

/* GitHub workflow command escaping: data escapes % CR LF; properties also : and ,. */
static void github_escape(FILE *out, const char *s, bool property)
{
	for (; *s; s++) {
		switch (*s) {
		case '%':
			fputs("%25", out);
			break;
		case '\r':
			fputs("%0D", out);
			break;
		case '\n':
			fputs("%0A", out);
			break;
		case ':':
			fputs(property ? "%3A" : ":", out);
			break;
		case ',':
			fputs(property ? "%2C" : ",", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static void write_github(const mpsfix_reporter *r, const char *path, const item *it)
{
	static const char *const levels[] = {
		[MPSFIX_SEV_ERROR] = "error",
		[MPSFIX_SEV_WARNING] = "warning",
		[MPSFIX_SEV_INFO] = "notice",
	};
	const char *level = (size_t)it->severity < MPSFIX_ARRAY_SIZE(levels) ? levels[it->severity] : "warning";

	fprintf(r->out, "::%s file=", level);
	github_escape(r->out, path, true);
	fprintf(r->out, ",line=%u,col=%u,endLine=%u,endColumn=%u,title=", it->line, it->col,
		it->end_line, it->end_col);
	github_escape(r->out, it->code, true);
	fputs("::", r->out);
	github_escape(r->out, it->message, false);
	if (it->fix == MPSFIX_FIX_MANUAL) {
		fputs(" (needs a manual fix: ", r->out);
		github_escape(r->out, it->reason, false);
		fputc(')', r->out);
	}
	fputc('\n', r->out);
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
			sarif_add_rule(r, opts->rules[i]);
		if (opts->show_unused)
			sarif_add_rule(r, NULL);
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
	item *items = NULL;
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
		const item *it = &items[i];
		json_t *j;

		switch (r->opts.format) {
		case MPSFIX_FORMAT_FULL:
			write_full(r, path, src, it);
			break;
		case MPSFIX_FORMAT_CONCISE:
			write_line(r, path, it, true);
			break;
		case MPSFIX_FORMAT_JSON:
			json_array_append_new(r->findings, json_finding(path, src, it));
			break;
		case MPSFIX_FORMAT_JSONL:
			j = json_finding(path, src, it);
			if (json_dumpf(j, r->out, JSON_COMPACT) < 0)
				error = write_error();
			json_decref(j);
			fputc('\n', r->out);
			break;
		case MPSFIX_FORMAT_SARIF:
			json_array_append_new(r->results, sarif_result(r, path, it));
			break;
		case MPSFIX_FORMAT_GITHUB:
			write_github(r, path, it);
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
		doc = json_object();
		json_object_set_new(doc, "version", jstr(r->opts.tool_version));
		json_object_set_new(doc, "findings", json_incref(r->findings));
		json_object_set_new(doc, "summary", sum ? json_summary(sum) : json_null());
	} else if (r->opts.format == MPSFIX_FORMAT_SARIF) {
		doc = sarif_log(r, sum);
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
