// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-minhop: every switch forwards each LID over a port on a shortest path
 * to it, chosen among the equal ones by the port-selection module.
 *
 * Guarantees: every LID reachable from a switch gets an entry on that
 * switch, every path is minimal in switch hops, and the result depends only
 * on the fabric and the options. Like OpenSM's min-hop it does not avoid
 * credit loops on fabrics with cycles (use cr-updn, cr-ftree or cr-lash).
 *
 * With global balance (croute_balance global, portsel.c) the switches are
 * routed nearest first, so that each candidate's remaining path is known,
 * and each LID's routes are committed to the path weights.
 *
 * Cost: one BFS per switch, then O(LIDs x switches) picks, each switch's
 * candidates found once per destination switch; global balance adds
 * O(LIDs x switches x hops). Without global balance or scatter_ports the
 * switches are split over croute_threads threads: each switch's choices
 * depend only on its own port loads, so the tables are the same for any
 * thread count.
 *
 * Flow balance, on tree-like fabrics (cr_roles_tree_like()) unless
 * port_shifting, scatter_ports or global balance is asked for: counting
 * routes per port, every level of a fat tree picks by the same residue of
 * the destination's place in the LID order, so only k of the k^2 top
 * switches of a 3-level tree carry CA traffic, as with OpenSM's minhop.
 * As cr-updn does (updn_lids.c), each LID is then routed
 * from the farthest switches inward, each passing on the CA sources whose
 * route crosses it, and a switch balances those flows over its ports
 * (portsel's flow ledger), equal candidates in the order of the far
 * switches' (height, GUID). Still only shortest paths. The picks of a
 * switch depend on the farther switches' picks for the same LID, so
 * each destination switch's LIDs go level by level, a level's switches
 * over croute_threads threads (include/croute/route/flowbal.h): the same
 * tables for any thread count.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/route/flowbal.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include <croute/route/portsel.h>
#include <croute/model/roles.h>

/*
 * The switches in the order to route them toward switch di: index order,
 * or with global balance by distance (stable), nearest first.
 */
static void order_switches(const uint8_t *dist, uint32_t ns, uint32_t di,
			   bool by_distance, uint32_t *order)
{
	uint32_t start[CR_HOPS_INF + 2] = {0};

	if (!by_distance) {
		for (uint32_t s = 0; s < ns; s++)
			order[s] = s;
		return;
	}
	/* Counting sort on the distance. */
	for (uint32_t s = 0; s < ns; s++)
		start[dist[(size_t)s * ns + di] + 1]++;
	for (unsigned h = 1; h <= CR_HOPS_INF + 1; h++)
		start[h] += start[h - 1];
	for (uint32_t s = 0; s < ns; s++)
		order[start[dist[(size_t)s * ns + di]]++] = s;
}

/* With global balance: LID by LID, the switches nearest first. */
static int minhop_global(const struct cr_fabric *f, struct cr_routing *r,
			 struct cr_portsel *ps, const uint8_t *dist,
			 const uint16_t *lids, int nlids)
{
	uint32_t ns = f->num_switches;
	uint32_t *order = malloc((ns + 1) * sizeof(*order));

	if (!order) {
		cr_err("cr-minhop: out of memory");
		return -1;
	}
	for (int i = 0; i < nlids; i++) {
		uint16_t lid = lids[i];
		uint8_t dport;
		uint32_t d = cr_lid_switch(f, lid, &dport);
		unsigned flags = (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD;
		uint32_t di;

		if (d == CR_NO_NODE)
			continue;
		di = f->nodes[d].sw_index;
		r->lft[d][lid] = dport;
		order_switches(dist, ns, di, cr_portsel_global(ps), order);
		for (uint32_t k = 0; k < ns; k++) {
			uint32_t s = order[k];
			const struct cr_node *sw = &f->nodes[f->switches[s]];
			uint8_t h = dist[(size_t)s * ns + di];
			uint8_t cands[CR_MAX_PORTS];
			unsigned nc = 0;

			if (s == di || h == CR_HOPS_INF)
				continue;
			for (unsigned p = 1; p <= sw->num_ports; p++) {
				uint32_t m = sw->ports[p].remote;

				if (m != CR_NO_NODE && cr_is_switch(f, m) &&
				    dist[(size_t)f->nodes[m].sw_index * ns +
					 di] == h - 1)
					cands[nc++] = p;
			}
			r->lft[f->switches[s]][lid] = cr_portsel_pick(
				ps, f->switches[s], cands, nc, lid, flags);
		}
		cr_portsel_commit(ps, lid);
	}
	free(order);
	return 0;
}

struct minhop_job {
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_portsel *ps;
	const uint8_t *dist;
	const uint16_t *lids;
	int nlids;
	const uint32_t *adj_start; /* switch-to-switch links, by switch */
	const uint32_t *adj_sw; /* the neighbour's switch index */
	const uint8_t *adj_port; /* the local port toward it */
};

/* Per switch: its candidates toward the destination switch last seen. */
struct minhop_cache {
	uint32_t di;
	uint8_t nc;
	uint8_t cands[CR_MAX_PORTS];
	uint32_t *plain; /* cr_portsel_plain_counts(), or NULL */
};

/*
 * Every LID, in order, on switches [begin, end): a switch's choices depend
 * only on its own port loads, so ranges of switches route independently
 * and the result is the same for any number of ranges. LIDs come grouped
 * by destination switch (cr_lid_order()), so each switch's candidates are
 * found, and sorted, once per group.
 */
static int minhop_range(void *arg, unsigned part, unsigned nparts,
			uint32_t begin, uint32_t end)
{
	const struct minhop_job *j = arg;
	const struct cr_fabric *f = j->f;
	uint32_t ns = f->num_switches;
	struct minhop_cache *cache = malloc((end - begin + 1) * sizeof(*cache));

	(void)part;
	(void)nparts;
	if (!cache) {
		cr_err("cr-minhop: out of memory");
		return -1;
	}
	for (uint32_t s = begin; s < end; s++)
		cache[s - begin].di = CR_NO_NODE;
	for (int i = 0; i < j->nlids; i++) {
		uint16_t lid = j->lids[i];
		uint8_t dport;
		uint32_t d = cr_lid_switch(f, lid, &dport);
		unsigned flags = (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD |
				 CR_PS_SORTED;
		const uint8_t *drow;
		uint32_t di;

		if (d == CR_NO_NODE)
			continue;
		if (cr_lid_is_base(f, lid))
			flags |= CR_PS_BASE;
		di = f->nodes[d].sw_index;
		/* Distances are symmetric: di's row is the column toward di. */
		drow = j->dist + (size_t)di * ns;
		if (di >= begin && di < end)
			j->r->lft[d][lid] = dport;
		for (uint32_t s = begin; s < end; s++) {
			struct minhop_cache *c = &cache[s - begin];
			uint8_t h = drow[s];

			if (s == di || h == CR_HOPS_INF)
				continue;
			if (c->di != di) {
				c->di = di;
				c->nc = 0;
				for (uint32_t k = j->adj_start[s];
				     k < j->adj_start[s + 1]; k++)
					if (drow[j->adj_sw[k]] == h - 1)
						c->cands[c->nc++] =
							j->adj_port[k];
				cr_portsel_order(j->ps, f->switches[s],
						 c->cands, c->nc);
				c->plain = cr_portsel_plain_counts(
					j->ps, f->switches[s]);
			}
			j->r->lft[f->switches[s]][lid] = cr_portsel_pick_kept(
				j->ps, f->switches[s], c->plain, c->cands,
				c->nc, lid, flags);
		}
	}
	free(cache);
	return 0;
}

/*
 * Key of each switch for cr_portsel_order_by_key(): its place in the
 * order of (hops from the nearest leaf, GUID), the same for every switch.
 */
static uint32_t *height_keys(const struct cr_fabric *f, const bool *leaf,
			     const uint32_t *adj_start, const uint32_t *adj_sw)
{
	uint32_t ns = f->num_switches, head = 0, tail = 0;
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));
	uint32_t *height = malloc((ns + 1) * sizeof(*height));
	uint32_t *key = malloc((ns + 1) * sizeof(*key));

	if (!queue || !height || !key) {
		free(key);
		key = NULL;
		goto out;
	}
	for (uint32_t s = 0; s < ns; s++) {
		height[s] = leaf[s] ? 0 : UINT32_MAX;
		if (leaf[s])
			queue[tail++] = s;
	}
	while (head < tail) {
		uint32_t s = queue[head++];

		for (uint32_t k = adj_start[s]; k < adj_start[s + 1]; k++)
			if (height[adj_sw[k]] == UINT32_MAX) {
				height[adj_sw[k]] = height[s] + 1;
				queue[tail++] = adj_sw[k];
			}
	}
	/* Insertion of each switch in (height, GUID) order: queue reused. */
	for (uint32_t s = 0; s < ns; s++) {
		uint64_t g = f->nodes[f->switches[s]].guid;
		uint32_t j = s;

		for (; j; j--) {
			uint32_t t = queue[j - 1];
			uint64_t gt = f->nodes[f->switches[t]].guid;

			if (height[t] < height[s] ||
			    (height[t] == height[s] && gt <= g))
				break;
			queue[j] = t;
		}
		queue[j] = s;
	}
	for (uint32_t i = 0; i < ns; i++)
		key[queue[i]] = i;
out:
	free(queue);
	free(height);
	return key;
}

/*
 * Flow balance (include/croute/route/flowbal.h): each switch's switch links
 * sorted once into the order of the far switches' keys, so that filtering
 * them gives a destination's candidates already in order.
 */
struct minhop_flows {
	const struct cr_fabric *f;
	const uint8_t *dist;
	const uint32_t *adj_start;
	uint32_t *adj_sw; /* the neighbour's switch index, in key order */
	uint8_t *adj_port; /* the local port toward it */
};

static int flow_levels(void *ctx, unsigned worker, unsigned slot, uint32_t di,
		       uint16_t *lev)
{
	const struct minhop_flows *m = ctx;
	uint32_t ns = m->f->num_switches;
	/* Distances are symmetric: di's row is the column toward di. */
	const uint8_t *drow = m->dist + (size_t)di * ns;

	(void)worker;
	(void)slot;
	for (uint32_t s = 0; s < ns; s++)
		lev[s] = drow[s] == CR_HOPS_INF ? CR_FLOW_NONE : drow[s];
	return 0;
}

static unsigned flow_cands(void *ctx, unsigned slot, const uint16_t *lev,
			   uint32_t s, uint8_t *out)
{
	const struct minhop_flows *m = ctx;
	uint16_t h = lev[s] - 1;
	unsigned n = 0;

	(void)slot;
	for (uint32_t k = m->adj_start[s]; k < m->adj_start[s + 1]; k++)
		if (lev[m->adj_sw[k]] == h)
			out[n++] = m->adj_port[k];
	return n;
}

static int minhop_flows(const struct minhop_job *j, const uint32_t *key)
{
	const struct cr_fabric *f = j->f;
	uint32_t ns = f->num_switches, links = j->adj_start[ns];
	struct minhop_flows m = {
		.f = f, .dist = j->dist, .adj_start = j->adj_start};
	struct cr_flow_engine e = {
		.ctx = &m, .levels = flow_levels, .cands = flow_cands};
	int ret = -1;

	m.adj_sw = malloc(((size_t)links + 1) * sizeof(*m.adj_sw));
	m.adj_port = malloc((size_t)links + 1);
	if (!m.adj_sw || !m.adj_port) {
		cr_err("cr-minhop: out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t sw = f->switches[s], b = j->adj_start[s];

		memcpy(m.adj_port + b, j->adj_port + b,
		       j->adj_start[s + 1] - b);
		cr_portsel_order_by_key(j->ps, sw, key, m.adj_port + b,
					j->adj_start[s + 1] - b);
		for (uint32_t k = b; k < j->adj_start[s + 1]; k++)
			m.adj_sw[k] = f->nodes[f->nodes[sw]
						       .ports[m.adj_port[k]]
						       .remote]
					      .sw_index;
	}
	ret = cr_flow_route(f, j->r, j->ps, j->lids, j->nlids, &e);
out:
	free(m.adj_sw);
	free(m.adj_port);
	return ret;
}

/*
 * Whether to balance flows: 1 on tree-like fabrics when port selection
 * allows it (then *key is set), 0 not, -1 out of memory.
 */
static int use_flows(const struct cr_fabric *f, const struct cr_options *o,
		     struct cr_portsel *ps, const struct minhop_job *j,
		     uint32_t **key)
{
	struct cr_roles roles;
	int ret = 0;

	*key = NULL;
	if (cr_roles_init(&roles, f, o))
		return -1;
	if (cr_roles_tree_like(&roles))
		ret = cr_portsel_use_flows(ps);
	if (ret > 0) {
		*key = height_keys(f, roles.leaf, j->adj_start, j->adj_sw);
		if (!*key) {
			cr_err("cr-minhop: out of memory");
			ret = -1;
		}
	}
	cr_roles_release(&roles);
	return ret;
}

int cr_minhop_route(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by)
{
	uint8_t *dist = cr_switch_distances(f);
	struct cr_portsel *ps = cr_portsel_new(f, o, r);
	struct minhop_job j = {.f = f, .r = r, .ps = ps, .dist = dist};
	uint32_t *adj_start = NULL, *adj_sw = NULL;
	uint8_t *adj_port = NULL;
	uint16_t *lids = NULL;
	uint32_t *key = NULL;
	int ret = -1, flows;

	(void)by; /* none */
	if (!dist || !ps)
		goto out;
	if (cr_switch_adjacency(f, &adj_start, &adj_sw, &adj_port)) {
		cr_err("cr-minhop: out of memory");
		goto out;
	}
	j.adj_start = adj_start;
	j.adj_sw = adj_sw;
	j.adj_port = adj_port;
	j.nlids = cr_lid_order(f, o, &lids);
	if (j.nlids < 0)
		goto out;
	j.lids = lids;
	if (cr_portsel_global(ps)) {
		ret = minhop_global(f, r, ps, dist, lids, j.nlids);
		goto out;
	}
	flows = use_flows(f, o, ps, &j, &key);
	if (flows) {
		ret = flows < 0 ? -1 : minhop_flows(&j, key);
		goto out;
	}
	ret = cr_parallel(f->num_switches,
			  cr_portsel_parallel(ps)
				  ? cr_parallel_parts(f->num_switches, 16)
				  : 1,
			  minhop_range, &j);
out:
	free(key);
	free(adj_start);
	free(adj_sw);
	free(adj_port);
	free(lids);
	free(dist);
	cr_portsel_free(ps);
	return ret;
}
