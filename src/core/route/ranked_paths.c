// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shortest paths on ranked VLs: the part of cr-dfp and cr-hyperx that
 * does not depend on the fabric's shape. The engine ranks the channels
 * twice, once per VL; a path takes SL 0 if its channels' VL 0 ranks
 * strictly rise, else SL 1 if its VL 1 ranks do, and SL i travels on VL
 * i. Every dependency on a VL then joins two channels of rising rank, so
 * neither VL has a credit loop, whatever cables are missing.
 *
 * Paths. For each destination switch, a breadth-first search in waves:
 * a switch takes the first wave in which a neighbour labelled in the
 * previous one gives it a path rising on some VL (both preferred, then
 * VL 0 or VL 1 as the engine asks per switch, then the most room left
 * below), and every cable to a neighbour giving that same state is a
 * candidate. Each LID then picks among them with the port-selection
 * module: with flow balance the farthest switches first, each passing on
 * the CA sources whose route crosses it; else nearest first. Global
 * balance (path loads) may add rounds of rip-up and reroute (+rr): each
 * CA LID's routes leave the path loads and it picks again among the same
 * candidates, against every other LID's load; the ranks, and with them
 * the SLs' freedom from credit loops, are untouched. A switch
 * without CAs may be left without a path to another without CAs; any
 * other switch left without one fails the try, and the engine's next
 * try (another order of its ranks) is routed. Before the tables are
 * returned, every switch's path to every LID, as written, is checked to
 * rise on its SL's VL; a failure, or a second VL that max_vls forbids,
 * routes the whole fabric with cr-updn on one VL instead.
 *
 * Cost: per destination switch a few waves over the switch links (the
 * channels' ranks computed once a try), per LID a pick on every switch
 * (1 + rounds of them with +rr);
 * with flow balance a destination's LIDs are picked together, switch by
 * switch, so each table row is touched once per destination rather than
 * once per LID, and each level's switches are split over a team of
 * threads (the same tables for any count). The check is linear in the tables (each switch's path to
 * a LID is walked once, from where it meets one done), on blocks of
 * LIDs copied out of the rows, ranges of LIDs on threads.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/route/flowbal.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

#include "ranked_paths.h"

int cr_ranked_alloc(struct cr_ranked *rp)
{
	const struct cr_fabric *f = rp->f;
	uint32_t ns = rp->ns, np = 0;

	rp->mask = 3;
	if (cr_switch_adjacency(f, &rp->adj_start, &rp->adj, &rp->adj_port))
		return -1;
	rp->port_start = calloc(ns + 1, sizeof(*rp->port_start));
	rp->cand = malloc(rp->adj_start[ns] + 1);
	rp->dist = calloc(ns + 1, sizeof(*rp->dist));
	rp->ok = calloc(ns + 1, 1);
	rp->pref1 = calloc(ns + 1, 1);
	rp->first[0] = calloc(ns + 1, sizeof(int));
	rp->first[1] = calloc(ns + 1, sizeof(int));
	rp->cand_start = calloc(ns + 1, sizeof(*rp->cand_start));
	rp->cas = calloc(ns + 1, sizeof(*rp->cas));
	rp->only = calloc(ns + 1, 1);
	rp->order = calloc(ns + 1, sizeof(*rp->order));
	rp->stack = calloc(ns + 2, sizeof(*rp->stack));
	rp->rk[0] = calloc(rp->adj_start[ns] + 1, sizeof(int));
	rp->rk[1] = calloc(rp->adj_start[ns] + 1, sizeof(int));
	if (!rp->rk[0] || !rp->rk[1] || !rp->port_start || !rp->cand ||
	    !rp->dist || !rp->ok || !rp->pref1 || !rp->first[0] ||
	    !rp->first[1] || !rp->cand_start || !rp->cas || !rp->only ||
	    !rp->order || !rp->stack)
		return -1;
	for (uint32_t s = 0; s < ns; s++) {
		rp->port_start[s] = np;
		np += f->nodes[f->switches[s]].num_ports + 1u;
		rp->cas[s] = cr_switch_num_cas(f, s);
	}
	rp->port_start[ns] = np;
	rp->port_entry = malloc(((size_t)np + 1) * sizeof(*rp->port_entry));
	if (!rp->port_entry)
		return -1;
	for (uint32_t x = 0; x < np; x++)
		rp->port_entry[x] = UINT32_MAX;
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++)
			rp->port_entry[rp->port_start[s] + rp->adj_port[i]] = i;
	return 0;
}

