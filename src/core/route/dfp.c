// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-dfp: dragonfly+ routing on at most two virtual lanes. Leaves are the
 * switches with CAs, spines the others; a group is a part the leaf-spine
 * cables join (on a dragonfly+, a two-level tree), and "global" cables
 * join spines. Groups are numbered in switch order; a group's turn leaf,
 * or two where some pair of groups shares no cable, is the leaf cabled
 * to most of its spines (the first such), so that a cut leaf-spine cable
 * moves the turn to a leaf that kept them all; its spines alternate
 * between the two. A group where no leaf is cabled to all its spines is
 * torn: its spines and a hub of its leaves (grow_hub: added until they
 * join all the spines, the leaf with most spines first) rank by
 * up*-down* inside the group, in the hub's breadth-first order from a
 * spine (any rising path inside a torn group, so every spine reaches
 * every other and every hub leaf), its other leaves as an intact group's
 * non-turn leaves. Those ranks lie between the group's global channels
 * and the next group's (a group's place then takes "stride" ranks, not
 * 4: intact fabrics rank as ever), so the argument below holds as is.
 *
 * Ranks. Each VL orders the channels: VL 1 by group upward, VL 0 by
 * group downward (g below is the group's number, negated on VL 0): a
 * global channel into group g ranks 4g - 2; down into a turn leaf 4g - 1;
 * up out of a turn leaf into a spine of its side 4g + 1; up out of any
 * other leaf lowest, down into any other leaf highest (4 is the
 * stride). A path takes SL 0
 * if its channels' VL 0 ranks strictly rise, else SL 1 if its VL 1 ranks
 * do; SL i travels on VL i. Every dependency on a VL then joins two
 * channels of rising rank, so neither VL has a credit loop, whatever
 * cables are missing. Leaf to leaf minimal paths (up, global, down) rise
 * on both; a path through a third group, or a spine's own traffic that
 * turns at a leaf of its group, rises on the VL its groups' order fits,
 * as long as it turns only at turn leaves, climbing to their side.
 *
 * Paths. For each destination switch, a breadth-first search in waves:
 * a switch takes the first wave in which a neighbour labelled in the
 * previous one gives it a path rising on some VL (both VLs preferred),
 * and every neighbour giving it that same state is a candidate (when a
 * switch is left without a path, the destination is labelled again with
 * other preferences between the VLs, twelve in all); each LID
 * then picks among them with the port-selection module (flow balance by
 * default: CA sources counted per port, farthest switches first; the
 * flows a switch's own CAs must send by its only port one hop nearer a
 * destination count there from the start; path loads where some pair of
 * groups shares twice the global cables of another, dfp_balance()). Host
 * paths are therefore shortest wherever the ranks allow: on an intact
 * dragonfly+ leaf-spine-spine-leaf, spread over the global cables; pairs
 * of groups that lost their cables go through a third group, and only
 * they. A switch without CAs may be left without a path to another
 * switch without CAs (as cr-updn leaves some), never a CA or a CA's
 * switch. When a destination leaves a CA's switch without a rising path
 * in every group order tried (the groups' own, then seeded shuffles),
 * the groups are chained instead: each cabled to the next, so that every
 * pair of groups has a path through groups in order, up or down; a
 * destination the waves still fail takes, on each switch, the path of a
 * tree per VL whose first channel ranks highest (cr_ranked_tree), VL 1's
 * below the destination's group, VL 0's above (with a torn group, in
 * any order). Those destinations lose
 * minimality, the others keep the waves' paths. Where no chain exists
 * (a group cabled to one other only, with two such on one group, say),
 * some pair of groups has no path rising on either VL whatever the
 * order; then, or when max_vls leaves no second VL when one is needed,
 * the whole fabric is routed by cr-updn on one VL instead, and the
 * reason logged. A fabric that is no dragonfly+ (leaf-to-leaf cables,
 * fewer than two groups, a group without leaf or spine) is refused with
 * an error (CR_ROUTE_NOT_ITS_FABRIC): OpenSM tries its next engine. Before the tables are returned, every
 * switch's path to every LID, as written, is checked to rise on its SL's
 * VL (linear in the tables, where a search of the dependency graph
 * would cost more than the routing), falling back the same way.
 *
 * The waves, the port choice and the final check are shared with
 * cr-hyperx (ranked_paths.c); this file gives the ranks, the rules of VL
 * preference and the group orders.
 *
 * Cost: all-pairs switch distances (switches^2 bytes); per destination
 * switch a few waves over the switch links, per LID a pick on every
 * switch, and the check (bench/scale gives the figures).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/model/buf.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/route/portsel.h>

#include "ranked_paths.h"

#define RANK_MIN (INT_MIN / 2)
#define RANK_MAX (INT_MAX / 2)

struct dfp {
	struct cr_ranked rp; /* first: the ranking callbacks get it */
	bool *leaf; /* per switch index: has CAs */
	uint32_t *gid; /* per switch index: its group, in switch order */
	uint32_t *group; /* per switch index: its group's place in the order */
	/*
	 * Per switch index: a leaf's turn side (0 or 1; -1: no turn leaf),
	 * a spine's side (which turn leaf climbs to it).
	 */
	int8_t *side;
	uint32_t num_groups;
	/*
	 * A group where no leaf is cabled to all its spines is "torn": its
	 * spines and a few of its leaves (the hub, see tear_groups) rank by
	 * up*-down* inside the group. key: per switch index, its place in
	 * the hub's breadth-first order (-1: not in a torn group's hub);
	 * hub_size: per group, its hub's switches (0: not torn); stride: the
	 * ranks one group's place takes (4 where no group is torn).
	 */
	int32_t *key;
	uint32_t *hub_size;
	int stride;
	bool torn; /* some group is */
	/*
	 * Chained group orders and, for a destination the waves leave a
	 * switch without a path, a tree per VL (see label_by_trees).
	 */
	bool trees;
	uint8_t *cabled; /* per group pair: a global cable joins them */
	struct cr_ranked_trees tree; /* cr_ranked_tree()'s */
	uint32_t *next;
};

static uint32_t find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/*
 * A dragonfly+: two groups or more, each with a leaf and a spine. A
 * two-level tree is one group; the top of a three-level tree, groups
 * without leaves.
 */
static bool groups_make_dragonfly(uint32_t ns, const bool *leaf,
				  const uint32_t *gid, uint32_t ng)
{
	uint8_t *has = calloc(ng + 1, 1);
	bool yes = has && ng >= 2;

	for (uint32_t s = 0; yes && s < ns; s++)
		has[gid[s]] |= leaf[s] ? 1 : 2;
	for (uint32_t g = 0; yes && g < ng; g++)
		yes = has[g] == 3;
	free(has);
	return yes;
}

static bool dfp_is_dragonfly(const struct dfp *d)
{
	return groups_make_dragonfly(d->rp.ns, d->leaf, d->gid, d->num_groups);
}

/* Why d's groups make no dragonfly+, into why; false when they do. */
static bool dfp_why_not(const struct dfp *d, char *why, size_t len)
{
	const struct cr_fabric *f = d->rp.f;
	uint32_t ns = d->rp.ns, g = UINT32_MAX, s;
	uint8_t *has;

	if (dfp_is_dragonfly(d))
		return false;
	if (d->num_groups < 2) {
		snprintf(why, len,
			 "its leaf-spine cables make %u group%s, not two or"
			 " more (a two-level tree?)",
			 d->num_groups, d->num_groups == 1 ? "" : "s");
		return true;
	}
	has = calloc(d->num_groups + 1, 1);
	for (s = 0; has && s < ns; s++)
		has[d->gid[s]] |= d->leaf[s] ? 1 : 2;
	for (s = 0; has && s < ns && g == UINT32_MAX; s++)
		if (has[d->gid[s]] != 3)
			g = s;
	if (!has)
		snprintf(why, len, "out of memory");
	else if (g == UINT32_MAX)
		snprintf(why, len, "its groups lack leaves or spines");
	else
		snprintf(why, len,
			 "the group of switch '%s' (0x%016llx), one of %u,"
			 " has no %s: groups are leaves (switches with CAs)"
			 " and the spines cabled to them",
			 f->nodes[f->switches[g]].desc,
			 (unsigned long long)f->nodes[f->switches[g]].guid,
			 d->num_groups, has[d->gid[g]] & 1 ? "spine" : "leaf");
	free(has);
	return true;
}

/*
 * Groups: the parts the leaf-spine cables of d's switch graph (rp.ns,
 * rp.adj_start, rp.adj, leaf) make, numbered in switch order into
 * d->gid[]; their count. up[] is scratch (ns entries). A leaf cabled to
 * a leaf: UINT32_MAX, with pair[] the two.
 */
static uint32_t find_groups(const struct dfp *d, uint32_t *up, uint32_t pair[2])
{
	uint32_t ns = d->rp.ns, ng = 0, *gid = d->gid;
	const uint32_t *adj_start = d->rp.adj_start, *adj = d->rp.adj;
	const bool *leaf = d->leaf;

	for (uint32_t s = 0; s < ns; s++)
		up[s] = s;
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t i = adj_start[s]; i < adj_start[s + 1]; i++) {
			uint32_t t = adj[i];

			if (leaf[s] && leaf[t]) {
				pair[0] = s;
				pair[1] = t;
				return UINT32_MAX;
			}
			if (leaf[s] != leaf[t])
				up[find(up, s)] = find(up, t);
		}
	for (uint32_t s = 0; s < ns; s++)
		gid[s] = UINT32_MAX;
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t root = find(up, s);

		if (gid[root] == UINT32_MAX)
			gid[root] = ng++;
		gid[s] = gid[root];
	}
	return ng;
}

