/*
 * check_json_scan.c: JSON validated as bytes (util/json_scan.c), against
 * what jansson accepts, and the walk over a valid text.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "tests.h"

/* mpsfix_json_valid's verdict on `s`, checked against jansson's */
static bool valid(const char *s)
{
	size_t at = 0, len = strlen(s);
	const char *why = NULL;
	bool ok = mpsfix_json_valid(s, len, &at, &why);
	json_t *j = json_loadb(s, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);

	ck_assert_msg(ok == (j != NULL), "%s: mpsfix %d, jansson %d", s, ok, j != NULL);
	ck_assert(ok || (why && at <= len));
	json_decref(j);
	return ok;
}

START_TEST(test_json_valid)
{
	static const char *const good[] = {
		"{}", " [ ] ", "0", "-0", "-0.5e+10", "1E5", "12.25", "true", "false", "null",
		"\"\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
		"{\"a\": [1, {\"b\": null}], \"c\": \"d\"}\n", "[[[[]]]]", "{\"a\":{\"a\":{}}}",
	};
	static const char *const bad[] = {
		"", " ", "{", "[1,]", "{\"a\":}", "{\"a\" 1}", "{1: 2}", "01", "1.", ".5", "-", "1e",
		"+1", "tru", "nul", "\"a", "\"\\x\"", "\"\\u12\"", "\"\t\"", "[1 2]", "{} {}", "{,}",
		"\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "[}", "{]", "'a'",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(good); i++)
		ck_assert_msg(valid(good[i]), "%s", good[i]);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(bad); i++)
		ck_assert_msg(!valid(bad[i]), "%s", bad[i]);
}
END_TEST

/* nesting is bounded only by the length (no recursion): a million levels */
START_TEST(test_json_deep)
{
	size_t n = 1000000, at;
	char *s = malloc(2 * n + 1);
	const char *why;

	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = '\0';
	ck_assert(mpsfix_json_valid(s, 2 * n, &at, &why));
	ck_assert(!mpsfix_json_valid(s, 2 * n - 1, &at, &why));
	ck_assert_uint_eq(at, 2 * n - 1);
	free(s);
}
END_TEST

START_TEST(test_json_walk)
{
	const char *s = " {\"k\\\"ey\" : [1, \"a]\\\\\", {\"x\": \"}\"}] , \"n\": -1.5e3}";
	mpsfix_json_walk w = {s, strlen(s), 0};
	size_t ks, ke, vs;

	ck_assert(mpsfix_json_take(&w, '{'));
	mpsfix_json_key(&w, &ks, &ke);
	ck_assert_uint_eq(ke - ks, 5); /* k\"ey as written */
	mpsfix_json_skip(&w, &vs);
	ck_assert_int_eq(s[vs], '[');
	ck_assert_int_eq(s[w.i - 1], ']');
	ck_assert(mpsfix_json_take(&w, ','));
	mpsfix_json_key(&w, &ks, &ke);
	ck_assert(!memcmp(s + ks, "n", ke - ks));
	mpsfix_json_skip(&w, &vs);
	ck_assert(!memcmp(s + vs, "-1.5e3", w.i - vs));
	ck_assert(!mpsfix_json_take(&w, ','));
	ck_assert(mpsfix_json_take(&w, '}'));
	ck_assert_uint_eq(w.i, strlen(s));
}
END_TEST

Suite *mpsfix_suite_json_scan(void)
{
	Suite *s = suite_create("json_scan");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_json_valid);
	tcase_add_test(tc, test_json_deep);
	tcase_add_test(tc, test_json_walk);
	suite_add_tcase(s, tc);
	return s;
}
