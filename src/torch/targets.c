/*
 * targets.c: the torch target of each file of a run, from the nearest
 * folder whose pins name torch (see targets.h), each folder looked at once.
 */
#include "targets.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git.h"
#include "pathutil.h"
#include "pins.h"

/* A folder whose pins do not name torch (or that has none). */
#define NONE SIZE_MAX
/* The summary names this many targets; the others are counted together. */
#define SUMMARY_MAX 4

struct mpsfix_targets_dir {
	char *path;          /* real path (owned) */
	char *top;           /* the top of the git work tree that holds it, or NULL (owned) */
	bool top_known, pins_known;
	size_t target;       /* pins_known: the target of its pins, or NONE */
};

static void warn_pins(const mpsfix_pins *p, mpsfix_targets_warn_cb warn, void *payload)
{
	for (size_t i = 0; warn && i < p->nwarnings; i++)
		warn(payload, p->warnings[i]);
}

static size_t add_target(mpsfix_targets *t, mpsfix_target *x)
{
	mpsfix_grow((void **)&t->items, &t->cap, t->len + 1, sizeof(*t->items));
	t->items[t->len] = *x;
	*x = (mpsfix_target)MPSFIX_TARGET_INIT;
	return t->len++;
}

/* The index of folder `path` (real) among t->dirs, added when missing. */
static size_t dir_index(mpsfix_targets *t, const char *path)
{
	size_t lo = 0, hi = t->ndirs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->dirs[mid].path, path);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	mpsfix_grow((void **)&t->dirs, &t->dirs_cap, t->ndirs + 1, sizeof(*t->dirs));
	memmove(&t->dirs[lo + 1], &t->dirs[lo], (t->ndirs - lo) * sizeof(*t->dirs));
	t->dirs[lo] = (struct mpsfix_targets_dir){.path = mpsfix_xstrdup(path)};
	t->ndirs++;
	return lo;
}

/* The target of the pins of folder t->dirs[di], or NONE when they do not pin a torch version. */
static size_t folder_pins(mpsfix_targets *t, size_t di, mpsfix_targets_warn_cb warn, void *payload)
{
	mpsfix_target_opts o = {.root = t->dirs[di].path};
	mpsfix_target x;
	size_t k = NONE;

	if (t->dirs[di].pins_known)
		return t->dirs[di].target;
	if (mpsfix_pins_present(o.root)) {
		if (mpsfix_target_resolve(&x, &o) < 0) {
			if (warn)
				warn(payload, mpsfix_error_last()->message);
		} else {
			warn_pins(&x.pins, warn, payload);
			/* pins that name torch without a version say nothing of it:
			   an example folder's bare `torch` leaves its project's target */
			if (!x.pins.names_torch || x.source == MPSFIX_TARGET_DEFAULT)
				mpsfix_target_release(&x);
			else
				k = add_target(t, &x);
		}
	}
	t->dirs[di].pins_known = true;
	t->dirs[di].target = k;
	return k;
}

/* Is `path` (real) `dir` (real) or inside it? */
static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* The folder above which the search for the pins of folder `dir` (real) does not go (owned). */
static char *stop_of(mpsfix_targets *t, const char *dir, const char *operand)
{
	size_t di = dir_index(t, dir);
	char *op;

	if (!t->dirs[di].top_known) {
		t->dirs[di].top = mpsfix_git_worktree_top(dir);
		t->dirs[di].top_known = true;
	}
	if (t->dirs[di].top && inside(dir, t->dirs[di].top))
		return mpsfix_xstrdup(t->dirs[di].top);
	/* outside git: the higher of the current folder and the operand that hold it */
	op = operand ? realpath(operand, NULL) : NULL;
	if (op && !inside(dir, op)) {
		free(op);
		op = NULL;
	}
	if (t->cwd && inside(dir, t->cwd) && (!op || inside(op, t->cwd))) {
		free(op);
		return mpsfix_xstrdup(t->cwd);
	}
	return op ? op : mpsfix_xstrdup(dir);
}

/* The target of a file in folder `dir` (real): the nearest folder up to the stop whose pins pin torch. */
static size_t search(mpsfix_targets *t, const char *dir, const char *operand, mpsfix_targets_warn_cb warn,
		     void *payload)
{
	char *stop = stop_of(t, dir, operand), *d = mpsfix_xstrdup(dir), *slash;
	size_t k = 0;

	for (;;) {
		size_t found = folder_pins(t, dir_index(t, d), warn, payload);

		if (found != NONE) {
			k = found;
			break;
		}
		if (!strcmp(d, stop) || !strcmp(d, "/") || !(slash = strrchr(d, '/')))
			break; /* none: the run's target */
		*(slash == d ? slash + 1 : slash) = '\0';
	}
	free(d);
	free(stop);
	return k;
}

