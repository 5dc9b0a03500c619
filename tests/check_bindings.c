/*
 * check_bindings.c: where a scope binds a name (bindings.h), for the
 * questions no fixture isolates: which builtins a text binds anywhere, and
 * the forms that bind a function's name (a walrus in the header of a def
 * inside it, `with ... as (a, b)`, `type X = ...`, type parameters).
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

/* The last identifier `name` under `n`, depth first. */
static TSNode last_named(TSNode n, const char *src, const char *name)
{
	TSNode found = {0};

	if (!strcmp(ts_node_type(n), "identifier") && ts_node_end_byte(n) - ts_node_start_byte(n) == strlen(name) &&
	    !strncmp(src + ts_node_start_byte(n), name, strlen(name)))
		found = n;
	for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
		TSNode c = last_named(ts_node_child(n, i), src, name);

		if (!ts_node_is_null(c))
			found = c;
	}
	return found;
}

/* How many places of the text's first function bind `gpu`, the name its last line reads. */
START_TEST(test_bindings_count_function)
{
	static const struct {
		const char *text;
		uint32_t count;
	} cases[] = {
		{"def f():\n    gpu = cuda()\n    return gpu\n", 1},
		{"def f():\n    gpu = cuda()\n    def g(x=(gpu := 1)): pass\n    return gpu\n", 2},
		{"def f():\n    gpu = cuda()\n    h = lambda x=(gpu := 1): x\n    return gpu\n", 2},
		{"def f():\n    gpu = cuda()\n    class C((gpu := B)): pass\n    return gpu\n", 2},
		{"def f():\n    gpu = cuda()\n    def g() -> (gpu := int): pass\n    return gpu\n", 2},
		{"def f():\n    gpu = cuda()\n    def g():\n        gpu = 1\n        y = (gpu := 2)\n    return gpu\n", 1},
		{"def f():\n    gpu = cuda()\n    with c as (a, gpu): pass\n    return gpu\n", 2},
		{"def f():\n    gpu = cuda()\n    with c as [a, [gpu]]: pass\n    return gpu\n", 2},
		{"def f():\n    gpu = cuda()\n    with c as (gpu): pass\n    return gpu\n", 2},
		{"def f():\n    gpu = cuda()\n    with c as x: y = (a, gpu)\n    return gpu\n", 1},
		{"def f():\n    gpu = cuda()\n    type gpu = int\n    return gpu\n", 2},
		{"def f[gpu]():\n    return gpu\n", 1},
		{"def f():\n    gpu = cuda()\n    def g[gpu](): pass\n    return gpu\n", 1},
		{"def f():\n    x: gpu = 1\n    return gpu\n", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		TSNode root, fn, id;
		mpsfix_binding b;

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		root = ts_tree_root_node(tree);
		fn = ts_node_named_child(root, 0);
		id = last_named(fn, text, "gpu");
		ck_assert_msg(!ts_node_has_error(root) && !ts_node_is_null(id), "case %zu: does not parse: %s", i, text);
		mpsfix_bindings_count(fn, text, &id, 1, &b);
		ck_assert_msg(b.count == cases[i].count, "case %zu: %u bindings, not %u: %s", i, b.count,
			      cases[i].count, text);
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
	tcase_add_test(tc, test_bindings_count_function);
	suite_add_tcase(s, tc);
	return s;
}