int cr_dfp_is_dragonfly(const struct cr_fabric *f)
{
	uint32_t ns = f->num_switches, *start = NULL, *adj = NULL, pair[2];
	uint32_t *up = malloc((ns + 1) * sizeof(*up));
	uint32_t *gid = malloc((ns + 1) * sizeof(*gid));
	bool *leaf = malloc(ns + 1);
	uint8_t *port = NULL;
	struct dfp d = {.rp = {.f = f, .ns = ns}, .leaf = leaf, .gid = gid};
	int ret = -1;

	if (!up || !gid || !leaf || cr_switch_adjacency(f, &start, &adj, &port))
		goto out;
	d.rp.adj_start = start;
	d.rp.adj = adj;
	for (uint32_t s = 0; s < ns; s++)
		leaf[s] = cr_switch_num_cas(f, s) > 0;
	uint32_t ng = find_groups(&d, up, pair);

	ret = ng != UINT32_MAX && groups_make_dragonfly(ns, leaf, gid, ng);
out:
	free(up);
	free(gid);
	free(leaf);
	free(start);
	free(adj);
	free(port);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * 1 when a cable joins every two groups, 0 if not, -1 out of memory.
 * The distinct pairs the cables join, counted in a sorted list: memory
 * in cables, not groups squared (a three-level tree's top switches are
 * groups each).
 */
static int all_pairs_cabled(const struct dfp *d)
{
	const struct cr_ranked *rp = &d->rp;
	uint64_t ng = d->num_groups, want = ng * (ng - 1) / 2, got = 0;
	uint64_t *pair =
		malloc(((size_t)rp->adj_start[rp->ns] + 1) * sizeof(*pair));
	size_t n = 0;

	if (!pair)
		return -1;
	for (uint32_t s = 0; s < rp->ns; s++)
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++) {
			uint64_t g = d->gid[s], h = d->gid[rp->adj[i]];

			if (g < h)
				pair[n++] = g * ng + h;
		}
	qsort(pair, n, sizeof(*pair), cmp_u64);
	for (size_t k = 0; k < n; k++)
		got += !k || pair[k] != pair[k - 1];
	free(pair);
	return got == want;
}

