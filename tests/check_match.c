/* check_match.c: structural matching semantics. */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "tests.h"
#include "testutil.h"

#define COUNT(p, c) tu_count_matches((p), (c))

START_TEST(test_match_whitespace_and_comments_ignored)
{
	ck_assert_int_eq(COUNT("$X.to(\"mps\", non_blocking=True)",
			       "y = x.to(  # move\n    'mps',\n    non_blocking = True ,\n)\n"), 1);
	ck_assert_int_eq(COUNT("a + b", "c = (a  +\\\n b)\n"), 1);
}
END_TEST

START_TEST(test_match_keyword_arguments_any_order)
{
	const char *p = "f(x, a=1, b=2)";

	ck_assert_int_eq(COUNT(p, "f(x, b=2, a=1)\n"), 1);
	ck_assert_int_eq(COUNT(p, "f(x, a=1, b=2)\n"), 1);
	ck_assert_int_eq(COUNT(p, "f(x, a=1)\n"), 0);
	ck_assert_int_eq(COUNT(p, "f(x, a=1, b=2, c=3)\n"), 0);
	ck_assert_int_eq(COUNT(p, "f(a=1, b=2, x)\n"), 1); /* the grammar accepts it; so do we */
	ck_assert_int_eq(COUNT("f($$$A, b=2)", "f(x, b=2, c=3)\n"), 1);
	ck_assert_int_eq(COUNT("f($$$A, b=2)", "f(x, c=3)\n"), 0);
}
END_TEST

START_TEST(test_match_multis_keep_their_side_of_a_keyword)
{
	char *t = tu_binding("f($$$A, x=$X, $$$B)", "f(1, 2, x=3, z=4)\n", "A");

	ck_assert_str_eq(t, "1|2");
	free(t);
	t = tu_binding("f($$$A, x=$X, $$$B)", "f(1, 2, x=3, z=4)\n", "B");
	ck_assert_str_eq(t, "z=4");
	free(t);
	t = tu_binding("f($$$A, x=$X, $$$B)", "f(x=3, z=4)\n", "B");
	ck_assert_str_eq(t, "z=4");
	free(t);
	/* keywords among themselves still match in any order */
	ck_assert_int_eq(COUNT("f(p, a=1, $$$R, b=2)", "f(p, b=2, a=1, c=3)\n"), 1);
	ck_assert_int_eq(COUNT("f(p, a=1, $$$R, b=2)", "f(c=3, p, b=2, a=1)\n"), 0);
	ck_assert_int_eq(COUNT("f($$$A, x=$X)", "f(1, x=3, z=4)\n"), 1);
}
END_TEST

START_TEST(test_match_strings_by_value)
{
	ck_assert_int_eq(COUNT("x.to('mps')", "x.to(\"mps\")\nx.to('mps')\nx.to('''mps''')\n"), 3);
	ck_assert_int_eq(COUNT("x.to('mps')", "x.to(f'mps')\nx.to(b'mps')\nx.to('mps:0')\n"), 0);
	ck_assert_int_eq(COUNT("x.to('m\\x70s')", "x.to('mps')\n"), 1);
}
END_TEST

/* A def pattern without `-> T` matches defs with any return annotation;
 * one that writes `-> T` still needs it. */
START_TEST(test_match_def_return_annotation_optional)
{
	const char *code = "def f(x, device='cuda'):\n    pass\n"
			   "def g(x, device='cuda') -> None:\n    pass\n"
			   "async def h(device='cuda') -> Self:\n    pass\n";

	ck_assert_int_eq(COUNT("def $F($$$A, device='cuda'): $$$B", code), 2);
	ck_assert_int_eq(COUNT("def $F($$$A, device='cuda') -> None: $$$B", code), 1);
	ck_assert_int_eq(COUNT("def $F($$$A, device='cuda') -> $R: $$$B", code), 1);
	ck_assert_int_eq(COUNT("async def $F($$$A, device='cuda'): $$$B", code), 1);
}
END_TEST

START_TEST(test_match_multi_binds_siblings)
{
	char *t = tu_binding("DataLoader($$$A, pin_memory=$V)",
			     "DataLoader(ds, batch_size=4, pin_memory=True, shuffle=True)\n", "A");

	ck_assert_str_eq(t, "ds|batch_size=4|shuffle=True");
	free(t);
	t = tu_binding("DataLoader($$$A, pin_memory=$V)", "DataLoader(pin_memory=flag)\n", "A");
	ck_assert_str_eq(t, "");
	free(t);
	t = tu_binding("f($$$A, last)", "f(1, 2, last)\n", "A");
	ck_assert_str_eq(t, "1|2");
	free(t);
	ck_assert_int_eq(COUNT("f($$$A, last)", "f(1, 2)\n"), 0);
	ck_assert_int_eq(COUNT("f($$$_)", "f()\nf(1)\nf(1, *a, **k)\n"), 3);
}
END_TEST

