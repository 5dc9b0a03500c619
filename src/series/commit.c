/*
 * commit.c: a series of fixes recorded in git, through git.c.
 */
#include "commit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git.h"

struct mpsfix_recorder {
	mpsfix_git_repo *repo;
	mpsfix_commit_opts opts;
	char *identity;          /* "Name <email>" */
};

int mpsfix_recorder_open(mpsfix_recorder **out, const char *dir, const mpsfix_commit_opts *opts)
{
	mpsfix_recorder *rec = mpsfix_xcalloc(1, sizeof(*rec));
	const mpsfix_git_head *head;
	int error;

	*out = NULL;
	rec->opts = *opts;
	if ((error = mpsfix_git_repo_open(&rec->repo, dir, opts->patch)) < 0)
		goto done;
	head = mpsfix_git_repo_head(rec->repo);
	if (head->unborn) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s has no commit yet: mpsfix records its fixes on "
					 "top of a commit and never commits your files for you; "
					 "commit them first", head->top);
		goto done;
	}
	if (!head->branch && !opts->branch && !opts->patch) {
		error = mpsfix_error_set(MPSFIX_ERROR, "HEAD is detached (at %.12s): give --branch NAME "
					 "to commit the fixes on a new branch", head->head);
		goto done;
	}
	if (opts->branch && (error = mpsfix_git_branch_check(rec->repo, opts->branch)) < 0)
		goto done;
	error = mpsfix_git_repo_identity(&rec->identity, rec->repo);
done:
	if (error < 0)
		mpsfix_recorder_free(rec);
	else
		*out = rec;
	return error;
}

void mpsfix_recorder_free(mpsfix_recorder *rec)
{
	if (!rec)
		return;
	mpsfix_git_repo_free(rec->repo);
	free(rec->identity);
	free(rec);
}

const char *mpsfix_recorder_branch(const mpsfix_recorder *rec)
{
	return mpsfix_git_repo_head(rec->repo)->branch;
}

int mpsfix_recorder_add(mpsfix_recorder *rec, mpsfix_series *s, const char *path)
{
	mpsfix_buf text = MPSFIX_BUF_INIT;
	char *name = NULL, *sub = NULL;
	bool exec = false;
	int error;

	if ((error = mpsfix_git_repo_name(&name, &sub, rec->repo, path)) < 0)
		goto done;
	if (!name) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not in the work tree of %s: skipped", path,
					 mpsfix_git_repo_head(rec->repo)->top);
		goto done;
	}
	if (sub) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: inside submodule '%s': skipped (run mpsfix "
					 "in the submodule to fix it there)", path, sub);
		goto done;
	}
	error = mpsfix_git_repo_read(&text, &exec, rec->repo, name);
	if (error == MPSFIX_ENOMATCH)
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not in HEAD (a new file is yours to commit "
					 "first): skipped", path);
	if (error < 0)
		goto done;
	mpsfix_series_add_file(s, path, name, text.data, text.len, true, exec ? 0755 : 0644);
done:
	mpsfix_buf_release(&text);
	free(name);
	free(sub);
	return error;
}

int mpsfix_recorder_submodules(char ***out, size_t *n, mpsfix_recorder *rec, char *const *args, size_t nargs)
{
	const char *top = mpsfix_git_repo_head(rec->repo)->top;
	char **subs = NULL;
	size_t nsubs = 0;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = mpsfix_git_repo_submodules(&subs, &nsubs, rec->repo)) < 0)
		return error;
	*out = mpsfix_xcalloc(nsubs + 1, sizeof(**out));
	for (size_t i = 0; i < nsubs; i++) {
		char *path = mpsfix_xasprintf("%s%s", top, subs[i]);
		bool under = false;

		for (size_t a = 0; a < nargs && !under; a++) {
			char *real = realpath(args[a], NULL);
			size_t len = real ? strlen(real) : 0;

			/* "/" is the one real path that ends in a slash */
			under = real && !strncmp(path, real, len) &&
				(path[len] == '/' || path[len] == '\0' || (len == 1 && real[0] == '/'));
			free(real);
		}
		free(path);
		if (under)
			(*out)[(*n)++] = subs[i];
		else
			free(subs[i]);
	}
	free(subs);
	return 0;
}

