/* check_parse.c: the grammar, parsing, error counting at any depth. */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "tests.h"

static TSTree *parse(TSParser *p, const char *text)
{
	TSTree *tree = NULL;

	ck_assert_int_eq(mpsfix_parse(&tree, p, text, (uint32_t)strlen(text)), 0);
	ck_assert_ptr_nonnull(tree);
	return tree;
}

/* The first node of symbol `sym` in document order (a cursor walk). */
static TSNode find(TSNode root, TSSymbol sym)
{
	TSTreeCursor c = ts_tree_cursor_new(root);
	TSNode found = {{0}, NULL, NULL};
	unsigned depth = 0;

	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		if (ts_node_symbol(n) == sym) {
			found = n;
			break;
		}
		if (ts_tree_cursor_goto_first_child(&c)) {
			depth++;
			continue;
		}
		while (depth > 0 && !ts_tree_cursor_goto_next_sibling(&c)) {
			ts_tree_cursor_goto_parent(&c);
			depth--;
		}
		if (depth == 0)
			break;
	}
	ts_tree_cursor_delete(&c);
	return found;
}

START_TEST(test_parse_language)
{
	TSParser *p = NULL;

	ck_assert_str_eq(mpsfix_grammar_version(), "0.23.6");
	ck_assert_uint_eq(ts_language_abi_version(mpsfix_language()), 14);
	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_eq(ts_parser_language(p), mpsfix_language());
	ck_assert_uint_ne(mpsfix_symbol("call"), 0);
	ck_assert_uint_ne(mpsfix_symbol("identifier"), 0);
	ck_assert_uint_ne(mpsfix_symbol("call"), mpsfix_symbol("identifier"));
	ck_assert_str_eq(ts_language_symbol_name(mpsfix_language(), mpsfix_symbol("call")), "call");
	ck_assert_uint_eq(mpsfix_symbol("no_such_kind"), 0);
	ts_parser_delete(p);
}
END_TEST

START_TEST(test_parse_clean_code)
{
	TSParser *p = NULL;

	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	TSTree *t = parse(p, "import torch\nx = torch.std_mean(y, dim=1)\n");
	TSNode root = ts_tree_root_node(t);
	ck_assert_str_eq(ts_node_type(root), "module");
	ck_assert_uint_eq(mpsfix_error_count(root), 0);
	TSNode call = find(root, mpsfix_symbol("call"));
	ck_assert(!ts_node_is_null(call));
	ck_assert(!mpsfix_node_in_error(call));
	ck_assert(!mpsfix_node_in_error(root));
	ts_tree_delete(t);
	ts_parser_delete(p);
}
END_TEST

START_TEST(test_parse_error_count)
{
	TSParser *p = NULL;
	TSNode null_node = {{0}, NULL, NULL};

	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	/* an ERROR node around an unclosed call; the statement before is intact */
	TSTree *t = parse(p, "x = 1\nprint((1)\n");
	TSNode root = ts_tree_root_node(t);
	ck_assert(ts_node_has_error(root));
	ck_assert_uint_eq(mpsfix_error_count(root), 1);
	TSNode err = find(root, (TSSymbol)-1);
	ck_assert(!ts_node_is_null(err));
	ck_assert(mpsfix_node_in_error(err));
	TSNode inner = find(err, mpsfix_symbol("integer"));
	ck_assert(!ts_node_is_null(inner));
	ck_assert(mpsfix_node_in_error(inner)); /* via its parents */
	TSNode first = ts_node_named_child(root, 0);
	ck_assert_str_eq(ts_node_type(first), "expression_statement");
	ck_assert_uint_eq(mpsfix_error_count(first), 0);
	ck_assert(!mpsfix_node_in_error(first));
	ck_assert(!mpsfix_node_in_error(find(first, mpsfix_symbol("integer"))));
	ts_tree_delete(t);

	/* a MISSING ")" only: no ERROR node, the rest of the tree is fine */
	t = parse(p, "def f(:\n    return g(x)\n");
	root = ts_tree_root_node(t);
	ck_assert_uint_eq(mpsfix_error_count(root), 1);
	ck_assert(ts_node_is_null(find(root, (TSSymbol)-1)));
	TSNode params = find(root, mpsfix_symbol("parameters"));
	ck_assert_uint_eq(ts_node_child_count(params), 2);
	ck_assert(ts_node_is_missing(ts_node_child(params, 1)));
	ck_assert(mpsfix_node_in_error(ts_node_child(params, 1)));
	ck_assert(!mpsfix_node_in_error(find(root, mpsfix_symbol("call"))));
	ts_tree_delete(t);

	/* two errors count twice */
	t = parse(p, "def f(:\n  x = )\n");
	ck_assert_uint_eq(mpsfix_error_count(ts_tree_root_node(t)), 2);
	ts_tree_delete(t);

	ck_assert_uint_eq(mpsfix_error_count(null_node), 0);
	ck_assert(!mpsfix_node_in_error(null_node));
	ts_parser_delete(p);
}
END_TEST