void cr_ranked_free(struct cr_ranked *rp)
{
	free(rp->port_start);
	free(rp->port_entry);
	free(rp->dist);
	free(rp->ok);
	free(rp->pref1);
	free(rp->first[0]);
	free(rp->first[1]);
	free(rp->cand_start);
	free(rp->cand);
	free(rp->cas);
	free(rp->only);
	free(rp->order);
	free(rp->stack);
	free(rp->rk[0]);
	free(rp->rk[1]);
	for (unsigned w = 0; w < CR_MAX_THREADS; w++)
		free(rp->acc[w]);
	cr_team_stop(rp->team);
	cr_portsel_free(rp->ps);
	free(rp->adj_start);
	free(rp->adj);
	free(rp->adj_port);
}

/*
 * The ranks of every channel in the current try: the searches and the
 * check read each one many times per destination.
 */
static void fill_ranks(struct cr_ranked *rp)
{
	for (uint32_t s = 0; s < rp->ns; s++)
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++)
			for (unsigned v = 0; v < 2; v++)
				rp->rk[v][i] =
					rp->rank(rp, v, i, s, rp->adj[i]);
}

uint8_t cr_ranked_state_via(const struct cr_ranked *rp, uint32_t i, uint32_t s,
			    uint32_t t, int *r0, int *r1)
{
	uint8_t ok = 0;

	(void)s;
	(void)t;
	*r0 = rp->rk[0][i];
	*r1 = rp->rk[1][i];
	if ((rp->ok[t] & 1) && *r0 < rp->first[0][t])
		ok |= 1;
	if ((rp->ok[t] & 2) && *r1 < rp->first[1][t])
		ok |= 2;
	return ok & rp->mask;
}

/*
 * A path's state: ok, the VLs it rises on (bits), r[v], its first
 * channel's rank on VL v.
 */
struct state {
	uint8_t ok;
	int r[2];
};

/* The state of the path from switch index s over adjacency entry i. */
static struct state state_via(const struct cr_ranked *rp, uint32_t i,
			      uint32_t s, uint32_t m)
{
	struct state a;

	a.ok = cr_ranked_state_via(rp, i, s, m, &a.r[0], &a.r[1]);
	return a;
}

/*
 * Whether state a is better than b: both VLs, else VL 0 (VL 1 where
 * vl1), then the most room left below on each.
 */
static bool state_better(const struct state *a, const struct state *b, bool vl1)
{
	static const int pref[2][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}};

	if (pref[vl1][a->ok] != pref[vl1][b->ok])
		return pref[vl1][a->ok] > pref[vl1][b->ok];
	if ((a->ok & 1) && a->r[0] != b->r[0])
		return a->r[0] > b->r[0];
	return (a->ok & 2) && a->r[1] > b->r[1];
}

static bool state_same(const struct state *a, const struct state *b)
{
	return a->ok == b->ok && (!(a->ok & 1) || a->r[0] == b->r[0]) &&
	       (!(a->ok & 2) || a->r[1] == b->r[1]);
}

/* One wave: labels the switches a neighbour of the last wave leads. */
static bool label_wave(struct cr_ranked *rp, int wave)
{
	bool more = false;

	for (uint32_t s = 0; s < rp->ns; s++) {
		struct state b = {0};

		if (rp->dist[s] >= 0)
			continue;
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++) {
			uint32_t m = rp->adj[i];
			struct state a;

			if (rp->dist[m] != wave - 1)
				continue;
			a = state_via(rp, i, s, m);
			if (a.ok &&
			    (!b.ok || state_better(&a, &b, rp->pref1[s])))
				b = a;
		}
		if (!b.ok)
			continue;
		/* Labelled at the end of the wave: ok[] is read. */
		rp->ok[s] = b.ok | 0x80;
		rp->first[0][s] = b.r[0];
		rp->first[1][s] = b.r[1];
		more = true;
	}
	for (uint32_t s = 0; s < rp->ns; s++)
		if (rp->ok[s] & 0x80 && rp->dist[s] < 0) {
			rp->ok[s] &= 3;
			rp->dist[s] = wave;
		}
	return more;
}

void cr_ranked_label_waves(struct cr_ranked *rp, uint32_t t)
{
	for (uint32_t s = 0; s < rp->ns; s++)
		rp->dist[s] = -1;
	rp->dist[t] = 0;
	rp->ok[t] = 3;
	rp->first[0][t] = rp->first[1][t] = INT_MAX;
	for (int wave = 1; label_wave(rp, wave); wave++)
		;
}

