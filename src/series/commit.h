/*
 * commit.h: recording a series of fixes (series.h) in git — the files as
 * HEAD has them, the checks that keep a user's uncommitted work out of the
 * commits, one commit per rule (or one for all), on the current branch or
 * a new one, or as `git format-patch` e-mails.  Every git operation goes
 * through git.c (libgit2).
 */
#ifndef MPSFIX_COMMIT_H
#define MPSFIX_COMMIT_H

#include "common.h"
#include "series.h"

typedef struct {
	bool patch;                /* mpsfix patch: objects kept in memory, no ref or file changes */
	bool squash;               /* one commit for every rule */
	bool signoff;              /* a Signed-off-by trailer with the committer's identity */
	bool allow_dirty;          /* commit even when the user changed the files too */
	const char *branch;        /* --branch NAME, or NULL: the current branch */
	const char *target_torch;  /* the Mpsfix-Target-Torch trailer, or NULL: none */
} mpsfix_commit_opts;

typedef struct mpsfix_recorder mpsfix_recorder;

/**
 * Open the repository that holds the folder `dir` to record fixes there.
 * Errors (nothing is written): no work tree; HEAD without a commit (mpsfix
 * commits only on top of a commit, never the user's files for them); a
 * detached HEAD without --branch (not for patches); a --branch name that is
 * invalid or taken; no identity (user.name, user.email).  `opts` is copied
 * (its strings are borrowed).
 */
int mpsfix_recorder_open(mpsfix_recorder **out, const char *dir, const mpsfix_commit_opts *opts);
void mpsfix_recorder_free(mpsfix_recorder *rec);

/** The branch the commits go to ("main"), or NULL when HEAD is detached. */
const char *mpsfix_recorder_branch(const mpsfix_recorder *rec);

/**
 * Add the file `path` (as discovered) to `s`, with its content in HEAD:
 * the series is made from what is committed.  MPSFIX_ESKIP, with a message
 * naming the file, when it cannot be recorded: outside the work tree,
 * inside a submodule, not committed yet, or not a regular file in HEAD.
 */
int mpsfix_recorder_add(mpsfix_recorder *rec, mpsfix_series *s, const char *path);

/**
 * The submodules of HEAD that lie in one of the folders `args` names (or
 * are one of them): their paths relative to the top of the work tree, for a
 * note that their files are not recorded (each string and *out are the
 * caller's to free).
 */
int mpsfix_recorder_submodules(char ***out, size_t *n, mpsfix_recorder *rec, char *const *args, size_t nargs);

/**
 * Before anything is written (a commit on the current branch only): the
 * files the series changes must have no staged or unstaged change — an
 * error naming them, unless allow_dirty; then each change must merge with
 * the fixes (an error naming the files where they touch the same lines),
 * unless `dirty_only`.
 */
int mpsfix_recorder_check(mpsfix_recorder *rec, const mpsfix_series *s, bool dirty_only);

typedef struct {
	char id[41];    /* the commit id (hex) */
	char *subject;  /* its first line (owned) */
} mpsfix_commit_made;

typedef struct {
	mpsfix_commit_made *items;
	size_t len;
} mpsfix_commit_list;

void mpsfix_commit_list_release(mpsfix_commit_list *l);

/**
 * Write the steps of `s` as commits on top of HEAD, one per step (one in
 * all with squash), and make them visible: a new branch at the last one
 * (--branch; HEAD, index and work tree untouched), or the current branch
 * moved to it with the index and work tree following (mpsfix_git_advance).
 * An empty series writes nothing.  Not for patches.
 */
int mpsfix_recorder_commit(mpsfix_commit_list *out, mpsfix_recorder *rec, const mpsfix_series *s);

/** One patch of a series. */
typedef struct {
	char *file;       /* "0001-mpsfix-MPS006-....patch" (owned) */
	mpsfix_buf text;  /* the e-mail */
} mpsfix_patch;

typedef struct {
	mpsfix_patch *items;
	size_t len;
} mpsfix_patch_list;

void mpsfix_patch_list_release(mpsfix_patch_list *l);

/**
 * The commits mpsfix_recorder_commit would write, as `git format-patch`
 * e-mails, without changing any ref or file (the recorder must be opened
 * with opts.patch).
 */
int mpsfix_recorder_patches(mpsfix_patch_list *out, mpsfix_recorder *rec, const mpsfix_series *s);

/**
 * The file name `git format-patch` gives patch number `nr` with subject
 * `subject`: "%04d-" then the subject's letters, digits, '.' and '_' with
 * every other run of characters turned into one '-', cut at 52 characters,
 * without '.' or '-' at its end, then ".patch" (newly allocated).
 */
char *mpsfix_patch_file_name(size_t nr, const char *subject);

#endif
