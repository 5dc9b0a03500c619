/*
 * targets.c: the torch target of each file of a run, from the nearest
 * folder whose pins name torch (see targets.h), each folder looked at once.
 */
#include "targets.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathutil.h"
#include "pins.h"

/* The summary names this many targets; the others are counted together. */
#define SUMMARY_MAX 4

/* Where the pins of a folder report their warnings (mpsfix_nearest's payload). */
typedef struct {
	mpsfix_targets *t;
	mpsfix_targets_warn_cb warn;
	void *payload;
} looking;

/* Does a pin name torch itself (not only imply a floor of it)? */
static bool pins_torch(const mpsfix_pins *p)
{
	for (size_t i = 0; i < p->len; i++)
		if (!p->items[i].implied)
			return true;
	return false;
}

/*
 * Tell `warn` the warnings of pins `p`, read from folder `dir` (NULL: the
 * current one).  A warning that starts with a file's name (`NAME:LINE: ...`,
 * `NAME: ...`) names it inside `dir`: it is shown from the current folder,
 * where the run's other paths are (`other-project/requirements.txt:3: ...`).
 */
static void warn_pins(const mpsfix_pins *p, const char *dir, mpsfix_targets_warn_cb warn, void *payload)
{
	char *shown = dir && warn && p->nwarnings ? mpsfix_path_from_cwd(dir) : NULL;

	for (size_t i = 0; warn && i < p->nwarnings; i++) {
		const char *m = p->warnings[i];
		size_t n = strcspn(m, ": ");
		char *name, *file, *moved = NULL;

		if (shown && strcmp(shown, ".") && n && m[n] == ':') {
			name = mpsfix_xstrndup(m, n);
			file = mpsfix_path_join(dir, name);
			if (!access(file, F_OK))
				moved = mpsfix_xasprintf("%s/%s", shown, m);
			free(file);
			free(name);
		}
		warn(payload, moved ? moved : m);
		free(moved);
	}
	free(shown);
}

static size_t add_target(mpsfix_targets *t, mpsfix_target *x)
{
	mpsfix_grow((void **)&t->items, &t->cap, t->len + 1, sizeof(*t->items));
	t->items[t->len] = *x;
	*x = (mpsfix_target)MPSFIX_TARGET_INIT;
	return t->len++;
}

/* The target of the pins of folder `dir` (real), or none when they do not pin a torch version. */
static size_t folder_pins(void *payload, const char *dir)
{
	const looking *lk = payload;
	mpsfix_target_opts o = {.root = dir};
	mpsfix_target x;

	if (!mpsfix_pins_present(dir))
		return MPSFIX_NEAREST_NONE;
	if (mpsfix_target_resolve(&x, &o) < 0) {
		if (lk->warn)
			lk->warn(lk->payload, mpsfix_error_last()->message);
		return MPSFIX_NEAREST_NONE;
	}
	warn_pins(&x.pins, dir, lk->warn, lk->payload);
	/* pins that name torch without a version say nothing of it:
	   an example folder's bare `torch` leaves its project's target, and
	   so does a floor that only another requirement implies (an example's
	   accelerate>=1.4 runs with its project's torch) */
	if (!x.pins.names_torch || x.source == MPSFIX_TARGET_DEFAULT || !pins_torch(&x.pins)) {
		mpsfix_target_release(&x);
		return MPSFIX_NEAREST_NONE;
	}
	return add_target(lk->t, &x);
}

int mpsfix_targets_init(mpsfix_targets *t, const mpsfix_target_opts *opts, mpsfix_targets_warn_cb warn,
			void *payload)
{
	mpsfix_target run;
	int error;

	*t = (mpsfix_targets)MPSFIX_TARGETS_INIT;
	if ((error = mpsfix_target_resolve(&run, opts)) < 0)
		return error;
	warn_pins(&run.pins, opts->root, warn, payload);
	t->forced = run.source == MPSFIX_TARGET_OPTION || run.source == MPSFIX_TARGET_CONFIG;
	add_target(t, &run);
	mpsfix_nearest_init(&t->folders);
	/* the run's folder is not read again: its pins are item 0's */
	if (!t->forced && opts->root)
		mpsfix_nearest_set(&t->folders, opts->root,
				   t->items[0].pins.names_torch ? 0 : MPSFIX_NEAREST_NONE);
	return 0;
}

size_t mpsfix_targets_of_folder(mpsfix_targets *t, const char *dir, mpsfix_targets_warn_cb warn,
				void *payload)
{
	looking lk = {t, warn, payload};
	size_t k;

	if (t->forced)
		return 0;
	k = mpsfix_nearest_of_folder(&t->folders, dir, folder_pins, &lk);
	return k == MPSFIX_NEAREST_NONE ? 0 : k; /* none: the run's target */
}

size_t mpsfix_targets_of_file(mpsfix_targets *t, const char *path, const char *operand,
			      mpsfix_targets_warn_cb warn, void *payload)
{
	looking lk = {t, warn, payload};
	size_t k;

	if (t->forced)
		return 0;
	k = mpsfix_nearest_of_file(&t->folders, path, operand, folder_pins, &lk);
	return k == MPSFIX_NEAREST_NONE ? 0 : k;
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
	mpsfix_nearest_release(&t->folders);
	*t = (mpsfix_targets)MPSFIX_TARGETS_INIT;
}