/*
 * Whether some pair of groups shares at least twice the global cables
 * (parallel ones each) of another pair that shares any: 1 yes, 0 no, -1
 * out of memory. There a spine reaching fewer groups gets fewer forced
 * flows on every leaf's uplink, and each leaf's flow balance fills that
 * uplink with the group's own traffic, which then shares the spine's
 * downlinks; path loads see them (doc/design.md, bench/modern/README).
 */
static int uneven_cables(const struct dfp *d)
{
	const struct cr_fabric *f = d->rp.f;
	uint64_t ng = d->num_groups, *pair = NULL;
	size_t n = 0, cap = 0, run = 0, lo = SIZE_MAX, hi = 0;

	for (uint32_t s = 0; s < d->rp.ns; s++) {
		const struct cr_node *x = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= x->num_ports; p++) {
			uint32_t y = x->ports[p].remote;
			uint64_t g = d->gid[s], h;

			if (y == CR_NO_NODE ||
			    f->nodes[y].type != CR_NODE_SWITCH)
				continue;
			h = d->gid[f->nodes[y].sw_index];
			if (g >= h)
				continue;
			if (cr_grow(&pair, &cap, n + 1, sizeof(*pair))) {
				free(pair);
				return -1;
			}
			pair[n++] = g * ng + h;
		}
	}
	if (!pair)
		return 0;
	qsort(pair, n, sizeof(*pair), cmp_u64);
	for (size_t k = 0; k < n; k++) {
		run++;
		if (k + 1 < n && pair[k + 1] == pair[k])
			continue;
		lo = run < lo ? run : lo;
		hi = run > hi ? run : hi;
		run = 0;
	}
	free(pair);
	return hi >= 2 * lo;
}

/* Whether switch indices s and t share a cable. */
static bool cabled_to(const struct cr_ranked *rp, uint32_t s, uint32_t t)
{
	for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1]; i++)
		if (rp->adj[i] == t)
			return true;
	return false;
}

/* The spines of its group leaf s is cabled to, parallel cables once. */
static uint32_t spines_of(const struct dfp *d, uint32_t s)
{
	const struct cr_ranked *rp = &d->rp;
	uint32_t n = 0;

	for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1]; i++) {
		uint32_t t = rp->adj[i], j = rp->adj_start[s];

		while (j < i && rp->adj[j] != t)
			j++;
		n += j == i && !d->leaf[t] && d->gid[t] == d->gid[s];
	}
	return n;
}

/* In torn group g's hub: a spine of g, or a leaf the hub took. */
static bool in_hub(const struct dfp *d, uint32_t g, uint32_t s)
{
	return d->gid[s] == g && (!d->leaf[s] || d->key[s] >= 0);
}

