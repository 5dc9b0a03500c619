/* check_signature.c: overloads, binding call arguments to parameters, and
 * templates that name parameters (the std_mean overloads of RULES.md). */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "signature.h"
#include "testutil.h"
#include "tests.h"

#define HEAD "id: t\ncode: MPS999\nseverity: error\nmessage: m\ntorch: all\n"

static const char std_mean_rule[] =
	HEAD
	"match: 'torch.std_mean($$$ARGS)'\n"
	"signature:\n"
	"  - 'std_mean(input: Tensor, unbiased: bool)'\n"
	"  - 'std_mean(input: Tensor, dim: int | tuple | list | None, unbiased: bool = True, keepdim: bool = False)'\n"
	"  - 'std_mean(input: Tensor, dim: int | tuple | list | None = None, *, correction: int | float | None = None, keepdim: bool = False)'\n"
	"fix:\n"
	"  safety: safe\n"
	"  template: '(torch.std($$$ARGS), torch.mean($input, dim=$dim, keepdim=$keepdim))'\n";

/* The fixed text, or "MANUAL: reason" (malloc'd). */
static char *run(const char *yaml, const char *code)
{
	return tu_fix_yaml(yaml, code);
}

static void expect(const char *yaml, const char *code, const char *want)
{
	char *got = run(yaml, code);

	ck_assert_msg(!strcmp(got, want), "for\n%s\ngot\n%s\nwant\n%s", code, got, want);
	free(got);
}

static const struct {
	const char *code, *want;
} std_mean_cases[] = {
	/* RULES.md, MPS001 in detail */
	/* (the value of an assignment: a bare tuple, broken at 88 columns as ruff formats it) */
	{"s, m = torch.std_mean(g, dim=(1, 2, 3), keepdim=True)\n",
	 "s, m = (\n    torch.std(g, dim=(1, 2, 3), keepdim=True),\n    torch.mean(g, dim=(1, 2, 3), keepdim=True),\n)\n"},
	{"s, m = torch.std_mean(g, 1)\n", "s, m = torch.std(g, 1), torch.mean(g, dim=1)\n"},
	{"torch.std_mean(x, 0, False)\n", "(torch.std(x, 0, False), torch.mean(x, dim=0))\n"},
	{"torch.std_mean(x, True)\n", "(torch.std(x, True), torch.mean(x))\n"},
	/* every overload and argument form */
	{"torch.std_mean(x)\n", "(torch.std(x), torch.mean(x))\n"},
	{"torch.std_mean(x, 1)\n", "(torch.std(x, 1), torch.mean(x, dim=1))\n"},
	{"torch.std_mean(x, (0, 1), True, True)\n",
	 "(torch.std(x, (0, 1), True, True), torch.mean(x, dim=(0, 1), keepdim=True))\n"},
	/* a list display makes a new object each time: not duplicated */
	{"torch.std_mean(x, [0, 1], True, True)\n", "MANUAL: `[0, 1]` would be evaluated twice"},
	{"torch.std_mean(x, unbiased=False)\n", "(torch.std(x, unbiased=False), torch.mean(x))\n"},
	{"torch.std_mean(x, correction=0)\n", "(torch.std(x, correction=0), torch.mean(x))\n"},
	{"torch.std_mean(x, dim=-1, correction=2)\n",
	 "(torch.std(x, dim=-1, correction=2), torch.mean(x, dim=-1))\n"},
	{"torch.std_mean(keepdim=True, input=x, dim=1)\n",
	 "(torch.std(keepdim=True, input=x, dim=1), torch.mean(x, dim=1, keepdim=True))\n"},
	{"torch.std_mean(x, None, correction=1)\n",
	 "(torch.std(x, None, correction=1), torch.mean(x, dim=None))\n"},
	{"torch.std_mean(batch.x, dims, keepdim=k)\n",
	 "(torch.std(batch.x, dims, keepdim=k), torch.mean(batch.x, dim=dims, keepdim=k))\n"},
	/* manual fixes, never guesses */
	{"torch.std_mean(x, d)\n", "MANUAL: ambiguous call: `d` could be `unbiased` or `dim` of std_mean"},
	{"torch.std_mean(f(x), 1)\n", "MANUAL: `f(x)` would be evaluated twice"},
	{"torch.std_mean(x, *dims)\n", "MANUAL: *args in the call makes its arguments unknown"},
	{"torch.std_mean(x, **kw)\n", "MANUAL: **kwargs in the call makes its arguments unknown"},
	{"torch.std_mean(x, 0, True, False, 5)\n",
	 "MANUAL: ambiguous call: no signature of std_mean declared by the rule fits these arguments"},
	{"torch.std_mean(x, foo=1)\n",
	 "MANUAL: ambiguous call: no signature of std_mean declared by the rule fits these arguments"},
	{"torch.std_mean()\n",
	 "MANUAL: ambiguous call: no signature of std_mean declared by the rule fits these arguments"},
	{"torch.std_mean(x, 1, dim=2)\n",
	 "MANUAL: ambiguous call: no signature of std_mean declared by the rule fits these arguments"},
	{"torch.std_mean(x, True, unbiased=True)\n",
	 "MANUAL: ambiguous call: no signature of std_mean declared by the rule fits these arguments"},
	{"torch.std_mean(x, 'a')\n",
	 "MANUAL: ambiguous call: no signature of std_mean declared by the rule fits these arguments"},
};

