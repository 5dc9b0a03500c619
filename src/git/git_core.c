/*
 * git_core.c: libgit2 itself for the git*.c files: starting and stopping
 * it, naming its version, and turning its errors into mpsfix errors.
 * git.h is the public API of the git*.c files, git_internal.h what they
 * share (and their only way to <git2.h>).  The others: git_worktree.c
 * (which work tree holds a path), git_diff.c (the diff of two texts),
 * git_list.c (the files to look at), git_read.c (--staged, --since),
 * git_repo.c (the repository commits are written to), git_carry.c (the
 * branch, index and work tree brought along) and git_email.c (patches).
 */
#include "git_internal.h"

#include <stdio.h>
#include <string.h>

/* Turn the last libgit2 error into an mpsfix error. */
int mpsfix_git__fail(int code, const char *what)
{
	const git_error *e = git_error_last();
	const char *detail = e && e->message ? e->message : "no detail";

	if (code == GIT_ELOCKED) { /* a .lock file left by a killed git (or mpsfix), or one at work */
		size_t n = strlen(detail);

		while (n && (detail[n - 1] == ' ' || detail[n - 1] == ':'))
			n--; /* libgit2 ends it with ": " and an empty reason */
		return mpsfix_error_set(MPSFIX_ERROR, "%s: %.*s; another git process seems to be running "
					"in this repository; if none is, remove the .lock file and try again",
					what, (int)n, detail);
	}
	return mpsfix_error_set(MPSFIX_ERROR, "%s: git error %d: %s", what, code, detail);
}

int mpsfix_git_init(void)
{
	int rc = git_libgit2_init();

	return rc < 0 ? mpsfix_git__fail(rc, "cannot initialise libgit2") : 0;
}

void mpsfix_git_shutdown(void)
{
	git_libgit2_shutdown();
}

const char *mpsfix_git_version(void)
{
	static _Thread_local char version[32];
	int major = 0, minor = 0, rev = 0;

	git_libgit2_version(&major, &minor, &rev);
	snprintf(version, sizeof(version), "%d.%d.%d", major, minor, rev);
	return version;
}