/* The parts union-find comp makes of group g's spines. */
static uint32_t spine_parts(const struct dfp *d, uint32_t g, uint32_t *comp)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < d->rp.ns; s++)
		n += d->gid[s] == g && !d->leaf[s] && find(comp, s) == s;
	return n;
}

/* Whether t is a spine of leaf s's group. */
static bool own_spine(const struct dfp *d, uint32_t s, uint32_t t)
{
	return !d->leaf[t] && d->gid[t] == d->gid[s];
}

/* The parts of comp among the spines leaf s is cabled to. */
static uint32_t parts_joined(const struct dfp *d, uint32_t *comp, uint32_t s)
{
	const struct cr_ranked *rp = &d->rp;
	uint32_t n = 0;

	for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1]; i++) {
		uint32_t t = rp->adj[i], j = rp->adj_start[s];

		if (!own_spine(d, s, t))
			continue;
		while (j < i && (!own_spine(d, s, rp->adj[j]) ||
				 find(comp, rp->adj[j]) != find(comp, t)))
			j++;
		n += j == i;
	}
	return n;
}

/*
 * The leaves of torn group g's hub (key 0): added one at a time, the one
 * whose spines lie in most parts the hub leaves apart (then the one with
 * most spines, then the first), until the hub joins all the group's
 * spines. The first is the leaf with most spines, as an intact group's
 * turn leaf. comp: union-find over the spines (ns entries).
 */
static void grow_hub(struct dfp *d, uint32_t g, uint32_t *comp,
		     const uint32_t *links)
{
	const struct cr_ranked *rp = &d->rp;

	while (spine_parts(d, g, comp) > 1) {
		uint32_t best = UINT32_MAX, best_n = 0, first = UINT32_MAX;

		for (uint32_t s = 0; s < rp->ns; s++) {
			uint32_t n;

			if (!d->leaf[s] || d->gid[s] != g || d->key[s] >= 0)
				continue;
			n = parts_joined(d, comp, s);
			if (n > best_n ||
			    (n == best_n && n && links[s] > links[best])) {
				best = s;
				best_n = n;
			}
		}
		if (best_n < 2)
			return; /* cannot happen: the leaves join the group */
		d->key[best] = 0;
		for (uint32_t i = rp->adj_start[best];
		     i < rp->adj_start[best + 1]; i++) {
			uint32_t t = rp->adj[i];

			if (!own_spine(d, best, t))
				continue;
			if (first == UINT32_MAX)
				first = find(comp, t);
			else if (find(comp, t) != first)
				comp[find(comp, t)] = first;
		}
	}
}

/*
 * Numbers torn group g's hub in breadth-first order from its spine
 * cabled to most hub leaves (the first among equals), over the group's
 * cables between hub switches: key[] and hub_size[g]. queue: ns entries.
 */
static void number_hub(struct dfp *d, uint32_t g, uint32_t *queue)
{
	const struct cr_ranked *rp = &d->rp;
	uint32_t root = UINT32_MAX, best = 0, head = 0, tail = 0;

	for (uint32_t s = 0; s < rp->ns; s++) {
		uint32_t n = 0;

		if (d->leaf[s] || d->gid[s] != g)
			continue;
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++)
			n += d->leaf[rp->adj[i]] && in_hub(d, g, rp->adj[i]);
		if (root == UINT32_MAX || n > best) {
			root = s;
			best = n;
		}
	}
	/* -2: in the hub, not reached yet */
	for (uint32_t s = 0; s < rp->ns; s++)
		if (d->gid[s] == g)
			d->key[s] = in_hub(d, g, s) ? -2 : -1;
	d->key[root] = 0;
	queue[tail++] = root;
	while (head < tail) {
		uint32_t s = queue[head++];

		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++) {
			uint32_t t = rp->adj[i];

			if (d->gid[t] != g || d->key[t] != -2)
				continue;
			d->key[t] = (int32_t)tail;
			queue[tail++] = t;
		}
	}
	for (uint32_t s = 0; s < rp->ns; s++)
		if (d->gid[s] == g && d->key[s] == -2)
			d->key[s] = -1;
	d->hub_size[g] = tail;
}

/*
 * The torn groups of a dragonfly+ (no leaf cabled to all their spines,
 * links: per switch index, a leaf's spines) and their hubs; the stride
 * that leaves room for each hub's ranks. Spines of torn groups take
 * side -2 and their leaves -1, so the turn-leaf ranks never apply there.
 * -1: out of memory.
 */
