/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Threads for the loops that dominate at scale (destinations of an
 * engine, LIDs of the hop table): one setting for the whole core, set by
 * the plugin (croute_threads) and the command (--threads). Work is split
 * into fixed contiguous ranges, one per thread or a few per thread
 * (cr_parallel_chunks), each computed independently, so every result is
 * the same whatever the thread count and whichever thread runs a range.
 */
#ifndef CROUTE_PARALLEL_H
#define CROUTE_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define CR_MAX_THREADS 64

/* 0: the default, the online CPUs up to 8. Clamped to 1..CR_MAX_THREADS. */
void cr_threads_set(unsigned n);
unsigned cr_threads_get(void);

/*
 * Calls fn(arg, part, nparts, begin, end) for nparts contiguous ranges
 * covering [0, n), on up to cr_threads_get() threads. nparts is chosen up
 * front and fixed: fn may use part to index per-thread scratch. Each range
 * runs once, on whichever thread claims it first (the caller claims until
 * none is left: a thread the machine has no core for yet, or that cannot
 * be started, leaves its range to the caller; the caller joins every
 * thread before it returns). Returns the first non-zero value fn returned
 * (in part order), else 0.
 */
typedef int (*cr_range_fn)(void *arg, unsigned part, unsigned nparts,
			   uint32_t begin, uint32_t end);
int cr_parallel(uint32_t n, unsigned nparts, cr_range_fn fn, void *arg);

/* The number of ranges cr_parallel() will use for n items: 1..threads. */
unsigned cr_parallel_parts(uint32_t n, uint32_t min_per_part);
/*
 * More ranges than threads (up to 4 a thread, at most CR_MAX_THREADS) for
 * loops bound by memory on a shared machine: a thread held up by another
 * process leaves the ranges it has not claimed to the others, instead of
 * the whole loop waiting for its half (the install's 88 MB at 27,648
 * hosts). 1 with one thread.
 */
unsigned cr_parallel_chunks(uint32_t n, uint32_t min_per_part);

/*
 * A team of threads kept for many short rounds of work (flow balance:
 * thousands of rounds, one per level of each destination, where starting
 * threads per round would cost more than the round). cr_team_run() runs
 * fn(arg, worker, chunk) for every chunk in [0, nchunks) and returns when
 * all have run; worker (0 for the caller, else 1..size-1) indexes
 * per-thread scratch. Chunks go to whichever member claims them first
 * and the caller claims too, so a round never waits for a thread that is
 * not running, only for chunks already under way: callers must make a
 * chunk's result independent of the worker that runs it.
 * cr_team_start(n) starts up to n - 1 threads beside the caller (fewer
 * when the system refuses one); NULL only out of memory. cr_team_run()
 * returns the first non-zero fn() value of the round (lowest chunk), and
 * is called by the thread that started the team only.
 */
struct cr_team;
typedef int (*cr_chunk_fn)(void *arg, unsigned worker, unsigned chunk);
struct cr_team *cr_team_start(unsigned n);
unsigned cr_team_size(const struct cr_team *t);
int cr_team_run(struct cr_team *t, unsigned nchunks, cr_chunk_fn fn, void *arg);
void cr_team_stop(struct cr_team *t);

/*
 * cr_parallel() on a team (or, t NULL, on threads of its own): the same
 * nparts ranges, each given to fn with its part number.
 */
int cr_team_ranges(struct cr_team *t, uint32_t n, unsigned nparts,
		   cr_range_fn fn, void *arg);

/*
 * One job beside the caller's own work (the repair's copy of the base's
 * tables, memory-bound, beside its analysis of the new fabric, bound by
 * latency): cr_side_start() hands fn(arg) to a thread of its own, and
 * cr_side_join() returns its value once it has run. Whichever of the two
 * gets to it first runs it, so with one thread configured, or a thread
 * the machine has not scheduled yet, the caller runs it at the join. fn
 * must not touch what the caller works on until the join.
 */
struct cr_side {
	int (*fn)(void *arg);
	void *arg;
	int ret;
	unsigned claimed; /* atomic */
	bool started;
	pthread_t tid;
};

void cr_side_start(struct cr_side *s, int (*fn)(void *arg), void *arg);
int cr_side_join(struct cr_side *s);

#endif
