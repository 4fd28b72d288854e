// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-updn: up*-down* routing over shortest legal paths.
 *
 * Roots come from o->root_guids (cr_roots_from_guids(): switch GUIDs, or
 * CA GUIDs standing for the switches they are cabled to), else, on a
 * tree-like fabric (leaves never cabled to each other), from its top
 * level: the switches on shortest leaf-to-leaf paths farthest from the
 * leaves, all spines even when a leaf is cabled to only some of them
 * (top_level_roots(): pairs without a legal path then take min-hop
 * detours, and a credit loop among them sends us to what follows). Else
 * from a tree heuristic: the switches whose farthest leaf is nearest (minimal
 * host eccentricity; leaves as include/croute/roles.h defines them, so a
 * management node on a core switch does not count), kept only
 * if up*-down* from them gives every CA switch a legal path to every
 * switch and a shortest one to every CA switch, as on fat trees and
 * two-level directors. When management nodes on core switches spoil that,
 * the candidates without CAs are tried (complete, but those switches carry
 * no transit), then the candidates again asking shortest paths only from
 * and to leaves (some CAs off the leaves then lack routes: logged).
 * Otherwise (tori, random graphs, where every switch may look alike) one
 * root per connected part: the switch of minimal eccentricity, lowest
 * GUID on ties. With a single root every pair of switches has a legal
 * path.
 *
 * Ranks are BFS distances from the roots; a link is "up" toward the
 * smaller (rank, node GUID, index) key, which totally orders the switches.
 * For each destination switch D a level-by-level BFS backward from D gives
 * every switch W one label: its distance and its mode, DOWN if its route
 * to D only goes down, UP if it starts upward. A switch may step up into
 * any labelled switch but down only into a DOWN switch, and at equal
 * distance DOWN wins (so more switches can be entered from above). W then
 * forwards every LID of D to a neighbour one step closer, respecting the
 * same rule: down into a DOWN switch if W is DOWN, up otherwise. The
 * port-selection module chooses among those ports (switch LIDs are not
 * counted in its balance), LIDs taken in cr_lid_order(): CA LIDs leaf by
 * leaf in port order, so one leaf's hosts spread over its uplinks, then
 * the switch LIDs. With port_shifting the choice is croute's
 * destination-based D-mod-k spreading (CR_PS_SPREAD, see portsel.c).
 *
 * Flow balance, on tree-like fabrics (cr_roles_tree_like()) unless
 * port_shifting, scatter_ports or global balance is asked for
 * (route_flows()). Counting
 * routes per port, every level of a fat tree picks by the same residue
 * of the destination's place in the order: a leaf sends destination i
 * up its port i mod k, and the middle switch behind that port sends it on
 * up its own port i mod k again, so only k of the k^2 top switches of a
 * 3-level tree carry traffic (ktree 8 3: shift .2466, as OpenSM's updn
 * and minhop). So each LID is routed from the farthest switches inward,
 * each switch passing on the number of CA sources whose route crosses it,
 * and a switch balances those flows over its ports (portsel's flow
 * ledger), not its entries: a middle switch then sees only the
 * destinations its leaves send it and spreads them over all its uplinks,
 * which gives D-mod-k on full trees (shift 1.0) and still balances
 * irregular ones. Equal candidates are taken in the order of the
 * neighbours' keys, not of port numbers, so that every leaf lists the
 * spines alike however they are cabled (scrambled directors: .8468 ->
 * 1.0). Off tree-like fabrics (tori, random graphs) the per-port count
 * stays: there the flows of one root's tree concentrate and shift loses
 * 1-4%.
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
 * OpenSM's updn without connect_roots, except in the last resort above.
 * Pairs without a legal path are counted and logged, the ones that leave
 * CAs without a route as errors (also with roots from a list).
 *
 * Cost: all-pairs switch distances for the roots, one BFS per destination
 * switch (twice when the tree heuristic is checked), then O(LIDs x
 * switches) picks, candidates found once per (switch, destination
 * switch). Without global balance or scatter_ports the BFS and the
 * switches are split over croute_threads threads with the same tables for
 * any count (see route_lids()), and so is the tree heuristic's check
 * (roots_fit(), a BFS per destination). Flow balance too, a level of
 * switches at a time (include/croute/flowbal.h): fat-tree 48 routes in
 * 1.3 s on two threads, 2.0 s on one.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/check.h>
#include <croute/flowbal.h>
#include <croute/hops.h>
#include <croute/log.h>
#include <croute/parallel.h>
#include <croute/portsel.h>
#include <croute/roles.h>

#include "updn_int.h"

#define NO_LABEL UINT16_MAX

enum { MODE_UP = 0, MODE_DOWN = 1 };
_Static_assert(MODE_DOWN == CR_UPDN_DOWN && NO_LABEL == CR_UPDN_NO_LABEL,
	       "updn_int.h names the engine's labels");

struct updn_adj {
	uint32_t sw; /* switch index of the neighbour */
	uint8_t port; /* local port toward it */
};

struct updn {
	const struct cr_fabric *f;
	uint32_t ns;
	uint32_t *adj_start; /* ns + 1 offsets into adj */
	struct updn_adj *adj;
	uint32_t *comp; /* connected part: its lowest switch index */
	bool *has_ca;
	struct cr_roles roles; /* include/croute/roles.h */
	const bool *leaf; /* roles.leaf */
	bool *is_root;
	uint32_t *ord; /* position in the total (rank, GUID) order */
	uint32_t *rank;
	/* Labels toward one destination switch, see label(). */
	uint16_t *dist;
	uint8_t *mode;
	uint32_t *queue; /* label(): the labelled switches, nearest first */
	uint32_t labelled; /* how many */
	uint32_t labelled_for;
	bool detour; /* top-level roots: detours where no legal path */
	bool no_top; /* the top-level roots closed a credit loop */
	bool tree_like; /* cr_roles_tree_like(): balance flows, not entries */
	const struct cr_options *o; /* NULL for incremental.c */
};

