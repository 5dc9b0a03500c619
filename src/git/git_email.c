/*
 * git_email.c: a commit as an e-mail patch, as `git format-patch` writes
 * it and `git am` applies it (mpsfix patch).
 */
#include "git_internal.h"

#include <string.h>

/* git_email_create_from_diff: declared in git2/sys/email.h all along, and only there from libgit2 1.9 on */
#include <git2/sys/email.h>

static bool has_8bit(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return true;
	return false;
}

/*
 * libgit2 writes the headers' text as it is; git format-patch writes a
 * sender's name outside ASCII as an RFC 2047 word (From: =?UTF-8?q?J=C3=B6rg?=
 * <j@example.com>), and a message outside ASCII with MIME headers naming
 * UTF-8, which mail tools and git send-email need.  Copy `mail` into `out`
 * so.  The message is what comes before the "---" line; the diff after it
 * keeps its bytes.
 */
static void mime_headers(mpsfix_buf *out, const char *mail, size_t len)
{
	const char *end = mail + len, *hdr_end = NULL, *msg_end, *p;

	for (p = mail; p + 1 < end && !hdr_end; p++)
		if (p[0] == '\n' && p[1] == '\n')
			hdr_end = p + 1;
	if (!hdr_end) {
		mpsfix_buf_add(out, mail, len);
		return;
	}
	for (msg_end = hdr_end; msg_end < end; msg_end++)
		if (msg_end[0] == '\n' && end - msg_end >= 5 && !memcmp(msg_end + 1, "---\n", 4))
			break;
	for (p = mail; p < hdr_end;) {
		const char *eol = memchr(p, '\n', (size_t)(hdr_end - p)), *lt;
		size_t n = eol ? (size_t)(eol - p) + 1 : (size_t)(hdr_end - p);

		if (n > 6 && !memcmp(p, "From: ", 6) && has_8bit(p, n) &&
		    (lt = memchr(p, '<', n)) != NULL && lt > p + 6) {
			const char *name = p + 6, *name_end = lt;

			while (name_end > name && name_end[-1] == ' ')
				name_end--;
			mpsfix_buf_adds(out, "From: =?UTF-8?q?");
			for (const char *c = name; c < name_end; c++) {
				unsigned char u = (unsigned char)*c;

				if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
				    strchr("!*+-/", u))
					mpsfix_buf_addc(out, (char)u);
				else
					mpsfix_buf_printf(out, "=%02X", u);
			}
			mpsfix_buf_adds(out, "?= ");
			mpsfix_buf_add(out, lt, n - (size_t)(lt - p));
		} else {
			mpsfix_buf_add(out, p, n);
		}
		p += n;
	}
	/* hdr_end is the blank line's start: the headers' last line ends before it */
	if (has_8bit(mail, (size_t)(msg_end - mail)))
		mpsfix_buf_adds(out, "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
				     "Content-Transfer-Encoding: 8bit\n");
	mpsfix_buf_add(out, hdr_end, (size_t)(end - hdr_end));
}

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
	mime_headers(out, mail.ptr, mail.size);
done:
	git_buf_dispose(&mail);
	git_diff_free(diff);
	git_tree_free(ptree);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(c);
	return error;
}
