// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A routing result -> OpenSM's switches: new_lft, which OpenSM then sends
 * to the switches, and the hop tables, which opensm.fdbs prints and
 * OpenSM's multicast code reads.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#include <croute/log.h>

/*
 * Back to the state osm_switch_prepare_path_rebuild() leaves: no route,
 * no hop count. OpenSM does this once per sweep, not between the engines
 * of the -R list, and osm_switch_set_hops() only ever lowers a count.
 */
void cr_export_clear(osm_subn_t *subn)
{
	cl_qmap_t *tbl = &subn->sw_guid_tbl;

	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;

		if (sw->new_lft)
			memset(sw->new_lft, OSM_NO_PATH, sw->lft_size);
		if (sw->hops)
			osm_switch_clear_hops(sw);
	}
}

static uint64_t sw_guid(const osm_switch_t *sw)
{
	return cl_ntoh64(osm_node_get_node_guid(sw->p_node));
}

int cr_export(osm_opensm_t *osm, const struct cr_fabric *f,
	      const struct cr_routing *r, osm_switch_t *const *sws)
{
	size_t row = (size_t)f->max_lid + 1;
	uint8_t *hops;
	int ret = -1;

	hops = malloc(f->num_switches ? f->num_switches * row : 1);
	if (!hops) {
		cr_err("out of memory exporting the LFTs");
		return -1;
	}
	/* Hop counts of the paths the LFTs really take, not estimates. */
	if (cr_routing_hop_table(f, r, hops) < 0)
		goto out;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		osm_switch_t *sw = sws[s];
		const uint8_t *lft = r->lft[f->switches[s]];
		const uint8_t *h = hops + s * row;
		unsigned top = f->max_lid;

		if (!sw || !sw->new_lft || !sw->hops) {
			char la[CR_NODE_LABEL_MAX];

			cr_err("switch %s was not prepared for routing by"
			       " OpenSM",
			       cr_node_label(f, f->switches[s], 0, la,
					     sizeof(la)));
			goto out;
		}
		/* new_lft holds lft_size entries; OpenSM uses max_lid_ho. */
		if (top > sw->max_lid_ho)
			top = sw->max_lid_ho;
		if (top >= sw->lft_size)
			top = sw->lft_size - 1u;
		for (unsigned lid = top + 1; lid <= f->max_lid; lid++) {
			if (lft[lid] == CR_NO_PATH)
				continue;
			cr_err("switch 0x%016" PRIx64 ": LID %u is beyond its"
			       " table (top %u, %u entries)",
			       sw_guid(sw), lid, sw->max_lid_ho, sw->lft_size);
			goto out;
		}
		for (unsigned lid = 1; lid <= top; lid++) {
			uint8_t port = lft[lid];

			if (port == CR_NO_PATH)
				continue;
			if (port >= sw->num_ports) {
				cr_err("switch 0x%016" PRIx64 ": LID %u routed"
				       " to port %u of %u",
				       sw_guid(sw), lid, port,
				       sw->num_ports - 1u);
				goto out;
			}
			sw->new_lft[lid] = port;
			if (h[lid] != CR_NO_PATH &&
			    osm_switch_set_hops(sw, (uint16_t)lid, port,
						h[lid])) {
				cr_err("switch 0x%016" PRIx64 ": cannot set"
				       " the hop count of LID %u",
				       sw_guid(sw), lid);
				goto out;
			}
		}
	}
	ret = 0;
out:
	free(hops);
	return ret;
}
