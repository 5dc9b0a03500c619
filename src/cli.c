/*
 * cli.c: option table and usage text.  Every long option of long_options[]
 * is listed by mpsfix_cli_usage() and documented in man/mpsfix.1, with the
 * same argument name (tests/man.sh checks that the three agree).
 */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

enum {
	OPT_RULES = 256,
	OPT_NO_DEFAULT_RULES,
	OPT_UNSAFE_FIXES,
	OPT_NO_UNSAFE_FIXES,
	OPT_FORMAT,
	OPT_COLOR,
	OPT_STATISTICS,
	OPT_EXIT_ZERO,
	OPT_EXIT_NON_ZERO_ON_FIX,
	OPT_SELECT,
	OPT_IGNORE,
	OPT_EXTEND_SELECT,
	OPT_SHOW_UNUSED_SUPPRESSIONS,
	OPT_CONFIG,
	OPT_ISOLATED,
	OPT_EXCLUDE,
	OPT_INCLUDE,
	OPT_NO_IGNORE,
	OPT_NO_PREFILTER,
	OPT_STDIN_FILENAME,
	OPT_SINCE,
	OPT_STAGED,
	OPT_TARGET_TORCH,
	OPT_SQUASH,
	OPT_BRANCH,
	OPT_ALLOW_DIRTY,
	OPT_STDOUT,
	OPT_OUTPUT_DIRECTORY,
	OPT_COMMIT,
};

/* One entry per line: tests/man.sh reads the names from here. */
static const struct option long_options[] = {
	{"rules", required_argument, NULL, OPT_RULES},
	{"no-default-rules", no_argument, NULL, OPT_NO_DEFAULT_RULES},
	{"unsafe-fixes", no_argument, NULL, OPT_UNSAFE_FIXES},
	{"no-unsafe-fixes", no_argument, NULL, OPT_NO_UNSAFE_FIXES},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"include", required_argument, NULL, OPT_INCLUDE},
	{"no-ignore", no_argument, NULL, OPT_NO_IGNORE},
	{"stdin-filename", required_argument, NULL, OPT_STDIN_FILENAME},
	{"since", required_argument, NULL, OPT_SINCE},
	{"staged", no_argument, NULL, OPT_STAGED},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"output", required_argument, NULL, 'o'},
	{"color", required_argument, NULL, OPT_COLOR},
	{"statistics", no_argument, NULL, OPT_STATISTICS},
	{"quiet", no_argument, NULL, 'q'},
	{"exit-zero", no_argument, NULL, OPT_EXIT_ZERO},
	{"exit-non-zero-on-fix", no_argument, NULL, OPT_EXIT_NON_ZERO_ON_FIX},
	{"select", required_argument, NULL, OPT_SELECT},
	{"extend-select", required_argument, NULL, OPT_EXTEND_SELECT},
	{"ignore", required_argument, NULL, OPT_IGNORE},
	{"show-unused-suppressions", no_argument, NULL, OPT_SHOW_UNUSED_SUPPRESSIONS},
	{"no-prefilter", no_argument, NULL, OPT_NO_PREFILTER},
	{"config", required_argument, NULL, OPT_CONFIG},
	{"isolated", no_argument, NULL, OPT_ISOLATED},
	{"target-torch", required_argument, NULL, OPT_TARGET_TORCH},
	{"jobs", required_argument, NULL, 'j'},
	{"squash", no_argument, NULL, OPT_SQUASH},
	{"signoff", no_argument, NULL, 's'},
	{"branch", required_argument, NULL, OPT_BRANCH},
	{"allow-dirty", no_argument, NULL, OPT_ALLOW_DIRTY},
	{"stdout", no_argument, NULL, OPT_STDOUT},
	{"output-directory", required_argument, NULL, OPT_OUTPUT_DIRECTORY},
	{"commit", no_argument, NULL, OPT_COMMIT},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static const char short_options[] = "+:qhVo:sj:";

static const struct {
	const char *name;
	mpsfix_command command;
} commands[] = {
	{"check", MPSFIX_CMD_CHECK},
	{"diff", MPSFIX_CMD_DIFF},
	{"fix", MPSFIX_CMD_FIX},
	{"test", MPSFIX_CMD_TEST},
	{"rules", MPSFIX_CMD_RULES},
	{"explain", MPSFIX_CMD_EXPLAIN},
	{"commit", MPSFIX_CMD_COMMIT},
	{"patch", MPSFIX_CMD_PATCH},
	{"review", MPSFIX_CMD_REVIEW},
};

