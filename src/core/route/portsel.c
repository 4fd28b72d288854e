// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Port selection (doc/design.md, "Port selection"): every engine hands its
 * equally good candidate ports here, so that ordering, balance, port
 * shifting, scattering and LMC diversity behave the same in all of them.
 *
 * Order: by port number, or with remote_guid_sorting by the GUID of the
 * node at the far end (then its port), so that switches cabled to spine
 * boards in scrambled port order still make consistent choices.
 * Pick: the least loaded candidate, first in order on ties; scatter_ports
 * picks at random among the least loaded, from its seed.
 * LMC > 0: a port's further LIDs prefer candidates leading to a system
 * image, then a node, then a cable, not yet used by its earlier LIDs on
 * this switch. Base LIDs are balanced, and globally weighed, on the base
 * LIDs' routes alone; further LIDs are balanced on the further LIDs'
 * routes and weighed on all routes: jobs that ignore LMC
 * use the base LIDs only, and their paths must be those of LMC 0 whatever
 * the further LIDs did (engines also route every base LID first,
 * cr_lid_order()).
 *
 * port_shifting. OpenSM starts the least-loaded scan at (sum of loads /
 * candidates) mod candidates: a rotation by one every round of LIDs. That
 * de-aligns LIDs routed in an arbitrary order, but the rotation depends on
 * how many LIDs each switch has routed, which differs between leaves (a
 * leaf does not route its own hosts upward): on a full two-level tree in
 * leaf order the shift pattern loses bandwidth (bench/updn/run.sh runs
 * OpenSM's port_shifting), and multi-level trees stay aligned, every level
 * rotating alike. Engines that route in
 * cr_lid_order() pass CR_PS_SPREAD, and for them croute's port_shifting
 * is destination-based (D-mod-k): with r the destination port's position
 * in that order, n the candidates, and h the switch's distance from the
 * nearest leaf (include/croute/model/roles.h), an upward choice takes candidate
 * (r / n^h + LID offset) mod n, a downward one (r + LID offset) mod n,
 * whatever the loads. Every switch then makes the same choice for the same
 * destination, each level uses its own digit of r, and a full tree routed
 * leaf by leaf is free of contention for shift patterns at every level.
 * When the number N of CA ports is no multiple of n, r is first stretched
 * to r * N' / N (N' the next multiple of n), so that the shifts wrapping
 * from the last host to the first stay contention free. Without
 * CR_PS_SPREAD (cr-ftree, which does its own D-mod-k) port_shifting is
 * OpenSM's rotation.
 *
 * Global balance (o->balance_global, croute_balance global). Local counts
 * see one port at a time; a path crosses several links, and a port whose
 * own count is low may lead into a congested core. In the spirit of
 * OpenSM's SSSP/DFSSSP, every directed switch link carries a weight: the
 * routes (source CA port, destination LID) already routed over it. A
 * candidate's cost is its link's weight plus the weights of the rest of
 * the path, read from the LFTs already written for this LID (engines that
 * balance globally route the switches in order of their distance to the
 * destination, so the next switch's entry is there); the cheapest
 * candidates stay, and the usual rules choose among them. When a LID is
 * done the engine calls cr_portsel_commit(), which adds each switch's CA
 * ports to the weights along its path. Deterministic: weights are integer
 * counts; the engines' legality rules supply the candidates, so their
 * guarantees hold.
 *
 * Flow balance (cr_portsel_use_flows(), cr-updn on tree-like fabrics):
 * the engine tells each pick how many CA sources' routes to the LID cross
 * the switch, and the pick balances those per port, base LIDs and the
 * further LIDs of ports apart; see updn.c and doc/design.md. cr-minhop
 * does the same on tree-like fabrics (minhop.c).
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/model/rand.h>
#include <croute/route/portsel.h>
#include <croute/model/roles.h>

struct cr_portsel {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	bool shifting;
	bool scatter;
	bool first; /* croute_balance first: no balance */
	uint64_t rng;
	size_t stride; /* ports per switch row: max ports + 1 */
	uint32_t *count; /* [sw_index * stride + port]: base LIDs' routes */
	uint32_t *xcount; /* the same, further LIDs' routes (LMC > 0) */
	uint16_t *rank; /* position of the port in the order */
	bool *listed; /* [sw_index]: port_search_ordering_file names it */
	/* port_shifting with CR_PS_SPREAD: */
	uint32_t *dest_rank; /* [lid]: its port's place in the LID order */
	uint32_t num_ca_ranks; /* CA ports in the order: ranks below this */
	uint8_t *height; /* [sw_index]: hops from a switch with CAs */
	/* global balance: */
	uint64_t *weight; /* [sw_index * stride + port]: routes over it */
	uint64_t *xweight; /* the same, toward further LIDs */
	uint32_t *cas; /* [sw_index]: CA ports cabled to the switch */
	/*
	 * with rip-up and reroute: [sw_index * stride + port], the link's
	 * cost per route, 16 x the fastest link's rate over its own
	 */
	uint16_t *scale;
	/*
	 * flow balance (cr_portsel_use_flows()): [sw_index * stride + port],
	 * the CA sources routed over it toward base LIDs, then as many cells
	 * toward the further LIDs of ports (LMC > 0)
	 */
	uint64_t *flow;
};

static int cmp_remote(const struct cr_fabric *f, const struct cr_node *n,
		      unsigned a, unsigned b)
{
	const struct cr_port *x = &n->ports[a], *y = &n->ports[b];
	uint64_t ga =
		x->remote == CR_NO_NODE ? UINT64_MAX : f->nodes[x->remote].guid;
	uint64_t gb =
		y->remote == CR_NO_NODE ? UINT64_MAX : f->nodes[y->remote].guid;

	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (x->remote_port != y->remote_port)
		return x->remote_port < y->remote_port ? -1 : 1;
	return a < b ? -1 : a > b;
}

static const struct cr_port_order *find_port_order(const struct cr_options *o,
						   uint64_t guid)
{
	for (size_t i = 0; i < o->num_port_orders; i++)
		if (o->port_orders[i].guid == guid)
			return &o->port_orders[i];
	return NULL;
}

/*
 * A port search order given for the switch wins: its ports first, in the
 * order listed, then the others in port number order, as OpenSM does.
 */
static void rank_ports(struct cr_portsel *ps, const struct cr_node *n,
		       const struct cr_options *o)
{
	uint16_t *rank = ps->rank + (size_t)n->sw_index * ps->stride;
	const struct cr_port_order *po = find_port_order(o, n->guid);
	uint8_t order[CR_MAX_PORTS + 1];
	unsigned np = n->num_ports, k = 0;
	bool listed[CR_MAX_PORTS + 1] = {false};

	ps->listed[n->sw_index] = po != NULL;
	if (po) {
		for (unsigned i = 0; i < po->num; i++)
			if (po->ports[i] <= np) {
				listed[po->ports[i]] = true;
				order[k++] = po->ports[i];
			}
		for (unsigned p = 1; p <= np; p++)
			if (!listed[p])
				order[k++] = p;
	} else {
		for (unsigned p = 1; p <= np; p++)
			order[p - 1] = p;
	}
	/* Insertion sort: a switch has a few dozen ports. */
	for (unsigned i = 1; !po && o->remote_guid_sorting && i < np; i++) {
		uint8_t p = order[i];
		unsigned j = i;

		while (j && cmp_remote(ps->f, n, order[j - 1], p) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = p;
	}
	rank[0] = 0;
	for (unsigned i = 0; i < np; i++)
		rank[order[i]] = i + 1;
}

/*
 * Position of each LID's port in cr_lid_order(), for D-mod-k spreading:
 * the CA ports of leaves first, then the other CA ports, then switches.
 */
static int rank_destinations(struct cr_portsel *ps, const struct cr_options *o,
			     const bool *leaf)
{
	const struct cr_fabric *f = ps->f;
	uint32_t pos = 0;
	uint16_t *lids;
	int n = cr_lid_order(f, o, &lids);

	if (n < 0)
		return -1;
	ps->dest_rank = calloc((size_t)f->max_lid + 1, sizeof(*ps->dest_rank));
	if (!ps->dest_rank) {
		free(lids);
		return -1;
	}
	/*
	 * One place per port, taken by its base LID (the port's first in
	 * that order); its further LIDs share it.
	 */
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < n; i++) {
			uint32_t node = f->lid_node[lids[i]];
			const struct cr_port *port =
				&f->nodes[node].ports[f->lid_port[lids[i]]];
			uint32_t sw = cr_lid_switch(f, lids[i], NULL);
			int kind = cr_is_switch(f, node) ? 2
				   : sw != CR_NO_NODE &&
						   leaf[f->nodes[sw].sw_index]
					   ? 0
					   : 1;

			if (kind != pass || port->lid != lids[i])
				continue;
			for (uint32_t l = port->lid;
			     l < port->lid + (1u << port->lmc) &&
			     l <= f->max_lid;
			     l++)
				ps->dest_rank[l] = pos;
			pos++;
		}
		if (pass == 0)
			ps->num_ca_ranks = pos;
	}
	free(lids);
	return 0;
}

