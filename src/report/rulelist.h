/*
 * rulelist.h: what `mpsfix rules` and `mpsfix explain` print about the
 * loaded rules: whether each runs (for the selection and the torch target),
 * as a table, a JSON array, JSON lines, or one rule's page.
 *
 * A rule object (json: an array of them, sorted by code; jsonl: one a line):
 *   {"code": "MPS001", "id": "std-mean", "severity": "error",
 *    "message": "...", "fix": "safe"|"unsafe"|"no",
 *    "torch": "< 2.4"          (as written in the rule),
 *    "affects": "<2.4"         (the range it reads as: "all", "2.1", ">=2.5",
 *                               ">=2.3,<2.8"),
 *    "enabled": true           (on by default; false for `enabled: false`),
 *    "selected": true          (the selection runs it: select, extend-select,
 *                               ignore from the configuration and options),
 *    "in_target": true         (its range meets the torch target),
 *    "runs": true              (selected and in_target),
 *    "reason": null | "not for the torch target" | "off by default" |
 *              "not selected" | "ignored"     (why it does not run),
 *    "note": "..." | null, "url": "..." | null, "path": "rules/std-mean.yml"}
 */
#ifndef MPSFIX_RULELIST_H
#define MPSFIX_RULELIST_H

#include <stdio.h>

#include "common.h"
#include "rule.h"

typedef struct {
	bool selected;  /* the selection runs it */
	bool ignored;   /* an ignore list names it */
	bool in_target; /* its torch range meets the target */
} mpsfix_rule_status;

typedef enum {
	MPSFIX_RULELIST_TEXT,  /* a table (rules), a page (explain) */
	MPSFIX_RULELIST_JSON,  /* a JSON array (rules), one object (explain) */
	MPSFIX_RULELIST_JSONL  /* one object a line */
} mpsfix_rulelist_format;

/**
 * The listing format for a --format value: NULL, "full" and "concise" give
 * text; "json", "jsonl" give JSON; any other is an error naming them.
 */
int mpsfix_rulelist_format_parse(mpsfix_rulelist_format *out, const char *format);

/** Why a rule does not run ("off by default", ...), or NULL when it runs. */
const char *mpsfix_rule_status_reason(const mpsfix_rule *r, const mpsfix_rule_status *s);

/**
 * Print the `n` rules (sorted by code) with their status.  The table has the
 * columns CODE, ID, SEVERITY, FIX (safe, unsafe, no), AFFECTS (the torch
 * range), DEFAULT (on, off) and RUNS (yes, or "no (reason)").  Returns 0, or
 * MPSFIX_ERROR when `f` cannot be written.
 */
int mpsfix_rulelist_print(FILE *f, mpsfix_rule *const *rules, const mpsfix_rule_status *status,
			  size_t n, mpsfix_rulelist_format format);

/**
 * Print one rule: code, id, message, severity, fix, the torch range it
 * affects, whether it runs (for `target`, the summary's words for the
 * target), whether it is on by default, url, file and note.
 */
int mpsfix_rulelist_explain(FILE *f, const mpsfix_rule *r, const mpsfix_rule_status *status,
			    const char *target, mpsfix_rulelist_format format);

/**
 * The index of the rule `name` names: its code or id, exactly, else with
 * another case.  MPSFIX_ENOMATCH with a message "unknown rule 'X'" that
 * suggests the closest code or id when one is close.
 */
int mpsfix_rulelist_find(size_t *out, mpsfix_rule *const *rules, size_t n, const char *name);

#endif
