/* check_pool.c: worker threads, results consumed in item order, a bounded window. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pool.h"
#include "tests.h"

/* usleep() is gone from POSIX 2008 */
static void sleep_us(long us)
{
	struct timespec t = {us / 1000000, (us % 1000000) * 1000};

	nanosleep(&t, NULL);
}

typedef struct {
	size_t nitems;
	size_t *consumed_order;  /* item numbers as consumed */
	size_t nconsumed;
	int *done_by;            /* which thread's state did item i */
	bool random_delay;
	/* the window: taken but not consumed, and its high-water mark */
	pthread_mutex_t lock;
	size_t taken, outstanding, max_outstanding;
	/* weights (item_weight): of the items being worked on, how many they are,
	 * and how often they weighed more than max_weight while not alone */
	size_t weight_now, busy_now, max_busy, max_weight, over;
	size_t stop_after;       /* should_stop once this many are consumed (0: never) */
	size_t fail_init_at;     /* init of thread k fails (SIZE_MAX: none) */
	size_t inits, releases;
	unsigned seed;
} fixture;

static void fixture_init(fixture *f, size_t nitems)
{
	memset(f, 0, sizeof(*f));
	f->nitems = nitems;
	f->consumed_order = calloc(nitems + 1, sizeof(size_t));
	f->done_by = calloc(nitems + 1, sizeof(int));
	pthread_mutex_init(&f->lock, NULL);
	f->fail_init_at = SIZE_MAX;
	f->seed = 12345;
}

static void fixture_release(fixture *f)
{
	free(f->consumed_order);
	free(f->done_by);
	pthread_mutex_destroy(&f->lock);
}

typedef struct {
	int id;
	unsigned seed;
} thread_state;

static int init(void *payload, size_t k, void **state)
{
	fixture *f = payload;
	thread_state *ts;

	if (k == f->fail_init_at)
		return mpsfix_error_set(MPSFIX_ERROR, "init %zu failed", k);
	ts = calloc(1, sizeof(*ts));
	ts->id = (int)k + 1;
	ts->seed = f->seed + (unsigned)k * 7919;
	f->inits++; /* init and release run on the calling thread */
	*state = ts;
	return 0;
}

static void release(void *payload, void *state)
{
	fixture *f = payload;

	f->releases++;
	free(state);
}

/* Item weights 1 to 10, one in 25 weighing 50 (more than any bound below). */
static size_t item_weight(void *payload, size_t i)
{
	(void)payload;
	return i % 25 == 7 ? 50 : i * 7 % 10 + 1;
}

static void *work(void *payload, void *state, size_t i)
{
	fixture *f = payload;
	thread_state *ts = state;
	size_t *result = malloc(sizeof(*result));

	pthread_mutex_lock(&f->lock);
	f->taken++;
	if (++f->outstanding > f->max_outstanding)
		f->max_outstanding = f->outstanding;
	f->weight_now += item_weight(f, i);
	if (++f->busy_now > f->max_busy)
		f->max_busy = f->busy_now;
	if (f->max_weight && f->weight_now > f->max_weight && f->busy_now > 1)
		f->over++;
	pthread_mutex_unlock(&f->lock);
	if (f->random_delay)
		sleep_us(rand_r(&ts->seed) % 2000);
	pthread_mutex_lock(&f->lock);
	f->weight_now -= item_weight(f, i);
	f->busy_now--;
	pthread_mutex_unlock(&f->lock);
	f->done_by[i] = ts->id;
	*result = i * 3 + 1;
	return result;
}

static void consume(void *payload, size_t i, void *result)
{
	fixture *f = payload;
	size_t *r = result;

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(*r, i * 3 + 1);
	free(r);
	pthread_mutex_lock(&f->lock);
	f->outstanding--;
	pthread_mutex_unlock(&f->lock);
	f->consumed_order[f->nconsumed++] = i;
}

static bool should_stop(void *payload)
{
	fixture *f = payload;

	return f->stop_after && f->nconsumed >= f->stop_after;
}

