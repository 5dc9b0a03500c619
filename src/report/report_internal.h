/*
 * report_internal.h: what the reporters of report.h share, for report.c and
 * the writers of each format (report_text.c: full and concise,
 * report_json.c: json and jsonl, report_sarif.c, report_github.c; the diff
 * format is written by report.c).  report.c turns one file's findings and
 * unused suppressions into items in position order and hands each item to
 * its format's writer; json and sarif keep theirs in the reporter for
 * mpsfix_report_finish.  Not for use outside the reporters.
 */
#ifndef MPSFIX_REPORT_INTERNAL_H
#define MPSFIX_REPORT_INTERNAL_H

#include <jansson.h>

#include "report.h"
#include "text.h"

/* An unused suppression, reported like a finding (with opts->show_unused). */
#define UNUSED_CODE "MPS000"
#define UNUSED_ID "unused-suppression"
#define UNUSED_MESSAGE "unused suppression comment"

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
	/* in the file: a notebook's lines are its JSON's, and `cell` (1-based, else 0)
	   is the cell, where the finding is on lines cell_line.. of its code */
	uint32_t file_line, file_end_line, cell, cell_line;
	mpsfix_fix_status fix;
	const char *reason;              /* MANUAL; UNSAFE: "" or why a safe fix is unsafe here */
	const mpsfix_edit *edits;        /* AVAILABLE, UNSAFE */
	size_t nedits;
	char *owned;                     /* the message, when built here */
} mpsfix_report_item;

/* ---- report.c: the shared helpers ---- */

/**
 * A JSON string of `n` bytes; bytes that are not UTF-8 (a file name) become
 * U+FFFD.  NULL gives JSON null.
 */
json_t *mpsfix_report__jstrn(const char *s, size_t n);
json_t *mpsfix_report__jstr(const char *s);

/* ---- report_text.c: full and concise ---- */

/** path:line:col: CODE [*] message (concise), with the manual fix's reason when `reason`. */
void mpsfix_report__text_line(const mpsfix_reporter *r, const char *path,
			      const mpsfix_report_item *it, bool reason);

/** The full format's entry for `it`: its line, the source lines underlined, the help line. */
void mpsfix_report__text_full(mpsfix_reporter *r, const char *path, const mpsfix_source *src,
			      const mpsfix_report_item *it);

/* ---- report_json.c: json and jsonl ---- */

/** The finding object of `it` (json, jsonl). */
json_t *mpsfix_report__json_finding(const char *path, const mpsfix_source *src,
				    const mpsfix_report_item *it);

/** The json document: version, the findings kept in r->findings, the summary (null when NULL). */
json_t *mpsfix_report__json_document(const mpsfix_reporter *r, const mpsfix_report_summary *sum);

/* ---- report_sarif.c ---- */

/** Add `rule` (NULL: MPS000) to tool.driver.rules; returns its index. */
size_t mpsfix_report__sarif_add_rule(mpsfix_reporter *r, const mpsfix_rule *rule);

/** The result object of `it` (its rule added to the driver's when not there yet). */
json_t *mpsfix_report__sarif_result(mpsfix_reporter *r, const char *path,
				    const mpsfix_report_item *it);

/** The SARIF log of the results kept in r->results; invocations when `sum` is given. */
json_t *mpsfix_report__sarif_log(mpsfix_reporter *r, const mpsfix_report_summary *sum);

/* ---- report_github.c ---- */

/** One ::error/::warning/::notice workflow command for `it`. */
void mpsfix_report__github_line(const mpsfix_reporter *r, const char *path,
				const mpsfix_report_item *it);

#endif
