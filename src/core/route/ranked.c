// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shortest paths on two ranked VLs (ranked.h): the labelling, candidate
 * and port-choice machinery of cr-dfp and cr-hyperx, and the check of
 * their finished tables.
 *
 * Labelling. Toward one destination switch, a switch takes the first
 * wave in which a neighbour labelled in the previous one gives it a path
 * rising on some VL; among those it prefers rising on both, then the VL
 * its pref1 names, then the most room left below. Every neighbour giving
 * it that same state is a candidate, so equal paths share the LIDs.
 *
 * The check walks each switch's path to each LID as the tables route
 * it, memoised per LID, so it is linear in the tables: a search of the
 * dependency graph costs several times more at scale.
 *
 * Cost: per destination switch a few waves over the switch links; per
 * LID a pick on every switch; the check once over the tables.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/hops.h>
#include <croute/log.h>
#include <croute/parallel.h>

#include "ranked.h"

int cr_ranked_init(struct cr_ranked *k)
{
	const struct cr_fabric *f = k->f;
	uint32_t ns = k->ns, ne;

	if (cr_switch_adjacency(f, &k->adj_start, &k->adj, &k->adj_port))
		return -1;
	ne = k->adj_start[ns];
	k->stride = 1;
	for (uint32_t s = 0; s < ns; s++)
		if (f->nodes[f->switches[s]].num_ports + 1u > k->stride)
			k->stride = f->nodes[f->switches[s]].num_ports + 1u;
	k->esrc = calloc(ne + 1, sizeof(*k->esrc));
	k->port_entry =
		malloc(((size_t)ns * k->stride + 1) * sizeof(*k->port_entry));
	k->erank[0] = calloc(ne + 1, sizeof(int));
	k->erank[1] = calloc(ne + 1, sizeof(int));
	k->cand = malloc(ne + 1);
	k->cas = calloc(ns + 1, sizeof(*k->cas));
	k->dist = calloc(ns + 1, sizeof(*k->dist));
	k->ok = calloc(ns + 1, 1);
	k->pref1 = calloc(ns + 1, 1);
	k->first[0] = calloc(ns + 1, sizeof(int));
	k->first[1] = calloc(ns + 1, sizeof(int));
	k->cand_start = calloc(ns + 1, sizeof(*k->cand_start));
	k->flow = calloc(ns + 1, sizeof(*k->flow));
	k->order = calloc(ns + 1, sizeof(*k->order));
	k->mask = 3;
	if (!k->esrc || !k->port_entry || !k->erank[0] || !k->erank[1] ||
	    !k->cand || !k->cas || !k->dist || !k->ok || !k->pref1 ||
	    !k->first[0] || !k->first[1] || !k->cand_start || !k->flow ||
	    !k->order)
		return -1;
	memset(k->port_entry, 0xff,
	       ((size_t)ns * k->stride + 1) * sizeof(*k->port_entry));
	for (uint32_t s = 0; s < ns; s++) {
		k->cas[s] = cr_switch_ca_ports(f, f->switches[s]);
		for (uint32_t i = k->adj_start[s]; i < k->adj_start[s + 1];
		     i++) {
			k->esrc[i] = s;
			k->port_entry[(size_t)s * k->stride + k->adj_port[i]] =
				i;
		}
	}
	return 0;
}

void cr_ranked_free(struct cr_ranked *k)
{
	free(k->adj_start);
	free(k->adj);
	free(k->adj_port);
	free(k->esrc);
	free(k->port_entry);
	free(k->erank[0]);
	free(k->erank[1]);
	free(k->cand);
	free(k->cas);
	free(k->dist);
	free(k->ok);
	free(k->pref1);
	free(k->first[0]);
	free(k->first[1]);
	free(k->cand_start);
	free(k->flow);
	free(k->order);
	cr_portsel_free(k->ps);
	k->ps = NULL;
}

uint8_t cr_ranked_via(const struct cr_ranked *k, uint32_t i, uint32_t t,
		      int *r0, int *r1)
{
	uint8_t ok = 0;

	*r0 = k->erank[0][i];
	*r1 = k->erank[1][i];
	if ((k->ok[t] & 1) && *r0 < k->first[0][t])
		ok |= 1;
	if ((k->ok[t] & 2) && *r1 < k->first[1][t])
		ok |= 2;
	return ok & k->mask;
}

/*
 * Whether state (ok, r0, r1) is better than (bok, b0, b1): both VLs,
 * else VL 0 (VL 1 where vl1), then the most room left below on each.
 */
