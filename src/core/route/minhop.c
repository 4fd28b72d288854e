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
 * Cost: one BFS per switch, then O(LIDs x switches x ports); global
 * balance adds O(LIDs x switches x hops).
 */
#include <stdlib.h>

#include <croute/hops.h>
#include <croute/log.h>
#include <croute/portsel.h>

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

int cr_minhop_route(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r)
{
	uint32_t ns = f->num_switches;
	uint8_t *dist = cr_switch_distances(f);
	struct cr_portsel *ps = cr_portsel_new(f, o, r);
	uint16_t *lids = NULL;
	uint32_t *order = malloc((ns + 1) * sizeof(*order));
	int nlids = -1, ret = -1;

	if (!dist || !ps || !order)
		goto out;
	nlids = cr_lid_order(f, o, &lids);
	if (nlids < 0)
		goto out;
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
	ret = 0;
out:
	free(order);
	free(lids);
	free(dist);
	cr_portsel_free(ps);
	return ret;
}
