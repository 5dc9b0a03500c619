/* tests.h: the Check suites of mpsfix, one per module (tests/check_<module>.c). */
#ifndef MPSFIX_TESTS_H
#define MPSFIX_TESTS_H

#include <check.h>

Suite *mpsfix_suite_common(void);
Suite *mpsfix_suite_source(void);
Suite *mpsfix_suite_edit(void);
Suite *mpsfix_suite_parse(void);
Suite *mpsfix_suite_git(void);
Suite *mpsfix_suite_discover(void);
Suite *mpsfix_suite_pattern(void);
Suite *mpsfix_suite_match(void);
Suite *mpsfix_suite_template(void);
Suite *mpsfix_suite_rule(void);
Suite *mpsfix_suite_engine(void);
Suite *mpsfix_suite_config(void);
Suite *mpsfix_suite_suppress(void);
Suite *mpsfix_suite_fixtures(void);
Suite *mpsfix_suite_cli(void);
Suite *mpsfix_suite_ruletest(void);
Suite *mpsfix_suite_signature(void);
Suite *mpsfix_suite_fix(void);
Suite *mpsfix_suite_report(void);
Suite *mpsfix_suite_names(void);
Suite *mpsfix_suite_torchver(void);
Suite *mpsfix_suite_pins(void);
Suite *mpsfix_suite_target(void);
Suite *mpsfix_suite_style(void);
Suite *mpsfix_suite_rulelist(void);
Suite *mpsfix_suite_cond(void);
Suite *mpsfix_suite_series(void);
Suite *mpsfix_suite_commit(void);
Suite *mpsfix_suite_review(void);
Suite *mpsfix_suite_prefilter(void);
Suite *mpsfix_suite_version(void);
Suite *mpsfix_suite_pool(void);
Suite *mpsfix_suite_notebook(void);
Suite *mpsfix_suite_json_scan(void);
Suite *mpsfix_suite_bindings(void);
Suite *mpsfix_suite_project(void);

/** The repository's top folder (MPSFIX_TOP, default "."). */
const char *mpsfix_test_top(void);

#endif
