/*
 * git_repo.c: the repository fixes are recorded in (mpsfix_git_repo): open
 * it and read where HEAD is, name files in its work tree, read HEAD's
 * files and the user's status, and write commits and branches without
 * touching the work tree.  Commit ids and commit trees for the other
 * git_*.c files are read here too.
 */
#include "git_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>

#include "strvec.h"

int mpsfix_git__parse_id(git_oid *out, const char *hex)
{
	if (!hex || strlen(hex) != OID_HEXSZ || git_oid_fromstr(out, hex) < 0) {
		git_error_clear();
		return mpsfix_error_set(MPSFIX_ERROR, "'%s' is not a commit id", hex ? hex : "(null)");
	}
	return 0;
}

int mpsfix_git_repo_open(mpsfix_git_repo **out, const char *dir, bool in_memory)
{
	mpsfix_git_repo *r = mpsfix_xcalloc(1, sizeof(*r));
	git_reference *head = NULL;
	git_odb *odb = NULL;
	git_odb_backend *mempack = NULL;
	char *real = NULL, *rel = NULL;
	int rc, error = 0;

	*out = NULL;
	if ((real = realpath(dir, NULL)) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", dir, strerror(errno));
		goto done;
	}
	if ((error = mpsfix_git__open_worktree(&r->repo, &rel, real)) < 0)
		goto done;
	if (!r->repo) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not in a git work tree", dir);
		goto done;
	}
	if ((r->top = realpath(git_repository_workdir(r->repo), NULL)) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", git_repository_workdir(r->repo),
					 strerror(errno));
		goto done;
	}
	if (strcmp(r->top, "/") != 0) {
		char *slashed = mpsfix_xasprintf("%s/", r->top);

		free(r->top);
		r->top = slashed;
	}
	if (in_memory) {
		/* objects are written to the backend of highest priority that writes: memory */
		if ((rc = git_repository_odb(&odb, r->repo)) < 0 || (rc = git_mempack_new(&mempack)) < 0) {
			error = mpsfix_git__fail(rc, "cannot keep objects in memory");
			goto done;
		}
		if ((rc = git_odb_add_backend(odb, mempack, 1000)) < 0) {
			mempack->free(mempack); /* the odb owns it only once added */
			error = mpsfix_git__fail(rc, "cannot keep objects in memory");
			goto done;
		}
	}
	/* HEAD: a branch (perhaps without a commit yet) or a detached commit */
	if ((rc = git_reference_lookup(&head, r->repo, "HEAD")) < 0) {
		error = mpsfix_git__fail(rc, "cannot read HEAD");
		goto done;
	}
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		const char *target = git_reference_symbolic_target(head);

		r->refname = mpsfix_xstrdup(target);
		r->info.branch = r->refname + (strncmp(target, "refs/heads/", 11) == 0 ? 11 : 0);
	}
	rc = git_reference_name_to_id(&r->head, r->repo, "HEAD");
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		r->info.unborn = true;
	} else if (rc < 0) {
		error = mpsfix_git__fail(rc, "cannot resolve HEAD");
		goto done;
	} else {
		git_oid_tostr(r->info.head, sizeof(r->info.head), &r->head);
	}
	r->info.top = r->top;
done:
	git_reference_free(head);
	git_odb_free(odb);
	free(real);
	free(rel);
	if (error < 0)
		mpsfix_git_repo_free(r);
	else
		*out = r;
	return error;
}

void mpsfix_git_repo_free(mpsfix_git_repo *r)
{
	if (!r)
		return;
	git_signature_free(r->sig);
	git_repository_free(r->repo);
	free(r->top);
	free(r->refname);
	free(r);
}

const mpsfix_git_head *mpsfix_git_repo_head(const mpsfix_git_repo *r)
{
	return &r->info;
}

/* The tree of commit `id`. */
int mpsfix_git__commit_tree(git_tree **out, git_commit **commit_out, git_repository *repo, const git_oid *id)
{
	git_commit *c = NULL;
	int rc;

	*out = NULL;
	if ((rc = git_commit_lookup(&c, repo, id)) < 0 || (rc = git_commit_tree(out, c)) < 0) {
		char hex[OID_HEXSZ + 1];

		git_commit_free(c);
		git_oid_tostr(hex, sizeof(hex), id);
		return mpsfix_git__fail(rc, hex);
	}
	if (commit_out)
		*commit_out = c;
	else
		git_commit_free(c);
	return 0;
}

/* Is `prefix` a submodule (a commit entry) in HEAD's tree or in the index? */
static bool is_submodule(git_tree *tree, git_index *index, const char *prefix)
{
	git_tree_entry *e = NULL;
	const git_index_entry *ie;
	bool sub = false;

	if (tree && git_tree_entry_bypath(&e, tree, prefix) == 0)
		sub = git_tree_entry_filemode(e) == GIT_FILEMODE_COMMIT;
	git_tree_entry_free(e);
	if (!sub && index && (ie = git_index_get_bypath(index, prefix, 0)) != NULL)
		sub = ie->mode == GIT_FILEMODE_COMMIT;
	git_error_clear();
	return sub;
}