START_TEST(test_match_repeated_metavariable_must_be_equal)
{
	ck_assert_int_eq(COUNT("$A if $A else $B", "y = x if x else z\n"), 1);
	ck_assert_int_eq(COUNT("$A if $A else $B", "y = x if w else z\n"), 0);
	ck_assert_int_eq(COUNT("$A if $A else $B", "y = a.b  if a . b else z\n"), 1);
	ck_assert_int_eq(COUNT("f($$$A, $$$A)", "f(1, 2, 1, 2)\nf(1, 2, 1)\n"), 1);
}
END_TEST

START_TEST(test_match_wildcard_and_nesting)
{
	ck_assert_int_eq(COUNT("$_.to('mps', non_blocking=True)",
			       "a.to('mps', non_blocking=True).b.to('mps', non_blocking=True)\n"), 2);
	ck_assert_int_eq(COUNT("torch.cuda.is_available()", "torch.cuda.is_available()\n"), 1);
	ck_assert_int_eq(COUNT("torch.cuda.is_available()", "th.cuda.is_available()\n"), 0);
}
END_TEST

START_TEST(test_match_binding_text)
{
	char *t = tu_binding("$X.to(\"mps\", non_blocking=$NB)",
			     "y = model(inp)[0].to('mps', non_blocking=True)\n", "X");

	ck_assert_str_eq(t, "model(inp)[0]");
	free(t);
	t = tu_binding("$X.to(\"mps\", non_blocking=$NB)", "y = a.to('mps', non_blocking=flag)\n", "NB");
	ck_assert_str_eq(t, "flag");
	free(t);
}
END_TEST

START_TEST(test_match_in_broken_file)
{
	/* a match away from the syntax error is still found */
	ck_assert_int_eq(COUNT("x.to('mps')", "def f(:\n    pass\ny = x.to('mps')\n"), 1);
}
END_TEST

START_TEST(test_match_deep_nesting)
{
	size_t n = 5000;
	char *code = malloc(2 * n + 16);
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		code[k++] = '(';
	code[k++] = 'x';
	for (size_t i = 0; i < n; i++)
		code[k++] = ')';
	memcpy(code + k, ".to('mps')\n", 12);
	ck_assert_int_eq(COUNT("$X.to('mps')", code), 1);
	ck_assert_int_eq(COUNT("$X if $X else $X", code), 0);
	free(code);
}
END_TEST

/* Count matches of `pattern` in `code` with constraint `c` on metavariable X. */
static int count_constrained(const char *pattern, const char *code, const mpsfix_constraint *c)
{
	mpsfix_pattern *p = NULL;
	uint32_t off;
	TSTree *tree = NULL;
	int n;

	ck_assert_int_eq(mpsfix_pattern_compile(&p, tu_parser(), pattern, strlen(pattern), &off), 0);
	p->metavars[mpsfix_pattern_metavar_index(p, "X")].constraint = c;
	ck_assert_int_eq(mpsfix_parse(&tree, tu_parser(), code, (uint32_t)strlen(code)), 0);
	n = tu_match_tree(NULL, p, tree, code);
	ts_tree_delete(tree);
	mpsfix_pattern_free(p);
	return n;
}

START_TEST(test_match_constraints)
{
	mpsfix_constraint c = {0};
	char msg[256];
	const char *code = "f(a)\nf(a_b)\nf(1)\nf('x')\nf(g(a))\n";
	TSSymbol kinds[2];
	mpsfix_literal values[2] = {
		{.type = MPSFIX_LIT_NUMBER, .num = 1},
		{.type = MPSFIX_LIT_STRING, .s = "x", .slen = 1},
	};

	ck_assert_int_eq(mpsfix_regex_compile(&c.regex, "^a", msg, sizeof(msg)), 0);
	c.has_regex = true;
	ck_assert_int_eq(count_constrained("f($X)", code, &c), 2); /* a, a_b; not g(a) */
	mpsfix_regex_release(&c.regex);
	c.has_regex = false;

	ck_assert_int_eq(mpsfix_regex_compile(&c.not_regex, "_", msg, sizeof(msg)), 0);
	c.has_not_regex = true;
	ck_assert_int_eq(count_constrained("f($X)", code, &c), 4);
	mpsfix_regex_release(&c.not_regex);
	c.has_not_regex = false;

	kinds[0] = mpsfix_symbol("identifier");
	kinds[1] = mpsfix_symbol("call");
	c.kinds = kinds;
	c.nkinds = 2;
	ck_assert_int_eq(count_constrained("f($X)", code, &c), 3); /* a, a_b, g(a) */
	c.nkinds = 0;

	c.values = values;
	c.nvalues = 2;
	ck_assert_int_eq(count_constrained("f($X)", code, &c), 2); /* 1 and 'x' */
	c.nvalues = 0;
}
END_TEST

