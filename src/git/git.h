/*
 * git.h: everything mpsfix takes from libgit2.  The git*.c files are the
 * only ones that include <git2.h> (through git_internal.h); libgit2 errors
 * become mpsfix errors there, carrying git_error_last()'s message.
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
 * Does git ignore the folder `dir`: is it inside a work tree, and does an
 * ignore rule (`.gitignore` files, `.git/info/exclude`, `core.excludesFile`)
 * match it or a folder above it there?  Then mpsfix_git_list_files() lists
 * only its tracked files.  *ignored is false outside a work tree and for the
 * top of one; a missing `dir` or a broken repository is an error.
 */
int mpsfix_git_ignores_folder(bool *ignored, const char *dir);

/**
 * The content of `path` as staged in the index of its repository (for
 * `--staged`).  MPSFIX_ENOMATCH when the path is not in the index;
 * MPSFIX_ERROR outside a repository.  The folder part of `path` is resolved
 * like realpath (symlinked folders followed); a symlinked file is the link.
 */
int mpsfix_git_read_staged(mpsfix_buf *out, const char *path);

/**
 * Does `path` have staged changes: is its entry in the index of its
 * repository other than HEAD's (new, or another content or mode; every
 * staged file where HEAD has no commit yet)?  False when it is not in the
 * index.  MPSFIX_ERROR outside a repository.
 */
int mpsfix_git_staged_changed(bool *changed, const char *path);

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

/* ---- recording fixes: commits, branches, patch e-mails ----------------------- */

/** A repository opened to record fixes as commits (see commit.h). */
typedef struct mpsfix_git_repo mpsfix_git_repo;

/**
 * Open the repository whose work tree holds the folder `dir` (a linked
 * worktree is its own work tree, with its own HEAD and index).  With
 * `in_memory`, the objects written later (blobs, trees, commits) are kept in
 * memory, never in the repository, and are gone with mpsfix_git_repo_free()
 * (mpsfix patch).  A folder in no work tree, or in a bare repository, is an
 * error.
 */
int mpsfix_git_repo_open(mpsfix_git_repo **out, const char *dir, bool in_memory);
void mpsfix_git_repo_free(mpsfix_git_repo *r);

/** Where HEAD is when the repository was opened (borrowed from the repository). */
typedef struct {
	const char *top;     /* the work tree: real path, ending in '/' */
	const char *branch;  /* the current branch ("main"); NULL when HEAD is detached */
	bool unborn;         /* the branch has no commit yet */
	char head[41];       /* HEAD's commit id in hex; "" when unborn */
} mpsfix_git_head;

const mpsfix_git_head *mpsfix_git_repo_head(const mpsfix_git_repo *r);

/**
 * The name of the file `path` in r's work tree, relative to its top
 * ("pkg/a.py"), in *out (newly allocated); *out is NULL when the file is not
 * in the work tree.  The folder part of `path` is resolved like realpath (a
 * symlinked file is the link).  When the file lies inside a submodule of
 * HEAD or of the index, *submodule is the submodule's path (newly
 * allocated), else NULL.
 */
int mpsfix_git_repo_name(char **out, char **submodule, const mpsfix_git_repo *r, const char *path);

/**
 * The submodules of HEAD's tree: their paths relative to the top of the
 * work tree, sorted (each string and *out are the caller's to free).
 */
int mpsfix_git_repo_submodules(char ***out, size_t *n, mpsfix_git_repo *r);

/**
 * The content of file `name` in HEAD's tree, appended to `out`; *executable
 * (when not NULL) tells its mode.  MPSFIX_ENOMATCH when HEAD has no such
 * file (or no commit); MPSFIX_ESKIP, with a message, when it is not a
 * regular file there (a symbolic link, a submodule, a folder).
 */
int mpsfix_git_repo_read(mpsfix_buf *out, bool *executable, mpsfix_git_repo *r, const char *name);

/**
 * The user's uncommitted changes of file `name`: *staged when the index
 * differs from HEAD, *unstaged when the work tree differs from the index (a
 * deleted or conflicted file counts as both).
 */
int mpsfix_git_repo_status(bool *staged, bool *unstaged, mpsfix_git_repo *r, const char *name);

/**
 * The identity commits are made with, from the repository's configuration
 * (user.name, user.email), as "Name <email>" (newly allocated).  Author and
 * committer of every commit written through `r`, with the time of the first
 * call.  When it is not configured: an error saying how to set it.
 */
int mpsfix_git_repo_identity(char **out, mpsfix_git_repo *r);

/** A file's content in a new commit. */
typedef struct {
	const char *name;  /* relative to the top of the work tree */
	const char *data;
	size_t len;
} mpsfix_git_change;

/**
 * Write a commit on top of `parent` (a commit id in hex, or NULL for HEAD):
 * the parent's tree with the files of `changes` given new content (each
 * must be a regular file of that tree; its mode is kept), the identity as
 * author and committer, and `message`.  Its id goes to `out` (hex).  No ref
 * moves and no file changes.
 */
int mpsfix_git_commit_write(char out[41], mpsfix_git_repo *r, const char *parent,
			    const mpsfix_git_change *changes, size_t n, const char *message);

/** Can `name` be created as a new branch (a valid name that no branch has)? */
int mpsfix_git_branch_check(mpsfix_git_repo *r, const char *name);

/** Create branch `name` at commit `id`; HEAD, the index and the work tree are untouched. */
int mpsfix_git_branch_create(mpsfix_git_repo *r, const char *name, const char *id);

/**
 * Move the current branch from HEAD's commit (as opened) to commit `id`
 * and bring the index and work tree of the files of `final` along (`final`
 * holds each file's content in `id`).  A file the user has not changed is
 * checked out from `id`.  A file the user changed keeps the change: the
 * index entry and the work tree file each get the fix merged into what they
 * hold (a three-way merge from HEAD's content, through the repository's
 * filters), so the change stays uncommitted and the fix is not undone by it.
 * When a change and a fix touch the same lines nothing is written: an error
 * names the files.  The branch moves only if it still points where HEAD
 * was.  With `id` NULL nothing is written at all: only the check that every
 * change can be kept.
 */
int mpsfix_git_advance(mpsfix_git_repo *r, const char *id, const mpsfix_git_change *final, size_t n);

/**
 * Append to `out` commit `id` as `git format-patch` writes it: an mbox
 * message ("From <id> Mon Sep 17 00:00:00 2001", From, Date, Subject with
 * "[PATCH idx/total]" or "[PATCH]" when total is 1, the body, "---", a
 * diffstat, the diff against its first parent) that `git am` applies.
 */
int mpsfix_git_email(mpsfix_buf *out, mpsfix_git_repo *r, const char *id, size_t idx, size_t total);

#endif
