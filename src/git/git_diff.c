/*
 * git_diff.c: the unified diff of two texts of one file, as `git apply`
 * takes it (mpsfix diff and review).
 */
#include "git_internal.h"

#include <string.h>

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