static int tear_groups(struct dfp *d, const uint32_t *links)
{
	uint32_t ns = d->rp.ns, ng = d->num_groups, big = 0;
	uint32_t *spines = calloc(ng + 1, sizeof(*spines));
	uint32_t *most = calloc(ng + 1, sizeof(*most));
	uint32_t *comp = malloc((ns + 1) * sizeof(*comp));
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));
	int ret = -1;

	if (!spines || !most || !comp || !queue)
		goto out;
	for (uint32_t s = 0; s < ns; s++) {
		d->key[s] = -1;
		comp[s] = s;
		if (!d->leaf[s])
			spines[d->gid[s]]++;
		else if (links[s] > most[d->gid[s]])
			most[d->gid[s]] = links[s];
	}
	for (uint32_t g = 0; g < ng; g++) {
		if (!most[g] || most[g] >= spines[g])
			continue;
		grow_hub(d, g, comp, links);
		number_hub(d, g, queue);
		if (d->hub_size[g] > big)
			big = d->hub_size[g];
	}
	for (uint32_t s = 0; s < ns; s++)
		if (d->hub_size[d->gid[s]])
			d->side[s] = d->leaf[s] ? -1 : -2;
	d->stride = big ? 2 * (int)big + 4 : 4;
	d->torn = big > 0;
	ret = 0;
out:
	free(spines);
	free(most);
	free(comp);
	free(queue);
	return ret;
}

/*
 * Each group's turn leaves (at most turns of them): the leaves cabled to
 * most of its spines, the first in switch order among equals. On an
 * intact group those are its first leaves; where a cable is cut, a leaf
 * that kept all its spines turns instead of one that lost one, so that
 * every spine still reaches every other through a turn. Side k is the
 * k-th turn leaf in switch order. A spine climbs from a turn leaf it is
 * cabled to, the two sides alternating where it is cabled to both (or
 * to neither). On a dragonfly+ (tear), groups where no leaf keeps all
 * the spines are torn instead (tear_groups). -1: out of memory.
 */
static int pick_turn_leaves(struct dfp *d, uint32_t turns, bool tear)
{
	const struct cr_ranked *rp = &d->rp;
	uint32_t ns = rp->ns, ng = d->num_groups;
	uint32_t *links = calloc(ns + 1, sizeof(*links));
	uint32_t *turn = malloc((2 * (size_t)ng + 1) * sizeof(*turn));
	uint32_t *alt = calloc(ng + 1, sizeof(*alt));
	int ret = -1;

	if (!links || !turn || !alt)
		goto out;
	for (uint32_t g = 0; g < 2 * ng; g++)
		turn[g] = UINT32_MAX;
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t *t = turn + 2 * (size_t)d->gid[s];

		/* alt[]: first each group's spines */
		alt[d->gid[s]] += !d->leaf[s];
		if (!d->leaf[s])
			continue;
		d->side[s] = -1;
		links[s] = spines_of(d, s);
		if (t[0] == UINT32_MAX || links[s] > links[t[0]]) {
			t[1] = t[0];
			t[0] = s;
		} else if (t[1] == UINT32_MAX || links[s] > links[t[1]]) {
			t[1] = s;
		}
	}
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t *t = turn + 2 * (size_t)g;

		/* one spine: no turn, and a second turn leaf could not reach
		 * the first through it */
		if (turns < 2 || (tear && alt[g] < 2))
			t[1] = UINT32_MAX;
		if (t[1] < t[0]) {
			uint32_t x = t[0];

			t[0] = t[1];
			t[1] = x;
		}
		for (unsigned k = 0; k < 2; k++)
			if (t[k] != UINT32_MAX)
				d->side[t[k]] = (int8_t)k;
		alt[g] = 0;
	}
	for (uint32_t s = 0; s < ns; s++) {
		const uint32_t *t = turn + 2 * (size_t)d->gid[s];
		bool c0, c1;

		if (d->leaf[s])
			continue;
		if (t[1] == UINT32_MAX) {
			d->side[s] = 0;
			continue;
		}
		c0 = t[0] != UINT32_MAX && cabled_to(rp, s, t[0]);
		c1 = cabled_to(rp, s, t[1]);
		d->side[s] =
			c0 == c1 ? (int8_t)(alt[d->gid[s]]++ % 2) : (int8_t)c1;
	}
	ret = tear ? tear_groups(d, links) : 0;
out:
	free(links);
	free(turn);
	free(alt);
	return ret;
}

/*
 * Leaves, groups (the parts the leaf-spine cables make, numbered in
 * switch order) and each group's turn leaves (pick_turn_leaves). Where
 * every two groups of a dragonfly+ share a cable, no CA path turns at a
 * leaf of an intact group (only spines' own traffic does), and one leaf
 * alone turns: a turn leaf reaches the other turn leaf through half the
 * spines only, and with one turn leaf every leaf reaches every other
 * through all of them. Where some pair lost its cables, paths through a
 * third group turn there, and two turn leaves share them. -1 with the
 * reason in why.
 */
