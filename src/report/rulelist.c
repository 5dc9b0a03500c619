/*
 * rulelist.c: `mpsfix rules` and `mpsfix explain` (see rulelist.h).
 */
#include "rulelist.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prefilter.h"

static const char *fix_name(const mpsfix_rule *r)
{
	if (!r->fix.present)
		return "no";
	return r->fix.unsafe ? "unsafe" : "safe";
}

int mpsfix_rulelist_format_parse(mpsfix_rulelist_format *out, const char *format)
{
	if (!format || !strcmp(format, "full") || !strcmp(format, "concise"))
		*out = MPSFIX_RULELIST_TEXT;
	else if (!strcmp(format, "json"))
		*out = MPSFIX_RULELIST_JSON;
	else if (!strcmp(format, "jsonl"))
		*out = MPSFIX_RULELIST_JSONL;
	else
		return mpsfix_error_set(MPSFIX_ERROR, "--format %s: rules are listed as text (full, "
					"concise), json or jsonl", format);
	return 0;
}

const char *mpsfix_rule_status_reason(const mpsfix_rule *r, const mpsfix_rule_status *s)
{
	if (s->ignored)
		return "ignored";
	if (!s->selected)
		return r->enabled ? "not selected" : "off by default";
	if (!s->in_target)
		return "not for the torch target";
	return NULL;
}

