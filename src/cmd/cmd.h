/*
 * cmd.h: what the commands share (main.c and the cmd_*.c files, nothing
 * else includes it).  main.c parses the command line, loads the
 * configuration and the rules into an mpsfix_cmd and calls the command's
 * function from its table; each command family has its file:
 *   cmd_check.c   check, diff, fix: the files on worker threads, the report
 *   cmd_file.c    the work on one file for them (load, engine, diff, write)
 *   cmd_series.c  commit, patch, review: the fixes rule by rule as a series
 *   cmd_rules.c   rules, explain
 *   cmd_test.c    test: the rules' embedded examples
 * A command returns the exit status (MPSFIX_EXIT_*); commands print their
 * own errors (they are the top of the program, as main is).
 */
#ifndef MPSFIX_CMD_H
#define MPSFIX_CMD_H

#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "common.h"
#include "config.h"
#include "discover.h"
#include "engine.h"
#include "git.h"
#include "rule.h"
#include "settings.h"
#include "source.h"

/* What main hands every command. */
typedef struct {
	const mpsfix_opts *opts;
	volatile sig_atomic_t *interrupted; /* set by SIGINT/SIGTERM: stop between files */
	mpsfix_ctx ctx;              /* the main thread's parser */
	mpsfix_ruleset rules;
	mpsfix_config config;
	mpsfix_settings set;         /* resolved by the command (mpsfix_settings_resolve) */
	FILE *out;                   /* the report: -o FILE (main closes it), standard
					output or error; NULL until a command sets it */
	bool io_error;               /* an error was printed: the exit status is 2 */
} mpsfix_cmd;

int mpsfix_cmd_check(mpsfix_cmd *cmd);  /* check, diff, fix */
int mpsfix_cmd_series(mpsfix_cmd *cmd); /* commit, patch, review */
int mpsfix_cmd_rules(mpsfix_cmd *cmd);  /* rules, explain */
int mpsfix_cmd_test(mpsfix_cmd *cmd);   /* test */

/* ---- helpers of the commands (cmd.c) ------------------------------------------------ */

/** "mpsfix: MESSAGE" on standard error. */
void mpsfix_cmd_error(const char *message);
/** The same, as a callback (payload: the mpsfix_cmd, whose io_error it sets). */
void mpsfix_cmd_on_error(void *payload, const char *message);
/** The same, for a warning: io_error stays (payload unused). */
void mpsfix_cmd_on_warning(void *payload, const char *message);

/** "s" unless n is 1. */
const char *mpsfix_cmd_plural(size_t n);

/** Resolve the settings of the run (errors and warnings printed); 0 or MPSFIX_ERROR. */
int mpsfix_cmd_settle(mpsfix_cmd *cmd);

/**
 * The torch target of each of `files` (indices into cmd->set.targets.items;
 * owned), settled on this thread before any worker starts, the warnings of
 * the pins read printed; standard input's from --stdin-filename.  *used
 * (owned): for each target, how many of the files have it.
 */
size_t *mpsfix_cmd_targets(mpsfix_cmd *cmd, const mpsfix_strvec *files, size_t **used);

/**
 * The line length of each of `files` (owned): the run's (--line-length,
 * line-length:), else its project's (style.h), settled on this thread
 * before any worker starts, the warnings of the lint configurations read
 * printed; standard input's from --stdin-filename.
 */
uint32_t *mpsfix_cmd_line_lengths(mpsfix_cmd *cmd, const mpsfix_strvec *files);

/**
 * The rules that run: selected, and meeting the torch target of some file
 * (`used`: files per target, as mpsfix_cmd_targets gives; NULL, or none
 * used: the run's target) (owned array, borrowed rules).
 */
mpsfix_rule **mpsfix_cmd_enabled(const mpsfix_cmd *cmd, const size_t *used, size_t *n);

/**
 * The files the operands name (the current folder when none), as discover
 * finds them with --exclude, --include, --no-ignore and the configuration's
 * excludes; unreadable ones are printed and set io_error.
 */
int mpsfix_cmd_files(mpsfix_cmd *cmd, mpsfix_strvec *files);

/** Whether to color output going to `f` (--color, a terminal, NO_COLOR). */
bool mpsfix_cmd_color(const mpsfix_cmd *cmd, FILE *f);

/** The folder argument a walked file was found under (its path starts with it), or NULL. */
const char *mpsfix_cmd_folder_of(const char *path, char *const *args, size_t nargs);

/**
 * Whether a file found by walking folder `root` resolves outside it
 * (through a symbolic link): such a file is read but never written.
 */
bool mpsfix_cmd_leaves_root(const char *path, const char *root);

/** `path` relative to folder `dir` (both made absolute), or NULL when outside (owned). */
char *mpsfix_cmd_relative_to(const char *path, const char *dir);

/**
 * The path of file `path` that a rule's skip-paths see: inside folder
 * `root` when it was found by walking that folder argument (NULL if it
 * resolves outside it); for a file named alone (`root` NULL, or standard
 * input's --stdin-filename), inside its git work tree (its folder's, for a
 * file not written yet), else inside the current folder, else its name:
 * never the folders above the project.  Owned by the caller.
 */
char *mpsfix_cmd_skip_path(const char *path, const char *root);

/** The exit status of a run that fixed `fixed` things and left `left` behind. */
int mpsfix_cmd_exit_status(const mpsfix_cmd *cmd, bool left, size_t fixed);

/*
 * What the engine's keep callback knows of the file at hand: whether a
 * match counts there (--since, per-file-ignores).  Each worker has its own.
 */
typedef struct {
	const mpsfix_config *config;
	const char *rel;             /* path relative to the config folder (per-file-ignores) */
	mpsfix_line_range *since;    /* --since: lines changed, sorted */
	size_t nsince;
	bool since_active;
	const mpsfix_source *src;   /* a notebook's text: lines are mapped to its JSON's */
} mpsfix_file_scope;

/** The engine's keep callback (payload: an mpsfix_file_scope). */
bool mpsfix_cmd_keep(void *payload, const mpsfix_rule *rule, uint32_t line);

/* ---- one file of check, diff and fix (cmd_file.c) ------------------------------------ */

/*
 * What the work on one file leaves for the main thread, which reports the
 * files in path order: its messages for standard error, in order, the report
 * (source, result and diff, dropped early when there is nothing to report)
 * and what it adds to the counters.
 */
typedef struct {
	mpsfix_strvec messages;     /* each printed as "mpsfix: MESSAGE" */
	const char *display;         /* the name in the report (borrowed from the path) */
	mpsfix_source src, fixed;
	bool show_fixed;             /* report on `fixed` (what remains), not `src` */
	mpsfix_result res;
	mpsfix_buf diff;
	bool skipped, scanned, io_error;
	bool done;                   /* reached the report: count it and report it */
	bool report;                 /* something to report */
	bool changed;
	size_t nfixed;
} mpsfix_file_record;

/**
 * The work on one file (`root`: the folder argument it was found under, or
 * NULL; `target`: its torch target; `line_length`: its longest line): load,
 * check, run the engine, diff, write back (fix).  It reads `cmd` and writes
 * only `rec` and the file: it runs on worker threads.
 */
void mpsfix_cmd_file(const mpsfix_cmd *cmd, const mpsfix_index *index, mpsfix_ctx *ctx,
		     mpsfix_file_record *rec, const char *path, const char *root,
		     const mpsfix_torch_range *target, uint32_t line_length);
void mpsfix_file_record_free(mpsfix_file_record *rec);

#endif