/* The values --format accepts (report.h names the same ones). */
static const char *const format_names[] = {
	"full", "concise", "json", "jsonl", "sarif", "github", "diff", NULL
};

/* The values --color accepts, in mpsfix_color order. */
static const char *const color_names[] = {"auto", "always", "never", NULL};

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
	      "Commands:\n"
	      "  check [PATH...]             report findings; exit 1 if any remain\n"
	      "  diff [PATH...]              print the fixes as a unified diff (for git\n"
	      "                              apply); write nothing; exit 1 if not empty\n"
	      "  fix [PATH...]               apply the fixes to the files, atomically;\n"
	      "                              exit 1 if findings remain\n"
	      "  test [RULE...]              run the rules' embedded examples\n"
	      "  rules                       list the rules: fix, torch range, whether\n"
	      "                              each runs here (--format json: an array)\n"
	      "  explain CODE|ID             describe one rule, with its note\n"
	      "  commit [PATH...]            commit the fixes, one commit per rule, on\n"
	      "                              the current branch (git work tree)\n"
	      "  patch [PATH...]             write those commits as git format-patch\n"
	      "                              files for git am; change nothing\n"
	      "  review [PATH...]            ask about each fix on the terminal, then\n"
	      "                              write the accepted ones (or commit them)\n"
	      "\n"
	      "In a git work tree, tracked and untracked-but-not-ignored *.py and *.pyi\n"
	      "files are read; elsewhere folders are walked (hidden folders, __pycache__,\n"
	      "node_modules, .venv, venv and site-packages skipped).  The default PATH\n"
	      "is the current folder; '-' reads standard input.\n"
	      "\n"
	      "Rules and fixes:\n"
	      "  --rules PATH                add a rule folder or rule file (repeatable)\n"
	      "  --no-default-rules          do not load the shipped rules\n"
	      "  --unsafe-fixes              also apply fixes marked unsafe\n"
	      "  --no-unsafe-fixes           apply only safe fixes (overrides the config)\n"
	      "\n"
	      "Files:\n"
	      "  --exclude GLOB              skip matching files and folders (repeatable)\n"
	      "  --include GLOB              read only matching files (repeatable)\n"
	      "  --no-ignore                 also read files git ignores\n"
	      "  --stdin-filename NAME       the name to report standard input ('-') as\n"
	      "  --since REF                 only lines changed since git revision REF\n"
	      "  --staged                    read the staged content of staged files\n"
	      "\n"
	      "Output:\n"
	      "  --format FORMAT             the report format: full, concise, json,\n"
	      "                              jsonl, sarif, github or diff\n"
	      "  -o, --output FILE           write the report to FILE\n"
	      "  --color WHEN                color the output: auto, always or never\n"
	      "  --statistics                print a count of findings per rule\n"
	      "  -q, --quiet                 no summary line\n"
	      "  --exit-zero                 exit 0 even if findings remain\n"
	      "  --exit-non-zero-on-fix      exit 1 if anything was fixed\n"
	      "\n"
	      "Selection:\n"
	      "  --select LIST               run only these codes, prefixes or rule ids\n"
	      "                              (comma-separated, repeatable)\n"
	      "  --extend-select LIST        run these rules too (repeatable)\n"
	      "  --ignore LIST               do not run these rules (repeatable)\n"
	      "  --show-unused-suppressions  report noqa comments that suppress nothing\n"
	      "  --no-prefilter              parse every file, also those no rule's words are in\n"
	      "\n"
	      "Configuration:\n"
	      "  --config FILE               read this configuration, not .mpsfix.yml\n"
	      "  --isolated                  read no configuration file\n"
	      "  --target-torch SPEC         the torch versions to target (>=2.1,<2.6)\n"
	      "\n"
	      "Speed (check, diff, fix):\n"
	      "  -j, --jobs N                work on N files at once (default: one per\n"
	      "                              online processor); the output is the same\n"
	      "                              for every N\n"
	      "\n"
	      "Commits and patches (commit, patch, review --commit):\n"
	      "  --squash                    one commit for all the rules\n"
	      "  -s, --signoff               add a Signed-off-by trailer\n"
	      "  --branch NAME               commit on a new branch NAME from HEAD;\n"
	      "                              leave HEAD, index and work tree alone\n"
	      "  --allow-dirty               commit even if the files have uncommitted\n"
	      "                              changes (they stay uncommitted)\n"
	      "  --stdout                    patch: write one mbox to standard output\n"
	      "  --output-directory DIR      patch: write the patch files into DIR\n"
	      "  --commit                    review: commit the accepted fixes per rule\n"
	      "\n"
	      "Other:\n"
	      "  -h, --help                  show this help\n"
	      "  -V, --version               show the version\n"
	      "\n"
	      "Exit status: 0 nothing found (or everything fixed); 1 findings remain,\n"
	      "the diff is not empty, or something was fixed with --exit-non-zero-on-fix;\n"
	      "2 usage, configuration, rule-file, I/O or git error; 130 interrupted.\n"
	      "\n"
	      "Environment: MPSFIX_FORMAT (the default --format), MPSFIX_JOBS (the\n"
	      "default --jobs), MPSFIX_RULES_DIR (the shipped rules), NO_COLOR (no color\n"
	      "unless --color=always).\n"
	      "See mpsfix(1) and mpsfix-rules(5).\n",
	      f);
}

