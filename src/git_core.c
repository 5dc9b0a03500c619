/*
 * git_core.c: the libgit2 boundary (git.c before its jobs got files of
 * their own).  The git*.c files are the only ones that include <git2.h>,
 * through git_internal.h.
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

int mpsfix_git_diff(mpsfix_buf *out, const char *path, const char *old, size_t old_len,
		    const char *new_text, size_t new_len)
{
	git_diff_options opts;
	git_patch *patch = NULL;
	git_buf text = GIT_BUF_INIT;
	int rc, error = 0;

	/* a NULL buffer would mean "no file" to libgit2: here it is empty text */
	if (!old)
		old = "";
	if (!new_text)
		new_text = "";
	if (old_len == new_len && (old_len == 0 || memcmp(old, new_text, old_len) == 0))
		return 0;
	if ((rc = git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION)) < 0)
		return mpsfix_git__fail(rc, path);
	opts.context_lines = 3;
	/* a source file is text, whatever libgit2's binary heuristics say */
	opts.flags = GIT_DIFF_FORCE_TEXT;
	if ((rc = git_patch_from_buffers(&patch, old, old_len, path,
					 new_text, new_len, path, &opts)) < 0) {
		error = mpsfix_git__fail(rc, path);
		goto done;
	}
	if (git_patch_num_hunks(patch) == 0)
		goto done;
	if ((rc = git_patch_to_buf(&text, patch)) < 0) {
		error = mpsfix_git__fail(rc, path);
		goto done;
	}
	mpsfix_buf_add(out, text.ptr, text.size);
done:
	git_buf_dispose(&text);
	git_patch_free(patch);
	return error;
}

int mpsfix_git__cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
