/*
 * git_carry.c: moving the current branch to the fix commits and carrying
 * the user's index and work tree along (mpsfix commit): unchanged files
 * are checked out, changed ones get the fix merged into the change.
 */
#include "git_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"

/* What becomes of one changed file that the user changed too. */
typedef struct {
	const mpsfix_git_change *fix;
	bool index_entry;         /* the index has the file: its entry gets `index_text` */
	mpsfix_buf index_text;    /* the staged content with the fix merged in */
	bool worktree;            /* the work tree has the file: it gets `worktree_text` */
	mpsfix_buf worktree_text; /* the work tree content with the fix merged in (work tree form) */
} kept_change;

/* Merge `fix` (made on `base`) into `ours`: 1 when it merges cleanly (into out), 0 on a conflict. */
static int merge_text(mpsfix_buf *out, const char *name, const char *base, size_t base_len,
		      const char *ours, size_t ours_len, const char *fix, size_t fix_len)
{
	git_merge_file_input a, o, t;
	git_merge_file_options opts;
	git_merge_file_result res;
	int rc, clean;

	if (ours_len == base_len && memcmp(ours, base, base_len) == 0) {
		mpsfix_buf_add(out, fix, fix_len);
		return 1;
	}
	memset(&res, 0, sizeof(res));
	if ((rc = git_merge_file_input_init(&a, GIT_MERGE_FILE_INPUT_VERSION)) < 0 ||
	    (rc = git_merge_file_input_init(&o, GIT_MERGE_FILE_INPUT_VERSION)) < 0 ||
	    (rc = git_merge_file_input_init(&t, GIT_MERGE_FILE_INPUT_VERSION)) < 0 ||
	    (rc = git_merge_file_options_init(&opts, GIT_MERGE_FILE_OPTIONS_VERSION)) < 0)
		return mpsfix_git__fail(rc, name);
	a.ptr = base;
	a.size = base_len;
	a.path = name;
	o.ptr = ours;
	o.size = ours_len;
	o.path = name;
	t.ptr = fix;
	t.size = fix_len;
	t.path = name;
	if ((rc = git_merge_file(&res, &a, &o, &t, &opts)) < 0)
		return mpsfix_git__fail(rc, name);
	clean = res.automergeable != 0;
	if (clean)
		mpsfix_buf_add(out, res.ptr, res.len);
	git_merge_file_result_free(&res);
	return clean;
}

/* Convert `data` for file `name` between the repository's and the work tree's form. */
static int filter_text(mpsfix_buf *out, git_repository *repo, const char *name, git_filter_mode_t mode,
		       const char *data, size_t len)
{
	git_filter_list *fl = NULL;
	git_buf b = GIT_BUF_INIT;
	int rc;

	if ((rc = git_filter_list_load(&fl, repo, NULL, name, mode, GIT_FILTER_DEFAULT)) < 0)
		return mpsfix_git__fail(rc, name);
	if (!fl) {
		mpsfix_buf_add(out, data, len);
		return 0;
	}
	rc = git_filter_list_apply_to_buffer(&b, fl, data, len);
	git_filter_list_free(fl);
	if (rc < 0) {
		git_buf_dispose(&b);
		return mpsfix_git__fail(rc, name);
	}
	mpsfix_buf_add(out, b.ptr, b.size);
	git_buf_dispose(&b);
	return 0;
}

