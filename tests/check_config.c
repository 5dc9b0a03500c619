/* check_config.c: the .mpsfix.yml loader, finding it upward, rule selection, globs. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tests.h"
#include "testutil.h"

static int load(mpsfix_config *cfg, const char *yaml)
{
	return mpsfix_config_load_buffer(cfg, "/proj/.mpsfix.yml", yaml, strlen(yaml));
}

/* The error a document gives (its message, static). */
static const char *load_error(const char *yaml)
{
	mpsfix_config cfg = MPSFIX_CONFIG_INIT;
	int error = load(&cfg, yaml);

	mpsfix_config_release(&cfg);
	return error < 0 ? mpsfix_error_last()->message : "(no error)";
}

START_TEST(test_config_every_key)
{
	mpsfix_config cfg = MPSFIX_CONFIG_INIT;
	const char *yaml =
		"select: [MPS0, MPS101]\n"
		"extend-select: [MPS202]\n"
		"ignore: [MPS104, std-mean]\n"
		"exclude: [\"tests/data/**\", \"*_pb2.py\"]\n"
		"per-file-ignores:\n"
		"  \"tests/**\": [MPS101, MPS2]\n"
		"  \"gen_*.py\": MPS0\n"
		"target-torch: \">=2.1,<2.6\"\n"
		"rules: [tools/mpsfix-rules, /abs/rules.yml]\n"
		"unsafe-fixes: true\n";

	ck_assert_int_eq(load(&cfg, yaml), 0);
	ck_assert_str_eq(cfg.path, "/proj/.mpsfix.yml");
	ck_assert_str_eq(cfg.dir, "/proj");
	ck_assert(cfg.has_select);
	ck_assert_uint_eq(cfg.select.len, 2);
	ck_assert_str_eq(cfg.select.items[0], "MPS0");
	ck_assert_str_eq(cfg.select.items[1], "MPS101");
	ck_assert_uint_eq(cfg.extend_select.len, 1);
	ck_assert_str_eq(cfg.extend_select.items[0], "MPS202");
	ck_assert_uint_eq(cfg.ignore.len, 2);
	ck_assert_str_eq(cfg.ignore.items[1], "std-mean");
	ck_assert_uint_eq(cfg.exclude.len, 2);
	ck_assert_str_eq(cfg.exclude.items[0], "tests/data/**");
	ck_assert_uint_eq(cfg.nper_file_ignores, 2);
	ck_assert_str_eq(cfg.per_file_ignores[0].glob, "tests/**");
	ck_assert_uint_eq(cfg.per_file_ignores[0].codes.len, 2);
	ck_assert_str_eq(cfg.per_file_ignores[0].codes.items[1], "MPS2");
	ck_assert_str_eq(cfg.per_file_ignores[1].glob, "gen_*.py");
	ck_assert_uint_eq(cfg.per_file_ignores[1].codes.len, 1);
	ck_assert_str_eq(cfg.per_file_ignores[1].codes.items[0], "MPS0");
	ck_assert_str_eq(cfg.target_torch, ">=2.1,<2.6");
	ck_assert_uint_eq(cfg.rules.len, 2);
	ck_assert_str_eq(cfg.rules.items[0], "/proj/tools/mpsfix-rules");
	ck_assert_str_eq(cfg.rules.items[1], "/abs/rules.yml");
	ck_assert_int_eq(cfg.unsafe_fixes, 1);
	mpsfix_config_release(&cfg);
	ck_assert_ptr_null(cfg.path);
	mpsfix_config_release(&cfg); /* twice is harmless */
}
END_TEST

START_TEST(test_config_defaults_and_empty)
{
	mpsfix_config cfg = MPSFIX_CONFIG_INIT;

	ck_assert_int_eq(load(&cfg, ""), 0);
	ck_assert(!cfg.has_select);
	ck_assert_uint_eq(cfg.select.len, 0);
	ck_assert_ptr_null(cfg.target_torch);
	ck_assert_int_eq(cfg.unsafe_fixes, -1);
	mpsfix_config_release(&cfg);

	/* an empty select is still a select; a key without a value is an empty list */
	ck_assert_int_eq(load(&cfg, "select: []\nignore:\nunsafe-fixes: false\n"), 0);
	ck_assert(cfg.has_select);
	ck_assert_uint_eq(cfg.select.len, 0);
	ck_assert_uint_eq(cfg.ignore.len, 0);
	ck_assert_int_eq(cfg.unsafe_fixes, 0);
	mpsfix_config_release(&cfg);
}
END_TEST