static int dfp_structure(struct dfp *d, char *why, size_t len)
{
	const struct cr_ranked *rp = &d->rp;
	const struct cr_fabric *f = rp->f;
	uint32_t ns = rp->ns;
	uint32_t *up = malloc((ns + 1) * sizeof(*up));
	uint32_t turns = 1, pair[2] = {0};
	bool dfly;
	int ret = -1;

	if (!up)
		goto oom;
	for (uint32_t s = 0; s < ns; s++)
		d->leaf[s] = rp->cas[s] > 0;
	d->num_groups = find_groups(d, up, pair);
	if (d->num_groups == UINT32_MAX) {
		snprintf(
			why, len,
			"leaf '%s' (0x%016llx) is cabled to leaf '%s'"
			" (0x%016llx)",
			f->nodes[f->switches[pair[0]]].desc,
			(unsigned long long)f->nodes[f->switches[pair[0]]].guid,
			f->nodes[f->switches[pair[1]]].desc,
			(unsigned long long)f->nodes[f->switches[pair[1]]]
				.guid);
		ret = -2;
		goto out;
	}
	if (dfp_why_not(d, why, len)) {
		ret = -2;
		goto out;
	}
	/* Not a dragonfly+ (a two-level tree): two turn leaves, as ever. */
	dfly = dfp_is_dragonfly(d);
	d->stride = 4;
	for (uint32_t s = 0; s < ns; s++)
		d->key[s] = -1;
	switch (dfly ? all_pairs_cabled(d) : 0) {
	case -1:
		goto oom;
	case 0:
		turns = 2;
	}
	if (pick_turn_leaves(d, turns, dfly))
		goto oom;
	ret = 0;
	goto out;
oom:
	snprintf(why, len, "out of memory");
out:
	free(up);
	return ret;
}

/*
 * The rank of channel s -> t in VL v's ranking. VL 0 orders the groups
 * downward, VL 1 upward: a global channel ranks by the group it enters,
 * a turn (down into the group's turn leaf, up out of it) just above; up
 * from any other leaf ranks lowest, down into any other leaf highest.
 */
static int rank_of(const struct cr_ranked *rp, unsigned v, uint32_t i,
		   uint32_t s, uint32_t t)
{
	const struct dfp *d = (const struct dfp *)rp;
	int sign = v ? 1 : -1, base = sign * d->stride * (int)d->group[t];

	(void)i;
	if (d->key[s] >= 0 && d->key[t] >= 0 && d->gid[s] == d->gid[t]) {
		/* a torn group's hub: up*-down* in breadth-first order */
		int m = (int)d->hub_size[d->gid[t]];

		return base + (d->key[t] < d->key[s] ? m - 1 - d->key[t]
						     : m + d->key[t]);
	}
	if (d->leaf[s])
		return d->side[s] == d->side[t] ? base + 1 : RANK_MIN;
	if (d->leaf[t])
		return d->side[t] >= 0 ? base - 1 : RANK_MAX;
	return base - 2;
}

/*
 * Which VL switch s prefers when it cannot have both, in try k. A
 * spine's choice decides which of the groups cabled to it can come
 * through on a single VL: the lower groups need VL 1 to climb to it,
 * the higher ones VL 0. Tries 2 and 3 let a spine of the destination's
 * group side with the majority of the groups it is cabled to; later
 * tries mix the preferences.
 */
static bool prefers_vl1(const struct dfp *d, uint32_t s, uint32_t t, unsigned k)
{
	const struct cr_ranked *rp = &d->rp;
	int below = 0;

	/* Beyond the four rules, a mix drawn from (s, t, k). */
	if (k >= 4)
		return ((s * 2654435761u) ^ (t * 40503u) ^ (k * 97u)) >> 7 & 1;
	if (k < 2 || d->leaf[s] || d->group[s] != d->group[t])
		return k & 1;
	for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1]; i++) {
		uint32_t g = d->group[rp->adj[i]];

		if (g != d->group[s])
			below += g < d->group[s] ? 1 : -1;
	}
	return below > 0 || (below == 0 && (k & 1));
}

#define DFP_TRIES 12

/*
 * Toward switch index t when the waves leave a switch without a path:
 * the switches of groups below t's (in VL 1's order) take VL 1's tree
 * (cr_ranked_tree), those above VL 0's, t's group the one that reaches
 * them. A path of VL 1's tree from a lower group crosses only groups up
 * to t's, which all took that tree, and ends in t's group, where every
 * path (down to a leaf, at most a turn up to a spine) rises on both VLs:
 * it keeps rising as written. Where the group order joins every pair of
 * groups by a path of rising (or falling) groups, each switch has one.
 */
static uint32_t label_by_trees(struct dfp *d, uint32_t t, const uint8_t *hop,
			       uint32_t *one)
{
	struct cr_ranked *rp = &d->rp;

	for (unsigned v = 0; v < 2; v++)
		cr_ranked_tree(rp, t, v, &d->tree);
	for (uint32_t s = 0; s < rp->ns; s++) {
		unsigned v = d->group[s] != d->group[t]
				     ? d->group[s] < d->group[t]
				     : d->tree.next[1][s] != UINT32_MAX;

		d->next[s] = d->tree.next[v][s];
	}
	return cr_ranked_follow(rp, t, d->next, hop, one);
}

