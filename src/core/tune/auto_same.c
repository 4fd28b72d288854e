// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's candidates that would route the tables of an earlier one
 * again. Where pairs of groups share uneven numbers of global cables,
 * cr-dfp balances path loads by its own rule, which is what dfp+glob
 * asks for: the two route the same tables (same fabric, same options
 * once the rule applied). The later one then takes the earlier one's
 * results (scores, VLs, a copy of its routing where the finalists keep
 * it, its held-out scores in auto_choose_heldout()) instead of routing
 * and scoring again.
 *
 * Guarantees: the choice is the one routing both would make. The plan
 * is unchanged (its work still counts, so the sample sizes and the
 * candidates planned do not move); where the earlier candidate's
 * routing is gone but this one would be kept, it is routed after all.
 *
 * Cost: a copy of the LFTs where the duplicate is kept as a finalist.
 */
#include <stdbool.h>
#include <string.h>

#include <croute/tune/auto.h>
#include <croute/model/routing.h>

#include "auto_int.h"

/* The same toggles but for +glob, which b's own rule applied. */
static bool same_but_glob(const struct cand *b, const struct cand *c)
{
	return b->e == c->e && b->path_loads && !b->glob && c->glob &&
	       b->ps == c->ps && b->rgs == c->rgs && b->bal == c->bal &&
	       b->first == c->first && b->rr == c->rr && b->roots == c->roots &&
	       b->roots_file == c->roots_file;
}

/* The earlier candidate whose tables c would route, or -1. */
static int same_tables(const struct run *a, int i)
{
	for (int j = 0; j < i; j++) {
		const struct cand *b = &a->v[j];

		if (b->ok && !b->no_score && same_but_glob(b, &a->v[i]))
			return j;
	}
	return -1;
}

/* Finalist slot of candidate j, or -1. */
static int fin_slot(const struct run *a, int j)
{
	for (unsigned k = 0; k < a->kept; k++)
		if (a->fin_idx[k] == j)
			return (int)k;
	return -1;
}

bool auto_take_same(struct run *a, int i)
{
	struct cand *c = &a->v[i], *b;
	struct cr_routing *r = NULL;
	struct cr_byproducts by = {0};
	int j = same_tables(a, i), f;

	if (j < 0)
		return false;
	b = &a->v[j];
	f = fin_slot(a, j);
	if (auto_keep_pos(a, b->score, b->vls) < (a->nfin ? a->nfin : 1)) {
		if (f < 0)
			return false;
		r = cr_routing_copy(a->fin_r[f]);
		if (!r || cr_byproducts_copy(&by, &a->fin_by[f])) {
			cr_routing_free(r);
			return false;
		}
	}
	memcpy(c->score, b->score, a->obj.num_terms * sizeof(*c->score));
	c->ran = c->routed = c->ok = true;
	c->path_loads = true;
	c->vls = b->vls;
	c->credit_loops = b->credit_loops;
	c->same_as = j + 1;
	if (r)
		auto_keep(a, i, r, &by);
	return true;
}
