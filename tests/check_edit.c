/* check_edit.c: edit lists: acceptance order, overlaps, groups, insertions. */
#include <string.h>

#include "edit.h"
#include "tests.h"

static void add(mpsfix_edits *e, uint32_t start, uint32_t end, const char *text, uint32_t group)
{
	mpsfix_edits_add(e, start, end, text, strlen(text), group);
}

/* Apply `e` to `src` and expect `want` and the given group counts. */
static void expect(mpsfix_edits *e, const char *src, const char *want,
		   size_t applied, size_t deferred)
{
	mpsfix_buf out = MPSFIX_BUF_INIT;
	size_t a = 99, d = 99;

	ck_assert_int_eq(mpsfix_edits_apply(&out, e, src, strlen(src), &a, &d), 0);
	ck_assert_ptr_nonnull(out.data);
	ck_assert_str_eq(out.data, want);
	ck_assert_uint_eq(out.len, strlen(want));
	ck_assert_uint_eq(a, applied);
	ck_assert_uint_eq(d, deferred);
	mpsfix_buf_release(&out);
}

START_TEST(test_edit_non_overlapping)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;

	add(&e, 6, 11, "there", 2); /* added out of order */
	add(&e, 0, 5, "HELLO", 1);
	expect(&e, "hello world!", "HELLO there!", 2, 0);
	ck_assert(e.items[0].applied);
	ck_assert(e.items[1].applied);
	mpsfix_edits_release(&e);
}
END_TEST

START_TEST(test_edit_empty_list)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;
	mpsfix_buf out = MPSFIX_BUF_INIT;

	expect(&e, "same\n", "same\n", 0, 0);
	/* `out` is replaced, not appended to */
	mpsfix_buf_adds(&out, "junk");
	ck_assert_int_eq(mpsfix_edits_apply(&out, &e, "", 0, NULL, NULL), 0);
	ck_assert_uint_eq(out.len, 0);
	ck_assert_str_eq(out.data, "");
	mpsfix_buf_release(&out);
	mpsfix_edits_release(&e);
}
END_TEST

START_TEST(test_edit_outer_wins)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;

	/* inner fix added first, the outer one still wins */
	add(&e, 2, 6, "G", 1);          /* g(x) */
	add(&e, 0, 7, "outer(...)", 2); /* f(g(x)) */
	expect(&e, "f(g(x))\n", "outer(...)\n", 1, 1);
	ck_assert(!e.items[0].applied);
	ck_assert(e.items[1].applied);

	/* same start: the longer span first, whatever the order of adding */
	mpsfix_edits_clear(&e);
	ck_assert_uint_eq(e.len, 0);
	add(&e, 0, 1, "F", 1);
	add(&e, 0, 7, "whole", 2);
	expect(&e, "f(g(x))", "whole", 1, 1);
	ck_assert(!e.items[0].applied);
	mpsfix_edits_release(&e);
}
END_TEST

START_TEST(test_edit_partial_overlap_deferred)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;

	add(&e, 3, 8, "B", 1);
	add(&e, 0, 5, "A", 2); /* starts first: accepted */
	add(&e, 5, 6, "C", 3); /* touches A's end only: accepted */
	expect(&e, "0123456789", "AC6789", 2, 1);
	ck_assert(!e.items[0].applied);
	ck_assert(e.items[1].applied);
	ck_assert(e.items[2].applied);

	/* equal spans: the first added wins */
	mpsfix_edits_clear(&e);
	add(&e, 2, 4, "x", 7);
	add(&e, 2, 4, "y", 8);
	expect(&e, "0123456789", "01x456789", 1, 1);
	mpsfix_edits_release(&e);
}
END_TEST

START_TEST(test_edit_group_all_or_nothing)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;

	/* group 1 (first edit at 2) comes after group 2 (first edit at 0) */
	add(&e, 2, 3, "<", 1);
	add(&e, 8, 9, ">", 1);  /* conflicts with group 2's [7, 10) */
	add(&e, 0, 1, "[", 2);
	add(&e, 7, 10, "]", 2);
	expect(&e, "0123456789AB", "[123456]AB", 1, 1);
	ck_assert(!e.items[0].applied); /* [2,3) alone would fit: not applied */
	ck_assert(!e.items[1].applied);
	ck_assert(e.items[2].applied);
	ck_assert(e.items[3].applied);

	/* a group's order is its first-added edit, not its earliest one */
	mpsfix_edits_clear(&e);
	add(&e, 6, 7, "x", 1);
	add(&e, 0, 2, "y", 1); /* group 1 sorts at 6 */
	add(&e, 1, 6, "z", 2); /* group 2 sorts at 1: first, so group 1 waits */
	expect(&e, "0123456789", "0z6789", 1, 1);
	mpsfix_edits_release(&e);
}
END_TEST

