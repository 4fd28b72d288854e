// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * OpenSM's subnet -> the core's fabric model. Nodes are taken in node GUID
 * order, not in the order of OpenSM's maps (keyed by GUIDs in network byte
 * order) or of discovery, so the same fabric always gives the same model
 * and the same routing, whatever port OpenSM runs on.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#include <iba/ib_types.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>

#include <croute/log.h>
#include <croute/parallel.h>

/*
 * Nodes by GUID, the GUIDs side by side: finding a port's peer searches
 * 240 KB on 27,648 hosts instead of a pointer per step into OpenSM's nodes
 * (some 2.5 million cache misses for the links of that fabric).
 */
struct node_ref {
	uint64_t guid;
	osm_node_t *node;
};

static int node_ref_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct node_ref *)a)->guid;
	uint64_t y = ((const struct node_ref *)b)->guid;

	return x < y ? -1 : x > y;
}

/* Index of node in the sorted array, or CR_NO_NODE. */
static uint32_t node_index(const struct node_ref *nodes, uint32_t count,
			   const osm_node_t *node)
{
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
	uint32_t lo = 0, hi = count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t g = nodes[mid].guid;

		if (g == guid)
			return nodes[mid].node == node ? mid : CR_NO_NODE;
		if (g < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return CR_NO_NODE;
}

static enum cr_node_type node_type(const osm_node_t *node)
{
	switch (osm_node_get_type(node)) {
	case IB_NODE_TYPE_CA:
		return CR_NODE_CA;
	case IB_NODE_TYPE_SWITCH:
		return CR_NODE_SWITCH;
	case IB_NODE_TYPE_ROUTER:
		return CR_NODE_ROUTER;
	default:
		return 0;
	}
}

static uint8_t width_lanes(uint8_t link_width_active)
{
	switch (link_width_active) {
	case IB_LINK_WIDTH_ACTIVE_1X:
		return 1;
	case IB_LINK_WIDTH_ACTIVE_2X:
		return 2;
	case IB_LINK_WIDTH_ACTIVE_4X:
		return 4;
	case IB_LINK_WIDTH_ACTIVE_8X:
		return 8;
	case IB_LINK_WIDTH_ACTIVE_12X:
		return 12;
	default:
		return 0;
	}
}

/*
 * The active speed, as OpenSM itself ranks it: an extended speed (FDR and
 * up) when the port advertises extended speeds, else FDR10 from the
 * Mellanox extended port info, else the base speed. A switch advertises
 * its capabilities on port 0.
 */
static enum cr_speed port_speed(const osm_physp_t *physp,
				const osm_physp_t *cap_physp)
{
	const ib_port_info_t *pi = &physp->port_info;

	if (cap_physp && (cap_physp->port_info.capability_mask &
			  IB_PORT_CAP_HAS_EXT_SPEEDS)) {
		switch (ib_port_info_get_link_speed_ext_active(pi)) {
		case IB_LINK_SPEED_EXT_ACTIVE_14:
			return CR_SPEED_FDR;
		case IB_LINK_SPEED_EXT_ACTIVE_25:
			return CR_SPEED_EDR;
		case IB_LINK_SPEED_EXT_ACTIVE_50:
			return CR_SPEED_HDR;
		case 8: /* 100 Gb/s per lane, newer than these headers */
			return CR_SPEED_NDR;
		default:
			break;
		}
	}
	if (physp->ext_port_info.link_speed_active & FDR10)
		return CR_SPEED_FDR10;
	switch (ib_port_info_get_link_speed_active(pi)) {
	case IB_LINK_SPEED_ACTIVE_2_5:
		return CR_SPEED_SDR;
	case IB_LINK_SPEED_ACTIVE_5:
		return CR_SPEED_DDR;
	case IB_LINK_SPEED_ACTIVE_10:
		return CR_SPEED_QDR;
	default:
		return CR_SPEED_UNKNOWN;
	}
}

/* Data VLs a port runs (OperationalVLs 1..5 -> 1, 2, 4, 8, 15), 0 unknown. */
static unsigned port_data_vls(const osm_physp_t *physp)
{
	unsigned op = ib_port_info_get_op_vls(&physp->port_info);

	if (!op || op > 5)
		return 0;
	return op == 5 ? 15 : 1u << (op - 1);
}

static int add_node(struct cr_fabric *f, osm_node_t *node)
{
	enum cr_node_type type = node_type(node);
	unsigned num_ports = osm_node_get_num_physp(node) - 1;
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];
	struct cr_node *n;
	uint32_t idx;

	if (!type) {
		cr_err("node 0x%016" PRIx64 " has unknown type %u", guid,
		       osm_node_get_type(node));
		return -1;
	}
	/*
	 * print_desc is the name OpenSM's node_name_map_name gives the node
	 * (else its cleaned description): croute's logs and dumps then name
	 * nodes as OpenSM's own do.
	 */
	if (node->print_desc) {
		snprintf(desc, sizeof(desc), "%s", node->print_desc);
	} else {
		memcpy(desc, node->node_desc.description,
		       IB_NODE_DESCRIPTION_SIZE);
		desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
	}
	idx = cr_fabric_add_node(f, type, guid, num_ports, desc);
	if (idx == CR_NO_NODE)
		return -1;
	n = &f->nodes[idx];
	n->sysimg_guid = cl_ntoh64(node->node_info.sys_guid);
	if (!n->sysimg_guid)
		n->sysimg_guid = guid;
	if (type == CR_NODE_SWITCH) {
		if (!node->sw) {
			cr_err("switch 0x%016" PRIx64 " ('%s') has no switch"
			       " data in OpenSM",
			       guid, desc);
			return -1;
		}
		n->lft_cap = cl_ntoh16(node->sw->switch_info.lin_cap);
	}
	return 0;
}

