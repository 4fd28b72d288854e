// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-hyperx: dimension-ordered routing for HyperX on at most two virtual
 * lanes. The switch graph of a HyperX is a product of complete graphs:
 * every triangle lies in one line of one dimension, and the two
 * neighbours of a switch in two dimensions close a square. The engine
 * joins the cables of a triangle, and the opposite sides of a square,
 * into dimensions; a switch's coordinate in a dimension is its part of
 * the fabric without that dimension's cables. Nothing is read from
 * names, and the result only ranks channels, so a wrong guess costs
 * balance, never deadlock freedom.
 *
 * Ranks. VL 0 ranks a channel by its dimension, then by the coordinate
 * it enters; VL 1 in an up*-down* order of the switches (a breadth-first
 * search from the first; up channels below down ones, each rising as it
 * goes). A path takes SL 0 if its channels' VL 0 ranks strictly rise,
 * else SL 1 if its VL 1 ranks do; SL i travels on VL i, so every
 * dependency on a VL joins two channels of rising rank and neither VL
 * has a credit loop, whatever cables are missing. On an intact HyperX
 * the only shortest path rising on VL 0 is the dimension-ordered one:
 * one VL. A pair that lost its cable may need a dimension twice (a
 * 2 x 2 x 2 less one cable), which only VL 1's order allows.
 *
 * Paths. For each destination switch, a breadth-first search in waves:
 * a switch takes the first wave in which a neighbour labelled in the
 * previous one gives it a path rising on some VL (VL 0 preferred), and
 * every cable to a neighbour giving that same state is a candidate, so
 * the trunk cables of a hop share its LIDs (port selection, flow balance
 * by default). Tables are per destination, so a switch whose neighbours
 * all chose paths rising on VL 0 only can be left without one: the
 * switches along its path on VL 1 alone are then told to prefer VL 1
 * and the destination labelled again, until every switch with CAs has a
 * path or nothing changes. Then the dimensions, and the coordinates
 * within them, are shuffled (eight orders in all); when none routes
 * every CA, or max_vls leaves no second VL when one is needed, the whole
 * fabric is routed by cr-updn on one VL instead and the reason logged.
 * Before the tables are returned, every switch's path to every LID, as
 * written, is checked to rise on its SL's VL.
 *
 * Cost: switch distances (switches^2 bytes); the dimensions, a pass over
 * the pairs of a switch's neighbours; per destination switch a few waves
 * over the switch links (more where cables are missing), per LID a pick
 * on every switch, and the check. 8,000 hosts on a 10 x 10 x 10 route
 * offline in 1.5 s on one core, 24 MB.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/hops.h>
#include <croute/log.h>
#include <croute/portsel.h>

#define HX_MAX_DIMS 64
#define HX_TRIES 8

struct hyperx {
	const struct cr_fabric *f;
	const struct cr_options *o;
	struct cr_routing *r;
	uint32_t ns, dims;
	uint32_t *adj_start, *adj; /* switch adjacency (hops.h) */
	uint8_t *adj_port;
	uint32_t *uf; /* per adjacency entry: union-find of dimensions */
	uint8_t *edim; /* per adjacency entry: its cable's dimension */
	uint32_t *esrc; /* per adjacency entry: its switch */
	uint32_t *ord; /* per switch index: its place in a BFS from the first */
	uint32_t *coord; /* per switch index and dimension */
	uint32_t *perm; /* per dimension and coordinate: its place, try k */
	uint32_t dperm[HX_MAX_DIMS]; /* per dimension: its place, try k */
	uint64_t switch_pairs_left;
	/* Toward one destination switch, per switch index: */
	int *dist; /* hops, -1 unlabelled */
	uint8_t *ok; /* bit v: the path rises in VL v's ranking */
	uint8_t *pref1; /* prefers a path rising on VL 1 only to VL 0 only */
	uint8_t mask; /* the VLs a path may rise on (bits) */
	int *first[2]; /* its first channel's rank in each ranking */
	uint32_t *cand_start; /* candidates: ports in cand[] */
	uint8_t *cand;
	struct cr_portsel *ps;
	bool flows;
	uint32_t *cas; /* per switch index: its CA ports */
	uint64_t *flow; /* per switch index: CA sources through it */
	uint32_t *order, num_order; /* labelled switches, nearest first */
	uint32_t *stack, *stamp; /* the final check's walk */
	uint8_t *need; /* per switch index: lacks a path CA traffic needs */
};

