// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute resilience's incremental score: a switch cable that fails
 * changes the tables toward few LIDs, so each worker holds every phase
 * of the patterns on the random orders (est_inc.h) over the intact
 * tables, and a failure re-solves only the phases whose flows changed
 * path. Figures are cr_est_run()'s to the last bit; whatever est_inc
 * cannot stand for (a node lost, another host order, an entry still
 * toward the cut cable, a flow that no longer arrives) is scored in full.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/estimate/est_inc.h>
#include <croute/estimate/host_order.h>
#include <croute/model/log.h>

#include "resil_int.h"

/* Path entries a worker may hold; more and it scores in full. */
#define MAX_ENTRIES 40000000ULL

struct cr_resil_inc {
	struct cr_routing *work; /* the intact tables, changed per try */
	struct cr_est_inc *inc;
	struct cr_est_inc_change *chg;
	size_t chg_cap;
	const struct cr_hosts *hosts; /* the intact order */
	uint32_t orders, npat;
};

struct cr_resil_inc *cr_resil_inc_new(const struct cr_fabric *f,
				      const struct cr_routing *r,
				      const struct cr_hosts *hosts,
				      const struct cr_resil_conf *c)
{
	struct cr_resil_inc *x = calloc(1, sizeof(*x));
	uint32_t n = c->npat * c->par->orders;
	struct cr_pattern *pats = calloc(n + 1, sizeof(*pats));
	struct cr_hosts **hs = calloc(n + 1, sizeof(*hs));
	bool too_big = false;

	if (!x || !pats || !hs)
		goto fail;
	x->hosts = hosts;
	x->orders = c->par->orders;
	x->npat = c->npat;
	x->work = cr_routing_copy(r);
	if (!x->work)
		goto fail;
	for (uint32_t i = 0; i < c->npat; i++)
		for (uint32_t j = 0; j < x->orders; j++) {
			pats[i * x->orders + j] = c->pats[i];
			hs[i * x->orders + j] = cr_hosts_random_order(
				hosts, c->par->order_seed, j);
			if (!hs[i * x->orders + j])
				goto fail;
		}
	x->inc = cr_est_inc_new_each(f, x->work, pats,
				     (const struct cr_hosts *const *)hs, n,
				     MAX_ENTRIES, &too_big);
	if (!x->inc)
		goto fail;
	goto out;
fail:
	cr_resil_inc_free(x);
	x = NULL;
out:
	for (uint32_t i = 0; hs && i < n; i++)
		cr_hosts_free(hs[i]);
	free(hs);
	free(pats);
	return x;
}

void cr_resil_inc_free(struct cr_resil_inc *x)
{
	if (!x)
		return;
	cr_est_inc_free(x->inc);
	cr_routing_free(x->work);
	free(x->chg);
	free(x);
}

static bool same_hosts(const struct cr_hosts *a, const struct cr_hosts *b)
{
	if (a->count != b->count)
		return false;
	for (uint32_t i = 0; i < a->count; i++)
		if (a->ep[i].node != b->ep[i].node ||
		    a->ep[i].port != b->ep[i].port ||
		    a->ep[i].lid != b->ep[i].lid)
			return false;
	return true;
}

/* Whether some entry of r still leaves by port p of node n. */
static bool toward(const struct cr_routing *r, uint32_t n, unsigned p)
{
	return r->lft[n] && r->max_lid &&
	       memchr(r->lft[n] + 1, (int)p, r->max_lid);
}

int cr_resil_inc_score(struct cr_resil_inc *x, const struct cr_fabric *g,
		       const struct cr_routing *r, const struct cr_fault *ft,
		       const struct cr_hosts *h, double *avg, double *min)
{
	const struct cr_routing *w0 = x->work;
	uint32_t n = 0;
	double a[CR_RESIL_MAX_PATS * 64], m[CR_RESIL_MAX_PATS * 64];
	long ret;

	if (ft->kind != CR_FAULT_CABLE || g->num_nodes != w0->num_nodes ||
	    r->max_lid != w0->max_lid || x->orders > 64 ||
	    !same_hosts(h, x->hosts) || toward(r, ft->node, ft->port) ||
	    toward(r, ft->rnode, ft->rport))
		return 1;
	for (uint32_t s = 0; s < g->num_switches; s++) {
		uint32_t sw = g->switches[s];

		for (uint32_t lid = 1; lid <= r->max_lid; lid++) {
			lid = cr_resil_next_diff(r->lft[sw], w0->lft[sw], lid,
						 r->max_lid + 1);
			if (lid > r->max_lid)
				break;
			if (n == x->chg_cap) {
				size_t cap = x->chg_cap ? 2 * x->chg_cap : 1024;
				void *nc =
					realloc(x->chg, cap * sizeof(*x->chg));

				if (!nc) {
					cr_err("out of memory");
					return -1;
				}
				x->chg = nc;
				x->chg_cap = cap;
			}
			x->chg[n++] = (struct cr_est_inc_change){
				sw, w0->lft[sw][lid], (uint16_t)lid};
		}
	}
	/* est_inc reads the new entries from the tables it holds */
	for (uint32_t i = 0; i < n; i++)
		x->work->lft[x->chg[i].sw][x->chg[i].lid] =
			r->lft[x->chg[i].sw][x->chg[i].lid];
	ret = cr_est_inc_try_n(x->inc, x->chg, n, a, m);
	for (uint32_t i = 0; i < n; i++)
		x->work->lft[x->chg[i].sw][x->chg[i].lid] = x->chg[i].old_port;
	if (ret == -1)
		return -1;
	if (ret < 0)
		return 1;
	for (uint32_t i = 0; i < x->npat; i++) {
		avg[i] = min[i] = 0;
		for (uint32_t j = 0; j < x->orders; j++) {
			avg[i] += a[i * x->orders + j];
			min[i] += m[i * x->orders + j];
		}
		avg[i] /= x->orders;
		min[i] /= x->orders;
	}
	return 0;
}