/* A node's ports as OpenSM discovered them: GUIDs, widths, speeds. */
static void add_ports(struct cr_node *n, osm_node_t *node)
{
	const osm_physp_t *cap = n->type == CR_NODE_SWITCH
					 ? osm_node_get_physp_ptr(node, 0)
					 : NULL;

	for (unsigned p = n->type == CR_NODE_SWITCH ? 0 : 1; p <= n->num_ports;
	     p++) {
		const osm_physp_t *physp = osm_node_get_physp_ptr(node, p);
		struct cr_port *cp = &n->ports[p];

		/* Undiscovered ports have no GUID: do not invent one. */
		if (!physp || !osm_physp_is_valid(physp)) {
			cp->guid = 0;
			continue;
		}
		cp->guid = cl_ntoh64(osm_physp_get_port_guid(physp));
		if (p == 0)
			continue;
		cp->width = width_lanes(physp->port_info.link_width_active);
		cp->speed = port_speed(physp, cap ? cap : physp);
	}
}

/*
 * Ports and links, by node range on croute_threads threads: reading
 * OpenSM's ports is a cache miss or two each (166,000 ports on 27,648
 * hosts). Each node writes only its own ports, its end of each link:
 * both ends agree (the health test looks at both), and
 * cr_fabric_finalize() checks that they do.
 */
struct link_job {
	struct cr_fabric *f;
	const struct node_ref *nodes;
	uint32_t count;
	unsigned *vls; /* per part: least data VLs of switch links, 0 none */
	unsigned *unhealthy; /* per part: links left out */
	uint32_t *bad; /* per part: a node with a port to an unknown node */
	uint8_t *bad_port;
};

