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
 * A fabric the dimensions do not fit (hx_check_shape) is refused with an
 * error (CR_ROUTE_NOT_ITS_FABRIC): OpenSM tries its next engine.
 * Before the tables are returned, every switch's path to every LID, as
 * written, is checked to rise on its SL's VL.
 *
 * The waves, the port choice and the final check are shared with cr-dfp
 * (ranked_paths.c); this file finds the dimensions, ranks the channels
 * and says which switches prefer VL 1.
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

#include <croute/route/engine.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/route/portsel.h>

#include "ranked_paths.h"

#define HX_MAX_DIMS 64
#define HX_TRIES 8

struct hyperx {
	struct cr_ranked rp; /* first: the ranking callbacks get it */
	uint32_t dims;
	uint32_t *uf; /* per adjacency entry: union-find of dimensions */
	uint8_t *edim; /* per adjacency entry: its cable's dimension */
	uint32_t *ord; /* per switch index: its place in a BFS from the first */
	uint32_t *coord; /* per switch index and dimension */
	uint32_t *perm; /* per dimension and coordinate: its place, try k */
	uint32_t dperm[HX_MAX_DIMS]; /* per dimension: its place, try k */
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
	for (uint32_t i = h->rp.adj_start[s]; i < h->rp.adj_start[s + 1]; i++)
		if (h->rp.adj[i] == t)
			return i;
	return UINT32_MAX;
}

/*
 * Cables of one triangle share a dimension; so do the opposite sides of
 * a square s-a-c-b whose corners a, b (and s, c) are not cabled.
 */