/* BFS from the leaves: a tree's leaves 0, their parents 1... */
static int measure_heights(struct cr_portsel *ps, const bool *leaf)
{
	const struct cr_fabric *f = ps->f;
	uint32_t ns = f->num_switches, head = 0, tail = 0;
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));

	ps->height = malloc(ns + 1);
	if (!queue || !ps->height) {
		free(queue);
		return -1;
	}
	memset(ps->height, UINT8_MAX, ns + 1);
	for (uint32_t s = 0; s < ns; s++) {
		if (leaf[s]) {
			ps->height[s] = 0;
			queue[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t s = queue[head++];
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;
			uint32_t t;

			if (m == CR_NO_NODE || !cr_is_switch(f, m))
				continue;
			t = f->nodes[m].sw_index;
			if (ps->height[t] == UINT8_MAX && ps->height[s] < 254) {
				ps->height[t] = ps->height[s] + 1;
				queue[tail++] = t;
			}
		}
	}
	/* Parts without CAs: count as leaves. */
	for (uint32_t s = 0; s < ns; s++)
		if (ps->height[s] == UINT8_MAX)
			ps->height[s] = 0;
	free(queue);
	return 0;
}

/* What croute's port_shifting needs: leaves, heights, destination ranks. */
static int prepare_spread(struct cr_portsel *ps, const struct cr_options *o)
{
	struct cr_roles roles;
	int ret = -1;

	if (cr_roles_init(&roles, ps->f, o))
		return -1;
	if (!measure_heights(ps, roles.leaf) &&
	    !rank_destinations(ps, o, roles.leaf))
		ret = 0;
	cr_roles_release(&roles);
	return ret;
}