static int link_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct link_job *j = arg;
	struct cr_fabric *f = j->f;
	unsigned vls = 0;

	(void)nparts;
	for (uint32_t i = begin; i < end; i++) {
		struct cr_node *n = &f->nodes[i];

		add_ports(n, j->nodes[i].node);
		for (unsigned p = 1; p <= n->num_ports; p++) {
			osm_physp_t *physp =
				osm_node_get_physp_ptr(j->nodes[i].node, p);
			osm_physp_t *rem;
			uint32_t k;
			unsigned rp;

			if (!physp || !osm_physp_is_valid(physp))
				continue;
			rem = osm_physp_get_remote(physp);
			if (!rem)
				continue;
			k = node_index(j->nodes, j->count, rem->p_node);
			rp = osm_physp_get_port_num(rem);
			if (k == CR_NO_NODE) {
				if (j->bad[part] == CR_NO_NODE) {
					j->bad[part] = i;
					j->bad_port[part] = (uint8_t)p;
				}
				continue;
			}
			if (!osm_physp_is_healthy(physp) ||
			    !osm_physp_is_healthy(rem)) {
				char la[CR_NODE_LABEL_MAX];
				char lb[CR_NODE_LABEL_MAX];

				/* Reported once, from the lower end. */
				if (k < i || (k == i && rp <= p))
					continue;
				cr_verbose(
					"link %s port %u - %s port %u is"
					" unhealthy, not routed",
					cr_node_label(f, i, p, la, sizeof(la)),
					p,
					cr_node_label(f, k, rp, lb, sizeof(lb)),
					rp);
				j->unhealthy[part]++;
				continue;
			}
			n->ports[p].remote = k;
			n->ports[p].remote_port = (uint8_t)rp;
			if (n->type == CR_NODE_SWITCH &&
			    f->nodes[k].type == CR_NODE_SWITCH) {
				unsigned a = port_data_vls(physp);
				unsigned b = port_data_vls(rem);

				if (a && (!vls || a < vls))
					vls = a;
				if (b && (!vls || b < vls))
					vls = b;
			}
		}
	}
	j->vls[part] = vls;
	return 0;
}

static int add_links(struct cr_import *imp, const struct node_ref *nodes,
		     uint32_t count)
{
	unsigned nparts = cr_parallel_parts(count, 1024);
	unsigned vls[CR_MAX_THREADS] = {0}, unhealthy[CR_MAX_THREADS] = {0};
	uint32_t bad[CR_MAX_THREADS];
	uint8_t bad_port[CR_MAX_THREADS] = {0};
	struct link_job j = {
		.f = imp->f,
		.nodes = nodes,
		.count = count,
		.vls = vls,
		.unhealthy = unhealthy,
		.bad = bad,
		.bad_port = bad_port,
	};

	for (unsigned i = 0; i < CR_MAX_THREADS; i++)
		bad[i] = CR_NO_NODE;
	cr_parallel(count, nparts, link_range, &j);
	imp->max_vls = 0;
	for (unsigned i = 0; i < nparts; i++) {
		if (bad[i] != CR_NO_NODE) {
			char la[CR_NODE_LABEL_MAX];

			cr_err("%s port %u leads to a node OpenSM does not"
			       " list",
			       cr_node_label(imp->f, bad[i], bad_port[i], la,
					     sizeof(la)),
			       bad_port[i]);
			return -1;
		}
		imp->unhealthy += unhealthy[i];
		if (vls[i] && (!imp->max_vls || vls[i] < imp->max_vls))
			imp->max_vls = (uint8_t)vls[i];
	}
	return 0;
}

/*
 * LIDs as OpenSM assigned them: one osm_port_t per end port, by range of
 * ports on the threads once the map is walked (a port's node is a binary
 * search, its LID a read of OpenSM's port: cache misses both).
 */
struct lid_job {
	struct cr_fabric *f;
	osm_port_t **ports;
	const struct node_ref *nodes;
	uint32_t count;
	osm_port_t **bad; /* per part: a port of no known node */
};

