/*
 * series.h: the fixes of a set of files as a series of steps, one per rule.
 * Rules take turns in the order of their codes; each step holds the files
 * as they are after that rule's fixes, made on top of the step before.  It
 * is what `mpsfix commit` records as one commit per rule, what `mpsfix
 * patch` writes as one patch per rule, and what `mpsfix review` fills in
 * from the user's answers; and it writes the commit messages.
 */
#ifndef MPSFIX_SERIES_H
#define MPSFIX_SERIES_H

#include "common.h"
#include "engine.h"
#include "notebook.h"
#include "types.h"

typedef struct {
	char *path;        /* the name shown to the user (as discovered) (owned) */
	char *name;        /* the name in the repository, relative to its top, or NULL (owned) */
	char *text;        /* the text the series starts from (owned) */
	size_t len;
	bool have_mode;    /* the file's permission bits, for writing it back */
	unsigned mode;
	bool skipped;      /* the engine skipped it (see the warnings): no more steps */
} mpsfix_series_file;

typedef struct {
	size_t file;       /* index into files */
	char *text;        /* the file after this step (owned) */
	size_t len;
	size_t sites;      /* fixes this step made in the file */
} mpsfix_series_change;

typedef struct {
	const mpsfix_rule *rule;       /* borrowed */
	mpsfix_series_change *changes; /* one per file, in the order files were changed */
	size_t nchanges, cap;
	size_t sites;                  /* fixes of the step, all files */
} mpsfix_series_step;

typedef struct {
	mpsfix_series_file *files;
	size_t nfiles, files_cap;
	mpsfix_series_step *steps;     /* in order; no step without a change */
	size_t nsteps, steps_cap;
	char **warnings;               /* the engine's warnings, each once (owned) */
	size_t nwarnings, warnings_cap;
} mpsfix_series;

#define MPSFIX_SERIES_INIT {NULL, 0, 0, NULL, 0, 0, NULL, 0, 0}

void mpsfix_series_release(mpsfix_series *s);

/** Add a file and the text the series starts from (copied); returns its index. */
size_t mpsfix_series_add_file(mpsfix_series *s, const char *path, const char *name,
			      const char *text, size_t len, bool have_mode, unsigned mode);

/** The latest text of file `file`: after the last step that changed it, else the original. */
const char *mpsfix_series_text(const mpsfix_series *s, size_t file, size_t *len);

/**
 * Record that rule `rule` turned file `file` into `text` (copied) with
 * `sites` fixes: into the last step when it is the same rule's, else into a
 * new step.  A text equal to the latest one records nothing.
 */
void mpsfix_series_record(mpsfix_series *s, const mpsfix_rule *rule, size_t file,
			  const char *text, size_t len, size_t sites);

/**
 * File `i`'s latest text as the engine reads it, into `src` (named by the
 * file's path): a notebook (*.ipynb) as the Python text of its cells, read
 * into `nb`; `nb` is left empty for other files.  MPSFIX_ESKIP with a message
 * for a text the engine cannot take.
 */
int mpsfix_series_source(mpsfix_source *src, mpsfix_notebook *nb, const mpsfix_series *s, size_t i);

/**
 * Record as mpsfix_series_record does the text `fixed` that `rule` made of
 * file `i`'s source (mpsfix_series_source, `nb` its notebook): a notebook's
 * cells are written into the notebook first.  MPSFIX_ESKIP with a message,
 * and nothing recorded, when the notebook cannot be written (notebook.h).
 */
int mpsfix_series_record_fixed(mpsfix_series *s, const mpsfix_rule *rule, size_t i,
			       const mpsfix_notebook *nb, const char *fixed, size_t len, size_t sites);

/** Add a warning (copied) unless the same text is there already. */
void mpsfix_series_warn(mpsfix_series *s, const char *message);

/** Sort `rules` by code (strcmp): the order the steps come in. */
void mpsfix_series_order(mpsfix_rule **rules, size_t n);

/**
 * Called before the engine runs on a file, with the engine's options for
 * it (a copy of those the series was given): main sets what its `keep`
 * callback needs to know about the file, and the file's own options (its
 * torch target, its line length).
 */
typedef void (*mpsfix_series_file_cb)(void *payload, const mpsfix_series_file *f, mpsfix_engine_opts *eo);

/**
 * Fix every file rule by rule: for each of `rules` (taken in the order
 * given), the engine runs with that rule alone, in fix mode (`eo` with fix
 * set), on each file's latest text, and what changes is recorded.  A file
 * the engine skips (MPSFIX_ESKIP) is marked skipped, its message kept as a
 * warning; a notebook whose fixed cells cannot be written keeps that rule's
 * findings, with the reason as a warning.  `on_file` may be NULL.
 */
int mpsfix_series_fix(mpsfix_series *s, mpsfix_ctx *ctx, mpsfix_rule *const *rules, size_t n,
		      const mpsfix_engine_opts *eo, mpsfix_series_file_cb on_file, void *payload);

/** What remains in the files' latest texts. */
typedef struct {
	size_t findings;        /* findings of every rule of the index */
	size_t unsafe_fixable;  /* of them, with an unsafe fix not enabled */
} mpsfix_series_left;

/* A file's findings that remain, in its latest text `src` (a notebook's with its cells). */
typedef void (*mpsfix_series_left_cb)(void *payload, const mpsfix_source *src, const mpsfix_result *res);

/**
 * Run the rules of `ix` (check mode) over every file's latest text;
 * `on_left` (may be NULL) is told of each file's findings.
 */
int mpsfix_series_remaining(mpsfix_series_left *out, mpsfix_series *s, mpsfix_ctx *ctx,
			    const mpsfix_index *ix, const mpsfix_engine_opts *eo,
			    mpsfix_series_file_cb on_file, void *payload,
			    mpsfix_series_left_cb on_left, void *left_payload);

/** The files whose latest text differs from the original, by index (newly allocated); *n set. */
size_t *mpsfix_series_changed(const mpsfix_series *s, size_t *n);

typedef struct {
	const char *target_torch;  /* the value of the Mpsfix-Target-Torch trailer, or NULL: none */
	const char *signoff;       /* "Name <email>" for a Signed-off-by trailer, or NULL */
} mpsfix_message_opts;

/**
 * The commit message of steps [first, first + n) (n > 1: one commit for
 * several rules), newly allocated, ending in a newline:
 *
 *     mpsfix: MPS006 to-mps-non-blocking: MESSAGE (2 sites)
 *
 *     MPS006 to-mps-non-blocking (2 sites): MESSAGE, wrapped at 72
 *     columns.
 *     See URL
 *
 *     Files:
 *         train.py (2 sites)
 *
 *     Mpsfix-Rule: MPS006
 *     Mpsfix-Target-Torch: >=2.1
 *     Signed-off-by: Name <email>
 *
 * Several rules: the subject is "mpsfix: fix MPS006, MPS101 (3 sites)", one
 * paragraph and one Mpsfix-Rule trailer per rule.  Files are named
 * relative to the top of the work tree when they have a name there.
 */
char *mpsfix_series_message(const mpsfix_series *s, size_t first, size_t n, const mpsfix_message_opts *o);

#endif