START_TEST(test_config_lists_as_strings)
{
	mpsfix_config cfg = MPSFIX_CONFIG_INIT;

	ck_assert_int_eq(load(&cfg, "select: MPS1\nignore: std-mean\nexclude: build\nrules: r\n"), 0);
	ck_assert_uint_eq(cfg.select.len, 1);
	ck_assert_str_eq(cfg.select.items[0], "MPS1");
	ck_assert_uint_eq(cfg.ignore.len, 1);
	ck_assert_str_eq(cfg.ignore.items[0], "std-mean");
	ck_assert_str_eq(cfg.exclude.items[0], "build");
	ck_assert_str_eq(cfg.rules.items[0], "/proj/r");
	mpsfix_config_release(&cfg);
}
END_TEST

START_TEST(test_config_relative_path_folder)
{
	mpsfix_config cfg = MPSFIX_CONFIG_INIT;
	char *cwd = getcwd(NULL, 0), *real = realpath(".", NULL);
	char *want;

	ck_assert_int_eq(mpsfix_config_load_buffer(&cfg, ".mpsfix.yml", "rules: [a/b]\n", 13), 0);
	ck_assert_str_eq(cfg.dir, real);
	want = mpsfix_xasprintf("%s/a/b", real);
	ck_assert_str_eq(cfg.rules.items[0], want);
	free(want);
	mpsfix_config_release(&cfg);
	free(cwd);
	free(real);
}
END_TEST

START_TEST(test_config_unknown_key)
{
	const char *msg = load_error("select: [MPS0]\nextend_select: [MPS1]\n");

	ck_assert_ptr_nonnull(strstr(msg, "/proj/.mpsfix.yml:2:1: unknown key 'extend_select'"));
	ck_assert_ptr_nonnull(strstr(msg, "did you mean 'extend-select'?"));
	ck_assert_ptr_nonnull(strstr(msg, "valid keys: select, extend-select, ignore, exclude, "
				     "per-file-ignores, target-torch, rules, unsafe-fixes"));
	msg = load_error("  zzz: 1\n");
	ck_assert_ptr_nonnull(strstr(msg, "/proj/.mpsfix.yml:1:3: unknown key 'zzz'; valid keys:"));
}
END_TEST

START_TEST(test_config_wrong_types)
{
	ck_assert_str_eq(load_error("select: {a: 1}\n"),
			 "/proj/.mpsfix.yml:1:9: 'select' must be a string or a list of strings");
	ck_assert_str_eq(load_error("ignore:\n  - MPS1\n  - [x]\n"),
			 "/proj/.mpsfix.yml:3:5: 'ignore' must be a string or a list of strings");
	ck_assert_str_eq(load_error("exclude: [\"\"]\n"),
			 "/proj/.mpsfix.yml:1:11: empty string in 'exclude'");
	ck_assert_str_eq(load_error("target-torch: [2.1]\n"),
			 "/proj/.mpsfix.yml:1:15: 'target-torch' must be a string, like \">=2.1,<2.6\"");
	ck_assert_str_eq(load_error("select: [MPS1]\ntarget-torch: 2.x\n"),
			 "/proj/.mpsfix.yml:2:15: bad target-torch '2.x': '2.x' is not a version");
	ck_assert_str_eq(load_error("target-torch: \"!=2.2\"\n"),
			 "/proj/.mpsfix.yml:1:15: bad target-torch '!=2.2': '!=' cannot narrow a target "
			 "to a range of versions; give the versions to target, like '>=2.1,<2.6'");
	ck_assert_str_eq(load_error("target-torch: 2.1\n"), "(no error)");
	ck_assert_str_eq(load_error("unsafe-fixes: yes please\n"),
			 "/proj/.mpsfix.yml:1:15: 'unsafe-fixes' must be true or false");
	ck_assert_str_eq(load_error("per-file-ignores: [a]\n"),
			 "/proj/.mpsfix.yml:1:19: 'per-file-ignores' must be a mapping from globs "
			 "to lists of codes");
	ck_assert_str_eq(load_error("per-file-ignores:\n  a: {b: c}\n"),
			 "/proj/.mpsfix.yml:2:6: 'per-file-ignores' must be a string or a list "
			 "of strings");
	ck_assert_str_eq(load_error("- select\n"),
			 "/proj/.mpsfix.yml:1:1: a configuration must be a mapping of keys "
			 "(select, ignore, exclude, ...)");
	/* YAML errors come from the YAML layer, with a position */
	ck_assert_ptr_nonnull(strstr(load_error("select: [\n"), "/proj/.mpsfix.yml:"));
}
END_TEST

