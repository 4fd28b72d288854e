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
 * of making it wait for the range (a range is still the same range, and
 * parts run concurrently anyway, so results are unchanged). The caller
 * still joins every thread it started: none outlives the call, so none
 * can run in the plugin after OpenSM unloads it.
 */
struct ctl {
	unsigned next; /* the next range to claim (atomic) */
	unsigned nparts;
	struct job jobs[CR_MAX_THREADS];
};

/* Runs ranges until none is left to claim. */
static void *claim_all(void *p)
{
	struct ctl *c = p;

	for (;;) {
		unsigned k = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);
		struct job *j;

		if (k >= c->nparts)
			return NULL;
		j = &c->jobs[k];
		j->ret = j->fn(j->arg, j->part, j->nparts, j->begin, j->end);
	}
}

int cr_parallel(uint32_t n, unsigned nparts, cr_range_fn fn, void *arg)
{
	pthread_t tid[CR_MAX_THREADS];
	bool started[CR_MAX_THREADS] = {false};
	struct ctl c;
	int ret = 0;

	if (nparts < 1)
		nparts = 1;
	if (nparts > CR_MAX_THREADS)
		nparts = CR_MAX_THREADS;
	if (nparts == 1)
		return fn(arg, 0, 1, 0, n);
	c.next = 0;
	c.nparts = nparts;
	for (unsigned i = 0; i < nparts; i++) {
		c.jobs[i] = (struct job){
			.fn = fn,
			.arg = arg,
			.part = i,
			.nparts = nparts,
			.begin = (uint32_t)((uint64_t)n * i / nparts),
			.end = (uint32_t)((uint64_t)n * (i + 1) / nparts),
		};
	}
	/* A thread that cannot be started leaves its range to the caller. */
	for (unsigned i = 1; i < nparts; i++)
		started[i] = !pthread_create(&tid[i], NULL, claim_all, &c);
	claim_all(&c);
	for (unsigned i = 1; i < nparts; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	for (unsigned i = 0; i < nparts && !ret; i++)
		ret = c.jobs[i].ret;
	return ret;
}
