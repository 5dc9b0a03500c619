/*
 * targets.h: the torch targets of a run's files, one per project.
 *
 * With --target-torch or the configuration's `target-torch:`, one target
 * for every file.  Otherwise a file's target comes from the nearest folder,
 * at or above the file's own, whose pin files (pins.h) pin a torch version;
 * a folder whose pin files do not (docs/requirements.txt, a module called
 * setup.py, an example's bare `torch`) is passed over.  The search
 * (nearest.h) goes no higher than the top of the git work tree that holds
 * the file; outside git, than the current folder or the folder operand the
 * file was found under, the higher of those that hold it, else the file's
 * own folder.  A file with no such folder gets the run's
 * target (target.h: the pins of the configuration's folder, of the work
 * tree's top or of the nearest folder upward with pin files, else every
 * MPS-capable version).
 *
 * Each folder is looked at once, on the thread that asks (the main one,
 * before the workers start).  Targets are told apart by the folder of their
 * pins; only the run's target can say "every MPS-capable version".
 */
#ifndef MPSFIX_TARGETS_H
#define MPSFIX_TARGETS_H

#include "common.h"
#include "nearest.h"
#include "target.h"

typedef struct {
	mpsfix_target *items;     /* [0]: the run's target; then each one a folder gave (owned) */
	size_t len, cap;
	bool forced;              /* --target-torch or target-torch: one target for every file */
	mpsfix_nearest folders;   /* the folders looked at: the target each gives (nearest.h) */
} mpsfix_targets;

#define MPSFIX_TARGETS_INIT {NULL, 0, 0, false, MPSFIX_NEAREST_INIT}

/** Called with each warning of the pins read (unreadable pins), once each. */
typedef void (*mpsfix_targets_warn_cb)(void *payload, const char *message);

/**
 * Settle the run's target (mpsfix_target_resolve(), whose errors it
 * returns) as item 0; its pins' warnings go to `warn` (may be NULL).
 */
int mpsfix_targets_init(mpsfix_targets *t, const mpsfix_target_opts *opts, mpsfix_targets_warn_cb warn,
			void *payload);

/**
 * The target of the file `path` (an index into t->items).  `operand` is
 * the folder operand it was found under, or NULL.  A path that does not
 * exist (standard input's --stdin-filename) is looked up from its folder.
 */
size_t mpsfix_targets_of_file(mpsfix_targets *t, const char *path, const char *operand,
			      mpsfix_targets_warn_cb warn, void *payload);

/** The target of a file in folder `dir` (rules and explain ask for the current folder's). */
size_t mpsfix_targets_of_folder(mpsfix_targets *t, const char *dir, mpsfix_targets_warn_cb warn,
				void *payload);

/**
 * What the summary line says of the targets `files` counts files for
 * (files[i]: how many files item i was used for), newly allocated: with one
 * target (or none), its summary ("target torch 2.1 (requirements.txt:2)");
 * with several, "targets: " and each, most files first, as "torch >=2.6
 * (a/pyproject.toml:3) for 12 files" or "every MPS-capable version for 2
 * files", the fifth on counted together ("and 3 more for 5 files").
 */
char *mpsfix_targets_summary(const mpsfix_targets *t, const size_t *files);

/**
 * The smallest range that holds every target `files` counts files for
 * (item 0 when it counts none): the commit trailer's value.
 */
mpsfix_torch_range mpsfix_targets_hull(const mpsfix_targets *t, const size_t *files);

void mpsfix_targets_release(mpsfix_targets *t);

#endif