int mpsfix_git_repo_name(char **out, char **submodule, const mpsfix_git_repo *r, const char *path)
{
	const char *slash = strrchr(path, '/'), *base;
	char *folder, *real = NULL, *name = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	size_t n = strlen(r->top);
	int rc, error = 0;

	*out = NULL;
	if (submodule)
		*submodule = NULL;
	folder = slash ? mpsfix_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : mpsfix_xstrdup(".");
	base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not a file name", path);
		goto done;
	}
	if ((real = realpath(folder, NULL)) == NULL) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: %s", path, strerror(errno));
		goto done;
	}
	name = strcmp(real, "/") ? mpsfix_xasprintf("%s/%s", real, base) : mpsfix_xasprintf("/%s", base);
	if (strncmp(name, r->top, n) != 0)
		goto done; /* outside the work tree */
	memmove(name, name + n, strlen(name + n) + 1);
	if (!strncmp(name, ".git", 4) && (name[4] == '/' || !name[4]))
		goto done;
	if (submodule) {
		if (!r->info.unborn && (error = mpsfix_git__commit_tree(&tree, NULL, r->repo, &r->head)) < 0)
			goto done;
		if ((rc = git_repository_index(&index, r->repo)) < 0) {
			error = mpsfix_git__fail(rc, path);
			goto done;
		}
		for (char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
			*s = '\0';
			if (is_submodule(tree, index, name))
				*submodule = mpsfix_xstrdup(name);
			*s = '/';
			if (*submodule)
				break;
		}
	}
	*out = name;
	name = NULL;
done:
	git_tree_free(tree);
	git_index_free(index);
	free(folder);
	free(real);
	free(name);
	return error;
}

static int collect_submodule(const char *root, const git_tree_entry *e, void *payload)
{
	mpsfix_strvec *l = payload;

	if (git_tree_entry_filemode(e) == GIT_FILEMODE_COMMIT)
		mpsfix_strvec_push_owned(l, mpsfix_xasprintf("%s%s", root, git_tree_entry_name(e)));
	return 0;
}

int mpsfix_git_repo_submodules(char ***out, size_t *n, mpsfix_git_repo *r)
{
	mpsfix_strvec l = MPSFIX_STRVEC_INIT;
	git_tree *tree = NULL;
	int rc, error = 0;

	*out = NULL;
	*n = 0;
	if (r->info.unborn)
		return 0;
	if ((error = mpsfix_git__commit_tree(&tree, NULL, r->repo, &r->head)) < 0)
		return error;
	if ((rc = git_tree_walk(tree, GIT_TREEWALK_PRE, collect_submodule, &l)) < 0) {
		error = mpsfix_git__fail(rc, "cannot read HEAD's tree");
		mpsfix_strvec_release(&l);
	} else {
		mpsfix_strvec_sort(&l, 0);
		*out = l.items; /* the caller owns the strings and the array now */
		*n = l.len;
	}
	git_tree_free(tree);
	return error;
}

int mpsfix_git_repo_read(mpsfix_buf *out, bool *executable, mpsfix_git_repo *r, const char *name)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int rc, error = 0;

	if (r->info.unborn)
		return mpsfix_error_set(MPSFIX_ENOMATCH, "%s: not committed yet", name);
	if ((error = mpsfix_git__commit_tree(&tree, NULL, r->repo, &r->head)) < 0)
		goto done;
	if ((rc = git_tree_entry_bypath(&e, tree, name)) == GIT_ENOTFOUND) {
		git_error_clear();
		error = mpsfix_error_set(MPSFIX_ENOMATCH, "%s: not committed yet", name);
		goto done;
	} else if (rc < 0) {
		error = mpsfix_git__fail(rc, name);
		goto done;
	}
	switch (git_tree_entry_filemode(e)) {
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		break;
	case GIT_FILEMODE_LINK:
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: a symbolic link in git: skipped", name);
		goto done;
	default:
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not a file in git: skipped", name);
		goto done;
	}
	if (executable)
		*executable = git_tree_entry_filemode(e) == GIT_FILEMODE_BLOB_EXECUTABLE;
	if ((rc = git_blob_lookup(&blob, r->repo, git_tree_entry_id(e))) < 0) {
		error = mpsfix_git__fail(rc, name);
		goto done;
	}
	mpsfix_buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
done:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return error;
}

int mpsfix_git_repo_status(bool *staged, bool *unstaged, mpsfix_git_repo *r, const char *name)
{
	unsigned flags = 0;
	int rc = git_status_file(&flags, r->repo, name);

	*staged = *unstaged = false;
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0)
		return mpsfix_git__fail(rc, name);
	*staged = flags & (GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_INDEX_DELETED |
			   GIT_STATUS_INDEX_RENAMED | GIT_STATUS_INDEX_TYPECHANGE | GIT_STATUS_CONFLICTED);
	*unstaged = flags & (GIT_STATUS_WT_NEW | GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED |
			     GIT_STATUS_WT_RENAMED | GIT_STATUS_WT_TYPECHANGE | GIT_STATUS_CONFLICTED);
	return 0;
}