static void join_dimensions(struct hyperx *h, const uint8_t *dist)
{
	size_t ns = h->rp.ns;

	for (uint32_t s = 0; s < h->rp.ns; s++) {
		uint32_t lo = h->rp.adj_start[s], hi = h->rp.adj_start[s + 1];

		for (uint32_t i = lo; i < hi; i++) {
			uint32_t a = h->rp.adj[i], ba = entry(h, a, s);

			join(h->uf, i, ba);
			for (uint32_t j = i + 1; j < hi; j++) {
				uint32_t b = h->rp.adj[j];

				if (a == b || dist[a * ns + b] == 1) {
					join(h->uf, i, j);
					continue;
				}
				for (uint32_t k = h->rp.adj_start[a];
				     k < h->rp.adj_start[a + 1]; k++) {
					uint32_t c = h->rp.adj[k];
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
 * cables. -1 out of memory, -2 no HyperX, the reason in why.
 */
static int hx_structure(struct hyperx *h, const uint8_t *dist, char *why,
			size_t len)
{
	uint32_t ns = h->rp.ns, ne = h->rp.adj_start[ns], root[HX_MAX_DIMS];
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
					 "its cables make more than %d"
					 " dimensions",
					 HX_MAX_DIMS);
				ret = -2;
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
			for (uint32_t i = h->rp.adj_start[s];
			     i < h->rp.adj_start[s + 1]; i++)
				if (h->edim[i] != d)
					join(up, s, h->rp.adj[i]);
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

static const char *sw_name(const struct hyperx *h, uint32_t s)
{
	return h->rp.f->nodes[h->rp.f->switches[s]].desc;
}

static unsigned long long sw_guid(const struct hyperx *h, uint32_t s)
{
	return (unsigned long long)h->rp.f->nodes[h->rp.f->switches[s]].guid;
}

/*
 * A line of a HyperX is a complete graph: of the pairs of switches that
 * differ in one coordinate, most are cabled (each cable joins such a
 * pair, hx_check_shape). A two-level tree can fit the coordinates (as
 * one line), never the cliques: a bipartite graph has at most 3 in 5 of
 * a complete graph's pairs (K3,3), so more than 2 in 3 must be cabled.
 * 0, or -1 with why.
 */
static int cabled_lines(const struct hyperx *h, const uint32_t *size, char *why,
			size_t len)
{
	uint64_t pairs = 0, cabled = 0;

	for (uint32_t d = 0; d < h->dims; d++)
		pairs += (uint64_t)h->rp.ns * (size[d] - 1) / 2;
	for (uint32_t s = 0; s < h->rp.ns; s++)
		for (uint32_t i = h->rp.adj_start[s];
		     i < h->rp.adj_start[s + 1]; i++)
			cabled += h->rp.adj[i] > s &&
				  entry(h, s, h->rp.adj[i]) == i;
	if (3 * cabled > 2 * pairs)
		return 0;
	snprintf(why, len,
		 "of the %llu pairs of switches in a line of its %u"
		 " dimensions, only %llu are cabled",
		 (unsigned long long)pairs, h->dims,
		 (unsigned long long)cabled);
	return -1;
}

/*
 * A HyperX, less any cables: every cable joins two switches that differ
 * in its dimension's coordinate only, and the switches fill the product
 * of the dimensions' coordinate ranges, one at each point. A cut cable
 * leaves both true, as long as its dimension is still found; a fat tree
 * or a torus of rings longer than 3 breaks them. 0, else -1 with why.
 */
static int hx_check_shape(const struct hyperx *h, char *why, size_t len)
{
	uint32_t ns = h->rp.ns, dims = h->dims, size[HX_MAX_DIMS];
	uint64_t points = 1;
	uint32_t *at;
	int ret = -2;

	for (uint32_t d = 0; d < dims; d++) {
		size[d] = 0;
		for (uint32_t s = 0; s < ns; s++)
			if (h->coord[(size_t)s * dims + d] >= size[d])
				size[d] = h->coord[(size_t)s * dims + d] + 1;
		points = points * size[d] > ns ? (uint64_t)ns + 1
					       : points * size[d];
	}
	if (points != ns) {
		snprintf(why, len,
			 "its cables make %u dimensions, whose coordinates"
			 " give %s%llu place%s for its %u switches",
			 dims, points > ns ? "more than " : "",
			 (unsigned long long)(points > ns ? ns : points),
			 points == 1 ? "" : "s", ns);
		return -2;
	}
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t i = h->rp.adj_start[s];
		     i < h->rp.adj_start[s + 1]; i++) {
			uint32_t t = h->rp.adj[i], diff = 0;
			bool own = false;

			for (uint32_t d = 0; d < dims; d++)
				if (h->coord[(size_t)s * dims + d] !=
				    h->coord[(size_t)t * dims + d]) {
					diff++;
					own |= d == h->edim[i];
				}
			if (diff == 1 && own)
				continue;
			snprintf(why, len,
				 "switches '%s' (0x%016llx) and '%s'"
				 " (0x%016llx) are cabled but differ in %u of"
				 " %u dimensions",
				 sw_name(h, s), sw_guid(h, s), sw_name(h, t),
				 sw_guid(h, t), own ? diff : diff + 1, dims);
			return -2;
		}
	if (cabled_lines(h, size, why, len))
		return -2;
	at = malloc((ns + 1) * sizeof(*at));
	if (!at) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (uint32_t s = 0; s < ns; s++)
		at[s] = UINT32_MAX;
	for (uint32_t s = 0; s < ns; s++) {
		uint64_t p = 0;

		for (uint32_t d = dims; d-- > 0;)
			p = p * size[d] + h->coord[(size_t)s * dims + d];
		if (at[p] != UINT32_MAX) {
			snprintf(why, len,
				 "switches '%s' (0x%016llx) and '%s'"
				 " (0x%016llx) take the same place in its %u"
				 " dimensions",
				 sw_name(h, at[p]), sw_guid(h, at[p]),
				 sw_name(h, s), sw_guid(h, s), dims);
			goto out;
		}
		at[p] = s;
	}
	ret = 0;
out:
	free(at);
	return ret;
}

/*
 * A fabric whose dimensions do not fit a HyperX (why): cut cables can
 * hide a small HyperX's shape (a 2 x 2 x 2 less three cables), so a
 * direct network, a switch with CAs everywhere, is still taken (the
 * ranks stay sound); a fabric with switches without CAs (the spines of a
 * tree or a dragonfly+) is refused. 0, or CR_ROUTE_NOT_ITS_FABRIC.
 */
static int hx_without_shape(const struct hyperx *h, const char *why)
{
	for (uint32_t s = 0; s < h->rp.ns; s++) {
		if (h->rp.cas[s])
			continue;
		cr_err("cr-hyperx: not a HyperX: %s, and switch '%s'"
		       " (0x%016llx) has no CAs (a HyperX's switches are"
		       " cabled to all others of their line in each dimension,"
		       " and each has CAs); use another engine",
		       why, sw_name(h, s), sw_guid(h, s));
		return CR_ROUTE_NOT_ITS_FABRIC;
	}
	cr_info("cr-hyperx: %s, but every switch has CAs: routed as a HyperX"
		" with cables missing",
		why);
	return 0;
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
static int set_perm(struct cr_ranked *rp, unsigned k)
{
	struct hyperx *h = (struct hyperx *)rp;
	uint64_t x = 0x9e3779b97f4a7c15ull * (k + 1);

	for (uint32_t d = 0; d < h->dims; d++) {
		uint32_t *p = &h->perm[(size_t)d * h->rp.ns];

		h->dperm[d] = d;
		for (uint32_t c = 0; c < h->rp.ns; c++)
			p[c] = c;
	}
	if (k)
		shuffle(h->dperm, h->dims, &x);
	for (uint32_t d = 0; k >= HX_TRIES / 2 && d < h->dims; d++)
		shuffle(&h->perm[(size_t)d * h->rp.ns], h->rp.ns, &x);
	return 0;
}

/*
 * The rank of the channel of adjacency entry i (into switch t) in VL v's
 * ranking: VL 0 by dimension, then entered coordinate; VL 1 up*-down*
 * from the first switch (up, toward an earlier place in the search,
 * below down, each rising as it goes).
 */
static int rank_of(const struct cr_ranked *rp, unsigned v, uint32_t i,
		   uint32_t s, uint32_t t)
{
	const struct hyperx *h = (const struct hyperx *)rp;
	uint32_t d = h->edim[i], w = rp->ns, o = h->dperm[d];
	uint32_t c = h->perm[(size_t)d * w + h->coord[(size_t)t * h->dims + d]];

	if (!v)
		return (int)(o * w + c);
	if (h->ord[t] < h->ord[s])
		return -(int)h->ord[t];
	return (int)(w + h->ord[t]);
}

/* Places in a breadth-first search from the first switch. */
static void bfs_order(struct hyperx *h)
{
	uint32_t n = 0, *q = h->rp.order;

	for (uint32_t s = 0; s < h->rp.ns; s++)
		h->ord[s] = UINT32_MAX;
	for (uint32_t r = 0; r < h->rp.ns; r++) {
		if (h->ord[r] != UINT32_MAX)
			continue;
		h->ord[r] = n;
		q[n++] = r;
		for (uint32_t k = h->ord[r]; k < n; k++)
			for (uint32_t i = h->rp.adj_start[q[k]];
			     i < h->rp.adj_start[q[k] + 1]; i++)
				if (h->ord[h->rp.adj[i]] == UINT32_MAX) {
					h->ord[h->rp.adj[i]] = n;
					q[n++] = h->rp.adj[i];
				}
	}
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
	struct cr_ranked *rp = &h->rp;
	uint32_t marked = 0;

	for (uint32_t s = 0; s < rp->ns; s++)
		need[s] = cr_ranked_lacks(rp, s, t, hop);
	rp->mask = 2;
	cr_ranked_label_waves(rp, t);
	for (uint32_t s = 0; s < rp->ns; s++) {
		uint32_t x = s;

		while (need[s] && rp->dist[x] > 0) {
			uint32_t i = rp->adj_start[x];
			int r0, r1;

			marked += !rp->pref1[x];
			rp->pref1[x] = 1;
			for (; i < rp->adj_start[x + 1]; i++)
				if (rp->dist[rp->adj[i]] == rp->dist[x] - 1 &&
				    cr_ranked_state_via(rp, i, x, rp->adj[i],
							&r0, &r1))
					break;
			x = rp->adj[i];
		}
	}
	rp->mask = 3;
	return marked;
}

/*
 * Labels every switch toward destination switch index t, VL 0 preferred,
 * then VL 1 along the paths of the switches left without one, until
 * every switch CA traffic needs has a path or nothing changes. Returns
 * how many such switches are left without one.
 */
static uint32_t label_toward(struct cr_ranked *rp, uint32_t t,
			     const uint8_t *hop, uint32_t *one)
{
	struct hyperx *h = (struct hyperx *)rp;
	uint32_t left;

	memset(rp->pref1, 0, rp->ns);
	while ((left = cr_ranked_label(rp, t, hop, one)) &&
	       prefer_vl1_for(h, t, hop, h->need))
		;
	return left;
}

static int hx_alloc(struct hyperx *h)
{
	struct cr_ranked *rp = &h->rp;
	uint32_t ns = rp->ns;

	if (cr_ranked_alloc(rp))
		return -1;
	h->uf = calloc(rp->adj_start[ns] + 1, sizeof(*h->uf));
	h->ord = calloc(ns + 1, sizeof(*h->ord));
	h->edim = calloc(rp->adj_start[ns] + 1, 1);
	h->need = calloc(ns + 1, 1);
	if (!h->uf || !h->ord || !h->edim || !h->need)
		return -1;
	bfs_order(h);
	return 0;
}

static void hx_free(struct hyperx *h)
{
	free(h->uf);
	free(h->edim);
	free(h->ord);
	free(h->coord);
	free(h->perm);
	free(h->need);
	cr_ranked_free(&h->rp);
}

/*
 * The ranking fixes one path from each switch toward a destination
 * switch, the same for every LID of a port: with LMC > 0 the extra LIDs
 * would take the base LID's path, and a stack striping over them gain
 * nothing while believing otherwise. Refused, so OpenSM (or cr-auto)
 * takes an engine that spreads them.
 */
static int hx_lmc(const struct cr_fabric *f)
{
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *x = &f->nodes[n];

		if (cr_is_switch(f, n))
			continue;
		for (unsigned p = 1; p <= x->num_ports; p++)
			if (x->ports[p].lid && x->ports[p].lmc) {
				cr_err("cr-hyperx: LMC %u asks for %u paths to"
				       " each port, and cr-hyperx routes all"
				       " the LIDs of a port on one; use LMC 0"
				       " or another engine",
				       x->ports[p].lmc, 1u << x->ports[p].lmc);
				return -1;
			}
	}
	return 0;
}

int cr_hyperx_route(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by)
{
	struct hyperx h = {.rp = {.f = f,
				  .o = o,
				  .r = r,
				  .ns = f->num_switches,
				  .name = "cr-hyperx",
				  .try_what = "coordinate order",
				  .rank = rank_of,
				  .label = label_toward,
				  .set_try = set_perm}};
	uint8_t *dist = cr_switch_distances(f);
	char why[256] = "";
	int ret = -1;

	if (!dist || hx_alloc(&h))
		goto oom;
	ret = hx_structure(&h, dist, why, sizeof(why));
	if (ret == -2) {
		cr_err("cr-hyperx: not a HyperX: %s; use another engine", why);
		ret = CR_ROUTE_NOT_ITS_FABRIC;
		goto out;
	}
	if (!ret)
		ret = hx_check_shape(&h, why, sizeof(why));
	if (ret == -1)
		goto oom;
	if (ret) {
		ret = hx_without_shape(&h, why);
		if (ret)
			goto out;
	}
	/* its kind of fabric, but not for this LMC: said after what it is not */
	if (hx_lmc(f)) {
		ret = -1;
		goto out;
	}
	ret = cr_ranked_route_tries(&h.rp, dist, HX_TRIES, why, sizeof(why));
	if (ret == -2)
		goto oom;
	if (ret) {
		ret = cr_ranked_fall_back(&h.rp, by, why);
		goto out;
	}
	ret = cr_ranked_finish(&h.rp, by, "paths around missing cables");
	if (ret)
		goto out;
	cr_info("cr-hyperx: %u switches in %u dimension(s) routed on %u VL(s)",
		h.rp.ns, h.dims, r->num_layers);
	if (h.rp.pairs_left)
		cr_info("cr-hyperx: %llu LIDs of switches without CAs left "
			"unrouted on switches without CAs (CA traffic is not "
			"concerned)",
			(unsigned long long)h.rp.pairs_left);
	goto out;
oom:
	cr_err("cr-hyperx: out of memory");
out:
	free(dist);
	hx_free(&h);
	return ret == CR_ROUTE_NOT_ITS_FABRIC ? ret : ret < 0 ? -1 : 0;
}