/* Read work tree file `name` into `out`; *present is false when it is not a regular file there. */
static int read_worktree(mpsfix_buf *out, bool *present, const mpsfix_git_repo *r, const char *name)
{
	char *path = mpsfix_xasprintf("%s%s", r->top, name);
	char chunk[65536];
	struct stat st;
	FILE *f = NULL;
	size_t got;
	int error = 0;

	*present = false;
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		goto done;
	*present = true;
	if ((f = fopen(path, "rb")) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", path, strerror(errno));
		goto done;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		mpsfix_buf_add(out, chunk, got);
	if (ferror(f))
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", path, strerror(errno));
done:
	if (f)
		fclose(f);
	free(path);
	return error;
}

/* Plan how the user's change of `k->fix->name` is kept: 0, or MPSFIX_ECONFLICT. */
static int plan_kept(kept_change *k, mpsfix_git_repo *r, git_tree *head_tree, git_index *index)
{
	const char *name = k->fix->name;
	git_tree_entry *e = NULL;
	git_blob *base = NULL, *staged = NULL;
	const git_index_entry *ie;
	mpsfix_buf wt = MPSFIX_BUF_INIT, wt_odb = MPSFIX_BUF_INIT, merged = MPSFIX_BUF_INIT;
	const char *base_data;
	size_t base_len;
	bool present;
	int rc, clean, error = 0;

	if ((rc = git_tree_entry_bypath(&e, head_tree, name)) < 0 ||
	    (rc = git_blob_lookup(&base, r->repo, git_tree_entry_id(e))) < 0) {
		error = mpsfix_git__fail(rc, name);
		goto done;
	}
	base_data = git_blob_rawcontent(base);
	base_len = (size_t)git_blob_rawsize(base);

	/* the index: its entry gets the fix (merged into a staged change) */
	if ((ie = git_index_get_bypath(index, name, 0)) != NULL) {
		if (ie->mode != GIT_FILEMODE_BLOB && ie->mode != GIT_FILEMODE_BLOB_EXECUTABLE) {
			error = mpsfix_error_set(MPSFIX_ECONFLICT, "%s: staged as another kind of file", name);
			goto done;
		}
		if ((rc = git_blob_lookup(&staged, r->repo, &ie->id)) < 0) {
			error = mpsfix_git__fail(rc, name);
			goto done;
		}
		k->index_entry = true;
		if ((clean = merge_text(&k->index_text, name, base_data, base_len,
					git_blob_rawcontent(staged), (size_t)git_blob_rawsize(staged),
					k->fix->data, k->fix->len)) < 0) {
			error = clean;
			goto done;
		}
		if (!clean) {
			error = mpsfix_error_set(MPSFIX_ECONFLICT, "%s: the staged change touches the lines "
						 "the fix changes", name);
			goto done;
		}
	} else if (git_index_get_bypath(index, name, 1) || git_index_get_bypath(index, name, 2)) {
		error = mpsfix_error_set(MPSFIX_ECONFLICT, "%s: has merge conflicts", name);
		goto done;
	}
	git_error_clear();

	/* the work tree: its file gets the fix merged in, in the work tree's form */
	if ((error = read_worktree(&wt, &present, r, name)) < 0)
		goto done;
	if (!present)
		goto done;
	if ((error = filter_text(&wt_odb, r->repo, name, GIT_FILTER_TO_ODB, wt.data ? wt.data : "", wt.len)) < 0)
		goto done;
	if ((clean = merge_text(&merged, name, base_data, base_len, wt_odb.data ? wt_odb.data : "",
				wt_odb.len, k->fix->data, k->fix->len)) < 0) {
		error = clean;
		goto done;
	}
	if (!clean) {
		error = mpsfix_error_set(MPSFIX_ECONFLICT, "%s: the uncommitted change touches the "
					 "lines the fix changes", name);
		goto done;
	}
	k->worktree = true;
	error = filter_text(&k->worktree_text, r->repo, name, GIT_FILTER_TO_WORKTREE,
			    merged.data ? merged.data : "", merged.len);
done:
	mpsfix_buf_release(&wt);
	mpsfix_buf_release(&wt_odb);
	mpsfix_buf_release(&merged);
	git_blob_free(staged);
	git_blob_free(base);
	git_tree_entry_free(e);
	return error;
}

/* Write the planned index entries and work tree files of the kept changes. */
static int write_kept(mpsfix_git_repo *r, kept_change *kept, size_t n)
{
	git_index *index = NULL;
	int rc, error = 0;

	if ((rc = git_repository_index(&index, r->repo)) < 0 || (rc = git_index_read(index, 1)) < 0) {
		error = mpsfix_git__fail(rc, "cannot read the index");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		kept_change *k = &kept[i];
		const git_index_entry *ie;
		git_index_entry entry;

		if (k->worktree) {
			char *path = mpsfix_xasprintf("%s%s", r->top, k->fix->name);
			struct stat st;
			bool have = stat(path, &st) == 0;

			error = mpsfix_source_write_atomic(path, k->worktree_text.data ? k->worktree_text.data : "",
							   k->worktree_text.len, have, have ? (unsigned)st.st_mode : 0);
			free(path);
			if (error < 0)
				goto done;
		}
		if (!k->index_entry || (ie = git_index_get_bypath(index, k->fix->name, 0)) == NULL)
			continue;
		entry = *ie;
		if ((rc = git_blob_create_from_buffer(&entry.id, r->repo, k->index_text.data ? k->index_text.data : "",
						      k->index_text.len)) < 0) {
			error = mpsfix_git__fail(rc, k->fix->name);
			goto done;
		}
		/* no stat data: git compares the content next time instead of trusting it */
		memset(&entry.ctime, 0, sizeof(entry.ctime));
		memset(&entry.mtime, 0, sizeof(entry.mtime));
		entry.dev = entry.ino = entry.uid = entry.gid = 0;
		entry.file_size = 0;
		if ((rc = git_index_add(index, &entry)) < 0) {
			error = mpsfix_git__fail(rc, k->fix->name);
			goto done;
		}
	}
	if ((rc = git_index_write(index)) < 0)
		error = mpsfix_git__fail(rc, "cannot write the index");
done:
	git_index_free(index);
	return error;
}

/*
 * Can the index be written: is it free of another git's lock?  Asked before
 * anything is written, as git commit asks first: a branch moved over an
 * index that stays behind makes the next `git commit` undo the fixes.
 */
static int index_free(mpsfix_git_repo *r)
{
	char *lock = mpsfix_xasprintf("%sindex.lock", git_repository_path(r->repo));
	int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666), error = 0;

	if (fd >= 0) {
		close(fd);
		unlink(lock);
	} else {
		error = mpsfix_error_set(MPSFIX_ERROR, errno == EEXIST ?
					 "the index is locked (%s exists: another git command is running, or one "
					 "was stopped; remove the file if none is)" : "cannot lock the index (%s): %s",
					 lock, strerror(errno));
	}
	free(lock);
	return error;
}

