/*
 * review.h: `mpsfix review` — each fix shown as a hunk with its rule and
 * message, and a question: [y]es [n]o [a]ll for this rule [s]kip rule
 * [q]uit [?].  Rules come one after the other (in the order given: code
 * order), and the accepted fixes of each rule are recorded as that rule's
 * step of a series (series.h), so they can be written to the files or
 * committed per rule like `mpsfix commit` does.
 */
#ifndef MPSFIX_REVIEW_H
#define MPSFIX_REVIEW_H

#include <signal.h>
#include <stdio.h>

#include "common.h"
#include "engine.h"
#include "series.h"

typedef struct {
	int in;                 /* where the answers are read, one key each */
	FILE *out;              /* where the hunks and questions go */
	bool color;             /* ANSI colors in the hunks */
	/* set by a signal handler (SIGINT, SIGTERM): the review stops; may be NULL */
	volatile sig_atomic_t *interrupted;
} mpsfix_review_opts;

typedef enum {
	MPSFIX_REVIEW_DONE,        /* every fix was answered */
	MPSFIX_REVIEW_QUIT,        /* q, or the end of the input: the answers so far count */
	MPSFIX_REVIEW_INTERRUPTED  /* a signal: nothing should be written */
} mpsfix_review_end;

typedef struct {
	mpsfix_review_end end;
	size_t accepted, declined; /* fixes */
} mpsfix_review_result;

/**
 * Review the fixes of `rules`, one rule after the other, over every file of
 * `s` (from its latest text), and record the accepted ones in `s`.  For each
 * rule the engine finds the fixes of each file (`eo`, in check mode) and
 * each one is shown against the text it applies to and asked about; `a`
 * accepts it and every later fix of the rule without asking, `s` declines
 * them; `q` (or the end of the input) stops asking, and what was accepted
 * so far is kept.  Accepted fixes of a file are applied together (as the
 * engine would: overlapping ones wait for a next round, in which the ones
 * already answered are not asked again); a result that would parse with
 * more syntax errors than before is not kept (a warning in `s`).
 *
 * The hunks are libgit2 diffs: call mpsfix_git_init() first.
 *
 * When `ro->in` is a terminal it is put in non-canonical mode without echo
 * (one key, no Enter) while the review runs, and restored before return,
 * whatever happens.  Elsewhere (a pipe) keys are read as bytes, line breaks
 * ignored.
 */
int mpsfix_review_run(mpsfix_review_result *out, mpsfix_series *s, mpsfix_ctx *ctx,
		      mpsfix_rule *const *rules, size_t n, const mpsfix_engine_opts *eo,
		      const mpsfix_review_opts *ro, mpsfix_series_file_cb on_file, void *payload);

#endif