static uint64_t sw_guid(const struct updn *u, uint32_t s)
{
	return u->f->nodes[u->f->switches[s]].guid;
}

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

struct updn_key {
	uint32_t rank;
	uint32_t sw;
	uint64_t guid;
};

static int cmp_key(const void *a, const void *b)
{
	const struct updn_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* Multi-source BFS from the roots, then the total order of the keys. */
static int rank_switches(struct updn *u)
{
	struct updn_key *keys = malloc((u->ns + 1) * sizeof(*keys));
	uint32_t head = 0, tail = 0;

	if (!keys) {
		cr_err("cr-updn: out of memory ranking %u switches", u->ns);
		return -1;
	}

	for (uint32_t s = 0; s < u->ns; s++) {
		u->rank[s] = UINT32_MAX;
		if (u->is_root[s]) {
			u->rank[s] = 0;
			u->queue[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t x = u->queue[head++];

		for (uint32_t k = u->adj_start[x]; k < u->adj_start[x + 1];
		     k++) {
			uint32_t y = u->adj[k].sw;

			if (u->rank[y] == UINT32_MAX) {
				u->rank[y] = u->rank[x] + 1;
				u->queue[tail++] = y;
			}
		}
	}
	for (uint32_t s = 0; s < u->ns; s++) {
		keys[s].rank = u->rank[s];
		keys[s].sw = s;
		keys[s].guid = sw_guid(u, s);
	}
	qsort(keys, u->ns, sizeof(*keys), cmp_key);
	for (uint32_t i = 0; i < u->ns; i++)
		u->ord[keys[i].sw] = i;
	free(keys);
	u->labelled_for = CR_NO_NODE;
	return 0;
}

/*
 * Labels every switch for destination switch d: dist (NO_LABEL when it
 * has no legal route) and mode. Level by level, so that a switch reached
 * at the same distance both ways becomes DOWN.
 */
/* Returns how many switches got a label (u->queue's use in label()). */
static uint32_t label_into(const struct updn *u, uint32_t d, uint16_t *dist,
			   uint8_t *mode, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, level_end;

	for (uint32_t s = 0; s < u->ns; s++)
		dist[s] = NO_LABEL;
	dist[d] = 0;
	mode[d] = MODE_DOWN;
	queue[tail++] = d;
	while (head < tail) {
		level_end = tail;
		for (; head < level_end; head++) {
			uint32_t x = queue[head];
			uint16_t next = dist[x] + 1;

			for (uint32_t k = u->adj_start[x];
			     k < u->adj_start[x + 1]; k++) {
				uint32_t w = u->adj[k].sw;
				/* The route would step w -> x. */
				bool down = u->ord[x] > u->ord[w];

				if (down && mode[x] != MODE_DOWN)
					continue;
				if (dist[w] == NO_LABEL) {
					dist[w] = next;
					mode[w] = down ? MODE_DOWN : MODE_UP;
					queue[tail++] = w;
				} else if (dist[w] == next && down) {
					mode[w] = MODE_DOWN;
				}
			}
		}
	}
	return tail;
}

static void label(struct updn *u, uint32_t d)
{
	if (u->labelled_for == d)
		return;
	u->labelled = label_into(u, d, u->dist, u->mode, u->queue);
	u->labelled_for = d;
}

/* Ports of switch w one legal step closer to the labelled destination. */
static unsigned candidates(const struct updn *u, const uint16_t *dist,
			   const uint8_t *mode, uint32_t w, uint8_t *cands)
{
	unsigned n = 0;

	for (uint32_t k = u->adj_start[w]; k < u->adj_start[w + 1]; k++) {
		uint32_t x = u->adj[k].sw;

		if (dist[x] != dist[w] - 1)
			continue;
		if (mode[w] == MODE_DOWN
			    ? u->ord[x] > u->ord[w] && mode[x] == MODE_DOWN
			    : u->ord[x] < u->ord[w])
			cands[n++] = u->adj[k].port;
	}
	return n;
}

/*
 * Per connected part: the switches at minimal distance from their
 * farthest leaf (host eccentricity). Parts without leaves get none, nor
 * parts where every switch qualifies.
 */
static int tree_candidates(struct updn *u, const uint8_t *dist)
{
	uint32_t ns = u->ns, nl = 0;
	uint32_t *leaves = malloc((ns + 1) * sizeof(*leaves));
	unsigned *ecc = malloc((ns + 1) * sizeof(*ecc));

	if (!leaves || !ecc) {
		free(leaves);
		free(ecc);
		cr_err("cr-updn: out of memory for %u switches", ns);
		return -1;
	}
	for (uint32_t t = 0; t < ns; t++)
		if (u->leaf[t])
			leaves[nl++] = t;
	for (uint32_t s = 0; s < ns; s++) {
		ecc[s] = CR_HOPS_INF;
		for (uint32_t i = 0; i < nl; i++) {
			uint8_t d = dist[(size_t)s * ns + leaves[i]];

			if (u->comp[leaves[i]] != u->comp[s])
				continue;
			if (ecc[s] == CR_HOPS_INF || d > ecc[s])
				ecc[s] = d;
		}
	}
	for (uint32_t c = 0; c < ns; c++) {
		unsigned best = CR_HOPS_INF, members = 0, chosen = 0;

		if (u->comp[c] != c)
			continue;
		for (uint32_t s = c; s < ns; s++)
			if (u->comp[s] == c && ecc[s] < best)
				best = ecc[s];
		for (uint32_t s = c; s < ns; s++) {
			if (u->comp[s] != c)
				continue;
			members++;
			if (best != CR_HOPS_INF && ecc[s] == best) {
				u->is_root[s] = true;
				chosen++;
			}
		}
		/* All alike (a torus, a ring): no top to find. */
		if (members > 1 && chosen == members)
			for (uint32_t s = c; s < ns; s++)
				if (u->comp[s] == c)
					u->is_root[s] = false;
	}
	free(leaves);
	free(ecc);
	return 0;
}

/* Per connected part without a root: its switch of minimal eccentricity. */
static void single_roots(struct updn *u, const uint8_t *dist, bool all)
{
	uint32_t ns = u->ns;

	for (uint32_t c = 0; c < ns; c++) {
		uint32_t best = CR_NO_NODE;
		unsigned best_ecc = 0;
		bool has_root = false;

		if (u->comp[c] != c)
			continue;
		for (uint32_t s = c; s < ns; s++) {
			unsigned ecc = 0;

			if (u->comp[s] != c)
				continue;
			if (u->is_root[s]) {
				if (!all)
					has_root = true;
				u->is_root[s] = !all;
			}
			for (uint32_t t = c; t < ns; t++)
				if (u->comp[t] == c &&
				    dist[(size_t)s * ns + t] > ecc)
					ecc = dist[(size_t)s * ns + t];
			if (best == CR_NO_NODE || ecc < best_ecc ||
			    (ecc == best_ecc &&
			     sw_guid(u, s) < sw_guid(u, best))) {
				best = s;
				best_ecc = ecc;
			}
		}
		if (has_root)
			continue;
		u->is_root[best] = true;
		if (!all)
			cr_info("cr-updn: no root in the part of switch 0x%016" PRIx64
				": adding 0x%016" PRIx64,
				sw_guid(u, c), sw_guid(u, best));
	}
}

/* How much of a tree roots_fit() asks for. */
enum fit {
	FIT_STRICT, /* every CA switch: legal paths to every switch, */
	/* shortest to every CA switch */
	FIT_LEGAL, /* shortest only from and to leaves */
	FIT_LEAVES, /* only from and to leaves */
};

struct fit_job {
	const struct updn *u;
	const uint8_t *dist;
	enum fit fit;
	bool misfit; /* atomic: some destination does not fit */
};

/* Destinations [begin, end): 1 when one does not fit, -1 out of memory. */
static int fit_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	struct fit_job *j = arg;
	const struct updn *u = j->u;
	uint32_t ns = u->ns;
	uint16_t *dl = malloc((ns + 1) * sizeof(*dl));
	uint8_t *md = malloc(ns + 1);
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));
	int ret = dl && md && queue ? 0 : -1;

	(void)part;
	(void)nparts;
	for (uint32_t d = begin; !ret && d < end; d++) {
		/* Another range found one: the answer is known. */
		if (__atomic_load_n(&j->misfit, __ATOMIC_RELAXED))
			break;
		label_into(u, d, dl, md, queue);
		for (uint32_t s = 0; s < ns && !ret; s++) {
			bool leafy = u->leaf[s] || u->leaf[d];
			bool shortest = j->fit == FIT_STRICT || leafy;
			bool legal =
				u->leaf[s] || j->fit != FIT_LEAVES || leafy;

			if (!u->has_ca[s] || u->comp[s] != u->comp[d])
				continue;
			if ((legal && dl[s] == NO_LABEL) ||
			    (u->has_ca[d] && shortest &&
			     dl[s] != j->dist[(size_t)s * ns + d]))
				ret = 1;
		}
	}
	if (ret > 0)
		__atomic_store_n(&j->misfit, true, __ATOMIC_RELAXED);
	free(dl);
	free(md);
	free(queue);
	return ret;
}