/* --- finding the file --------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_config_find_upward)
{
	char tmpl[] = "/tmp/mpsfix-config-XXXXXX";
	char *top = mkdtemp(tmpl), *real, *found = NULL, *want;
	mpsfix_buf p = MPSFIX_BUF_INIT;
	mpsfix_config cfg = MPSFIX_CONFIG_INIT;

	ck_assert_ptr_nonnull(top);
	real = realpath(top, NULL);
	mpsfix_buf_printf(&p, "%s/a", top);
	ck_assert_int_eq(mkdir(p.data, 0700), 0);
	mpsfix_buf_adds(&p, "/b");
	ck_assert_int_eq(mkdir(p.data, 0700), 0);
	mpsfix_buf_adds(&p, "/.mpsfix.yml");
	ck_assert_int_eq(mkdir(p.data, 0700), 0); /* a folder of that name is no file */

	/* none yet (unless /tmp or / has one: then it is above top) */
	mpsfix_buf_clear(&p);
	mpsfix_buf_printf(&p, "%s/a/b", top);
	ck_assert_int_eq(mpsfix_config_find(&found, p.data), 0);
	ck_assert(found == NULL || strncmp(found, real, strlen(real)) != 0);
	free(found);

	want = mpsfix_xasprintf("%s/.mpsfix.yml", real);
	write_file(want, "select: [MPS1]\nrules: [r]\n");
	ck_assert_int_eq(mpsfix_config_find(&found, p.data), 0);
	ck_assert_str_eq(found, want);
	ck_assert_int_eq(mpsfix_config_load(&cfg, found), 0);
	ck_assert_str_eq(cfg.dir, real);
	ck_assert_str_eq(cfg.select.items[0], "MPS1");
	mpsfix_config_release(&cfg);
	free(found);

	/* the start folder itself, and a relative start */
	mpsfix_buf_clear(&p);
	mpsfix_buf_printf(&p, "%s/a/b/../..", top);
	ck_assert_int_eq(mpsfix_config_find(&found, p.data), 0);
	ck_assert_str_eq(found, want);
	free(found);

	/* a start that does not exist is an error */
	ck_assert_int_lt(mpsfix_config_find(&found, "/nonexistent/mpsfix/x"), 0);
	ck_assert_ptr_null(found);

	unlink(want);
	free(want);
	mpsfix_buf_clear(&p);
	mpsfix_buf_printf(&p, "%s/a/b/.mpsfix.yml", top);
	rmdir(p.data);
	mpsfix_buf_clear(&p);
	mpsfix_buf_printf(&p, "%s/a/b", top);
	rmdir(p.data);
	mpsfix_buf_clear(&p);
	mpsfix_buf_printf(&p, "%s/a", top);
	rmdir(p.data);
	rmdir(top);
	mpsfix_buf_release(&p);
	free(real);
}
END_TEST

START_TEST(test_config_load_missing_file)
{
	mpsfix_config cfg = MPSFIX_CONFIG_INIT;

	ck_assert_int_lt(mpsfix_config_load(&cfg, "/nonexistent/.mpsfix.yml"), 0);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "/nonexistent/.mpsfix.yml"));
	ck_assert_ptr_null(cfg.path);
	mpsfix_config_release(&cfg);
}
END_TEST

/* --- selection ----------------------------------------------------------------------- */

static const char *any_call[] = {"f()", NULL};

static mpsfix_rule *rule(const char *code, const char *id, bool enabled)
{
	mpsfix_rule *r = tu_rule(code, any_call, NULL, NULL, NULL, false);

	free(r->id);
	r->id = mpsfix_xstrdup(id);
	r->enabled = enabled;
	return r;
}

