// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-lash: layered shortest-path routing (LASH) on any topology.
 *
 * Every switch forwards each LID over a shortest path, and every path from
 * a source switch to a destination LID is given a layer (an SL, mapped 1:1
 * onto a VL) so that, within each layer, the channel dependency graph of
 * the switch-to-switch links is acyclic: no credit loop is possible.
 *
 * LFT entries are per (switch, LID), so the paths toward one LID form a
 * tree, built outward from the LID's switch in order of distance. When a
 * switch v joins the tree through neighbour w, its path is the link v -> w
 * followed by w's path; the layer is per (v, LID) and may differ from w's.
 * Among the equally short choices of w, the engine first looks for those
 * whose own layer can take v's path too: that adds one dependency at most
 * (the turn at w), so each layer holds few dependencies per tree and stays
 * sparse. Otherwise it takes the lowest layer any choice fits in, the
 * whole path's dependencies then joining that layer. Among the choices
 * that reach the chosen layer, the port-selection module balances the
 * load. Acyclicity is maintained incrementally (lash_cdg.c). A switch's
 * own LID reuses the tree and layers of a CA LID on that switch, adding no
 * dependency at all.
 *
 * If that needs more layers than the VLs allow, two more passes are tried:
 * plain first fit (lowest layer first), then the port-order preference of
 * OpenSM's dor engine (the first shortest port in the selector's order,
 * balancing only over parallel links), which gives dimension-ordered paths
 * on meshes and tori cabled in dimension order. The first that fits wins.
 * On a 6x6x6 torus the first pass needs 3 layers where OpenSM's lash needs
 * 9 (bench/lash/run.sh torus 6 6 6 --hosts 1); random graphs need more
 * layers the sparser and larger they are.
 *
 * Fewest layers cost some balance: on that torus with 2 hosts a switch,
 * 9% of the shift bandwidth min-hop gets (`croute estimate --pattern
 * shift` with -e lash and -e minhop on `croute gen torus 6 6 6 --hosts
 * 2`). With lash_balance, a "balanced" pass comes first: every candidate
 * that fits a layer in use (its neighbour's, or the lowest the whole path
 * fits in) competes in the port selection, and a new layer opens only
 * when none fits. It matches min-hop's bandwidth but spends more VLs;
 * when it needs more than there are, the passes above follow.
 *
 * Guarantees: every switch-reachable LID is routed from every switch over
 * a minimal path; every layer's dependency graph is acyclic; CA-to-CA
 * traffic through a single switch, and one-switch-hop paths, create no
 * dependency and get the first layer (lash_start_vl). Failure (more layers
 * needed than max_vls - lash_start_vl) is reported with the numbers; the
 * caller (cr_route) clears r.
 *
 * Cost: per LID, one pass over the switches with a few layer trials each;
 * most trials are settled by bit tests.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/route/portsel.h>

#include "lash_cdg.h"

#define LASH_NO_LAYER 0xff

enum lash_mode {
	LASH_BALANCED, /* any port that fits a layer in use */
	LASH_OWN_FIRST, /* a neighbour's own layer, else the lowest */
	LASH_LOWEST, /* the lowest layer any choice fits in */
	LASH_ORDERED, /* the first port in order, lowest layer for it */
	LASH_MODES,
};

static const char *const mode_names[LASH_MODES] = {
	"balanced",
	"own-layer-first",
	"first-fit",
	"port-ordered",
};

struct lash {
	const struct cr_fabric *f;
	const struct cr_options *o;
	struct cr_routing *r;
	struct cr_lash_graph g;
	struct cr_cdg *cdg;
	struct cr_portsel *ps;
	uint8_t *dist;
	uint32_t ns;
	enum lash_mode mode;
	unsigned limit; /* layers allowed */
	unsigned used; /* layers used so far */

