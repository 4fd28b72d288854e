// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-dfp: dragonfly+ routing on at most two virtual lanes. Leaves are the
 * switches with CAs, spines the others; a group is a part the leaf-spine
 * cables join (on a dragonfly+, a two-level tree), and "global" cables
 * join spines. Groups are numbered in switch order; the first two leaves
 * of each group are its turn leaves, and its spines alternate between
 * them.
 *
 * Ranks. Each VL orders the channels: VL 1 by group upward, VL 0 by
 * group downward (g below is the group's number, negated on VL 0): a
 * global channel into group g ranks 4g - 2; down into a turn leaf 4g - 1;
 * up out of a turn leaf into a spine of its side 4g + 1; up out of any
 * other leaf lowest, down into any other leaf highest. A path takes SL 0
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
 * default: CA sources counted per port, farthest switches first). Host
 * paths are therefore shortest wherever the ranks allow: on an intact
 * dragonfly+ leaf-spine-spine-leaf, spread over the global cables; pairs
 * of groups that lost their cables go through a third group, and only
 * they. A switch without CAs may be left without a path to another
 * switch without CAs (as cr-updn leaves some), never a CA or a CA's
 * switch. When a destination leaves a CA's switch without a rising path
 * in every group order tried (the groups' own, then seeded shuffles), or
 * the fabric has leaf-to-leaf cables, or max_vls leaves no second VL
 * when one is needed, the whole fabric is routed by cr-updn on one VL
 * instead, and the reason logged. Before the tables are returned, every
 * switch's path to every LID, as written, is checked to rise on its SL's
 * VL (linear in the tables; croute check's search of the dependency
 * graph took 55% of the time at 16,896 hosts), falling back the same way.
 *
 * The waves, the port choice and the final check are shared with
 * cr-hyperx (ranked_paths.c); this file gives the ranks, the rules of VL
 * preference and the group orders.
 *
 * Cost: all-pairs switch distances (switches^2 bytes); per destination
 * switch a few waves over the switch links, per LID a pick on every
 * switch, and the check. 16,896 hosts on 1,056 switches route offline in
 * 2.7 s on one core, 45 MB.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/hops.h>
#include <croute/log.h>
#include <croute/portsel.h>

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
};

static uint32_t find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/*
 * Leaves, groups (the parts the leaf-spine cables make, numbered in
 * switch order) and each group's turn leaves: its first leaf for VL 0,
 * its second (else the first) for VL 1. -1 with the reason in why.
 */
static int dfp_structure(struct dfp *d, char *why, size_t len)
{
	const struct cr_ranked *rp = &d->rp;
	const struct cr_fabric *f = rp->f;
	uint32_t ns = rp->ns;
	uint32_t *up = malloc((ns + 1) * sizeof(*up));
	uint32_t *num = malloc((ns + 1) * sizeof(*num));
	uint32_t *cnt = calloc(ns + 1, sizeof(*cnt));
	int ret = -1;

	if (!up || !num || !cnt) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < ns; s++) {
		up[s] = s;
		num[s] = UINT32_MAX;
		d->leaf[s] = rp->cas[s] > 0;
	}
	for (uint32_t s = 0; s < ns; s++) {
		for (uint32_t i = rp->adj_start[s]; i < rp->adj_start[s + 1];
		     i++) {
			uint32_t t = rp->adj[i];

			if (d->leaf[s] && d->leaf[t]) {
				snprintf(why, len,
					 "leaf %s is cabled to "
					 "leaf %s",
					 f->nodes[f->switches[s]].desc,
					 f->nodes[f->switches[t]].desc);
				goto out;
			}
			if (d->leaf[s] != d->leaf[t])
				up[find(up, s)] = find(up, t);
		}
	}
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t root = find(up, s);

		if (num[root] == UINT32_MAX)
			num[root] = d->num_groups++;
		d->gid[s] = num[root];
	}
	/* The first two leaves of a group turn; its spines alternate. */
	for (uint32_t s = 0; s < ns; s++)
		if (d->leaf[s])
			d->side[s] = cnt[d->gid[s]] < 2
					     ? (int8_t)cnt[d->gid[s]]++
					     : -1;
	memset(num, 0, (ns + 1) * sizeof(*num));
	for (uint32_t s = 0; s < ns; s++)
		if (!d->leaf[s])
			d->side[s] = cnt[d->gid[s]] > 1
					     ? (int8_t)(num[d->gid[s]]++ % 2)
					     : 0;
	ret = 0;
out:
	free(up);
	free(num);
	free(cnt);
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
	int sign = v ? 1 : -1;

	(void)i;
	if (d->leaf[s])
		return d->side[s] == d->side[t]
			       ? sign * 4 * (int)d->group[s] + 1
			       : RANK_MIN;
	if (d->leaf[t])
		return d->side[t] >= 0 ? sign * 4 * (int)d->group[t] - 1
				       : RANK_MAX;
	return sign * 4 * (int)d->group[t] - 2;
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
 * Labels every switch toward destination switch index t with each rule
 * of VL preference in turn, until every switch that CA traffic needs
 * has a path. Returns how many such switches are left without one.
 */
static uint32_t label_toward(struct cr_ranked *rp, uint32_t t,
			     const uint8_t *hop, uint32_t *one)
{
	const struct dfp *d = (const struct dfp *)rp;
	uint32_t left = 0;

	for (unsigned k = 0; k < DFP_TRIES; k++) {
		for (uint32_t s = 0; s < rp->ns; s++)
			rp->pref1[s] = prefers_vl1(d, s, t, k);
		left = cr_ranked_label(rp, t, hop, one);
		if (!left)
			break;
	}
	return left;
}

#define DFP_ORDERS 8

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
	for (uint32_t g = 0; g < d->num_groups; g++)
		perm[g] = g;
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

static int dfp_alloc(struct dfp *d)
{
	uint32_t ns = d->rp.ns;

	d->leaf = calloc(ns + 1, sizeof(*d->leaf));
	d->group = calloc(ns + 1, sizeof(*d->group));
	d->gid = calloc(ns + 1, sizeof(*d->gid));
	d->side = calloc(ns + 1, sizeof(*d->side));
	if (cr_ranked_alloc(&d->rp))
		return -1;
	return d->leaf && d->group && d->gid && d->side ? 0 : -1;
}

static void dfp_free(struct dfp *d)
{
	free(d->leaf);
	free(d->group);
	free(d->gid);
	free(d->side);
	cr_ranked_free(&d->rp);
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
	char why[256] = "";
	int ret = -1;

	if (!dist || dfp_alloc(&d))
		goto oom;
	if (dfp_structure(&d, why, sizeof(why))) {
		ret = cr_ranked_fall_back(&d.rp, by, why);
		goto out;
	}
	ret = cr_ranked_route_tries(&d.rp, dist, DFP_ORDERS, why, sizeof(why));
	if (ret == -2)
		goto oom;
	if (ret) {
		ret = cr_ranked_fall_back(&d.rp, by, why);
		goto out;
	}
	ret = cr_ranked_finish(&d.rp, by, "paths through a third group");
	if (ret)
		goto out;
	cr_info("cr-dfp: %u switches in %u groups routed on %u VL(s)", d.rp.ns,
		d.num_groups, r->num_layers);
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
	return ret < 0 ? -1 : 0;
}