/*
 * Rip-up and reroute balances expected load per unit of capacity: a route
 * over a link of half the fastest rate costs twice as much. Unknown rates
 * count as the fastest.
 */
static int set_scale(struct cr_portsel *ps)
{
	const struct cr_fabric *f = ps->f;
	uint32_t top = 0;

	ps->scale = calloc((size_t)f->num_switches * ps->stride + 1,
			   sizeof(*ps->scale));
	if (!ps->scale)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < f->num_switches; s++) {
			const struct cr_node *n = &f->nodes[f->switches[s]];

			for (unsigned p = 1; p <= n->num_ports; p++) {
				uint32_t r = cr_link_rate_mbps(
					n->ports[p].width, n->ports[p].speed);
				size_t cell = (size_t)s * ps->stride + p;

				if (!pass && r > top)
					top = r;
				if (pass)
					ps->scale[cell] =
						r ? (uint16_t)((16ULL * top +
								r / 2) /
							       r)
						  : 16;
			}
		}
	}
	return 0;
}

struct cr_portsel *cr_portsel_new(const struct cr_fabric *f,
				  const struct cr_options *o,
				  const struct cr_routing *r)
{
	struct cr_portsel *ps = calloc(1, sizeof(*ps));
	unsigned max_ports = 0;
	size_t cells;

	if (!ps)
		goto oom;
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (f->nodes[f->switches[s]].num_ports > max_ports)
			max_ports = f->nodes[f->switches[s]].num_ports;
	ps->f = f;
	ps->r = r;
	ps->shifting = o->port_shifting;
	ps->scatter = o->scatter_ports != 0;
	ps->first = o->balance_first && !o->balance_global;
	ps->rng = o->scatter_ports * 0x9e3779b97f4a7c15ull + 1;
	ps->stride = max_ports + 1;
	cells = (size_t)f->num_switches * ps->stride + 1;
	ps->count = calloc(cells, sizeof(*ps->count));
	ps->xcount = calloc(cells, sizeof(*ps->xcount));
	ps->rank = calloc(cells, sizeof(*ps->rank));
	ps->listed = calloc(f->num_switches + 1, sizeof(*ps->listed));
	if (!ps->count || !ps->xcount || !ps->rank || !ps->listed)
		goto oom;
	for (uint32_t s = 0; s < f->num_switches; s++)
		rank_ports(ps, &f->nodes[f->switches[s]], o);
	if (ps->shifting && !ps->scatter && !o->balance_global &&
	    prepare_spread(ps, o))
		goto oom;
	if (o->balance_global) {
		ps->weight = calloc(cells, sizeof(*ps->weight));
		ps->xweight = calloc(cells, sizeof(*ps->xweight));
		ps->cas = calloc(f->num_switches + 1, sizeof(*ps->cas));
		if (!ps->weight || !ps->xweight || !ps->cas)
			goto oom;
		for (uint32_t s = 0; s < f->num_switches; s++) {
			const struct cr_node *n = &f->nodes[f->switches[s]];

			for (unsigned p = 1; p <= n->num_ports; p++) {
				uint32_t m = n->ports[p].remote;

				ps->cas[s] +=
					m != CR_NO_NODE && !cr_is_switch(f, m);
			}
		}
		/* Global balance replaces D-mod-k spreading. */
		ps->shifting = false;
		if (o->balance_rounds && set_scale(ps))
			goto oom;
	}
	return ps;
oom:
	cr_err("out of memory for port selection");
	cr_portsel_free(ps);
	return NULL;
}