START_TEST(test_std_mean_overloads)
{
	const char *want = std_mean_cases[_i].want;
	char *code = mpsfix_xasprintf("import torch\n%s", std_mean_cases[_i].code);
	char *full = strncmp(want, "MANUAL", 6) ? mpsfix_xasprintf("import torch\n%s", want) : mpsfix_xstrdup(want);

	expect(std_mean_rule, code, full);
	free(code);
	free(full);
}
END_TEST

START_TEST(test_overload_parse)
{
	static const char text[] = "f(a, b: int | None, /, c=1, *rest, d, e: bool = False, **kw)";
	mpsfix_overload o;
	uint32_t off = 99;

	ck_assert_int_eq(mpsfix_overload_parse(&o, tu_parser(), text, strlen(text), &off), 0);
	ck_assert_str_eq(o.name, "f");
	ck_assert_uint_eq(o.nparams, 7);
	ck_assert_str_eq(o.params[0].name, "a");
	ck_assert_int_eq(o.params[0].kind, MPSFIX_PARAM_POSONLY);
	ck_assert_int_eq(o.params[1].kind, MPSFIX_PARAM_POSONLY);
	ck_assert_uint_ne(o.params[1].types, 0);
	ck_assert_int_eq(o.params[2].kind, MPSFIX_PARAM_NORMAL);
	ck_assert(o.params[2].optional);
	ck_assert_int_eq(o.params[3].kind, MPSFIX_PARAM_VARARGS);
	ck_assert_int_eq(o.params[4].kind, MPSFIX_PARAM_KWONLY);
	ck_assert(!o.params[4].optional);
	ck_assert_int_eq(o.params[5].kind, MPSFIX_PARAM_KWONLY);
	ck_assert_int_eq(o.params[6].kind, MPSFIX_PARAM_VARKW);
	mpsfix_overload_release(&o);

	ck_assert_int_eq(mpsfix_overload_parse(&o, tu_parser(), "f(x", 3, &off), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_overload_parse(&o, tu_parser(), "f(x): pass\ng()", 14, &off), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_overload_parse(&o, tu_parser(), "f(x: complex)", 13, &off), MPSFIX_ERROR);
	ck_assert_uint_eq(off, 5);
	ck_assert_int_eq(mpsfix_overload_parse(&o, tu_parser(), "f(x: int | any)", 15, &off), 0);
	ck_assert_uint_eq(o.params[0].types, 0); /* any */
	mpsfix_overload_release(&o);
}
END_TEST

/* Python's binding rules: positional-only, keyword-only, *args and **kwargs. */
static const char kinds_rule[] =
	HEAD
	"match: 'g($$$A)'\n"
	"signature: 'g(a, /, b=None, *rest, c, **kw)'\n"
	"fix:\n"
	"  safety: safe\n"
	"  template: 'h($a, b=$b, c=$c)'\n";

static const struct {
	const char *code, *want;
} kinds_cases[] = {
	{"g(1, c=3)\n", "h(1, c=3)\n"},
	{"g(1, 2, 5, 6, c=3)\n", "h(1, b=2, c=3)\n"},
	{"g(1, c=3, b=2, z=9)\n", "h(1, b=2, c=3)\n"},
	{"g(a=1, c=3)\n", "MANUAL: ambiguous call: no signature of g declared by the rule fits these arguments"},
	{"g(1, 2)\n", "MANUAL: ambiguous call: no signature of g declared by the rule fits these arguments"},
	/* CPython refuses it before any signature is tried */
	{"g(1, b=2, b=3, c=4)\n", "MANUAL: inside a syntax error (keyword argument 'b' repeated)"},
	{"g(x for x in y)\n", "g(x for x in y)\n"}, /* not matched: no argument list */
};