int mpsfix_targets_init(mpsfix_targets *t, const mpsfix_target_opts *opts, mpsfix_targets_warn_cb warn,
			void *payload)
{
	mpsfix_target run;
	char *root;
	int error;

	*t = (mpsfix_targets)MPSFIX_TARGETS_INIT;
	if ((error = mpsfix_target_resolve(&run, opts)) < 0)
		return error;
	warn_pins(&run.pins, warn, payload);
	t->forced = run.source == MPSFIX_TARGET_OPTION || run.source == MPSFIX_TARGET_CONFIG;
	add_target(t, &run);
	t->cwd = realpath(".", NULL);
	/* the run's folder is not read again: its pins are item 0's */
	if (!t->forced && opts->root && (root = realpath(opts->root, NULL)) != NULL) {
		size_t di = dir_index(t, root);

		t->dirs[di].pins_known = true;
		t->dirs[di].target = t->items[0].pins.names_torch ? 0 : NONE;
		free(root);
	}
	return 0;
}

size_t mpsfix_targets_of_folder(mpsfix_targets *t, const char *dir, mpsfix_targets_warn_cb warn,
				void *payload)
{
	char *real;
	size_t k;

	if (t->forced || !(real = realpath(dir, NULL)))
		return 0;
	k = search(t, real, NULL, warn, payload);
	free(real);
	return k;
}

size_t mpsfix_targets_of_file(mpsfix_targets *t, const char *path, const char *operand,
			      mpsfix_targets_warn_cb warn, void *payload)
{
	const char *slash;
	char *real, *folder;
	size_t k;

	if (t->forced)
		return 0;
	if ((real = realpath(path, NULL)) != NULL && !mpsfix_path_is_dir(real)) {
		char *cut = strrchr(real, '/');

		if (cut)
			*(cut == real ? cut + 1 : cut) = '\0';
	} else if (!real) {
		/* not there (--stdin-filename): its folder */
		slash = strrchr(path, '/');
		folder = slash ? mpsfix_xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
			       : mpsfix_xstrdup(".");
		real = realpath(folder, NULL);
		free(folder);
		if (!real)
			return 0;
	}
	k = search(t, real, operand, warn, payload);
	free(real);
	return k;
}

/* "torch 2.1 (requirements.txt:2)", "every MPS-capable version" */
static void add_words(mpsfix_buf *b, const mpsfix_target *x)
{
	if (x->source == MPSFIX_TARGET_DEFAULT)
		mpsfix_buf_adds(b, "every MPS-capable version");
	else
		mpsfix_buf_printf(b, "torch %s (%s)", x->label, x->origin);
}

char *mpsfix_targets_summary(const mpsfix_targets *t, const size_t *files)
{
	size_t *order = mpsfix_xcalloc(t->len + 1, sizeof(size_t)), n = 0, rest = 0, rest_files = 0;
	mpsfix_buf b = MPSFIX_BUF_INIT;

	for (size_t i = 0; i < t->len; i++)
		if (files && files[i])
			order[n++] = i;
	if (n <= 1) {
		size_t only = n ? order[0] : 0;

		free(order);
		return mpsfix_xstrdup(t->items[only].summary);
	}
	/* most files first, then in the order they were found (insertion: a handful of targets) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && files[order[j]] > files[order[j - 1]]; j--) {
			size_t swap = order[j];

			order[j] = order[j - 1];
			order[j - 1] = swap;
		}
	mpsfix_buf_adds(&b, "targets: ");
	for (size_t i = 0; i < n; i++) {
		if (i >= SUMMARY_MAX) {
			rest++;
			rest_files += files[order[i]];
			continue;
		}
		if (i)
			mpsfix_buf_adds(&b, ", ");
		add_words(&b, &t->items[order[i]]);
		mpsfix_buf_printf(&b, " for %zu file%s", files[order[i]], files[order[i]] == 1 ? "" : "s");
	}
	if (rest)
		mpsfix_buf_printf(&b, ", and %zu more for %zu file%s", rest, rest_files, rest_files == 1 ? "" : "s");
	free(order);
	return mpsfix_buf_detach(&b, NULL);
}

mpsfix_torch_range mpsfix_targets_hull(const mpsfix_targets *t, const size_t *files)
{
	mpsfix_torch_range r = t->items[0].range;
	bool any = false;

	for (size_t i = 0; i < t->len; i++)
		if (files && files[i]) {
			r = any ? mpsfix_torch_range_hull(r, t->items[i].range) : t->items[i].range;
			any = true;
		}
	return r;
}

void mpsfix_targets_release(mpsfix_targets *t)
{
	for (size_t i = 0; i < t->len; i++)
		mpsfix_target_release(&t->items[i]);
	free(t->items);
	for (size_t i = 0; i < t->ndirs; i++) {
		free(t->dirs[i].path);
		free(t->dirs[i].top);
	}
	free(t->dirs);
	free(t->cwd);
	*t = (mpsfix_targets)MPSFIX_TARGETS_INIT;
}
