// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The order in which engines route destination LIDs. With least-loaded
 * port selection, routing the hosts of one leaf switch consecutively
 * spreads them over that leaf's uplinks (host i of every leaf lands on
 * uplink i mod uplinks), which is what makes shift patterns contention
 * free on full-bisection trees. Switch LIDs come last: they carry little
 * traffic and must not disturb that balance.
 */
#include <stdlib.h>

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
	*out = lids;
	return count;
}
