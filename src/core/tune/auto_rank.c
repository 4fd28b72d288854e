// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's choice on held-out samples: candidates are compared on the
 * training samples (the objective as given) while they run, and the best
 * few (the finalists, AUTO_FINALISTS) keep their routings; those are then
 * scored on held-out samples (other seeds: other random orders, bisect's
 * matchings, shift's phases; cr_objective_score_set) and the best there
 * wins. A candidate that leads only on the samples it was compared on
 * (a layered routing shaped by the own order, say) then does not win on
 * that lead alone.
 *
 * Guarantees: the choice depends on the scores only (ties, with the
 * objective's tolerances, keep the training order, itself the list
 * order on ties), so it is as deterministic as the scores. The work of
 * the held-out scorings is in the step's plan, never on the wall clock.
 *
 * Cost: one held-out scoring per finalist, and memory for the finalists'
 * routings (AUTO_FINALISTS copies of the LFTs).
 */
#include <stdlib.h>
#include <string.h>

#include <croute/tune/auto.h>
#include <croute/model/log.h>

#include "auto_int.h"

void auto_keep(struct run *a, int i, struct cr_routing *r,
	       struct cr_byproducts *by)
{
	const double *s = a->v[i].score;
	unsigned p = 0, cap = a->nfin ? a->nfin : 1;

	while (p < a->kept &&
	       cr_objective_cmp_tol(&a->obj, s, a->v[a->fin_idx[p]].score) <= 0)
		p++;
	if (p >= cap) {
		cr_routing_free(r);
		cr_byproducts_release(by);
		return;
	}
	if (a->kept == cap) {
		a->kept--;
		cr_routing_free(a->fin_r[a->kept]);
		cr_byproducts_release(&a->fin_by[a->kept]);
	}
	for (unsigned j = a->kept; j > p; j--) {
		a->fin_idx[j] = a->fin_idx[j - 1];
		a->fin_r[j] = a->fin_r[j - 1];
		memset(&a->fin_by[j], 0, sizeof(a->fin_by[j]));
		cr_byproducts_move(&a->fin_by[j], &a->fin_by[j - 1]);
	}
	a->fin_idx[p] = i;
	a->fin_r[p] = r;
	memset(&a->fin_by[p], 0, sizeof(a->fin_by[p]));
	cr_byproducts_move(&a->fin_by[p], by);
	a->kept++;
	a->win = a->fin_idx[0];
}

void auto_rank_heldout(const struct cr_objective *obj, const double *const *h,
		       unsigned k, unsigned *rank)
{
	for (unsigned j = 0; j < k; j++)
		rank[j] = 0;
	/* Each round: the first (training order) that none left beats. */
	for (unsigned r = 1; r <= k; r++) {
		int best = -1;

		for (unsigned j = 0; j < k; j++)
			if (!rank[j] &&
			    (best < 0 ||
			     cr_objective_cmp_tol(obj, h[j], h[best]) > 0))
				best = (int)j;
		rank[best] = r;
	}
}

void auto_fin_release(struct run *a)
{
	for (unsigned j = 0; j < a->kept; j++) {
		cr_routing_free(a->fin_r[j]);
		cr_byproducts_release(&a->fin_by[j]);
	}
	a->kept = 0;
}

/* Finalist j's routing and by-products become the winner's. */
static void take_fin(struct run *a, unsigned j)
{
	cr_routing_free(a->best);
	a->best = a->fin_r[j];
	a->fin_r[j] = NULL;
	cr_byproducts_release(&a->best_by);
	cr_byproducts_move(&a->best_by, &a->fin_by[j]);
	a->win = a->fin_idx[j];
}

int auto_choose_heldout(struct run *a)
{
	const double *h[AUTO_FINALISTS];
	unsigned rank[AUTO_FINALISTS], k = a->kept, w = 0;
	int ret = 0;

	if (!k)
		return 0;
	if (a->nfin <= 1 || !a->held_scores) {
		take_fin(a, 0);
		goto out;
	}
	for (unsigned j = 0; j < k; j++) {
		struct cand *c = &a->v[a->fin_idx[j]];

		c->held = a->held_scores + (size_t)j * a->obj.num_terms;
		if (cr_objective_score_set(a->f, a->fin_r[j], &a->held_obj,
					   a->hosts, CR_SCORE_HELDOUT,
					   c->held)) {
			cr_err("cr-auto: the held-out estimate could not run:"
			       " the training winner stays");
			for (unsigned i = 0; i < k; i++)
				a->v[a->fin_idx[i]].held = NULL;
			take_fin(a, 0);
			ret = -1;
			goto out;
		}
		h[j] = c->held;
	}
	auto_rank_heldout(&a->obj, h, k, rank);
	for (unsigned j = 0; j < k; j++) {
		a->v[a->fin_idx[j]].fin = rank[j];
		if (rank[j] == 1)
			w = j;
	}
	if (w)
		cr_info("cr-auto: on held-out samples %s beats %s, first on"
			" the training samples: %s wins",
			a->v[a->fin_idx[w]].name, a->v[a->fin_idx[0]].name,
			a->v[a->fin_idx[w]].name);
	take_fin(a, w);
out:
	auto_fin_release(a);
	return ret;
}
