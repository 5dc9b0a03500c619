/*
 * main.c: the mpsfix program: parse the command line, load what the command
 * needs (configuration, rules), run it from the command table, flush and
 * clean up.  The commands are in cmd_*.c (see cmd.h); only they and main
 * print errors.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "git.h"
#include "settings.h"
#include "version.h"

/* Set by SIGINT/SIGTERM: the run stops between files and exits 130.  (A
 * signal handler can only talk to the program through such a flag.) */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * test: the rules named as operands are tested alone (the shipped ones
 * only when none is named); no configuration file.
 */
static int load_for_test(mpsfix_cmd *cmd)
{
	const mpsfix_opts *opts = cmd->opts;
	bool defaults = !opts->no_default_rules && opts->npaths == 0;

	if (mpsfix_settings_load_rules(&cmd->rules, cmd->ctx.parser, opts->rule_paths.items,
				       opts->rule_paths.len, defaults) < 0)
		return MPSFIX_ERROR;
	return mpsfix_settings_load_rules(&cmd->rules, cmd->ctx.parser, opts->paths, opts->npaths, false);
}

/* The other commands: the configuration, the shipped rules, --rules, the configuration's rules. */
static int load_with_config(mpsfix_cmd *cmd)
{
	const mpsfix_opts *opts = cmd->opts;

	if (mpsfix_settings_load_config(&cmd->config, opts) < 0 ||
	    mpsfix_settings_load_rules(&cmd->rules, cmd->ctx.parser, opts->rule_paths.items,
				       opts->rule_paths.len, !opts->no_default_rules) < 0 ||
	    mpsfix_settings_load_rules(&cmd->rules, cmd->ctx.parser, cmd->config.rules.items,
				       cmd->config.rules.len, false) < 0)
		return MPSFIX_ERROR;
	return 0;
}

/* The commands (git's cmd_struct): what each loads, and what runs it. */
static const struct {
	mpsfix_command command;
	int (*load)(mpsfix_cmd *cmd);
	int (*run)(mpsfix_cmd *cmd);
} commands[] = {
	{MPSFIX_CMD_CHECK, load_with_config, mpsfix_cmd_check},
	{MPSFIX_CMD_DIFF, load_with_config, mpsfix_cmd_check},
	{MPSFIX_CMD_FIX, load_with_config, mpsfix_cmd_check},
	{MPSFIX_CMD_COMMIT, load_with_config, mpsfix_cmd_series},
	{MPSFIX_CMD_PATCH, load_with_config, mpsfix_cmd_series},
	{MPSFIX_CMD_REVIEW, load_with_config, mpsfix_cmd_series},
	{MPSFIX_CMD_RULES, load_with_config, mpsfix_cmd_rules},
	{MPSFIX_CMD_EXPLAIN, load_with_config, mpsfix_cmd_rules},
	{MPSFIX_CMD_TEST, load_for_test, mpsfix_cmd_test},
};

/* --version: the versions, and the rules folder this binary would load */
static void print_version(void)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *dir = mpsfix_settings_rules_dir();

	mpsfix_version_text(&b, dir);
	fwrite(b.data, 1, b.len, stdout);
	mpsfix_buf_release(&b);
	free(dir);
}

static int run(mpsfix_cmd *cmd)
{
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(commands); i++) {
		if (commands[i].command != cmd->opts->command)
			continue;
		if (commands[i].load(cmd) < 0) {
			mpsfix_cmd_error(mpsfix_error_last()->message);
			return MPSFIX_EXIT_ERROR;
		}
		return commands[i].run(cmd);
	}
	mpsfix_cmd_error("no command given (try 'mpsfix --help')");
	return MPSFIX_EXIT_ERROR;
}

int main(int argc, char **argv)
{
	mpsfix_opts opts;
	mpsfix_cmd cmd = {.opts = &opts, .interrupted = &interrupted, .config = MPSFIX_CONFIG_INIT};
	struct sigaction sa;
	bool git_ready = false;
	int status = MPSFIX_EXIT_OK;

	if (mpsfix_cli_parse(&opts, argc, argv) < 0) {
		mpsfix_cmd_error(mpsfix_error_last()->message);
		mpsfix_opts_release(&opts);
		return MPSFIX_EXIT_ERROR;
	}
	if (opts.help) {
		mpsfix_cli_usage(stdout);
		goto out;
	}
	if (opts.version) {
		print_version();
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	git_ready = mpsfix_git_init() == 0;
	if (!git_ready || mpsfix_ctx_init(&cmd.ctx) < 0) {
		mpsfix_cmd_error(mpsfix_error_last()->message);
		status = MPSFIX_EXIT_ERROR;
		goto out;
	}
	status = run(&cmd);
out:
	if (cmd.out && cmd.out != stdout && cmd.out != stderr && fclose(cmd.out) != 0) {
		fprintf(stderr, "mpsfix: error writing %s: %s\n", opts.output, strerror(errno));
		status = MPSFIX_EXIT_ERROR;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "mpsfix: error writing output: %s\n", strerror(errno));
		status = MPSFIX_EXIT_ERROR;
	}
	mpsfix_ruleset_release(&cmd.rules);
	mpsfix_config_release(&cmd.config);
	mpsfix_settings_release(&cmd.set);
	mpsfix_ctx_release(&cmd.ctx);
	if (git_ready)
		mpsfix_git_shutdown();
	mpsfix_opts_release(&opts);
	return status;
}