static int write_failed(FILE *f)
{
	if (fflush(f) != 0 || ferror(f))
		return mpsfix_error_set(MPSFIX_ERROR, "cannot write the output: %s", strerror(errno));
	return 0;
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *rule_object(const mpsfix_rule *r, const mpsfix_rule_status *s)
{
	const char *reason = mpsfix_rule_status_reason(r, s);
	char range[MPSFIX_TORCH_RANGE_STRMAX];
	json_t *o = json_object();

	json_object_set_new(o, "code", json_string(r->code));
	json_object_set_new(o, "id", json_string(r->id));
	json_object_set_new(o, "severity", json_string(mpsfix_severity_name(r->severity)));
	json_object_set_new(o, "message", json_string(r->message));
	json_object_set_new(o, "fix", json_string(fix_name(r)));
	json_object_set_new(o, "torch", json_string(r->torch));
	json_object_set_new(o, "affects", json_string(mpsfix_torch_range_format(range, r->range)));
	json_object_set_new(o, "enabled", json_boolean(r->enabled));
	json_object_set_new(o, "selected", json_boolean(s->selected));
	json_object_set_new(o, "in_target", json_boolean(s->in_target));
	json_object_set_new(o, "runs", json_boolean(reason == NULL));
	json_object_set_new(o, "reason", jstr_or_null(reason));
	json_object_set_new(o, "note", jstr_or_null(r->note));
	{
		/* what a file must contain for the rule to be tried (prefilter.h) */
		char *words = mpsfix_prefilter_describe(r);

		json_object_set_new(o, "words", json_string(words));
		free(words);
	}
	json_object_set_new(o, "url", jstr_or_null(r->url));
	json_object_set_new(o, "path", json_string(r->path));
	return o;
}

/* Rule indices sorted by code (then id), for a stable listing. */
typedef struct {
	mpsfix_rule *const *rules;
	size_t i;
} sort_item;

static int by_code(const void *a, const void *b)
{
	const sort_item *x = a, *y = b;
	const mpsfix_rule *rx = x->rules[x->i], *ry = y->rules[y->i];
	int c = strcmp(rx->code, ry->code);

	return c ? c : strcmp(rx->id, ry->id);
}

static void put_padded(FILE *f, const char *s, size_t width, bool last)
{
	if (last)
		fprintf(f, "%s\n", s);
	else
		fprintf(f, "%-*s  ", (int)width, s);
}

int mpsfix_rulelist_print(FILE *f, mpsfix_rule *const *rules, const mpsfix_rule_status *status,
			  size_t n, mpsfix_rulelist_format format)
{
	enum { C_CODE, C_ID, C_SEVERITY, C_FIX, C_AFFECTS, C_DEFAULT, C_RUNS, NCOLS };
	static const char *const head[NCOLS] = {"CODE", "ID", "SEVERITY", "FIX", "AFFECTS", "DEFAULT", "RUNS"};
	sort_item *order = mpsfix_xcalloc(n + 1, sizeof(*order));
	char (*ranges)[MPSFIX_TORCH_RANGE_STRMAX] = mpsfix_xcalloc(n + 1, sizeof(*ranges));
	char **runs = mpsfix_xcalloc(n + 1, sizeof(char *));
	size_t width[NCOLS];
	json_t *array = NULL;
	int error = 0;

	for (size_t i = 0; i < n; i++)
		order[i] = (sort_item){rules, i};
	qsort(order, n, sizeof(*order), by_code);
	if (format != MPSFIX_RULELIST_TEXT) {
		array = json_array();
		for (size_t k = 0; k < n; k++) {
			json_t *o = rule_object(rules[order[k].i], &status[order[k].i]);

			if (format == MPSFIX_RULELIST_JSONL) {
				if (json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF)
					error = mpsfix_error_set(MPSFIX_ERROR, "cannot write the output");
				json_decref(o);
			} else {
				json_array_append_new(array, o);
			}
		}
		if (format == MPSFIX_RULELIST_JSON &&
		    (json_dumpf(array, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF))
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot write the output");
		goto done;
	}
	for (size_t c = 0; c < NCOLS; c++)
		width[c] = strlen(head[c]);
	for (size_t k = 0; k < n; k++) {
		const mpsfix_rule *r = rules[order[k].i];
		const char *reason = mpsfix_rule_status_reason(r, &status[order[k].i]);
		const char *cells[NCOLS];

		mpsfix_torch_range_format(ranges[k], r->range);
		runs[k] = reason ? mpsfix_xasprintf("no (%s)", reason) : mpsfix_xstrdup("yes");
		cells[C_CODE] = r->code;
		cells[C_ID] = r->id;
		cells[C_SEVERITY] = mpsfix_severity_name(r->severity);
		cells[C_FIX] = fix_name(r);
		cells[C_AFFECTS] = ranges[k];
		cells[C_DEFAULT] = r->enabled ? "on" : "off";
		cells[C_RUNS] = runs[k];
		for (size_t c = 0; c < NCOLS; c++)
			if (strlen(cells[c]) > width[c])
				width[c] = strlen(cells[c]);
	}
	for (size_t c = 0; c < NCOLS; c++)
		put_padded(f, head[c], width[c], c + 1 == NCOLS);
	for (size_t k = 0; k < n; k++) {
		const mpsfix_rule *r = rules[order[k].i];

		put_padded(f, r->code, width[C_CODE], false);
		put_padded(f, r->id, width[C_ID], false);
		put_padded(f, mpsfix_severity_name(r->severity), width[C_SEVERITY], false);
		put_padded(f, fix_name(r), width[C_FIX], false);
		put_padded(f, ranges[k], width[C_AFFECTS], false);
		put_padded(f, r->enabled ? "on" : "off", width[C_DEFAULT], false);
		put_padded(f, runs[k], width[C_RUNS], true);
	}
done:
	if (error == 0)
		error = write_failed(f);
	json_decref(array);
	for (size_t k = 0; k < n; k++)
		free(runs[k]);
	free(runs);
	free(ranges);
	free(order);
	return error;
}

int mpsfix_rulelist_explain(FILE *f, const mpsfix_rule *r, const mpsfix_rule_status *status,
			    const char *target, mpsfix_rulelist_format format)
{
	const char *reason = mpsfix_rule_status_reason(r, status);
	char range[MPSFIX_TORCH_RANGE_STRMAX];

	if (format != MPSFIX_RULELIST_TEXT) {
		json_t *o = rule_object(r, status);
		int rc = json_dumpf(o, f, (format == MPSFIX_RULELIST_JSON ? JSON_INDENT(2) : JSON_COMPACT) |
					      JSON_PRESERVE_ORDER);

		json_decref(o);
		if (rc < 0 || fputc('\n', f) == EOF)
			return mpsfix_error_set(MPSFIX_ERROR, "cannot write the output");
		return write_failed(f);
	}
	fprintf(f, "%s (%s): %s\n\n", r->code, r->id, r->message);
	fprintf(f, "  severity  %s\n", mpsfix_severity_name(r->severity));
	fprintf(f, "  fix       %s\n", r->fix.present ? (r->fix.unsafe ? "unsafe (applied with --unsafe-fixes)"
								 : "safe")
						   : "no (report only)");
	fprintf(f, "  affects   torch %s\n", mpsfix_torch_range_format(range, r->range));
	if (!reason)
		fprintf(f, "  runs      yes; %s\n", target);
	else if (!status->in_target && !status->ignored && status->selected)
		fprintf(f, "  runs      no: torch %s is outside the %s\n", range, target);
	else
		fprintf(f, "  runs      no: %s\n", reason);
	fprintf(f, "  default   %s\n", r->enabled ? "on" : "off (turn it on with --extend-select or select:)");
	if (r->url)
		fprintf(f, "  url       %s\n", r->url);
	fprintf(f, "  file      %s\n", r->path);
	if (r->note) {
		size_t len = strlen(r->note);

		fprintf(f, "\n%s%s", r->note, len && r->note[len - 1] == '\n' ? "" : "\n");
	}
	return write_failed(f);
}

/* Edit distance of a and b, case-insensitive (both short: a rule code or id). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = mpsfix_xcalloc(lb + 1, sizeof(size_t)), d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best;
			bool same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);

			best = diag + !same;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int mpsfix_rulelist_find(size_t *out, mpsfix_rule *const *rules, size_t n, const char *name)
{
	const char **close = mpsfix_xcalloc(2 * n + 1, sizeof(char *));
	size_t best_d = (size_t)-1, nclose = 0;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(rules[i]->code, name) || !strcmp(rules[i]->id, name)) {
			*out = i;
			error = 0;
			goto done;
		}
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(rules[i]->code, name) || !strcasecmp(rules[i]->id, name)) {
			*out = i;
			error = 0;
			goto done;
		}
	/* the codes and ids closest to the name, when close enough */
	for (size_t i = 0; i < n; i++) {
		const char *cands[2] = {rules[i]->code, rules[i]->id};

		for (size_t k = 0; k < 2; k++) {
			size_t d = distance(name, cands[k]);

			if (d < best_d) {
				best_d = d;
				nclose = 0;
			}
			if (d == best_d)
				close[nclose++] = cands[k];
		}
	}
	if (nclose && (best_d <= 2 || best_d <= strlen(name) / 3)) {
		qsort(close, nclose, sizeof(*close), by_string);
		for (size_t i = 0; i < nclose; i++)
			mpsfix_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == nclose ? " or " : ", ", close[i]);
		error = mpsfix_error_set(MPSFIX_ENOMATCH, "unknown rule '%s' (did you mean %s?)", name, b.data);
	} else {
		error = mpsfix_error_set(MPSFIX_ENOMATCH, "unknown rule '%s' (give a code such as MPS001 "
					 "or a rule id; 'mpsfix rules' lists them)", name);
	}
done:
	mpsfix_buf_release(&b);
	free(close);
	return error;
}
