/*
 * style.h: the project's style settings a fix follows: the longest line it
 * may write, as the project's lint configuration sets it.
 *
 * A file's line length: --line-length, else the configuration's
 * `line-length:`, else that of the nearest folder at or above the file
 * (nearest.h: up to the git work tree's top, or the folder operand or the
 * current folder) with a file that sets one, else the run's
 * (mpsfix_styles_find_run()), else 88 (ruff's and black's default).  In
 * one folder the first of these that sets one gives it: ruff's files in
 * ruff's order, then black's, yapf's, then flake8's and pycodestyle's:
 *
 *   .ruff.toml       line-length
 *   ruff.toml        line-length
 *   pyproject.toml   [tool.ruff] line-length
 *   pyproject.toml   [tool.black] line-length
 *   pyproject.toml   [tool.yapf] column_limit
 *   .style.yapf      column_limit in [style]
 *   setup.cfg        column_limit in [yapf], then max-line-length in
 *                    [flake8], then in [pycodestyle]
 *   tox.ini          max-line-length in [flake8], then in [pycodestyle]
 *   .flake8          max-line-length in [flake8]
 *
 * (max_line_length and other spellings configparser and flake8 take as the
 * same key count too.)  A folder where none sets one is passed over.  A
 * value that is not a whole number from 1 to MPSFIX_STYLE_LINE_LENGTH_MAX,
 * and a file that cannot be read, are warnings naming file:line, and passed
 * over.  Each folder is read once, on the thread that asks (the main one,
 * before the workers start).
 */
#ifndef MPSFIX_STYLE_H
#define MPSFIX_STYLE_H

#include "common.h"
#include "nearest.h"

/* The longest line length a project may set (ruff's limit). */
#define MPSFIX_STYLE_LINE_LENGTH_MAX 320
/* Where nothing sets one: the engine's MPSFIX_LINE_LENGTH_DEFAULT (settings.c checks that they agree). */
#define MPSFIX_STYLE_LINE_LENGTH_DEFAULT 88

typedef struct {
	uint32_t line_length;  /* columns, 1 to MPSFIX_STYLE_LINE_LENGTH_MAX */
	char *origin;          /* "--line-length", ".mpsfix.yml", "pyproject.toml:12" (a path as
				  seen from the current folder), or NULL: the default (owned) */
	char *summary;         /* "line length 120 (pyproject.toml:12)", "line length 88" (owned) */
} mpsfix_style;

#define MPSFIX_STYLE_INIT {0, NULL, NULL}

typedef struct {
	mpsfix_style *items;   /* [0]: the option's, the configuration's or the default; then
				  one per folder that sets a line length (owned) */
	size_t len, cap;
	size_t run;            /* the run's: the files' whose own search finds none */
	bool forced;           /* --line-length or line-length: one for every file */
	mpsfix_nearest folders; /* the folders looked at: the item each gives */
} mpsfix_styles;

#define MPSFIX_STYLES_INIT {NULL, 0, 0, 0, false, MPSFIX_NEAREST_INIT}

/** Called with each warning (a value ignored, a file not read), once each. */
typedef void (*mpsfix_style_warn_cb)(void *payload, const char *message);

/**
 * Start with item 0, the run's style: `line_length`, set by `origin`
 * ("--line-length", the configuration's path), for every file; or, with
 * `line_length` 0, the default, and each file's from its project.
 */
void mpsfix_styles_init(mpsfix_styles *s, uint32_t line_length, const char *origin);

/**
 * Unless the run's style is forced, find it as a project's: that of the
 * nearest folder that sets a line length, upward from the configuration's
 * folder (`config_dir`, may be NULL), else from the top of the git work tree
 * that holds `path` (the first path operand; NULL or "-": the current
 * folder), else from `path` (a folder) or its folder; up to the top of the
 * git work tree that holds that folder, else to the root.  It is the style
 * of the files whose own search (stopped at the current folder or their
 * folder operand outside git) finds none; none found: the default.
 */
void mpsfix_styles_find_run(mpsfix_styles *s, const char *config_dir, const char *path,
			    mpsfix_style_warn_cb warn, void *payload);

/**
 * Read the lint configuration of folder `dir`: true, with *out set, when a
 * file there sets a line length; false when none does.  Warnings go to
 * `warn` (may be NULL).
 */
bool mpsfix_style_read_folder(mpsfix_style *out, const char *dir, mpsfix_style_warn_cb warn, void *payload);

/**
 * The style of the file `path` (an index into s->items).  `operand` is the
 * folder operand it was found under, or NULL.  A path that does not exist
 * (standard input's --stdin-filename) is looked up from its folder.
 */
size_t mpsfix_styles_of_file(mpsfix_styles *s, const char *path, const char *operand,
			     mpsfix_style_warn_cb warn, void *payload);

/** The style of a file in folder `dir` (rules asks for the current folder's). */
size_t mpsfix_styles_of_folder(mpsfix_styles *s, const char *dir, mpsfix_style_warn_cb warn, void *payload);

/**
 * A line length given by the user (--line-length, the configuration's
 * line-length): decimal digits, 1 to MPSFIX_STYLE_LINE_LENGTH_MAX; else
 * MPSFIX_ERROR naming `what` ("'--line-length'").
 */
int mpsfix_style_parse_line_length(uint32_t *out, const char *text, const char *what);

void mpsfix_style_release(mpsfix_style *st);
void mpsfix_styles_release(mpsfix_styles *s);

#endif
