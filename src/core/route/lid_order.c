// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The order in which engines route destination LIDs. With least-loaded
 * port selection, routing the hosts of one leaf switch consecutively
 * spreads them over that leaf's uplinks (host i of every leaf lands on
 * uplink i mod uplinks), which is what makes shift patterns contention
 * free on full-bisection trees. Switch LIDs come last: they carry little
 * traffic and must not disturb that balance.
 *
 * With LMC > 0, every port's base LID comes before any further LID: the
 * order above over the base LIDs, then over the second LIDs, and so on.
 * Jobs that ignore LMC (NCCL, UCX by default) use the base LIDs only, so
 * their paths must not depend on the LMC: routed first, the base LIDs see
 * the same port loads, link weights and lash layers as at LMC 0 and get
 * the same next hops. The further LIDs then balance against all the base
 * routes, not against a part of them.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/route/portsel.h>

static void add_port_lids(const struct cr_fabric *f, uint32_t n, unsigned p,
			  uint16_t *lids, int *count, uint8_t *seen)
{
	const struct cr_port *port = &f->nodes[n].ports[p];

	if (!port->lid)
		return;
	for (uint32_t l = port->lid; l < port->lid + (1u << port->lmc); l++) {
		if (seen[l])
			continue;
		seen[l] = 1;
		lids[(*count)++] = l;
	}
}

#define MAX_OFFSETS (1u << CR_MAX_LMC)

/* A LID's place among its port's LIDs: 0 for the base LID. */
static unsigned lid_offset(const struct cr_fabric *f, uint16_t lid)
{
	uint32_t n = f->lid_node[lid];
	unsigned k;

	if (n == CR_NO_NODE)
		return 0;
	k = (unsigned)(lid - f->nodes[n].ports[f->lid_port[lid]].lid);
	return k < MAX_OFFSETS ? k : MAX_OFFSETS - 1;
}

/* Stable counting sort of lids[0..n) by offset; 0 or -1 (memory). */
static int by_offset(const struct cr_fabric *f, uint16_t *lids, int n)
{
	unsigned start[MAX_OFFSETS + 1] = {0}, top = 0;
	uint16_t *copy;

	for (int i = 0; i < n; i++) {
		unsigned k = lid_offset(f, lids[i]);

		start[k + 1]++;
		if (k > top)
			top = k;
	}
	if (!top)
		return 0; /* LMC 0: the order as it is */
	copy = malloc((size_t)n * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, lids, (size_t)n * sizeof(*copy));
	for (unsigned k = 1; k <= top; k++)
		start[k] += start[k - 1];
	for (int i = 0; i < n; i++)
		lids[start[lid_offset(f, copy[i])]++] = copy[i];
	free(copy);
	return 0;
}

int cr_lid_order(const struct cr_fabric *f, const struct cr_options *o,
		 uint16_t **out)
{
	uint16_t *lids = malloc(((size_t)f->max_lid + 1) * sizeof(*lids));
	uint8_t *seen = calloc((size_t)f->max_lid + 1, 1);
	int count = 0;

	if (!lids || !seen) {
		free(lids);
		free(seen);
		cr_err("out of memory ordering LIDs");
		return -1;
	}
	for (size_t i = 0; i < o->guid_order.count; i++) {
		uint8_t p;
		uint32_t n =
			cr_fabric_find_port_guid(f, o->guid_order.guids[i], &p);

		if (n != CR_NO_NODE)
			add_port_lids(f, n, p, lids, &count, seen);
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *sw = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= sw->num_ports; p++) {
			uint32_t m = sw->ports[p].remote;

			if (m == CR_NO_NODE || cr_is_switch(f, m))
				continue;
			add_port_lids(f, m, sw->ports[p].remote_port, lids,
				      &count, seen);
		}
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		add_port_lids(f, f->switches[s], 0, lids, &count, seen);
	free(seen);
	if (by_offset(f, lids, count)) {
		free(lids);
		cr_err("out of memory ordering LIDs");
		return -1;
	}
	*out = lids;
	return count;
}
