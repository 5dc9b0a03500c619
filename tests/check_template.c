/* check_template.c: rendering fixes (through rules built in the test). */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "testutil.h"

/* Apply a one-pattern rule with a whole-match template to `code`. */
static char *rewrite(const char *pattern, const char *tmpl, const char *code)
{
	const char *pats[] = {pattern, NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, tmpl, NULL, false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	char *out = tu_run(r, code, strlen(code), true, &res);

	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
	return out;
}

#define REWRITES(p, t, in, want)                         \
	do {                                             \
		char *got_ = rewrite((p), (t), (in));    \
		ck_assert_str_eq(got_, (want));          \
		free(got_);                              \
	} while (0)

START_TEST(test_template_keeps_bound_bytes_and_comments)
{
	REWRITES("wrap($X)", "unwrap($X)", "y = wrap(a  +  # sum\n  b)\n",
		 "y = unwrap(a  +  # sum\n  b)\n");
	/* a comment outside every bound node would be lost: no rewrite */
	REWRITES("wrap($X)", "unwrap($X)", "y = wrap(a  # sum\n)\n", "y = wrap(a  # sum\n)\n");
}
END_TEST

START_TEST(test_template_parenthesizes_by_precedence)
{
	REWRITES("f($V)", "$V and x", "y = f(a or b)\n", "y = (a or b) and x\n");
	REWRITES("f($V)", "$V and x", "y = f(a and b)\n", "y = a and b and x\n");
	REWRITES("f($V)", "$V.pin()", "y = f(a + b)\n", "y = (a + b).pin()\n");
	REWRITES("f($V)", "-$V", "y = f(a ** b)\n", "y = -a ** b\n");
	REWRITES("f($V)", "$V * 2", "y = f(a - b)\n", "y = (a - b) * 2\n");
	REWRITES("f($V)", "2 - $V", "y = f(a - b)\n", "y = 2 - (a - b)\n");
	REWRITES("f($V)", "$V if c else d", "y = f(lambda: 1)\n", "y = (lambda: 1) if c else d\n");
	REWRITES("f($V)", "c if d else $V", "y = f(a if b else e)\n", "y = c if d else a if b else e\n");
	REWRITES("f($V)", "c if $V else d", "y = f(a if b else e)\n", "y = c if (a if b else e) else d\n");
	/* the rendered whole gets parentheses when its own context needs them */
	REWRITES("f($V)", "$V or z", "y = f(a) * 3\n", "y = (a or z) * 3\n");
	REWRITES("g($A)", "$A", "y = g(a or b) * 3\n", "y = (a or b) * 3\n");
}
END_TEST

START_TEST(test_template_empty_multi_takes_its_comma)
{
	REWRITES("f($$$A, drop=1)", "f($$$A)", "f(x, y, drop=1)\n", "f(x, y)\n");
	REWRITES("f($$$A, drop=1)", "f($$$A)", "f(drop=1)\n", "f()\n");
	REWRITES("f($$$A, drop=1)", "g(1, $$$A)", "f(drop=1)\n", "g(1)\n");
	REWRITES("f($$$A, drop=1)", "g($$$A, 1)", "f(drop=1)\n", "g(1)\n");
	REWRITES("f($$$A, drop=1, $$$B)", "g($$$A, $$$B)", "f(drop=1)\n", "g()\n");
	/* adjacent bound nodes keep their own separators; others are joined */
	REWRITES("f($$$A, drop=1)", "g($$$A)", "f(a,b,  drop=1)\n", "g(a,b)\n");
	REWRITES("f($$$A, drop=1)", "g($$$A)", "f(a, drop=1, c)\n", "g(a, c)\n");
	/* arguments keep their side of a keyword the pattern names */
	REWRITES("f($$$A, x=$X, $$$B)", "g($$$A, y=$X, $$$B)", "f(1, 2, x=3, z=4)\n", "g(1, 2, y=3, z=4)\n");
}
END_TEST

START_TEST(test_template_reindents_multiline)
{
	/* each step of the template's own indentation becomes the file's: a tab here */
	REWRITES("f($X)", "g(\n    $X,\n)", "if t:\n\ty = f(a)\n", "if t:\n\ty = g(\n\t\ta,\n\t)\n");
	/* CRLF files get CRLF line breaks; this one steps by two spaces */
	REWRITES("f($X)", "g(\n    $X)", "if t:\r\n  y = f(a)\r\n", "if t:\r\n  y = g(\r\n    a)\r\n");
	/* blanks that are not whole steps are copied as written */
	REWRITES("f($X)", "g(\n    $X,\n      1)", "if t:\n\ty = f(a)\n",
		 "if t:\n\ty = g(\n\t\ta,\n\t      1)\n");
	/* the innermost block that says decides; a file without blocks gets four spaces */
	REWRITES("f($X)", "g(\n  $X)", "if t:\n   pass\nclass C:\n def m(self):\n  y = f(a)\n",
		 "if t:\n   pass\nclass C:\n def m(self):\n  y = g(\n   a)\n");
	REWRITES("f($X)", "g(\n  $X)", "y = f(a)\n", "y = g(\n    a)\n");
	REWRITES("f($X)", "g(\n  $X)", "if t: pass\ny = f(a)\n", "if t: pass\ny = g(\n    a)\n");
}
END_TEST

START_TEST(test_template_splats_and_literals)
{
	/* a starred argument stays an argument: never `g((*args))` */
	REWRITES("star($V)", "g($V)", "s = star(*args)\n", "s = g(*args)\n");
	REWRITES("star($V)", "g(1, $V)", "s = star(**kw)\n", "s = g(1, **kw)\n");
	REWRITES("star($V)", "[$V]", "s = star(*args)\n", "s = [*args]\n");
	/* where it cannot stand, the finding needs a manual fix and nothing changes */
	REWRITES("star($V)", "$V + 1", "s = star(*args)\n", "s = star(*args)\n");
	/* keyword arguments and ** only where Python takes them */
	REWRITES("f($X, $Y)", "g($Y, $X)", "f(1, k=2)\n", "f(1, k=2)\n");
	REWRITES("f($X, $Y)", "g($X, $Y)", "f(1, k=2)\n", "g(1, k=2)\n");
	REWRITES("f($X, $Y)", "g($Y, $X)", "f(1, **d)\n", "f(1, **d)\n");
	REWRITES("f($X)", "g([$X])", "f(**d)\n", "f(**d)\n");
	REWRITES("f($$$A)", "g($$$A, 1)", "f(x, k=2)\n", "f(x, k=2)\n");
	REWRITES("f($$$A)", "g(1, $$$A)", "f(x, k=2)\n", "g(1, x, k=2)\n");
	/* an integer before an attribute dot */
	REWRITES("lam($V)", "$V.real", "y = lam(1)\n", "y = (1).real\n");
	REWRITES("lam($V)", "$V.real", "y = lam(x)\n", "y = x.real\n");
}
END_TEST

START_TEST(test_template_lambda_in_clauses)
{
	REWRITES("devs()", "lambda: 0", "x = [i for i in devs()]\n", "x = [i for i in (lambda: 0)]\n");
	REWRITES("devs()", "lambda: 0", "x = [i for i in y if devs()]\n", "x = [i for i in y if (lambda: 0)]\n");
	REWRITES("devs()", "lambda: 0", "x = f\"{devs()}\"\n", "x = f\"{(lambda: 0)}\"\n");
	REWRITES("devs()", "a if b else c", "x = [i for i in devs()]\n", "x = [i for i in (a if b else c)]\n");
}
END_TEST

#define SETUP2 "a = $X\nsetup2(a)"
#define GUARD "if not ok():\n    $X.pinned()"

START_TEST(test_template_statements_own_their_line)
{
	REWRITES("setup($X)", SETUP2, "if c:\n    setup(1)\n", "if c:\n    a = 1\n    setup2(a)\n");
	/* a block on its statement's line moves to lines of its own, one step deeper */
	REWRITES("setup($X)", SETUP2, "if c: setup(1)\n", "if c:\n    a = 1\n    setup2(a)\n");
	REWRITES("setup($X)", SETUP2, "def f():\n\tif c: setup(1)  # one\n\telse: pass\n",
		 "def f():\n\tif c:\n\t\ta = 1\n\t\tsetup2(a)  # one\n\telse: pass\n");
	/* other statements on its line, before or after it: no rewrite */
	REWRITES("setup($X)", SETUP2, "z = 0; setup(3)\n", "z = 0; setup(3)\n");
	REWRITES("setup($X)", SETUP2, "setup(3); z = 0\n", "setup(3); z = 0\n");
	REWRITES("setup($X)", SETUP2, "if c: z = 0; setup(3)\n", "if c: z = 0; setup(3)\n");
	REWRITES("setup($X)", SETUP2, "if c: setup(3); z = 0\n", "if c: setup(3); z = 0\n");
	/* a trailing `;` alone stays with the statement */
	REWRITES("setup($X)", SETUP2, "setup(3);\n", "a = 3\nsetup2(a);\n");
	/* part of a statement: no rewrite */
	REWRITES("setup($X)", SETUP2, "y = setup(3)\n", "y = setup(3)\n");
	REWRITES("setup($X)", SETUP2, "(setup(3))\n", "(setup(3))\n");
	REWRITES("setup($X)", SETUP2, "setup(3) + 1\n", "setup(3) + 1\n");
	/* a compound statement: its body one step deeper than the statement, in the
	 * file's step, with the comment of the line kept at its end */
	REWRITES("$X.pin()", GUARD, "for b in c:\n  b.pin()  # pin it\n",
		 "for b in c:\n  if not ok():\n    b.pinned()  # pin it\n");
	REWRITES("$X.pin()", GUARD, "for b in c:\r\n\tb.pin()\r\n",
		 "for b in c:\r\n\tif not ok():\r\n\t\tb.pinned()\r\n");
}
END_TEST

START_TEST(test_template_strings_not_reindented)
{
	REWRITES("old($X)", "new(\n    $X,\n    doc=\"\"\"a\nb\"\"\")", "if t:\n    y = old(1)\n",
		 "if t:\n    y = new(\n        1,\n        doc=\"\"\"a\nb\"\"\")\n");
}
END_TEST

START_TEST(test_template_unbound_metavariable)
{
	const char *pats[] = {"f($X)", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, "g($Y)", NULL, false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	char *out = tu_run(r, "f(1)\n", 5, true, &res);

	ck_assert_str_eq(out, "f(1)\n");
	ck_assert_uint_eq(res.len, 1);
	ck_assert_int_eq(res.items[0].fix, MPSFIX_FIX_MANUAL);
	ck_assert_ptr_nonnull(strstr(res.items[0].reason, "$Y"));
	free(out);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

Suite *mpsfix_suite_template(void)
{
	Suite *s = suite_create("template");
	TCase *tc = tcase_create("render");

	tcase_add_test(tc, test_template_keeps_bound_bytes_and_comments);
	tcase_add_test(tc, test_template_parenthesizes_by_precedence);
	tcase_add_test(tc, test_template_empty_multi_takes_its_comma);
	tcase_add_test(tc, test_template_reindents_multiline);
	tcase_add_test(tc, test_template_unbound_metavariable);
	tcase_add_test(tc, test_template_splats_and_literals);
	tcase_add_test(tc, test_template_strings_not_reindented);
	tcase_add_test(tc, test_template_lambda_in_clauses);
	tcase_add_test(tc, test_template_statements_own_their_line);
	suite_add_tcase(s, tc);
	return s;
}