START_TEST(test_config_selectors)
{
	mpsfix_rule *r = rule("MPS101", "std-mean", true);
	mpsfix_rule *o = rule("MPS202", "pin-memory", false);
	mpsfix_rule *rules[] = {r, o};

	ck_assert(mpsfix_selector_matches("MPS101", r));
	ck_assert(mpsfix_selector_matches("MPS10", r));
	ck_assert(mpsfix_selector_matches("MPS1", r));
	ck_assert(mpsfix_selector_matches("MPS", r));
	ck_assert(mpsfix_selector_matches("ALL", r));
	ck_assert(mpsfix_selector_matches("std-mean", r));
	ck_assert(!mpsfix_selector_matches("MP", r));    /* not all the letters */
	ck_assert(!mpsfix_selector_matches("MPS1010", r));
	ck_assert(!mpsfix_selector_matches("mps101", r)); /* case matters */
	ck_assert(!mpsfix_selector_matches("std", r));
	ck_assert(!mpsfix_selector_matches("MPS2", r));
	ck_assert(!mpsfix_selector_matches("", r));

	ck_assert(mpsfix_selector_known("MPS2", rules, 2));
	ck_assert(mpsfix_selector_known("pin-memory", rules, 2));
	ck_assert(mpsfix_selector_known("ALL", rules, 2));
	ck_assert(!mpsfix_selector_known("MPS3", rules, 2));
	ck_assert(!mpsfix_selector_known("E501", rules, 2));
	ck_assert(!mpsfix_selector_known("nope", rules, 2));
	mpsfix_rule_free(r);
	mpsfix_rule_free(o);
}
END_TEST

