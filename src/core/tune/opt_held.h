/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the improvement pass holds and climbs on: every term's pattern on
 * the hosts' own order and, for "@K" terms, on the K training orders, so
 * that a move is judged on the objective it must raise, not on the own
 * order alone. Internal to the tune group.
 */
#ifndef CROUTE_OPT_HELD_H
#define CROUTE_OPT_HELD_H

#include <stdbool.h>
#include <stdint.h>

#include <croute/tune/auto.h>
#include <croute/estimate/est_inc.h>

struct opt_held {
	struct cr_pattern *pats; /* the held patterns, term by term */
	const struct cr_hosts **hosts; /* the host order of each */
	struct cr_hosts **orders; /* the random orders, owned */
	unsigned npat, norders;
	unsigned *first; /* per term: its first pattern; [num_terms]: npat */
	double *avg, *min; /* scratch: one figure per pattern */
};

/*
 * The patterns of obj on hosts (its own order, then each "@K" term's K
 * orders of obj->order_seed, as cr_objective_score() draws them). 0, or
 * -1 (logged).
 */
int opt_held_make(struct opt_held *h, const struct cr_objective *obj,
		  const struct cr_hosts *hosts);
void opt_held_free(struct opt_held *h);

/* The held estimate of them all (cr_est_inc_new_each). */
struct cr_est_inc *opt_held_inc(const struct opt_held *h,
				const struct cr_fabric *f,
				const struct cr_routing *r,
				uint64_t max_entries, bool *too_big);

/*
 * The terms from one figure a pattern (avg[], min[]): a term's mean over
 * its orders, or their lowest with ":worst", as cr_objective_score()
 * folds them. Patterns not solved (NAN) give NAN.
 */
void opt_held_terms(const struct opt_held *h, const struct cr_objective *obj,
		    const double *avg, const double *min, double *out);

#endif