static bool state_better(uint8_t ok, int r0, int r1, uint8_t bok, int b0,
			 int b1, bool vl1)
{
	static const int pref[2][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}};

	if (pref[vl1][ok] != pref[vl1][bok])
		return pref[vl1][ok] > pref[vl1][bok];
	if ((ok & 1) && r0 != b0)
		return r0 > b0;
	return (ok & 2) && r1 > b1;
}

static bool state_same(uint8_t ok, int r0, int r1, uint8_t bok, int b0, int b1)
{
	return ok == bok && (!(ok & 1) || r0 == b0) && (!(ok & 2) || r1 == b1);
}

/* One wave: labels the switches a neighbour of the last wave leads. */
static bool label_wave(struct cr_ranked *k, int wave)
{
	bool more = false;

	for (uint32_t s = 0; s < k->ns; s++) {
		uint8_t bok = 0;
		int b0 = 0, b1 = 0;

		if (k->dist[s] >= 0)
			continue;
		for (uint32_t i = k->adj_start[s]; i < k->adj_start[s + 1];
		     i++) {
			uint32_t m = k->adj[i];
			int r0, r1;
			uint8_t ok;

			if (k->dist[m] != wave - 1)
				continue;
			ok = cr_ranked_via(k, i, m, &r0, &r1);
			if (ok && (!bok || state_better(ok, r0, r1, bok, b0, b1,
							k->pref1[s]))) {
				bok = ok;
				b0 = r0;
				b1 = r1;
			}
		}
		if (!bok)
			continue;
		/* Labelled at the end of the wave: ok[] is read. */
		k->ok[s] = bok | 0x80;
		k->first[0][s] = b0;
		k->first[1][s] = b1;
		more = true;
	}
	for (uint32_t s = 0; s < k->ns; s++)
		if (k->ok[s] & 0x80 && k->dist[s] < 0) {
			k->ok[s] &= 3;
			k->dist[s] = wave;
		}
	return more;
}

void cr_ranked_label(struct cr_ranked *k, uint32_t t)
{
	for (uint32_t s = 0; s < k->ns; s++)
		k->dist[s] = -1;
	k->dist[t] = 0;
	k->ok[t] = 3;
	k->first[0][t] = k->first[1][t] = INT_MAX;
	for (int wave = 1; label_wave(k, wave); wave++)
		;
}

uint32_t cr_ranked_add_cands(struct cr_ranked *k, uint32_t s, uint32_t nc)
{
	for (uint32_t i = k->adj_start[s]; i < k->adj_start[s + 1]; i++) {
		uint32_t m = k->adj[i];
		int r0, r1;
		uint8_t ok;

		if (k->dist[m] != k->dist[s] - 1)
			continue;
		ok = cr_ranked_via(k, i, m, &r0, &r1);
		if (state_same(ok, r0, r1, k->ok[s], k->first[0][s],
			       k->first[1][s]))
			k->cand[nc++] = k->adj_port[i];
	}
	return nc;
}

void cr_ranked_sort(struct cr_ranked *k)
{
	uint32_t n = 0, start[257] = {0};

	for (uint32_t s = 0; s < k->ns; s++)
		if (k->dist[s] >= 0 && k->dist[s] < 256)
			start[k->dist[s] + 1]++;
	for (unsigned h = 1; h < 257; h++)
		start[h] += start[h - 1];
	for (uint32_t s = 0; s < k->ns; s++)
		if (k->dist[s] >= 0 && k->dist[s] < 256) {
			k->order[start[k->dist[s]]++] = s;
			n++;
		}
	k->num_order = n;
}

static void pick(struct cr_ranked *k, uint32_t s, uint16_t lid, unsigned flags,
		 bool *second)
{
	const struct cr_fabric *f = k->f;
	uint32_t sw = f->switches[s], c = k->cand_start[s];
	unsigned n = k->cand_start[s + 1] - c;
	uint8_t p;

	if (k->flows)
		p = cr_portsel_pick_flows(k->ps, sw, &k->cand[c], n, lid, flags,
					  k->flow[s]);
	else
		p = cr_portsel_pick(k->ps, sw, &k->cand[c], n, lid, flags);
	k->r->lft[sw][lid] = p;
	k->r->sl[sw][lid] = k->ok[s] & 1 ? 0 : 1;
	*second |= !(k->ok[s] & 1);
	if (k->flows) {
		uint32_t m = f->nodes[sw].ports[p].remote;

		k->flow[f->nodes[m].sw_index] += k->flow[s];
	}
}