bool cr_ranked_lacks(const struct cr_ranked *rp, uint32_t s, uint32_t t,
		     const uint8_t *hop)
{
	return rp->dist[s] < 0 && hop[s] != CR_HOPS_INF &&
	       (rp->cas[s] || rp->cas[t]);
}

uint32_t cr_ranked_label(struct cr_ranked *rp, uint32_t t, const uint8_t *hop,
			 uint32_t *one)
{
	uint32_t left = 0, nc = 0;

	cr_ranked_label_waves(rp, t);
	/* Candidates: the neighbours one wave nearer giving that state. */
	for (uint32_t s = 0; s < rp->ns; s++) {
		struct state got;

		rp->cand_start[s] = nc;
		if (rp->dist[s] <= 0) {
			if (cr_ranked_lacks(rp, s, t, hop) && !left++)
				*one = s;
			continue;
		}
		got = (struct state){rp->ok[s],
				     {rp->first[0][s], rp->first[1][s]}};
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++) {
			uint32_t m = rp->adj[i];
			struct state a;

			if (rp->dist[m] != rp->dist[s] - 1)
				continue;
			a = state_via(rp, i, s, m);
			if (state_same(&a, &got))
				rp->cand[nc++] = rp->adj_port[i];
		}
	}
	rp->cand_start[rp->ns] = nc;
	return left;
}

void cr_ranked_tree(const struct cr_ranked *rp, uint32_t t, unsigned v,
		    const struct cr_ranked_trees *tr)
{
	int *best = tr->best[v], *hops = tr->hops;
	uint32_t *next = tr->next[v];
	bool *done = tr->done;

	for (uint32_t s = 0; s < rp->ns; s++) {
		best[s] = INT_MIN;
		next[s] = UINT32_MAX;
		hops[s] = INT_MAX;
		done[s] = false;
	}
	best[t] = INT_MAX;
	hops[t] = 0;
	/* Highest rank first: a path only falls as it grows backward. */
	for (;;) {
		uint32_t x = UINT32_MAX;

		for (uint32_t s = 0; s < rp->ns; s++)
			if (!done[s] && best[s] > INT_MIN &&
			    (x == UINT32_MAX || best[s] > best[x] ||
			     (best[s] == best[x] && hops[s] < hops[x])))
				x = s;
		if (x == UINT32_MAX)
			break;
		done[x] = true;
		for (uint32_t i = rp->adj_start[x]; i < rp->adj_start[x + 1];
		     i++) {
			uint32_t s = rp->adj[i];

			if (done[s])
				continue;
			for (uint32_t j = rp->adj_start[s];
			     j < rp->adj_start[s + 1]; j++) {
				int r;

				if (rp->adj[j] != x)
					continue;
				r = rp->rk[v][j];
				if (r < best[x] &&
				    (r > best[s] ||
				     (r == best[s] && hops[x] + 1 < hops[s]))) {
					best[s] = r;
					hops[s] = hops[x] + 1;
					next[s] = j;
				}
			}
		}
	}
}

/* Labels switch index s and the switches its path crosses (follow). */
static void follow_one(struct cr_ranked *rp, const uint32_t *next, uint32_t s)
{
	uint32_t top = 0, x = s;

	while (rp->dist[x] == -2) {
		rp->dist[x] = -3;
		rp->stack[top++] = x;
		if (next[x] == UINT32_MAX)
			break;
		x = rp->adj[next[x]];
	}
	while (top) {
		uint32_t y = rp->stack[--top], m;

		rp->ok[y] = 0;
		if (next[y] == UINT32_MAX ||
		    rp->dist[m = rp->adj[next[y]]] < 0) {
			/* No entry, a loop, or toward a switch without. */
			rp->dist[y] = -1;
			continue;
		}
		for (unsigned v = 0; v < 2; v++) {
			int r = rp->rk[v][next[y]];

			rp->first[v][y] = r;
			if ((rp->ok[m] >> v & 1) && r < rp->first[v][m])
				rp->ok[y] |= (uint8_t)(1u << v);
		}
		rp->dist[y] = rp->ok[y] ? rp->dist[m] + 1 : -1;
	}
}

