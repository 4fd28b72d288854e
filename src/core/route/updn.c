// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-updn: up*-down* routing over shortest legal paths.
 * This file holds the engine's entry point and its shared state: the
 * switches' adjacency and parts. The roots are chosen in updn_roots.c, the
 * LIDs' entries made in updn_lids.c, and the detours of the top-level
 * roots, with their credit-loop fall-back, in updn_detour.c; the ranks and
 * labels all of them route by are made in updn_label.c.
 *
 * Ranks are BFS distances from the roots; a link is "up" toward the
 * smaller (rank, node GUID, index) key, which totally orders the switches.
 * For each destination switch D a level-by-level BFS backward from D gives
 * every switch W one label: its distance and its mode, DOWN if its route
 * to D only goes down, UP if it starts upward. A switch may step up into
 * any labelled switch but down only into a DOWN switch, and at equal
 * distance DOWN wins (so more switches can be entered from above). W then
 * forwards every LID of D to a neighbour one step closer, respecting the
 * same rule: down into a DOWN switch if W is DOWN, up otherwise.
 *
 * Guarantees. The LFT entry of W is the same for every packet, however it
 * reached W, and it is legal for all of them: a packet enters an UP switch
 * only from its CAs or by an up hop (down hops only enter DOWN switches),
 * so going on upward is legal; from a DOWN switch it only goes down. Each
 * hop lowers the distance label by one, so every route arrives. Up hops
 * lower the key and down hops raise it, so every route is up* then down*:
 * no switch is visited twice (no loops), and in the channel dependency
 * graph a down channel never precedes an up channel; a cycle would need
 * that (an all-up or all-down cycle would need the key to decrease or
 * increase all the way round), so there are no credit loops on a single
 * virtual lane. With one root R, every switch of R's part reaches every
 * LID: the labelled switch of smallest key is R (any other has a labelled
 * neighbour of smaller key: its next hop if UP, else its BFS parent, which
 * may step down into it), and every switch reaches R by up hops (through
 * its BFS parents), which are always allowed. With the automatic tree
 * roots, the tree test guarantees that every CA switch reaches every
 * switch, and every leaf every CA switch over a shortest path; only pairs
 * of switches without CAs (two roots, say) may lack a legal path, as in
 * OpenSM's updn without connect_roots, except in the last resort of
 * updn_roots.c.
 * Pairs without a legal path are counted and logged, the ones that leave
 * CAs without a route as errors (also with roots from a list).
 *
 * Cost: all-pairs switch distances for the roots, one BFS per destination
 * switch (twice when the tree heuristic is checked), then O(LIDs x switches)
 * picks, candidates found once per (switch, destination switch). Without global
 * balance or scatter_ports the BFS and the switches are split over
 * croute_threads threads with the same tables for any count (see
 * updn_route_lids()), and so is the tree heuristic's check (roots_fit() in
 * updn_roots.c, a BFS per destination). Flow balance too, a level of switches
 * at a time (include/croute/route/flowbal.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/route/portsel.h>
#include <croute/model/roles.h>

#include "updn_int.h"

static int build_adjacency(struct updn *u)
{
	const struct cr_fabric *f = u->f;
	size_t links = 0;

	u->adj_start = calloc(u->ns + 1, sizeof(*u->adj_start));
	u->has_ca = calloc(u->ns + 1, sizeof(*u->has_ca));
	if (!u->adj_start || !u->has_ca)
		return -1;
	for (uint32_t s = 0; s < u->ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		u->adj_start[s] = links;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m == CR_NO_NODE)
				continue;
			if (cr_is_switch(f, m))
				links++;
			else
				u->has_ca[s] = true;
		}
	}
	u->adj_start[u->ns] = links;
	u->adj = malloc((links + 1) * sizeof(*u->adj));
	if (!u->adj)
		return -1;
	for (uint32_t s = 0; s < u->ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];
		size_t k = u->adj_start[s];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m == CR_NO_NODE || !cr_is_switch(f, m))
				continue;
			u->adj[k].sw = f->nodes[m].sw_index;
			u->adj[k].port = p;
			k++;
		}
	}
	return 0;
}

static void find_components(struct updn *u)
{
	for (uint32_t s = 0; s < u->ns; s++)
		u->comp[s] = CR_NO_NODE;
	for (uint32_t s = 0; s < u->ns; s++) {
		uint32_t head = 0, tail = 0;

		if (u->comp[s] != CR_NO_NODE)
			continue;
		u->comp[s] = s;
		u->queue[tail++] = s;
		while (head < tail) {
			uint32_t x = u->queue[head++];

			for (uint32_t k = u->adj_start[x];
			     k < u->adj_start[x + 1]; k++) {
				uint32_t y = u->adj[k].sw;

				if (u->comp[y] == CR_NO_NODE) {
					u->comp[y] = s;
					u->queue[tail++] = y;
				}
			}
		}
	}
}

static void updn_free(struct updn *u)
{
	free(u->adj_start);
	free(u->adj);
	free(u->comp);
	free(u->has_ca);
	cr_roles_release(&u->roles);
	free(u->is_root);
	free(u->ord);
	free(u->rank);
	free(u->dist);
	free(u->mode);
	free(u->queue);
}

