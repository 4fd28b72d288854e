// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A minimal parallel-for over pthreads: no pool, threads are started per
 * call (a few per routing run, microseconds each against loops of
 * seconds). Ranges are contiguous and fixed by the caller's part count,
 * never by timing, so results do not depend on scheduling.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <croute/parallel.h>

static unsigned threads; /* 0: not set, use the default */

unsigned cr_threads_default(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > 8 ? 8 : (unsigned)n;
}

void cr_threads_set(unsigned n)
{
	if (n > CR_MAX_THREADS)
		n = CR_MAX_THREADS;
	__atomic_store_n(&threads, n, __ATOMIC_RELAXED);
}

unsigned cr_threads_get(void)
{
	unsigned n = __atomic_load_n(&threads, __ATOMIC_RELAXED);

	return n ? n : cr_threads_default();
}

unsigned cr_parallel_parts(uint32_t n, uint32_t min_per_part)
{
	unsigned t = cr_threads_get();

	if (!min_per_part)
		min_per_part = 1;
	if (n / min_per_part < t)
		t = n / min_per_part;
	return t ? t : 1;
}

struct job {
	cr_range_fn fn;
	void *arg;
	unsigned part, nparts;
	uint32_t begin, end;
	int ret;
};

/*
 * One call's ranges, shared by the caller and its threads. Each range is
 * claimed once, by whichever thread gets to it first: on a busy machine a
 * thread that is not scheduled yet leaves its range to the caller instead
 * of making it wait (a range is still the same range, and parts run
 * concurrently anyway, so results are unchanged). A thread that starts
 * after the last claim touches only this block, which the last of its
 * users frees: the caller does not wait for it.
 */
struct ctl {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned next; /* the next range to claim (atomic) */
	unsigned done; /* ranges finished (mu) */
	unsigned refs; /* the caller and its threads still running (mu) */
	unsigned nparts;
	struct job jobs[CR_MAX_THREADS];
};

static void ctl_put(struct ctl *c)
{
	bool last;

	pthread_mutex_lock(&c->mu);
	last = !--c->refs;
	pthread_mutex_unlock(&c->mu);
	if (last) {
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
		free(c);
	}
}

/* Runs ranges until none is left to claim. */
static void claim_all(struct ctl *c)
{
	for (;;) {
		unsigned k = __atomic_fetch_add(&c->next, 1, __ATOMIC_ACQ_REL);
		struct job *j;

		if (k >= c->nparts)
			return;
		j = &c->jobs[k];
		j->ret = j->fn(j->arg, j->part, j->nparts, j->begin, j->end);
		pthread_mutex_lock(&c->mu);
		if (++c->done == c->nparts)
			pthread_cond_signal(&c->cv);
		pthread_mutex_unlock(&c->mu);
	}
}

static void *worker(void *p)
{
	claim_all(p);
	ctl_put(p);
	return NULL;
}

int cr_parallel(uint32_t n, unsigned nparts, cr_range_fn fn, void *arg)
{
	pthread_attr_t attr;
	struct ctl *c;
	int ret = 0;

	if (nparts < 1)
		nparts = 1;
	if (nparts > CR_MAX_THREADS)
		nparts = CR_MAX_THREADS;
	if (nparts == 1)
		return fn(arg, 0, 1, 0, n);
	c = calloc(1, sizeof(*c));
	if (!c || pthread_mutex_init(&c->mu, NULL)) {
		free(c);
		c = NULL;
	} else if (pthread_cond_init(&c->cv, NULL)) {
		pthread_mutex_destroy(&c->mu);
		free(c);
		c = NULL;
	}
	if (!c) {
		/* No memory for the block: every range here, in order. */
		for (unsigned i = 0; i < nparts && !ret; i++)
			ret = fn(arg, i, nparts,
				 (uint32_t)((uint64_t)n * i / nparts),
				 (uint32_t)((uint64_t)n * (i + 1) / nparts));
		return ret;
	}
	c->nparts = nparts;
	c->refs = 1;
	for (unsigned i = 0; i < nparts; i++) {
		c->jobs[i] = (struct job){
			.fn = fn,
			.arg = arg,
			.part = i,
			.nparts = nparts,
			.begin = (uint32_t)((uint64_t)n * i / nparts),
			.end = (uint32_t)((uint64_t)n * (i + 1) / nparts),
		};
	}
	if (!pthread_attr_init(&attr)) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		for (unsigned i = 1; i < nparts; i++) {
			pthread_t tid;

			pthread_mutex_lock(&c->mu);
			c->refs++;
			pthread_mutex_unlock(&c->mu);
			/* No thread (limits): its range is done here. */
			if (pthread_create(&tid, &attr, worker, c)) {
				pthread_mutex_lock(&c->mu);
				c->refs--;
				pthread_mutex_unlock(&c->mu);
			}
		}
		pthread_attr_destroy(&attr);
	}
	claim_all(c);
	pthread_mutex_lock(&c->mu);
	while (c->done < nparts)
		pthread_cond_wait(&c->cv, &c->mu);
	for (unsigned i = 0; i < nparts && !ret; i++)
		ret = c->jobs[i].ret;
	pthread_mutex_unlock(&c->mu);
	ctl_put(c);
	return ret;
}