uint32_t cr_ranked_follow(struct cr_ranked *rp, uint32_t t,
			  const uint32_t *next, const uint8_t *hop,
			  uint32_t *one)
{
	uint32_t left = 0, nc = 0;

	for (uint32_t s = 0; s < rp->ns; s++)
		rp->dist[s] = -2;
	rp->dist[t] = 0;
	rp->ok[t] = 3;
	rp->first[0][t] = rp->first[1][t] = INT_MAX;
	for (uint32_t s = 0; s < rp->ns; s++)
		follow_one(rp, next, s);
	for (uint32_t s = 0; s < rp->ns; s++) {
		rp->cand_start[s] = nc;
		if (rp->dist[s] > 0)
			rp->cand[nc++] = rp->adj_port[next[s]];
		else if (cr_ranked_lacks(rp, s, t, hop) && !left++)
			*one = s;
	}
	rp->cand_start[rp->ns] = nc;
	return left;
}

/* The labelled switches by distance to the destination, nearest first. */
static void sort_by_distance(struct cr_ranked *rp)
{
	uint32_t n = 0, start[257] = {0};

	for (uint32_t s = 0; s < rp->ns; s++)
		if (rp->dist[s] >= 0 && rp->dist[s] < 256)
			start[rp->dist[s] + 1]++;
	for (unsigned k = 1; k < 257; k++)
		start[k] += start[k - 1];
	memcpy(rp->level_start, start, sizeof(rp->level_start));
	for (uint32_t s = 0; s < rp->ns; s++)
		if (rp->dist[s] >= 0 && rp->dist[s] < 256) {
			rp->order[start[rp->dist[s]]++] = s;
			n++;
		}
	rp->num_order = n;
}

static void pick(struct cr_ranked *rp, uint32_t s, uint16_t lid, unsigned flags)
{
	const struct cr_fabric *f = rp->f;
	uint32_t sw = f->switches[s], c = rp->cand_start[s];
	unsigned n = rp->cand_start[s + 1] - c;

	rp->r->lft[sw][lid] =
		cr_portsel_pick(rp->ps, sw, &rp->cand[c], n, lid, flags);
	rp->r->sl[sw][lid] = rp->ok[s] & 1 ? 0 : 1;
	rp->second |= !(rp->ok[s] & 1);
}

static unsigned lid_flags(const struct cr_fabric *f, uint16_t lid)
{
	return (cr_lid_is_base(f, lid) ? CR_PS_BASE : 0) |
	       (cr_is_switch(f, f->lid_node[lid]) ? CR_PS_NOCOUNT : 0) |
	       CR_PS_SORTED;
}

/*
 * Nearest first, lid by lid. Global balance commits each CA LID's paths;
 * a switch's own LID carries next to no traffic, and it comes among the
 * CA LIDs here (each destination switch's LIDs together), where its
 * weights, counted as if every CA sent to it, would steer the CA LIDs
 * after it.
 */
static void route_lid(struct cr_ranked *rp, uint16_t lid)
{
	unsigned flags = lid_flags(rp->f, lid);

	if (rp->rerouting && !(flags & CR_PS_NOCOUNT))
		cr_portsel_uncommit(rp->ps, lid);
	for (uint32_t i = 1; i < rp->num_order; i++)
		pick(rp, rp->order[i], lid, flags);
	if (!(flags & CR_PS_NOCOUNT))
		cr_portsel_commit(rp->ps, lid);
}

/*
 * One part of a level under flow balance: each switch adds up the flows
 * the level above passed it (every member's array, then cleared), picks
 * the chunk's LIDs in order and passes their flows on into this member's
 * array. A pick reads and changes only its own switch's balance (and its
 * earlier LIDs' entries), and a LID's sources reach a switch only from
 * farther ones, so the tables are those of routing LID by LID, farthest
 * switch first, on any number of threads: the sums are of integers.
 */
