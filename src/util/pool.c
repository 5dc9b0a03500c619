/*
 * pool.c: worker threads over numbered items, results consumed in order.
 *
 * Who owns what: the pool's counters and the ring of result slots belong to
 * the mutex.  A worker takes the next item number under it, works without it
 * (on its own state), then stores the result in slot i % window.  The calling
 * thread alone consumes, in item order, and alone calls should_stop (SIGINT
 * and SIGTERM are blocked in the workers, so their handler runs on the
 * calling thread and the flag it sets is read by that thread only).
 */
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	void *result;
	bool ready;
} slot;

typedef struct {
	const mpsfix_pool_opts *opts;
	size_t window;
	pthread_mutex_t lock;
	pthread_cond_t space;    /* workers wait: go, room in the window, stop */
	pthread_cond_t ready;    /* the calling thread waits: a result, a worker gone */
	slot *slots;             /* window of them: item i in slots[i % window] */
	size_t handed;           /* items taken by workers */
	size_t next;             /* the next item to consume */
	size_t live;             /* workers not yet finished */
	size_t busy, busy_weight; /* items being worked on, and their weight */
	bool go, stop, abort;
} pool;

typedef struct {
	pool *p;
	void *state;
	pthread_t thread;
} worker;

/* May the next item be taken now, as far as weights go? */
static bool fits(const pool *p)
{
	const mpsfix_pool_opts *o = p->opts;

	return !o->weight || p->busy == 0 ||
	       p->busy_weight + o->weight(o->payload, p->handed) <= o->max_weight;
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	pool *p = w->p;
	const mpsfix_pool_opts *o = p->opts;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t i, weight;
		void *result;

		while (!p->abort && !p->stop && p->handed < o->nitems &&
		       (!p->go || p->handed >= p->next + p->window || !fits(p)))
			pthread_cond_wait(&p->space, &p->lock);
		if (p->abort || p->stop || p->handed >= o->nitems)
			break;
		i = p->handed++;
		weight = o->weight ? o->weight(o->payload, i) : 0;
		p->busy++;
		p->busy_weight += weight;
		pthread_mutex_unlock(&p->lock);
		result = o->work(o->payload, w->state, i);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		p->busy_weight -= weight;
		if (o->weight)
			pthread_cond_broadcast(&p->space); /* a heavy item may fit now */
		p->slots[i % p->window].result = result;
		p->slots[i % p->window].ready = true;
		if (i == p->next)
			pthread_cond_signal(&p->ready);
	}
	p->live--;
	pthread_cond_signal(&p->ready);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* One thread: work and consume alternate, as a plain loop would. */
static size_t run_inline(const mpsfix_pool_opts *o, void *state)
{
	size_t i;

	for (i = 0; i < o->nitems; i++) {
		if (o->should_stop && o->should_stop(o->payload))
			break;
		o->consume(o->payload, i, o->work(o->payload, state, i));
	}
	return i;
}

/* Wait for `cond` at most 50 ms: should_stop is asked again after that. */
static void wait_a_little(pthread_cond_t *cond, pthread_mutex_t *lock)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 50 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(cond, lock, &ts);
}

/* The calling thread: consume results in item order until every worker is gone. */
static void consume_in_order(pool *p)
{
	const mpsfix_pool_opts *o = p->opts;

	pthread_mutex_lock(&p->lock);
	while (p->next < o->nitems) {
		slot *s = &p->slots[p->next % p->window];

		if (!p->stop && o->should_stop && o->should_stop(o->payload)) {
			p->stop = true;
			pthread_cond_broadcast(&p->space);
		}
		if (s->ready) {
			void *result = s->result;

			s->ready = false;
			s->result = NULL;
			pthread_mutex_unlock(&p->lock);
			o->consume(o->payload, p->next, result);
			pthread_mutex_lock(&p->lock);
			/* the window moves once the result is consumed (and freed) */
			p->next++;
			pthread_cond_broadcast(&p->space);
			continue;
		}
		if (p->live == 0)
			break; /* stopped: every item taken has been consumed */
		wait_a_little(&p->ready, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
}

int mpsfix_pool_run(const mpsfix_pool_opts *o, size_t *consumed)
{
	pool p = {.opts = o};
	worker *w = NULL;
	size_t n = o->nthreads, made = 0, started = 0;
	sigset_t async, old;
	int error = 0, rc;

	if (consumed)
		*consumed = 0;
	if (n < 1 || n > MPSFIX_POOL_MAX_THREADS)
		return mpsfix_error_set(MPSFIX_ERROR, "%zu threads: give 1 to %d", n,
					MPSFIX_POOL_MAX_THREADS);
	if (n > o->nitems && o->nitems > 0)
		n = o->nitems; /* no idle threads */
	w = mpsfix_xcalloc(n, sizeof(*w));
	for (made = 0; made < n; made++) {
		w[made].p = &p;
		if (o->init && (error = o->init(o->payload, made, &w[made].state)) < 0)
			goto done;
	}
	if (o->nitems == 0)
		goto done;
	if (n == 1) {
		size_t k = run_inline(o, w[0].state);

		if (consumed)
			*consumed = k;
		goto done;
	}

	p.window = o->window ? o->window : 4 * n;
	p.slots = mpsfix_xcalloc(p.window, sizeof(slot));
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.space, NULL);
	pthread_cond_init(&p.ready, NULL);

	/* SIGINT and SIGTERM go to the calling thread: the workers inherit a mask
	 * that blocks them (faults such as SIGSEGV stay with the faulting thread) */
	sigemptyset(&async);
	sigaddset(&async, SIGINT);
	sigaddset(&async, SIGTERM);
	sigaddset(&async, SIGHUP);
	sigaddset(&async, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &async, &old);
	for (started = 0; started < n; started++) {
		if ((rc = pthread_create(&w[started].thread, NULL, worker_main, &w[started])) != 0) {
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot start worker thread %zu of %zu: %s",
						 started + 1, n, strerror(rc));
			break;
		}
		pthread_mutex_lock(&p.lock);
		p.live++;
		pthread_mutex_unlock(&p.lock);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	pthread_mutex_lock(&p.lock);
	if (error < 0)
		p.abort = true;
	else
		p.go = true;
	pthread_cond_broadcast(&p.space);
	pthread_mutex_unlock(&p.lock);
	if (error == 0)
		consume_in_order(&p);
	for (size_t k = 0; k < started; k++)
		pthread_join(w[k].thread, NULL);
	if (consumed)
		*consumed = p.next;
	pthread_cond_destroy(&p.ready);
	pthread_cond_destroy(&p.space);
	pthread_mutex_destroy(&p.lock);
	free(p.slots);
done:
	for (size_t k = 0; k < made; k++)
		if (o->release)
			o->release(o->payload, w[k].state);
	free(w);
	return error;
}

size_t mpsfix_pool_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > MPSFIX_POOL_MAX_THREADS ? MPSFIX_POOL_MAX_THREADS : (size_t)n;
}

int mpsfix_pool_parse_jobs(size_t *out, const char *text, const char *what)
{
	unsigned long n;
	char *end;

	if (!text || text[0] < '0' || text[0] > '9')
		goto bad;
	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || *end || n < 1 || n > MPSFIX_POOL_MAX_THREADS)
		goto bad;
	*out = n;
	return 0;
bad:
	return mpsfix_error_set(MPSFIX_ERROR, "invalid value '%s' for %s (give a number of "
				"threads from 1 to %d)", text ? text : "", what, MPSFIX_POOL_MAX_THREADS);
}
