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

#define RANK_MIN (INT_MIN / 2)
#define RANK_MAX (INT_MAX / 2)

struct dfp {
	const struct cr_fabric *f;
	const struct cr_options *o;
	struct cr_routing *r;
	uint32_t ns;
	bool *leaf; /* per switch index: has CAs */
	uint32_t *gid; /* per switch index: its group, in switch order */
	uint32_t *group; /* per switch index: its group's place in the order */
	/*
	 * Per switch index: a leaf's turn side (0 or 1; -1: no turn leaf),
	 * a spine's side (which turn leaf climbs to it).
	 */
	int8_t *side;
	uint32_t num_groups;
	uint64_t spine_pairs_left; /* switch to switch, no path */
	uint32_t *adj_start, *adj; /* switch adjacency (hops.h) */
	uint8_t *adj_port;
	/* Toward one destination switch, per switch index: */
	int *dist; /* hops, -1 unlabelled */
	uint8_t *ok; /* bit v: the path rises in VL v's ranking */
	int *first[2]; /* its first channel's rank in each ranking */
	uint32_t *cand_start; /* candidates: ports in cand[] */
	uint8_t *cand;
	struct cr_portsel *ps;
	bool flows; /* the port-selection module balances flows */
	uint32_t *cas; /* per switch index: its CA ports */
	uint64_t *flow; /* per switch index: CA sources through it */
	uint32_t *order, num_order; /* labelled switches, nearest first */
	uint32_t *stack, *stamp; /* the final check's walk */
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
	const struct cr_fabric *f = d->f;
	uint32_t ns = d->ns;
	uint32_t *up = malloc((ns + 1) * sizeof(*up));
	uint32_t *num = malloc((ns + 1) * sizeof(*num));
	uint32_t *cnt = calloc(ns + 1, sizeof(*cnt));
	int ret = -1;

