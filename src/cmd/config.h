/*
 * config.h: the `.mpsfix.yml` configuration file and rule selection.
 *
 * A configuration file is found upward from the working directory (the
 * first `.mpsfix.yml` in the folder or a parent; the search stops at the
 * root of the file system), or named by `--config FILE`; `--isolated` reads
 * none.  Keys (all optional):
 *
 *   select: [MPS0, MPS101]        codes, code prefixes or rule ids
 *   extend-select: [MPS202]       added to the selection (turns on rules that are off by default)
 *   ignore: [MPS104]
 *   exclude: [tests/data, "*_pb2.py"]   globs, relative to the config file's folder
 *   per-file-ignores:             glob -> codes/prefixes/ids ignored in matching files
 *     "tests": [MPS101]           (a folder covers everything under it)
 *   target-torch: ">=2.1,<2.6"
 *   rules: [tools/mpsfix-rules]   extra rule folders or files, relative to the config file
 *   unsafe-fixes: true
 *   line-length: 100              the longest line a fix writes (style.h)
 *
 * An unknown key or a value of the wrong type is an error naming
 * file:line:col.  Command-line flags win over the file.
 */
#ifndef MPSFIX_CONFIG_H
#define MPSFIX_CONFIG_H

#include "common.h"
#include "strvec.h"
#include "types.h"

typedef struct {
	char *glob;             /* as written (owned) */
	mpsfix_strvec codes;
} mpsfix_per_file_ignore;

typedef struct {
	char *path;             /* the file read, or NULL when none (owned) */
	char *dir;              /* its folder, absolute (owned); globs are relative to it */
	bool has_select;        /* `select:` was given (even empty) */
	mpsfix_strvec select, extend_select, ignore, exclude, rules;
	mpsfix_per_file_ignore *per_file_ignores;   /* owned */
	size_t nper_file_ignores;
	char *target_torch;     /* or NULL (owned) */
	int unsafe_fixes;       /* -1 not set, else 0/1 */
	uint32_t line_length;   /* 0: not set */
	/* every rule selector of the file (select, extend-select, ignore and
	   per-file-ignores' codes), where it stands ("PATH:LINE:COL: 'KEY'"),
	   to be checked against the rules once they are loaded */
	mpsfix_strvec selectors, selectors_at;
} mpsfix_config;

#define MPSFIX_CONFIG_INIT {NULL, NULL, false, {0}, {0}, {0}, {0}, {0}, NULL, 0, NULL, -1, 0, {0}, {0}}

/**
 * Find `.mpsfix.yml` upward from folder `start`.  Returns 0 with *out the
 * path (owned) or NULL when there is none; MPSFIX_ERROR on an I/O problem.
 */
int mpsfix_config_find(char **out, const char *start);

/**
 * Load and validate a configuration file into `cfg` (released by the caller;
 * on error it is left released).  An empty file is a configuration with
 * every default.  A list may be written as one string; a key with no value
 * (`ignore:`) is an empty list.
 */
int mpsfix_config_load(mpsfix_config *cfg, const char *path);

/** Load from memory (`path` names it in messages and gives the folder). */
int mpsfix_config_load_buffer(mpsfix_config *cfg, const char *path, const char *data, size_t len);

void mpsfix_config_release(mpsfix_config *cfg);

/**
 * Does selector `sel` name rule `r`: its id exactly, its code exactly, or a
 * prefix of its code made of the letters and some leading digits ("MPS",
 * "MPS1", "MPS10")?  "ALL" names every rule.  Case matters.
 */
bool mpsfix_selector_matches(const char *sel, const mpsfix_rule *r);

/** Is `sel` a well-formed selector naming at least one rule of `rules`? */
bool mpsfix_selector_known(const char *sel, mpsfix_rule *const *rules, size_t n);

/**
 * Which rules run: with a `select` list, the rules it names (enabled or
 * not), else the rules enabled by default; plus `extend_select`; minus
 * `ignore` (ignore wins, as in ruff, whatever the selectors' lengths).
 * `selected[i]` is set for rules[i].  In select and extend-select, any
 * selector naming a rule turns it on even when it is off by default (its
 * code, its id, or a prefix: "MPS2" turns on an off-by-default MPS202) —
 * except "ALL", which turns on only the rules enabled by default (as ruff's
 * ALL leaves preview rules out).  In ignore, "ALL" removes every rule.
 * Any list may be NULL (empty).
 */
void mpsfix_select_rules(bool *selected, mpsfix_rule *const *rules, size_t n,
			 const mpsfix_strvec *select, bool has_select,
			 const mpsfix_strvec *extend_select, const mpsfix_strvec *ignore);

/**
 * Does glob `glob` match `path` (relative to the glob's base folder, '/'
 * separated)?  `*` and `?` stay within one path component, `**` spans any
 * number of them (zero included), `[...]` as in fnmatch(3) (no FNM_PERIOD:
 * `*` matches dot files, as in .gitignore); a glob without '/' matches any
 * component (in any folder), so `*_pb2.py` and `build` work as in
 * .gitignore; a glob that matches a folder matches everything under it
 * (`tests` covers tests/a/b.py, and so does `tests` followed by a last
 * component `**`, which also matches `tests` itself).  A glob with a '/' is
 * anchored at the base folder; a leading '/' and "." components change
 * nothing; a trailing '/' matches folders only (`build/` covers
 * build/a.py, not a file named build).  (No "/" "*" here: it would open a
 * comment.)
 */
bool mpsfix_glob_matches(const char *glob, const char *path);

#endif
