// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The improvement pass's held patterns. A term "@K" stands for traffic
 * whose rank order is unknown: climbing on its own order alone tunes
 * the tables to that one order's phases, which the random orders do not
 * share (on prod-tree such a climb gains on the own order and loses on
 * held-out orders). So each of the K training orders is a held pattern
 * of its own, and a move is scored on all of them: the cost of a try
 * grows with K + 1, the phases of the flows a move touches in each.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>

#include "opt_held.h"

void opt_held_free(struct opt_held *h)
{
	for (unsigned i = 0; i < h->norders; i++)
		cr_hosts_free(h->orders[i]);
	free(h->orders);
	free(h->pats);
	free(h->hosts);
	free(h->first);
	free(h->avg);
	free(h->min);
	memset(h, 0, sizeof(*h));
}

int opt_held_make(struct opt_held *h, const struct cr_objective *obj,
		  const struct cr_hosts *hosts)
{
	uint64_t seed = obj->order_seed ? obj->order_seed : 1;
	unsigned n = 0, k = 0;

	memset(h, 0, sizeof(*h));
	for (unsigned i = 0; i < obj->num_terms; i++) {
		/* a flows file has no order: "@K" is refused for it */
		n += 1 + obj->terms[i].orders;
		k += obj->terms[i].orders;
	}
	h->pats = calloc(n + 1, sizeof(*h->pats));
	h->hosts = calloc(n + 1, sizeof(*h->hosts));
	h->orders = calloc(k + 1, sizeof(*h->orders));
	h->first = calloc(obj->num_terms + 1, sizeof(*h->first));
	h->avg = calloc(n + 1, sizeof(*h->avg));
	h->min = calloc(n + 1, sizeof(*h->min));
	if (!h->pats || !h->hosts || !h->orders || !h->first || !h->avg ||
	    !h->min)
		goto oom;
	for (unsigned i = 0; i < obj->num_terms; i++) {
		struct cr_pattern p;

		const struct cr_hosts *th =
			cr_objective_term_hosts(obj, i, hosts);

		cr_objective_pattern(obj, i, hosts, &p);
		h->first[i] = h->npat;
		h->pats[h->npat] = p;
		h->hosts[h->npat++] = th;
		for (uint32_t j = 0; j < obj->terms[i].orders; j++) {
			struct cr_hosts *o = cr_hosts_random_order(th, seed, j);

			if (!o)
				goto fail;
			h->orders[h->norders++] = o;
			h->pats[h->npat] = p;
			h->hosts[h->npat++] = o;
		}
	}
	h->first[obj->num_terms] = h->npat;
	return 0;
oom:
	cr_err("optimize: out of memory");
fail:
	opt_held_free(h);
	return -1;
}

struct cr_est_inc *opt_held_inc(const struct opt_held *h,
				const struct cr_fabric *f,
				const struct cr_routing *r,
				uint64_t max_entries, bool *too_big)
{
	return cr_est_inc_new_each(f, r, h->pats, h->hosts, h->npat,
				   max_entries, too_big);
}

void opt_held_terms(const struct opt_held *h, const struct cr_objective *obj,
		    const double *avg, const double *min, double *out)
{
	for (unsigned i = 0; i < obj->num_terms; i++) {
		const struct cr_objective_term *t = &obj->terms[i];
		const double *v = t->stat == CR_STAT_MIN ? min : avg;
		unsigned a = h->first[i], k = h->first[i + 1] - a - 1;
		double mean = 0, worst = 0;

		out[i] = v[a];
		if (!k)
			continue;
		/* the sums of cr_est_run_orders(), in its order */
		for (unsigned j = 0; j < k; j++) {
			if (!j || v[a + 1 + j] < worst)
				worst = v[a + 1 + j];
			mean += v[a + 1 + j];
		}
		mean /= k;
		if (t->worst)
			out[i] = worst < out[i] ? worst : out[i];
		else
			out[i] = (out[i] + mean * k) / (k + 1);
		if (isnan(v[a + 1]))
			out[i] = NAN;
	}
	cr_objective_blend(obj, out);
}