/* Find `value` in the NULL-terminated `names`: its index, or an error listing them. */
static int choose(int *out, const char *option, const char *value, const char *const *names)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error = 0;

	for (int i = 0; names[i]; i++)
		if (!strcmp(value, names[i])) {
			*out = i;
			return 0;
		}
	for (int i = 0; names[i]; i++)
		mpsfix_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	error = mpsfix_error_set(MPSFIX_ERROR, "invalid value '%s' for '--%s' (valid: %s)",
				 value, option, b.data);
	mpsfix_buf_release(&b);
	return error;
}

static void list_push(mpsfix_argv_list *l, char *value)
{
	l->items[l->len++] = value;
}

/* The message for an option getopt_long refused (`arg` as written). */
static int option_error(const char *arg)
{
	size_t n, matches = 0;
	const struct option *last = NULL;

	if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
		if (optopt && optopt < 256)
			return mpsfix_error_set(MPSFIX_ERROR, "unknown option '-%c' (try 'mpsfix --help')",
						optopt);
		return mpsfix_error_set(MPSFIX_ERROR, "unknown option '%s' (try 'mpsfix --help')", arg);
	}
	n = strcspn(arg + 2, "=");
	for (const struct option *o = long_options; o->name; o++) {
		if (strncmp(o->name, arg + 2, n) != 0)
			continue;
		if (o->name[n] == '\0') {
			/* an exact name: refused only for a value it does not take */
			last = o;
			matches = 1;
			break;
		}
		last = o;
		matches++;
	}
	if (matches == 1 && last->has_arg == no_argument && arg[2 + n] == '=')
		return mpsfix_error_set(MPSFIX_ERROR, "option '--%s' takes no value", last->name);
	if (matches > 1)
		return mpsfix_error_set(MPSFIX_ERROR, "option '%.*s' is ambiguous (try 'mpsfix --help')",
					(int)(n + 2), arg);
	return mpsfix_error_set(MPSFIX_ERROR, "unknown option '%.*s' (try 'mpsfix --help')",
				(int)(n + 2), arg);
}

static int add_path(mpsfix_opts *opts, char *arg)
{
	if (!strcmp(arg, "-"))
		for (size_t i = 0; i < opts->npaths; i++)
			if (!strcmp(opts->paths[i], "-"))
				return mpsfix_error_set(MPSFIX_ERROR,
							"standard input ('-') is given twice");
	opts->paths[opts->npaths++] = arg;
	return 0;
}