/*
 * Whether the current roots serve the tree heuristic, see enum fit (1
 * yes, 0 no, -1 out of memory): one labelling per destination, in
 * parallel. Below FIT_STRICT, CA switches that are not leaves (a core
 * switch with a management node) may lose bandwidth or, with FIT_LEAVES,
 * their paths to each other and to the other roots' own LIDs, as in
 * OpenSM's updn without connect_roots: the routing run logs the CA pairs
 * left without a route as errors.
 */
static int roots_fit(struct updn *u, const uint8_t *dist, enum fit fit)
{
	struct fit_job j = {.u = u, .dist = dist, .fit = fit};
	int ret =
		cr_parallel(u->ns, cr_parallel_parts(u->ns, 16), fit_range, &j);

	if (ret < 0) {
		cr_err("cr-updn: out of memory for %u switches", u->ns);
		return -1;
	}
	return !ret;
}

/*
 * CR_ROOTS_TOP: a BFS layering from the leaves (each switch's distance to
 * the nearest leaf); per connected part, the switches of the top layer.
 * Parts without leaves get their switch of minimal eccentricity.
 */
static int top_roots(struct updn *u, const uint8_t *dist)
{
	uint32_t ns = u->ns;
	unsigned *height = malloc((ns + 1) * sizeof(*height));

	if (!height) {
		cr_err("cr-updn: out of memory for %u switches", ns);
		return -1;
	}
	for (uint32_t s = 0; s < ns; s++) {
		height[s] = CR_HOPS_INF;
		for (uint32_t t = 0; t < ns; t++)
			if (u->leaf[t] && dist[(size_t)s * ns + t] < height[s])
				height[s] = dist[(size_t)s * ns + t];
	}
	for (uint32_t c = 0; c < ns; c++) {
		unsigned top = 0;
		bool any = false;

		if (u->comp[c] != c)
			continue;
		for (uint32_t s = c; s < ns; s++)
			if (u->comp[s] == c && height[s] != CR_HOPS_INF &&
			    height[s] >= top) {
				top = height[s];
				any = true;
			}
		for (uint32_t s = c; s < ns && any; s++)
			u->is_root[s] = u->comp[s] == c && height[s] == top;
	}
	free(height);
	single_roots(u, dist, false);
	return 0;
}

