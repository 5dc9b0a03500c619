/*
 * cli.c: the command line.  One table, long_options[], says for each
 * option its name, argument, what it sets in mpsfix_opts and its help:
 * getopt_long's tables and the options of --help are made from it.  Every
 * option is documented in man/mpsfix.1 with the same argument name
 * (tests/t0500-man.sh checks that the three agree).
 */
#include "cli.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "style.h"

/* What an option does to mpsfix_opts (at `field`). */
enum option_kind {
	SET_TRUE,     /* bool = true */
	SET_INT,      /* int = value (--unsafe-fixes 1, --no-unsafe-fixes 0) */
	SET_STRING,   /* const char * = the argument */
	PUSH,         /* mpsfix_strvec: the argument appended (repeatable) */
	CHOOSE_FORMAT,/* const char * = one of format_names */
	CHOOSE_COLOR, /* mpsfix_color = the index in color_names */
	PARSE_JOBS,   /* size_t = the number of jobs */
	PARSE_LINE_LENGTH /* uint32_t = a line length */
};

/*
 * The options: getopt_long's table, the short options and --help all come
 * from this one.  In --help order; `section` starts a group there, `arg`
 * names the argument (NULL: none), `help` may have more lines ("\n").  One
 * entry per line starting with {"name": tests/t0500-man.sh reads the names from
 * here and checks them against --help and man/mpsfix.1.
 */
#define F(name) offsetof(mpsfix_opts, name)
static const struct cli_option {
	const char *name;
	char short_name;
	const char *arg;
	enum option_kind kind;
	size_t field;
	int value;
	const char *section;
	const char *help;
} long_options[] = {
	{"rules", 0, "PATH", PUSH, F(rule_paths), 0, "Rules and fixes",
	 "add a rule folder or rule file (repeatable)"},
	{"no-default-rules", 0, NULL, SET_TRUE, F(no_default_rules), 0, NULL, "do not load the shipped rules"},
	{"unsafe-fixes", 0, NULL, SET_INT, F(unsafe_fixes), 1, NULL, "also apply fixes marked unsafe"},
	{"no-unsafe-fixes", 0, NULL, SET_INT, F(unsafe_fixes), 0, NULL,
	 "apply only safe fixes (overrides the config)"},
	{"line-length", 0, "N", PARSE_LINE_LENGTH, F(line_length), 0, NULL,
	 "the longest line a fix writes (default: the\nproject's ruff, black or flake8 setting,\nelse 88)"},
	{"exclude", 0, "GLOB", PUSH, F(exclude), 0, "Files", "skip matching files and folders (repeatable)"},
	{"include", 0, "GLOB", PUSH, F(include), 0, NULL, "read only matching files (repeatable)"},
	{"no-ignore", 0, NULL, SET_TRUE, F(no_ignore), 0, NULL, "also read files git ignores"},
	{"stdin-filename", 0, "NAME", SET_STRING, F(stdin_filename), 0, NULL,
	 "the name to report standard input ('-') as"},
	{"since", 0, "REF", SET_STRING, F(since), 0, NULL, "only lines changed since git revision REF"},
	{"staged", 0, NULL, SET_TRUE, F(staged), 0, NULL, "read the staged content of staged files"},
	{"format", 0, "FORMAT", CHOOSE_FORMAT, F(format), 0, "Output",
	 "the report format: full, concise, json,\njsonl, sarif, github or diff"},
	{"output", 'o', "FILE", SET_STRING, F(output), 0, NULL,
	 "write the report to FILE (for patch, -o\nis --output-directory)"},
	{"color", 0, "WHEN", CHOOSE_COLOR, F(color), 0, NULL, "color the output: auto, always or never"},
	{"statistics", 0, NULL, SET_TRUE, F(statistics), 0, NULL, "print a count of findings per rule"},
	{"quiet", 'q', NULL, SET_TRUE, F(quiet), 0, NULL, "no summary line"},
	{"verbose", 'v', NULL, SET_TRUE, F(verbose), 0, NULL,
	 "also say what could not be checked (the\nnames of a star import, a match given up)"},
	{"exit-zero", 0, NULL, SET_TRUE, F(exit_zero), 0, NULL, "exit 0 even if findings remain"},
	{"exit-non-zero-on-fix", 0, NULL, SET_TRUE, F(exit_non_zero_on_fix), 0, NULL,
	 "exit 1 if anything was fixed"},
	{"select", 0, "LIST", PUSH, F(select), 0, "Selection",
	 "run only these codes, prefixes or rule ids\n(comma-separated, repeatable)"},
	{"extend-select", 0, "LIST", PUSH, F(extend_select), 0, NULL, "run these rules too (repeatable)"},
	{"ignore", 0, "LIST", PUSH, F(ignore), 0, NULL, "do not run these rules (repeatable)"},
	{"show-unused-suppressions", 0, NULL, SET_TRUE, F(show_unused_suppressions), 0, NULL,
	 "report noqa comments that suppress nothing"},
	{"no-prefilter", 0, NULL, SET_TRUE, F(no_prefilter), 0, NULL,
	 "parse every file, also those no rule's words are in"},
	{"config", 0, "FILE", SET_STRING, F(config), 0, "Configuration",
	 "read this configuration, not .mpsfix.yml"},
	{"isolated", 0, NULL, SET_TRUE, F(isolated), 0, NULL, "read no configuration file"},
	{"target-torch", 0, "SPEC", SET_STRING, F(target_torch), 0, NULL,
	 "the torch versions to target (>=2.1,<2.6)"},
	{"jobs", 'j', "N", PARSE_JOBS, F(jobs), 0, "Speed (check, diff, fix)",
	 "work on N files at once (default: one per\nonline processor); the output is the same\nfor every N"},
	{"squash", 0, NULL, SET_TRUE, F(squash), 0, "Commits and patches (commit, patch, review --commit)",
	 "one commit for all the rules"},
	{"signoff", 's', NULL, SET_TRUE, F(signoff), 0, NULL, "add a Signed-off-by trailer"},
	{"branch", 0, "NAME", SET_STRING, F(branch), 0, NULL,
	 "commit on a new branch NAME from HEAD;\nleave HEAD, index and work tree alone"},
	{"allow-dirty", 0, NULL, SET_TRUE, F(allow_dirty), 0, NULL,
	 "commit even if the files have uncommitted\nchanges (they stay uncommitted)"},
	{"stdout", 0, NULL, SET_TRUE, F(to_stdout), 0, NULL, "patch: write one mbox to standard output"},
	{"output-directory", 0, "DIR", SET_STRING, F(output_directory), 0, NULL,
	 "patch: write the patch files into DIR\n(-o as in git format-patch)"},
	{"commit", 0, NULL, SET_TRUE, F(review_commit), 0, NULL, "review: commit the accepted fixes per rule"},
	{"help", 'h', NULL, SET_TRUE, F(help), 0, "Other", "show this help"},
	{"version", 'V', NULL, SET_TRUE, F(version), 0, NULL, "show the version"},
};
#undef F

