/*
 * target.h: which torch versions a run targets, and where that came from.
 *
 * The first of: --target-torch SPEC; `target-torch:` in the configuration;
 * the project's own pins (pins.h): the pins of one set all hold (their
 * intersection), the sets are alternatives (their hull, the smallest range
 * holding every pinned version: a rule runs when any pinned version has its
 * problem), from 1.12 on where they reach it; every MPS-capable version
 * (>=1.12).  A rule runs when its
 * `torch:` range meets the target.
 */
#ifndef MPSFIX_TARGET_H
#define MPSFIX_TARGET_H

#include "common.h"
#include "pins.h"
#include "torchver.h"
#include "types.h"

typedef enum {
	MPSFIX_TARGET_DEFAULT, /* every MPS-capable version */
	MPSFIX_TARGET_OPTION,  /* --target-torch */
	MPSFIX_TARGET_CONFIG,  /* target-torch: in the configuration file */
	MPSFIX_TARGET_PINS     /* the project's pins */
} mpsfix_target_source;

typedef struct {
	mpsfix_torch_range range;
	mpsfix_target_source source;
	char label[MPSFIX_TORCH_RANGE_STRMAX]; /* the range: "2.1", ">=2.4", ">=1.12" */
	char *origin;   /* "--target-torch", ".mpsfix.yml", "requirements.txt:1 and 2 more";
			   NULL for the default (owned) */
	char *summary;  /* "target torch 2.1 (requirements.txt:1)" (owned) */
	mpsfix_pins pins; /* the pins read (only when the target comes from them or
			     none of the others is given); their warnings are for the user */
} mpsfix_target;

#define MPSFIX_TARGET_INIT {{0, 0}, MPSFIX_TARGET_DEFAULT, "", NULL, NULL, MPSFIX_PINS_INIT}

typedef struct {
	const char *option;       /* --target-torch SPEC, or NULL */
	const char *config_value; /* `target-torch:` of the configuration, or NULL */
	const char *config_path;  /* the configuration file, as given or found */
	const char *root;         /* the folder to read pins from (mpsfix_target_root()) */
} mpsfix_target_opts;

/**
 * Settle the target.  An unreadable --target-torch or configuration value is
 * an error naming it ("--target-torch '2.x': '2.x' is not a version");
 * pins are read only when neither is given.  Paths in `origin` are written
 * relative to the current folder.  On error `out` is left released.
 */
int mpsfix_target_resolve(mpsfix_target *out, const mpsfix_target_opts *opts);

void mpsfix_target_release(mpsfix_target *t);

/**
 * The target as a version range for a commit trailer (`Mpsfix-Target-Torch:
 * 2.1`): "2.1", ">=2.4", ">=2.1,<2.6", ">=1.12" for the default.
 */
const char *mpsfix_target_label(const mpsfix_target *t);

/** Does rule `r` run for this target (its `torch:` range meets it)? */
bool mpsfix_target_runs(const mpsfix_target *t, const mpsfix_rule *r);

/**
 * The folder whose pins count (newly allocated): the configuration file's
 * folder when there is one (`config_dir`, may be NULL); else the top of the
 * git work tree that holds `path` (the first path operand; NULL or "-": the
 * current folder); else the nearest folder that holds a pin file
 * (mpsfix_pins_present()), from `path` (a folder) or its folder upward;
 * else that folder; "." when `path` does not exist.
 */
char *mpsfix_target_root(const char *config_dir, const char *path);

#endif