enum { DEPTH = 100000 };

START_TEST(test_parse_deep_nesting)
{
	TSParser *p = NULL;
	char *text = malloc(2 * DEPTH + 3);

	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	/* balanced: 100,000 parentheses around 1 */
	memset(text, '(', DEPTH);
	text[DEPTH] = '1';
	memset(text + DEPTH + 1, ')', DEPTH);
	text[2 * DEPTH + 1] = '\n';
	text[2 * DEPTH + 2] = '\0';
	TSTree *t = parse(p, text);
	ck_assert_uint_eq(mpsfix_error_count(ts_tree_root_node(t)), 0);
	ts_tree_delete(t);

	/* never closed: tree-sitter 0.20 corrupted its heap at the end of such
	 * input; 0.25 parses it, with its errors, and the parser goes on */
	text[DEPTH + 1] = '\n';
	text[DEPTH + 2] = '\0';
	t = parse(p, text);
	ck_assert_uint_ge(mpsfix_error_count(ts_tree_root_node(t)), 1);
	ck_assert_uint_eq(ts_node_end_byte(ts_tree_root_node(t)), DEPTH + 2);
	ts_tree_delete(t);
	t = parse(p, "x = 1\n");
	ck_assert_uint_eq(mpsfix_error_count(ts_tree_root_node(t)), 0);
	ts_tree_delete(t);
	free(text);
	ts_parser_delete(p);
}
END_TEST

/*
 * Shapes that leave the parse stack deep at the end of the input (each one
 * crashed tree-sitter 0.20): parsed, with their errors.
 */
START_TEST(test_parse_left_open)
{
	TSParser *p = NULL;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	TSTree *t = NULL;

	/* dangling prefix operators on successive lines add up */
	for (int line = 0; line < 4; line++) {
		for (int i = 0; i < 10000; i++)
			mpsfix_buf_addc(&b, '-');
		mpsfix_buf_adds(&b, ",\n");
	}
	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	t = parse(p, b.data);
	ck_assert_uint_ge(mpsfix_error_count(ts_tree_root_node(t)), 1);
	ts_tree_delete(t);

	/* an assignment chain broken at its end */
	mpsfix_buf_clear(&b);
	for (int i = 0; i < 40000; i++)
		mpsfix_buf_adds(&b, "a=");
	mpsfix_buf_adds(&b, ",\n");
	t = parse(p, b.data);
	ck_assert_uint_ge(mpsfix_error_count(ts_tree_root_node(t)), 1);
	ts_tree_delete(t);

	/* 100,000 prefix operators, lambdas and conditional expressions left dangling */
	static const char *const units[] = {"-", "not ", "lambda:", "a if b else ", "a**", "f(x="};
	for (size_t u = 0; u < MPSFIX_ARRAY_SIZE(units); u++) {
		mpsfix_buf_clear(&b);
		for (int i = 0; i < 100000; i++)
			mpsfix_buf_adds(&b, units[u]);
		mpsfix_buf_adds(&b, "\n");
		t = parse(p, b.data);
		ck_assert_msg(mpsfix_error_count(ts_tree_root_node(t)) >= 1, "%s", units[u]);
		ts_tree_delete(t);
	}

	/* big but ordinary code, brackets in strings and comments: nothing open */
	mpsfix_buf_clear(&b);
	mpsfix_buf_adds(&b, "from m import *\nd = {\n");
	for (int i = 0; i < 40000; i++)
		mpsfix_buf_printf(&b, "    %d: -x ** 2 if a else f(*args, **kw)[:],  # '(\n", i);
	mpsfix_buf_adds(&b, "}\ns = '''[[[\n''' + \"(((\" + r'\\\\' + f'{x}(('\n");
	ck_assert_int_eq(mpsfix_parse(&t, p, b.data, (uint32_t)b.len), 0);
	ck_assert_uint_eq(mpsfix_error_count(ts_tree_root_node(t)), 0);
	ts_tree_delete(t);

	/* out of time: skipped, and the parser starts afresh on the next text */
	t = (TSTree *)1;
	ck_assert_int_eq(mpsfix_parse_timed(&t, p, "slow.py", b.data, (uint32_t)b.len, 1),
			 MPSFIX_ESKIP);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "slow.py: skipped: parsing took longer than 0 ms");
	ck_assert_int_eq(mpsfix_parse(&t, p, "x = 1\n", 6), 0);
	ck_assert_str_eq(ts_node_type(ts_tree_root_node(t)), "module");
	ck_assert_uint_eq(ts_node_end_byte(ts_tree_root_node(t)), 6);
	ck_assert_uint_eq(mpsfix_error_count(ts_tree_root_node(t)), 0);
	ts_tree_delete(t);
	mpsfix_buf_release(&b);
	ts_parser_delete(p);
}
END_TEST