	if (!up || !num || !cnt) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		up[s] = s;
		num[s] = UINT32_MAX;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m != CR_NO_NODE && !cr_is_switch(f, m))
				d->leaf[s] = ++d->cas[s] > 0;
		}
	}
	for (uint32_t s = 0; s < ns; s++) {
		for (uint32_t i = d->adj_start[s]; i < d->adj_start[s + 1];
		     i++) {
			uint32_t t = d->adj[i];

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
static int rank_of(const struct dfp *d, unsigned v, uint32_t s, uint32_t t)
{
	int sign = v ? 1 : -1;

	if (d->leaf[s])
		return d->side[s] == d->side[t]
			       ? sign * 4 * (int)d->group[s] + 1
			       : RANK_MIN;
	if (d->leaf[t])
		return d->side[t] >= 0 ? sign * 4 * (int)d->group[t] - 1
				       : RANK_MAX;
	return sign * 4 * (int)d->group[t] - 2;
}

/* Ranks and rise of the path s -> t -> ... given t's; 0 when none. */
static uint8_t state_via(const struct dfp *d, uint32_t s, uint32_t t, int *r0,
			 int *r1)
{
	uint8_t ok = 0;

	*r0 = rank_of(d, 0, s, t);
	*r1 = rank_of(d, 1, s, t);
	if ((d->ok[t] & 1) && *r0 < d->first[0][t])
		ok |= 1;
	if ((d->ok[t] & 2) && *r1 < d->first[1][t])
		ok |= 2;
	return ok;
}

/* Whether state (ok, r0, r1) is better than (bok, b0, b1): both VLs,
 * else VL 0, then the most room left below on each. */
static bool state_better(uint8_t ok, int r0, int r1, uint8_t bok, int b0,
			 int b1, bool vl1_first)
{
	static const int pref[2][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}};

	if (pref[vl1_first][ok] != pref[vl1_first][bok])
		return pref[vl1_first][ok] > pref[vl1_first][bok];
	if ((ok & 1) && r0 != b0)
		return r0 > b0;
	return (ok & 2) && r1 > b1;
}

static bool state_same(uint8_t ok, int r0, int r1, uint8_t bok, int b0, int b1)
{
	return ok == bok && (!(ok & 1) || r0 == b0) && (!(ok & 2) || r1 == b1);
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
	int below = 0;

	/* Beyond the four rules, a mix drawn from (s, t, k). */
	if (k >= 4)
		return ((s * 2654435761u) ^ (t * 40503u) ^ (k * 97u)) >> 7 & 1;
	if (k < 2 || d->leaf[s] || d->group[s] != d->group[t])
		return k & 1;
	for (uint32_t i = d->adj_start[s]; i < d->adj_start[s + 1]; i++) {
		uint32_t g = d->group[d->adj[i]];

		if (g != d->group[s])
			below += g < d->group[s] ? 1 : -1;
	}
	return below > 0 || (below == 0 && (k & 1));
}

#define DFP_TRIES 12

/*
 * Labels every switch toward destination switch index t, wave by wave:
 * a switch takes the first wave in which a neighbour labelled in the
 * previous one gives it a path rising in some ranking, and keeps as
 * candidates the neighbours that give its best such state. Returns the
 * number of connected switches left without a path.
 */
static uint32_t label_toward(struct dfp *d, uint32_t t, const uint8_t *hop,
			     unsigned k, uint32_t *one)
{
	uint32_t ns = d->ns, left = 0, nc = 0;
	bool more = true;

	for (uint32_t s = 0; s < ns; s++)
		d->dist[s] = -1;
	d->dist[t] = 0;
	d->ok[t] = 3;
	d->first[0][t] = d->first[1][t] = INT_MAX;
	for (int wave = 1; more; wave++) {
		more = false;
		for (uint32_t s = 0; s < ns; s++) {
			uint8_t bok = 0;
			int b0 = 0, b1 = 0;

			if (d->dist[s] >= 0)
				continue;
			for (uint32_t i = d->adj_start[s];
			     i < d->adj_start[s + 1]; i++) {
				uint32_t m = d->adj[i];
				int r0, r1;
				uint8_t ok;

				if (d->dist[m] != wave - 1)
					continue;
				ok = state_via(d, s, m, &r0, &r1);
				if (ok &&
				    (!bok ||
				     state_better(ok, r0, r1, bok, b0, b1,
						  prefers_vl1(d, s, t, k)))) {
					bok = ok;
					b0 = r0;
					b1 = r1;
				}
			}
			if (!bok)
				continue;
			/* Labelled at the end of the wave: ok[] is read. */
			d->ok[s] = bok | 0x80;
			d->first[0][s] = b0;
			d->first[1][s] = b1;
			more = true;
		}
		for (uint32_t s = 0; s < ns; s++)
			if (d->ok[s] & 0x80 && d->dist[s] < 0) {
				d->ok[s] &= 3;
				d->dist[s] = wave;
			}
	}
	/* Candidates: the neighbours one wave nearer giving that state. */
	for (uint32_t s = 0; s < ns; s++) {
		d->cand_start[s] = nc;
		if (d->dist[s] <= 0) {
			/*
			 * Switch to switch only, neither with CAs: no CA
			 * traffic needs it, as with cr-updn's roots.
			 */
			if (d->dist[s] < 0 && hop[s] != CR_HOPS_INF &&
			    !d->leaf[s] && !d->leaf[t])
				d->spine_pairs_left++;
			else if (d->dist[s] < 0 && hop[s] != CR_HOPS_INF &&
				 !left++)
				*one = s;
			continue;
		}
		for (uint32_t i = d->adj_start[s]; i < d->adj_start[s + 1];
		     i++) {
			uint32_t m = d->adj[i];
			int r0, r1;
			uint8_t ok;

			if (d->dist[m] != d->dist[s] - 1)
				continue;
			ok = state_via(d, s, m, &r0, &r1);
			if (state_same(ok, r0, r1, d->ok[s], d->first[0][s],
				       d->first[1][s]))
				d->cand[nc++] = d->adj_port[i];
		}
	}
	d->cand_start[ns] = nc;
	return left;
}

/* The labelled switches by distance to the destination, nearest first. */
static void sort_by_distance(struct dfp *d)
{
	uint32_t n = 0, start[257] = {0};

	for (uint32_t s = 0; s < d->ns; s++)
		if (d->dist[s] >= 0 && d->dist[s] < 256)
			start[d->dist[s] + 1]++;
	for (unsigned h = 1; h < 257; h++)
		start[h] += start[h - 1];
	for (uint32_t s = 0; s < d->ns; s++)
		if (d->dist[s] >= 0 && d->dist[s] < 256) {
			d->order[start[d->dist[s]]++] = s;
			n++;
		}
	d->num_order = n;
}

static void pick(struct dfp *d, uint32_t s, uint16_t lid, unsigned flags,
		 bool *second)
{
	const struct cr_fabric *f = d->f;
	uint32_t sw = f->switches[s], c = d->cand_start[s];
	unsigned n = d->cand_start[s + 1] - c;
	uint8_t p;

	if (d->flows)
		p = cr_portsel_pick_flows(d->ps, sw, &d->cand[c], n, lid, flags,
					  d->flow[s]);
	else
		p = cr_portsel_pick(d->ps, sw, &d->cand[c], n, lid, flags);
	d->r->lft[sw][lid] = p;
	d->r->sl[sw][lid] = d->ok[s] & 1 ? 0 : 1;
	*second |= !(d->ok[s] & 1);
	if (d->flows) {
		uint32_t m = f->nodes[sw].ports[p].remote;

		d->flow[f->nodes[m].sw_index] += d->flow[s];
	}
}

/*
 * Routes lid toward switch index t (port: where t delivers it) with the
 * port-selection module: with flow balance the farthest switches first,
 * each passing on the CA sources whose route crosses it; else nearest
 * first (global balance commits each LID's paths).
 */
static void route_lid(struct dfp *d, uint16_t lid, uint32_t t, uint8_t port,
		      bool *second)
{
	const struct cr_fabric *f = d->f;
	bool sw_lid = cr_is_switch(f, f->lid_node[lid]);
	unsigned flags = (cr_lid_is_base(f, lid) ? CR_PS_BASE : 0) |
			 (sw_lid ? CR_PS_NOCOUNT : 0);

	d->r->lft[f->switches[t]][lid] = port;
	d->r->sl[f->switches[t]][lid] = 0;
	if (d->flows) {
		for (uint32_t i = 0; i < d->num_order; i++)
			d->flow[d->order[i]] = d->cas[d->order[i]];
		for (uint32_t i = d->num_order; i-- > 1;)
			pick(d, d->order[i], lid, flags, second);
		return;
	}
	for (uint32_t i = 1; i < d->num_order; i++)
		pick(d, d->order[i], lid, flags, second);
	cr_portsel_commit(d->ps, lid);
}

/* Every LID; -1 with the reason in why when some switch has no path. */
static int dfp_route_all(struct dfp *d, const uint8_t *dist, bool *second,
			 char *why, size_t len)
{
	const struct cr_fabric *f = d->f;

	*second = false;
	for (uint32_t t = 0; t < d->ns; t++) {
		uint32_t sw = f->switches[t], left, one = 0;
		const struct cr_node *n = &f->nodes[sw];

		for (unsigned k = 0; k < DFP_TRIES; k++) {
			left = label_toward(d, t, &dist[(size_t)t * d->ns], k,
					    &one);
			if (!left)
				break;
		}
		sort_by_distance(d);
		if (left) {
			snprintf(why, len,
				 "%u switch(es) (%s first) have no "
				 "path to %s rising in either VL's order",
				 left, f->nodes[f->switches[one]].desc,
				 n->desc);
			return -1;
		}
		for (unsigned p = 0; p <= n->num_ports; p++) {
			uint32_t m = p ? n->ports[p].remote : sw;
			unsigned q = p ? n->ports[p].remote_port : 0;
			const struct cr_port *x;

			if (m == CR_NO_NODE || (p && cr_is_switch(f, m)))
				continue;
			x = &f->nodes[m].ports[q];
			for (unsigned i = 0; x->lid && i < (1u << x->lmc); i++)
				if (x->lid + i <= f->max_lid)
					route_lid(d, x->lid + i, t, (uint8_t)p,
						  second);
		}
	}
	return 0;
}

#define DFP_ORDERS 8

/*
 * The order of the groups the rankings follow, try k: the groups' own
 * (switch order) first, then shuffles seeded by k. A path through a
 * third group must visit the groups in order, up or down, when it turns
 * in its first group (a spine's own traffic when its global cables are
 * gone): another order can give it one.
 */
static int set_order(struct dfp *d, unsigned k)
{
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
	for (uint32_t s = 0; s < d->ns; s++)
		d->group[s] = perm[d->gid[s]];
	free(perm);
	return 0;
}

/* Routes with each group order in turn until one routes every CA pair. */
static int dfp_route_orders(struct dfp *d, const uint8_t *dist, bool *second,
			    char *why, size_t len)
{
	int rc;

	for (unsigned k = 0; k < DFP_ORDERS; k++) {
		if (set_order(d, k))
			return -2;
		cr_portsel_free(d->ps);
		d->ps = NULL;
		d->spine_pairs_left = 0;
		cr_routing_clear(d->r);
		if (cr_routing_alloc_sl(d->f, d->r))
			return -2;
		d->ps = cr_portsel_new(d->f, d->o, d->r);
		if (!d->ps)
			return -2;
		rc = cr_portsel_use_flows(d->ps);
		if (rc < 0)
			return -2;
		d->flows = rc == 1;
		if (!dfp_route_all(d, dist, second, why, len))
			return 0;
		cr_verbose("cr-dfp: group order %u: %s", k, why);
	}
	return -1;
}

/*
 * The path from switch index s toward lid, as the tables route it: its
 * first channel's rank on each VL into first[], and whether its ranks
 * rise (bit v) into ok[]; stamp[] marks the switches done for this LID.
 * Iterative: the path is walked to a switch done, then unwound.
 */
static void path_state(struct dfp *d, uint16_t lid, uint32_t s, uint32_t stamp)
{
	const struct cr_fabric *f = d->f;
	uint32_t top = 0;

	while (d->stamp[s] != stamp) {
		uint32_t sw = f->switches[s], m;
		uint8_t p = d->r->lft[sw][lid];

		d->stack[top++] = s;
		m = p && p != CR_NO_PATH && p <= f->nodes[sw].num_ports
			    ? f->nodes[sw].ports[p].remote
			    : CR_NO_NODE;
		if (m == CR_NO_NODE || !cr_is_switch(f, m) || top > d->ns) {
			/* Delivered, no entry, or a loop: ends here. */
			d->stamp[s] = stamp;
			d->ok[s] = p != CR_NO_PATH && top <= d->ns &&
						   (!p || m != CR_NO_NODE)
					   ? 3
					   : 0;
			d->first[0][s] = d->first[1][s] = INT_MAX;
			top--;
			break;
		}
		s = f->nodes[m].sw_index;
	}
	while (top) {
		uint32_t x = d->stack[--top], sw = f->switches[x];
		uint32_t m = f->nodes[sw].ports[d->r->lft[sw][lid]].remote;
		uint32_t y = f->nodes[m].sw_index;

		d->ok[x] = 0;
		for (unsigned v = 0; v < 2; v++) {
			int r = rank_of(d, v, x, y);

			d->first[v][x] = r;
			if ((d->ok[y] >> v & 1) && r < d->first[v][y])
				d->ok[x] |= (uint8_t)(1u << v);
		}
		d->stamp[x] = stamp;
	}
}

/*
 * Whether some switch's path to some LID does not rise on the ranking of
 * its SL's VL: the property that keeps both VLs free of credit loops (a
 * dependency on VL v joins two channels of some path on v, of rising
 * rank), checked on the tables as written, LID by LID, every switch a
 * source. Linear in the tables, unlike a search of the dependency graph.
 */
static bool vl_loops(struct dfp *d)
{
	const struct cr_fabric *f = d->f;
	uint32_t stamp = 0;

	memset(d->stamp, 0, (d->ns + 1) * sizeof(*d->stamp));
	for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_node[lid] == CR_NO_NODE)
			continue;
		stamp++;
		for (uint32_t s = 0; s < d->ns; s++) {
			uint32_t sw = f->switches[s];
			uint8_t v = d->r->sl[sw][lid];

			path_state(d, lid, s, stamp);
			if (d->r->lft[sw][lid] != CR_NO_PATH && v < 2 &&
			    !(d->ok[s] >> v & 1))
				return true;
		}
	}
	return false;
}