/* A node longer than MPSFIX_REGEX_MAX_TEXT bytes satisfies neither regex nor not-regex. */
START_TEST(test_match_regex_text_bound)
{
	mpsfix_constraint c = {0};
	char msg[256];
	size_t n = MPSFIX_REGEX_MAX_TEXT - 2; /* the quotes make it the limit */
	mpsfix_buf code = MPSFIX_BUF_INIT;

	mpsfix_buf_adds(&code, "f('");
	for (size_t i = 0; i < n; i++)
		mpsfix_buf_addc(&code, 'a');
	mpsfix_buf_adds(&code, "')\n");
	ck_assert_int_eq(mpsfix_regex_compile(&c.regex, "a", msg, sizeof(msg)), 0);
	c.has_regex = true;
	ck_assert_int_eq(count_constrained("f($X)", code.data, &c), 1);
	ck_assert_int_eq(mpsfix_regex_compile(&c.not_regex, "b", msg, sizeof(msg)), 0);
	c.has_not_regex = true;
	ck_assert_int_eq(count_constrained("f($X)", code.data, &c), 1);

	/* one byte more: not tried, not accepted */
	mpsfix_buf_clear(&code);
	mpsfix_buf_adds(&code, "f('a");
	for (size_t i = 0; i < n; i++)
		mpsfix_buf_addc(&code, 'a');
	mpsfix_buf_adds(&code, "')\n");
	ck_assert_int_eq(count_constrained("f($X)", code.data, &c), 0);
	mpsfix_regex_release(&c.regex);
	c.has_regex = false;
	ck_assert_int_eq(count_constrained("f($X)", code.data, &c), 0);
	mpsfix_regex_release(&c.not_regex);
	mpsfix_buf_release(&code);
}
END_TEST

/* An `inside` pattern's $MATCH binds the match itself, not equal code before it. */
START_TEST(test_match_pinned)
{
	const char *code = "f(a='x', b='x', c=('x'))\n";
	mpsfix_pattern *p = NULL;
	TSTree *tree = NULL;
	mpsfix_matcher *m = mpsfix_matcher_new();
	mpsfix_match mm = MPSFIX_MATCH_INIT;
	TSNode call, args;
	uint32_t off;
	const char *want[] = {"a", "b", "c"};

	ck_assert_int_eq(mpsfix_pattern_compile(&p, tu_parser(), "f($$$A, $N=$MATCH, $$$B)", 24, &off), 0);
	ck_assert_int_eq(mpsfix_parse(&tree, tu_parser(), code, (uint32_t)strlen(code)), 0);
	call = ts_node_named_child(ts_node_named_child(ts_tree_root_node(tree), 0), 0);
	args = ts_node_child_by_field_name(call, "arguments", 9);
	for (uint32_t i = 0; i < 3; i++) {
		TSNode value = mpsfix_unparenthesized(
			ts_node_child_by_field_name(ts_node_named_child(args, i), "value", 5));
		const mpsfix_binding *n;

		ck_assert_int_eq(mpsfix_match_node_pinned(&mm, m, p, call, code, value), 0);
		n = mpsfix_match_get(&mm, "N");
		ck_assert_uint_eq(ts_node_start_byte(n->node), (uint32_t)(strchr(code, want[i][0]) - code));
		mpsfix_match_release(&mm);
	}
	/* unpinned, the first binding that matches: `a` */
	ck_assert_int_eq(mpsfix_match_node(&mm, m, p, call, code), 0);
	ck_assert_uint_eq(ts_node_start_byte(mpsfix_match_get(&mm, "N")->node), 2);
	mpsfix_match_release(&mm);
	/* pinned to a node the pattern cannot bind: no match */
	ck_assert_int_eq(mpsfix_match_node_pinned(&mm, m, p, call, code, call), MPSFIX_ENOMATCH);
	ts_tree_delete(tree);
	mpsfix_pattern_free(p);
	mpsfix_matcher_free(m);
}
END_TEST

Suite *mpsfix_suite_match(void)
{
	Suite *s = suite_create("match");
	TCase *tc = tcase_create("match");

	tcase_add_test(tc, test_match_whitespace_and_comments_ignored);
	tcase_add_test(tc, test_match_keyword_arguments_any_order);
	tcase_add_test(tc, test_match_strings_by_value);
	tcase_add_test(tc, test_match_def_return_annotation_optional);
	tcase_add_test(tc, test_match_multis_keep_their_side_of_a_keyword);
	tcase_add_test(tc, test_match_multi_binds_siblings);
	tcase_add_test(tc, test_match_repeated_metavariable_must_be_equal);
	tcase_add_test(tc, test_match_wildcard_and_nesting);
	tcase_add_test(tc, test_match_binding_text);
	tcase_add_test(tc, test_match_in_broken_file);
	tcase_add_test(tc, test_match_deep_nesting);
	tcase_add_test(tc, test_match_constraints);
	tcase_add_test(tc, test_match_regex_text_bound);
	tcase_add_test(tc, test_match_pinned);
	suite_add_tcase(s, tc);
	return s;
}
