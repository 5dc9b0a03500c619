/*
 * report.h: the reporters.  main hands each file's result to a reporter in
 * path order, then the run's totals; the reporter writes one format to one
 * stream.  JSON and SARIF are built with jansson (escaping and validity come
 * from the library).
 *
 * Formats:
 *   full     ruff-like: the concise line (without the manual fix's reason),
 *            the source line(s) with a gutter and a caret underline (tabs shown
 *            as 4 spaces, wide characters as 2 columns; a finding of more than
 *            4 lines shows 2, "...", the last), then "= help:" for the fix
 *            status; a blank line between findings
 *   concise  path:line:col: CODE [*] message        ([*] safe fix, [~] unsafe fix
 *            not enabled, "(needs a manual fix: reason)" for refused fixes)
 *   json     one document {"version", "findings": [...], "summary": {"command",
 *            "target", "targets", "files", "skipped", "findings", "fixable",
 *            "unsafe_fixable", "manual", "fixed", "errors"}}: "target" is the
 *            summary line's words for the torch targets (a string), "targets"
 *            an array of {"range", "origin" (null for every MPS-capable
 *            version), "files" (scanned for it)}
 *   jsonl    one finding object per line (the same objects as json), no summary
 *   sarif    SARIF 2.1.0: one run, tool.driver with version, informationUri
 *            (MPSFIX_HOMEPAGE at build time; left out when empty) and every
 *            loaded rule (id = code, name = rule id, shortDescription =
 *            message, fullDescription = note, helpUri = url,
 *            defaultConfiguration.level error/warning/note); a rule of a
 *            finding that is not among opts->rules is added as it comes.
 *            columnKind "unicodeCodePoints"; results with ruleId, ruleIndex,
 *            level, message, physicalLocation (artifactLocation.uri: the path
 *            percent-encoded as a relative URI reference, file:// when
 *            absolute; region startLine/startColumn/endLine/endColumn, 1-based,
 *            plus byteOffset/byteLength), and `fixes` (artifactChanges/
 *            replacements: deletedRegion byteOffset/byteLength,
 *            insertedContent.text) for safe and unsafe fixes; invocations
 *            [{executionSuccessful: errors == 0}] when a summary is given
 *   github   ::warning file=PATH,line=L,col=C,endLine=L,endColumn=C,title=CODE::message
 *            (error/warning/notice from the severity; '%', CR, LF escaped as
 *            GitHub requires, and ',' ':' in properties)
 *   diff     the unified diffs of the fixes (main passes each file's diff)
 *
 * With opts->show_unused, each unused suppression comment is reported in
 * every format but diff like a warning finding of code MPS000, rule
 * "unused-suppression", message "unused suppression comment[ for CODES]",
 * spanning the comment to the end of its line, in position order among the
 * findings (sarif adds a driver rule MPS000).
 *
 * A finding object (json, jsonl):
 *   {"code": "MPS001", "rule": "std-mean", "severity": "error",
 *    "message": "...", "path": "src/a.py",
 *    "start": {"line": 3, "column": 5, "byte": 41},
 *    "end": {"line": 3, "column": 29, "byte": 65},
 *    "url": "https://...",              (or null)
 *    "fix": null | {"applicability": "safe"|"unsafe"|"manual",
 *                   "reason": "..." (manual only),
 *                   "edits": [{"start": {"line","column","byte"}, "end": {...},
 *                              "content": "..."}]}}   (not for manual)
 * Lines and columns are 1-based, columns count characters; bytes are
 * 0-based offsets into the file as read (BOM included), end exclusive.
 */
#ifndef MPSFIX_REPORT_H
#define MPSFIX_REPORT_H

#include <stdio.h>

#include "common.h"
#include "engine.h"
#include "source.h"
#include "types.h"

typedef enum {
	MPSFIX_FORMAT_FULL,
	MPSFIX_FORMAT_CONCISE,
	MPSFIX_FORMAT_JSON,
	MPSFIX_FORMAT_JSONL,
	MPSFIX_FORMAT_SARIF,
	MPSFIX_FORMAT_GITHUB,
	MPSFIX_FORMAT_DIFF
} mpsfix_format;

/** Parse a --format value; returns 0 or MPSFIX_ERROR naming the valid ones. */
int mpsfix_format_parse(mpsfix_format *out, const char *name);
const char *mpsfix_format_name(mpsfix_format f);

typedef struct {
	mpsfix_format format;
	bool color;                /* ANSI colors (full, concise) */
	const char *tool_version;  /* for json/sarif */
	mpsfix_rule *const *rules; /* every loaded rule (sarif rule metadata), borrowed */
	size_t nrules;
	bool show_unused;          /* report unused suppressions (as findings of code MPS000) */
} mpsfix_report_opts;

/** A torch target of a run, and the files scanned for it (json "targets"). */
typedef struct {
	const char *range;         /* "2.1", ">=2.4"; every MPS-capable version: ">=1.12" */
	const char *origin;        /* "a/requirements.txt:3", "--target-torch", ".mpsfix.yml",
				      or NULL (every MPS-capable version) */
	size_t files;
} mpsfix_report_target;

/** Totals of a run (json "summary", statistics). */
typedef struct {
	size_t files, skipped, findings, fixable, unsafe_fixable, manual, fixed, errors;
	const char *target;        /* the summary line's words: "target torch 2.1
				      (requirements.txt:3)", "targets: ...", or NULL */
	const mpsfix_report_target *targets; /* each target used (ntargets of them) */
	size_t ntargets;
	const char *command;       /* "check", "diff", "fix" */
} mpsfix_report_summary;

typedef struct mpsfix_reporter mpsfix_reporter;

/** A reporter writing to `out` (borrowed; not closed). */
mpsfix_reporter *mpsfix_reporter_new(FILE *out, const mpsfix_report_opts *opts);

/**
 * Report one file.  `path` is the display name; `src` is the text the
 * findings' positions refer to (in fix mode: the fixed text); `diff` is the
 * file's unified diff (only the diff format prints it; may be NULL).
 * `src` may be NULL only for the diff format.  Text formats are written at
 * once; json and sarif keep the file's findings for mpsfix_report_finish.
 * Returns 0 or MPSFIX_ERROR (a write error).
 */
int mpsfix_report_file(mpsfix_reporter *r, const char *path, const mpsfix_source *src,
		       const mpsfix_result *res, const char *diff, size_t diff_len);

/**
 * Write what comes after the files (json document, sarif log) and flush.
 * `sum` may be NULL (json "summary": null, no sarif invocations).
 * Returns 0 or MPSFIX_ERROR (a write error, found at the flush at the latest).
 */
int mpsfix_report_finish(mpsfix_reporter *r, const mpsfix_report_summary *sum);

void mpsfix_reporter_free(mpsfix_reporter *r);

/**
 * `--statistics`, like ruff's: one line per rule with findings, most
 * frequent first (then by code), columns aligned with spaces:
 *     12 MPS010  [*] pin-memory
 *      3 MPS001      std-mean
 * `[*]` when some of them are fixable.  `counts[i]`/`fixable[i]` belong to
 * rules[i]; `fixable` may be NULL.  Write errors are left to the caller
 * (ferror).
 */
void mpsfix_report_statistics(FILE *out, mpsfix_rule *const *rules, size_t n,
			      const size_t *counts, const size_t *fixable);

#endif
