/*
 * cli.h: the command line: subcommands, options, usage text, exit codes.
 */
#ifndef MPSFIX_CLI_H
#define MPSFIX_CLI_H

#include <stdio.h>

#include "common.h"
#include "strvec.h"

enum {
	MPSFIX_EXIT_OK = 0,        /* nothing found, or everything fixed */
	MPSFIX_EXIT_FINDINGS = 1,  /* findings remain / the diff is not empty / tests failed */
	MPSFIX_EXIT_ERROR = 2,     /* usage, rule-file, I/O error */
	MPSFIX_EXIT_INTERRUPT = 130
};

typedef enum {
	MPSFIX_CMD_NONE,
	MPSFIX_CMD_CHECK,
	MPSFIX_CMD_DIFF,
	MPSFIX_CMD_FIX,
	MPSFIX_CMD_TEST,
	MPSFIX_CMD_RULES,
	MPSFIX_CMD_EXPLAIN,
	MPSFIX_CMD_COMMIT,
	MPSFIX_CMD_PATCH,
	MPSFIX_CMD_REVIEW
} mpsfix_command;

typedef enum {
	MPSFIX_COLOR_AUTO,
	MPSFIX_COLOR_ALWAYS,
	MPSFIX_COLOR_NEVER
} mpsfix_color;

typedef struct {
	mpsfix_command command;
	mpsfix_strvec rule_paths;    /* --rules (repeatable options: copies of their values) */
	bool no_default_rules;
	int unsafe_fixes;             /* --unsafe-fixes 1, --no-unsafe-fixes 0, else -1 */
	bool quiet;                   /* -q, --quiet: no summary line */
	bool verbose;                 /* -v, --verbose: also what could not be checked */
	bool help;
	bool version;
	const char *format;           /* --format (or NULL: MPSFIX_FORMAT, then full on a terminal, else concise) */
	const char *output;           /* -o/--output FILE (patch: --output only, refused) */
	mpsfix_color color;           /* --color */
	bool statistics;              /* --statistics */
	bool exit_zero;               /* --exit-zero */
	bool exit_non_zero_on_fix;    /* --exit-non-zero-on-fix */
	mpsfix_strvec select, ignore, extend_select; /* each value may be comma-separated */
	bool has_select;
	bool show_unused_suppressions;
	const char *config;           /* --config FILE */
	bool isolated;                /* --isolated: no configuration file */
	mpsfix_strvec exclude, include; /* --exclude/--include GLOB */
	bool no_ignore;               /* --no-ignore */
	bool no_prefilter;            /* --no-prefilter */
	const char *stdin_filename;   /* --stdin-filename NAME */
	const char *since;            /* --since REF */
	bool staged;                  /* --staged */
	const char *target_torch;     /* --target-torch SPEC */
	uint32_t line_length;         /* --line-length N, or 0 */
	size_t jobs;                  /* -j, --jobs N (check, diff, fix), or 0 */
	/* commit, patch, review */
	bool squash;                  /* --squash: one commit for every rule */
	bool signoff;                 /* -s, --signoff */
	const char *branch;           /* --branch NAME */
	bool allow_dirty;             /* --allow-dirty */
	bool to_stdout;               /* --stdout (patch) */
	const char *output_directory; /* --output-directory DIR, or -o DIR (patch) */
	bool review_commit;           /* --commit (review) */
	char **paths;                 /* operands after the command (borrowed); for
					 explain, the one rule code or id */
	size_t npaths;
} mpsfix_opts;

/**
 * Parse argv into `opts` (which the caller releases with mpsfix_opts_release).
 * Returns 0, or MPSFIX_ERROR with a usage message in the error slot.
 */
int mpsfix_cli_parse(mpsfix_opts *opts, int argc, char **argv);
void mpsfix_opts_release(mpsfix_opts *opts);

/** Print the usage text. */
void mpsfix_cli_usage(FILE *f);

const char *mpsfix_command_name(mpsfix_command c);

#endif
