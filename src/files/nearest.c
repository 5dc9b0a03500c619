/*
 * nearest.c: the nearest folder at or above a file that says something of
 * it (see nearest.h), each folder looked at once and remembered, sorted by
 * path.
 */
#include "nearest.h"

#include <stdlib.h>
#include <string.h>

#include "git.h"
#include "pathutil.h"

struct mpsfix_nearest_dir {
	char *path;          /* real path (owned) */
	char *top;           /* the top of the git work tree that holds it, or NULL (owned) */
	bool top_known, known;
	size_t value;        /* known: what it says, or MPSFIX_NEAREST_NONE */
};

void mpsfix_nearest_init(mpsfix_nearest *n)
{
	*n = (mpsfix_nearest)MPSFIX_NEAREST_INIT;
	n->cwd = realpath(".", NULL);
}

/* The index of folder `path` (real) among n->dirs, added when missing. */
static size_t dir_index(mpsfix_nearest *n, const char *path)
{
	size_t lo = 0, hi = n->ndirs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(n->dirs[mid].path, path);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	mpsfix_grow((void **)&n->dirs, &n->dirs_cap, n->ndirs + 1, sizeof(*n->dirs));
	memmove(&n->dirs[lo + 1], &n->dirs[lo], (n->ndirs - lo) * sizeof(*n->dirs));
	n->dirs[lo] = (struct mpsfix_nearest_dir){.path = mpsfix_xstrdup(path)};
	n->ndirs++;
	return lo;
}

void mpsfix_nearest_set(mpsfix_nearest *n, const char *dir, size_t value)
{
	char *real = realpath(dir, NULL);
	size_t di;

	if (!real)
		return;
	di = dir_index(n, real);
	n->dirs[di].known = true;
	n->dirs[di].value = value;
	free(real);
}

/* What folder n->dirs[di] says, looked at the first time only. */
static size_t says(mpsfix_nearest *n, size_t di, mpsfix_nearest_look_cb look, void *payload)
{
	if (!n->dirs[di].known) {
		/* the callback may not add folders: n->dirs stays where it is */
		size_t v = look(payload, n->dirs[di].path);

		n->dirs[di].value = v;
		n->dirs[di].known = true;
	}
	return n->dirs[di].value;
}

/* Is `path` (real) `dir` (real) or inside it? */
static bool inside(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (!strcmp(dir, "/"))
		return path[0] == '/';
	return !strncmp(path, dir, len) && (path[len] == '/' || path[len] == '\0');
}

/* The top of the git work tree that holds folder `dir` (real), or NULL (borrowed from n->dirs). */
static const char *top_of(mpsfix_nearest *n, const char *dir)
{
	size_t di = dir_index(n, dir);

	if (!n->dirs[di].top_known) {
		n->dirs[di].top = mpsfix_git_worktree_top(dir);
		n->dirs[di].top_known = true;
	}
	return n->dirs[di].top && inside(dir, n->dirs[di].top) ? n->dirs[di].top : NULL;
}

/* The folder above which the search from folder `dir` (real) does not go (owned). */
static char *stop_of(mpsfix_nearest *n, const char *dir, const char *operand)
{
	const char *top = top_of(n, dir);
	char *op;

	if (top)
		return mpsfix_xstrdup(top);
	/* outside git: the higher of the current folder and the operand that hold it */
	op = operand ? realpath(operand, NULL) : NULL;
	if (op && !inside(dir, op)) {
		free(op);
		op = NULL;
	}
	if (n->cwd && inside(dir, n->cwd) && (!op || inside(op, n->cwd))) {
		free(op);
		return mpsfix_xstrdup(n->cwd);
	}
	return op ? op : mpsfix_xstrdup(dir);
}

/* From folder `dir` (real) up to folder `stop` (owned, freed): the first folder that says something. */
static size_t search_to(mpsfix_nearest *n, const char *dir, char *stop, mpsfix_nearest_look_cb look,
			void *payload)
{
	char *d = mpsfix_xstrdup(dir), *slash;
	size_t found;

	for (;;) {
		found = says(n, dir_index(n, d), look, payload);
		if (found != MPSFIX_NEAREST_NONE)
			break;
		if (!strcmp(d, stop) || !strcmp(d, "/") || !(slash = strrchr(d, '/')))
			break;
		*(slash == d ? slash + 1 : slash) = '\0';
	}
	free(d);
	free(stop);
	return found;
}

/* From folder `dir` (real) up to the stop of a file found under `operand`. */
static size_t search(mpsfix_nearest *n, const char *dir, const char *operand, mpsfix_nearest_look_cb look,
		     void *payload)
{
	return search_to(n, dir, stop_of(n, dir, operand), look, payload);
}

size_t mpsfix_nearest_upward(mpsfix_nearest *n, const char *dir, mpsfix_nearest_look_cb look, void *payload)
{
	char *real = realpath(dir, NULL);
	const char *top;
	size_t v;

	if (!real)
		return MPSFIX_NEAREST_NONE;
	top = top_of(n, real);
	v = search_to(n, real, mpsfix_xstrdup(top ? top : "/"), look, payload);
	free(real);
	return v;
}

size_t mpsfix_nearest_of_folder(mpsfix_nearest *n, const char *dir, mpsfix_nearest_look_cb look,
				void *payload)
{
	char *real = realpath(dir, NULL);
	size_t v;

	if (!real)
		return MPSFIX_NEAREST_NONE;
	v = search(n, real, NULL, look, payload);
	free(real);
	return v;
}

size_t mpsfix_nearest_of_file(mpsfix_nearest *n, const char *path, const char *operand,
			      mpsfix_nearest_look_cb look, void *payload)
{
	char *real, *folder;
	size_t v;

	if ((real = realpath(path, NULL)) != NULL && !mpsfix_path_is_dir(real)) {
		char *cut = strrchr(real, '/');

		if (cut)
			*(cut == real ? cut + 1 : cut) = '\0';
	} else if (!real) {
		/* not there (--stdin-filename): its folder, or the nearest one
		   above it that is (an editor's buffer for a new package) */
		char *cut;

		folder = mpsfix_xstrdup(path);
		while (!real && (cut = strrchr(folder, '/')) != NULL) {
			*(cut == folder ? cut + 1 : cut) = '\0';
			real = realpath(folder, NULL);
			if (cut == folder)
				break;
		}
		if (!real && !strchr(path, '/'))
			real = realpath(".", NULL);
		free(folder);
		if (!real)
			return MPSFIX_NEAREST_NONE;
	}
	v = search(n, real, operand, look, payload);
	free(real);
	return v;
}

void mpsfix_nearest_release(mpsfix_nearest *n)
{
	for (size_t i = 0; i < n->ndirs; i++) {
		free(n->dirs[i].path);
		free(n->dirs[i].top);
	}
	free(n->dirs);
	free(n->cwd);
	*n = (mpsfix_nearest)MPSFIX_NEAREST_INIT;
}