void cr_portsel_free(struct cr_portsel *ps)
{
	if (!ps)
		return;
	free(ps->count);
	free(ps->xcount);
	free(ps->rank);
	free(ps->listed);
	free(ps->dest_rank);
	free(ps->height);
	free(ps->weight);
	free(ps->xweight);
	free(ps->cas);
	free(ps->scale);
	free(ps->flow);
	free(ps);
}

bool cr_portsel_global(const struct cr_portsel *ps)
{
	return ps->weight != NULL;
}

/* Whether lid is a further LID of its port (LMC > 0), not its base. */
static bool is_further(const struct cr_fabric *f, uint16_t lid)
{
	return lid && lid <= f->max_lid && !cr_lid_is_base(f, lid);
}

/*
 * A link's weight, per unit of capacity with rip-up and reroute; toward a
 * base LID, the base LIDs' routes only.
 */
static uint64_t cell_cost(const struct cr_portsel *ps, size_t cell,
			  bool further)
{
	uint64_t w = ps->weight[cell] + (further ? ps->xweight[cell] : 0);

	return ps->scale ? w * ps->scale[cell] : w;
}

/*
 * Weight of the routed path from switch node n to lid's switch, following
 * the LFTs (0 when n is that switch; stops where no entry is written yet).
 */
static uint64_t path_weight(const struct cr_portsel *ps, uint32_t n,
			    uint16_t lid, uint32_t dst)
{
	const struct cr_fabric *f = ps->f;
	bool further = is_further(f, lid);
	uint64_t w = 0;

	for (unsigned hops = 0; n != dst && hops < 64; hops++) {
		uint8_t p;

		if (n == CR_NO_NODE || !cr_is_switch(f, n))
			break;
		p = ps->r->lft[n][lid];
		if (p == CR_NO_PATH || p == 0 || p > f->nodes[n].num_ports)
			break;
		w += cell_cost(ps,
			       (size_t)f->nodes[n].sw_index * ps->stride + p,
			       further);
		n = f->nodes[n].ports[p].remote;
	}
	return w;
}