	/* The tree of the LID being routed. */
	uint32_t dsw; /* destination switch index */
	uint32_t *order; /* switch indices by distance to dsw */
	uint32_t norder;
	uint32_t *next; /* switch index -> channel taken */
	uint8_t *lay; /* switch index -> layer of its path */
	uint16_t *ref_lid; /* switch index -> a CA LID routed to it */
	uint32_t chain[CR_HOPS_INF + 1]; /* channels of a path on trial */
};

/* Switch indices reachable from dsw, in BFS order (by distance). */
static void order_by_distance(struct lash *l, uint32_t dsw)
{
	uint32_t ns = l->ns, n = 0;
	uint8_t maxd = 0;

	l->dsw = dsw;
	for (uint32_t s = 0; s < ns; s++) {
		uint8_t d = l->dist[(size_t)s * ns + dsw];

		if (d != CR_HOPS_INF && d > maxd)
			maxd = d;
	}
	/* Counting sort: distances are small. */
	for (unsigned d = 0; d <= maxd; d++)
		for (uint32_t s = 0; s < ns; s++)
			if (l->dist[(size_t)s * ns + dsw] == d)
				l->order[n++] = s;
	l->norder = n;
}

/*
 * The channels of the path that starts with channel c0 and then follows
 * the tree, up to the first switch whose own path is in layer y (the rest
 * of the path is in y already). Returns their count.
 */
static unsigned path_chain(struct lash *l, unsigned y, uint32_t c0)
{
	uint32_t c = c0, w = l->g.dst[c0];
	unsigned n = 0;

	l->chain[n++] = c;
	while (w != l->dsw) {
		c = l->next[w];
		l->chain[n++] = c;
		if (l->lay[w] == y)
			break;
		w = l->g.dst[c];
	}
	return n;
}

/*
 * Whether a path over channels ch[0..n-1] fits in layer y; with keep, its
 * dependencies are added to y when it does. Most trials are settled by
 * bit tests; a trial that must search keeps the renumbering it caused (it
 * stays valid), which makes the next look at the same spot cheap.
 */
static bool chain_fits(struct cr_cdg *cdg, unsigned y, const uint32_t *ch,
		       unsigned n, bool keep)
{
	bool all_there = true;

	for (unsigned i = 1; i < n; i++) {
		int known = cr_cdg_lookup(cdg, y, ch[i - 1], ch[i]);

		if (known < 0)
			return false;
		all_there &= known > 0;
	}
	if (all_there)
		return true;
	for (unsigned i = 1; i < n; i++)
		if (cr_cdg_add(cdg, y, ch[i - 1], ch[i]) < 0) {
			cr_cdg_rollback(cdg, 0);
			return false;
		}
	if (keep)
		cr_cdg_commit(cdg);
	else
		cr_cdg_rollback(cdg, 0);
	return true;
}

/* chain_fits() for the path that starts with channel c0 (path_chain). */
static bool path_fits(struct lash *l, unsigned y, uint32_t c0, bool keep)
{
	return chain_fits(l->cdg, y, l->chain, path_chain(l, y, c0), keep);
}

/* The lowest layer the path via channel c0 fits in, or LASH_NO_LAYER. */
static unsigned lowest_layer(struct lash *l, uint32_t c0)
{
	if (l->g.dst[c0] == l->dsw)
		return 0; /* one hop: no dependency */
	for (unsigned y = 0; y < l->used; y++)
		if (path_fits(l, y, c0, false))
			return y;
	/* A shortest path alone never has a cycle: a new layer takes it. */
	return l->used < l->limit ? l->used : LASH_NO_LAYER;
}

/* The layer of the path via c0 if it is its next switch's, or none. */
static unsigned own_layer(struct lash *l, uint32_t c0)
{
	uint32_t t = l->g.dst[c0];

	if (t == l->dsw)
		return 0;
	return path_fits(l, l->lay[t], c0, false) ? l->lay[t] : LASH_NO_LAYER;
}

/* Switch index of the far end of port p of switch node n. */
static uint32_t far_switch(const struct lash *l, uint32_t n, unsigned p)
{
	return l->f->nodes[l->f->nodes[n].ports[p].remote].sw_index;
}