/*
 * On a tree-like fabric (cr_roles_tree_like()) the top level: the
 * switches on some shortest leaf-to-leaf path that are farthest from the
 * leaves (a hostless switch hanging between two spines is on none, so
 * the spines stay the top). Cost: O(switches x leaves^2)
 * distance look-ups at worst, far less on trees, where a top switch finds
 * its pair of leaves at once. Returns the number of top switches, 0 when
 * the fabric is no single tree-like part.
 */
static uint32_t top_level(const struct updn *u, const uint8_t *dist, bool *top)
{
	uint32_t ns = u->ns, nl = 0, count = 0;
	unsigned best = 0;
	uint32_t *leaves = malloc((ns + 1) * sizeof(*leaves));
	unsigned *height = malloc((ns + 1) * sizeof(*height));
	bool *on = calloc(ns + 1, sizeof(*on));

	if (!leaves || !height || !on || !u->tree_like)
		goto out;
	for (uint32_t s = 0; s < ns; s++)
		if (u->leaf[s])
			leaves[nl++] = s;
	for (uint32_t s = 0; s < ns; s++) {
		height[s] = CR_HOPS_INF;
		for (uint32_t i = 0; i < nl; i++)
			if (dist[(size_t)s * ns + leaves[i]] < height[s])
				height[s] = dist[(size_t)s * ns + leaves[i]];
	}
	for (uint32_t s = 0; s < ns; s++) {
		const uint8_t *ds = dist + (size_t)s * ns;

		if (u->leaf[s] || height[s] < best)
			continue;
		for (uint32_t i = 0; i < nl && !on[s]; i++) {
			const uint8_t *da = dist + (size_t)leaves[i] * ns;

			for (uint32_t j = i + 1; j < nl && !on[s]; j++)
				on[s] = ds[leaves[i]] + ds[leaves[j]] ==
					da[leaves[j]];
		}
		if (on[s] && height[s] > best)
			best = height[s];
	}
	for (uint32_t s = 0; s < ns; s++) {
		top[s] = on[s] && height[s] == best;
		count += top[s];
	}
out:
	free(leaves);
	free(height);
	free(on);
	return count;
}

/*
 * The top level as roots (see top_level()), unless it is what the tree
 * heuristic chose anyway (then nothing changes). Kept when every CA
 * switch has a legal shortest path to every CA switch; the pairs without
 * a legal path (a leaf to a spine it is not cabled to, the roots to each
 * other, a spine to a leaf it is not cabled to) take detours
 * (add_detours()).
 * Returns 1 when taken, 0 when not, -1 out of memory.
 */
static int top_level_roots(struct updn *u, const uint8_t *dist)
{
	uint32_t ns = u->ns, count;
	bool *top = calloc(ns + 1, sizeof(*top));
	bool *saved = malloc(ns + 1);
	bool same = true, fit = true;

	if (!top || !saved) {
		free(top);
		free(saved);
		cr_err("cr-updn: out of memory for %u switches", ns);
		return -1;
	}
	count = top_level(u, dist, top);
	for (uint32_t s = 0; s < ns; s++)
		same &= top[s] == u->is_root[s];
	if (!count || same) {
		free(top);
		free(saved);
		return 0;
	}
	memcpy(saved, u->is_root, ns);
	memcpy(u->is_root, top, ns);
	if (rank_switches(u)) {
		free(top);
		free(saved);
		return -1;
	}
	for (uint32_t d = 0; d < ns && fit; d++) {
		if (!u->has_ca[d])
			continue;
		label(u, d);
		for (uint32_t s = 0; s < ns && fit; s++)
			fit = !u->has_ca[s] ||
			      u->dist[s] == dist[(size_t)s * ns + d];
	}
	if (fit) {
		cr_info("cr-updn: %u roots: the top level of a tree-like fabric (farthest from the leaves on shortest leaf-to-leaf paths); min-hop detours where up*/down* has no path",
			count);
		u->detour = true;
	} else {
		cr_info("cr-updn: the %u top-level switches do not make a tree (some CA switch lacks a legal shortest path to a CA switch)",
			count);
		memcpy(u->is_root, saved, ns);
	}
	free(top);
	free(saved);
	return fit;
}

