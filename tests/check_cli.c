/* check_cli.c: option parsing. */
#include <string.h>

#include "cli.h"
#include "tests.h"

static int parse(mpsfix_opts *o, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return mpsfix_cli_parse(o, argc, argv);
}

START_TEST(test_cli_command_options_and_paths)
{
	char *argv[] = {"mpsfix", "--rules", "r1", "fix", "a.py", "--unsafe-fixes", "-q",
			"dir", "--rules=r2", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, argv), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_FIX);
	ck_assert_uint_eq(o.rule_paths.len, 2);
	ck_assert_str_eq(o.rule_paths.items[0], "r1");
	ck_assert_str_eq(o.rule_paths.items[1], "r2");
	ck_assert_uint_eq(o.npaths, 2);
	ck_assert_str_eq(o.paths[0], "a.py");
	ck_assert_str_eq(o.paths[1], "dir");
	ck_assert(o.unsafe_fixes == 1 && o.quiet && !o.no_default_rules);
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_double_dash_ends_options)
{
	char *argv[] = {"mpsfix", "check", "--", "-weird.py", "--quiet", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, argv), 0);
	ck_assert_uint_eq(o.npaths, 2);
	ck_assert_str_eq(o.paths[0], "-weird.py");
	ck_assert_str_eq(o.paths[1], "--quiet");
	ck_assert(!o.quiet);
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_errors)
{
	char *unknown_cmd[] = {"mpsfix", "lint", NULL};
	char *unknown_opt[] = {"mpsfix", "check", "--fast", NULL};
	char *missing_value[] = {"mpsfix", "check", "--rules", NULL};
	char *no_command[] = {"mpsfix", "-q", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, unknown_cmd), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "unknown command 'lint' (try 'mpsfix --help')");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, unknown_opt), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "unknown option '--fast' (try 'mpsfix --help')");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, missing_value), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "option '--rules' needs a value");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, no_command), MPSFIX_ERROR);
	mpsfix_opts_release(&o);
	{
		char *with_value[] = {"mpsfix", "check", "--unsafe-fixes=1", NULL};

		ck_assert_int_eq(parse(&o, with_value), MPSFIX_ERROR);
		ck_assert_str_eq(mpsfix_error_last()->message, "option '--unsafe-fixes' takes no value");
		mpsfix_opts_release(&o);
	}
}
END_TEST

START_TEST(test_cli_help_and_version_need_no_command)
{
	char *help[] = {"mpsfix", "--help", NULL};
	char *version[] = {"mpsfix", "-V", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, help), 0);
	ck_assert(o.help);
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, version), 0);
	ck_assert(o.version);
	mpsfix_opts_release(&o);
	ck_assert_str_eq(mpsfix_command_name(MPSFIX_CMD_DIFF), "diff");
}
END_TEST