/*
 * Routes lid toward switch index t (port: where t delivers it): with
 * flow balance the farthest switches first, each passing on the CA
 * sources whose route crosses it; else nearest first (global balance
 * commits each LID's paths).
 */
static void route_lid(struct cr_ranked *k, uint16_t lid, uint32_t t,
		      uint8_t port, bool *second)
{
	const struct cr_fabric *f = k->f;
	bool sw_lid = cr_is_switch(f, f->lid_node[lid]);
	unsigned flags = (cr_lid_is_base(f, lid) ? CR_PS_BASE : 0) |
			 (sw_lid ? CR_PS_NOCOUNT : 0);

	k->r->lft[f->switches[t]][lid] = port;
	k->r->sl[f->switches[t]][lid] = 0;
	if (k->flows) {
		for (uint32_t i = 0; i < k->num_order; i++)
			k->flow[k->order[i]] = k->cas[k->order[i]];
		for (uint32_t i = k->num_order; i-- > 1;)
			pick(k, k->order[i], lid, flags, second);
		return;
	}
	for (uint32_t i = 1; i < k->num_order; i++)
		pick(k, k->order[i], lid, flags, second);
	cr_portsel_commit(k->ps, lid);
}

void cr_ranked_route_dest(struct cr_ranked *k, uint32_t t, bool *second)
{
	const struct cr_fabric *f = k->f;
	uint32_t sw = f->switches[t];
	const struct cr_node *n = &f->nodes[sw];

	for (unsigned p = 0; p <= n->num_ports; p++) {
		uint32_t m = p ? n->ports[p].remote : sw;
		unsigned q = p ? n->ports[p].remote_port : 0;
		const struct cr_port *x;

		if (m == CR_NO_NODE || (p && cr_is_switch(f, m)))
			continue;
		x = &f->nodes[m].ports[q];
		for (unsigned i = 0; x->lid && i < (1u << x->lmc); i++)
			if (x->lid + i <= f->max_lid)
				route_lid(k, x->lid + i, t, (uint8_t)p, second);
	}
}

int cr_ranked_reset(struct cr_ranked *k)
{
	int rc;

	cr_portsel_free(k->ps);
	k->ps = NULL;
	cr_routing_clear(k->r);
	if (cr_routing_alloc_sl(k->f, k->r))
		return -1;
	k->ps = cr_portsel_new(k->f, k->o, k->r);
	if (!k->ps)
		return -1;
	rc = cr_portsel_use_flows(k->ps);
	if (rc < 0)
		return -1;
	k->flows = rc == 1;
	return 0;
}

/* One part of the final check's LIDs: its own walk state. */
struct walk {
	const struct cr_ranked *k;
	uint8_t *ok; /* bit v: the path as written rises on VL v */
	int *first[2]; /* its first channel's rank on each VL */
	uint32_t *stack, *stamp;
};

/*
 * The path from switch index s toward lid, as the tables route it: its
 * first channel's rank on each VL into first[], and whether its ranks
 * rise (bit v) into ok[]; stamp[] marks the switches done for this LID.
 * Iterative: the path is walked to a switch done, then unwound.
 */
static void path_state(struct walk *w, uint16_t lid, uint32_t s, uint32_t stamp)
{
	const struct cr_ranked *k = w->k;
	const struct cr_fabric *f = k->f;
	uint32_t top = 0;

	while (w->stamp[s] != stamp) {
		uint32_t sw = f->switches[s], m;
		uint8_t p = k->r->lft[sw][lid];

		w->stack[top++] = s;
		m = p && p != CR_NO_PATH && p <= f->nodes[sw].num_ports
			    ? f->nodes[sw].ports[p].remote
			    : CR_NO_NODE;
		if (m == CR_NO_NODE || !cr_is_switch(f, m) || top > k->ns) {
			/* Delivered, no entry, or a loop: ends here. */
			w->stamp[s] = stamp;
			w->ok[s] = p != CR_NO_PATH && top <= k->ns &&
						   (!p || m != CR_NO_NODE)
					   ? 3
					   : 0;
			w->first[0][s] = w->first[1][s] = INT_MAX;
			top--;
			break;
		}
		s = f->nodes[m].sw_index;
	}
	while (top) {
		uint32_t x = w->stack[--top], sw = f->switches[x];
		uint8_t p = k->r->lft[sw][lid];
		uint32_t y = f->nodes[f->nodes[sw].ports[p].remote].sw_index;
		uint32_t i = k->port_entry[(size_t)x * k->stride + p];

		w->ok[x] = 0;
		for (unsigned v = 0; v < 2 && i != UINT32_MAX; v++) {
			int r = k->erank[v][i];

			w->first[v][x] = r;
			if ((w->ok[y] >> v & 1) && r < w->first[v][y])
				w->ok[x] |= (uint8_t)(1u << v);
		}
		w->stamp[x] = stamp;
	}
}