static int choose_roots(struct updn *u, const struct cr_options *o)
{
	uint8_t *dist;
	bool *candidate = NULL;
	unsigned count = 0, with_ca = 0;
	int fit;

	if (o->root_guids.count) {
		if (cr_roots_from_guids(u->f, &o->root_guids, "cr-updn",
					u->is_root) < 0)
			return -1;
		dist = cr_switch_distances(u->f);
		if (!dist)
			return -1;
		single_roots(u, dist, false);
		free(dist);
		cr_info("cr-updn: roots from the root GUID list");
		return rank_switches(u);
	}
	dist = cr_switch_distances(u->f);
	if (!dist)
		return -1;
	if (o->updn_roots == CR_ROOTS_ECC || o->updn_roots == CR_ROOTS_TOP) {
		if (o->updn_roots == CR_ROOTS_ECC)
			single_roots(u, dist, true);
		else if (top_roots(u, dist))
			goto fail;
		cr_info("cr-updn: roots: %s",
			o->updn_roots == CR_ROOTS_ECC
				? "one per connected part, of minimal"
				  " eccentricity (roots=ecc)"
				: "the top layer of a BFS layering from the"
				  " leaves (roots=top)");
		free(dist);
		return rank_switches(u);
	}
	if (tree_candidates(u, dist))
		goto fail;
	if (!u->no_top) {
		int t = top_level_roots(u, dist);

		if (t < 0)
			goto fail;
		if (t > 0) {
			free(dist);
			return 0;
		}
	}
	candidate = malloc(u->ns + 1);
	if (!candidate) {
		cr_err("cr-updn: out of memory for %u switches", u->ns);
		goto fail;
	}
	for (uint32_t s = 0; s < u->ns; s++) {
		candidate[s] = u->is_root[s];
		count += u->is_root[s];
		with_ca += u->is_root[s] && u->has_ca[s];
	}
	/*
	 * The candidates; without those that have CAs (two roots with
	 * management nodes cannot reach each other); the candidates again,
	 * leaving such CA pairs without a route rather than every leaf
	 * without bandwidth.
	 */
	for (int attempt = 0; count > 1 && attempt < 3; attempt++) {
		static const enum fit fits[] = {FIT_STRICT, FIT_LEGAL,
						FIT_LEAVES};
		static const char *const what[] = {
			"every CA switch has a legal path to every switch, a shortest one to every CA switch",
			"every CA switch has a legal path to every switch, a shortest one from and to leaves",
			"every leaf has a legal path to every switch, a shortest one to every CA switch; some CA switches off the leaves lack paths",
		};
		unsigned dropped = 0;

		if (attempt && !with_ca)
			break;

		for (uint32_t s = 0; s < u->ns; s++) {
			if (attempt == 2)
				u->is_root[s] = candidate[s];
			else if (attempt == 1 && u->is_root[s] &&
				 u->has_ca[s]) {
				u->is_root[s] = false;
				dropped++;
			}
		}
		if (attempt == 1 && (!dropped || dropped == count))
			continue;
		/* Parts without CAs, or all alike, still need a root. */
		single_roots(u, dist, false);
		if (rank_switches(u))
			goto fail;
		fit = roots_fit(u, dist, fits[attempt]);
		if (fit < 0)
			goto fail;
		if (fit) {
			cr_info("cr-updn: %u roots of minimal host eccentricity%s: %s (tree-like fabric)",
				count - dropped, dropped ? " without CAs" : "",
				what[attempt]);
			free(candidate);
			free(dist);
			return 0;
		}
		cr_info("cr-updn: the %u switches of minimal host eccentricity%s do not make a tree (%s)",
			count - dropped, dropped ? " without CAs" : "",
			attempt == 2
				? "some leaf lacks a legal or a shortest path"
				: "some CA switch lacks a legal or a shortest path");
	}
	cr_info("cr-updn: one root per connected part: the switch of minimal eccentricity, lowest GUID on ties (no tree found: every pair of switches has a legal path through it)");
	single_roots(u, dist, true);
	if (rank_switches(u))
		goto fail;
	free(candidate);
	free(dist);
	return 0;
fail:
	free(candidate);
	free(dist);
	return -1;
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
		cr_info("cr-updn: root 0x%016" PRIx64 " \"%s\"", sw_guid(u, s),
			u->f->nodes[u->f->switches[s]].desc);
	}
	if (parts > 1)
		cr_info("cr-updn: the switches form %u disconnected parts: routing each part alone",
			parts);
	return 0;
}

/*
 * The main loop, in segments of LIDs (in routing order) toward at most
 * SEG_DESTS destination switches: first the segment's labels, one BFS per
 * destination, in parallel; then every switch, in parallel ranges, takes
 * the segment's LIDs in order. A switch's choices depend only on its own
 * port loads, so the tables are those of a single thread.
 */
#define SEG_DESTS 64

struct updn_run {
	struct updn *u;
	struct cr_routing *r;
	struct cr_portsel *ps;
	const uint16_t *lids;
	const uint32_t *lid_dest; /* per position: destination switch */
	const uint8_t *lid_slot; /* per position: its label slot */
	uint32_t first, last; /* the segment: positions [first, last) */
	uint32_t dests[SEG_DESTS];
	unsigned ndests;
	uint16_t *dist; /* [slot * ns + switch] */
	uint8_t *mode;
	uint32_t **queue; /* per part */
	unsigned nparts;
	/* per part, per switch of its range: candidates toward a dest */
	struct updn_cache {
		uint32_t d;
		uint8_t nc;
		uint8_t cands[CR_MAX_PORTS];
		uint32_t *plain; /* cr_portsel_plain_counts(), or NULL */
	} * *cache;
	uint64_t (*stats)[3]; /* per part: illegal, illegal_ca, apart */
};

static int label_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	struct updn_run *x = arg;
	size_t ns = x->u->ns;

	(void)nparts;
	for (uint32_t i = begin; i < end; i++)
		label_into(x->u, x->dests[i], x->dist + i * ns,
			   x->mode + i * ns, x->queue[part]);
	return 0;
}