/* The latest texts of the files `s` changes. */
static mpsfix_git_change *final_changes(const mpsfix_series *s, size_t *n)
{
	size_t count, *idx = mpsfix_series_changed(s, &count);
	mpsfix_git_change *out = mpsfix_xcalloc(count + 1, sizeof(*out));

	for (size_t i = 0; i < count; i++) {
		out[i].name = s->files[idx[i]].name;
		out[i].data = mpsfix_series_text(s, idx[i], &out[i].len);
	}
	free(idx);
	*n = count;
	return out;
}

int mpsfix_recorder_check(mpsfix_recorder *rec, const mpsfix_series *s, bool dirty_only)
{
	mpsfix_buf dirty = MPSFIX_BUF_INIT;
	size_t n, ndirty = 0;
	mpsfix_git_change *changes;
	int error = 0;

	if (rec->opts.patch || rec->opts.branch)
		return 0; /* made from HEAD alone: the work tree is not read, nor written */
	changes = final_changes(s, &n);
	for (size_t i = 0; i < n; i++) {
		bool staged, unstaged;

		if ((error = mpsfix_git_repo_status(&staged, &unstaged, rec->repo, changes[i].name)) < 0)
			goto done;
		if (!staged && !unstaged)
			continue;
		mpsfix_buf_printf(&dirty, "%s%s (%s)", ndirty++ ? ", " : "", changes[i].name,
				  staged && unstaged ? "staged and unstaged changes"
				  : staged ? "staged changes" : "unstaged changes");
	}
	if (ndirty && !rec->opts.allow_dirty) {
		error = mpsfix_error_set(MPSFIX_ERROR, "the fixes would change %s with uncommitted "
					 "changes: %s; commit or stash %s first, or give --allow-dirty "
					 "(the commits then hold only the fixes, and your changes stay "
					 "uncommitted)", ndirty == 1 ? "a file" : "files", dirty.data,
					 ndirty == 1 ? "it" : "them");
		goto done;
	}
	if (ndirty && !dirty_only)
		error = mpsfix_git_advance(rec->repo, NULL, changes, n);
done:
	free(changes);
	mpsfix_buf_release(&dirty);
	return error;
}

void mpsfix_commit_list_release(mpsfix_commit_list *l)
{
	for (size_t i = 0; i < l->len; i++)
		free(l->items[i].subject);
	free(l->items);
	l->items = NULL;
	l->len = 0;
}

/* The changes of steps [first, first + n), each file's text after the last of them. */
static mpsfix_git_change *step_changes(const mpsfix_series *s, size_t first, size_t n, size_t *count)
{
	mpsfix_git_change *out = NULL;
	size_t len = 0, cap = 0;

	for (size_t i = first; i < first + n; i++)
		for (size_t k = 0; k < s->steps[i].nchanges; k++) {
			const mpsfix_series_change *c = &s->steps[i].changes[k];
			size_t j = 0;

			while (j < len && strcmp(out[j].name, s->files[c->file].name) != 0)
				j++;
			if (j == len) {
				mpsfix_grow((void **)&out, &cap, len + 1, sizeof(*out));
				len++;
			}
			out[j] = (mpsfix_git_change){s->files[c->file].name, c->text, c->len};
		}
	*count = len;
	return out;
}