/* Adds (sign 1) or removes (-1) lid's routes along the paths as written. */
static void commit_sign(struct cr_portsel *ps, uint16_t lid, int sign)
{
	const struct cr_fabric *f = ps->f;
	uint64_t *weight;
	uint32_t dst;

	if (!ps->weight || !lid || lid > f->max_lid)
		return;
	dst = cr_lid_switch(f, lid, NULL);
	if (dst == CR_NO_NODE)
		return;
	weight = is_further(f, lid) ? ps->xweight : ps->weight;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];

		if (!ps->cas[s])
			continue;
		for (unsigned hops = 0; n != dst && hops < 64; hops++) {
			uint8_t p = ps->r->lft[n][lid];
			size_t cell;

			if (p == CR_NO_PATH || p == 0 ||
			    p > f->nodes[n].num_ports)
				break;
			cell = (size_t)f->nodes[n].sw_index * ps->stride + p;
			if (sign > 0)
				weight[cell] += ps->cas[s];
			else
				weight[cell] -= ps->cas[s];
			n = f->nodes[n].ports[p].remote;
			if (n == CR_NO_NODE || !cr_is_switch(f, n))
				break;
		}
	}
}

void cr_portsel_commit(struct cr_portsel *ps, uint16_t lid)
{
	commit_sign(ps, lid, 1);
}

void cr_portsel_uncommit(struct cr_portsel *ps, uint16_t lid)
{
	const struct cr_fabric *f = ps->f;
	uint8_t dport;
	uint32_t dst;

	if (!ps->weight || !lid || lid > f->max_lid)
		return;
	dst = cr_lid_switch(f, lid, &dport);
	if (dst == CR_NO_NODE)
		return;
	commit_sign(ps, lid, -1);
	/* Switch LIDs' picks were never counted (CR_PS_NOCOUNT). */
	if (!dport)
		return;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];
		uint8_t p = ps->r->lft[n][lid];
		uint32_t *c;

		if (n == dst || p == CR_NO_PATH || p == 0 ||
		    p > f->nodes[n].num_ports)
			continue;
		c = (is_further(f, lid) ? ps->xcount : ps->count) +
		    (size_t)s * ps->stride + p;
		if (*c)
			(*c)--;
	}
}

/* Keeps the candidates of least path weight; returns their count. */
static unsigned keep_lightest(const struct cr_portsel *ps, uint32_t sw,
			      uint8_t *cands, unsigned n, uint16_t lid)
{
	const struct cr_fabric *f = ps->f;
	size_t row = (size_t)f->nodes[sw].sw_index * ps->stride;
	uint32_t dst = cr_lid_switch(f, lid, NULL);
	uint64_t cost[CR_MAX_PORTS], least = UINT64_MAX;
	bool further = is_further(f, lid);
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		uint32_t m = f->nodes[sw].ports[cands[i]].remote;

		cost[i] = cell_cost(ps, row + cands[i], further) +
			  path_weight(ps, m, lid, dst);
		if (cost[i] < least)
			least = cost[i];
	}
	for (unsigned i = 0; i < n; i++)
		if (cost[i] == least)
			cands[k++] = cands[i];
	return k;
}

void cr_portsel_order(const struct cr_portsel *ps, uint32_t sw, uint8_t *ports,
		      unsigned n)
{
	const uint16_t *rank =
		ps->rank + (size_t)ps->f->nodes[sw].sw_index * ps->stride;

	for (unsigned i = 1; i < n; i++) {
		uint8_t p = ports[i];
		unsigned j = i;

		while (j && rank[ports[j - 1]] > rank[p]) {
			ports[j] = ports[j - 1];
			j--;
		}
		ports[j] = p;
	}
}

