/*
 * git_core.c: the libgit2 boundary (git.c before its jobs got files of
 * their own).  The git*.c files are the only ones that include <git2.h>,
 * through git_internal.h.
 */
#include "git_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

char *mpsfix_git_worktree_path(const char *path)
{
	git_repository *repo = NULL;
	char *real = realpath(path, NULL), *top = NULL, *dir = NULL, *slash, *name = NULL;
	const char *workdir;
	size_t n;

	if (!real)
		goto done;
	dir = mpsfix_xstrdup(real);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 || git_repository_is_bare(repo) ||
	    (workdir = git_repository_workdir(repo)) == NULL || (top = realpath(workdir, NULL)) == NULL)
		goto done;
	n = strlen(top);
	if (!strncmp(real, top, n) && real[n] == '/')
		name = mpsfix_xstrdup(real + n + 1);
done:
	git_error_clear();
	git_repository_free(repo);
	free(real);
	free(top);
	free(dir);
	return name;
}

char *mpsfix_git_worktree_top(const char *path)
{
	git_repository *repo = NULL;
	char *real = realpath(path, NULL), *top = NULL, *slash;
	const char *workdir;
	struct stat sb;
	size_t n;

	if (!real || stat(real, &sb) != 0)
		goto done;
	if (!S_ISDIR(sb.st_mode) && (slash = strrchr(real, '/')) != NULL)
		*(slash == real ? slash + 1 : slash) = '\0';
	if (git_repository_open_ext(&repo, real, 0, NULL) < 0 || git_repository_is_bare(repo) ||
	    (workdir = git_repository_workdir(repo)) == NULL || (top = realpath(workdir, NULL)) == NULL)
		goto done;
	/* a folder inside .git is not in the work tree */
	n = strlen(top);
	if (strncmp(real, top, n) != 0 || (real[n] != '/' && real[n] != '\0') ||
	    (real[n] == '/' && !strncmp(real + n + 1, ".git", 4) &&
	     (real[n + 5] == '/' || real[n + 5] == '\0'))) {
		free(top);
		top = NULL;
	}
done:
	git_error_clear();
	git_repository_free(repo);
	free(real);
	return top;
}


/* See git_internal.h. */
int mpsfix_git__open_worktree(git_repository **repo, char **rel, const char *real_dir)
{
	const char *workdir;
	char *top = NULL;
	size_t n;
	int rc, error = 0;

	*repo = NULL;
	*rel = NULL;
	if ((rc = git_repository_open_ext(repo, real_dir, 0, NULL)) < 0) {
		if (rc == GIT_ENOTFOUND)
			git_error_clear();
		else
			error = mpsfix_git__fail(rc, real_dir);
		goto done;
	}
	if (git_repository_is_bare(*repo) || (workdir = git_repository_workdir(*repo)) == NULL)
		goto not_here;
	if ((top = realpath(workdir, NULL)) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", workdir, strerror(errno));
		goto done;
	}
	n = strlen(top);
	if (strcmp(real_dir, top) == 0) {
		*rel = mpsfix_xstrdup("");
	} else if (strncmp(real_dir, top, n) == 0 && (real_dir[n] == '/' || n == 1)) {
		const char *below = real_dir + (n == 1 ? 1 : n + 1);
		/* the repository's own folder is no part of the work tree */
		if (strncmp(below, ".git", 4) == 0 && (below[4] == '/' || below[4] == '\0'))
			goto not_here;
		*rel = mpsfix_xasprintf("%s/", below);
	} else {
		goto not_here;
	}
	goto done;
not_here:
	git_repository_free(*repo);
	*repo = NULL;
done:
	if (error < 0) {
		git_repository_free(*repo);
		*repo = NULL;
	}
	free(top);
	return error;
}

int mpsfix_git__cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Open the work tree holding the file `path` and name the file relative to
 * its top (*name).  The folder part is resolved like realpath, the last
 * component is kept (a symlinked file is the link git tracks).  *repo is
 * NULL (and 0 returned) when no work tree holds it.
 */
static int open_for_file(git_repository **repo, char **name, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *folder, *real = NULL, *rel = NULL;
	const char *base;
	int error = 0;

	*repo = NULL;
	*name = NULL;
	if (!slash) {
		folder = mpsfix_xstrdup(".");
		base = path;
	} else {
		folder = mpsfix_xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
		base = slash + 1;
	}
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not a file name", path);
		goto done;
	}
	if ((real = realpath(folder, NULL)) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", path, strerror(errno));
		goto done;
	}
	if ((error = mpsfix_git__open_worktree(repo, &rel, real)) < 0 || !*repo)
		goto done;
	*name = mpsfix_xasprintf("%s%s", rel, base);
done:
	free(folder);
	free(real);
	free(rel);
	return error;
}