/*
 * Labels every switch toward destination switch index t with each rule
 * of VL preference in turn, until every switch that CA traffic needs
 * has a path. Returns how many such switches are left without one.
 */
static uint32_t label_toward(struct cr_ranked *rp, uint32_t t,
			     const uint8_t *hop, uint32_t *one)
{
	struct dfp *d = (struct dfp *)rp;
	uint32_t left = 0;

	for (unsigned k = 0; k < DFP_TRIES; k++) {
		for (uint32_t s = 0; s < rp->ns; s++)
			rp->pref1[s] = prefers_vl1(d, s, t, k);
		left = cr_ranked_label(rp, t, hop, one);
		if (!left)
			break;
	}
	return left && (d->trees || d->torn) ? label_by_trees(d, t, hop, one)
					     : left;
}

#define DFP_ORDERS 8
#define DFP_CHAINS 32

/*
 * Extends a chain of n groups ending in last (perm[g]: group g's place,
 * UINT32_MAX while out) by groups a global cable joins to the last, the
 * lowest-numbered first, backtracking within *budget steps. Whether
 * every group found a place.
 */
static bool chain_from(const struct dfp *d, uint32_t last, uint32_t n,
		       uint32_t *perm, unsigned *budget)
{
	uint32_t ng = d->num_groups;

	if (n == ng)
		return true;
	for (uint32_t g = 0; g < ng && *budget; g++) {
		if (perm[g] != UINT32_MAX || !d->cabled[(size_t)last * ng + g])
			continue;
		--*budget;
		perm[g] = n;
		if (chain_from(d, g, n + 1, perm, budget))
			return true;
		perm[g] = UINT32_MAX;
	}
	return false;
}

/*
 * Places the groups (perm[g]: group g's place) in a chain from group
 * start in which a global cable joins each group to the next: then every
 * pair of groups has a path through groups of rising places, on one VL
 * or the other. When no chain is found, the groups left follow in their
 * own order (some pair may then lack a path; the next start is tried).
 */
static void chain_order(const struct dfp *d, uint32_t start, uint32_t *perm)
{
	uint32_t ng = d->num_groups, n = 0;
	unsigned budget = 1u << 16;

	for (uint32_t g = 0; g < ng; g++)
		perm[g] = UINT32_MAX;
	perm[start] = 0;
	if (chain_from(d, start, 1, perm, &budget))
		return;
	for (uint32_t g = 0; g < ng; g++)
		n += perm[g] != UINT32_MAX;
	for (uint32_t g = 0; g < ng; g++)
		if (perm[g] == UINT32_MAX)
			perm[g] = n++;
}

/*
 * The order of the groups the rankings follow, try k: the groups' own
 * (switch order) first, then shuffles seeded by k. A path through a
 * third group must visit the groups in order, up or down, when it turns
 * in its first group (a spine's own traffic when its global cables are
 * gone): another order can give it one.
 */
static int set_order(struct cr_ranked *rp, unsigned k)
{
	struct dfp *d = (struct dfp *)rp;
	uint32_t *perm = malloc((d->num_groups + 1) * sizeof(*perm));
	uint64_t x = 0x9e3779b97f4a7c15ull * (k + 1);

	if (!perm)
		return -1;
	if (d->trees) {
		chain_order(d, k % d->num_groups, perm);
		k = 0;
	} else {
		for (uint32_t g = 0; g < d->num_groups; g++)
			perm[g] = g;
	}
	for (uint32_t g = d->num_groups; k && g > 1; g--) {
		uint32_t j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (uint32_t)((x >> 16) % g);
		t = perm[g - 1];
		perm[g - 1] = perm[j];
		perm[j] = t;
	}
	for (uint32_t s = 0; s < rp->ns; s++)
		d->group[s] = perm[d->gid[s]];
	free(perm);
	return 0;
}

/* Group pairs a global cable joins; -1: out of memory. */
static int dfp_cabled(struct dfp *d)
{
	const struct cr_ranked *rp = &d->rp;
	size_t ng = d->num_groups;

	d->cabled = calloc(ng * ng + 1, 1);
	if (!d->cabled)
		return -1;
	for (uint32_t s = 0; s < rp->ns; s++)
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++)
			d->cabled[d->gid[s] * ng + d->gid[rp->adj[i]]] = 1;
	return 0;
}