static uint32_t find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

static void join(uint32_t *up, uint32_t a, uint32_t b)
{
	a = find(up, a);
	b = find(up, b);
	/* The smaller root wins: the same classes every run. */
	if (a < b)
		up[b] = a;
	else
		up[a] = b;
}

/* The adjacency entry of switch s toward switch t, else UINT32_MAX. */
static uint32_t entry(const struct hyperx *h, uint32_t s, uint32_t t)
{
	for (uint32_t i = h->adj_start[s]; i < h->adj_start[s + 1]; i++)
		if (h->adj[i] == t)
			return i;
	return UINT32_MAX;
}

/*
 * Cables of one triangle share a dimension; so do the opposite sides of
 * a square s-a-c-b whose corners a, b (and s, c) are not cabled.
 */
static void join_dimensions(struct hyperx *h, const uint8_t *dist)
{
	size_t ns = h->ns;

	for (uint32_t s = 0; s < h->ns; s++) {
		uint32_t lo = h->adj_start[s], hi = h->adj_start[s + 1];

		for (uint32_t i = lo; i < hi; i++) {
			uint32_t a = h->adj[i], ba = entry(h, a, s);

			join(h->uf, i, ba);
			for (uint32_t j = i + 1; j < hi; j++) {
				uint32_t b = h->adj[j];

				if (a == b || dist[a * ns + b] == 1) {
					join(h->uf, i, j);
					continue;
				}
				for (uint32_t k = h->adj_start[a];
				     k < h->adj_start[a + 1]; k++) {
					uint32_t c = h->adj[k];
					uint32_t bc;

					if (c == s || dist[s * ns + c] != 2 ||
					    dist[b * ns + c] != 1)
						continue;
					bc = entry(h, b, c);
					join(h->uf, k, j);
					join(h->uf, bc, i);
				}
			}
		}
	}
}

/*
 * Dimensions numbered by first appearance in switch order, and each
 * switch's coordinates: its part of the fabric without the dimension's
 * cables. -1 with the reason in why.
 */
static int hx_structure(struct hyperx *h, const uint8_t *dist, char *why,
			size_t len)
{
	uint32_t ns = h->ns, ne = h->adj_start[ns], root[HX_MAX_DIMS];
	uint32_t *up = malloc((ns + 1) * sizeof(*up));
	uint32_t *num = malloc((ns + 1) * sizeof(*num));
	int ret = -1;

	if (!up || !num) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < ne; i++)
		h->uf[i] = i;
	join_dimensions(h, dist);
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t x = find(h->uf, i), d;

		for (d = 0; d < h->dims && root[d] != x; d++)
			;
		if (d == h->dims) {
			if (d == HX_MAX_DIMS) {
				snprintf(why, len,
					 "more than %u dimensions: "
					 "no HyperX",
					 HX_MAX_DIMS);
				goto out;
			}
			root[h->dims++] = x;
		}
		h->edim[i] = (uint8_t)d;
	}
	h->coord = calloc((size_t)ns * (h->dims + 1), sizeof(*h->coord));
	h->perm = calloc((size_t)ns * (h->dims + 1), sizeof(*h->perm));
	if (!h->coord || !h->perm) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (uint32_t d = 0; d < h->dims; d++) {
		uint32_t n = 0;

		for (uint32_t s = 0; s < ns; s++) {
			up[s] = s;
			num[s] = UINT32_MAX;
		}
		for (uint32_t s = 0; s < ns; s++)
			for (uint32_t i = h->adj_start[s];
			     i < h->adj_start[s + 1]; i++)
				if (h->edim[i] != d)
					join(up, s, h->adj[i]);
		for (uint32_t s = 0; s < ns; s++) {
			uint32_t x = find(up, s);

			if (num[x] == UINT32_MAX)
				num[x] = n++;
			h->coord[(size_t)s * h->dims + d] = num[x];
		}
	}
	ret = 0;
out:
	free(up);
	free(num);
	return ret;
}

static uint32_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x >> 16);
}