static int switch_range(void *arg, unsigned part, unsigned nparts,
			uint32_t begin, uint32_t end)
{
	struct updn_run *x = arg;
	const struct updn *u = x->u;
	const struct cr_fabric *f = u->f;
	struct updn_cache *cache = x->cache[part];
	uint64_t *st = x->stats[part];

	(void)nparts;
	for (uint32_t i = x->first; i < x->last; i++) {
		uint16_t lid = x->lids[i];
		uint32_t d = x->lid_dest[i], dn;
		uint8_t dport;
		const uint16_t *dist;
		const uint8_t *mode;
		unsigned flags;

		if (d == CR_NO_NODE)
			continue;
		dn = cr_lid_switch(f, lid, &dport);
		flags = (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD |
			CR_PS_SORTED |
			(cr_lid_is_base(f, lid) ? CR_PS_BASE : 0);
		dist = x->dist + (size_t)x->lid_slot[i] * u->ns;
		mode = x->mode + (size_t)x->lid_slot[i] * u->ns;
		if (d >= begin && d < end)
			x->r->lft[dn][lid] = dport;
		for (uint32_t w = begin; w < end; w++) {
			struct updn_cache *c = &cache[w - begin];

			if (w == d)
				continue;
			if (dist[w] == NO_LABEL) {
				if (u->comp[w] != u->comp[d])
					st[2]++;
				else if (u->has_ca[w])
					st[1]++;
				else
					st[0]++;
				continue;
			}
			if (c->d != d) {
				c->d = d;
				c->nc = (uint8_t)candidates(u, dist, mode, w,
							    c->cands);
				cr_portsel_order(x->ps, f->switches[w],
						 c->cands, c->nc);
				c->plain = cr_portsel_plain_counts(
					x->ps, f->switches[w]);
			}
			x->r->lft[f->switches[w]][lid] = cr_portsel_pick_kept(
				x->ps, f->switches[w], c->plain, c->cands,
				c->nc, lid, flags);
		}
	}
	return 0;
}

static void run_free(struct updn_run *x)
{
	for (unsigned i = 0; i < x->nparts; i++) {
		if (x->queue)
			free(x->queue[i]);
		if (x->cache)
			free(x->cache[i]);
	}
	free(x->queue);
	free(x->cache);
	free(x->stats);
	free(x->dist);
	free(x->mode);
	free((void *)x->lid_dest);
	free((void *)x->lid_slot);
}

static int route_lids(struct updn *u, struct cr_routing *r,
		      struct cr_portsel *ps, const uint16_t *lids, int nlids,
		      uint64_t totals[3])
{
	const struct cr_fabric *f = u->f;
	struct updn_run x = {.u = u, .r = r, .ps = ps, .lids = lids};
	uint32_t *lid_dest = malloc(((size_t)nlids + 1) * sizeof(*lid_dest));
	uint8_t *lid_slot = malloc((size_t)nlids + 1);
	unsigned sw_parts =
		cr_portsel_parallel(ps) ? cr_parallel_parts(u->ns, 16) : 1;
	/* Two rounds per segment: threads kept for the run (parallel.h). */
	struct cr_team *team = cr_team_start(cr_threads_get());
	int ret = -1;

	x.lid_dest = lid_dest;
	x.lid_slot = lid_slot;
	x.nparts = sw_parts > SEG_DESTS ? sw_parts : SEG_DESTS;
	x.queue = calloc(x.nparts, sizeof(*x.queue));
	x.cache = calloc(x.nparts, sizeof(*x.cache));
	x.stats = calloc(x.nparts, sizeof(*x.stats));
	x.dist = malloc((size_t)SEG_DESTS * u->ns * sizeof(*x.dist) + 1);
	x.mode = malloc((size_t)SEG_DESTS * u->ns + 1);
	if (!lid_dest || !lid_slot || !x.queue || !x.cache || !x.stats ||
	    !x.dist || !x.mode || !team)
		goto oom;
	for (unsigned i = 0; i < x.nparts; i++) {
		x.queue[i] = malloc((u->ns + 1) * sizeof(**x.queue));
		x.cache[i] = malloc((u->ns + 1) * sizeof(**x.cache));
		if (!x.queue[i] || !x.cache[i])
			goto oom;
		for (uint32_t w = 0; w <= u->ns; w++)
			x.cache[i][w].d = CR_NO_NODE;
	}
	for (int i = 0; i < nlids; i++) {
		uint32_t dn = cr_lid_switch(f, lids[i], NULL);

		lid_dest[i] =
			dn == CR_NO_NODE ? CR_NO_NODE : f->nodes[dn].sw_index;
	}
	while (x.first < (uint32_t)nlids) {
		/* The segment: LIDs while their destinations fit. */
		x.ndests = 0;
		x.last = x.first;
		while (x.last < (uint32_t)nlids) {
			uint32_t d = lid_dest[x.last];
			unsigned k = 0;

			while (k < x.ndests && x.dests[k] != d)
				k++;
			if (d != CR_NO_NODE && k == x.ndests) {
				if (x.ndests == SEG_DESTS)
					break;
				x.dests[x.ndests++] = d;
			}
			lid_slot[x.last++] = (uint8_t)k;
		}
		cr_team_ranges(team, x.ndests, cr_parallel_parts(x.ndests, 4),
			       label_range, &x);
		cr_team_ranges(team, u->ns, sw_parts, switch_range, &x);
		x.first = x.last;
	}
	for (unsigned i = 0; i < x.nparts; i++)
		for (int k = 0; k < 3; k++)
			totals[k] += x.stats[i][k];
	ret = 0;
	goto out;
oom:
	cr_err("cr-updn: out of memory for %u switches", u->ns);
out:
	cr_team_stop(team);
	run_free(&x);
	return ret;
}

/*
 * Flow balance (cr_portsel_use_flows(), include/croute/flowbal.h): one
 * labelling BFS per destination, destinations in parallel; each
 * switch's links sorted once into the order of the far switches' keys,
 * so that filtering them gives the candidates already in order.
 */
struct updn_flows {
	struct updn *u;
	struct updn_adj *adj; /* u->adj, each switch's in key order */
	uint8_t *mode; /* [slot * ns] */
	uint32_t **queue; /* per worker */
	uint64_t missing[CR_FLOW_SLOTS][3]; /* per LID of the slot */
	uint64_t *totals;
};

static int flow_levels(void *ctx, unsigned worker, unsigned slot, uint32_t d,
		       uint16_t *lev)
{
	struct updn_flows *x = ctx;
	const struct updn *u = x->u;
	uint64_t *missing = x->missing[slot];

	label_into(u, d, lev, x->mode + (size_t)slot * u->ns, x->queue[worker]);
	memset(missing, 0, sizeof(x->missing[slot]));
	for (uint32_t w = 0; w < u->ns; w++) {
		if (w == d || lev[w] != NO_LABEL)
			continue;
		missing[u->comp[w] != u->comp[d] ? 2 : u->has_ca[w] ? 1 : 0]++;
	}
	return 0;
}

/* candidates() over the sorted links. */
static unsigned flow_cands(void *ctx, unsigned slot, const uint16_t *dist,
			   uint32_t w, uint8_t *cands)
{
	const struct updn_flows *x = ctx;
	const struct updn *u = x->u;
	const uint8_t *mode = x->mode + (size_t)slot * u->ns;
	unsigned n = 0;

	for (uint32_t k = u->adj_start[w]; k < u->adj_start[w + 1]; k++) {
		uint32_t y = x->adj[k].sw;

		if (dist[y] != dist[w] - 1)
			continue;
		if (mode[w] == MODE_DOWN
			    ? u->ord[y] > u->ord[w] && mode[y] == MODE_DOWN
			    : u->ord[y] < u->ord[w])
			cands[n++] = x->adj[k].port;
	}
	return n;
}

static void flow_group(void *ctx, unsigned slot, unsigned nlids)
{
	struct updn_flows *x = ctx;

	for (int k = 0; k < 3; k++)
		x->totals[k] += x->missing[slot][k] * nlids;
}

static int route_flows(struct updn *u, struct cr_routing *r,
		       struct cr_portsel *ps, const uint16_t *lids, int nlids,
		       uint64_t totals[3])
{
	const struct cr_fabric *f = u->f;
	unsigned workers = cr_threads_get();
	uint32_t links = u->adj_start[u->ns];
	struct updn_flows x = {.u = u, .totals = totals};
	struct cr_flow_engine e = {.ctx = &x,
				   .levels = flow_levels,
				   .cands = flow_cands,
				   .group = flow_group};
	uint8_t ports[CR_MAX_PORTS];
	int ret = -1;

	x.adj = malloc(((size_t)links + 1) * sizeof(*x.adj));
	x.mode = malloc((size_t)CR_FLOW_SLOTS * u->ns + 1);
	x.queue = calloc(workers, sizeof(*x.queue));
	if (!x.adj || !x.mode || !x.queue)
		goto oom;
	for (unsigned i = 0; i < workers; i++) {
		x.queue[i] = malloc((u->ns + 1) * sizeof(**x.queue));
		if (!x.queue[i])
			goto oom;
	}
	for (uint32_t w = 0; w < u->ns; w++) {
		uint32_t b = u->adj_start[w], n = u->adj_start[w + 1] - b;
		uint32_t sw = f->switches[w];

		for (uint32_t k = 0; k < n; k++)
			ports[k] = u->adj[b + k].port;
		cr_portsel_order_by_key(ps, sw, u->ord, ports, n);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t m = f->nodes[sw].ports[ports[k]].remote;

			x.adj[b + k].port = ports[k];
			x.adj[b + k].sw = f->nodes[m].sw_index;
		}
	}
	ret = cr_flow_route(f, r, ps, lids, nlids, &e);
	goto out;
oom:
	cr_err("cr-updn: out of memory for %u switches", u->ns);
out:
	for (unsigned i = 0; x.queue && i < workers; i++)
		free(x.queue[i]);
	free(x.queue);
	free(x.mode);
	free(x.adj);
	return ret;
}