#define NOPTIONS MPSFIX_ARRAY_SIZE(long_options)

/*
 * Short options that mean another entry of long_options[] for one command:
 * patch takes -o DIR as git format-patch does (--output-directory), every
 * other command -o FILE as --output.  --help shows the letter on both.
 */
static const struct {
	char short_name;
	mpsfix_command command;
	const char *name;  /* the entry it means for `command` */
} short_overrides[] = {
	{'o', MPSFIX_CMD_PATCH, "output-directory"},
};

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

/* The short option of entry `o`: its own, or the one that means it for some command. */
static char short_of(const struct cli_option *o)
{
	for (size_t i = 0; !o->short_name && i < MPSFIX_ARRAY_SIZE(short_overrides); i++)
		if (!strcmp(short_overrides[i].name, o->name))
			return short_overrides[i].short_name;
	return o->short_name;
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
	      "In a git work tree, tracked and untracked-but-not-ignored *.py, *.pyi and\n"
	      "*.ipynb files are read; elsewhere folders are walked (hidden folders, __pycache__,\n"
	      "node_modules, .venv, venv and site-packages skipped).  A PATH that git\n"
	      "ignores is read all the same.  The default PATH is the current folder;\n"
	      "'-' reads standard input.\n",
	      f);
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct cli_option *o = &long_options[i];
		char tag[64], letter = short_of(o);
		const char *h = o->help;

		if (o->section)
			fprintf(f, "\n%s:\n", o->section);
		if (letter)
			snprintf(tag, sizeof(tag), "-%c, --%s%s%s", letter, o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(tag, sizeof(tag), "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		/* the description at column 30, its further lines under it */
		fprintf(f, "  %-26s  %.*s\n", tag, (int)strcspn(h, "\n"), h);
		while ((h = strchr(h, '\n')) != NULL) {
			h++;
			fprintf(f, "%30s%.*s\n", "", (int)strcspn(h, "\n"), h);
		}
	}
	fputs("\n"
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

/* Does short option `c` mean another entry for some command (short_overrides[])? */
static bool overridden(int c)
{
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(short_overrides); i++)
		if (short_overrides[i].short_name == c)
			return true;
	return false;
}

/*
 * The entry of getopt_long's answer `c` for `command`: a long option's 256 +
 * its index, or a short option's letter (the entry short_overrides[] names
 * for `command`, else the one with that letter).
 */
static const struct cli_option *find_option(int c, mpsfix_command command)
{
	const char *name = NULL;

	if (c >= 256 && (size_t)(c - 256) < NOPTIONS)
		return &long_options[c - 256];
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(short_overrides); i++)
		if (short_overrides[i].short_name == c && short_overrides[i].command == command)
			name = short_overrides[i].name;
	for (size_t i = 0; c > 0 && c < 256 && i < NOPTIONS; i++)
		if (name ? !strcmp(long_options[i].name, name) : long_options[i].short_name == c)
			return &long_options[i];
	return NULL;
}