static void shuffle(uint32_t *p, uint32_t n, uint64_t *x)
{
	for (uint32_t g = n; g > 1; g--) {
		uint32_t j = next(x) % g, t = p[g - 1];

		p[g - 1] = p[j];
		p[j] = t;
	}
}

/*
 * Try k's order of the dimensions and of the coordinates within each:
 * the fabric's own first (dimension-ordered on an intact HyperX), then
 * the dimensions shuffled, then both.
 */
static void set_perm(struct hyperx *h, unsigned k)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (k + 1);

	for (uint32_t d = 0; d < h->dims; d++) {
		uint32_t *p = &h->perm[(size_t)d * h->ns];

		h->dperm[d] = d;
		for (uint32_t c = 0; c < h->ns; c++)
			p[c] = c;
	}
	if (k)
		shuffle(h->dperm, h->dims, &x);
	for (uint32_t d = 0; k >= HX_TRIES / 2 && d < h->dims; d++)
		shuffle(&h->perm[(size_t)d * h->ns], h->ns, &x);
}

/*
 * The rank of the channel of adjacency entry i (into switch t) in VL v's
 * ranking: VL 0 by dimension, then entered coordinate; VL 1 up*-down*
 * from the first switch (up, toward an earlier place in the search,
 * below down, each rising as it goes).
 */
static int rank_of(const struct hyperx *h, unsigned v, uint32_t i, uint32_t t)
{
	uint32_t d = h->edim[i], w = h->ns, o = h->dperm[d];
	uint32_t c = h->perm[(size_t)d * w + h->coord[(size_t)t * h->dims + d]];

	if (!v)
		return (int)(o * w + c);
	if (h->ord[t] < h->ord[h->esrc[i]])
		return -(int)h->ord[t];
	return (int)(w + h->ord[t]);
}

/* Places in a breadth-first search from the first switch. */
static void bfs_order(struct hyperx *h)
{
	uint32_t n = 0, *q = h->order;

	for (uint32_t s = 0; s < h->ns; s++)
		h->ord[s] = UINT32_MAX;
	for (uint32_t r = 0; r < h->ns; r++) {
		if (h->ord[r] != UINT32_MAX)
			continue;
		h->ord[r] = n;
		q[n++] = r;
		for (uint32_t k = h->ord[r]; k < n; k++)
			for (uint32_t i = h->adj_start[q[k]];
			     i < h->adj_start[q[k] + 1]; i++)
				if (h->ord[h->adj[i]] == UINT32_MAX) {
					h->ord[h->adj[i]] = n;
					q[n++] = h->adj[i];
				}
	}
}

/* Ranks and rise of the path through entry i (s -> t) given t's. */
static uint8_t state_via(const struct hyperx *h, uint32_t i, uint32_t t,
			 int *r0, int *r1)
{
	uint8_t ok = 0;

	*r0 = rank_of(h, 0, i, t);
	*r1 = rank_of(h, 1, i, t);
	if ((h->ok[t] & 1) && *r0 < h->first[0][t])
		ok |= 1;
	if ((h->ok[t] & 2) && *r1 < h->first[1][t])
		ok |= 2;
	return ok & h->mask;
}

/*
 * Both VLs, else VL 0 (VL 1 where vl1), then the most room left below on
 * each.
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
static bool label_wave(struct hyperx *h, int wave)
{
	bool more = false;

	for (uint32_t s = 0; s < h->ns; s++) {
		uint8_t bok = 0;
		int b0 = 0, b1 = 0;

		if (h->dist[s] >= 0)
			continue;
		for (uint32_t i = h->adj_start[s]; i < h->adj_start[s + 1];
		     i++) {
			uint32_t m = h->adj[i];
			int r0, r1;
			uint8_t ok;

			if (h->dist[m] != wave - 1)
				continue;
			ok = state_via(h, i, m, &r0, &r1);
			if (ok && (!bok || state_better(ok, r0, r1, bok, b0, b1,
							h->pref1[s]))) {
				bok = ok;
				b0 = r0;
				b1 = r1;
			}
		}
		if (!bok)
			continue;
		/* Labelled at the end of the wave: ok[] is read. */
		h->ok[s] = bok | 0x80;
		h->first[0][s] = b0;
		h->first[1][s] = b1;
		more = true;
	}
	for (uint32_t s = 0; s < h->ns; s++)
		if (h->ok[s] & 0x80 && h->dist[s] < 0) {
			h->ok[s] &= 3;
			h->dist[s] = wave;
		}
	return more;
}

