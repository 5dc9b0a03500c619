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

Suite *mpsfix_suite_cli(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_cli_command_options_and_paths);
	tcase_add_test(tc, test_cli_double_dash_ends_options);
	tcase_add_test(tc, test_cli_errors);
	tcase_add_test(tc, test_cli_help_and_version_need_no_command);
	suite_add_tcase(s, tc);
	return s;
}