START_TEST(test_cli_every_option)
{
	char *argv[] = {"mpsfix", "check", "--no-default-rules", "--no-unsafe-fixes",
			"--format", "sarif", "-o", "out.sarif", "--color=never", "--statistics",
			"--exit-zero", "--exit-non-zero-on-fix", "--show-unused-suppressions",
			"--config", "cfg.yml", "--no-ignore", "--stdin-filename", "x.py",
			"--since", "HEAD~2", "--staged", "--target-torch", ">=2.1,<2.6", "-", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, argv), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_CHECK);
	ck_assert(o.no_default_rules);
	ck_assert_int_eq(o.unsafe_fixes, 0);
	ck_assert_str_eq(o.format, "sarif");
	ck_assert_str_eq(o.output, "out.sarif");
	ck_assert_int_eq(o.color, MPSFIX_COLOR_NEVER);
	ck_assert(o.statistics && o.exit_zero && o.exit_non_zero_on_fix);
	ck_assert(o.show_unused_suppressions && o.no_ignore && o.staged);
	ck_assert(!o.isolated && !o.quiet && !o.has_select);
	ck_assert_str_eq(o.config, "cfg.yml");
	ck_assert_str_eq(o.stdin_filename, "x.py");
	ck_assert_str_eq(o.since, "HEAD~2");
	ck_assert_str_eq(o.target_torch, ">=2.1,<2.6");
	ck_assert_uint_eq(o.npaths, 1);
	ck_assert_str_eq(o.paths[0], "-");
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_defaults)
{
	char *argv[] = {"mpsfix", "diff", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, argv), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_DIFF);
	ck_assert_int_eq(o.unsafe_fixes, -1);
	ck_assert_int_eq(o.color, MPSFIX_COLOR_AUTO);
	ck_assert(o.format == NULL && o.output == NULL && o.config == NULL);
	ck_assert(o.since == NULL && o.stdin_filename == NULL && o.target_torch == NULL);
	ck_assert_uint_eq(o.rule_paths.len + o.select.len + o.ignore.len + o.extend_select.len +
			  o.exclude.len + o.include.len + o.npaths, 0);
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_repeatable_lists_keep_raw_values)
{
	char *argv[] = {"mpsfix", "fix", "--select", "MPS0,MPS101", "--ignore=MPS104",
			"--extend-select", "MPS202", "--select=std-mean", "--ignore", "MPS1, MPS2",
			"--exclude", "tests/**", "--include", "*.py", "--exclude=*_pb2.py",
			"--unsafe-fixes", "-oreport.txt", "--isolated", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, argv), 0);
	ck_assert(o.has_select && o.isolated);
	ck_assert_uint_eq(o.select.len, 2);
	ck_assert_str_eq(o.select.items[0], "MPS0,MPS101");
	ck_assert_str_eq(o.select.items[1], "std-mean");
	ck_assert_uint_eq(o.ignore.len, 2);
	ck_assert_str_eq(o.ignore.items[0], "MPS104");
	ck_assert_str_eq(o.ignore.items[1], "MPS1, MPS2");
	ck_assert_uint_eq(o.extend_select.len, 1);
	ck_assert_str_eq(o.extend_select.items[0], "MPS202");
	ck_assert_uint_eq(o.exclude.len, 2);
	ck_assert_str_eq(o.exclude.items[0], "tests/**");
	ck_assert_str_eq(o.exclude.items[1], "*_pb2.py");
	ck_assert_uint_eq(o.include.len, 1);
	ck_assert_str_eq(o.include.items[0], "*.py");
	ck_assert_int_eq(o.unsafe_fixes, 1);
	ck_assert_str_eq(o.output, "report.txt");
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_last_of_a_pair_wins)
{
	char *argv[] = {"mpsfix", "check", "--unsafe-fixes", "--no-unsafe-fixes", "--format",
			"json", "--format=jsonl", "--color", "always", "--select", "", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, argv), 0);
	ck_assert_int_eq(o.unsafe_fixes, 0);
	ck_assert_str_eq(o.format, "jsonl");
	ck_assert_int_eq(o.color, MPSFIX_COLOR_ALWAYS);
	/* an empty --select still says "select": it selects nothing */
	ck_assert(o.has_select);
	ck_assert_uint_eq(o.select.len, 1);
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_every_format_value)
{
	const char *names[] = {"full", "concise", "json", "jsonl", "sarif", "github", "diff"};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(names); i++) {
		char *argv[] = {"mpsfix", "check", "--format", (char *)names[i], NULL};
		mpsfix_opts o;

		ck_assert_int_eq(parse(&o, argv), 0);
		ck_assert_str_eq(o.format, names[i]);
		mpsfix_opts_release(&o);
	}
}
END_TEST

START_TEST(test_cli_value_errors)
{
	char *bad_format[] = {"mpsfix", "check", "--format", "xml", NULL};
	char *bad_color[] = {"mpsfix", "check", "--color=sometimes", NULL};
	char *config_isolated[] = {"mpsfix", "check", "--isolated", "--config", "c.yml", NULL};
	char *stdin_twice[] = {"mpsfix", "check", "-", "a.py", "--", "-", NULL};
	char *missing_short[] = {"mpsfix", "check", "-o", NULL};
	char *ambiguous[] = {"mpsfix", "check", "--no", NULL};
	char *short_with_value[] = {"mpsfix", "check", "--quiet=yes", NULL};
	char *unknown_short[] = {"mpsfix", "check", "-Z", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, bad_format), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "invalid value 'xml' for '--format' "
			 "(valid: full, concise, json, jsonl, sarif, github, diff)");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, bad_color), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "invalid value 'sometimes' for '--color' (valid: auto, always, never)");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, config_isolated), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "options '--config' and '--isolated' cannot be used together");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, stdin_twice), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "standard input ('-') is given twice");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, missing_short), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "option '-o' needs a value");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, ambiguous), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "option '--no' is ambiguous (try 'mpsfix --help')");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, short_with_value), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "option '--quiet' takes no value");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, unknown_short), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "unknown option '-Z' (try 'mpsfix --help')");
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_allowed_combinations)
{
	/* staged lines changed since REF; a stdin name without '-'; options after paths */
	char *argv[] = {"mpsfix", "check", "a.py", "--since", "main", "--staged",
			"--stdin-filename", "s.py", "b.py", "-q", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, argv), 0);
	ck_assert(o.staged && o.quiet);
	ck_assert_str_eq(o.since, "main");
	ck_assert_str_eq(o.stdin_filename, "s.py");
	ck_assert_uint_eq(o.npaths, 2);
	ck_assert_str_eq(o.paths[1], "b.py");
	mpsfix_opts_release(&o);
}
END_TEST