static void label_waves(struct hyperx *h, uint32_t t)
{
	for (uint32_t s = 0; s < h->ns; s++)
		h->dist[s] = -1;
	h->dist[t] = 0;
	h->ok[t] = 3;
	h->first[0][t] = h->first[1][t] = INT_MAX;
	for (int wave = 1; label_wave(h, wave); wave++)
		;
}

/* Whether switch s lacks a path to t that CA traffic needs. */
static bool lacks(const struct hyperx *h, uint32_t s, uint32_t t,
		  const uint8_t *hop)
{
	return h->dist[s] < 0 && hop[s] != CR_HOPS_INF &&
	       (h->cas[s] || h->cas[t]);
}

/*
 * Labels every switch toward destination switch index t and keeps the
 * candidates. Returns the connected switches left without a path that
 * CA traffic needs (the first in *one): a switch without CAs may lack
 * one to another without CAs.
 */
static uint32_t label_toward(struct hyperx *h, uint32_t t, const uint8_t *hop,
			     uint32_t *one)
{
	uint32_t left = 0, nc = 0;

	label_waves(h, t);
	for (uint32_t s = 0; s < h->ns; s++) {
		h->cand_start[s] = nc;
		if (h->dist[s] <= 0) {
			if (lacks(h, s, t, hop) && !left++)
				*one = s;
			continue;
		}
		for (uint32_t i = h->adj_start[s]; i < h->adj_start[s + 1];
		     i++) {
			uint32_t m = h->adj[i];
			int r0, r1;
			uint8_t ok;

			if (h->dist[m] != h->dist[s] - 1)
				continue;
			ok = state_via(h, i, m, &r0, &r1);
			if (state_same(ok, r0, r1, h->ok[s], h->first[0][s],
				       h->first[1][s]))
				h->cand[nc++] = h->adj_port[i];
		}
	}
	h->cand_start[h->ns] = nc;
	return left;
}

/*
 * The switches left without a path toward t, after a labelling, need
 * switches nearer t to keep a path rising on VL 1 where a path rising on
 * VL 0 only was preferred: labels on VL 1 alone and marks, along each
 * such switch's path there, the switches to prefer VL 1. Returns how
 * many were newly marked.
 */
static uint32_t prefer_vl1_for(struct hyperx *h, uint32_t t, const uint8_t *hop,
			       uint8_t *need)
{
	uint32_t marked = 0;

	for (uint32_t s = 0; s < h->ns; s++)
		need[s] = lacks(h, s, t, hop);
	h->mask = 2;
	label_waves(h, t);
	for (uint32_t s = 0; s < h->ns; s++) {
		uint32_t x = s;

		while (need[s] && h->dist[x] > 0) {
			uint32_t i = h->adj_start[x];
			int r0, r1;

			marked += !h->pref1[x];
			h->pref1[x] = 1;
			for (; i < h->adj_start[x + 1]; i++)
				if (h->dist[h->adj[i]] == h->dist[x] - 1 &&
				    state_via(h, i, h->adj[i], &r0, &r1))
					break;
			x = h->adj[i];
		}
	}
	h->mask = 3;
	return marked;
}

/* The labelled switches by distance to the destination, nearest first. */
static void sort_by_distance(struct hyperx *h)
{
	uint32_t n = 0, start[257] = {0};

	for (uint32_t s = 0; s < h->ns; s++)
		if (h->dist[s] >= 0 && h->dist[s] < 256)
			start[h->dist[s] + 1]++;
	for (unsigned k = 1; k < 257; k++)
		start[k] += start[k - 1];
	for (uint32_t s = 0; s < h->ns; s++)
		if (h->dist[s] >= 0 && h->dist[s] < 256) {
			h->order[start[h->dist[s]]++] = s;
			n++;
		}
	h->num_order = n;
}