static int level_chunk(void *arg, unsigned worker, unsigned chunk)
{
	struct cr_ranked *rp = arg;
	const struct cr_fabric *f = rp->f;
	uint32_t len = rp->lend - rp->lbegin;
	uint32_t b =
		rp->lbegin + (uint32_t)((uint64_t)len * chunk / rp->nchunks);
	uint32_t e = rp->lbegin +
		     (uint32_t)((uint64_t)len * (chunk + 1) / rp->nchunks);
	unsigned nl = rp->num_lids;
	uint64_t *out = rp->acc[worker], from[CR_RANKED_CHUNK];

	for (uint32_t i = b; i < e; i++) {
		uint32_t s = rp->order[i], sw = f->switches[s];
		uint32_t c = rp->cand_start[s], ps = rp->port_start[s];
		unsigned n = rp->cand_start[s + 1] - c;
		uint8_t *lft = rp->r->lft[sw], *sl = rp->r->sl[sw];
		uint8_t v = rp->ok[s] & 1 ? 0 : 1;
		size_t at = (size_t)s * CR_RANKED_CHUNK;

		for (unsigned k = 0; k < nl; k++)
			from[k] = rp->cas[s];
		for (unsigned w = 0; w < rp->members; w++)
			for (unsigned k = 0; k < nl; k++) {
				from[k] += rp->acc[w][at + k];
				rp->acc[w][at + k] = 0;
			}
		rp->second_by[worker] |= v;
		for (unsigned k = 0; k < nl; k++) {
			uint16_t lid = rp->lids[k];
			uint8_t p;

			/* Its own CAs' flows come now: no longer expected. */
			if (rp->only[s] &&
			    (rp->lflags[k] & (CR_PS_BASE | CR_PS_NOCOUNT)) ==
				    CR_PS_BASE)
				cr_portsel_expect_flows(rp->ps, sw, rp->only[s],
							-(int64_t)rp->cas[s]);
			p = cr_portsel_pick_flows(rp->ps, sw, &rp->cand[c], n,
						  lid, rp->lflags[k], from[k]);
			uint32_t m = rp->adj[rp->port_entry[ps + p]];

			lft[lid] = p;
			sl[lid] = v;
			out[(size_t)m * CR_RANKED_CHUNK + k] += from[k];
		}
	}
	return 0;
}

/* The chunk of LIDs in rp->lids under flow balance, level by level. */
static void route_chunk(struct cr_ranked *rp)
{
	uint32_t t = rp->order[0];

	for (unsigned h = 255; h >= 1; h--) {
		uint64_t picks;

		rp->lbegin = rp->level_start[h];
		rp->lend = rp->level_start[h + 1];
		if (rp->lbegin == rp->lend)
			continue;
		/* Split only where the picks outweigh a round's handover. */
		picks = (uint64_t)(rp->lend - rp->lbegin) * rp->num_lids;
		rp->nchunks = (unsigned)(picks / cr_flow_grain());
		if (rp->nchunks > 4 * rp->members)
			rp->nchunks = 4 * rp->members;
		if (rp->nchunks > rp->lend - rp->lbegin)
			rp->nchunks = rp->lend - rp->lbegin;
		if (rp->members == 1 || !rp->nchunks)
			rp->nchunks = 1;
		cr_team_run(rp->team, rp->nchunks, level_chunk, rp);
	}
	/* The destination passes nothing on: what reached it is spent. */
	for (unsigned w = 0; w < rp->members; w++)
		memset(&rp->acc[w][(size_t)t * CR_RANKED_CHUNK], 0,
		       CR_RANKED_CHUNK * sizeof(uint64_t));
	rp->num_lids = 0;
}

/* Routes lid toward switch index t, where port delivers it. */
static void route_lid_to(struct cr_ranked *rp, uint16_t lid, uint32_t t,
			 uint8_t port)
{
	const struct cr_fabric *f = rp->f;

	rp->r->lft[f->switches[t]][lid] = port;
	rp->r->sl[f->switches[t]][lid] = 0;
	if (!rp->flows) {
		route_lid(rp, lid);
		return;
	}
	rp->lids[rp->num_lids] = lid;
	rp->lflags[rp->num_lids++] = (uint8_t)lid_flags(f, lid);
	if (rp->num_lids == CR_RANKED_CHUNK)
		route_chunk(rp);
}

/* s's only link to a switch one hop nearer (hop: toward t); else 0. */
static uint8_t only_port(const struct cr_ranked *rp, uint32_t s,
			 const uint8_t *hop)
{
	uint8_t p = 0;

	if (!hop[s] || hop[s] == CR_HOPS_INF)
		return 0;
	for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1]; i++)
		if (hop[rp->adj[i]] + 1 == hop[s]) {
			if (p)
				return 0;
			p = rp->adj_port[i];
		}
	return p;
}

/* The base LIDs of the CAs on switch index t, as route_switch() routes. */
static uint32_t ca_lids(const struct cr_ranked *rp, uint32_t t)
{
	const struct cr_fabric *f = rp->f;
	const struct cr_node *n = &f->nodes[f->switches[t]];
	uint32_t c = 0;

	for (unsigned p = 1; p <= n->num_ports; p++) {
		uint32_t m = n->ports[p].remote;
		uint16_t lid;

		if (m == CR_NO_NODE || cr_is_switch(f, m))
			continue;
		lid = f->nodes[m].ports[n->ports[p].remote_port].lid;
		c += lid && lid <= f->max_lid;
	}
	return c;
}

