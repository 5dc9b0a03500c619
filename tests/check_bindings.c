/*
 * check_bindings.c: where a scope binds a name (bindings.h), for the
 * questions no fixture isolates: which builtins a text binds anywhere.
 * (match.h has a type of the same name, so this file includes no engine
 * header but bindings.h.)
 */
#include <string.h>

#include "bindings.h"
#include "parse.h"
#include "tests.h"

/* Which builtins a text binds somewhere (bindings.h), so that a call of one may be the project's. */
START_TEST(test_bindings_rebound)
{
	static const char *const names[] = {"list", "sum", "next"};
	static const struct {
		const char *text;
		uint32_t bits;
	} cases[] = {
		{"y = sum(x for x in xs)\nz = list(a)\n", 0},
		{"def list(g):\n    return g\n", 1},
		{"def f(xs, sum=iter):\n    return sum(x for x in xs)\n", 2},
		{"from itertools import tee as next\n", 4},
		{"g = lambda list: list\n", 1},
		{"for sum in range(3):\n    pass\n", 2},
		{"match x:\n    case [*list]:\n        pass\n", 1},
		{"def f():\n    global next\n", 4},
		{"self.list = 1\nf(sum=2)\n", 0}, /* an attribute, a keyword: no binding */
		{"from helpers import *\n", UINT32_MAX},
		{"def f():\n    exec(code)\n", UINT32_MAX},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		uint32_t bits;

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		bits = mpsfix_bindings_rebound(ts_tree_root_node(tree), text, names, 3);
		ck_assert_msg(bits == cases[i].bits, "case %zu: %#x, not %#x: %s", i, bits, cases[i].bits, text);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
}
END_TEST

Suite *mpsfix_suite_bindings(void)
{
	Suite *s = suite_create("bindings");
	TCase *tc = tcase_create("bindings");

	tcase_add_test(tc, test_bindings_rebound);
	suite_add_tcase(s, tc);
	return s;
}
