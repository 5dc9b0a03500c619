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

#endif
