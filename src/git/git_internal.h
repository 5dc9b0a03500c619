/*
 * git_internal.h: what the git*.c files share and no other file sees:
 * libgit2 itself (<git2.h>, versions 1.5 to 1.9), the insides of
 * mpsfix_git_repo, and the helpers more than one of them needs.  Only
 * src/git*.c include it; every other file asks git.h.
 */
#ifndef MPSFIX_GIT_INTERNAL_H
#define MPSFIX_GIT_INTERNAL_H

#include "git.h"

#include <git2.h>

/*
 * libgit2 1.5 to 1.9.  1.8 moved git_error_clear to git2/sys/errors.h (1.9
 * names its version macros LIBGIT2_VERSION_*, and hides the old LIBGIT2_VER_*
 * under GIT_DEPRECATE_HARD).
 */
#if defined(LIBGIT2_VERSION_MAJOR)
#define MPSFIX_LIBGIT2 (LIBGIT2_VERSION_MAJOR * 100 + LIBGIT2_VERSION_MINOR)
#else
#define MPSFIX_LIBGIT2 (LIBGIT2_VER_MAJOR * 100 + LIBGIT2_VER_MINOR)
#endif
#if MPSFIX_LIBGIT2 >= 108
#include <git2/sys/errors.h>
#endif
/* the length of a commit id in hex: GIT_OID_HEXSZ in 1.5, deprecated for GIT_OID_SHA1_HEXSIZE */
#ifdef GIT_OID_SHA1_HEXSIZE
#define OID_HEXSZ GIT_OID_SHA1_HEXSIZE
#else
#define OID_HEXSZ GIT_OID_HEXSZ
#endif

struct mpsfix_git_repo {
	git_repository *repo;
	char *top;               /* real path of the work tree, ending in '/' */
	char *refname;           /* the branch HEAD names ("refs/heads/main"), NULL when detached */
	git_oid head;            /* HEAD's commit, unless unborn */
	git_signature *sig;      /* the identity, once asked for */
	mpsfix_git_head info;
};

/** Turn the last libgit2 error (`code`, about `what`) into an mpsfix error; returns the mpsfix code. */
int mpsfix_git__fail(int code, const char *what);

/*
 * Open the repository whose work tree holds the folder `real_dir` (a real,
 * absolute path).  Sets *repo (NULL when no work tree holds it: not found,
 * bare, or the folder is outside the work tree) and *rel, the folder's name
 * relative to the top of the work tree ("" for the top itself, else ending
 * in '/').  Errors other than "no repository" are returned.
 */
int mpsfix_git__open_worktree(git_repository **repo, char **rel, const char *real_dir);

/** Parse the commit id `hex` (all 40 digits); an error naming it otherwise. */
int mpsfix_git__parse_id(git_oid *out, const char *hex);

/** The tree of commit `id`, and the commit itself in *commit_out when that is not NULL. */
int mpsfix_git__commit_tree(git_tree **out, git_commit **commit_out, git_repository *repo, const git_oid *id);

#endif