static mpsfix_pool_opts opts_for(fixture *f, size_t nthreads)
{
	return (mpsfix_pool_opts){
		.nthreads = nthreads, .nitems = f->nitems, .payload = f,
		.init = init, .release = release, .work = work, .consume = consume,
		.should_stop = should_stop,
	};
}

static void assert_in_order(const fixture *f, size_t n)
{
	ck_assert_uint_eq(f->nconsumed, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(f->consumed_order[i], i);
}

START_TEST(test_pool_order_under_random_delays)
{
	fixture f;
	mpsfix_pool_opts o;
	size_t consumed = 0;
	bool several = false;

	fixture_init(&f, 400);
	f.random_delay = true;
	o = opts_for(&f, 6);
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), 0);
	ck_assert_uint_eq(consumed, 400);
	assert_in_order(&f, 400);
	/* the work was shared: more than one thread did some */
	for (size_t i = 1; i < 400; i++)
		several |= f.done_by[i] != f.done_by[0];
	ck_assert(several);
	ck_assert_uint_eq(f.inits, 6);
	ck_assert_uint_eq(f.releases, 6);
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_one_thread_runs_inline)
{
	fixture f;
	mpsfix_pool_opts o;
	size_t consumed = 0;

	fixture_init(&f, 50);
	o = opts_for(&f, 1);
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), 0);
	ck_assert_uint_eq(consumed, 50);
	assert_in_order(&f, 50);
	/* work and consume alternate: never two outstanding */
	ck_assert_uint_eq(f.max_outstanding, 1);
	ck_assert_uint_eq(f.inits, 1);
	ck_assert_uint_eq(f.releases, 1);
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_more_threads_than_items)
{
	fixture f;
	mpsfix_pool_opts o;
	size_t consumed = 0;

	fixture_init(&f, 3);
	f.random_delay = true;
	o = opts_for(&f, 16);
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), 0);
	ck_assert_uint_eq(consumed, 3);
	assert_in_order(&f, 3);
	/* no idle threads: one per item */
	ck_assert_uint_eq(f.inits, 3);
	ck_assert_uint_eq(f.releases, 3);
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_zero_items)
{
	fixture f;
	mpsfix_pool_opts o;
	size_t consumed = 99;

	fixture_init(&f, 0);
	o = opts_for(&f, 4);
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), 0);
	ck_assert_uint_eq(consumed, 0);
	ck_assert_uint_eq(f.nconsumed, 0);
	ck_assert_uint_eq(f.taken, 0);
	ck_assert_uint_eq(f.inits, f.releases);
	fixture_release(&f);
}
END_TEST

/* A consumer slower than the workers: they may not run further ahead than the window. */
static void slow_consume(void *payload, size_t i, void *result)
{
	sleep_us(300);
	consume(payload, i, result);
}

