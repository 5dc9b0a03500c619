/*
 * cli.h: the command line: subcommands, options, usage text, exit codes.
 */
#ifndef MPSFIX_CLI_H
#define MPSFIX_CLI_H

#include <stdio.h>

#include "common.h"

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
	MPSFIX_CMD_TEST
} mpsfix_command;

typedef struct {
	mpsfix_command command;
	char **rule_paths;        /* --rules (borrowed from argv) */
	size_t nrule_paths;
	bool no_default_rules;
	bool unsafe_fixes;
	bool quiet;
	bool help;
	bool version;
	char **paths;             /* operands after the command (borrowed) */
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
