// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-updn's detours with the top-level roots (updn_detours()): the
 * pairs of switches that up*-down* from those roots leaves without a
 * legal path take min-hop detours, kept only while they close no credit
 * loop, so that the top level can serve as roots where a leaf is not
 * cabled to every spine.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/check.h>
#include <croute/model/log.h>

#include "updn_int.h"

/*
 * Whether switch x is a better next step than best for the detour of
 * switch w (both one min-hop step closer to the destination). Toward a
 * switch with CAs, up first: the detour turns near the destination.
 * Then a neighbour with a legal route (from a CA switch toward a switch
 * LID: the detour turns near its source), cabled to the most roots,
 * lowest in the order. On a fat tree less a leaf-middle cable every
 * detour then turns next to the leaf that lost it, and the detours CA
 * traffic needs close no loop, which they can with legal first alone
 * (test_roots_top_level_cut: `croute gen fat-tree 8` less one cable).
 */
static bool detour_better(const struct updn *u, uint32_t w, uint32_t x,
			  uint32_t best, const uint32_t *roots_of, bool to_ca)
{
	bool up_x = u->ord[x] < u->ord[w], up_b = u->ord[best] < u->ord[w];
	bool legal_x = u->dist[x] != CR_UPDN_NO_LABEL;
	bool legal_b = u->dist[best] != CR_UPDN_NO_LABEL;

	if (to_ca && up_x != up_b)
		return up_x;
	if (legal_x != legal_b)
		return legal_x;
	if (roots_of[x] != roots_of[best])
		return roots_of[x] > roots_of[best];
	return u->ord[x] < u->ord[best];
}

/*
 * The detours toward destination switch d that CA traffic needs: all of
 * them when d has CAs (a switch's traps reach the SM), else those a CA
 * switch's detour crosses until it enters a legal route. The others,
 * switch to switch LID only, become CR_NO_PATH in row: such pairs lack a
 * path with the tree heuristic's roots too.
 */
static void keep_ca_detours(const struct updn *u, uint32_t d, uint8_t *row,
			    bool *keep)
{
	const struct cr_fabric *f = u->f;

	if (u->has_ca[d])
		return;
	memset(keep, 0, u->ns);
	for (uint32_t w = 0; w < u->ns; w++) {
		uint32_t x = w;

		if (!u->has_ca[w])
			continue;
		while (row[x] && !keep[x]) {
			const struct cr_node *n = &f->nodes[f->switches[x]];

			keep[x] = true;
			x = f->nodes[n->ports[row[x]].remote].sw_index;
		}
	}
	for (uint32_t w = 0; w < u->ns; w++)
		if (row[w] && !keep[w])
			row[w] = CR_NO_PATH;
}

/*
 * With the top-level roots: every switch W without a legal path to a switch D
 * (a leaf to a spine it is not cabled to, a root to another root, a spine to a
 * leaf cabled only to other spines) forwards D's LIDs to a neighbour one step
 * closer to D (min-hop), as detour_better() prefers: one with a legal path if
 * any (up first toward a CA switch), among those the one cabled to the most
 * roots, then the lowest in the up*-down* order (not the first port, so that
 * the cabling order does not matter and detours tend to turn at the same
 * switch, see below). Each hop either lowers the min-hop distance or enters a
 * switch with a legal route, which never leaves the legal ones, so every route
 * arrives and visits no switch twice. No packet between CAs meets a detour:
 * top_level_roots() (updn_roots.c) gave every CA switch a legal path to every
 * CA switch. Detours carry the traffic to switch LIDs and from switches
 * (management). The incremental run makes them again after its repair
 * (incremental.c, repair_detours()). A detour turns from down to up, so detours may close a
 * credit loop with the legal routes: spine 1 to spine 3 through leaf A and
 * spine 3 to a leaf only spines 1 and 2 reach through leaf B do, with the legal
 * routes A -> spine 3 -> B and B -> spine 1 -> A. On a two-level tree where
 * every detour turns at the same switch P none can close: after P -> spine ->
 * down, a cycle would need another turn, so the switch below the spine is P
 * again, a route visiting P twice. Preferring the switches cabled to the most
 * roots gives one P when some leaf reaches every spine, but where none does
 * the detours can still close a loop. updn_detours() checks either way, and on
 * a loop tries again with ca_only: only the detours CA traffic needs
 * (keep_ca_detours()), so that, as with the tree heuristic's roots, only pairs
 * of a switch without CAs and a switch LID may lack a route. Those close a
 * loop less often than all detours, and less often still with up first toward
 * CA switches (detour_better()); where they do, cr_updn_route() gives up the
 * top-level roots (test_roots_top_level_fallback, 4 cables missing;
 * test_roots_top_level_ca_detours keeps them with the CA detours only). The
 * entries bypass the port balance, so the other routes are those of the same
 * roots without detours. Counts the detoured pairs in fixed[0] (from switches
 * without CAs) and fixed[1].
 */