/* Write the commits of the series on top of HEAD (into the odb, or memory for patches). */
static int write_commits(mpsfix_commit_list *out, mpsfix_recorder *rec, const mpsfix_series *s)
{
	mpsfix_message_opts mo = {
		.target_torch = rec->opts.target_torch,
		.signoff = rec->opts.signoff ? rec->identity : NULL,
	};
	size_t per = rec->opts.squash ? s->nsteps : 1;
	const char *parent = NULL;
	int error = 0;

	out->items = NULL;
	out->len = 0;
	for (size_t i = 0; i < s->nsteps; i += per) {
		mpsfix_commit_made made = {{0}, NULL};
		size_t n;
		mpsfix_git_change *changes = step_changes(s, i, per, &n);
		char *message = mpsfix_series_message(s, i, per, &mo);

		for (size_t k = 0; k < n && !error; k++)
			if (!changes[k].name)
				error = mpsfix_error_set(MPSFIX_ERROR, "a file with no name in the repository");
		if (!error)
			error = mpsfix_git_commit_write(made.id, rec->repo, parent, changes, n, message);
		if (!error) {
			made.subject = mpsfix_xstrndup(message, strcspn(message, "\n"));
			out->items = mpsfix_xrealloc(out->items, (out->len + 1) * sizeof(*out->items));
			out->items[out->len++] = made;
			parent = out->items[out->len - 1].id;
		}
		free(message);
		free(changes);
		if (error < 0)
			break;
	}
	if (error < 0)
		mpsfix_commit_list_release(out);
	return error;
}

int mpsfix_recorder_commit(mpsfix_commit_list *out, mpsfix_recorder *rec, const mpsfix_series *s)
{
	mpsfix_git_change *final = NULL;
	size_t n;
	int error;

	out->items = NULL;
	out->len = 0;
	if (rec->opts.patch)
		return mpsfix_error_set(MPSFIX_ERROR, "a recorder for patches writes no commits");
	if (!s->nsteps)
		return 0;
	if ((error = write_commits(out, rec, s)) < 0)
		return error;
	if (rec->opts.branch) {
		error = mpsfix_git_branch_create(rec->repo, rec->opts.branch, out->items[out->len - 1].id);
	} else {
		final = final_changes(s, &n);
		error = mpsfix_git_advance(rec->repo, out->items[out->len - 1].id, final, n);
	}
	free(final);
	if (error < 0)
		mpsfix_commit_list_release(out);
	return error;
}

void mpsfix_patch_list_release(mpsfix_patch_list *l)
{
	for (size_t i = 0; i < l->len; i++) {
		free(l->items[i].file);
		mpsfix_buf_release(&l->items[i].text);
	}
	free(l->items);
	l->items = NULL;
	l->len = 0;
}

static bool title_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_';
}

char *mpsfix_patch_file_name(size_t nr, const char *subject)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	size_t start, max;
	int space = 2;

	mpsfix_buf_printf(&b, "%04zu-", nr);
	start = b.len;
	/* git's format_sanitized_subject() */
	for (const char *p = subject; *p; p++) {
		if (!title_char(*p)) {
			space |= 1;
			continue;
		}
		if (space == 1)
			mpsfix_buf_addc(&b, '-');
		space = 0;
		mpsfix_buf_addc(&b, *p);
		while (*p == '.' && p[1] == '.')
			p++;
	}
	while (b.len > start && (b.data[b.len - 1] == '.' || b.data[b.len - 1] == '-'))
		b.len--;
	/* git's fmt_output_subject(): the name, suffix included, fits in 64 */
	max = 64 - (strlen(".patch") + 1);
	if (b.len > max)
		b.len = max;
	mpsfix_buf_adds(&b, ".patch");
	return mpsfix_buf_detach(&b, NULL);
}

int mpsfix_recorder_patches(mpsfix_patch_list *out, mpsfix_recorder *rec, const mpsfix_series *s)
{
	mpsfix_commit_list commits = {NULL, 0};
	int error;

	out->items = NULL;
	out->len = 0;
	if (!rec->opts.patch)
		return mpsfix_error_set(MPSFIX_ERROR, "patches need a recorder opened for patches");
	if ((error = write_commits(&commits, rec, s)) < 0)
		return error;
	out->items = mpsfix_xcalloc(commits.len + 1, sizeof(*out->items));
	for (size_t i = 0; i < commits.len && error == 0; i++) {
		mpsfix_patch *p = &out->items[out->len++];

		p->file = mpsfix_patch_file_name(i + 1, commits.items[i].subject);
		error = mpsfix_git_email(&p->text, rec->repo, commits.items[i].id, i + 1, commits.len);
	}
	mpsfix_commit_list_release(&commits);
	if (error < 0)
		mpsfix_patch_list_release(out);
	return error;
}
