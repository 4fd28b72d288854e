/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whole-route swaps for the jobs' tuning (jobs_swap.c). Internal to the
 * tune group.
 */
#ifndef CROUTE_JOBS_SWAP_H
#define CROUTE_JOBS_SWAP_H

#include <stdint.h>

#include <croute/io/jobs.h>
#include <croute/tune/auto.h>

struct jobs_swap_stats {
	unsigned swaps; /* whole-route swaps kept */
	unsigned groups, kept; /* groups tried, kept */
	uint64_t work; /* work units (cr_est_inc_work and the surrogate's) */
	double before, after; /* the objective's first term */
};

/*
 * Swaps whole routes of destinations that share a switch, as a surrogate
 * of the jobs' link collisions suggests, each switch's swaps kept only
 * when the objective obj (jobs attached) rises; then the full estimate,
 * the held-out samples and cr_check must confirm, else r is restored.
 * At most work units of work. 0 (r improved or unchanged), -1 (logged)
 * on error, -2 when stop said to give up (r then unchanged).
 */
int cr_jobs_swap(const struct cr_fabric *f, struct cr_routing *r,
		 const struct cr_jobs *jobs, const struct cr_objective *obj,
		 uint64_t work, const struct cr_stop *stop,
		 struct jobs_swap_stats *st);

#endif
