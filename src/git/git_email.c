/*
 * git_email.c: a commit as an e-mail patch, as `git format-patch` writes
 * it and `git am` applies it (mpsfix patch).
 */
#include "git_internal.h"

#include <string.h>

/* git_email_create_from_diff: declared in git2/sys/email.h all along, and only there from libgit2 1.9 on */
#include <git2/sys/email.h>

int mpsfix_git_email(mpsfix_buf *out, mpsfix_git_repo *r, const char *id, size_t idx, size_t total)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff *diff = NULL;
	git_buf mail = GIT_BUF_INIT;
	git_email_create_options opts;
	git_oid oid;
	int rc, error;

	/* GIT_EMAIL_CREATE_OPTIONS_INIT, field by field (libgit2 1.5 has no _init function) */
	memset(&opts, 0, sizeof(opts));
	opts.version = GIT_EMAIL_CREATE_OPTIONS_VERSION;
	if ((rc = git_diff_options_init(&opts.diff_opts, GIT_DIFF_OPTIONS_VERSION)) < 0 ||
	    (rc = git_diff_find_options_init(&opts.diff_find_opts, GIT_DIFF_FIND_OPTIONS_VERSION)) < 0)
		return mpsfix_git__fail(rc, id);
	opts.diff_opts.flags = GIT_DIFF_SHOW_BINARY;
	if ((error = mpsfix_git__parse_id(&oid, id)) < 0 ||
	    (error = mpsfix_git__commit_tree(&tree, &c, r->repo, &oid)) < 0)
		goto done;
	if ((rc = git_commit_parent(&parent, c, 0)) < 0 || (rc = git_commit_tree(&ptree, parent)) < 0) {
		error = mpsfix_git__fail(rc, id);
		goto done;
	}
	opts.flags = GIT_EMAIL_CREATE_NO_RENAMES;
	if ((rc = git_diff_tree_to_tree(&diff, r->repo, ptree, tree, &opts.diff_opts)) < 0 ||
	    (rc = git_email_create_from_diff(&mail, diff, idx, total, &oid, git_commit_summary(c),
					     git_commit_body(c), git_commit_author(c), &opts)) < 0) {
		error = mpsfix_git__fail(rc, id);
		goto done;
	}
	mpsfix_buf_add(out, mail.ptr, mail.size);
done:
	git_buf_dispose(&mail);
	git_diff_free(diff);
	git_tree_free(ptree);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(c);
	return error;
}
