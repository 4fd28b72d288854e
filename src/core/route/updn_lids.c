// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-updn's entries: every switch forwards each LID to one of its legal
 * candidates toward the LID's switch (updn_candidates()), chosen for
 * balance, in segments over threads (updn_route_lids()), by flows on
 * tree-like fabrics (updn_route_flows()) or one LID at a time with global
 * balance (updn_route_global()).
 *
 * The port-selection module chooses among those ports (switch LIDs are
 * not counted in its balance), LIDs taken in cr_lid_order(): CA LIDs leaf
 * by leaf in port order, so one leaf's hosts spread over its uplinks,
 * then the switch LIDs. With port_shifting the choice is croute's
 * destination-based D-mod-k spreading (CR_PS_SPREAD, see portsel.c).
 *
 * Flow balance, on tree-like fabrics (cr_roles_tree_like()) unless
 * port_shifting, scatter_ports or global balance is asked for
 * (updn_route_flows()). Counting routes per port, every level of a fat tree
 * picks by the same residue of the destination's place in the order: a leaf
 * sends destination i up its port i mod k, and the middle switch behind that
 * port sends it on up its own port i mod k again, so only k of the k^2 top
 * switches of a 3-level tree carry traffic, as with OpenSM's updn and minhop
 * (bench/updn/run.sh ktree 8 3 gives the shift bandwidth of OpenSM's updn
 * and of cr-updn). So each LID is routed from the farthest switches inward,
 * each switch passing on the number of CA sources whose route crosses it, and a
 * switch balances those flows over its ports (portsel's flow ledger), not its
 * entries: a middle switch then sees only the destinations its leaves send it
 * and spreads them over all its uplinks, which gives D-mod-k on full trees
 * and still balances irregular ones. Equal candidates are taken in the order
 * of the neighbours' keys, not of port numbers, so that every leaf lists the
 * spines alike however they are cabled. Off tree-like fabrics (tori, random
 * graphs) the per-port count stays: there the flows of one root's tree
 * concentrate and the shift pattern loses bandwidth.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/route/flowbal.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include <croute/route/portsel.h>

#include "updn_int.h"

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
		updn_label_into(x->u, x->dests[i], x->dist + i * ns,
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
			if (dist[w] == CR_UPDN_NO_LABEL) {
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
				c->nc = (uint8_t)updn_candidates(u, dist, mode,
								 w, c->cands);
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

int updn_route_lids(struct updn *u, struct cr_routing *r, struct cr_portsel *ps,
		    const uint16_t *lids, int nlids, uint64_t totals[3])
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
 * Flow balance (cr_portsel_use_flows(), include/croute/route/flowbal.h): one
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

	updn_label_into(u, d, lev, x->mode + (size_t)slot * u->ns,
			x->queue[worker]);
	memset(missing, 0, sizeof(x->missing[slot]));
	for (uint32_t w = 0; w < u->ns; w++) {
		if (w == d || lev[w] != CR_UPDN_NO_LABEL)
			continue;
		missing[u->comp[w] != u->comp[d] ? 2 : u->has_ca[w] ? 1 : 0]++;
	}
	return 0;
}

/* updn_candidates() over the sorted links. */
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
		if (mode[w] == CR_UPDN_DOWN
			    ? u->ord[y] > u->ord[w] && mode[y] == CR_UPDN_DOWN
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

int updn_route_flows(struct updn *u, struct cr_routing *r,
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
 * Global balance (cr_portsel_global()): one LID at a time, each switch's
 * pick counted against the paths routed already. Counts the (switch, LID)
 * pairs without a legal path in totals, as updn_route_lids().
 */
void updn_route_global(struct updn *u, struct cr_routing *r,
		       struct cr_portsel *ps, const uint16_t *lids, int nlids,
		       uint64_t totals[3])
{
	const struct cr_fabric *f = u->f;

	for (int i = 0; i < nlids; i++) {
		uint16_t lid = lids[i];
		uint8_t dport, cands[CR_MAX_PORTS];
		uint32_t dn = cr_lid_switch(f, lid, &dport), d;
		unsigned flags = (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD;

		if (dn == CR_NO_NODE)
			continue;
		d = f->nodes[dn].sw_index;
		updn_label(u, d);
		r->lft[dn][lid] = dport;
		for (uint32_t w = 0; w < u->ns; w++) {
			if (w == d || u->dist[w] != CR_UPDN_NO_LABEL)
				continue;
			if (u->comp[w] != u->comp[d])
				totals[2]++;
			else if (u->has_ca[w])
				totals[1]++;
			else
				totals[0]++;
		}
		/*
		 * Global balance: the labelling BFS's queue holds the labelled
		 * switches nearest first, so each candidate's remaining path
		 * is routed already.
		 */
		for (uint32_t k = 1; k < u->labelled; k++) {
			uint32_t w = u->queue[k];
			unsigned nc =
				updn_candidates(u, u->dist, u->mode, w, cands);

			r->lft[f->switches[w]][lid] = cr_portsel_pick(
				ps, f->switches[w], cands, nc, lid, flags);
		}
		cr_portsel_commit(ps, lid);
	}
}