START_TEST(test_binding_kinds)
{
	expect(kinds_rule, kinds_cases[_i].code, kinds_cases[_i].want);
}
END_TEST

/* A parameter not passed takes its element away, wherever it stands. */
START_TEST(test_absent_parameter_vanishes)
{
	static const char rule[] =
		HEAD
		"match: 'f($$$A)'\n"
		"signature: 'f(x, y=None, z=None)'\n"
		"fix:\n"
		"  safety: safe\n"
		"  template: 'g($y, $x, [$z], key=$z)'\n";

	expect(rule, "f(1)\n", "g(1, [])\n");
	expect(rule, "f(1, z=3)\n", "g(1, [3], key=3)\n");
	expect(rule, "f(1, 2)\n", "g(2, 1, [])\n");
}
END_TEST

START_TEST(test_absent_parameter_outside_a_list)
{
	static const char rule[] =
		HEAD
		"match: 'f($$$A)'\n"
		"signature: 'f(x, y=None)'\n"
		"fix:\n"
		"  safety: safe\n"
		"  template: '$x + $y'\n";

	expect(rule, "f(1, 2)\n", "1 + 2\n");
	expect(rule, "f(1)\n", "MANUAL: the call does not pass `y`, which the template needs");
}
END_TEST

/* The engine's own purity check and the `pure` constraint. */
START_TEST(test_pure)
{
	static const char twice[] =
		HEAD
		"match: 'f($X)'\n"
		"fix:\n"
		"  safety: safe\n"
		"  template: '($X, $X)'\n";
	static const char constrained[] =
		HEAD
		"match: 'f($X)'\n"
		"where:\n"
		"  X: {pure: true}\n"
		"fix:\n"
		"  safety: safe\n"
		"  template: 'g($X)'\n";
	static const struct {
		const char *code;
		bool pure;
	} cases[] = {
		{"f(a)\n", true}, {"f(a.b.c)\n", true}, {"f(1.5)\n", true}, {"f(-1)\n", true},
		{"f('s')\n", true}, {"f(None)\n", true}, {"f(a[0])\n", true}, {"f(a[k])\n", true},
		{"f(a[1:2])\n", true}, {"f((a, b.c, 1))\n", true}, {"f(a['k'].b)\n", true},
		{"f(g())\n", false}, {"f(a.b())\n", false}, {"f(a[g()])\n", false},
		{"f(await a)\n", false}, {"f((y := 1))\n", false}, {"f(lambda: 1)\n", false},
		{"f([i for i in a])\n", false}, {"f(a + b)\n", false}, {"f(f'{a()}')\n", false},
		{"f((a, g()))\n", false}, {"f(-a)\n", false}, {"f(next(it))\n", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *a = run(twice, cases[i].code), *b = run(constrained, cases[i].code);

		ck_assert_msg((strncmp(a, "MANUAL: ", 8) != 0) == cases[i].pure, "%s: %s", cases[i].code, a);
		ck_assert_msg((strncmp(b, "MANUAL: ", 8) != 0) == cases[i].pure, "%s: %s", cases[i].code, b);
		if (!cases[i].pure)
			ck_assert_msg(strstr(a, "would be evaluated twice") != NULL, "%s", a);
		free(a);
		free(b);
	}
}
END_TEST

Suite *mpsfix_suite_signature(void)
{
	Suite *s = suite_create("signature");
	TCase *tc = tcase_create("bind");

	tcase_add_loop_test(tc, test_std_mean_overloads, 0,
			    (int)(sizeof(std_mean_cases) / sizeof(std_mean_cases[0])));
	tcase_add_test(tc, test_overload_parse);
	tcase_add_loop_test(tc, test_binding_kinds, 0, (int)(sizeof(kinds_cases) / sizeof(kinds_cases[0])));
	tcase_add_test(tc, test_absent_parameter_vanishes);
	tcase_add_test(tc, test_absent_parameter_outside_a_list);
	tcase_add_test(tc, test_pure);
	suite_add_tcase(s, tc);
	return s;
}