/*
 * Flow balance picks a port by the flows routed so far, LID after LID.
 * Where a switch's own CAs can reach a destination switch by one port
 * only, their flows there are known before they are routed: expected on
 * that port from the start, so that the free picks of earlier LIDs do
 * not fill a port that forced flows will load later (a dragonfly+
 * leaf's uplinks, each the only way to the groups its spine is cabled
 * to). level_chunk() takes them back as they come.
 */
static void expect_forced(struct cr_ranked *rp, const uint8_t *dist)
{
	const struct cr_fabric *f = rp->f;

	for (uint32_t t = 0; t < rp->ns; t++) {
		const uint8_t *hop = &dist[(size_t)t * rp->ns];
		int64_t lids = ca_lids(rp, t);

		for (uint32_t s = 0; lids && s < rp->ns; s++) {
			uint8_t p = rp->cas[s] ? only_port(rp, s, hop) : 0;

			if (p)
				cr_portsel_expect_flows(rp->ps, f->switches[s],
							p, lids * rp->cas[s]);
		}
	}
}

/* The LIDs switch index t delivers: its own and its CAs'. */
static void route_switch(struct cr_ranked *rp, uint32_t t, const uint8_t *hop)
{
	const struct cr_fabric *f = rp->f;
	uint32_t sw = f->switches[t];
	const struct cr_node *n = &f->nodes[sw];

	sort_by_distance(rp);
	for (uint32_t s = 0; rp->flows && s < rp->ns; s++)
		rp->only[s] = rp->cas[s] ? only_port(rp, s, hop) : 0;
	/* Once for every LID of t: the picks then skip their sort. */
	for (uint32_t s = 0; s < rp->ns; s++)
		cr_portsel_order(rp->ps, f->switches[s],
				 &rp->cand[rp->cand_start[s]],
				 rp->cand_start[s + 1] - rp->cand_start[s]);
	rp->num_lids = 0;
	for (unsigned p = 0; p <= n->num_ports; p++) {
		uint32_t m = p ? n->ports[p].remote : sw;
		unsigned q = p ? n->ports[p].remote_port : 0;
		const struct cr_port *x;

		if (m == CR_NO_NODE || (p && cr_is_switch(f, m)))
			continue;
		x = &f->nodes[m].ports[q];
		for (unsigned i = 0; x->lid && i < (1u << x->lmc); i++)
			if (x->lid + i <= f->max_lid)
				route_lid_to(rp, x->lid + i, t, (uint8_t)p);
	}
	if (rp->num_lids)
		route_chunk(rp);
}

/* Every LID; -1 with the reason in why when a switch has no path. */
static int route_all(struct cr_ranked *rp, const uint8_t *dist, char *why,
		     size_t len)
{
	const struct cr_fabric *f = rp->f;

	rp->second = false;
	memset(rp->second_by, 0, sizeof(rp->second_by));
	if (rp->flows)
		expect_forced(rp, dist);
	for (uint32_t t = 0; t < rp->ns; t++) {
		const uint8_t *hop = &dist[(size_t)t * rp->ns];
		uint32_t one = 0, left = rp->label(rp, t, hop, &one);

		for (uint32_t s = 0; s < rp->ns; s++)
			rp->pairs_left += rp->dist[s] < 0 &&
					  hop[s] != CR_HOPS_INF &&
					  !cr_ranked_lacks(rp, s, t, hop);
		if (left) {
			snprintf(why, len,
				 "%u switch(es) (%s first) have no "
				 "path to %s rising in either VL's order",
				 left, f->nodes[f->switches[one]].desc,
				 f->nodes[f->switches[t]].desc);
			return -1;
		}
		route_switch(rp, t, hop);
	}
	for (unsigned w = 0; w < CR_MAX_THREADS; w++)
		rp->second |= rp->second_by[w];
	return 0;
}

/* The team and its flow arrays for flow balance; -1 out of memory. */
static int start_team(struct cr_ranked *rp)
{
	if (rp->team)
		return 0;
	rp->team = cr_team_start(cr_threads_get());
	if (!rp->team)
		return -1;
	rp->members = cr_team_size(rp->team);
	for (unsigned w = 0; w < rp->members; w++) {
		rp->acc[w] = calloc((size_t)(rp->ns + 1) * CR_RANKED_CHUNK,
				    sizeof(uint64_t));
		if (!rp->acc[w])
			return -1;
	}
	return 0;
}

