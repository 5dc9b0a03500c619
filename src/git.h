/*
 * git.h: everything mpsfix takes from libgit2.  git.c is the only file that
 * includes <git2.h>; libgit2 errors become mpsfix errors there, carrying
 * git_error_last()'s message.
 */
#ifndef MPSFIX_GIT_H
#define MPSFIX_GIT_H

#include "common.h"

/**
 * Initialise libgit2 (reference counted: pair every successful call with
 * mpsfix_git_shutdown()).  Call it before any other mpsfix_git_ function.
 */
int mpsfix_git_init(void);
void mpsfix_git_shutdown(void);

/** The libgit2 version in use at run time, e.g. "1.5.1" (a per-thread string). */
const char *mpsfix_git_version(void);

/**
 * Append to `out` a unified diff of `old` → `new_text` for file `path`
 * (`diff --git a/PATH b/PATH`, `--- a/PATH`, `+++ b/PATH`, hunks with 3 lines
 * of context, "\ No newline at end of file" where needed) that `git apply`
 * accepts.  Both texts are compared as text, byte for byte (CR kept).
 * Identical texts append nothing.
 */
int mpsfix_git_diff(mpsfix_buf *out, const char *path, const char *old, size_t old_len,
		    const char *new_text, size_t new_len);

/**
 * The name of `path` relative to the top of the git work tree that holds it
 * (what `git apply` expects wherever it runs in that tree), newly allocated;
 * NULL when no work tree holds it.
 */
char *mpsfix_git_worktree_path(const char *path);

/**
 * The top folder of the git work tree that holds `path` (a file or a
 * folder), real and absolute, newly allocated; NULL when no work tree holds
 * it (or it does not exist).
 */
char *mpsfix_git_worktree_top(const char *path);

/**
 * The files git would show under `dir` (a folder in a work tree): tracked
 * files that exist in the work tree plus untracked files that are not ignored
 * (`.gitignore` files, `.git/info/exclude`, `core.excludesFile`), or with
 * `no_ignore` every untracked file too.  Paths are `dir`-prefixed as given
 * (`dir/sub/x.py`), sorted, restricted to names ending in `.py` / `.pyi`;
 * submodules are not entered.  Returns 0 and sets *in_repo; when `dir` is
 * not in a work tree, *in_repo is false and nothing is added.  Names are
 * spelled as discover.c's walk spells them (trailing slashes of `dir`
 * folded: "." gives "./x.py", "a//" gives "a/x.py"); the caller frees each
 * string and *out.  A bare repository, or `dir` inside `.git`, is not a
 * work tree; a missing `dir` or a broken repository is an error.
 */
int mpsfix_git_list_files(char ***out, size_t *n, bool *in_repo, const char *dir, bool no_ignore);

/**
 * The content of `path` as staged in the index of its repository (for
 * `--staged`).  MPSFIX_ENOMATCH when the path is not in the index;
 * MPSFIX_ERROR outside a repository.  The folder part of `path` is resolved
 * like realpath (symlinked folders followed); a symlinked file is the link.
 */
int mpsfix_git_read_staged(mpsfix_buf *out, const char *path);

/** Line ranges [first, last] (1-based, inclusive) of a file. */
typedef struct {
	uint32_t first, last;
} mpsfix_line_range;

/**
 * The lines of `path` that differ from its version in commit `ref` (any
 * revision git accepts: HEAD~3, main, a sha): the added/changed lines of the
 * new side of the diff, as in `git diff REF -- path`.  When `staged`, the
 * new side is the index, else the work tree.  A file that did not exist at
 * REF is changed entirely (one range 1..UINT32_MAX): added in the index,
 * or (not `staged`) untracked or ignored in the work tree; a file the new
 * side lacks, or an unchanged one, gives *n = 0.  Sorted, merged; *out is
 * the caller's to free.  A REF that names no commit or tree is an error
 * naming it.
 */
int mpsfix_git_changed_lines(mpsfix_line_range **out, size_t *n, const char *path,
			     const char *ref, bool staged);

#endif