static void pick(struct hyperx *h, uint32_t s, uint16_t lid, unsigned flags,
		 bool *second)
{
	const struct cr_fabric *f = h->f;
	uint32_t sw = f->switches[s], c = h->cand_start[s];
	unsigned n = h->cand_start[s + 1] - c;
	uint8_t p;

	if (h->flows)
		p = cr_portsel_pick_flows(h->ps, sw, &h->cand[c], n, lid, flags,
					  h->flow[s]);
	else
		p = cr_portsel_pick(h->ps, sw, &h->cand[c], n, lid, flags);
	h->r->lft[sw][lid] = p;
	h->r->sl[sw][lid] = h->ok[s] & 1 ? 0 : 1;
	*second |= !(h->ok[s] & 1);
	if (h->flows) {
		uint32_t m = f->nodes[sw].ports[p].remote;

		h->flow[f->nodes[m].sw_index] += h->flow[s];
	}
}

/*
 * Routes lid toward switch index t (port: where t delivers it): with
 * flow balance the farthest switches first, each passing on the CA
 * sources whose route crosses it; else nearest first.
 */
static void route_lid(struct hyperx *h, uint16_t lid, uint32_t t, uint8_t port,
		      bool *second)
{
	const struct cr_fabric *f = h->f;
	bool sw_lid = cr_is_switch(f, f->lid_node[lid]);
	unsigned flags = (cr_lid_is_base(f, lid) ? CR_PS_BASE : 0) |
			 (sw_lid ? CR_PS_NOCOUNT : 0);

	h->r->lft[f->switches[t]][lid] = port;
	h->r->sl[f->switches[t]][lid] = 0;
	if (h->flows) {
		for (uint32_t i = 0; i < h->num_order; i++)
			h->flow[h->order[i]] = h->cas[h->order[i]];
		for (uint32_t i = h->num_order; i-- > 1;)
			pick(h, h->order[i], lid, flags, second);
		return;
	}
	for (uint32_t i = 1; i < h->num_order; i++)
		pick(h, h->order[i], lid, flags, second);
	cr_portsel_commit(h->ps, lid);
}

/* Every LID; -1 with the reason in why when a switch has no path. */
static int hx_route_all(struct hyperx *h, const uint8_t *dist, bool *second,
			char *why, size_t len)
{
	const struct cr_fabric *f = h->f;

	*second = false;
	for (uint32_t t = 0; t < h->ns; t++) {
		uint32_t sw = f->switches[t], one = 0, left;
		const struct cr_node *n = &f->nodes[sw];
		const uint8_t *hop = &dist[(size_t)t * h->ns];

		memset(h->pref1, 0, h->ns);
		while ((left = label_toward(h, t, hop, &one)) &&
		       prefer_vl1_for(h, t, hop, h->need))
			;
		for (uint32_t s = 0; s < h->ns; s++)
			h->switch_pairs_left += h->dist[s] < 0 &&
						hop[s] != CR_HOPS_INF &&
						!lacks(h, s, t, hop);
		if (left) {
			snprintf(why, len,
				 "%s has no path to %s rising in "
				 "either VL's order",
				 f->nodes[f->switches[one]].desc, n->desc);
			return -1;
		}
		sort_by_distance(h);
		for (unsigned p = 0; p <= n->num_ports; p++) {
			uint32_t m = p ? n->ports[p].remote : sw;
			unsigned q = p ? n->ports[p].remote_port : 0;
			const struct cr_port *x;

			if (m == CR_NO_NODE || (p && cr_is_switch(f, m)))
				continue;
			x = &f->nodes[m].ports[q];
			for (unsigned i = 0; x->lid && i < (1u << x->lmc); i++)
				if (x->lid + i <= f->max_lid)
					route_lid(h, x->lid + i, t, (uint8_t)p,
						  second);
		}
	}
	return 0;
}

/* Routes with each order of the coordinates until one routes every CA. */
static int hx_route_tries(struct hyperx *h, const uint8_t *dist, bool *second,
			  char *why, size_t len)
{
	int rc;

	for (unsigned k = 0; k < HX_TRIES; k++) {
		set_perm(h, k);
		cr_portsel_free(h->ps);
		h->ps = NULL;
		h->switch_pairs_left = 0;
		cr_routing_clear(h->r);
		if (cr_routing_alloc_sl(h->f, h->r))
			return -2;
		h->ps = cr_portsel_new(h->f, h->o, h->r);
		if (!h->ps)
			return -2;
		rc = cr_portsel_use_flows(h->ps);
		if (rc < 0)
			return -2;
		h->flows = rc == 1;
		if (!hx_route_all(h, dist, second, why, len))
			return 0;
		cr_verbose("cr-hyperx: coordinate order %u: %s", k, why);
	}
	return -1;
}

