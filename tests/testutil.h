/* testutil.h: helpers shared by the Check suites. */
#ifndef MPSFIX_TESTUTIL_H
#define MPSFIX_TESTUTIL_H

#include <tree_sitter/api.h>

#include "engine.h"
#include "rule.h"

/** The whole file at `path` (malloc'd, NUL-terminated), its size in `*len`; NULL if it cannot be opened. */
char *tu_read_file(const char *path, size_t *len);

/** A parser for this test process (created on first use). */
TSParser *tu_parser(void);

/** Compile `pattern` and count its matches anywhere in `code` (-1: compile error). */
int tu_count_matches(const char *pattern, const char *code);

/** Count the matches of `p` in `tree`; the first is returned in `first` (if not NULL). */
int tu_match_tree(mpsfix_match *first, const mpsfix_pattern *p, TSTree *tree, const char *code);

/** The text bound to `name` in the first match of `pattern` in `code` (malloc'd), or NULL. */
char *tu_binding(const char *pattern, const char *code, const char *name);

/**
 * A rule built without YAML: `patterns` (NULL-terminated), an optional fix
 * (`tmpl` replacing `target`, or the whole match when target is NULL; or a
 * removal of `remove_target`), and `unsafe`.
 */
mpsfix_rule *tu_rule(const char *code, const char *const *patterns, const char *target,
		     const char *tmpl, const char *remove_target, bool unsafe);

/** Add a `value:` constraint of one string or bool literal to metavariable `name`. */
void tu_rule_value(mpsfix_rule *r, const char *name, const char *str_value, int bool_value);

/**
 * Run `rule` over `code` with unsafe fixes and every warning (verbose); fix
 * mode gives the new text (malloc'd) and findings in `res`.
 */
char *tu_run(mpsfix_rule *rule, const char *code, size_t len, bool fix, mpsfix_result *res);

/**
 * Load the rule in `yaml` and fix `code` with it: the fixed text, or
 * "MANUAL: reason" when the first finding needs a manual fix (malloc'd).
 */
char *tu_fix_yaml(const char *yaml, const char *code);

/**
 * Before libgit2 starts (it reads HOME then): HOME, XDG_CONFIG_HOME
 * (home/xdg) and the global git configuration are under `home`, the system
 * one is off, and no GIT_DIR-like variable from a calling hook leaks in.
 * tu_git_restore() puts the environment back.
 */
void tu_git_isolate(const char *home);
void tu_git_restore(void);

/** Run the shell command `fmt` in folder `dir`; its exit status (-1 if it could not run). */
int tu_sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** The standard output of the shell command `fmt` run in `dir`, without its last newline (malloc'd). */
char *tu_sh_out(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Write `text` to `dir`/`rel`, creating the folders on the way. */
void tu_put(const char *dir, const char *rel, const char *text);

/** Remove `dir` and everything under it (symbolic links are not followed). */
void tu_rm_rf(const char *dir);

/** Load a rule from YAML text (aborts the test on error); free with mpsfix_rule_free. */
mpsfix_rule *tu_yaml_rule(const char *yaml);

#endif