/* Selection as a string of 0/1 for the rules below. */
static void selection(char out[4], const char *select, bool has_select, const char *extend,
		      const char *ignore)
{
	mpsfix_rule *rules[3] = {
		rule("MPS101", "std-mean", true),
		rule("MPS102", "to-mps", true),
		rule("MPS202", "pin-memory", false),
	};
	mpsfix_strvec sel = {0}, ext = {0}, ign = {0};
	bool on[3];
	char buf[64], *tok;

	strcpy(buf, select ? select : "");
	for (tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
		mpsfix_strvec_push(&sel, tok);
	strcpy(buf, extend ? extend : "");
	for (tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
		mpsfix_strvec_push(&ext, tok);
	strcpy(buf, ignore ? ignore : "");
	for (tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
		mpsfix_strvec_push(&ign, tok);
	mpsfix_select_rules(on, rules, 3, &sel, has_select, &ext, &ign);
	for (int i = 0; i < 3; i++) {
		out[i] = on[i] ? '1' : '0';
		mpsfix_rule_free(rules[i]);
	}
	out[3] = '\0';
	mpsfix_strvec_release(&sel);
	mpsfix_strvec_release(&ext);
	mpsfix_strvec_release(&ign);
}

START_TEST(test_config_select_precedence)
{
	char s[4];

	selection(s, NULL, false, NULL, NULL);
	ck_assert_str_eq(s, "110");                 /* the defaults */
	selection(s, NULL, true, NULL, NULL);
	ck_assert_str_eq(s, "000");                 /* select: [] selects nothing */
	selection(s, "MPS101", true, NULL, NULL);
	ck_assert_str_eq(s, "100");                 /* select replaces the defaults */
	selection(s, "MPS1", true, "MPS202", NULL);
	ck_assert_str_eq(s, "111");                 /* extend-select adds */
	selection(s, NULL, false, "pin-memory", NULL);
	ck_assert_str_eq(s, "111");                 /* by id, off by default */
	selection(s, "MPS2", true, NULL, NULL);
	ck_assert_str_eq(s, "001");                 /* a prefix turns on an off-by-default rule */
	selection(s, "MPS", true, NULL, NULL);
	ck_assert_str_eq(s, "111");
	selection(s, "ALL", true, NULL, NULL);
	ck_assert_str_eq(s, "110");                 /* ALL: only rules on by default */
	selection(s, "ALL", true, "MPS202", NULL);
	ck_assert_str_eq(s, "111");
	selection(s, "MPS101 MPS102", true, NULL, "MPS1");
	ck_assert_str_eq(s, "000");                 /* ignore wins over a longer select */
	selection(s, NULL, false, "MPS202", "pin-memory");
	ck_assert_str_eq(s, "110");                 /* and over extend-select */
	selection(s, NULL, false, NULL, "ALL");
	ck_assert_str_eq(s, "000");
	selection(s, "nope E501", true, NULL, NULL);
	ck_assert_str_eq(s, "000");                 /* unknown selectors name nothing */
}
END_TEST

START_TEST(test_config_select_null_lists)
{
	mpsfix_rule *r = rule("MPS101", "std-mean", true);
	bool on = false;

	mpsfix_select_rules(&on, &r, 1, NULL, false, NULL, NULL);
	ck_assert(on);
	mpsfix_rule_free(r);
}
END_TEST

/* --- globs --------------------------------------------------------------------------- */

START_TEST(test_config_globs)
{
	/* no '/': any component, any folder */
	ck_assert(mpsfix_glob_matches("*.py", "a.py"));
	ck_assert(mpsfix_glob_matches("*.py", "src/deep/a.py"));
	ck_assert(!mpsfix_glob_matches("*.py", "a.pyc"));
	ck_assert(mpsfix_glob_matches("*_pb2.py", "proto/x_pb2.py"));
	ck_assert(mpsfix_glob_matches("build", "build/lib/a.py"));
	ck_assert(mpsfix_glob_matches("build", "pkg/build/a.py"));
	ck_assert(mpsfix_glob_matches("build/", "pkg/build/a.py"));
	ck_assert(!mpsfix_glob_matches("build", "builds/a.py"));
	ck_assert(!mpsfix_glob_matches("build", "rebuild.py"));
	ck_assert(mpsfix_glob_matches(".*", ".venv/lib/a.py"));

	/* '**' */
	ck_assert(mpsfix_glob_matches("tests/**", "tests/a.py"));
	ck_assert(mpsfix_glob_matches("tests/**", "tests/x/y/a.py"));
	ck_assert(!mpsfix_glob_matches("tests/**", "src/tests/a.py")); /* anchored */
	ck_assert(mpsfix_glob_matches("**/gen_*.py", "gen_a.py"));
	ck_assert(mpsfix_glob_matches("**/gen_*.py", "a/b/gen_a.py"));
	ck_assert(!mpsfix_glob_matches("**/gen_*.py", "a/b/gen_a.pyi"));
	ck_assert(mpsfix_glob_matches("a/**/z.py", "a/z.py"));
	ck_assert(mpsfix_glob_matches("a/**/z.py", "a/b/c/z.py"));
	ck_assert(!mpsfix_glob_matches("a/**/z.py", "b/a/z.py"));
	ck_assert(mpsfix_glob_matches("**/x/**/y.py", "p/x/q/r/y.py"));
	ck_assert(!mpsfix_glob_matches("**/x/**/y.py", "p/q/r/y.py"));

	/* '*' and '?' stay in one component; anchoring with a '/' */
	ck_assert(!mpsfix_glob_matches("src/*.py", "src/a/b.py"));
	ck_assert(mpsfix_glob_matches("src/*.py", "src/b.py"));
	ck_assert(mpsfix_glob_matches("src/?.py", "src/b.py"));
	ck_assert(!mpsfix_glob_matches("src/?.py", "src/bb.py"));
	ck_assert(mpsfix_glob_matches("/src", "src/b.py"));
	ck_assert(mpsfix_glob_matches("./src/b.py", "src/b.py"));
	ck_assert(mpsfix_glob_matches("src/b.py", "./src//b.py"));

	/* character classes */
	ck_assert(mpsfix_glob_matches("test_[0-9].py", "test_7.py"));
	ck_assert(!mpsfix_glob_matches("test_[0-9].py", "test_x.py"));
	ck_assert(mpsfix_glob_matches("test_[!0-9].py", "test_x.py"));
	ck_assert(mpsfix_glob_matches("[abc]*/m.py", "b1/m.py"));
	ck_assert(!mpsfix_glob_matches("[abc]*/m.py", "d1/m.py"));

	/* degenerate */
	ck_assert(!mpsfix_glob_matches("", "a.py"));
	ck_assert(!mpsfix_glob_matches("/", "a.py"));
	ck_assert(mpsfix_glob_matches("**", "a/b.py"));
}
END_TEST

Suite *mpsfix_suite_config(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, test_config_every_key);
	tcase_add_test(tc, test_config_defaults_and_empty);
	tcase_add_test(tc, test_config_lists_as_strings);
	tcase_add_test(tc, test_config_relative_path_folder);
	tcase_add_test(tc, test_config_unknown_key);
	tcase_add_test(tc, test_config_wrong_types);
	tcase_add_test(tc, test_config_find_upward);
	tcase_add_test(tc, test_config_load_missing_file);
	tcase_add_test(tc, test_config_selectors);
	tcase_add_test(tc, test_config_select_precedence);
	tcase_add_test(tc, test_config_select_null_lists);
	tcase_add_test(tc, test_config_globs);
	suite_add_tcase(s, tc);
	return s;
}