/* Do what option `o` does, with its argument `arg` (NULL when it takes none). */
static int apply_option(mpsfix_opts *opts, const struct cli_option *o, char *arg)
{
	char *field = (char *)opts + o->field;
	int choice, error;

	switch (o->kind) {
	case SET_TRUE:
		*(bool *)field = true;
		break;
	case SET_INT:
		*(int *)field = o->value;
		break;
	case SET_STRING:
		*(const char **)field = arg;
		break;
	case PUSH:
		mpsfix_strvec_push((mpsfix_strvec *)field, arg);
		break;
	case CHOOSE_FORMAT:
		if ((error = choose(&choice, o->name, arg, format_names)) < 0)
			return error;
		*(const char **)field = format_names[choice];
		break;
	case CHOOSE_COLOR:
		if ((error = choose(&choice, o->name, arg, color_names)) < 0)
			return error;
		*(mpsfix_color *)field = (mpsfix_color)choice;
		break;
	case PARSE_JOBS:
		return mpsfix_pool_parse_jobs((size_t *)field, arg, "'--jobs'");
	case PARSE_LINE_LENGTH:
		return mpsfix_style_parse_line_length((uint32_t *)field, arg, "'--line-length'");
	}
	return 0;
}

/* A short option whose entry depends on the command, given before the command. */
typedef struct {
	int c;
	char *arg;
} pending_option;

/* Apply the `*n` options of `pending` now that the command is known (or will never be). */
static int apply_pending(mpsfix_opts *opts, pending_option *pending, size_t *n)
{
	int error = 0;

	for (size_t i = 0; i < *n && error == 0; i++)
		error = apply_option(opts, find_option(pending[i].c, opts->command), pending[i].arg);
	*n = 0;
	return error;
}

/* The message for an option getopt_long refused (`arg` as written). */
static int option_error(const char *arg)
{
	size_t n, matches = 0;
	const struct cli_option *last = NULL;

	if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
		if (optopt && optopt < 256)
			return mpsfix_error_set(MPSFIX_ERROR, "unknown option '-%c' (try 'mpsfix --help')",
						optopt);
		return mpsfix_error_set(MPSFIX_ERROR, "unknown option '%s' (try 'mpsfix --help')", arg);
	}
	n = strcspn(arg + 2, "=");
	for (const struct cli_option *o = long_options; o < long_options + NOPTIONS; o++) {
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
	if (matches == 1 && !last->arg && arg[2 + n] == '=')
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
	/* getopt_long's tables, from long_options[] */
	struct option getopt_table[NOPTIONS + 1];
	char shorts[3 + 2 * NOPTIONS], *p = shorts;
	const struct cli_option *o;
	pending_option *pending = mpsfix_xcalloc((size_t)argc + 1, sizeof(*pending));
	size_t npending = 0;
	int c, error = 0;

	*p++ = '+'; /* stop at the first operand: the command, then its paths */
	*p++ = ':'; /* a missing value is ':', not '?' */
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct cli_option *lo = &long_options[i];

		/* a long option answers 256 + its index, a short one its letter */
		getopt_table[i] = (struct option){lo->name, lo->arg ? required_argument : no_argument, NULL,
						  256 + (int)i};
		if (lo->short_name) {
			*p++ = lo->short_name;
			if (lo->arg)
				*p++ = ':';
		}
	}
	getopt_table[NOPTIONS] = (struct option){NULL, 0, NULL, 0};
	*p = '\0';

	memset(opts, 0, sizeof(*opts));
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
	while ((c = getopt_long(argc, argv, shorts, getopt_table, NULL)) != -1 ||
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
				if ((error = apply_pending(opts, pending, &npending)) < 0)
					goto done;
			} else if ((error = add_path(opts, arg)) < 0) {
				goto done;
			}
			continue;
		}
		if (c == ':') {
			error = mpsfix_error_set(MPSFIX_ERROR, "option '%s' needs a value", argv[optind - 1]);
			goto done;
		}
		if (opts->command == MPSFIX_CMD_NONE && overridden(c)) {
			/* its meaning waits for the command */
			pending[npending++] = (pending_option){c, optarg};
			continue;
		}
		if ((o = find_option(c, opts->command)) == NULL) {
			error = option_error(argv[optind - 1]);
			goto done;
		}
		if ((error = apply_option(opts, o, optarg)) < 0)
			goto done;
	}
	if ((error = apply_pending(opts, pending, &npending)) < 0)
		goto done;
	opts->has_select = opts->select.len > 0;
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
	free(pending);
	return error;
}

void mpsfix_opts_release(mpsfix_opts *opts)
{
	mpsfix_strvec_release(&opts->rule_paths);
	mpsfix_strvec_release(&opts->select);
	mpsfix_strvec_release(&opts->ignore);
	mpsfix_strvec_release(&opts->extend_select);
	mpsfix_strvec_release(&opts->exclude);
	mpsfix_strvec_release(&opts->include);
	free(opts->paths);
	memset(opts, 0, sizeof(*opts));
}
