/*
 * pool.h: worker threads over numbered items, results consumed in item order.
 *
 * mpsfix_pool_run() runs work(state, i) for items 0..nitems-1 on nthreads
 * threads, each with its own state (made by init on the calling thread before
 * any work starts), and hands every result to consume(i, result) on the
 * calling thread, strictly in item order, as soon as the next one is ready.
 * A worker takes item i only while i < (next item to consume) + window, so at
 * most `window` items are ever taken but not yet consumed: memory stays
 * bounded whatever the number of items.  With one thread no thread is
 * created: work and consume alternate on the calling thread.
 */
#ifndef MPSFIX_POOL_H
#define MPSFIX_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"

/** Threads at most (-j). */
#define MPSFIX_POOL_MAX_THREADS 256

typedef struct {
	size_t nthreads;  /* 1..MPSFIX_POOL_MAX_THREADS */
	size_t nitems;
	size_t window;    /* items taken but not consumed, at most; 0: 4 x nthreads */
	void *payload;    /* passed to every callback */
	/* Per-thread state, made on the calling thread (thread k of nthreads);
	 * a failure (negative, error slot set) ends the run before any work. */
	int (*init)(void *payload, size_t k, void **state);
	void (*release)(void *payload, void *state);
	/* On a worker thread: item i's result (NULL is a result too). */
	void *(*work)(void *payload, void *state, size_t i);
	/* On the calling thread, in item order: takes the result. */
	void (*consume)(void *payload, size_t i, void *result);
	/* When not NULL: item i weighs weight(i) (called under the pool's lock:
	 * cheap), and items being worked on weigh at most max_weight together,
	 * except that an item is always taken when no other is being worked on
	 * (a file's parse tree is about 40 times its size: the weight bounds the
	 * trees in memory at once, whatever -j). */
	size_t (*weight)(void *payload, size_t i);
	size_t max_weight;
	/* On the calling thread, before each wait: true stops handing out items;
	 * items already taken finish and are consumed.  NULL: never stop. */
	bool (*should_stop)(void *payload);
} mpsfix_pool_opts;

/**
 * Run the pool.  `*consumed` (may be NULL) is the number of items consumed:
 * nitems unless should_stop stopped the run.  Returns 0, or MPSFIX_ERROR when
 * init or starting a thread failed (no item consumed then).
 */
int mpsfix_pool_run(const mpsfix_pool_opts *opts, size_t *consumed);

/** The number of online processors (at least 1, at most MPSFIX_POOL_MAX_THREADS). */
size_t mpsfix_pool_cpus(void);

/**
 * Parse a thread count (-j N, MPSFIX_JOBS): an integer 1..MPSFIX_POOL_MAX_THREADS.
 * `what` names the source in the error message.
 */
int mpsfix_pool_parse_jobs(size_t *out, const char *text, const char *what);

#endif