int cr_ranked_route_tries(struct cr_ranked *rp, const uint8_t *dist,
			  unsigned tries, char *why, size_t len)
{
	int rc;

	for (unsigned k = 0; k < tries; k++) {
		if (rp->set_try(rp, k))
			return -2;
		fill_ranks(rp);
		cr_portsel_free(rp->ps);
		rp->ps = NULL;
		rp->pairs_left = 0;
		cr_routing_clear(rp->r);
		if (cr_routing_alloc_sl(rp->f, rp->r))
			return -2;
		rp->ps = cr_portsel_new(rp->f, rp->o, rp->r);
		if (!rp->ps)
			return -2;
		rc = cr_portsel_use_flows(rp->ps);
		if (rc < 0)
			return -2;
		rp->flows = rc == 1;
		if (rp->flows && start_team(rp))
			return -2;
		rp->rerouting = false;
		rc = route_all(rp, dist, why, len);
		/* Rounds of rip-up and reroute: the same candidates. */
		for (unsigned i = 0;
		     !rc && !rp->flows && cr_portsel_global(rp->ps) &&
		     i < rp->o->balance_rounds;
		     i++) {
			rp->rerouting = true;
			rp->pairs_left = 0;
			rc = route_all(rp, dist, why, len);
			rp->rerouting = false;
		}
		if (!rc)
			return 0;
		cr_verbose("%s: %s %u: %s", rp->name, rp->try_what, k, why);
	}
	return -1;
}

/*
 * One part's walk state for the final check: per switch index, whether
 * its path to the current LID rises (bit v) and its first channel's rank
 * on each VL; stamp marks the switches done for that LID.
 */
struct walk {
	const struct cr_ranked *rp;
	uint32_t *stack, *stamp;
	uint8_t *ok;
	int *first[2];
	/*
	 * A block of LIDs' entries, [switch index * CR_RANKED_CHUNK + LID
	 * in block]: each table row is read once a block, where walking it
	 * LID by LID would touch every switch's row (and page) per LID.
	 */
	uint8_t *lft, *sl;
};

static void walk_free(struct walk *w)
{
	free(w->stack);
	free(w->stamp);
	free(w->ok);
	free(w->first[0]);
	free(w->first[1]);
	free(w->lft);
	free(w->sl);
}

static int walk_alloc(struct walk *w, const struct cr_ranked *rp)
{
	uint32_t ns = rp->ns;

	w->rp = rp;
	w->stack = calloc(ns + 2, sizeof(*w->stack));
	w->stamp = calloc(ns + 1, sizeof(*w->stamp));
	w->ok = calloc(ns + 1, 1);
	w->first[0] = calloc(ns + 1, sizeof(int));
	w->first[1] = calloc(ns + 1, sizeof(int));
	w->lft = malloc((size_t)(ns + 1) * CR_RANKED_CHUNK);
	w->sl = malloc((size_t)(ns + 1) * CR_RANKED_CHUNK);
	if (w->stack && w->stamp && w->ok && w->first[0] && w->first[1] &&
	    w->lft && w->sl)
		return 0;
	walk_free(w);
	return -1;
}

/*
 * The path from switch index s toward lid, as the tables route it: its
 * first channel's rank on each VL into first[], and whether its ranks
 * rise (bit v) into ok[]; stamp[] marks the switches done for this LID.
 * Iterative: the path is walked to a switch done, then unwound.
 */
static void path_state(struct walk *w, unsigned k, uint32_t s, uint32_t stamp)
{
	const struct cr_ranked *rp = w->rp;
	const struct cr_fabric *f = rp->f;
	uint32_t top = 0;

	while (w->stamp[s] != stamp) {
		uint8_t p = w->lft[(size_t)s * CR_RANKED_CHUNK + k];
		uint32_t i = UINT32_MAX;

		if (p && p != CR_NO_PATH &&
		    p < rp->port_start[s + 1] - rp->port_start[s])
			i = rp->port_entry[rp->port_start[s] + p];
		w->stack[top++] = s;
		if (i == UINT32_MAX || top > rp->ns) {
			const struct cr_node *n = &f->nodes[f->switches[s]];
			bool end =
				!p || (p != CR_NO_PATH && p <= n->num_ports &&
				       n->ports[p].remote != CR_NO_NODE);

			/* Delivered, no entry, or a loop: ends here. */
			w->stamp[s] = stamp;
			w->ok[s] = end && top <= rp->ns ? 3 : 0;
			w->first[0][s] = w->first[1][s] = INT_MAX;
			top--;
			break;
		}
		s = rp->adj[i];
	}
	while (top) {
		uint32_t x = w->stack[--top];
		uint8_t p = w->lft[(size_t)x * CR_RANKED_CHUNK + k];
		uint32_t i = rp->port_entry[rp->port_start[x] + p];
		uint32_t y = rp->adj[i];

		w->ok[x] = 0;
		for (unsigned v = 0; v < 2; v++) {
			int r = rp->rk[v][i];

			w->first[v][x] = r;
			if ((w->ok[y] >> v & 1) && r < w->first[v][y])
				w->ok[x] |= (uint8_t)(1u << v);
		}
		w->stamp[x] = stamp;
	}
}