int mpsfix_git_read_staged(mpsfix_buf *out, const char *path)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_blob *blob = NULL;
	const git_index_entry *e;
	git_oid id;
	char *name = NULL;
	int rc, error;

	if ((error = open_for_file(&repo, &name, path)) < 0)
		goto done;
	if (!repo) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not in a git work tree", path);
		goto done;
	}
	if ((rc = git_repository_index(&index, repo)) < 0) {
		error = mpsfix_git__fail(rc, path);
		goto done;
	}
	if ((e = git_index_get_bypath(index, name, 0)) == NULL || e->mode == GIT_FILEMODE_COMMIT) {
		git_error_clear();
		error = mpsfix_error_set(MPSFIX_ENOMATCH, "%s: not staged", path);
		goto done;
	}
	git_oid_cpy(&id, &e->id);
	if ((rc = git_blob_lookup(&blob, repo, &id)) < 0) {
		error = mpsfix_git__fail(rc, path);
		goto done;
	}
	mpsfix_buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
done:
	git_blob_free(blob);
	git_index_free(index);
	git_repository_free(repo);
	free(name);
	return error;
}

typedef ARRAY(mpsfix_line_range) range_list;

/* Add lines first..last to `r`, whose lines arrive in increasing order. */
static void add_line(range_list *r, uint32_t first, uint32_t last)
{
	if (r->len && first <= r->items[r->len - 1].last + 1) {
		if (last > r->items[r->len - 1].last)
			r->items[r->len - 1].last = last;
		return;
	}
	ARRAY_PUSH(r, ((mpsfix_line_range){first, last}));
}

/* The added lines of the new side of `patch`. */
static int patch_lines(range_list *r, git_patch *patch, const char *path)
{
	size_t hunks = git_patch_num_hunks(patch);

	for (size_t h = 0; h < hunks; h++) {
		int lines = git_patch_num_lines_in_hunk(patch, h);

		for (int l = 0; l < lines; l++) {
			const git_diff_line *line;
			int rc = git_patch_get_line_in_hunk(&line, patch, h, (size_t)l);

			if (rc < 0)
				return mpsfix_git__fail(rc, path);
			if (line->origin == GIT_DIFF_LINE_ADDITION && line->new_lineno > 0)
				add_line(r, (uint32_t)line->new_lineno, (uint32_t)line->new_lineno);
		}
	}
	return 0;
}

int mpsfix_git_changed_lines(mpsfix_line_range **out, size_t *n, const char *path,
			     const char *ref, bool staged)
{
	git_repository *repo = NULL;
	git_object *obj = NULL, *tree = NULL;
	git_tree_entry *entry = NULL;
	git_diff *diff = NULL;
	git_patch *patch = NULL;
	git_diff_options opts;
	range_list r = {0};
	char *name = NULL;
	bool seen = false;
	int rc, error;

	*out = NULL;
	*n = 0;
	if ((error = open_for_file(&repo, &name, path)) < 0)
		goto done;
	if (!repo) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not in a git work tree", path);
		goto done;
	}
	if ((rc = git_revparse_single(&obj, repo, ref)) < 0 ||
	    (rc = git_object_peel(&tree, obj, GIT_OBJECT_TREE)) < 0) {
		const git_error *e = git_error_last();
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not a commit: %s", ref,
					 e && e->message ? e->message : "no detail");
		goto done;
	}
	if ((rc = git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION)) < 0) {
		error = mpsfix_git__fail(rc, path);
		goto done;
	}
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	opts.flags = GIT_DIFF_FORCE_TEXT | GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (!staged)
		opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
	opts.pathspec.strings = &name;
	opts.pathspec.count = 1;
	rc = staged ? git_diff_tree_to_index(&diff, repo, (git_tree *)tree, NULL, &opts)
		    : git_diff_tree_to_workdir_with_index(&diff, repo, (git_tree *)tree, &opts);
	if (rc < 0) {
		error = mpsfix_git__fail(rc, path);
		goto done;
	}
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (!d || strcmp(d->new_file.path, name) != 0)
			continue;
		seen = true;
		switch (d->status) {
		case GIT_DELTA_ADDED:
		case GIT_DELTA_UNTRACKED:
		case GIT_DELTA_IGNORED:
		case GIT_DELTA_TYPECHANGE:
			add_line(&r, 1, UINT32_MAX);
			break;
		case GIT_DELTA_MODIFIED:
			if ((rc = git_patch_from_diff(&patch, diff, i)) < 0) {
				error = mpsfix_git__fail(rc, path);
				goto done;
			}
			if (patch && (error = patch_lines(&r, patch, path)) < 0)
				goto done;
			git_patch_free(patch);
			patch = NULL;
			break;
		default: /* deleted, unmodified: nothing on the new side */
			break;
		}
	}
	/* not in the diff, yet in the work tree and not at REF (an ignored file,
	 * say): new */
	if (!seen && !staged) {
		struct stat st;
		rc = git_tree_entry_bypath(&entry, (git_tree *)tree, name);
		if (rc == GIT_ENOTFOUND && lstat(path, &st) == 0 && !S_ISDIR(st.st_mode))
			add_line(&r, 1, UINT32_MAX);
		else if (rc < 0 && rc != GIT_ENOTFOUND) {
			error = mpsfix_git__fail(rc, path);
			goto done;
		}
		git_error_clear();
	}
	*out = r.items;
	*n = r.len;
	r.items = NULL;
done:
	free(r.items);
	git_patch_free(patch);
	git_diff_free(diff);
	git_tree_entry_free(entry);
	git_object_free(tree);
	git_object_free(obj);
	git_repository_free(repo);
	free(name);
	return error;
}
