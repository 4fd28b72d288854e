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

static void *run_job(void *p)
{
	struct job *j = p;

	j->ret = j->fn(j->arg, j->part, j->nparts, j->begin, j->end);
	return NULL;
}

int cr_parallel(uint32_t n, unsigned nparts, cr_range_fn fn, void *arg)
{
	struct job jobs[CR_MAX_THREADS];
	pthread_t tid[CR_MAX_THREADS];
	bool started[CR_MAX_THREADS] = {false};
	int ret = 0;

	if (nparts < 1)
		nparts = 1;
	if (nparts > CR_MAX_THREADS)
		nparts = CR_MAX_THREADS;
	if (nparts == 1)
		return fn(arg, 0, 1, 0, n);
	for (unsigned i = 0; i < nparts; i++) {
		jobs[i] = (struct job){
			.fn = fn,
			.arg = arg,
			.part = i,
			.nparts = nparts,
			.begin = (uint32_t)((uint64_t)n * i / nparts),
			.end = (uint32_t)((uint64_t)n * (i + 1) / nparts),
		};
	}
	for (unsigned i = 1; i < nparts; i++)
		started[i] = !pthread_create(&tid[i], NULL, run_job, &jobs[i]);
	run_job(&jobs[0]);
	for (unsigned i = 1; i < nparts; i++) {
		if (started[i]) {
			pthread_join(tid[i], NULL);
		} else {
			/* No thread (limits): the work is done here. */
			run_job(&jobs[i]);
		}
	}
	for (unsigned i = 0; i < nparts && !ret; i++)
		ret = jobs[i].ret;
	return ret;
}
