// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-ftree's rules for incremental re-routing (incremental.c; doc/design.md
 * "Incremental re-routing").
 *
 * cr-ftree routes toward a destination switch D down from D's ancestors
 * (the switches reachable upward from D) and up from everyone else, to a
 * parent one up-hop u closer to an ancestor. In a tree whose links join
 * adjacent ranks only, that is up*-down* with the ranks as the order:
 * every up step lowers the rank by one, so a route with u up-hops is
 * 2u + rank(D) - rank(s) hops long, and an ancestor's is rank(D) -
 * rank(s), all down. Those are the labels (incr_lab.h): distance and the
 * DOWN mode, with which incremental.c's up*-down* repair (Ramalingam and
 * Reps on the legal steps) keeps exactly cr-ftree's u and ancestors.
 *
 * ft_incr_pick() chooses an entry again as route_switch() (ftree.c) does,
 * with the labels for u and the ancestor marks: down from an ancestor to
 * the only child toward D by the cable that child takes up, else to the
 * trunk of the LID's spanning tree, else the least loaded; up by the
 * LID's D-mod-k slot when the slot's parent is one up-hop closer, else
 * the least loaded of the closer parents' ports.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/parallel.h>
#include <croute/route/portsel.h>

#include "ftree_int.h"
#include "ft_incr.h"
#include "incr_lab.h"

static void label_row(const struct ft *ft, uint32_t d, uint8_t *row, uint8_t *u,
		      uint32_t *queue)
{
	int rd = ft->sw[d].rank;
	uint32_t n = 0;

	memset(row, LAB_NONE, ft->ns);
	row[d] = LAB(0, 1);
	if (rd < 0)
		return; /* left out of the tree: only its own LID */
	memset(u, FT_INF, ft->ns);
	u[d] = 0;
	queue[n++] = d;
	for (uint32_t head = 0; head < n; head++) {
		uint32_t x = queue[head];
		const struct ft_group *g = ft_up(ft, x);

		for (unsigned i = 0; i < ft->sw[x].nup; i++) {
			uint32_t p = g[i].remote;

			if (u[p] == 0)
				continue;
			u[p] = 0;
			row[p] = LAB(rd - ft->sw[p].rank, 1);
			queue[n++] = p;
		}
	}
	/* Parents before children: u as mark_ancestors() counts it. */
	for (uint32_t i = 0; i < ft->nranked; i++) {
		uint32_t s = ft->by_rank[i];
		const struct ft_group *g = ft_up(ft, s);
		unsigned best = FT_INF;

		if (u[s] == 0)
			continue;
		for (unsigned j = 0; j < ft->sw[s].nup; j++)
			if (u[g[j].remote] + 1u < best)
				best = u[g[j].remote] + 1u;
		u[s] = (uint8_t)best;
		if (best != FT_INF)
			row[s] = LAB(2 * best + rd - ft->sw[s].rank, 0);
	}
}

struct label_job {
	const struct ft *ft;
	uint8_t *lab;
};

static int label_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	const struct label_job *j = arg;
	uint32_t ns = j->ft->ns;
	uint8_t *u = malloc(ns + 1);
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));

	(void)part;
	(void)nparts;
	if (u && queue)
		for (uint32_t d = begin; d < end; d++)
			label_row(j->ft, d, j->lab + (size_t)d * ns, u, queue);
	free(u);
	free(queue);
	return u && queue ? 0 : -1;
}

int ft_incr_labels(const struct ft *ft, uint8_t *lab)
{
	struct label_job j = {ft, lab};

	return cr_parallel(ft->ns, cr_parallel_parts(ft->ns, 16), label_range,
			   &j);
}

void ft_incr_shape(const struct ft *ft, uint32_t *rank, uint64_t *leaf_guid)
{
	for (uint32_t s = 0; s < ft->ns; s++)
		rank[s] = ft->sw[s].rank < 0 ? UINT32_MAX
					     : (uint32_t)ft->sw[s].rank;
	for (uint32_t i = 0; i < ft->nleaves; i++)
		leaf_guid[i] = ft_guid(ft, ft->leaves[i]);
}

void ft_incr_order_ports(struct ft *ft, struct cr_portsel *ps)
{
	for (uint32_t s = 0; s < ft->ns; s++) {
		const struct ft_sw *sw = &ft->sw[s];
		const struct ft_group *g = ft_up(ft, s);

		for (unsigned i = 0; i < (unsigned)sw->nup + sw->ndown; i++)
			cr_portsel_order(ps, sw->node, ft->ports + g[i].first,
					 g[i].nports);
	}
}

/* y is one label step closer than lw, and lw's mode allows the step. */
static inline bool closer(uint8_t lw, uint8_t ly, bool down)
{
	return ly != LAB_NONE && LAB_DIST(ly) + 1 == LAB_DIST(lw) &&
	       (!down || LAB_DOWN(ly));
}

uint8_t ft_incr_pick(const struct ft *ft, struct cr_portsel *ps, uint32_t w,
		     const struct ft_dest *t, const uint8_t *row)
{
	const struct ft_sw *sw = &ft->sw[w];
	uint8_t lw = row[w], cands[CR_MAX_PORTS + 1];
	int h = ft_height(ft, w);
	unsigned nc = 0;

	if (LAB_DOWN(lw)) {
		const struct ft_group *g = ft_down(ft, w), *one = NULL;
		const struct ft_group *trunk = NULL;
		unsigned n = 0;

		for (unsigned i = 0; i < sw->ndown; i++) {
			if (!closer(lw, row[g[i].remote], true))
				continue;
			n++;
			one = &g[i];
			if (h > 0 && g[i].remote == t->trunk[h - 1])
				trunk = &g[i];
			memcpy(cands + nc, ft->ports + g[i].first, g[i].nports);
			nc += g[i].nports;
		}
		if (n == 1)
			return ft_route_down(ft, one, t, h);
		if (trunk)
			return ft_route_down(ft, trunk, t, h);
	} else {
		const struct ft_group *g = ft_up(ft, w);

		if (sw->nslots) {
			uint32_t v = t->slot[h];
			int32_t e;

			if (sw->nslots != ft->common_slots[h])
				v = t->digit[h] % sw->nslots;
			e = ft->slots[sw->slot + v];
			if (e >= 0 && closer(lw, row[g[e >> 8].remote], false))
				return ft->ports[g[e >> 8].first + (e & 0xff)];
		}
		for (unsigned i = 0; i < sw->nup; i++) {
			if (!closer(lw, row[g[i].remote], false))
				continue;
			memcpy(cands + nc, ft->ports + g[i].first, g[i].nports);
			nc += g[i].nports;
		}
	}
	return cr_portsel_pick(ps, sw->node, cands, nc, t->lid, t->flags);
}