/*
 * Routes lid from switch index v: picks the output port and the layer.
 * Returns -1 when no layer is left.
 */
static int route_switch(struct lash *l, uint32_t v, uint16_t lid,
			unsigned flags)
{
	const struct cr_fabric *f = l->f;
	uint32_t node = f->switches[v];
	const struct cr_node *sw = &f->nodes[node];
	uint8_t h = l->dist[(size_t)v * l->ns + l->dsw];
	uint8_t cands[CR_MAX_PORTS];
	uint8_t layer[CR_MAX_PORTS];
	unsigned nc = 0, n = 0, best = LASH_NO_LAYER;
	bool all;
	int first;
	uint8_t port;
	uint32_t c;

	for (unsigned p = 1; p <= sw->num_ports; p++) {
		uint32_t m = sw->ports[p].remote;

		if (m != CR_NO_NODE && cr_is_switch(f, m) &&
		    l->dist[(size_t)f->nodes[m].sw_index * l->ns + l->dsw] ==
			    h - 1)
			cands[nc++] = p;
	}
	if (!nc)
		return 0; /* cannot happen on a finalized fabric */
	if (l->mode == LASH_ORDERED) {
		/* Keep the first port's neighbour: balance parallel links. */
		uint32_t t;

		cr_portsel_order(l->ps, node, cands, nc);
		t = far_switch(l, node, cands[0]);
		for (unsigned i = 0; i < nc; i++)
			if (far_switch(l, node, cands[i]) == t)
				cands[n++] = cands[i];
		nc = n;
	}
	/*
	 * A layer per candidate port; ports to the same neighbour share the
	 * channel, hence the verdict. Pass 0 keeps to the layers in use (the
	 * neighbour's own, or for the balanced mode any); pass 1 takes the
	 * lowest layer, a new one if need be.
	 */
	first = l->mode == LASH_OWN_FIRST || l->mode == LASH_BALANCED ? 0 : 1;
	for (int pass = first; pass < 2 && best == LASH_NO_LAYER; pass++) {
		for (unsigned i = 0; i < nc; i++) {
			uint32_t t = far_switch(l, node, cands[i]);
			unsigned y = LASH_NO_LAYER;
			unsigned j;

			for (j = 0; j < i; j++)
				if (far_switch(l, node, cands[j]) == t)
					break;
			c = cr_lash_graph_chan(&l->g, v, t);
			if (j < i) {
				y = layer[j];
			} else if (pass == 1) {
				y = lowest_layer(l, c);
			} else {
				y = own_layer(l, c);
				if (y == LASH_NO_LAYER &&
				    l->mode == LASH_BALANCED) {
					y = lowest_layer(l, c);
					if (y >= l->used)
						y = LASH_NO_LAYER;
				}
			}
			layer[i] = y;
			if (y < best)
				best = y;
		}
	}
	if (best == LASH_NO_LAYER)
		return -1;
	/*
	 * The candidates of the lowest layer; in the balanced mode's pass 0,
	 * every candidate that fits a layer in use.
	 */
	all = l->mode == LASH_BALANCED && best < l->used;
	n = 0;
	for (unsigned i = 0; i < nc; i++)
		if (layer[i] == best || (all && layer[i] != LASH_NO_LAYER)) {
			layer[n] = layer[i];
			cands[n++] = cands[i];
		}
	port = cr_portsel_pick(l->ps, node, cands, n, lid, flags);
	for (unsigned i = 0; i < n; i++)
		if (cands[i] == port)
			best = layer[i];
	c = cr_lash_graph_chan(&l->g, v, far_switch(l, node, port));
	if (!path_fits(l, best, c, true))
		return -1; /* cannot happen: it fitted a moment ago */
	if (best == l->used)
		l->used++;
	l->r->lft[node][lid] = port;
	l->r->sl[node][lid] = l->o->lash_start_vl + best;
	l->next[v] = c;
	l->lay[v] = best;
	return 0;
}