static int add_detours(struct updn *u, struct cr_routing *r,
		       const uint16_t *lids, int nlids, bool ca_only,
		       const bool *only, uint64_t fixed[2])
{
	const struct cr_fabric *f = u->f;
	uint32_t ns = u->ns;
	uint8_t *next = malloc((size_t)ns * ns + 1);
	uint32_t *hop = malloc((ns + 1) * sizeof(*hop));
	bool *need = calloc(ns + 1, sizeof(*need));
	bool *keep = malloc(ns + 1);
	uint32_t *roots_of = calloc(ns + 1, sizeof(*roots_of));

	if (!next || !hop || !need || !roots_of || !keep) {
		free(next);
		free(hop);
		free(need);
		free(keep);
		free(roots_of);
		cr_err("cr-updn: out of memory for detours");
		return -1;
	}
	for (uint32_t w = 0; w < ns; w++)
		for (uint32_t k = u->adj_start[w]; k < u->adj_start[w + 1];
		     k++) {
			uint32_t x = u->adj[k].sw, j = u->adj_start[w];

			while (u->adj[j].sw != x)
				j++;
			roots_of[w] += u->is_root[x] && j == k;
		}
	for (uint32_t d = 0; d < ns; d++) {
		uint8_t *row = next + (size_t)d * ns;
		uint32_t head = 0, tail = 0;

		if (only && !only[d])
			continue;
		updn_label(u, d);
		for (uint32_t w = 0; w < ns; w++) {
			row[w] = 0;
			need[d] |= u->dist[w] == CR_UPDN_NO_LABEL &&
				   u->comp[w] == u->comp[d];
			hop[w] = UINT32_MAX;
		}
		if (!need[d])
			continue;
		hop[d] = 0;
		u->queue[tail++] = d;
		while (head < tail) {
			uint32_t x = u->queue[head++];

			for (uint32_t k = u->adj_start[x];
			     k < u->adj_start[x + 1]; k++) {
				uint32_t y = u->adj[k].sw;

				if (hop[y] == UINT32_MAX) {
					hop[y] = hop[x] + 1;
					u->queue[tail++] = y;
				}
			}
		}
		u->labelled_for = CR_NO_NODE; /* the queue is spoilt */
		for (uint32_t w = 0; w < ns; w++) {
			if (u->dist[w] != CR_UPDN_NO_LABEL ||
			    hop[w] == UINT32_MAX)
				continue;
			uint32_t best = CR_NO_NODE;

			for (uint32_t k = u->adj_start[w];
			     k < u->adj_start[w + 1]; k++) {
				uint32_t x = u->adj[k].sw;

				if (hop[x] + 1 != hop[w])
					continue;
				if (best == CR_NO_NODE ||
				    detour_better(u, w, x, best, roots_of,
						  u->has_ca[d])) {
					best = x;
					row[w] = u->adj[k].port;
				}
			}
		}
		if (ca_only)
			keep_ca_detours(u, d, row, keep);
	}
	for (int i = 0; i < nlids; i++) {
		uint32_t dn = cr_lid_switch(f, lids[i], NULL), d;

		if (dn == CR_NO_NODE)
			continue;
		d = f->nodes[dn].sw_index;
		if (!need[d])
			continue;
		for (uint32_t w = 0; w < ns; w++) {
			uint8_t p = next[(size_t)d * ns + w];

			if (!p)
				continue;
			r->lft[f->switches[w]][lids[i]] = p;
			fixed[u->has_ca[w]] += p != CR_NO_PATH;
		}
	}
	free(next);
	free(hop);
	free(need);
	free(keep);
	free(roots_of);
	return 0;
}

/*
 * The top-level roots' detours (add_detours()), checked for credit
 * loops: all of them first, on a loop only those CA traffic needs; with
 * only, just those CA traffic needs toward the destination switches it
 * marks (an incremental repair's, whose other destinations keep a legal
 * path from every CA switch and took no detour before). Takes
 * the detoured pairs off totals[0] and totals[1] (the pairs without a
 * legal path from switches without and with CAs, as updn_route_lids()
 * counts them). Returns 1 when a loop remains (cr_updn_route() then
 * chooses the roots as without the top level), 0 when the detours stay,
 * -1 on failure.
 */
int updn_detours(struct updn *u, struct cr_routing *r, const uint16_t *lids,
		 int nlids, const bool *only, uint64_t totals[3],
		 struct cr_byproducts *by)
{
	uint64_t fixed[2] = {0};
	int loop;

	if (add_detours(u, r, lids, nlids, only != NULL, only, fixed))
		return -1;
	loop = cr_credit_loop_any(u->f, r);
	if (loop > 0 && fixed[0] && !only) {
		cr_info("cr-updn: the top-level roots with detours close a credit loop: trying only the detours CA traffic needs (from CA switches, to CA LIDs)");
		memset(fixed, 0, sizeof(fixed));
		if (add_detours(u, r, lids, nlids, true, NULL, fixed))
			return -1;
		loop = cr_credit_loop_any(u->f, r);
	}
	if (loop < 0)
		return -1;
	if (loop) {
		cr_info("cr-updn: the top-level roots with detours close a credit loop: choosing the roots as without them");
		return 1;
	}
	by->updn_detours = fixed[0] + fixed[1] > 0;
	totals[0] -= fixed[0];
	totals[1] -= fixed[1];
	if (fixed[0] + fixed[1])
		cr_info("cr-updn: %" PRIu64
			" (switch, LID) pairs without a legal up*/down* path take a min-hop detour (%" PRIu64
			" from switches with CAs); no credit loop on one VL",
			fixed[0] + fixed[1], fixed[1]);
	return 0;
}
