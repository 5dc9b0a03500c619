/*
 * discover.h: which files to look at: in a git work tree what git lists
 * (through libgit2), elsewhere a plain walk of the file system.
 */
#ifndef MPSFIX_DISCOVER_H
#define MPSFIX_DISCOVER_H

#include "common.h"
#include "strvec.h"

/**
 * Append to `out` the files named by `args`:
 * - a file (or anything not a folder) is taken as given, whatever its name;
 *   a symlink given as an argument is followed when it leads to a folder;
 * - a folder is walked without following symlinked folders, collecting
 *   `*.py` and `*.pyi` (symlinks so named included, unless they lead to a
 *   folder: a symlink loop or a link to nothing is listed, for the reader
 *   to report, as FIFOs so named are) and skipping
 *   folders named `.*`, `__pycache__`, `node_modules`, `venv`,
 *   `site-packages`; the files of one folder argument come sorted (strcmp).
 * Paths are `dir/name` with no doubled slash.  Argument order is kept and a
 * path already in `out` is not added again.  A path that cannot be read
 * (missing argument, unreadable folder) is reported through
 * `on_error(payload, "PATH: reason")` (when not NULL) and the walk goes on.
 * The argument `-` (standard input) is passed through as it is.
 * Returns 0, or MPSFIX_ERROR for a fatal problem.
 */
int mpsfix_discover(mpsfix_strvec *out, char *const *args, size_t nargs,
		    void (*on_error)(void *payload, const char *message), void *payload);

/** What mpsfix_discover_files looks at. */
typedef struct {
	bool no_ignore;          /* --no-ignore: also files git ignores */
	bool use_git;            /* look for a work tree (default true) */
	bool walk_ignored;       /* a folder argument git ignores is walked (as
				    outside a work tree); false: git lists only its
				    tracked files (what --staged, commit and patch
				    read from git) */
	char *const *exclude;    /* --exclude globs */
	size_t nexclude;
	char *const *include;    /* --include globs: when given, only matching files */
	size_t ninclude;
	const char *glob_base;   /* folder exclude/include are relative to, or NULL: cwd */
	char *const *extra_exclude; /* more excludes with a base of their own (the */
	size_t nextra_exclude;      /* configuration file's, relative to its folder) */
	const char *extra_base;
	/* a folder argument that gives no file: on_warning(payload, "DIR:
	   nothing to check: why"), with mpsfix_discover_files's payload */
	void (*on_warning)(void *payload, const char *message);
} mpsfix_discover_opts;

/**
 * Like mpsfix_discover, with git awareness and globs: a folder inside a git
 * work tree gives mpsfix_git_list_files() (tracked + untracked not ignored),
 * elsewhere the walk; with `walk_ignored`, a folder argument that git
 * ignores is walked too (named on the command line, it is read, as ruff
 * reads it).  `--exclude` globs drop files (and whole folders) found by
 * walking or listing; `--include` globs, when any, keep only the matching
 * ones; a PATH given explicitly as a file is always taken (ignored or not).
 * A folder argument that gives no file is named through `on_warning`, with
 * why: no Python file in it, git ignores them all, or the globs leave them
 * all out.
 * Files listed by git are named as the walk would name them (`dir/sub/x.py`)
 * and the walk's skipped folders (`.*`, `venv`, ...) are skipped there too.
 * Globs are matched against the path relative to `glob_base` (lexically:
 * `..` and `.` resolved, symlinks not) and its parent folders; they say
 * nothing about a file outside `glob_base`.  `opts` NULL: no git, no globs.
 */
int mpsfix_discover_files(mpsfix_strvec *out, char *const *args, size_t nargs,
			  const mpsfix_discover_opts *opts,
			  void (*on_error)(void *payload, const char *message), void *payload);

/**
 * Is a folder named `name` skipped by the walk: `.*` (.git, .venv, ...),
 * `__pycache__`, `node_modules`, `venv`, `site-packages`?
 */
bool mpsfix_discover_skips_folder(const char *name);

#endif