bool cr_portsel_parallel(const struct cr_portsel *ps)
{
	return !ps->scatter && !ps->weight;
}

uint32_t cr_portsel_count(const struct cr_portsel *ps, uint32_t sw, unsigned p)
{
	size_t cell = (size_t)ps->f->nodes[sw].sw_index * ps->stride + p;

	return ps->count[cell] + ps->xcount[cell];
}

void cr_portsel_add_count(struct cr_portsel *ps, uint32_t sw, unsigned p,
			  uint32_t n)
{
	ps->count[(size_t)ps->f->nodes[sw].sw_index * ps->stride + p] += n;
}

/*
 * Keeps the candidates that lead away from what the earlier LIDs of the
 * same port already use on this switch: another system image if any,
 * else another node, else another cable (parallel cables to one node).
 * Returns the new count (n when nothing to prefer).
 */
static unsigned prefer_diverse(const struct cr_portsel *ps, uint32_t sw,
			       uint8_t *cands, unsigned n, uint16_t lid)
{
	const struct cr_fabric *f = ps->f;
	const struct cr_node *node = &f->nodes[sw];
	const uint8_t *lft = ps->r->lft[sw];
	uint32_t dst = f->lid_node[lid];
	uint8_t lmc = f->nodes[dst].ports[f->lid_port[lid]].lmc;
	uint16_t base = lid & ~((1u << lmc) - 1);
	uint8_t keep[CR_MAX_PORTS];

	/* The port's first LID (every LID with LMC 0) has nothing to avoid. */
	if (base == lid)
		return n;
	for (int level = 0; level < 3; level++) {
		unsigned k = 0;

		for (unsigned i = 0; i < n; i++) {
			const struct cr_node *far =
				&f->nodes[node->ports[cands[i]].remote];
			bool used = false;

			for (uint16_t l = base; l < lid && !used; l++) {
				uint8_t p = lft[l];
				const struct cr_node *u;

				if (p == CR_NO_PATH || p == 0 ||
				    p > node->num_ports ||
				    node->ports[p].remote == CR_NO_NODE)
					continue;
				u = &f->nodes[node->ports[p].remote];
				used = level == 0 ? u->sysimg_guid ==
							    far->sysimg_guid
				       : level == 1 ? u == far
						    : p == cands[i];
			}
			if (!used)
				keep[k++] = cands[i];
		}
		if (k) {
			memcpy(cands, keep, k);
			return k;
		}
	}
	return n;
}

/*
 * croute's port_shifting (CR_PS_SPREAD): the D-mod-k index into the full
 * candidate order, see the top of this file.
 */
static unsigned spread_index(const struct cr_portsel *ps, uint32_t sw,
			     const uint8_t *order, unsigned n, uint16_t lid)
{
	const struct cr_fabric *f = ps->f;
	const struct cr_node *node = &f->nodes[sw];
	uint8_t h = ps->height[node->sw_index];
	uint32_t far = node->ports[order[0]].remote;
	uint64_t r = ps->dest_rank[lid], div = 1;
	unsigned offset = 0;

	if (f->lid_node[lid] != CR_NO_NODE) {
		uint32_t dst = f->lid_node[lid];
		uint8_t lmc = f->nodes[dst].ports[f->lid_port[lid]].lmc;

		offset = lid & ((1u << lmc) - 1);
	}
	/*
	 * Stretch the N CA ports over the next multiple of n, so that the
	 * ranks of a shift's consecutive destinations, wrapping from the
	 * last host to the first, still fall on distinct residues.
	 */
	if (r < ps->num_ca_ranks) {
		uint64_t total = ps->num_ca_ranks;

		r = r * ((total + n - 1) / n * n) / total;
	}
	/* Upward (away from the CAs): this level's digit of r. */
	if (far != CR_NO_NODE && cr_is_switch(f, far) &&
	    ps->height[f->nodes[far].sw_index] > h)
		while (h-- && div <= r)
			div *= n;
	return (unsigned)((r / div + offset) % n);
}