/* The options of commit, patch and review are refused by the other commands. */
static int check_git_options(const mpsfix_opts *o)
{
	mpsfix_command c = o->command;
	bool commits = c == MPSFIX_CMD_COMMIT || c == MPSFIX_CMD_PATCH ||
		       (c == MPSFIX_CMD_REVIEW && o->review_commit);
	bool to_branch = c == MPSFIX_CMD_COMMIT || (c == MPSFIX_CMD_REVIEW && o->review_commit);
	const char *bad = NULL, *where = NULL;

	if (o->review_commit && c != MPSFIX_CMD_REVIEW) {
		bad = "--commit";
		where = "review";
	} else if ((o->squash || o->signoff) && !commits) {
		bad = o->squash ? "--squash" : "--signoff";
		where = "commit, patch and review --commit";
	} else if ((o->branch || o->allow_dirty) && !to_branch) {
		bad = o->branch ? "--branch" : "--allow-dirty";
		where = "commit and review --commit";
	} else if ((o->to_stdout || o->output_directory) && c != MPSFIX_CMD_PATCH) {
		bad = o->to_stdout ? "--stdout" : "--output-directory";
		where = "patch";
	}
	else if ((c == MPSFIX_CMD_COMMIT || c == MPSFIX_CMD_PATCH || c == MPSFIX_CMD_REVIEW) &&
		 (o->format || o->output || o->statistics)) {
		bad = o->format ? "--format" : o->output ? "--output" : "--statistics";
		where = "the reports of check, diff and fix";
	}
	else if (o->jobs && c != MPSFIX_CMD_CHECK && c != MPSFIX_CMD_DIFF && c != MPSFIX_CMD_FIX) {
		bad = "--jobs";
		where = "check, diff and fix";
	}
	if (bad)
		return mpsfix_error_set(MPSFIX_ERROR, "option '%s' is for %s, not %s", bad, where,
					mpsfix_command_name(c));
	if (o->to_stdout && o->output_directory)
		return mpsfix_error_set(MPSFIX_ERROR,
					"options '--stdout' and '--output-directory' cannot be used together");
	if (o->branch && !*o->branch)
		return mpsfix_error_set(MPSFIX_ERROR, "option '--branch' needs a branch name");
	return 0;
}

int mpsfix_cli_parse(mpsfix_opts *opts, int argc, char **argv)
{
	mpsfix_argv_list *lists[6];
	size_t nlists = 0;
	int c, choice, error = 0;

	memset(opts, 0, sizeof(*opts));
	lists[nlists++] = &opts->rule_paths;
	lists[nlists++] = &opts->select;
	lists[nlists++] = &opts->ignore;
	lists[nlists++] = &opts->extend_select;
	lists[nlists++] = &opts->exclude;
	lists[nlists++] = &opts->include;
	for (size_t i = 0; i < nlists; i++)
		lists[i]->items = mpsfix_xcalloc((size_t)argc + 1, sizeof(char *));
	opts->unsafe_fixes = -1;
	opts->color = MPSFIX_COLOR_AUTO;
	opts->paths = mpsfix_xcalloc((size_t)argc + 1, sizeof(char *));
	opterr = 0;
#if defined(__GLIBC__) || defined(__linux__)
	optind = 0; /* glibc and musl: forget any state of an earlier parse */
#else
	optind = 1;
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__) || \
	defined(__DragonFly__)
	optreset = 1; /* BSD getopt: the same */