int mpsfix_git_advance(mpsfix_git_repo *r, const char *id, const mpsfix_git_change *final, size_t n)
{
	git_tree *head_tree = NULL;
	git_commit *target = NULL;
	git_tree *target_tree = NULL;
	git_index *index = NULL;
	git_reference *moved = NULL;
	kept_change *kept = mpsfix_xcalloc(n ? n : 1, sizeof(*kept));
	char **clean = mpsfix_xcalloc(n ? n : 1, sizeof(*clean));
	mpsfix_buf conflicts = MPSFIX_BUF_INIT;
	size_t nkept = 0, nclean = 0;
	git_oid oid;
	int rc, error = 0;

	if (r->info.unborn || !r->refname) {
		error = mpsfix_error_set(MPSFIX_ERROR, r->info.unborn ? "HEAD has no commit yet"
							: "HEAD is detached: no branch to move");
		goto done;
	}
	if ((error = index_free(r)) < 0 ||
	    (error = mpsfix_git__commit_tree(&head_tree, NULL, r->repo, &r->head)) < 0)
		goto done;
	if ((rc = git_repository_index(&index, r->repo)) < 0) {
		error = mpsfix_git__fail(rc, "cannot read the index");
		goto done;
	}
	/* first every check, then every write */
	for (size_t i = 0; i < n; i++) {
		bool staged, unstaged;

		if ((error = mpsfix_git_repo_status(&staged, &unstaged, r, final[i].name)) < 0)
			goto done;
		if (!staged && !unstaged) {
			clean[nclean++] = (char *)final[i].name;
			continue;
		}
		kept[nkept].fix = &final[i];
		error = plan_kept(&kept[nkept++], r, head_tree, index);
		if (error == MPSFIX_ECONFLICT) {
			mpsfix_buf_printf(&conflicts, "%s%s", conflicts.len ? "; " : "", mpsfix_error_last()->message);
			error = 0;
		} else if (error < 0) {
			goto done;
		}
	}
	if (conflicts.len) {
		error = mpsfix_error_set(MPSFIX_ERROR, "cannot keep your uncommitted changes on top of the "
					 "fixes: %s (commit or stash them first)", conflicts.data);
		goto done;
	}
	if (!id)
		goto done;

	if ((error = mpsfix_git__parse_id(&oid, id)) < 0 ||
	    (error = mpsfix_git__commit_tree(&target_tree, &target, r->repo, &oid)) < 0)
		goto done;
	/* the branch moves only from where it was */
	{
		const char *summary = git_commit_summary(target);
		char *log = mpsfix_xasprintf("mpsfix commit: %s", summary ? summary : "");

		rc = git_reference_create_matching(&moved, r->repo, r->refname, &oid, 1, &r->head, log);
		free(log);
		if (rc < 0) {
			error = mpsfix_git__fail(rc, r->refname);
			goto done;
		}
	}
	/* unchanged files: checked out from the new commit */
	if (nclean) {
		git_checkout_options co;

		if ((rc = git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION)) < 0) {
			error = mpsfix_git__fail(rc, "checkout");
			goto done;
		}
		co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
		co.paths.strings = clean;
		co.paths.count = nclean;
		co.baseline = head_tree;
		if ((rc = git_checkout_tree(r->repo, (git_object *)target_tree, &co)) < 0) {
			error = mpsfix_git__fail(rc, "the work tree could not be updated");
			goto undo;
		}
	}
	/* changed files: the fix merged into the user's change */
	if (nkept && (error = write_kept(r, kept, nkept)) < 0)
		goto undo;
	git_oid_cpy(&r->head, &oid);
	git_oid_tostr(r->info.head, sizeof(r->info.head), &oid);
	goto done;
undo:
	/* the branch goes back, so that no commit is left over an index or work
	   tree that does not hold it (the next git commit would undo the fixes);
	   files checked out already hold the fixes, which git status shows */
	{
		git_reference *back = NULL;
		char *why = mpsfix_xstrdup(mpsfix_error_last()->message);

		rc = git_reference_create_matching(&back, r->repo, r->refname, &r->head, 1, &oid,
						   "mpsfix commit: undone, the work tree could not be updated");
		git_reference_free(back);
		error = mpsfix_error_set(MPSFIX_ERROR, rc < 0 ? "%s; the commits are made, and the branch "
					 "could not be moved back" : "%s; the branch is back where it was (files "
					 "written before hold the fixes, uncommitted)",
					 why);
		free(why);
	}
done:
	for (size_t i = 0; i < nkept; i++) {
		mpsfix_buf_release(&kept[i].index_text);
		mpsfix_buf_release(&kept[i].worktree_text);
	}
	free(kept);
	free(clean);
	mpsfix_buf_release(&conflicts);
	git_reference_free(moved);
	git_index_free(index);
	git_tree_free(target_tree);
	git_commit_free(target);
	git_tree_free(head_tree);
	return error;
}