static int fall_back(const struct cr_fabric *f, const struct cr_options *o,
		     struct cr_routing *r, struct cr_byproducts *by,
		     const char *why)
{
	cr_warn("cr-dfp: %s; routing the whole fabric with up*/down* on one "
		"VL instead",
		why);
	cr_routing_clear(r);
	if (cr_updn_route(f, o, r, by))
		return -1;
	if (cr_routing_alloc_sl(f, r))
		return -1;
	r->num_layers = 1;
	memset(r->sl2vl, 0, sizeof(r->sl2vl));
	return 0;
}

static int dfp_alloc(struct dfp *d)
{
	uint32_t ns = d->ns;

	d->leaf = calloc(ns + 1, sizeof(*d->leaf));
	d->group = calloc(ns + 1, sizeof(*d->group));
	d->gid = calloc(ns + 1, sizeof(*d->gid));
	d->side = calloc(ns + 1, sizeof(*d->side));
	d->dist = calloc(ns + 1, sizeof(*d->dist));
	d->ok = calloc(ns + 1, 1);
	d->first[0] = calloc(ns + 1, sizeof(int));
	d->first[1] = calloc(ns + 1, sizeof(int));
	d->stack = calloc(ns + 2, sizeof(*d->stack));
	d->stamp = calloc(ns + 1, sizeof(*d->stamp));
	d->cand_start = calloc(ns + 1, sizeof(*d->cand_start));
	d->cas = calloc(ns + 1, sizeof(*d->cas));
	d->flow = calloc(ns + 1, sizeof(*d->flow));
	d->order = calloc(ns + 1, sizeof(*d->order));
	if (cr_switch_adjacency(d->f, &d->adj_start, &d->adj, &d->adj_port))
		return -1;
	d->cand = malloc(d->adj_start[ns] + 1);
	return d->leaf && d->group && d->gid && d->side && d->dist && d->ok &&
			       d->first[0] && d->first[1] && d->stack &&
			       d->stamp && d->cand_start && d->cas && d->flow &&
			       d->order && d->cand
		       ? 0
		       : -1;
}