static int dfp_alloc(struct dfp *d)
{
	uint32_t ns = d->rp.ns;

	d->leaf = calloc(ns + 1, sizeof(*d->leaf));
	for (unsigned v = 0; v < 2; v++) {
		d->tree.best[v] = calloc(ns + 1, sizeof(int));
		d->tree.next[v] = calloc(ns + 1, sizeof(uint32_t));
		if (!d->tree.best[v] || !d->tree.next[v])
			return -1;
	}
	d->tree.hops = calloc(ns + 1, sizeof(*d->tree.hops));
	d->next = calloc(ns + 1, sizeof(*d->next));
	d->tree.done = calloc(ns + 1, sizeof(*d->tree.done));
	if (!d->tree.hops || !d->next || !d->tree.done)
		return -1;
	d->group = calloc(ns + 1, sizeof(*d->group));
	d->gid = calloc(ns + 1, sizeof(*d->gid));
	d->side = calloc(ns + 1, sizeof(*d->side));
	d->key = calloc(ns + 1, sizeof(*d->key));
	d->hub_size = calloc(ns + 1, sizeof(*d->hub_size));
	if (cr_ranked_alloc(&d->rp))
		return -1;
	return d->leaf && d->group && d->gid && d->side && d->key && d->hub_size
		       ? 0
		       : -1;
}

static void dfp_free(struct dfp *d)
{
	free(d->leaf);
	free(d->group);
	free(d->gid);
	free(d->side);
	free(d->key);
	free(d->hub_size);
	free(d->cabled);
	for (unsigned v = 0; v < 2; v++) {
		free(d->tree.best[v]);
		free(d->tree.next[v]);
	}
	free(d->tree.hops);
	free(d->next);
	free(d->tree.done);
	cr_ranked_free(&d->rp);
}

/*
 * The default port choice (no croute_balance, port shifting or scatter
 * asked for): flow balance, but path loads where group pairs share
 * uneven numbers of cables (uneven_cables()), on a dragonfly+ only.
 * -1: out of memory.
 */
static int dfp_balance(struct dfp *d, const struct cr_options *o,
		       struct cr_options *po)
{
	int rc;

	if (o->balance_global || o->balance_first || o->port_shifting ||
	    o->scatter_ports || !dfp_is_dragonfly(d))
		return 0;
	rc = uneven_cables(d);
	if (rc <= 0)
		return rc;
	*po = *o;
	po->balance_global = true;
	d->rp.o = po;
	cr_info("cr-dfp: some pairs of groups share twice the global cables"
		" of others: balancing path loads, not each leaf's flows");
	return 0;
}

int cr_dfp_route(const struct cr_fabric *f, const struct cr_options *o,
		 struct cr_routing *r, struct cr_byproducts *by)
{
	struct dfp d = {.rp = {.f = f,
			       .o = o,
			       .r = r,
			       .ns = f->num_switches,
			       .name = "cr-dfp",
			       .try_what = "group order",
			       .rank = rank_of,
			       .label = label_toward,
			       .set_try = set_order}};
	uint8_t *dist = cr_switch_distances(f);
	struct cr_options po;
	char why[256] = "";
	int ret = -1;

	if (!dist || dfp_alloc(&d))
		goto oom;
	ret = dfp_structure(&d, why, sizeof(why));
	if (ret == -1)
		goto oom;
	if (ret) {
		cr_err("cr-dfp: not a dragonfly+: %s; use another engine", why);
		ret = CR_ROUTE_NOT_ITS_FABRIC;
		goto out;
	}
	if (dfp_balance(&d, o, &po))
		goto oom;
	ret = cr_ranked_route_tries(&d.rp, dist, DFP_ORDERS, why, sizeof(why));
	if (ret == -1) {
		/* Chained orders, and trees where the waves fail. */
		d.trees = true;
		if (dfp_cabled(&d))
			goto oom;
		ret = cr_ranked_route_tries(
			&d.rp, dist,
			d.num_groups < DFP_CHAINS ? d.num_groups : DFP_CHAINS,
			why, sizeof(why));
	}
	if (ret == -2)
		goto oom;
	if (ret) {
		/* cr-updn's fallback tables as the options ask them */
		d.rp.o = o;
		ret = cr_ranked_fall_back(&d.rp, by, why);
		goto out;
	}
	ret = cr_ranked_finish(&d.rp, by, "paths through a third group");
	by->path_loads = ret >= 0 && d.rp.o == &po;
	if (ret)
		goto out;
	cr_info("cr-dfp: %u switches in %u groups routed on %u VL(s)", d.rp.ns,
		d.num_groups, r->num_layers);
	by->native_vls = r->num_layers;
	if (d.rp.pairs_left)
		cr_info("cr-dfp: %llu LIDs of switches without CAs left "
			"unrouted on switches without CAs (no path rising in "
			"either VL's order; CA traffic is not concerned)",
			(unsigned long long)d.rp.pairs_left);
	goto out;
oom:
	cr_err("cr-dfp: out of memory");
out:
	free(dist);
	dfp_free(&d);
	return ret == CR_ROUTE_NOT_ITS_FABRIC ? ret : ret < 0 ? -1 : 0;
}