static int updn_init(struct updn *u, const struct cr_fabric *f,
		     const struct cr_options *o)
{
	size_t n;

	memset(u, 0, sizeof(*u));
	u->f = f;
	u->ns = f->num_switches;
	n = u->ns + 1;
	u->comp = malloc(n * sizeof(*u->comp));
	u->is_root = calloc(n, sizeof(*u->is_root));
	u->ord = malloc(n * sizeof(*u->ord));
	u->rank = malloc(n * sizeof(*u->rank));
	u->dist = malloc(n * sizeof(*u->dist));
	u->mode = malloc(n);
	u->queue = malloc(n * sizeof(*u->queue));
	if (!u->comp || !u->is_root || !u->ord || !u->rank || !u->dist ||
	    !u->mode || !u->queue || build_adjacency(u)) {
		cr_err("cr-updn: out of memory for %u switches", u->ns);
		return -1;
	}
	/* Without options (incremental.c labels only): no leaves. */
	if (o && cr_roles_init(&u->roles, f, o))
		return -1;
	u->leaf = u->roles.leaf;
	u->o = o;
	find_components(u);
	u->tree_like = o && cr_roles_tree_like(&u->roles);
	return 0;
}

static int report_roots(struct updn *u, struct cr_byproducts *by)
{
	unsigned parts = 0;

	by->num_roots = 0;
	by->updn_detours = false;
	by->roots = malloc((u->ns + 1) * sizeof(*by->roots));
	if (!by->roots) {
		cr_err("cr-updn: out of memory for the root list");
		return -1;
	}
	for (uint32_t s = 0; s < u->ns; s++) {
		parts += u->comp[s] == s;
		if (!u->is_root[s])
			continue;
		by->roots[by->num_roots++] = u->f->switches[s];
		cr_verbose("cr-updn: root 0x%016" PRIx64 " \"%s\"",
			   updn_sw_guid(u, s),
			   u->f->nodes[u->f->switches[s]].desc);
	}
	if (parts > 1)
		cr_info("cr-updn: the switches form %u disconnected parts: routing each part alone",
			parts);
	return 0;
}

int cr_updn_route(const struct cr_fabric *f, const struct cr_options *o,
		  struct cr_routing *r, struct cr_byproducts *by)
{
	struct cr_portsel *ps = NULL;
	struct updn u;
	uint16_t *lids = NULL;
	uint64_t illegal = 0, illegal_ca = 0, apart = 0;
	int nlids = -1, ret = -1, flows;
	bool global = false;
	uint64_t totals[3];

	if (updn_init(&u, f, o))
		goto out;
	if (!f->num_switches) {
		cr_info("cr-updn: no switch, nothing to route");
		ret = 0;
		goto out;
	}
again:
	if (updn_choose_roots(&u, o) || report_roots(&u, by))
		goto out;
	ps = cr_portsel_new(f, o, r);
	if (!ps)
		goto out;
	global = cr_portsel_global(ps);
	flows = u.tree_like ? cr_portsel_use_flows(ps) : 0;
	nlids = cr_lid_order(f, o, &lids);
	if (nlids < 0 || flows < 0)
		goto out;
	memset(totals, 0, sizeof(totals));
	if (global) {
		updn_route_global(&u, r, ps, lids, nlids, totals);
	} else if (flows ? updn_route_flows(&u, r, ps, lids, nlids, totals)
			 : updn_route_lids(&u, r, ps, lids, nlids, totals)) {
		goto out;
	}
	if (u.detour) {
		int loop = updn_detours(&u, r, lids, nlids, NULL, totals, by);

		if (loop < 0)
			goto out;
		if (loop) {
			cr_routing_clear(r);
			cr_portsel_free(ps);
			ps = NULL;
			free(lids);
			lids = NULL;
			free(by->roots);
			by->roots = NULL;
			by->num_roots = 0;
			memset(u.is_root, 0, u.ns * sizeof(*u.is_root));
			u.detour = false;
			u.no_top = true;
			goto again;
		}
	}
	illegal = totals[0];
	illegal_ca = totals[1];
	apart = totals[2];
	by->stranded = illegal_ca;
	if (illegal_ca)
		cr_err("cr-updn: %" PRIu64
		       " (switch with CAs, LID) pairs have no legal up*/down* path with these roots: LIDs some CAs cannot reach (CAs on core switches? cable them to leaves, or give root_guid_file)",
		       illegal_ca);
	if (illegal)
		cr_info("cr-updn: %" PRIu64
			" (switch without CAs, LID) pairs have no legal up*/down* path (between roots, as in OpenSM's updn without connect_roots)%s",
			illegal,
			illegal_ca ? "" : "; every CA reaches every LID");
	if (apart)
		cr_info("cr-updn: %" PRIu64
			" (switch, LID) pairs are in disconnected parts",
			apart);
	ret = 0;
out:
	free(lids);
	cr_portsel_free(ps);
	updn_free(&u);
	return ret;
}

/* incremental.c's view of the engine (updn_int.h). */
struct updn *cr_updn_open(const struct cr_fabric *f, const uint32_t *roots,
			  uint32_t num_roots)
{
	struct updn *u = malloc(sizeof(*u));

	if (!u) {
		cr_err("cr-updn: out of memory");
		return NULL;
	}
	if (updn_init(u, f, NULL))
		goto fail;
	for (uint32_t i = 0; i < num_roots; i++) {
		if (roots[i] >= f->num_nodes || !cr_is_switch(f, roots[i])) {
			cr_err("cr-updn: root node %u is no switch", roots[i]);
			goto fail;
		}
		u->is_root[f->nodes[roots[i]].sw_index] = true;
	}
	if (updn_rank_switches(u))
		goto fail;
	return u;
fail:
	updn_free(u);
	free(u);
	return NULL;
}

void cr_updn_close(struct updn *u)
{
	if (!u)
		return;
	updn_free(u);
	free(u);
}

const uint32_t *cr_updn_ranks(const struct updn *u)
{
	return u->rank;
}

const uint32_t *cr_updn_order(const struct updn *u)
{
	return u->ord;
}

uint32_t cr_updn_label(const struct updn *u, uint32_t d, uint16_t *dist,
		       uint8_t *mode, uint32_t *queue)
{
	return updn_label_into(u, d, dist, mode, queue);
}
