/*
 * git_read.c: reads for one file named by its path, in whatever work tree
 * holds it (no mpsfix_git_repo): its content staged in the index
 * (--staged) and the lines that changed since a commit (--since).
 */
#include "git_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Open the work tree holding the file `path` and name the file relative to
 * its top (*name).  The folder part is resolved like realpath, the last
 * component is kept (a symlinked file is the link git tracks).  A file no
 * work tree holds is an error.
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
	if ((error = mpsfix_git__open_worktree(repo, &rel, real)) < 0)
		goto done;
	if (!*repo) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not in a git work tree", path);
		goto done;
	}
	*name = mpsfix_xasprintf("%s%s", rel, base);
done:
	free(folder);
	free(real);
	free(rel);
	return error;
}

/*
 * Open the work tree holding `path`, its index and the file's entry there
 * (*e); MPSFIX_ENOMATCH when the file is not in the index (or is a
 * submodule's commit).  The caller frees *repo, *index and *name.
 */
static int staged_entry(git_repository **repo, git_index **index, char **name, const git_index_entry **e,
			const char *path)
{
	int rc, error;

	*index = NULL;
	if ((error = open_for_file(repo, name, path)) < 0)
		return error;
	if ((rc = git_repository_index(index, *repo)) < 0)
		return mpsfix_git__fail(rc, path);
	if ((*e = git_index_get_bypath(*index, *name, 0)) == NULL || (*e)->mode == GIT_FILEMODE_COMMIT) {
		git_error_clear();
		return mpsfix_error_set(MPSFIX_ENOMATCH, "%s: not staged", path);
	}
	return 0;
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

	if ((error = staged_entry(&repo, &index, &name, &e, path)) < 0)
		goto done;
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

/* HEAD's tree, or NULL where HEAD has no commit yet. */
static int head_tree(git_tree **out, git_repository *repo)
{
	git_reference *ref = NULL;
	int rc = git_repository_head(&ref, repo);

	*out = NULL;
	if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc == 0)
		rc = git_reference_peel((git_object **)out, ref, GIT_OBJECT_TREE);
	git_reference_free(ref);
	return rc;
}

int mpsfix_git_staged_changed(bool *changed, const char *path)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_tree *head = NULL;
	git_tree_entry *was = NULL;
	const git_index_entry *e;
	char *name = NULL;
	int rc, error;

	*changed = false;
	if ((error = staged_entry(&repo, &index, &name, &e, path)) < 0) {
		if (error == MPSFIX_ENOMATCH)
			error = 0; /* not staged at all */
		goto done;
	}
	if ((rc = head_tree(&head, repo)) < 0) {
		error = mpsfix_git__fail(rc, path);
		goto done;
	}
	/* new in the index (or no commit yet), or staged other than HEAD has it */
	*changed = !head || git_tree_entry_bypath(&was, head, name) < 0 ||
		   !git_oid_equal(git_tree_entry_id(was), &e->id) ||
		   (uint32_t)git_tree_entry_filemode(was) != e->mode;
	git_error_clear();
done:
	git_tree_entry_free(was);
	git_tree_free(head);
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