static int lid_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	struct lid_job *j = arg;
	struct cr_fabric *f = j->f;

	(void)nparts;
	for (uint32_t k = begin; k < end; k++) {
		osm_port_t *port = j->ports[k];
		uint16_t lid;
		uint32_t i;
		unsigned p;

		if (!port->p_physp)
			continue;
		lid = cl_ntoh16(osm_port_get_base_lid(port));
		if (!lid)
			continue;
		i = node_index(j->nodes, j->count, port->p_node);
		p = osm_physp_get_port_num(port->p_physp);
		if (i == CR_NO_NODE || p > f->nodes[i].num_ports) {
			if (!j->bad[part])
				j->bad[part] = port;
			continue;
		}
		if ((f->nodes[i].type == CR_NODE_SWITCH) != (p == 0)) {
			char la[CR_NODE_LABEL_MAX];

			cr_verbose("LID %u on %s port %u ignored: only"
				   " switch port 0 and CA ports carry LIDs",
				   lid, cr_node_label(f, i, 0, la, sizeof(la)),
				   p);
			continue;
		}
		f->nodes[i].ports[p].lid = lid;
		f->nodes[i].ports[p].lmc = osm_port_get_lmc(port);
	}
	return 0;
}

static int add_lids(struct cr_fabric *f, osm_subn_t *subn,
		    const struct node_ref *nodes, uint32_t count)
{
	cl_qmap_t *tbl = &subn->port_guid_tbl;
	uint32_t n = 0, total = cl_qmap_count(tbl);
	osm_port_t *bad[CR_MAX_THREADS] = {0};
	struct lid_job j = {.f = f, .nodes = nodes, .count = count, .bad = bad};
	unsigned nparts;

	j.ports = malloc((total + 1) * sizeof(*j.ports));
	if (!j.ports) {
		cr_err("out of memory importing the LIDs");
		return -1;
	}
	for (cl_map_item_t *it = cl_qmap_head(tbl);
	     it != cl_qmap_end(tbl) && n < total; it = cl_qmap_next(it))
		j.ports[n++] = (osm_port_t *)it;
	nparts = cr_parallel_parts(n, 1024);
	cr_parallel(n, nparts, lid_range, &j);
	free(j.ports);
	for (unsigned i = 0; i < nparts; i++) {
		if (!bad[i])
			continue;
		cr_err("port 0x%016" PRIx64
		       " (LID %u) belongs to no known node",
		       cl_ntoh64(osm_port_get_guid(bad[i])),
		       cl_ntoh16(osm_port_get_base_lid(bad[i])));
		return -1;
	}
	return 0;
}

int cr_import_subnet(osm_opensm_t *osm, struct cr_import *imp)
{
	osm_subn_t *subn = &osm->subn;
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	uint32_t count = cl_qmap_count(tbl), i = 0;
	struct node_ref *nodes;

	memset(imp, 0, sizeof(*imp));
	nodes = malloc((count ? count : 1) * sizeof(*nodes));
	imp->f = cr_fabric_new();
	if (!nodes || !imp->f)
		goto oom;
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		nodes[i].node = (osm_node_t *)it;
		nodes[i++].guid =
			cl_ntoh64(osm_node_get_node_guid((osm_node_t *)it));
	}
	qsort(nodes, count, sizeof(*nodes), node_ref_cmp);

	for (i = 0; i < count; i++)
		if (add_node(imp->f, nodes[i].node) < 0)
			goto fail;
	if (add_links(imp, nodes, count) < 0 ||
	    add_lids(imp->f, subn, nodes, count) < 0 ||
	    cr_fabric_finalize(imp->f) < 0)
		goto fail;

	imp->sw = calloc(imp->f->num_switches ? imp->f->num_switches : 1,
			 sizeof(*imp->sw));
	if (!imp->sw)
		goto oom;
	for (i = 0; i < imp->f->num_switches; i++)
		imp->sw[i] = nodes[imp->f->switches[i]].node->sw;
	free(nodes);
	return 0;
oom:
	cr_err("out of memory importing the subnet (%u nodes)", count);
fail:
	cr_err("cannot import OpenSM's subnet");
	free(nodes);
	cr_import_release(imp);
	return -1;
}

void cr_import_release(struct cr_import *imp)
{
	cr_fabric_free(imp->f);
	free(imp->sw);
	imp->f = NULL;
	imp->sw = NULL;
}