/* The adjacency entry of switch index s's port p, else UINT32_MAX. */
static uint32_t entry_of_port(const struct hyperx *h, uint32_t s, uint8_t p)
{
	for (uint32_t i = h->adj_start[s]; i < h->adj_start[s + 1]; i++)
		if (h->adj_port[i] == p)
			return i;
	return UINT32_MAX;
}

/*
 * The path from switch index s toward lid, as the tables route it: its
 * first channel's rank on each VL into first[], whether its ranks rise
 * (bit v) into ok[]; stamp[] marks the switches done for this LID.
 */
static void path_state(struct hyperx *h, uint16_t lid, uint32_t s,
		       uint32_t stamp)
{
	const struct cr_fabric *f = h->f;
	uint32_t top = 0;

	while (h->stamp[s] != stamp) {
		uint32_t sw = f->switches[s], m;
		uint8_t p = h->r->lft[sw][lid];

		h->stack[top++] = s;
		m = p && p != CR_NO_PATH && p <= f->nodes[sw].num_ports
			    ? f->nodes[sw].ports[p].remote
			    : CR_NO_NODE;
		if (m == CR_NO_NODE || !cr_is_switch(f, m) || top > h->ns) {
			/* Delivered, no entry, or a loop: ends here. */
			h->stamp[s] = stamp;
			h->ok[s] = p != CR_NO_PATH && top <= h->ns &&
						   (!p || m != CR_NO_NODE)
					   ? 3
					   : 0;
			h->first[0][s] = h->first[1][s] = INT_MAX;
			top--;
			break;
		}
		s = f->nodes[m].sw_index;
	}
	while (top) {
		uint32_t x = h->stack[--top], sw = f->switches[x];
		uint8_t p = h->r->lft[sw][lid];
		uint32_t y = f->nodes[f->nodes[sw].ports[p].remote].sw_index;
		uint32_t i = entry_of_port(h, x, p);

		h->ok[x] = 0;
		for (unsigned v = 0; v < 2 && i != UINT32_MAX; v++) {
			int r = rank_of(h, v, i, y);

			h->first[v][x] = r;
			if ((h->ok[y] >> v & 1) && r < h->first[v][y])
				h->ok[x] |= (uint8_t)(1u << v);
		}
		h->stamp[x] = stamp;
	}
}

/*
 * Whether some switch's path to some LID does not rise on the ranking of
 * its SL's VL: the property that keeps both VLs free of credit loops,
 * checked on the tables as written, every switch a source.
 */
static bool vl_loops(struct hyperx *h)
{
	const struct cr_fabric *f = h->f;
	uint32_t stamp = 0;

	memset(h->stamp, 0, (h->ns + 1) * sizeof(*h->stamp));
	for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_node[lid] == CR_NO_NODE)
			continue;
		stamp++;
		for (uint32_t s = 0; s < h->ns; s++) {
			uint32_t sw = f->switches[s];
			uint8_t v = h->r->sl[sw][lid];

			path_state(h, lid, s, stamp);
			if (h->r->lft[sw][lid] != CR_NO_PATH && v < 2 &&
			    !(h->ok[s] >> v & 1))
				return true;
		}
	}
	return false;
}

