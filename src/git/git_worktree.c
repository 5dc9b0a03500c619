/*
 * git_worktree.c: which git work tree holds a path: its top folder, a
 * file's name relative to it (as `git apply` wants it in a diff), and the
 * repository opened on a folder of it for the other git_*.c files.
 */
#include "git_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
