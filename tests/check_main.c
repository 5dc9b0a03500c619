/* check_main.c: runs every Check suite; `CK_FORK=no` to debug under gdb/valgrind. */
#include <stdlib.h>

#include "tests.h"

const char *mpsfix_test_top(void)
{
	const char *top = getenv("MPSFIX_TOP");

	return top && *top ? top : ".";
}

int main(void)
{
	Suite *(*suites[])(void) = {
		mpsfix_suite_common,
		mpsfix_suite_source,
		mpsfix_suite_edit,
		mpsfix_suite_parse,
		mpsfix_suite_names,
		mpsfix_suite_git,
		mpsfix_suite_discover,
		mpsfix_suite_pattern,
		mpsfix_suite_match,
		mpsfix_suite_template,
		mpsfix_suite_rule,
		mpsfix_suite_engine,
		mpsfix_suite_config,
		mpsfix_suite_suppress,
		mpsfix_suite_ruletest,
		mpsfix_suite_signature,
		mpsfix_suite_fix,
		mpsfix_suite_cond,
		mpsfix_suite_report,
		mpsfix_suite_series,
		mpsfix_suite_commit,
		mpsfix_suite_review,
		mpsfix_suite_prefilter,
		mpsfix_suite_cli,
		mpsfix_suite_fixtures,
		mpsfix_suite_torchver,
		mpsfix_suite_pins,
		mpsfix_suite_target,
		mpsfix_suite_style,
		mpsfix_suite_rulelist,
		mpsfix_suite_version,
		mpsfix_suite_pool,
		mpsfix_suite_notebook,
		mpsfix_suite_json_scan,
		mpsfix_suite_bindings,
		mpsfix_suite_project,
	};
	SRunner *sr = srunner_create(NULL);
	int failed;

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