static int route_lid(struct lash *l, uint16_t lid)
{
	const struct cr_fabric *f = l->f;
	uint8_t dport;
	uint32_t d = cr_lid_switch(f, lid, &dport);
	unsigned flags = (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD;
	uint32_t dsw;
	uint16_t ref;

	if (d == CR_NO_NODE)
		return 0;
	dsw = f->nodes[d].sw_index;
	ref = l->ref_lid[dsw];
	if (!dport && ref) {
		/*
		 * A switch's own LID takes the tree and layers of a CA LID
		 * on it: not one dependency more, and switch LIDs carry too
		 * little traffic to be worth a balance of their own.
		 */
		for (uint32_t s = 0; s < l->ns; s++) {
			uint32_t n = f->switches[s];

			l->r->lft[n][lid] = s == dsw ? 0 : l->r->lft[n][ref];
			l->r->sl[n][lid] = l->r->sl[n][ref];
		}
		return 0;
	}
	if (dport && !ref)
		l->ref_lid[dsw] = lid;
	if (dsw != l->dsw)
		order_by_distance(l, dsw);
	l->r->lft[d][lid] = dport;
	l->r->sl[d][lid] = l->o->lash_start_vl;
	l->next[dsw] = CR_LASH_NO_CHAN;
	l->lay[dsw] = 0;
	for (uint32_t i = 1; i < l->norder; i++)
		if (route_switch(l, l->order[i], lid, flags) < 0)
			return -1;
	/* Global balance: the switches went nearest first. */
	cr_portsel_commit(l->ps, lid);
	return 0;
}

/* One pass in one mode; -1 when it runs out of layers. */
static int lash_base(struct lash *l, const uint16_t *lids, int nlids)
{
	cr_routing_clear(l->r);
	cr_portsel_free(l->ps);
	cr_cdg_free(l->cdg);
	l->ps = cr_portsel_new(l->f, l->o, l->r);
	l->cdg = cr_cdg_new(&l->g, l->limit);
	l->used = 0;
	l->dsw = UINT32_MAX;
	memset(l->ref_lid, 0, (l->ns + 1) * sizeof(*l->ref_lid));
	if (!l->ps || !l->cdg || cr_routing_alloc_sl(l->f, l->r) < 0)
		return -2;
	for (int i = 0; i < nlids; i++)
		if (route_lid(l, lids[i]) < 0)
			return -1;
	return 0;
}

/*
 * Rip-up and reroute (balance_rounds, with global balance): the layers
 * start afresh, but the link weights keep every LID's routes of the pass
 * before; each LID's old routes leave them just before it is routed
 * again, so it is balanced against all the others. A LID is committed
 * (and so taken out) unless it copies a CA LID's tree; ref_lid fills in
 * the same order in every pass, so the test is the same.
 */
static int lash_reroute(struct lash *l, const uint16_t *lids, int nlids)
{
	cr_cdg_free(l->cdg);
	l->cdg = cr_cdg_new(&l->g, l->limit);
	l->used = 0;
	l->dsw = UINT32_MAX;
	memset(l->ref_lid, 0, (l->ns + 1) * sizeof(*l->ref_lid));
	if (!l->cdg)
		return -2;
	for (int i = 0; i < nlids; i++) {
		uint8_t dport;
		uint32_t d = cr_lid_switch(l->f, lids[i], &dport);

		if (d != CR_NO_NODE &&
		    (dport || !l->ref_lid[l->f->nodes[d].sw_index]))
			cr_portsel_uncommit(l->ps, lids[i]);
		if (route_lid(l, lids[i]) < 0)
			return -1;
	}
	return 0;
}

/* The base pass, then its rounds of rip-up and reroute if they fit. */
static int lash_pass(struct lash *l, const uint16_t *lids, int nlids)
{
	int ret = lash_base(l, lids, nlids);

	for (unsigned k = 0; !ret && k < l->o->balance_rounds; k++) {
		ret = lash_reroute(l, lids, nlids);
		/* More layers than the base pass could use: keep that. */
		if (ret == -1)
			return lash_base(l, lids, nlids);
	}
	return ret;
}

int cr_lash_route(const struct cr_fabric *f, const struct cr_options *o,
		  struct cr_routing *r, struct cr_byproducts *by)
{
	struct lash l = {.f = f, .o = o, .r = r, .ns = f->num_switches};
	unsigned max_vls = o->max_vls ? o->max_vls : 8;
	uint16_t *lids = NULL;
	unsigned avail, needed = 0;
	int nlids, ret = -1;

	(void)by; /* none */
	/* VL15 is management: at most 15 data VLs. */
	if (max_vls > 15)
		max_vls = 15;
	if (o->lash_start_vl >= max_vls) {
		cr_err("cr-lash: lash_start_vl %u leaves no VL (%u operational "
		       "VLs)",
		       o->lash_start_vl, max_vls);
		return -1;
	}
	l.limit = max_vls - o->lash_start_vl;
	l.dist = cr_switch_distances(f);
	l.order = malloc((l.ns + 1) * sizeof(*l.order));
	l.next = malloc((l.ns + 1) * sizeof(*l.next));
	l.lay = malloc(l.ns + 1);
	l.ref_lid = malloc((l.ns + 1) * sizeof(*l.ref_lid));
	if (!l.dist || !l.order || !l.next || !l.lay || !l.ref_lid) {
		cr_err("cr-lash: out of memory");
		goto out;
	}
	if (cr_lash_graph_build(f, &l.g) < 0)
		goto out;
	nlids = cr_lid_order(f, o, &lids);
	if (nlids < 0)
		goto out;

	avail = l.limit;
	for (l.mode = 0; l.mode < LASH_MODES; l.mode++) {
		if (l.mode == LASH_BALANCED && !o->lash_balance)
			continue;
		/*
		 * The own-layer-first pass may go on up to 15 layers: with
		 * no more than avail it is what a pass capped at avail gives,
		 * and with more it tells how many the fabric would need.
		 */
		l.limit = l.mode == LASH_OWN_FIRST ? 15u - o->lash_start_vl
						   : avail;
		ret = lash_pass(&l, lids, nlids);
		if (ret == 0 && l.used <= avail)
			break;
		if (ret == 0) {
			needed = l.used;
			ret = -1;
		}
		if (ret != -1)
			break;
		cr_verbose("cr-lash: %s paths need more than %u layers",
			   mode_names[l.mode], avail);
	}
	if (ret == -1) {
		if (needed)
			cr_err("cr-lash: the fabric needs %u layers with "
			       "shortest paths; %u available (max_vls %u - "
			       "lash_start_vl %u)",
			       needed, avail, max_vls, o->lash_start_vl);
		else
			cr_err("cr-lash: the fabric needs more than %u layers "
			       "with shortest paths; %u available (max_vls %u "
			       "- lash_start_vl %u)",
			       15u - o->lash_start_vl, avail, max_vls,
			       o->lash_start_vl);
		goto out;
	}
	if (ret < 0)
		goto out;
	r->num_layers = l.used ? l.used : 1;
	/* Identity: layer k travels on VL lash_start_vl + k. */
	for (unsigned sl = 0; sl < 16; sl++)
		r->sl2vl[sl] = sl < max_vls ? sl : sl % max_vls;
	cr_info("cr-lash: %u switches, %d LIDs routed over %u layer(s), SL "
		"%u..%u (%s paths)",
		l.ns, nlids, r->num_layers, o->lash_start_vl,
		o->lash_start_vl + r->num_layers - 1, mode_names[l.mode]);
	ret = 0;
out:
	free(lids);
	free(l.dist);
	free(l.order);
	free(l.next);
	free(l.lay);
	free(l.ref_lid);
	cr_portsel_free(l.ps);
	cr_cdg_free(l.cdg);
	cr_lash_graph_release(&l.g);
	return ret < 0 ? -1 : 0;
}
