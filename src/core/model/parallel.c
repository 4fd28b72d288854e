// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A minimal parallel-for over pthreads: no pool, threads are started per
 * call (a few per routing run, microseconds each against loops of
 * seconds). Ranges are contiguous and fixed by the caller's part count,
 * never by timing, so results do not depend on scheduling.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <croute/model/parallel.h>

static unsigned threads; /* 0: not set, use the default */

static unsigned threads_default(void)
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

	return n ? n : threads_default();
}

/* want ranges, fewer when n holds fewer than min_per_part each; >= 1. */
static unsigned ranges(uint32_t n, uint32_t min_per_part, unsigned want)
{
	if (!min_per_part)
		min_per_part = 1;
	if (n / min_per_part < want)
		want = n / min_per_part;
	return want ? want : 1;
}

unsigned cr_parallel_chunks(uint32_t n, uint32_t min_per_part)
{
	unsigned t = cr_threads_get(), c = t > 1 ? 4 * t : 1;

	return ranges(n, min_per_part, c < CR_MAX_THREADS ? c : CR_MAX_THREADS);
}

unsigned cr_parallel_parts(uint32_t n, uint32_t min_per_part)
{
	return ranges(n, min_per_part, cr_threads_get());
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
	unsigned nthreads = cr_threads_get();
	struct ctl c;
	int ret = 0;

	if (nparts < 1)
		nparts = 1;
	if (nparts > CR_MAX_THREADS)
		nparts = CR_MAX_THREADS;
	if (nthreads > nparts)
		nthreads = nparts;
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
	for (unsigned i = 1; i < nthreads; i++)
		started[i] = !pthread_create(&tid[i], NULL, claim_all, &c);
	claim_all(&c);
	for (unsigned i = 1; i < nthreads; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	for (unsigned i = 0; i < nparts && !ret; i++)
		ret = c.jobs[i].ret;
	return ret;
}

/* Runs the side job unless the other party has claimed it. */
static void *side_claim(void *p)
{
	struct cr_side *s = p;

	if (!__atomic_exchange_n(&s->claimed, 1, __ATOMIC_ACQ_REL))
		s->ret = s->fn(s->arg);
	return NULL;
}

void cr_side_start(struct cr_side *s, int (*fn)(void *arg), void *arg)
{
	*s = (struct cr_side){.fn = fn, .arg = arg};
	if (cr_threads_get() > 1)
		s->started = !pthread_create(&s->tid, NULL, side_claim, s);
}

int cr_side_join(struct cr_side *s)
{
	side_claim(s);
	if (s->started)
		pthread_join(s->tid, NULL);
	s->started = false;
	return s->ret;
}

/*
 * The team: one 64-bit ticket holds the round's epoch (high 32 bits), its
 * chunk count (bits 16-31) and the next chunk to claim (bits 0-15). A
 * member claims by compare-and-swap on the whole ticket, so a claim can
 * only succeed in the round it read, and reads the round's function only
 * after that: the caller changes them only when every chunk is done.
 */
#define TEAM_CHUNKS 0xffffu
#define TEAM_SPIN 2000

struct member {
	struct cr_team *t;
	unsigned id;
};

struct cr_team {
	unsigned size; /* members, the caller included */
	pthread_t tid[CR_MAX_THREADS];
	struct member members[CR_MAX_THREADS];
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint64_t ticket; /* atomic, see above */
	unsigned sleepers; /* atomic: members waiting on wake */
	unsigned done; /* atomic: chunks of the round finished */
	bool stop; /* atomic */
	/* The round: stable while any of its chunks is unfinished. */
	cr_chunk_fn fn;
	void *arg;
	unsigned base;
	unsigned err_chunk; /* under lock */
	int err;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static void team_claim(struct cr_team *t, unsigned worker)
{
	uint64_t k = __atomic_load_n(&t->ticket, __ATOMIC_ACQUIRE);

	for (;;) {
		unsigned n = (unsigned)(k >> 16) & TEAM_CHUNKS;
		unsigned i = (unsigned)k & TEAM_CHUNKS;
		int ret;

		if (i >= n)
			return;
		if (!__atomic_compare_exchange_n(&t->ticket, &k, k + 1, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		ret = t->fn(t->arg, worker, t->base + i);
		if (ret) {
			pthread_mutex_lock(&t->lock);
			if (t->base + i < t->err_chunk) {
				t->err_chunk = t->base + i;
				t->err = ret;
			}
			pthread_mutex_unlock(&t->lock);
		}
		__atomic_fetch_add(&t->done, 1, __ATOMIC_RELEASE);
		k = __atomic_load_n(&t->ticket, __ATOMIC_ACQUIRE);
	}
}

/* Waits for a round after epoch: spins a little, then sleeps. */
static uint32_t team_wait(struct cr_team *t, uint32_t epoch)
{
	uint64_t k;

	for (int i = 0; i < TEAM_SPIN; i++) {
		k = __atomic_load_n(&t->ticket, __ATOMIC_ACQUIRE);
		if ((uint32_t)(k >> 32) != epoch)
			return (uint32_t)(k >> 32);
		cpu_relax();
	}
	pthread_mutex_lock(&t->lock);
	__atomic_fetch_add(&t->sleepers, 1, __ATOMIC_SEQ_CST);
	while ((uint32_t)((k = __atomic_load_n(&t->ticket, __ATOMIC_SEQ_CST)) >>
			  32) == epoch)
		pthread_cond_wait(&t->wake, &t->lock);
	__atomic_fetch_sub(&t->sleepers, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&t->lock);
	return (uint32_t)(k >> 32);
}

static void *team_member(void *p)
{
	struct member *m = p;
	struct cr_team *t = m->t;
	uint32_t epoch = 0;

	for (;;) {
		epoch = team_wait(t, epoch);
		if (__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
			return NULL;
		team_claim(t, m->id);
	}
}

/* Publishes a new ticket and wakes the sleepers. */
static void team_publish(struct cr_team *t, unsigned n)
{
	uint64_t k = __atomic_load_n(&t->ticket, __ATOMIC_RELAXED);
	uint64_t epoch = (uint32_t)((k >> 32) + 1);

	__atomic_store_n(&t->ticket, epoch << 32 | (uint64_t)n << 16,
			 __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->sleepers, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&t->lock);
		pthread_cond_broadcast(&t->wake);
		pthread_mutex_unlock(&t->lock);
	}
}

struct cr_team *cr_team_start(unsigned n)
{
	struct cr_team *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (n < 1)
		n = 1;
	if (n > CR_MAX_THREADS)
		n = CR_MAX_THREADS;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	t->size = 1;
	for (unsigned i = 1; i < n; i++) {
		struct member *m = &t->members[t->size];

		m->t = t;
		m->id = t->size;
		if (pthread_create(&t->tid[t->size], NULL, team_member, m))
			break;
		t->size++;
	}
	return t;
}

unsigned cr_team_size(const struct cr_team *t)
{
	return t->size;
}

int cr_team_run(struct cr_team *t, unsigned nchunks, cr_chunk_fn fn, void *arg)
{
	int ret = 0;

	/* Alone, or one chunk: no round to publish. */
	if (t->size == 1 || nchunks == 1) {
		for (unsigned c = 0; c < nchunks; c++) {
			int r = fn(arg, 0, c);

			if (r && !ret)
				ret = r;
		}
		return ret;
	}
	for (unsigned base = 0; base < nchunks; base += TEAM_CHUNKS) {
		unsigned n = nchunks - base < TEAM_CHUNKS ? nchunks - base
							  : TEAM_CHUNKS;
		unsigned spins = 0;

		t->fn = fn;
		t->arg = arg;
		t->base = base;
		t->err_chunk = UINT32_MAX;
		t->err = 0;
		__atomic_store_n(&t->done, 0, __ATOMIC_RELAXED);
		team_publish(t, n);
		team_claim(t, 0);
		/* Only chunks under way on other members are left. */
		while (__atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != n) {
			if (spins++ < TEAM_SPIN)
				cpu_relax();
			else
				sched_yield();
		}
		pthread_mutex_lock(&t->lock);
		if (t->err && !ret)
			ret = t->err;
		pthread_mutex_unlock(&t->lock);
	}
	return ret;
}

void cr_team_stop(struct cr_team *t)
{
	if (!t)
		return;
	__atomic_store_n(&t->stop, true, __ATOMIC_RELEASE);
	team_publish(t, 0);
	pthread_mutex_lock(&t->lock);
	pthread_cond_broadcast(&t->wake);
	pthread_mutex_unlock(&t->lock);
	for (unsigned i = 1; i < t->size; i++)
		pthread_join(t->tid[i], NULL);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->wake);
	free(t);
}

struct team_ranges {
	cr_range_fn fn;
	void *arg;
	uint32_t n;
	unsigned nparts;
};

static int range_chunk(void *arg, unsigned worker, unsigned chunk)
{
	const struct team_ranges *r = arg;

	(void)worker;
	return r->fn(r->arg, chunk, r->nparts,
		     (uint32_t)((uint64_t)r->n * chunk / r->nparts),
		     (uint32_t)((uint64_t)r->n * (chunk + 1) / r->nparts));
}

int cr_team_ranges(struct cr_team *t, uint32_t n, unsigned nparts,
		   cr_range_fn fn, void *arg)
{
	struct team_ranges r = {.fn = fn, .arg = arg, .n = n};

	if (!t)
		return cr_parallel(n, nparts, fn, arg);
	if (nparts < 1)
		nparts = 1;
	if (nparts > CR_MAX_THREADS)
		nparts = CR_MAX_THREADS;
	r.nparts = nparts;
	return cr_team_run(t, nparts, range_chunk, &r);
}
