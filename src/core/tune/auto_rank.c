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
 * Every choice between two candidates (the finalists kept, their
 * held-out order, the pass's second chance) is auto_cmp's: where their
 * scores are within the improvement threshold of each other on every
 * term, the one on fewer VLs is better (VLs left free serve QoS; a
 * layered routing's extra VLs must buy a gain the threshold would take
 * as one), else the objective with its tolerances decides.
 *
 * Guarantees: the choice depends on the scores and VLs only (ties, with the
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

int auto_cmp_thr(const double *a, const double *b, unsigned n, double thr)
{
	for (unsigned i = 0; i < n; i++) {
		double base = b[i] > 1e-12 ? b[i] : 1e-12;
		double rel = (a[i] - b[i]) / base;

		if (rel > thr)
			return 1;
		if (rel < -thr)
			return -1;
	}
	return 0;
}

double auto_threshold(const struct cr_auto_conf *ac)
{
	return ac && ac->threshold > 0 ? ac->threshold
				       : CR_AUTO_THRESHOLD_DEFAULT;
}

int auto_cmp(const struct cr_objective *obj, double thr, const double *a,
	     unsigned va, const double *b, unsigned vb)
{
	va = va ? va : 1;
	vb = vb ? vb : 1;
	if (va != vb && !auto_cmp_thr(a, b, obj->num_terms, thr) &&
	    !auto_cmp_thr(b, a, obj->num_terms, thr))
		return va < vb ? 1 : -1;
	return cr_objective_cmp_tol(obj, a, b);
}

unsigned auto_keep_pos(const struct run *a, const double *sc, unsigned vls)
{
	double thr = auto_threshold(a->ac);
	unsigned p = 0;

	while (p < a->kept) {
		const struct cand *k = &a->v[a->fin_idx[p]];

		if (auto_cmp(&a->obj, thr, sc, vls, k->score, k->vls) > 0)
			break;
		p++;
	}
	return p;
}

void auto_keep(struct run *a, int i, struct cr_routing *r,
	       struct cr_byproducts *by)
{
	unsigned p = auto_keep_pos(a, a->v[i].score, a->v[i].vls);
	unsigned cap = a->nfin ? a->nfin : 1;

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

void auto_rank_heldout(const struct cr_objective *obj, double thr,
		       const double *const *h, const unsigned *vls, unsigned k,
		       unsigned *rank)
{
	for (unsigned j = 0; j < k; j++)
		rank[j] = 0;
	/* Each round: the first (training order) that none left beats. */
	for (unsigned r = 1; r <= k; r++) {
		int best = -1;

		for (unsigned j = 0; j < k; j++)
			if (!rank[j] &&
			    (best < 0 || auto_cmp(obj, thr, h[j], vls[j],
						  h[best], vls[best]) > 0))
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
	unsigned rank[AUTO_FINALISTS], vls[AUTO_FINALISTS], k = a->kept, w = 0;
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
		h[j] = c->held;
		vls[j] = c->vls;
		/* the same tables as an earlier finalist: its scores */
		for (unsigned e = 0; e < j; e++)
			if (c->same_as == a->fin_idx[e] + 1)
				h[j] = a->v[a->fin_idx[e]].held;
		if (h[j] != c->held) {
			memcpy(c->held, h[j],
			       a->obj.num_terms * sizeof(*c->held));
			h[j] = c->held;
			continue;
		}
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
	}
	auto_rank_heldout(&a->obj, auto_threshold(a->ac), h, vls, k, rank);
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