/*
 * Whether switch x is a better next step than best for the detour of
 * switch w (both one min-hop step closer to the destination). Toward a
 * switch with CAs, up first: the detour turns near the destination.
 * Then a neighbour with a legal route (from a CA switch toward a switch
 * LID: the detour turns near its source), cabled to the most roots,
 * lowest in the order. On a fat tree less a leaf-middle cable every
 * detour then turns next to the leaf that lost it, and the detours CA
 * traffic needs close no loop (legal first alone: 21 of 50 random single
 * cuts of `croute gen fat-tree 8` did).
 */
static bool detour_better(const struct updn *u, uint32_t w, uint32_t x,
			  uint32_t best, const uint32_t *roots_of, bool to_ca)
{
	bool up_x = u->ord[x] < u->ord[w], up_b = u->ord[best] < u->ord[w];
	bool legal_x = u->dist[x] != NO_LABEL;
	bool legal_b = u->dist[best] != NO_LABEL;

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
 * With the top-level roots: every switch W without a legal path to a
 * switch D (a leaf to a spine it is not cabled to, a root to another
 * root, a spine to a leaf cabled only to other spines) forwards D's LIDs
 * to a neighbour one step closer to D (min-hop), as detour_better()
 * prefers: one with a legal path if any (up first toward a CA switch),
 * among those the one cabled to the most roots, then the lowest in the
 * up*-down* order (not the first port, so that the cabling order does
 * not matter and detours tend to turn at the same switch, see below). Each hop either lowers the min-hop distance or
 * enters a switch with a legal route, which never leaves the legal ones,
 * so every route arrives and visits no switch twice. No packet between
 * CAs meets a detour: top_level_roots() gave every CA switch a legal path
 * to every CA switch. Detours carry the traffic to switch LIDs and from
 * switches (management). The incremental run does not repair them: it
 * routes in full after such a run. A detour turns from down to up, so
 * detours may close a credit loop with the legal routes: spine 1 to
 * spine 3 through leaf A and spine 3 to a leaf only spines 1 and 2 reach
 * through leaf B do, with the legal routes A -> spine 3 -> B and B ->
 * spine 1 -> A. On a two-level tree where every detour turns at
 * the same switch P none can close: after P -> spine -> down, a cycle
 * would need another turn, so the switch below the spine is P again,
 * a route visiting P twice. Preferring the switches cabled to the most
 * roots gives one P when some leaf reaches every spine. Of the 29152
 * cablings of 4 spines and 4 leaves (with and without a switch between
 * spines 2 and 3) that take detours, 8408 close a loop (13434 by the
 * lowest order alone), none with at most 3 of the 16 cables missing.
 * cr_updn_route() checks either way, and on a loop tries again with
 * ca_only: only the detours CA traffic needs (keep_ca_detours()), so
 * that, as with the tree heuristic's roots, only pairs of a switch
 * without CAs and a switch LID may lack a route. Counted with flow
 * balance (the legal routes changed) over the 37720 cablings where the
 * top-level roots fit, all detours close a loop in 8480, those CA traffic
 * needs in 4062 (5032 without up first toward CA switches, see
 * detour_better(); test_roots_top_level_fallback, 4 cables missing); on
 * `croute gen fat-tree 8` less one random cable in none of 50 (21
 * without up first; test_roots_top_level_cut), less 3 in 23 (41), where
 * all detours closed a loop in every one. The entries bypass the
 * port balance, so the other routes are those of the same roots without
 * detours. Counts the detoured pairs in fixed[0] (from switches without
 * CAs) and fixed[1].
 */
static int add_detours(struct updn *u, struct cr_routing *r,
		       const uint16_t *lids, int nlids, bool ca_only,
		       uint64_t fixed[2])
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

		label(u, d);
		for (uint32_t w = 0; w < ns; w++) {
			row[w] = 0;
			need[d] |= u->dist[w] == NO_LABEL &&
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
			if (u->dist[w] != NO_LABEL || hop[w] == UINT32_MAX)
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

int cr_updn_route(const struct cr_fabric *f, const struct cr_options *o,
		  struct cr_routing *r, struct cr_byproducts *by)
{
	struct cr_portsel *ps = NULL;
	struct updn u;
	uint16_t *lids = NULL;
	uint64_t illegal = 0, illegal_ca = 0, apart = 0;
	int nlids = -1, ret = -1, flows;
	bool global = false;

	if (updn_init(&u, f, o))
		goto out;
	if (!f->num_switches) {
		cr_info("cr-updn: no switch, nothing to route");
		ret = 0;
		goto out;
	}
again:
	if (choose_roots(&u, o) || report_roots(&u, by))
		goto out;
	ps = cr_portsel_new(f, o, r);
	if (!ps)
		goto out;
	global = cr_portsel_global(ps);
	flows = u.tree_like ? cr_portsel_use_flows(ps) : 0;
	nlids = cr_lid_order(f, o, &lids);
	if (nlids < 0 || flows < 0)
		goto out;
	if (!global) {
		uint64_t totals[3] = {0};

		if (flows ? route_flows(&u, r, ps, lids, nlids, totals)
			  : route_lids(&u, r, ps, lids, nlids, totals))
			goto out;
		illegal = totals[0];
		illegal_ca = totals[1];
		apart = totals[2];
	}
	for (int i = 0; global && i < nlids; i++) {
		uint16_t lid = lids[i];
		uint8_t dport, cands[CR_MAX_PORTS];
		uint32_t dn = cr_lid_switch(f, lid, &dport), d;
		unsigned flags = (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD;

		if (dn == CR_NO_NODE)
			continue;
		d = f->nodes[dn].sw_index;
		label(&u, d);
		r->lft[dn][lid] = dport;
		for (uint32_t w = 0; w < u.ns; w++) {
			unsigned nc;

			if (w == d)
				continue;
			if (u.dist[w] == NO_LABEL) {
				if (u.comp[w] != u.comp[d])
					apart++;
				else if (u.has_ca[w])
					illegal_ca++;
				else
					illegal++;
				continue;
			}
			if (global)
				continue;
			nc = candidates(&u, u.dist, u.mode, w, cands);
			r->lft[f->switches[w]][lid] = cr_portsel_pick(
				ps, f->switches[w], cands, nc, lid, flags);
		}
		/*
		 * Global balance: the labelling BFS's queue holds the labelled
		 * switches nearest first, so each candidate's remaining path
		 * is routed already.
		 */
		for (uint32_t k = 1; global && k < u.labelled; k++) {
			uint32_t w = u.queue[k];
			unsigned nc = candidates(&u, u.dist, u.mode, w, cands);

			r->lft[f->switches[w]][lid] = cr_portsel_pick(
				ps, f->switches[w], cands, nc, lid, flags);
		}
		cr_portsel_commit(ps, lid);
	}
	if (u.detour) {
		uint64_t fixed[2] = {0};
		int loop;

		if (add_detours(&u, r, lids, nlids, false, fixed))
			goto out;
		loop = cr_credit_loop_any(f, r);
		if (loop > 0 && fixed[0]) {
			cr_info("cr-updn: the top-level roots with detours close a credit loop: trying only the detours CA traffic needs (from CA switches, to CA LIDs)");
			memset(fixed, 0, sizeof(fixed));
			if (add_detours(&u, r, lids, nlids, true, fixed))
				goto out;
			loop = cr_credit_loop_any(f, r);
		}
		if (loop < 0)
			goto out;
		if (loop) {
			cr_info("cr-updn: the top-level roots with detours close a credit loop: choosing the roots as without them");
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
			illegal = illegal_ca = apart = 0;
			goto again;
		}
		by->updn_detours = fixed[0] + fixed[1] > 0;
		illegal -= fixed[0];
		illegal_ca -= fixed[1];
		if (fixed[0] + fixed[1])
			cr_info("cr-updn: %" PRIu64
				" (switch, LID) pairs without a legal up*/down* path take a min-hop detour (%" PRIu64
				" from switches with CAs); no credit loop on one VL",
				fixed[0] + fixed[1], fixed[1]);
	}
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
	if (rank_switches(u))
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
	return label_into(u, d, dist, mode, queue);
}
