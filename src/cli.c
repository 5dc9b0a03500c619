/*
 * cli.c: option table and usage text.  Every long option here is documented
 * in man/mpsfix.1 (tests/cli.sh checks that they agree).
 */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_RULES = 256,
	OPT_NO_DEFAULT_RULES,
	OPT_UNSAFE_FIXES,
};

static const struct option long_options[] = {
	{"rules", required_argument, NULL, OPT_RULES},
	{"no-default-rules", no_argument, NULL, OPT_NO_DEFAULT_RULES},
	{"unsafe-fixes", no_argument, NULL, OPT_UNSAFE_FIXES},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static const struct {
	const char *name;
	mpsfix_command command;
} commands[] = {
	{"check", MPSFIX_CMD_CHECK},
	{"diff", MPSFIX_CMD_DIFF},
	{"fix", MPSFIX_CMD_FIX},
	{"test", MPSFIX_CMD_TEST},
};

const char *mpsfix_command_name(mpsfix_command c)
{
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(commands); i++)
		if (commands[i].command == c)
			return commands[i].name;
	return "";
}

void mpsfix_cli_usage(FILE *f)
{
	fputs("usage: mpsfix <command> [options] [PATH...]\n"
	      "\n"
	      "Find PyTorch code that breaks or slows down on Apple's MPS backend, and\n"
	      "rewrite it into code that computes exactly the same thing.\n"
	      "\n"
	      "commands:\n"
	      "  check PATH...        report findings as PATH:LINE:COL: CODE [*] MESSAGE\n"
	      "                       ([*]: `mpsfix fix` fixes it); exit 1 if any\n"
	      "  diff PATH...         print the fixes as a unified diff (for git apply);\n"
	      "                       writes nothing; exit 1 if the diff is not empty\n"
	      "  fix PATH...          apply the fixes to the files, atomically; print\n"
	      "                       what remains; exit 1 if findings remain\n"
	      "  test [RULE...]       run the rules' embedded examples; print\n"
	      "                       'N passed, N failed'\n"
	      "\n"
	      "Folders are searched for *.py and *.pyi files (hidden folders, __pycache__,\n"
	      "node_modules, .venv, venv and site-packages are skipped); the default PATH\n"
	      "is the current folder.\n"
	      "\n"
	      "options:\n"
	      "  --rules PATH         add a rule folder or rule file (repeatable)\n"
	      "  --no-default-rules   do not load the shipped rules\n"
	      "  --unsafe-fixes       also apply fixes marked unsafe\n"
	      "  -q, --quiet          no summary line\n"
	      "  -h, --help           show this help\n"
	      "  -V, --version        show the version\n"
	      "\n"
	      "exit status: 0 nothing found (or all fixed), 1 findings remain or the diff\n"
	      "is not empty, 2 usage, rule-file or I/O error.  See mpsfix(1).\n",
	      f);
}

int mpsfix_cli_parse(mpsfix_opts *opts, int argc, char **argv)
{
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->rule_paths.items = mpsfix_xcalloc((size_t)argc + 1, sizeof(char *));
	opts->unsafe_fixes = -1;
	opts->paths = mpsfix_xcalloc((size_t)argc + 1, sizeof(char *));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:qhV", long_options, NULL)) != -1 ||
	       optind < argc) {
		if (c == -1) {
			/* an operand: the command first, then paths; options may follow */
			const char *arg;

			if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
				/* after "--" everything is a path */
				if (opts->command == MPSFIX_CMD_NONE)
					return mpsfix_error_set(MPSFIX_ERROR, "no command given (try 'mpsfix --help')");
				while (optind < argc)
					opts->paths[opts->npaths++] = argv[optind++];
				break;
			}
			arg = argv[optind++];

			if (opts->command == MPSFIX_CMD_NONE) {
				for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(commands); i++)
					if (!strcmp(arg, commands[i].name))
						opts->command = commands[i].command;
				if (opts->command == MPSFIX_CMD_NONE)
					return mpsfix_error_set(MPSFIX_ERROR, "unknown command '%s' (try 'mpsfix --help')", arg);
			} else {
				opts->paths[opts->npaths++] = (char *)arg;
			}
			continue;
		}
		switch (c) {
		case OPT_RULES:
			opts->rule_paths.items[opts->rule_paths.len++] = optarg;
			break;
		case OPT_NO_DEFAULT_RULES:
			opts->no_default_rules = true;
			break;
		case OPT_UNSAFE_FIXES:
			opts->unsafe_fixes = 1;
			break;
		case 'q':
			opts->quiet = true;
			break;
		case 'h':
			opts->help = true;
			break;
		case 'V':
			opts->version = true;
			break;
		case ':':
			return mpsfix_error_set(MPSFIX_ERROR, "option '%s' needs a value", argv[optind - 1]);
		default:
			for (size_t i = 0; optopt >= 256 && long_options[i].name; i++)
				if (long_options[i].val == optopt)
					return mpsfix_error_set(MPSFIX_ERROR, "option '--%s' takes no value",
								long_options[i].name);
			if (optopt && optopt < 256)
				return mpsfix_error_set(MPSFIX_ERROR, "unknown option '-%c' (try 'mpsfix --help')", optopt);
			return mpsfix_error_set(MPSFIX_ERROR, "unknown option '%s' (try 'mpsfix --help')",
						argv[optind - 1]);
		}
	}
	if (!opts->help && !opts->version && opts->command == MPSFIX_CMD_NONE)
		return mpsfix_error_set(MPSFIX_ERROR, "no command given (try 'mpsfix --help')");
	return 0;
}

void mpsfix_opts_release(mpsfix_opts *opts)
{
	free(opts->rule_paths.items);
	free(opts->paths);
	memset(opts, 0, sizeof(*opts));
}
