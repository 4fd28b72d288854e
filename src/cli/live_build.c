// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --live's decoding of what infiniband-diags' libraries return, apart from
 * the MADs that fetch it (live.c), so that a fuzz target (tests/fuzz/
 * fuzz_live.c) can feed it made-up fabrics and LFT blocks without
 * hardware: libibnetdisc's ibnd_fabric_t into croute's model (node types,
 * GUIDs, LIDs, links; widths and speeds from PortInfo as ibnetdiscover
 * prints them), and a LinearForwardingTable block into the LFT.
 *
 * Cost: linear in nodes and ports (a GUID hash map), then the sort by GUID.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <croute/model/log.h>
#include <croute/io/topo.h>

#include <croute/model/guidmap.h>

#include "live.h"

#define CAP_EXT_SPEEDS (1u << 14) /* PortInfo:CapabilityMask */

static uint8_t width_of(unsigned w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	}
	return 0;
}

/* The active lane speed, extended speeds first, as ibnetdiscover prints. */
static enum cr_speed speed_of(ibnd_port_t *port)
{
	ibnd_node_t *node = port->node;
	uint8_t *cap_info = port->info;
	unsigned ext = 0, s;

	if (node->type == IB_NODE_SWITCH && node->ports[0])
		cap_info = node->ports[0]->info;
	if (mad_get_field(cap_info, 0, IB_PORT_CAPMASK_F) & CAP_EXT_SPEEDS)
		ext = mad_get_field(port->info, 0,
				    IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
#if HAVE_DECL_IB_PORT_LINK_SPEED_EXT_ACTIVE_2_F
	/* XDR has a field of its own, zero where the port lacks it. */
	if (mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_2_F) ==
	    1)
		return CR_SPEED_XDR;
#endif
	switch (ext) {
	case 1:
		return CR_SPEED_FDR;
	case 2:
		return CR_SPEED_EDR;
	case 4:
		return CR_SPEED_HDR;
	case 8:
		return CR_SPEED_NDR;
	}
	s = mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	return s == 1	? CR_SPEED_SDR
	       : s == 2 ? CR_SPEED_DDR
	       : s == 4 ? CR_SPEED_QDR
			: CR_SPEED_UNKNOWN;
}

static enum cr_node_type type_of(int t)
{
	return t == IB_NODE_SWITCH   ? CR_NODE_SWITCH
	       : t == IB_NODE_CA     ? CR_NODE_CA
	       : t == IB_NODE_ROUTER ? CR_NODE_ROUTER
				     : 0;
}

struct cr_fabric *cli_live_build(ibnd_fabric_t *fab)
{
	struct cr_fabric *f = cr_fabric_new();
	struct cr_guidmap idx = {0};
	size_t count = 0;

	for (ibnd_node_t *n = fab->nodes; n; n = n->next)
		count++;
	if (!f || cr_guidmap_init(&idx, count))
		goto oom;
	for (ibnd_node_t *n = fab->nodes; n; n = n->next) {
		char desc[IB_SMP_DATA_SIZE + 1];
		enum cr_node_type t = type_of(n->type);
		uint32_t i;

		if (!t) {
			cr_err("live: node 0x%016" PRIx64 " has unknown type"
			       " %d",
			       n->guid, n->type);
			goto fail;
		}
		snprintf(desc, sizeof(desc), "%s", n->nodedesc);
		i = cr_fabric_add_node(f, t, n->guid, n->numports, desc);
		if (i == CR_NO_NODE)
			goto fail;
		switch (cr_guidmap_put(&idx, n->guid, i)) {
		case 0:
			break;
		case 1:
			cr_err("live: node GUID 0x%016" PRIx64 " discovered"
			       " twice",
			       n->guid);
			goto fail;
		default:
			goto oom;
		}
		f->nodes[i].sysimg_guid =
			mad_get_field64(n->info, 0, IB_NODE_SYSTEM_GUID_F);
		if (t == CR_NODE_SWITCH) {
			f->nodes[i].ports[0].lid = n->smalid;
			f->nodes[i].ports[0].lmc = n->smalmc;
			continue;
		}
		for (int p = 1; p <= n->numports; p++) {
			ibnd_port_t *port = n->ports[p];

			if (!port)
				continue;
			f->nodes[i].ports[p].guid = port->guid;
			f->nodes[i].ports[p].lid = port->base_lid;
			f->nodes[i].ports[p].lmc = port->lmc;
		}
	}
	for (ibnd_node_t *n = fab->nodes; n; n = n->next) {
		uint32_t a = cr_guidmap_get(&idx, n->guid);

		for (int p = 1; p <= n->numports; p++) {
			ibnd_port_t *port = n->ports[p], *rp;
			uint32_t b;

			if (!port || !(rp = port->remoteport))
				continue;
			b = cr_guidmap_get(&idx, rp->node->guid);
			if (b == CR_GUIDMAP_NONE)
				continue;
			/* Each link once, from its lower end. */
			if (b < a || (b == a && rp->portnum < p))
				continue;
			if (cr_fabric_link(f, a, p, b, rp->portnum))
				goto fail;
			f->nodes[a].ports[p].width =
				f->nodes[b].ports[rp->portnum].width =
					width_of(mad_get_field(
						port->info, 0,
						IB_PORT_LINK_WIDTH_ACTIVE_F));
			f->nodes[a].ports[p].speed =
				f->nodes[b].ports[rp->portnum].speed =
					speed_of(port);
		}
	}
	cr_guidmap_release(&idx);
	if (cr_fabric_sort_by_guid(f)) {
		cr_err("live: the discovered fabric is not consistent (see"
		       " above)");
		cr_fabric_free(f);
		return NULL;
	}
	return f;
oom:
	cr_err("live: out of memory");
fail:
	cr_guidmap_release(&idx);
	cr_fabric_free(f);
	return NULL;
}

void cli_live_lft_block(const uint8_t *block, unsigned b, unsigned top,
			const struct cr_fabric *f, struct cr_routing *r,
			uint32_t sw)
{
	for (unsigned i = 0; i < 64; i++) {
		unsigned lid = b * 64 + i;
		uint8_t port = block[i];

		if (lid > top || lid > r->max_lid)
			break;
		r->lft[sw][lid] =
			port > f->nodes[sw].num_ports ? CR_NO_PATH : port;
	}
}
