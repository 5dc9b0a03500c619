/* check_common.c: error slot and buffers. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tests.h"

START_TEST(test_common_error_set_returns_code)
{
	ck_assert_int_eq(mpsfix_error_set(MPSFIX_ECONFLICT, "x %d", 42), MPSFIX_ECONFLICT);
	ck_assert_int_eq(mpsfix_error_last()->code, MPSFIX_ECONFLICT);
	ck_assert_str_eq(mpsfix_error_last()->message, "x 42");
	mpsfix_error_clear();
	ck_assert_str_eq(mpsfix_error_last()->message, "");
}
END_TEST

static void *other_thread(void *arg)
{
	(void)arg;
	mpsfix_error_set(MPSFIX_ERROR, "from the other thread");
	return NULL;
}

START_TEST(test_common_error_slot_is_per_thread)
{
	pthread_t t;

	mpsfix_error_set(MPSFIX_ERROR, "mine");
	ck_assert_int_eq(pthread_create(&t, NULL, other_thread, NULL), 0);
	pthread_join(t, NULL);
	ck_assert_str_eq(mpsfix_error_last()->message, "mine");
}
END_TEST

START_TEST(test_common_buf_grows_and_detaches)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	size_t len;
	char *s;

	for (int i = 0; i < 1000; i++)
		mpsfix_buf_printf(&b, "%d,", i % 10);
	ck_assert_uint_eq(b.len, 2000);
	mpsfix_buf_add(&b, "\0z", 2);
	ck_assert_uint_eq(b.len, 2002);
	s = mpsfix_buf_detach(&b, &len);
	ck_assert_uint_eq(len, 2002);
	ck_assert_int_eq(s[2001], 'z');
	ck_assert_ptr_null(b.data);
	free(s);
	s = mpsfix_buf_detach(&b, &len);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

Suite *mpsfix_suite_common(void)
{
	Suite *s = suite_create("common");
	TCase *tc = tcase_create("common");

	tcase_add_test(tc, test_common_error_set_returns_code);
	tcase_add_test(tc, test_common_error_slot_is_per_thread);
	tcase_add_test(tc, test_common_buf_grows_and_detaches);
	suite_add_tcase(s, tc);
	return s;
}
