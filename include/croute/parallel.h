/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Threads for the loops that dominate at scale (destinations of an
 * engine, LIDs of the hop table): one setting for the whole core, set by
 * the plugin (croute_threads) and the command (--threads). Work is split
 * into fixed contiguous ranges, one per thread, so every result is the
 * same whatever the thread count.
 */
#ifndef CROUTE_PARALLEL_H
#define CROUTE_PARALLEL_H

#include <stdint.h>

#define CR_MAX_THREADS 64

/* 0: the default, the online CPUs up to 8. Clamped to 1..CR_MAX_THREADS. */
void cr_threads_set(unsigned n);
unsigned cr_threads_get(void);
/* The default: online CPUs, at most 8. */
unsigned cr_threads_default(void);

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

#endif
