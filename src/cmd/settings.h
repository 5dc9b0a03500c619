/*
 * settings.h: what a run is told, resolved in one place: the command line
 * (mpsfix_opts), the configuration file (.mpsfix.yml) and the environment
 * (MPSFIX_RULES_DIR, MPSFIX_FORMAT, MPSFIX_JOBS).  The command line wins over
 * the file, the file over the environment's defaults and the project's
 * own files (its pins, its lint configuration's line length).
 */
#ifndef MPSFIX_SETTINGS_H
#define MPSFIX_SETTINGS_H

#include "cli.h"
#include "common.h"
#include "config.h"
#include "report.h"
#include "rule.h"
#include "style.h"
#include "targets.h"

typedef struct {
	mpsfix_strvec select, ignore, extend_select; /* the rule selectors, split at commas */
	bool has_select;
	bool unsafe_fixes;
	mpsfix_targets targets;      /* the torch targets: item 0 the run's, the files' from
					mpsfix_targets_of_file; rules whose range misses them do not run */
	const char *target;          /* what the summary says of the run's (borrowed from targets) */
	mpsfix_styles styles;        /* the line lengths: item 0 --line-length's, line-length:'s
					or the default, the files' from mpsfix_styles_of_file */
	mpsfix_format format;        /* the report format (check, diff, fix) */
	size_t jobs;                 /* worker threads (check, diff, fix) */
} mpsfix_settings;

/** The shipped rules' folder: $MPSFIX_RULES_DIR, next to the binary, or the data folder (owned). */
char *mpsfix_settings_rules_dir(void);

/**
 * Load the rules: the shipped ones when `defaults`, then each of `extra`
 * (folders or files).
 */
int mpsfix_settings_load_rules(mpsfix_ruleset *rules, TSParser *parser, char *const *extra,
			       size_t nextra, bool defaults);

/** `.mpsfix.yml` into `cfg`: --config FILE, none with --isolated, else found upward. */
int mpsfix_settings_load_config(mpsfix_config *cfg, const mpsfix_opts *opts);

/**
 * Resolve the settings of a run of `opts->command` from `opts` and `cfg`,
 * checking that every selector names one of `rules`.  The warnings of the
 * torch target (unreadable pins) go to `warn(payload, message)` as they
 * come.  rules and explain stop after the target: they have no files and no
 * report format.
 */
int mpsfix_settings_resolve(mpsfix_settings *set, const mpsfix_opts *opts, const mpsfix_config *cfg,
			    mpsfix_rule *const *rules, size_t nrules,
			    void (*warn)(void *payload, const char *message), void *payload);

void mpsfix_settings_release(mpsfix_settings *set);

#endif
