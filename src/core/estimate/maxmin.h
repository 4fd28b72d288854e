/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Exact max-min fair allocation (progressive filling) of flows over
 * directed links, each flow with its own upper bound: the rates SimGrid's
 * LMM solver gives flows of equal weight. Internal to the estimator.
 */
#ifndef CROUTE_MAXMIN_H
#define CROUTE_MAXMIN_H

#include <stddef.h>
#include <stdint.h>

struct cr_maxmin;

/* A workspace for links 0..num_links-1, reused across phases. */
struct cr_maxmin *cr_maxmin_new(uint32_t num_links);
void cr_maxmin_free(struct cr_maxmin *m);

/*
 * n flows; flow i crosses the links path[start[i] .. start[i + 1]) (each
 * at most once) and gets at most bound[i] >= 0. cap[l] > 0 is link l's
 * capacity. Writes rate[i]. A flow without links gets its bound, which
 * must then be finite. Returns 0, or -1 when memory runs out.
 */
int cr_maxmin_solve(struct cr_maxmin *m, const double *cap, size_t n,
		    const uint32_t *start, const uint32_t *path,
		    const double *bound, double *rate);

/*
 * The same with shares: flow i puts share[k] (0 < share <= 1) of its rate
 * on link path[k]; share NULL: every share 1, cr_maxmin_solve() exactly.
 */
struct cr_maxmin_flows {
	size_t n;
	const uint32_t *start;
	const uint32_t *path;
	const double *share;
	const double *bound;
};
int cr_maxmin_solve_shares(struct cr_maxmin *m, const double *cap,
			   const struct cr_maxmin_flows *fl, double *rate);

#endif