typedef struct {
	const char *src;
	mpsfix_buf seen;
} walk_log;

/* Log identifiers in order; skip the insides of calls to g; stop at "stop". */
static mpsfix_walk_action log_ident(TSNode n, void *payload)
{
	walk_log *w = payload;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);

	if (!strcmp(ts_node_type(n), "call") && w->src[s] == 'g')
		return MPSFIX_WALK_SKIP;
	if (strcmp(ts_node_type(n), "identifier"))
		return MPSFIX_WALK_DESCEND;
	if (e - s == 4 && !memcmp(w->src + s, "stop", 4))
		return MPSFIX_WALK_STOP;
	mpsfix_buf_add(&w->seen, w->src + s, e - s);
	mpsfix_buf_addc(&w->seen, ' ');
	return MPSFIX_WALK_DESCEND;
}

START_TEST(test_parse_walk_order_skip_stop)
{
	const char *src = "a = f(b, g(c), d)\nstop\ne\n";
	walk_log w = {.src = src};
	TSParser *p = NULL;
	TSTree *t = NULL;

	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	ck_assert_int_eq(mpsfix_parse(&t, p, src, (uint32_t)strlen(src)), 0);
	ck_assert(!mpsfix_walk(ts_tree_root_node(t), log_ident, &w));
	ck_assert_str_eq(w.seen.data, "a f b d ");
	/* a walk from an inner node stays inside it */
	mpsfix_buf_clear(&w.seen);
	ck_assert(mpsfix_walk(ts_node_named_child(ts_tree_root_node(t), 0), log_ident, &w));
	ck_assert_str_eq(w.seen.data, "a f b d ");
	mpsfix_buf_release(&w.seen);
	ts_tree_delete(t);
	ts_parser_delete(p);
}
END_TEST

typedef struct {
	size_t seen, wrong;
	TSNode skip_below;
} parent_log;

static TSNode parent_of(TSNode n)
{
	return ts_node_is_null(n) ? n : ts_node_parent(n);
}

static mpsfix_walk_action check_parent(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	parent_log *l = payload;

	l->seen++;
	if (!ts_node_eq(mpsfix_up(up, 1), parent_of(n)) || !ts_node_eq(mpsfix_up(up, 2), parent_of(parent_of(n))) ||
	    !ts_node_eq(mpsfix_up(up, 3), parent_of(parent_of(parent_of(n)))))
		l->wrong++;
	return ts_node_eq(n, l->skip_below) ? MPSFIX_WALK_SKIP : MPSFIX_WALK_DESCEND;
}

static mpsfix_walk_action stop_at_identifier(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	(void)up;
	++*(size_t *)payload;
	return strcmp(ts_node_type(n), "identifier") ? MPSFIX_WALK_DESCEND : MPSFIX_WALK_STOP;
}