#endif
#endif
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1 ||
	       optind < argc) {
		if (c == -1) {
			/* an operand: the command first, then paths; options may follow */
			char *arg;

			if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
				/* after "--" everything is a path */
				if (opts->command == MPSFIX_CMD_NONE) {
					error = mpsfix_error_set(MPSFIX_ERROR,
								 "no command given (try 'mpsfix --help')");
					goto done;
				}
				while (optind < argc)
					if ((error = add_path(opts, argv[optind++])) < 0)
						goto done;
				break;
			}
			arg = argv[optind++];

			if (opts->command == MPSFIX_CMD_NONE) {
				for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(commands); i++)
					if (!strcmp(arg, commands[i].name))
						opts->command = commands[i].command;
				if (opts->command == MPSFIX_CMD_NONE) {
					error = mpsfix_error_set(MPSFIX_ERROR,
								 "unknown command '%s' (try 'mpsfix --help')", arg);
					goto done;
				}
			} else if ((error = add_path(opts, arg)) < 0) {
				goto done;
			}
			continue;
		}
		switch (c) {
		case OPT_RULES:
			list_push(&opts->rule_paths, optarg);
			break;
		case OPT_NO_DEFAULT_RULES:
			opts->no_default_rules = true;
			break;
		case OPT_UNSAFE_FIXES:
			opts->unsafe_fixes = 1;
			break;
		case OPT_NO_UNSAFE_FIXES:
			opts->unsafe_fixes = 0;
			break;
		case OPT_EXCLUDE:
			list_push(&opts->exclude, optarg);
			break;
		case OPT_INCLUDE:
			list_push(&opts->include, optarg);
			break;
		case OPT_NO_IGNORE:
			opts->no_ignore = true;
			break;
		case OPT_NO_PREFILTER:
			opts->no_prefilter = true;
			break;
		case OPT_STDIN_FILENAME:
			opts->stdin_filename = optarg;
			break;
		case OPT_SINCE:
			opts->since = optarg;
			break;
		case OPT_STAGED:
			opts->staged = true;
			break;
		case OPT_FORMAT:
			if ((error = choose(&choice, "format", optarg, format_names)) < 0)
				goto done;
			opts->format = format_names[choice];
			break;
		case 'o':
			opts->output = optarg;
			break;
		case OPT_COLOR:
			if ((error = choose(&choice, "color", optarg, color_names)) < 0)
				goto done;
			opts->color = (mpsfix_color)choice;
			break;
		case OPT_STATISTICS:
			opts->statistics = true;
			break;
		case 'q':
			opts->quiet = true;
			break;
		case OPT_EXIT_ZERO:
			opts->exit_zero = true;
			break;
		case OPT_EXIT_NON_ZERO_ON_FIX:
			opts->exit_non_zero_on_fix = true;
			break;
		case OPT_SELECT:
			list_push(&opts->select, optarg);
			opts->has_select = true;
			break;
		case OPT_EXTEND_SELECT:
			list_push(&opts->extend_select, optarg);
			break;
		case OPT_IGNORE:
			list_push(&opts->ignore, optarg);
			break;
		case OPT_SHOW_UNUSED_SUPPRESSIONS:
			opts->show_unused_suppressions = true;
			break;
		case OPT_CONFIG:
			opts->config = optarg;
			break;
		case OPT_ISOLATED:
			opts->isolated = true;
			break;
		case OPT_TARGET_TORCH:
			opts->target_torch = optarg;
			break;
		case 'j':
			if ((error = mpsfix_pool_parse_jobs(&opts->jobs, optarg, "'--jobs'")) < 0)
				goto done;
			break;
		case OPT_SQUASH:
			opts->squash = true;
			break;
		case 's':
			opts->signoff = true;
			break;
		case OPT_BRANCH:
			opts->branch = optarg;
			break;
		case OPT_ALLOW_DIRTY:
			opts->allow_dirty = true;
			break;
		case OPT_STDOUT:
			opts->to_stdout = true;
			break;
		case OPT_OUTPUT_DIRECTORY:
			opts->output_directory = optarg;
			break;
		case OPT_COMMIT:
			opts->review_commit = true;
			break;
		case 'h':
			opts->help = true;
			break;
		case 'V':
			opts->version = true;
			break;
		case ':':
			error = mpsfix_error_set(MPSFIX_ERROR, "option '%s' needs a value", argv[optind - 1]);
			goto done;
		default:
			error = option_error(argv[optind - 1]);
			goto done;
		}
	}
	if (opts->config && opts->isolated) {
		error = mpsfix_error_set(MPSFIX_ERROR,
					 "options '--config' and '--isolated' cannot be used together");
		goto done;
	}
	if (!opts->help && !opts->version && opts->command == MPSFIX_CMD_NONE) {
		error = mpsfix_error_set(MPSFIX_ERROR, "no command given (try 'mpsfix --help')");
		goto done;
	}
	if (opts->command == MPSFIX_CMD_EXPLAIN && opts->npaths != 1 && !opts->help) {
		error = mpsfix_error_set(MPSFIX_ERROR, "explain takes one rule code or id, "
					 "like 'mpsfix explain MPS001'");
		goto done;
	}
	if (opts->command == MPSFIX_CMD_RULES && opts->npaths && !opts->help) {
		error = mpsfix_error_set(MPSFIX_ERROR, "rules takes no operand ('%s')", opts->paths[0]);
		goto done;
	}
	if (!opts->help && !opts->version)
		error = check_git_options(opts);
done:
	return error;
}

void mpsfix_opts_release(mpsfix_opts *opts)
{
	free(opts->rule_paths.items);
	free(opts->select.items);
	free(opts->ignore.items);
	free(opts->extend_select.items);
	free(opts->exclude.items);
	free(opts->include.items);
	free(opts->paths);
	memset(opts, 0, sizeof(*opts));
}