START_TEST(test_pool_window_is_bounded)
{
	fixture f;
	mpsfix_pool_opts o;

	fixture_init(&f, 300);
	o = opts_for(&f, 4);
	o.consume = slow_consume;
	ck_assert_int_eq(mpsfix_pool_run(&o, NULL), 0);
	assert_in_order(&f, 300);
	/* 4 x 4 by default; the workers did run ahead of the consumer (they are
	 * much faster), further than one item each */
	ck_assert_uint_le(f.max_outstanding, 16);
	ck_assert_uint_gt(f.max_outstanding, 4);
	fixture_release(&f);

	fixture_init(&f, 200);
	o = opts_for(&f, 3);
	o.consume = slow_consume;
	o.window = 5;
	ck_assert_int_eq(mpsfix_pool_run(&o, NULL), 0);
	assert_in_order(&f, 200);
	ck_assert_uint_le(f.max_outstanding, 5);
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_weights_bound_the_work_at_once)
{
	fixture f;
	mpsfix_pool_opts o;
	size_t consumed = 0;

	/* without weights the same items do go over 12 together */
	fixture_init(&f, 300);
	f.random_delay = true;
	f.max_weight = 12;
	o = opts_for(&f, 4);
	ck_assert_int_eq(mpsfix_pool_run(&o, NULL), 0);
	ck_assert_uint_gt(f.over, 0);
	fixture_release(&f);

	/* with them: never over 12 together; a heavier item (50) alone */
	fixture_init(&f, 300);
	f.random_delay = true;
	f.max_weight = 12;
	o = opts_for(&f, 4);
	o.weight = item_weight;
	o.max_weight = 12;
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), 0);
	ck_assert_uint_eq(consumed, 300);
	assert_in_order(&f, 300);
	ck_assert_uint_eq(f.over, 0);
	ck_assert_uint_gt(f.max_busy, 1); /* light items still overlap */
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_stop_consumes_what_was_taken)
{
	fixture f;
	mpsfix_pool_opts o;
	size_t consumed = 0;

	fixture_init(&f, 1000);
	f.random_delay = true;
	f.stop_after = 20;
	o = opts_for(&f, 4);
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), 0);
	/* no new item after the stop; every item taken was consumed, in order */
	ck_assert_uint_ge(consumed, 20);
	ck_assert_uint_le(consumed, 20 + 16);
	ck_assert_uint_eq(consumed, f.taken);
	ck_assert_uint_eq(f.outstanding, 0);
	assert_in_order(&f, consumed);
	fixture_release(&f);

	/* one thread: stops between items */
	fixture_init(&f, 100);
	f.stop_after = 7;
	o = opts_for(&f, 1);
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), 0);
	ck_assert_uint_eq(consumed, 7);
	ck_assert_uint_eq(f.taken, 7);
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_init_failure_runs_nothing)
{
	fixture f;
	mpsfix_pool_opts o;
	size_t consumed = 99;

	fixture_init(&f, 50);
	f.fail_init_at = 2;
	o = opts_for(&f, 4);
	ck_assert_int_eq(mpsfix_pool_run(&o, &consumed), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "init 2 failed");
	ck_assert_uint_eq(consumed, 0);
	ck_assert_uint_eq(f.taken, 0);
	/* the states made were released */
	ck_assert_uint_eq(f.inits, 2);
	ck_assert_uint_eq(f.releases, 2);
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_bad_thread_count)
{
	fixture f;
	mpsfix_pool_opts o;

	fixture_init(&f, 5);
	o = opts_for(&f, 0);
	ck_assert_int_eq(mpsfix_pool_run(&o, NULL), MPSFIX_ERROR);
	o.nthreads = MPSFIX_POOL_MAX_THREADS + 1;
	ck_assert_int_eq(mpsfix_pool_run(&o, NULL), MPSFIX_ERROR);
	ck_assert_uint_eq(f.taken, 0);
	fixture_release(&f);
}
END_TEST

START_TEST(test_pool_parse_jobs)
{
	size_t n = 0;

	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "1", "-j"), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "8", "-j"), 0);
	ck_assert_uint_eq(n, 8);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "256", "-j"), 0);
	ck_assert_uint_eq(n, 256);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "0", "-j"), MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message,
			 "invalid value '0' for -j (give a number of threads from 1 to 256)");
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "257", "-j"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "-2", "-j"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "+2", "-j"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, " 2", "-j"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "2x", "-j"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "", "MPSFIX_JOBS"), MPSFIX_ERROR);
	ck_assert_int_eq(mpsfix_pool_parse_jobs(&n, "99999999999999999999999", "-j"), MPSFIX_ERROR);
	ck_assert_uint_eq(n, 256);
	ck_assert_uint_ge(mpsfix_pool_cpus(), 1);
}
END_TEST

Suite *mpsfix_suite_pool(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pool");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pool_order_under_random_delays);
	tcase_add_test(tc, test_pool_one_thread_runs_inline);
	tcase_add_test(tc, test_pool_more_threads_than_items);
	tcase_add_test(tc, test_pool_zero_items);
	tcase_add_test(tc, test_pool_window_is_bounded);
	tcase_add_test(tc, test_pool_weights_bound_the_work_at_once);
	tcase_add_test(tc, test_pool_stop_consumes_what_was_taken);
	tcase_add_test(tc, test_pool_init_failure_runs_nothing);
	tcase_add_test(tc, test_pool_bad_thread_count);
	tcase_add_test(tc, test_pool_parse_jobs);
	suite_add_tcase(s, tc);
	return s;
}