/* Each node comes with the ancestors ts_node_parent() finds (above the walk's root too), skipping or not. */
START_TEST(test_parse_walk_parents)
{
	const char *text = "def f(x, y=(1, [2, {3: 4}])):\n    return g(x).h[y] + (lambda z: z)(1)\nclass C:\n    a = 1\n";
	TSParser *p = NULL;
	TSTree *t;
	TSNode root, def;
	parent_log l = {0};
	size_t all, n = 0;

	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	t = parse(p, text);
	root = ts_tree_root_node(t);
	def = ts_node_named_child(root, 0);
	ck_assert(mpsfix_walk_parents(root, check_parent, &l));
	ck_assert_uint_eq(l.wrong, 0);
	ck_assert_uint_eq(l.seen, ts_node_descendant_count(root));
	all = l.seen;
	/* from a node inside: its own parent first */
	l = (parent_log){0};
	ck_assert(mpsfix_walk_parents(ts_node_child_by_field_name(def, "body", 4), check_parent, &l));
	ck_assert_uint_eq(l.wrong, 0);
	ck_assert_uint_gt(l.seen, 5);
	/* a skipped node's children are not visited, and the walk goes on after it */
	l = (parent_log){.skip_below = def};
	ck_assert(mpsfix_walk_parents(root, check_parent, &l));
	ck_assert_uint_eq(l.wrong, 0);
	ck_assert_uint_eq(l.seen, all - (ts_node_descendant_count(def) - 1));
	/* mpsfix_ancestors_of(): each node's climb through ts_node_parent(), in one descent */
	{
		mpsfix_ancestors a = {0};
		TSTreeCursor c = ts_tree_cursor_new(root);
		size_t checked = 0;

		do {
			TSNode x = ts_tree_cursor_current_node(&c), y = x;
			size_t k = 0;

			mpsfix_ancestors_of(x, &a);
			while (!ts_node_is_null(y = ts_node_parent(y))) {
				ck_assert_uint_lt(k, a.len);
				ck_assert(ts_node_eq(a.items[a.len - 1 - k], y));
				k++;
			}
			ck_assert_uint_eq(k, a.len);
			checked++;
			if (ts_tree_cursor_goto_first_child(&c))
				continue;
			while (!ts_tree_cursor_goto_next_sibling(&c))
				if (!ts_tree_cursor_goto_parent(&c))
					goto all_seen;
		} while (true);
	all_seen:
		ck_assert_uint_eq(checked, ts_node_descendant_count(root));
		mpsfix_ancestors_of((TSNode){0}, &a);
		ck_assert_uint_eq(a.len, 0);
		free(a.items);
		ts_tree_cursor_delete(&c);
	}
	/* stopped at the first identifier: module, function_definition, def, f */
	ck_assert(!mpsfix_walk_parents(root, stop_at_identifier, &n));
	ck_assert_uint_eq(n, 4);
	ts_tree_delete(t);
	ts_parser_delete(p);
}
END_TEST

/* The __main__ block: either order, either quote; not !=, not nested, not another name. */
START_TEST(test_parse_main_block)
{
	static const struct {
		const char *src;
		int line; /* of the block, from 1; 0 for none */
	} cases[] = {
		{"import x\nif __name__ == \"__main__\":\n    x.run()\n", 2},
		{"if '__main__' == __name__:\n    pass\n", 1},
		{"if (__name__ == \"__main__\"):\n    pass\nif __name__ == \"__main__\":\n    pass\n", 1},
		{"if __name__ != \"__main__\":\n    pass\n", 0},
		{"if __name__ == \"main\":\n    pass\n", 0},
		{"if __name__ == \"__main__\" and x:\n    pass\n", 0},
		{"def f():\n    if __name__ == \"__main__\":\n        pass\n", 0},
		{"x = 1\n", 0},
	};
	TSParser *p = NULL;

	ck_assert_int_eq(mpsfix_parser_new(&p), 0);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
		TSTree *t = parse(p, cases[i].src);
		TSNode m = mpsfix_main_block(ts_tree_root_node(t), cases[i].src);

		ck_assert_msg(ts_node_is_null(m) ? cases[i].line == 0
						 : (int)ts_node_start_point(m).row + 1 == cases[i].line,
			      "case %zu: %s", i, cases[i].src);
		ts_tree_delete(t);
	}
	ts_parser_delete(p);
}
END_TEST

/*
 * The grammar's scanner kept "inside an f-string" from the end of one parse
 * into the next: after a file ending in an unterminated f-string, the next
 * file lost its dedents (found by tests/fuzz/fuzz_pipeline.c checking that
 * a shared parser gives what a fresh one gives).
 */
START_TEST(test_parse_no_state_between_files)
{
	static const char *const before[] = {"f\"{", "x = f'{a", "f\"\"\"{\n", "s = f'{x}"};
	static const char after[] = "def f():\n    if x:\n        y = 1\n    return 2\n";
	TSParser *parser = NULL;
	TSTree *tree = NULL;

	ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(before); i++) {
		ck_assert_int_eq(mpsfix_parse(&tree, parser, before[i], (uint32_t)strlen(before[i])), 0);
		ts_tree_delete(tree);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, after, (uint32_t)strlen(after)), 0);
		ck_assert_msg(mpsfix_error_count(ts_tree_root_node(tree)) == 0,
			      "after '%s', a valid file has syntax errors", before[i]);
		ts_tree_delete(tree);
	}
	ts_parser_delete(parser);
}
END_TEST

Suite *mpsfix_suite_parse(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("parse");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_parse_language);
	tcase_add_test(tc, test_parse_clean_code);
	tcase_add_test(tc, test_parse_error_count);
	tcase_add_test(tc, test_parse_deep_nesting);
	tcase_add_test(tc, test_parse_left_open);
	tcase_add_test(tc, test_parse_walk_order_skip_stop);
	tcase_add_test(tc, test_parse_walk_parents);
	tcase_add_test(tc, test_parse_main_block);
	tcase_add_test(tc, test_parse_no_state_between_files);
	suite_add_tcase(s, tc);
	return s;
}