/*
 * The D-mod-k candidate, or with LMC > 0 the first after it (in the
 * selector's order) that the diversity rule prefers.
 */
static uint8_t spread_pick(const struct cr_portsel *ps, uint32_t sw,
			   const uint8_t *order, unsigned n, uint16_t lid)
{
	uint8_t keep[CR_MAX_PORTS + 1];
	unsigned start = spread_index(ps, sw, order, n, lid), nk = n;

	memcpy(keep, order, n);
	if (lid && ps->f->lid_node[lid] != CR_NO_NODE)
		nk = prefer_diverse(ps, sw, keep, n, lid);
	if (nk == n)
		return order[start];
	for (unsigned i = 0; i < n; i++) {
		uint8_t p = order[(start + i) % n];

		if (memchr(keep, p, nk))
			return p;
	}
	return order[start];
}

uint32_t *cr_portsel_plain_counts(struct cr_portsel *ps, uint32_t sw)
{
	if (ps->shifting || ps->scatter || ps->weight || ps->first)
		return NULL;
	return ps->count + (size_t)ps->f->nodes[sw].sw_index * ps->stride;
}

uint8_t cr_portsel_pick(struct cr_portsel *ps, uint32_t sw,
			const uint8_t *cands, unsigned n, uint16_t lid,
			unsigned flags)
{
	size_t row = (size_t)ps->f->nodes[sw].sw_index * ps->stride;
	bool further = is_further(ps->f, lid);
	uint32_t *count = ps->count + row, *xcount = ps->xcount + row;
	uint8_t order[CR_MAX_PORTS + 1];
	uint32_t least = UINT32_MAX, load[CR_MAX_PORTS + 1];
	uint64_t total = 0;
	unsigned start = 0, ties = 0, best = 0;
	uint8_t port;

	if (!n)
		return CR_NO_PATH;
	if (n == 1) {
		port = cands[0];
		goto done;
	}
	if (ps->first) {
		memcpy(order, cands, n);
		if (!(flags & CR_PS_SORTED))
			cr_portsel_order(ps, sw, order, n);
		port = order[0];
		goto done;
	}
	/*
	 * The common case at scale, kept cheap: sorted candidates, a base
	 * LID (no diversity to seek), neither rotation nor scattering. The
	 * same choice as below: the first least loaded in order.
	 */
	if ((flags & CR_PS_SORTED) && (flags & CR_PS_BASE) && !ps->shifting &&
	    !ps->scatter && !ps->weight)
		return cr_portsel_pick_plain(count, cands, n, flags);
	memcpy(order, cands, n);
	if (!(flags & CR_PS_SORTED))
		cr_portsel_order(ps, sw, order, n);
	if (ps->weight && lid && lid <= ps->f->max_lid &&
	    !(flags & CR_PS_NOCOUNT)) {
		n = keep_lightest(ps, sw, order, n, lid);
		if (n == 1) {
			port = order[0];
			goto done;
		}
	}
	if (ps->shifting && !ps->scatter && (flags & CR_PS_SPREAD) &&
	    lid <= ps->f->max_lid) {
		port = spread_pick(ps, sw, order, n, lid);
		goto done;
	}
	if (!ps->scatter && lid && lid <= ps->f->max_lid &&
	    ps->f->lid_node[lid] != CR_NO_NODE)
		n = prefer_diverse(ps, sw, order, n, lid);

	/*
	 * Two balances, as with flow balance: base LIDs over the base LIDs'
	 * routes, further LIDs over the further LIDs'. Weighing every route
	 * for the further LIDs stripes worse (bench/lmcbase).
	 */
	for (unsigned i = 0; i < n; i++) {
		load[i] = further ? xcount[order[i]] : count[order[i]];
		total += load[i];
		if (load[i] < least)
			least = load[i];
	}
	if (ps->scatter) {
		for (unsigned i = 0; i < n; i++)
			ties += load[i] == least;
		ties = cr_rand_next(&ps->rng) % ties;
		for (unsigned i = 0; i < n; i++)
			if (load[i] == least && !ties--) {
				best = i;
				break;
			}
	} else {
		if (ps->shifting)
			start = (unsigned)((total / n) % n);
		for (unsigned i = 0; i < n; i++) {
			unsigned idx = (start + i) % n;

			if (load[idx] == least) {
				best = idx;
				break;
			}
		}
	}
	port = order[best];
done:
	if (!(flags & CR_PS_NOCOUNT))
		(further ? xcount : count)[port]++;
	return port;
}