/* rules takes no operand; explain exactly one, the rule (which may look like an option value) */
START_TEST(test_cli_rules_and_explain)
{
	char *rules[] = {"mpsfix", "rules", "--format", "json", "--target-torch", "2.1", NULL};
	char *rules_path[] = {"mpsfix", "rules", "src", NULL};
	char *explain[] = {"mpsfix", "explain", "MPS001", "--target-torch=>=2.4", NULL};
	char *explain_none[] = {"mpsfix", "explain", NULL};
	char *explain_two[] = {"mpsfix", "explain", "MPS001", "MPS006", NULL};
	char *explain_help[] = {"mpsfix", "explain", "--help", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, rules), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_RULES);
	ck_assert_str_eq(o.format, "json");
	ck_assert_str_eq(o.target_torch, "2.1");
	ck_assert_str_eq(mpsfix_command_name(o.command), "rules");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, rules_path), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "rules takes no operand ('src')");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, explain), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_EXPLAIN);
	ck_assert_uint_eq(o.npaths, 1);
	ck_assert_str_eq(o.paths[0], "MPS001");
	ck_assert_str_eq(o.target_torch, ">=2.4");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, explain_none), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "explain takes one rule code or id, like 'mpsfix explain MPS001'");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, explain_two), MPSFIX_ERROR);
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, explain_help), 0);
	ck_assert(o.help);
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_git_commands)
{
	char *commit[] = {"mpsfix", "commit", "--squash", "-s", "--branch", "mps", "--allow-dirty", "a.py", NULL};
	char *patch[] = {"mpsfix", "patch", "--signoff", "--output-directory=out", "src", NULL};
	char *patch_stdout[] = {"mpsfix", "patch", "--stdout", NULL};
	char *review[] = {"mpsfix", "review", "--commit", "--branch=b", "--squash", NULL};
	mpsfix_opts o;

	ck_assert_int_eq(parse(&o, commit), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_COMMIT);
	ck_assert(o.squash && o.signoff && o.allow_dirty && !o.to_stdout && !o.review_commit);
	ck_assert_str_eq(o.branch, "mps");
	ck_assert_uint_eq(o.npaths, 1);
	ck_assert_str_eq(mpsfix_command_name(o.command), "commit");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, patch), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_PATCH);
	ck_assert(o.signoff && !o.squash);
	ck_assert_str_eq(o.output_directory, "out");
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, patch_stdout), 0);
	ck_assert(o.to_stdout);
	mpsfix_opts_release(&o);
	ck_assert_int_eq(parse(&o, review), 0);
	ck_assert_int_eq(o.command, MPSFIX_CMD_REVIEW);
	ck_assert(o.review_commit && o.squash);
	ck_assert_str_eq(o.branch, "b");
	mpsfix_opts_release(&o);
}
END_TEST

START_TEST(test_cli_git_option_misuse)
{
	static const struct {
		const char *argv[6];
		const char *message;
	} cases[] = {
		{{"mpsfix", "commit", "--stdout"}, "option '--stdout' is for patch, not commit"},
		{{"mpsfix", "fix", "--output-directory", "d"}, "option '--output-directory' is for patch, not fix"},
		{{"mpsfix", "fix", "--commit"}, "option '--commit' is for review, not fix"},
		{{"mpsfix", "check", "--squash"}, "option '--squash' is for commit, patch and review --commit, not check"},
		{{"mpsfix", "review", "-s"}, "option '--signoff' is for commit, patch and review --commit, not review"},
		{{"mpsfix", "patch", "--branch", "x"}, "option '--branch' is for commit and review --commit, not patch"},
		{{"mpsfix", "review", "--allow-dirty"}, "option '--allow-dirty' is for commit and review --commit, not review"},
		{{"mpsfix", "patch", "--stdout", "--output-directory", "d"},
		 "options '--stdout' and '--output-directory' cannot be used together"},
		{{"mpsfix", "commit", "-o", "f"}, "option '--output' is for the reports of check, diff and fix, not commit"},
		{{"mpsfix", "review", "--format", "json"}, "option '--format' is for the reports of check, diff and fix, not review"},
		{{"mpsfix", "commit", "--branch="}, "option '--branch' needs a branch name"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mpsfix_opts o;
		char *argv[6] = {0};

		for (size_t k = 0; k < 6 && cases[i].argv[k]; k++)
			argv[k] = (char *)cases[i].argv[k];
		ck_assert_int_eq(parse(&o, argv), MPSFIX_ERROR);
		ck_assert_str_eq(mpsfix_error_last()->message, cases[i].message);
		mpsfix_opts_release(&o);
	}
}
END_TEST

Suite *mpsfix_suite_cli(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_cli_command_options_and_paths);
	tcase_add_test(tc, test_cli_double_dash_ends_options);
	tcase_add_test(tc, test_cli_errors);
	tcase_add_test(tc, test_cli_help_and_version_need_no_command);
	tcase_add_test(tc, test_cli_every_option);
	tcase_add_test(tc, test_cli_defaults);
	tcase_add_test(tc, test_cli_repeatable_lists_keep_raw_values);
	tcase_add_test(tc, test_cli_last_of_a_pair_wins);
	tcase_add_test(tc, test_cli_every_format_value);
	tcase_add_test(tc, test_cli_value_errors);
	tcase_add_test(tc, test_cli_allowed_combinations);
	tcase_add_test(tc, test_cli_rules_and_explain);
	tcase_add_test(tc, test_cli_git_commands);
	tcase_add_test(tc, test_cli_git_option_misuse);
	suite_add_tcase(s, tc);
	return s;
}
