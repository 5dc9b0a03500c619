/* check_version.c: the --version text. */
#include <stdio.h>
#include <string.h>

#include "git.h"
#include "parse.h"
#include "tests.h"
#include "version.h"

/* the line of `text` that starts with `prefix`, in a buffer of its own ("" if none) */
static char *line_of(const char *text, const char *prefix)
{
	static char line[256];
	const char *p = text;

	line[0] = '\0';
	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (!strncmp(p, prefix, strlen(prefix)) && n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			break;
		}
		p = end ? end + 1 : NULL;
	}
	return line;
}

START_TEST(test_version_first_line_and_components)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char want[256];

	mpsfix_version_text(&b, NULL);
	snprintf(want, sizeof(want), "mpsfix %s (tree-sitter-python %s, libgit2 %s)\n",
		 mpsfix_version(), mpsfix_grammar_version(), mpsfix_git_version());
	ck_assert_int_eq(strncmp(b.data, want, strlen(want)), 0);
	/* the grammar version is the pin's, with the grammar's ABI */
	snprintf(want, sizeof(want), "grammar:     tree-sitter-python %s, language ABI %u",
		 mpsfix_grammar_version(), (unsigned)ts_language_abi_version(mpsfix_language()));
	ck_assert_str_eq(line_of(b.data, "grammar:"), want);
	snprintf(want, sizeof(want), "tree-sitter: %s, runtime for language ABI %u to %u",
		 mpsfix_tree_sitter_version(), (unsigned)TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
		 (unsigned)TREE_SITTER_LANGUAGE_VERSION);
	ck_assert_str_eq(line_of(b.data, "tree-sitter:"), want);
	ck_assert_ptr_nonnull(strstr(line_of(b.data, "libyaml:"), "0."));
	ck_assert_int_gt(strlen(line_of(b.data, "jansson:")), strlen("jansson:     "));
	ck_assert_str_eq(line_of(b.data, "rules:"), "");
	mpsfix_buf_release(&b);
}
END_TEST

START_TEST(test_version_rules_folder)
{
	mpsfix_buf dir = MPSFIX_BUF_INIT, t = MPSFIX_BUF_INIT;
	char want[512];

	mpsfix_buf_printf(&dir, "%s/rules", mpsfix_test_top());
	snprintf(want, sizeof(want), "rules:       %s", dir.data);
	mpsfix_version_text(&t, dir.data);
	ck_assert_str_eq(line_of(t.data, "rules:"), want);
	mpsfix_buf_clear(&t);
	mpsfix_version_text(&t, "/nonexistent/mpsfix/rules");
	ck_assert_str_eq(line_of(t.data, "rules:"), "rules:       /nonexistent/mpsfix/rules (not found)");
	mpsfix_buf_release(&t);
	mpsfix_buf_release(&dir);
}
END_TEST

Suite *mpsfix_suite_version(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("version");

	tcase_add_test(tc, test_version_first_line_and_components);
	tcase_add_test(tc, test_version_rules_folder);
	suite_add_tcase(s, tc);
	return s;
}