static int identity(mpsfix_git_repo *r)
{
	int rc;

	if (r->sig)
		return 0;
	if ((rc = git_signature_default(&r->sig, r->repo)) < 0) {
		const git_error *e = git_error_last();
		int error = mpsfix_error_set(MPSFIX_ERROR, "no identity to commit with (%s): set it with "
					     "git config user.name \"Your Name\" and "
					     "git config user.email you@example.com",
					     e && e->message ? e->message : "user.name or user.email is not set");

		git_error_clear();
		r->sig = NULL;
		return error;
	}
	return 0;
}

int mpsfix_git_repo_identity(char **out, mpsfix_git_repo *r)
{
	int error;

	*out = NULL;
	if ((error = identity(r)) < 0)
		return error;
	*out = mpsfix_xasprintf("%s <%s>", r->sig->name, r->sig->email);
	return 0;
}

int mpsfix_git_commit_write(char out[41], mpsfix_git_repo *r, const char *parent,
			    const mpsfix_git_change *changes, size_t n, const char *message)
{
	git_commit *pc = NULL;
	git_tree *ptree = NULL, *tree = NULL;
	git_tree_entry *e = NULL;
	git_tree_update *updates = mpsfix_xcalloc(n ? n : 1, sizeof(*updates));
	git_oid pid, tree_id, id;
	const git_commit *parents[1];
	int rc, error = 0;

	out[0] = '\0';
	if ((error = identity(r)) < 0)
		goto done;
	if (parent) {
		if ((error = mpsfix_git__parse_id(&pid, parent)) < 0)
			goto done;
	} else if (r->info.unborn) {
		error = mpsfix_error_set(MPSFIX_ERROR, "HEAD has no commit yet");
		goto done;
	} else {
		git_oid_cpy(&pid, &r->head);
	}
	if ((error = mpsfix_git__commit_tree(&ptree, &pc, r->repo, &pid)) < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		git_filemode_t mode;

		if ((rc = git_tree_entry_bypath(&e, ptree, changes[i].name)) < 0) {
			error = mpsfix_git__fail(rc, changes[i].name);
			goto done;
		}
		mode = git_tree_entry_filemode(e);
		git_tree_entry_free(e);
		e = NULL;
		if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) {
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: not a regular file in git", changes[i].name);
			goto done;
		}
		if ((rc = git_blob_create_from_buffer(&updates[i].id, r->repo, changes[i].data,
						      changes[i].len)) < 0) {
			error = mpsfix_git__fail(rc, changes[i].name);
			goto done;
		}
		updates[i].action = GIT_TREE_UPDATE_UPSERT;
		updates[i].filemode = mode;
		updates[i].path = changes[i].name;
	}
	if ((rc = git_tree_create_updated(&tree_id, r->repo, ptree, n, updates)) < 0 ||
	    (rc = git_tree_lookup(&tree, r->repo, &tree_id)) < 0) {
		error = mpsfix_git__fail(rc, "cannot write a tree");
		goto done;
	}
	parents[0] = pc;
	if ((rc = git_commit_create(&id, r->repo, NULL, r->sig, r->sig, NULL, message, tree, 1,
				    parents)) < 0) {
		error = mpsfix_git__fail(rc, "cannot write a commit");
		goto done;
	}
	git_oid_tostr(out, OID_HEXSZ + 1, &id);
done:
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(pc);
	free(updates);
	return error;
}

int mpsfix_git_branch_check(mpsfix_git_repo *r, const char *name)
{
	git_reference *ref = NULL;
	int valid = 0, rc;

	if (git_branch_name_is_valid(&valid, name) < 0 || !valid) {
		git_error_clear();
		return mpsfix_error_set(MPSFIX_ERROR, "'%s' is not a valid branch name", name);
	}
	rc = git_branch_lookup(&ref, r->repo, name, GIT_BRANCH_LOCAL);
	git_reference_free(ref);
	if (rc == 0)
		return mpsfix_error_set(MPSFIX_ERROR, "a branch named '%s' already exists", name);
	if (rc != GIT_ENOTFOUND)
		return mpsfix_git__fail(rc, name);
	git_error_clear();
	return 0;
}

int mpsfix_git_branch_create(mpsfix_git_repo *r, const char *name, const char *id)
{
	git_commit *c = NULL;
	git_reference *ref = NULL;
	git_oid oid;
	int rc, error;

	if ((error = mpsfix_git_branch_check(r, name)) < 0 || (error = mpsfix_git__parse_id(&oid, id)) < 0)
		return error;
	if ((rc = git_commit_lookup(&c, r->repo, &oid)) < 0 ||
	    (rc = git_branch_create(&ref, r->repo, name, c, 0)) < 0)
		error = mpsfix_git__fail(rc, name);
	git_reference_free(ref);
	git_commit_free(c);
	return error;
}