/* LIDs begin + 1 .. end: 1 when some path does not rise on its SL's VL. */
static int loops_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	struct walk *w = &((struct walk *)arg)[part];
	const struct cr_ranked *k = w->k;
	const struct cr_fabric *f = k->f;
	uint32_t stamp = 0;

	(void)nparts;
	for (uint32_t lid = begin + 1; lid <= end; lid++) {
		if (f->lid_node[lid] == CR_NO_NODE)
			continue;
		stamp++;
		for (uint32_t s = 0; s < k->ns; s++) {
			uint32_t sw = f->switches[s];
			uint8_t v = k->r->sl[sw][lid];

			path_state(w, (uint16_t)lid, s, stamp);
			if (k->r->lft[sw][lid] != CR_NO_PATH && v < 2 &&
			    !(w->ok[s] >> v & 1))
				return 1;
		}
	}
	return 0;
}

/*
 * Whether some switch's path to some LID does not rise on the ranking of
 * its SL's VL: the property that keeps both VLs free of credit loops,
 * checked on the tables as written, LID by LID, every switch a source;
 * the LIDs split among threads. -1 when memory runs out.
 */
static int vl_loops(const struct cr_ranked *k)
{
	unsigned nparts = cr_parallel_parts(k->f->max_lid, 256);
	struct walk *w = calloc(nparts, sizeof(*w));
	int ret = -1;

	if (!w)
		return -1;
	for (unsigned p = 0; p < nparts; p++) {
		w[p].k = k;
		w[p].ok = calloc(k->ns + 1, 1);
		w[p].first[0] = calloc(k->ns + 1, sizeof(int));
		w[p].first[1] = calloc(k->ns + 1, sizeof(int));
		w[p].stack = calloc(k->ns + 2, sizeof(*w[p].stack));
		w[p].stamp = calloc(k->ns + 1, sizeof(*w[p].stamp));
		if (!w[p].ok || !w[p].first[0] || !w[p].first[1] ||
		    !w[p].stack || !w[p].stamp)
			goto out;
	}
	ret = cr_parallel(k->f->max_lid, nparts, loops_range, w) != 0;
out:
	for (unsigned p = 0; p < nparts; p++) {
		free(w[p].ok);
		free(w[p].first[0]);
		free(w[p].first[1]);
		free(w[p].stack);
		free(w[p].stamp);
	}
	free(w);
	return ret;
}

int cr_ranked_fall_back(const struct cr_ranked *k, struct cr_byproducts *by,
			const char *why)
{
	struct cr_routing *r = k->r;

	cr_warn("%s: %s; routing the whole fabric with up*/down* on one VL "
		"instead",
		k->name, why);
	cr_routing_clear(r);
	if (cr_updn_route(k->f, k->o, r, by))
		return -1;
	if (cr_routing_alloc_sl(k->f, r))
		return -1;
	r->num_layers = 1;
	memset(r->sl2vl, 0, sizeof(r->sl2vl));
	return 0;
}

int cr_ranked_finish(struct cr_ranked *k, struct cr_byproducts *by, bool second,
		     const char *which)
{
	unsigned max_vls = k->o->max_vls ? k->o->max_vls : 8;
	struct cr_routing *r = k->r;
	char why[256];
	int loops;

	if (second && max_vls < 2) {
		snprintf(why, sizeof(why), "%s need a second VL; max_vls is %u",
			 which, max_vls);
		return cr_ranked_fall_back(k, by, why) ? -1 : 1;
	}

	r->num_layers = second ? 2 : 1;
	for (unsigned sl = 0; sl < 16; sl++)
		r->sl2vl[sl] = sl < 2 ? (uint8_t)sl : 0;
	/* Guaranteed by the rankings; checked so that a flaw cannot ship. */
	loops = vl_loops(k);
	if (!loops)
		return 0;
	if (loops < 0) {
		cr_err("%s: out of memory checking the tables", k->name);
		return -1;
	}
	return cr_ranked_fall_back(k, by, "a VL would have a credit loop") ? -1
									   : 1;
}