START_TEST(test_edit_insertions)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;

	add(&e, 1, 1, "X", 1);
	add(&e, 1, 1, "Y", 2); /* same offset: both, in group order */
	add(&e, 1, 2, "B", 3); /* replacement starting there: after them */
	add(&e, 2, 2, "Z", 4); /* at its end: fine */
	add(&e, 0, 0, "^", 5);
	add(&e, 3, 3, "$", 6); /* at the very end */
	expect(&e, "abc", "^aXYBZc$", 6, 0);

	/* an insertion inside a replacement overlaps it */
	mpsfix_edits_clear(&e);
	add(&e, 0, 4, "R", 1);
	add(&e, 2, 2, "I", 2);
	expect(&e, "0123", "R", 1, 1);
	ck_assert(!e.items[1].applied);

	/* replacement text with a NUL byte: `len` counts */
	mpsfix_edits_clear(&e);
	mpsfix_edits_add(&e, 1, 2, "\0z", 2, 1);
	mpsfix_buf out = MPSFIX_BUF_INIT;
	ck_assert_int_eq(mpsfix_edits_apply(&out, &e, "abc", 3, NULL, NULL), 0);
	ck_assert_uint_eq(out.len, 4);
	ck_assert_mem_eq(out.data, "a\0zc", 4);
	ck_assert_int_eq(e.items[0].text[2], '\0');
	mpsfix_buf_release(&out);
	mpsfix_edits_release(&e);
}
END_TEST

START_TEST(test_edit_out_of_range)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;
	mpsfix_buf out = MPSFIX_BUF_INIT;

	mpsfix_buf_adds(&out, "kept");
	add(&e, 0, 1, "ok", 1);
	add(&e, 3, 10, "x", 2);
	ck_assert_int_eq(mpsfix_edits_apply(&out, &e, "01234", 5, NULL, NULL), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "edit [3, 10) lies outside the text (5 bytes)");
	ck_assert_str_eq(out.data, "kept");
	ck_assert(!e.items[0].applied);

	mpsfix_edits_clear(&e);
	add(&e, 4, 2, "x", 1); /* start after end */
	ck_assert_int_eq(mpsfix_edits_apply(&out, &e, "01234", 5, NULL, NULL), MPSFIX_ERROR);

	/* the edits of one fix overlapping each other is a bug, not a conflict */
	mpsfix_edits_clear(&e);
	add(&e, 0, 3, "x", 1);
	add(&e, 2, 4, "y", 1);
	ck_assert_int_eq(mpsfix_edits_apply(&out, &e, "01234", 5, NULL, NULL), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "of one fix overlap"));
	ck_assert_str_eq(out.data, "kept");
	mpsfix_buf_release(&out);
	mpsfix_edits_release(&e);
}
END_TEST

START_TEST(test_edit_many)
{
	mpsfix_edits e = MPSFIX_EDITS_INIT;
	mpsfix_buf src = MPSFIX_BUF_INIT, want = MPSFIX_BUF_INIT, out = MPSFIX_BUF_INIT;
	size_t a, d;

	/* 2000 words; replace every word (added backwards) and insert around
	 * every 10th (insertions at the edges), plus conflicting wide edits */
	for (uint32_t i = 0; i < 2000; i++)
		mpsfix_buf_adds(&src, "abcd ");
	for (uint32_t i = 2000; i-- > 0;)
		add(&e, i * 5, i * 5 + 4, "W", i);
	for (uint32_t i = 0; i < 2000; i += 10) {
		add(&e, i * 5, i * 5, "<", 10000 + i);
		add(&e, i * 5 + 4, i * 5 + 4, ">", 10000 + i);
		add(&e, i * 5 + 2, i * 5 + 7, "conflict", 20000 + i);
	}
	for (uint32_t i = 0; i < 2000; i++)
		mpsfix_buf_adds(&want, i % 10 ? "W " : "<W> ");
	ck_assert_int_eq(mpsfix_edits_apply(&out, &e, src.data, src.len, &a, &d), 0);
	ck_assert_uint_eq(a, 2000 + 200);
	ck_assert_uint_eq(d, 200);
	ck_assert_uint_eq(out.len, want.len);
	ck_assert_str_eq(out.data, want.data);
	mpsfix_buf_release(&src);
	mpsfix_buf_release(&want);
	mpsfix_buf_release(&out);
	mpsfix_edits_release(&e);
}
END_TEST

Suite *mpsfix_suite_edit(void)
{
	Suite *s = suite_create("edit");
	TCase *tc = tcase_create("edit");

	tcase_add_test(tc, test_edit_non_overlapping);
	tcase_add_test(tc, test_edit_empty_list);
	tcase_add_test(tc, test_edit_outer_wins);
	tcase_add_test(tc, test_edit_partial_overlap_deferred);
	tcase_add_test(tc, test_edit_group_all_or_nothing);
	tcase_add_test(tc, test_edit_insertions);
	tcase_add_test(tc, test_edit_out_of_range);
	tcase_add_test(tc, test_edit_many);
	suite_add_tcase(s, tc);
	return s;
}