int cr_portsel_use_flows(struct cr_portsel *ps)
{
	size_t cells = (size_t)ps->f->num_switches * ps->stride + 1;

	if (ps->shifting || ps->scatter || ps->weight || ps->first)
		return 0;
	ps->flow = calloc(2 * cells, sizeof(*ps->flow));
	if (!ps->flow) {
		cr_err("out of memory for port selection");
		return -1;
	}
	return 1;
}

void cr_portsel_expect_flows(struct cr_portsel *ps, uint32_t sw, unsigned p,
			     int64_t flows)
{
	if (ps->flow)
		ps->flow[(size_t)ps->f->nodes[sw].sw_index * ps->stride + p] +=
			(uint64_t)flows;
}

uint8_t cr_portsel_pick_flows(struct cr_portsel *ps, uint32_t sw,
			      const uint8_t *cands, unsigned n, uint16_t lid,
			      unsigned flags, uint64_t flows)
{
	size_t row = (size_t)ps->f->nodes[sw].sw_index * ps->stride;
	size_t cells = (size_t)ps->f->num_switches * ps->stride + 1;
	uint8_t order[CR_MAX_PORTS + 1];
	uint64_t *flow;
	uint8_t port;

	if (!ps->flow || !flows || !n || (flags & CR_PS_NOCOUNT))
		return cr_portsel_pick(ps, sw, cands, n, lid, flags);
	/* Base LIDs and the further LIDs of ports: two balances. */
	flow = ps->flow + row + (flags & CR_PS_BASE ? 0 : cells);
	/* At scale: sorted, no diversity to seek, nothing to copy. */
	if ((flags & CR_PS_BASE) && (flags & CR_PS_SORTED)) {
		port = cands[0];
		for (unsigned i = 1; i < n; i++)
			if (flow[cands[i]] < flow[port])
				port = cands[i];
		flow[port] += flows;
		ps->count[row + port]++;
		return port;
	}
	memcpy(order, cands, n);
	if (!(flags & CR_PS_SORTED))
		cr_portsel_order(ps, sw, order, n);
	if (!(flags & CR_PS_BASE) && lid && lid <= ps->f->max_lid &&
	    ps->f->lid_node[lid] != CR_NO_NODE)
		n = prefer_diverse(ps, sw, order, n, lid);
	port = order[0];
	for (unsigned i = 1; i < n; i++)
		if (flow[order[i]] < flow[port])
			port = order[i];
	flow[port] += flows;
	(flags & CR_PS_BASE ? ps->count : ps->xcount)[row + port]++;
	return port;
}

void cr_portsel_order_by_key(const struct cr_portsel *ps, uint32_t sw,
			     const uint32_t *key, uint8_t *ports, unsigned n)
{
	const struct cr_fabric *f = ps->f;
	const struct cr_node *nd = &f->nodes[sw];

	if (ps->listed[nd->sw_index]) {
		cr_portsel_order(ps, sw, ports, n);
		return;
	}
	/* Insertion sort; parallel cables to one switch by port number. */
	for (unsigned i = 1; i < n; i++) {
		uint8_t p = ports[i];
		uint32_t kp = key[f->nodes[nd->ports[p].remote].sw_index];
		unsigned j = i;

		for (; j; j--) {
			uint8_t q = ports[j - 1];
			uint32_t m = nd->ports[q].remote;
			uint32_t kq = key[f->nodes[m].sw_index];

			if (kq < kp || (kq == kp && q < p))
				break;
			ports[j] = q;
		}
		ports[j] = p;
	}
}