static void dfp_free(struct dfp *d)
{
	free(d->leaf);
	free(d->group);
	free(d->gid);
	free(d->side);
	free(d->dist);
	free(d->ok);
	free(d->first[0]);
	free(d->first[1]);
	free(d->stack);
	free(d->stamp);
	free(d->cand_start);
	free(d->cand);
	free(d->cas);
	free(d->flow);
	free(d->order);
	cr_portsel_free(d->ps);
	free(d->adj_start);
	free(d->adj);
	free(d->adj_port);
}

int cr_dfp_route(const struct cr_fabric *f, const struct cr_options *o,
		 struct cr_routing *r, struct cr_byproducts *by)
{
	struct dfp d = {.f = f, .o = o, .r = r, .ns = f->num_switches};
	unsigned max_vls = o->max_vls ? o->max_vls : 8;
	uint8_t *dist = cr_switch_distances(f);
	char why[256] = "";
	bool second = false;
	int ret = -1;

	if (!dist || dfp_alloc(&d))
		goto oom;
	if (dfp_structure(&d, why, sizeof(why))) {
		ret = fall_back(f, o, r, by, why);
		goto out;
	}
	ret = dfp_route_orders(&d, dist, &second, why, sizeof(why));
	if (ret == -2)
		goto oom;
	if (ret) {
		ret = fall_back(f, o, r, by, why);
		goto out;
	}
	ret = -1;
	if (second && max_vls < 2) {
		snprintf(why, sizeof(why),
			 "paths through a third group need "
			 "a second VL; max_vls is %u",
			 max_vls);
		ret = fall_back(f, o, r, by, why);
		goto out;
	}
	r->num_layers = second ? 2 : 1;
	for (unsigned sl = 0; sl < 16; sl++)
		r->sl2vl[sl] = sl < 2 ? (uint8_t)sl : 0;
	/* Guaranteed by the rankings; checked so that a flaw cannot ship. */
	if (vl_loops(&d)) {
		ret = fall_back(f, o, r, by, "a VL would have a credit loop");
		goto out;
	}
	cr_info("cr-dfp: %u switches in %u groups routed on %u VL(s)", d.ns,
		d.num_groups, r->num_layers);
	if (d.spine_pairs_left)
		cr_info("cr-dfp: %llu LIDs of switches without CAs left "
			"unrouted on switches without CAs (no path rising in "
			"either VL's order; CA traffic is not concerned)",
			(unsigned long long)d.spine_pairs_left);
	ret = 0;
	goto out;
oom:
	cr_err("cr-dfp: out of memory");
out:
	free(dist);
	dfp_free(&d);
	return ret;
}