/* LIDs [begin + 1, end + 1): 1 when some path does not rise. */
static int vl_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		    uint32_t end)
{
	struct walk *w = (struct walk *)arg + part;
	const struct cr_ranked *rp = w->rp;
	const struct cr_fabric *f = rp->f;
	uint32_t stamp = 0;

	(void)nparts;
	for (uint32_t b = begin + 1; b <= end; b += CR_RANKED_CHUNK) {
		unsigned nl = end - b + 1 < CR_RANKED_CHUNK ? end - b + 1
							    : CR_RANKED_CHUNK;

		for (uint32_t s = 0; s < rp->ns; s++) {
			uint32_t sw = f->switches[s];

			memcpy(&w->lft[(size_t)s * CR_RANKED_CHUNK],
			       &rp->r->lft[sw][b], nl);
			memcpy(&w->sl[(size_t)s * CR_RANKED_CHUNK],
			       &rp->r->sl[sw][b], nl);
		}
		for (unsigned k = 0; k < nl; k++) {
			if (f->lid_node[b + k] == CR_NO_NODE)
				continue;
			stamp++;
			for (uint32_t s = 0; s < rp->ns; s++) {
				size_t x = (size_t)s * CR_RANKED_CHUNK + k;

				path_state(w, k, s, stamp);
				if (w->lft[x] != CR_NO_PATH && w->sl[x] < 2 &&
				    !(w->ok[s] >> w->sl[x] & 1))
					return 1;
			}
		}
	}
	return 0;
}

/*
 * Whether some switch's path to some LID does not rise on the ranking of
 * its SL's VL: the property that keeps both VLs free of credit loops (a
 * dependency on VL v joins two channels of some path on v, of rising
 * rank), checked on the tables as written, LID by LID, every switch a
 * source. Linear in the tables, unlike a search of the dependency graph;
 * LIDs are independent, so ranges of them run on threads. 1 when some
 * path does not rise, -1 out of memory.
 */
static int vl_loops(const struct cr_ranked *rp)
{
	unsigned nparts = cr_parallel_parts(rp->f->max_lid, 256);
	struct walk w[CR_MAX_THREADS];
	unsigned k;
	int rc = -1;

	for (k = 0; k < nparts; k++)
		if (walk_alloc(&w[k], rp))
			goto out;
	rc = cr_parallel(rp->f->max_lid, nparts, vl_range, w) ? 1 : 0;
out:
	while (k--)
		walk_free(&w[k]);
	return rc;
}

int cr_ranked_fall_back(const struct cr_ranked *rp, struct cr_byproducts *by,
			const char *why)
{
	struct cr_routing *r = rp->r;

	cr_warn("%s: %s; routing the whole fabric with up*/down* on one "
		"VL instead",
		rp->name, why);
	cr_routing_clear(r);
	if (cr_updn_route(rp->f, rp->o, r, by))
		return -1;
	if (cr_routing_alloc_sl(rp->f, r))
		return -1;
	r->num_layers = 1;
	memset(r->sl2vl, 0, sizeof(r->sl2vl));
	return 0;
}

int cr_ranked_finish(struct cr_ranked *rp, struct cr_byproducts *by,
		     const char *need)
{
	unsigned max_vls = rp->o->max_vls ? rp->o->max_vls : 8;
	struct cr_routing *r = rp->r;
	char why[256];
	int rc;

	if (rp->second && max_vls < 2) {
		snprintf(why, sizeof(why), "%s need a second VL; max_vls is %u",
			 need, max_vls);
		return cr_ranked_fall_back(rp, by, why) ? -1 : 1;
	}
	r->num_layers = rp->second ? 2 : 1;
	for (unsigned sl = 0; sl < 16; sl++)
		r->sl2vl[sl] = sl < 2 ? (uint8_t)sl : 0;
	/* Guaranteed by the rankings; checked so that a flaw cannot ship. */
	rc = vl_loops(rp);
	if (rc < 0)
		return -1;
	if (rc)
		return cr_ranked_fall_back(rp, by,
					   "a VL would have a credit loop")
			       ? -1
			       : 1;
	by->vls_ranked = true;
	return 0;
}