static int fall_back(const struct cr_fabric *f, const struct cr_options *o,
		     struct cr_routing *r, struct cr_byproducts *by,
		     const char *why)
{
	cr_warn("cr-hyperx: %s; routing the whole fabric with up*/down* on "
		"one VL instead",
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

static int hx_alloc(struct hyperx *h)
{
	const struct cr_fabric *f = h->f;
	uint32_t ns = h->ns;

	if (cr_switch_adjacency(f, &h->adj_start, &h->adj, &h->adj_port))
		return -1;
	h->uf = calloc(h->adj_start[ns] + 1, sizeof(*h->uf));
	h->esrc = calloc(h->adj_start[ns] + 1, sizeof(*h->esrc));
	h->ord = calloc(ns + 1, sizeof(*h->ord));
	h->edim = calloc(h->adj_start[ns] + 1, 1);
	h->cand = malloc(h->adj_start[ns] + 1);
	h->dist = calloc(ns + 1, sizeof(*h->dist));
	h->ok = calloc(ns + 1, 1);
	h->pref1 = calloc(ns + 1, 1);
	h->need = calloc(ns + 1, 1);
	h->mask = 3;
	h->first[0] = calloc(ns + 1, sizeof(int));
	h->first[1] = calloc(ns + 1, sizeof(int));
	h->stack = calloc(ns + 2, sizeof(*h->stack));
	h->stamp = calloc(ns + 1, sizeof(*h->stamp));
	h->cand_start = calloc(ns + 1, sizeof(*h->cand_start));
	h->cas = calloc(ns + 1, sizeof(*h->cas));
	h->flow = calloc(ns + 1, sizeof(*h->flow));
	h->order = calloc(ns + 1, sizeof(*h->order));
	if (!h->uf || !h->esrc || !h->ord || !h->edim || !h->pref1 ||
	    !h->need || !h->cand || !h->dist || !h->ok || !h->first[0] ||
	    !h->first[1] || !h->stack || !h->stamp || !h->cand_start ||
	    !h->cas || !h->flow || !h->order)
		return -1;
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m != CR_NO_NODE && !cr_is_switch(f, m))
				h->cas[s]++;
		}
		for (uint32_t i = h->adj_start[s]; i < h->adj_start[s + 1]; i++)
			h->esrc[i] = s;
	}
	bfs_order(h);
	return 0;
}

static void hx_free(struct hyperx *h)
{
	free(h->uf);
	free(h->edim);
	free(h->esrc);
	free(h->ord);
	free(h->coord);
	free(h->perm);
	free(h->dist);
	free(h->ok);
	free(h->pref1);
	free(h->need);
	free(h->first[0]);
	free(h->first[1]);
	free(h->stack);
	free(h->stamp);
	free(h->cand_start);
	free(h->cand);
	free(h->cas);
	free(h->flow);
	free(h->order);
	cr_portsel_free(h->ps);
	free(h->adj_start);
	free(h->adj);
	free(h->adj_port);
}

int cr_hyperx_route(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by)
{
	struct hyperx h = {.f = f, .o = o, .r = r, .ns = f->num_switches};
	unsigned max_vls = o->max_vls ? o->max_vls : 8;
	uint8_t *dist = cr_switch_distances(f);
	char why[256] = "";
	bool second = false;
	int ret = -1;

	if (!dist || hx_alloc(&h))
		goto oom;
	if (hx_structure(&h, dist, why, sizeof(why))) {
		ret = fall_back(f, o, r, by, why);
		goto out;
	}
	ret = hx_route_tries(&h, dist, &second, why, sizeof(why));
	if (ret == -2)
		goto oom;
	if (ret) {
		ret = fall_back(f, o, r, by, why);
		goto out;
	}
	if (second && max_vls < 2) {
		snprintf(why, sizeof(why),
			 "paths around missing cables need a "
			 "second VL; max_vls is %u",
			 max_vls);
		ret = fall_back(f, o, r, by, why);
		goto out;
	}
	r->num_layers = second ? 2 : 1;
	for (unsigned sl = 0; sl < 16; sl++)
		r->sl2vl[sl] = sl < 2 ? (uint8_t)sl : 0;
	/* Guaranteed by the rankings; checked so that a flaw cannot ship. */
	if (vl_loops(&h)) {
		ret = fall_back(f, o, r, by, "a VL would have a credit loop");
		goto out;
	}
	cr_info("cr-hyperx: %u switches in %u dimension(s) routed on %u VL(s)",
		h.ns, h.dims, r->num_layers);
	if (h.switch_pairs_left)
		cr_info("cr-hyperx: %llu LIDs of switches without CAs left "
			"unrouted on switches without CAs (CA traffic is not "
			"concerned)",
			(unsigned long long)h.switch_pairs_left);
	ret = 0;
	goto out;
oom:
	cr_err("cr-hyperx: out of memory");
out:
	free(dist);
	hx_free(&h);
	return ret;
}
