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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "err.h"

#include <iba/ib_types.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>

#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

/* OpenSM's nodes in the model's order (by GUID), the GUIDs to sort by. */
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

/*
 * OpenSM node -> index in the sorted array, by the node's address: a
 * port's peer is then found without reading the peer node (its GUID is a
 * cache miss away) or searching (a branch mispredicted per step), most
 * of the time the links took on 27,648 hosts. Open addressing, at most
 * half full.
 */
struct node_map {
	struct node_slot {
		const osm_node_t *node;
		uint32_t idx;
	} * slot;
	uint32_t mask;
};

static uint32_t node_hash(const osm_node_t *node, uint32_t mask)
{
	uint64_t k = (uint64_t)(uintptr_t)node >> 4;

	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static int node_map_init(struct node_map *m, const struct node_ref *nodes,
			 uint32_t count)
{
	uint32_t size = 64;

	while (size < 2 * count)
		size *= 2;
	m->mask = size - 1;
	m->slot = calloc(size, sizeof(*m->slot));
	if (!m->slot) {
		pl_err("CR11", "out of memory importing the subnet");
		return -1;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint32_t h = node_hash(nodes[i].node, m->mask);

		while (m->slot[h].node)
			h = (h + 1) & m->mask;
		m->slot[h].node = nodes[i].node;
		m->slot[h].idx = i;
	}
	return 0;
}

/* Index of node, or CR_NO_NODE when OpenSM's map does not list it. */
static uint32_t node_map_find(const struct node_map *m, const osm_node_t *node)
{
	uint32_t h = node_hash(node, m->mask);

	for (; m->slot[h].node; h = (h + 1) & m->mask)
		if (m->slot[h].node == node)
			return m->slot[h].idx;
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
#ifdef IB_LINK_SPEED_EXT_ACTIVE_100
		case IB_LINK_SPEED_EXT_ACTIVE_100:
#else
		case 8: /* 100 Gb/s a lane, newer than these headers */
#endif
			return CR_SPEED_NDR;
#ifdef IB_LINK_SPEED_EXT_ACTIVE_200
		/* 200 Gb/s a lane, where the OpenSM built against knows it */
		case IB_LINK_SPEED_EXT_ACTIVE_200:
			return CR_SPEED_XDR;
#endif
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

/*
 * print_desc is the name OpenSM's node_name_map_name gives the node (else
 * its cleaned description): croute's logs and dumps then name nodes as
 * OpenSM's own do.
 */
static void node_desc(const osm_node_t *node, char *desc)
{
	if (node->print_desc) {
		snprintf(desc, IB_NODE_DESCRIPTION_SIZE + 1, "%s",
			 node->print_desc);
	} else {
		memcpy(desc, node->node_desc.description,
		       IB_NODE_DESCRIPTION_SIZE);
		desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
	}
}

/* What a node says of itself besides its ports; -1 logged. */
static int node_fields(struct cr_node *n, const osm_node_t *node,
		       const char *desc)
{
	n->sysimg_guid = cl_ntoh64(node->node_info.sys_guid);
	if (!n->sysimg_guid)
		n->sysimg_guid = n->guid;
	n->lft_cap = 0;
	if (n->type != CR_NODE_SWITCH)
		return 0;
	if (!node->sw) {
		pl_err("CR12",
		       "switch 0x%016" PRIx64 " ('%s') has no switch data in"
		       " OpenSM",
		       n->guid, desc);
		return -1;
	}
	n->lft_cap = cl_ntoh16(node->sw->switch_info.lin_cap);
	return 0;
}

static int add_node(struct cr_fabric *f, osm_node_t *node)
{
	enum cr_node_type type = node_type(node);
	unsigned num_ports = osm_node_get_num_physp(node) - 1;
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];
	uint32_t idx;

	if (!type) {
		pl_err("CR13", "node 0x%016" PRIx64 " has unknown type %u",
		       guid, osm_node_get_type(node));
		return -1;
	}
	node_desc(node, desc);
	idx = cr_fabric_add_node(f, type, guid, num_ports, desc);
	if (idx == CR_NO_NODE)
		return -1;
	return node_fields(&f->nodes[idx], node, desc);
}

/*
 * A kept node (the same OpenSM node as at the previous import) read
 * again: what may have changed since besides its ports (description,
 * system GUID, LFT capacity). 1 when OpenSM's node is not the kept one
 * after all (another type or port count), -1 on an error.
 */
static int refresh_node(struct cr_node *n, const osm_node_t *node)
{
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];

	if (n->type != node_type(node) ||
	    n->num_ports != osm_node_get_num_physp(node) - 1u ||
	    n->guid != cl_ntoh64(osm_node_get_node_guid(node)))
		return 1;
	node_desc(node, desc);
	if (strcmp(n->desc, desc)) {
		char *d = strdup(desc);

		if (!d) {
			pl_err("CR14", "out of memory importing the subnet");
			return -1;
		}
		free(n->desc);
		n->desc = d;
	}
	return node_fields(n, node, desc);
}

/*
 * Ports and links in two passes by node range on croute_threads threads
 * (166,000 ports on 27,648 hosts, a cache miss or more each in OpenSM's
 * memory). The first reads each node's own ports: GUIDs, widths, speeds
 * into the model, and what the second needs of them into seen[]. The
 * second makes the links. A port's peer there is found by the peer's
 * address: when it is where the kept fabric's link went (a kept import),
 * nothing of OpenSM's is read, the peer's flags come from seen[]; else
 * the peer is read. Each node writes only its own ports, its end of each
 * link: both ends agree (the health test looks at both), and
 * cr_fabric_finalize() checks that they do.
 */
struct port_seen {
	osm_physp_t *rem; /* the peer OpenSM links it to, or NULL */
	bool valid; /* discovered: it has a GUID */
	bool healthy;
	uint8_t vls; /* port_data_vls() */
};

struct link_job {
	struct cr_fabric *f;
	const struct node_ref *nodes;
	const struct node_map *map;
	struct port_seen *seen;
	const uint32_t *first; /* per node: its port 0's place in seen */
	bool refresh; /* kept nodes: refresh_node() first */
	int *worst; /* per part: refresh_node()'s worst answer */
	unsigned *vls; /* per part: least data VLs of switch links, 0 none */
	unsigned *unhealthy; /* per part: links left out */
	uint32_t *bad; /* per part: a node with a port to an unknown node */
	uint8_t *bad_port;
};

/*
 * OpenSM's ports are 1,672-byte objects (Debian 12's OpenSM) in tables
 * inside nodes scattered over its heap; read_ports() reads the first 170
 * bytes of each, and refresh_node() the node's first 192. Waiting for
 * each in turn was most of a kept import at 27,648 hosts: the cursor
 * asks for them AHEAD_PORTS ports before they are read (a prefetch never
 * faults, so a kept node whose table shrank costs nothing), which keeps
 * several misses in flight on each core.
 */
#define AHEAD_PORTS 6
#define LINE 64 /* bytes in a cache line */

struct ahead {
	const struct cr_fabric *f;
	const struct node_ref *nodes;
	uint32_t i, end;
	unsigned p;
};

static void ahead_lines(const void *at, size_t len)
{
	for (size_t o = 0; o < len; o += LINE)
		__builtin_prefetch((const char *)at + o);
	__builtin_prefetch((const char *)at + len - 1);
}

static void ahead_step(struct ahead *a)
{
	for (; a->i < a->end; a->i++, a->p = 0) {
		const osm_node_t *node = a->nodes[a->i].node;

		if (a->p > a->f->nodes[a->i].num_ports)
			continue;
		if (a->p == 0)
			ahead_lines(node, offsetof(osm_node_t, physp_table));
		ahead_lines(&node->physp_table[a->p],
			    offsetof(osm_physp_t, healthy) + 1);
		a->p++;
		return;
	}
}

/*
 * A node's ports as OpenSM discovered them. Their links are left as they
 * are: a kept fabric's are the second pass's hints.
 */
static void read_ports(struct cr_node *n, osm_node_t *node,
		       struct port_seen *seen, struct ahead *a)
{
	const osm_physp_t *cap = n->type == CR_NODE_SWITCH
					 ? osm_node_get_physp_ptr(node, 0)
					 : NULL;

	for (unsigned p = 0; p <= n->num_ports; p++) {
		osm_physp_t *physp = osm_node_get_physp_ptr(node, p);
		struct cr_port *cp = &n->ports[p];

		ahead_step(a);
		cp->guid = n->type == CR_NODE_SWITCH ? n->guid : n->guid + p;
		cp->lid = 0;
		cp->lmc = 0;
		cp->width = 0;
		cp->speed = CR_SPEED_UNKNOWN;
		seen[p] = (struct port_seen){0};
		if (p == 0 && n->type != CR_NODE_SWITCH)
			continue;
		/* Undiscovered ports have no GUID: do not invent one. */
		if (!physp || !osm_physp_is_valid(physp)) {
			cp->guid = 0;
			continue;
		}
		cp->guid = cl_ntoh64(osm_physp_get_port_guid(physp));
		seen[p].valid = true;
		if (p == 0)
			continue;
		cp->width = width_lanes(physp->port_info.link_width_active);
		cp->speed = port_speed(physp, cap ? cap : physp);
		seen[p].rem = osm_physp_get_remote(physp);
		seen[p].healthy = osm_physp_is_healthy(physp);
		seen[p].vls = (uint8_t)port_data_vls(physp);
	}
}

static int read_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct link_job *j = arg;
	struct ahead a = {j->f, j->nodes, begin, end, 0};

	(void)nparts;
	for (unsigned k = 0; k < AHEAD_PORTS; k++)
		ahead_step(&a);
	for (uint32_t i = begin; i < end; i++) {
		struct cr_node *n = &j->f->nodes[i];

		if (j->refresh) {
			int r = refresh_node(n, j->nodes[i].node);

			if (r < 0 || (r > 0 && !j->worst[part]))
				j->worst[part] = r;
			if (r)
				return 0;
		}
		read_ports(n, j->nodes[i].node, j->seen + j->first[i], &a);
	}
	return 0;
}

static int link_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct link_job *j = arg;
	struct cr_fabric *f = j->f;
	unsigned vls = 0;

	(void)nparts;
	for (uint32_t i = begin; i < end; i++) {
		struct cr_node *n = &f->nodes[i];
		const struct port_seen *seen = j->seen + j->first[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			struct cr_port *cp = &n->ports[p];
			uint32_t k = cp->remote;
			unsigned rp = cp->remote_port;
			osm_physp_t *rem = seen[p].rem;
			struct port_seen far;

			cp->remote = CR_NO_NODE;
			cp->remote_port = 0;
			if (!seen[p].valid || !rem)
				continue;
			if (k != CR_NO_NODE &&
			    rem == &j->nodes[k].node->physp_table[rp]) {
				far = j->seen[j->first[k] + rp];
			} else {
				/* A peer not (yet) discovered: no link. */
				if (!osm_physp_is_valid(rem))
					continue;
				k = node_map_find(j->map, rem->p_node);
				rp = osm_physp_get_port_num(rem);
				far.valid = true;
				far.healthy = osm_physp_is_healthy(rem);
				far.vls = (uint8_t)port_data_vls(rem);
			}
			if (!far.valid)
				continue;
			if (k == CR_NO_NODE) {
				if (j->bad[part] == CR_NO_NODE) {
					j->bad[part] = i;
					j->bad_port[part] = (uint8_t)p;
				}
				continue;
			}
			if (!seen[p].healthy || !far.healthy) {
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
			cp->remote = k;
			cp->remote_port = (uint8_t)rp;
			if (n->type == CR_NODE_SWITCH &&
			    f->nodes[k].type == CR_NODE_SWITCH) {
				unsigned a = seen[p].vls, b = far.vls;

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

/*
 * refresh: the nodes are the kept fabric's (1 when one is not after
 * all: the caller imports afresh). -1 logged.
 */
static int add_links(struct cr_import *imp, const struct node_ref *nodes,
		     uint32_t count, const struct node_map *map, bool refresh)
{
	unsigned nparts = cr_parallel_chunks(count, 1024);
	unsigned vls[CR_MAX_THREADS] = {0}, unhealthy[CR_MAX_THREADS] = {0};
	uint32_t bad[CR_MAX_THREADS];
	uint8_t bad_port[CR_MAX_THREADS] = {0};
	int worst[CR_MAX_THREADS] = {0}, ret = 0;
	uint32_t *first = malloc((count + 1) * sizeof(*first));
	struct link_job j = {
		.f = imp->f,
		.nodes = nodes,
		.map = map,
		.first = first,
		.refresh = refresh,
		.worst = worst,
		.vls = vls,
		.unhealthy = unhealthy,
		.bad = bad,
		.bad_port = bad_port,
	};

	if (!first)
		goto oom;
	first[0] = 0;
	for (uint32_t i = 0; i < count; i++)
		first[i + 1] = first[i] + imp->f->nodes[i].num_ports + 1u;
	j.seen = malloc(((size_t)first[count] + 1) * sizeof(*j.seen));
	if (!j.seen)
		goto oom;
	for (unsigned i = 0; i < CR_MAX_THREADS; i++)
		bad[i] = CR_NO_NODE;
	cr_parallel(count, nparts, read_range, &j);
	for (unsigned i = 0; i < nparts; i++)
		if (worst[i] < 0 || (worst[i] > 0 && !ret))
			ret = worst[i];
	if (ret)
		goto out;
	cr_parallel(count, nparts, link_range, &j);
	imp->max_vls = 0;
	for (unsigned i = 0; i < nparts; i++) {
		if (bad[i] != CR_NO_NODE) {
			char la[CR_NODE_LABEL_MAX];

			pl_err("CR15",
			       "%s port %u leads to a node OpenSM does not"
			       " list",
			       cr_node_label(imp->f, bad[i], bad_port[i], la,
					     sizeof(la)),
			       bad_port[i]);
			ret = -1;
			goto out;
		}
		imp->unhealthy += unhealthy[i];
		if (vls[i] && (!imp->max_vls || vls[i] < imp->max_vls))
			imp->max_vls = (uint8_t)vls[i];
	}
out:
	free(first);
	free(j.seen);
	return ret;
oom:
	pl_err("CR16", "out of memory importing the links");
	ret = -1;
	goto out;
}

/*
 * LIDs as OpenSM assigned them: one osm_port_t per end port, by range of
 * ports on the threads once the map is walked (a port's node is a binary
 * search, its LID a read of OpenSM's port: cache misses both).
 */
struct lid_job {
	struct cr_fabric *f;
	osm_port_t **ports;
	const struct node_map *map;
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

		/* Two misses in a chain per port: asked for ahead, in turn. */
		if (k + 2 * AHEAD_PORTS < end)
			ahead_lines(&j->ports[k + 2 * AHEAD_PORTS]->p_node,
				    offsetof(osm_port_t, p_physp) +
					    sizeof(osm_physp_t *) -
					    offsetof(osm_port_t, p_node));
		if (k + AHEAD_PORTS < end && j->ports[k + AHEAD_PORTS]->p_physp)
			ahead_lines(j->ports[k + AHEAD_PORTS]->p_physp,
				    offsetof(osm_physp_t, port_num) + 1);

		if (!port->p_physp)
			continue;
		lid = cl_ntoh16(osm_port_get_base_lid(port));
		if (!lid)
			continue;
		i = node_map_find(j->map, port->p_node);
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

static int add_lids(struct cr_fabric *f, osm_port_t **ports, uint32_t n,
		    const struct node_map *map)
{
	osm_port_t *bad[CR_MAX_THREADS] = {0};
	struct lid_job j = {.f = f, .ports = ports, .map = map, .bad = bad};
	unsigned nparts = cr_parallel_chunks(n, 1024);

	cr_parallel(n, nparts, lid_range, &j);
	for (unsigned i = 0; i < nparts; i++) {
		if (!bad[i])
			continue;
		pl_err("CR17",
		       "port 0x%016" PRIx64
		       " (LID %u) belongs to no known node",
		       cl_ntoh64(osm_port_get_guid(bad[i])),
		       cl_ntoh16(osm_port_get_base_lid(bad[i])));
		return -1;
	}
	return 0;
}

/*
 * OpenSM's nodes in its map's order (by GUID in network byte order), and
 * whether they are the kept import's: the same node objects with the
 * same GUIDs, in the same order (the map keys the nodes by GUID, so the
 * walk reads no node's data); and its end ports. Each walk is a chain of
 * cache misses (30,000 nodes at 27,648 hosts), so the two maps are walked
 * side by side.
 */
struct walk_job {
	cl_qmap_t *node_tbl, *port_tbl;
	const struct cr_import_keep *keep; /* NULL: nothing to compare */
	osm_node_t **walk;
	uint32_t count;
	bool same;
	osm_port_t **ports;
	uint32_t nports;
	cl_map_item_t **tmp[2]; /* walk_map()'s, per map */
};

/*
 * A map's n items in order into out. The list is one chain of cache
 * misses, so it is walked as four chains at once that one core overlaps:
 * from the first item, the tree's root, and the root's two children (the
 * tree is balanced, so these split the list in roughly equal parts), each
 * up to where the next starts; tmp holds three chains' worth (3 n). Returns
 * how many were found (n unless OpenSM's count and list disagree).
 */
static uint32_t walk_map(const cl_qmap_t *tbl, cl_map_item_t **out,
			 cl_map_item_t **tmp, uint32_t n)
{
	const cl_map_item_t *end = cl_qmap_end(tbl);
	cl_map_item_t *root = tbl->root.p_left, *cand[4], *cur[4], *start[4];
	cl_map_item_t **dst[4];
	uint32_t len[4] = {0}, pos = 0;
	unsigned nc = 0, active;

	cand[0] = cl_qmap_head(tbl);
	cand[1] = cand[2] = cand[3] = (cl_map_item_t *)end;
	if (n >= 64 && root != end) {
		cand[1] = root->p_left;
		cand[2] = root;
		cand[3] = root->p_right;
	}
	/* In list order; a child that is the first item or absent goes. */
	for (unsigned i = 0; i < 4; i++)
		if (cand[i] != end && (!nc || cand[i] != cur[nc - 1]))
			cur[nc++] = cand[i];
	for (unsigned i = 0; i < nc; i++) {
		start[i] = cur[i];
		dst[i] = i ? tmp + (size_t)(i - 1) * n : out;
	}
	do {
		active = 0;
		for (unsigned i = 0; i < nc; i++) {
			const cl_map_item_t *stop =
				i + 1 < nc ? start[i + 1] : end;

			if (cur[i] == stop)
				continue;
			if (len[i] == n)
				return 0;
			dst[i][len[i]++] = cur[i];
			cur[i] = cl_qmap_next(cur[i]);
			active++;
		}
	} while (active);
	for (unsigned i = 0; i < nc; i++) {
		if (pos + len[i] > n)
			return 0;
		if (i)
			memcpy(out + pos, dst[i], len[i] * sizeof(*out));
		pos += len[i];
	}
	return pos;
}

static void walk_nodes(struct walk_job *j)
{
	const struct cr_import_keep *keep = j->keep;
	bool same = keep && keep->count == j->count;

	j->count = walk_map(j->node_tbl, (cl_map_item_t **)j->walk, j->tmp[0],
			    j->count);
	for (uint32_t i = 0; same && i < j->count; i++)
		if (keep->walk[i] != j->walk[i] ||
		    keep->guid[i] != cl_qmap_key(&j->walk[i]->map_item))
			same = false;
	j->same = same;
}

static int walk_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct walk_job *j = arg;

	(void)part;
	(void)nparts;
	for (uint32_t w = begin; w < end; w++) {
		if (w == 0)
			walk_nodes(j);
		else
			j->nports = walk_map(j->port_tbl,
					     (cl_map_item_t **)j->ports,
					     j->tmp[1], j->nports);
	}
	return 0;
}

/*
 * Ports, links and LIDs of the nodes, then the model's checks. refresh:
 * the nodes are the kept fabric's, read again (1 when one is not).
 */
static int import_ports(const struct walk_job *w, struct cr_import *imp,
			const struct node_ref *nodes, bool refresh, double *t)
{
	struct node_map map;
	int ret = -1;

	if (node_map_init(&map, nodes, w->count))
		return -1;
	t[1] = cr_now();
	ret = add_links(imp, nodes, w->count, &map, refresh);
	if (ret)
		goto out;
	ret = -1;
	t[2] = cr_now();
	if (add_lids(imp->f, w->ports, w->nports, &map) < 0)
		goto out;
	t[3] = cr_now();
	ret = cr_fabric_finalize(imp->f) < 0 ? -1 : 0;
out:
	free(map.slot);
	return ret;
}

static int import_new(const struct walk_job *w, struct cr_import *imp,
		      struct node_ref *nodes, double *t)
{
	osm_node_t **walk = w->walk;
	uint32_t count = w->count;

	for (uint32_t i = 0; i < count; i++) {
		nodes[i].node = walk[i];
		nodes[i].guid = cl_ntoh64(osm_node_get_node_guid(walk[i]));
	}
	qsort(nodes, count, sizeof(*nodes), node_ref_cmp);
	imp->f = cr_fabric_new();
	if (!imp->f) {
		pl_err("CR18", "out of memory importing the subnet (%u nodes)",
		       count);
		return -1;
	}
	for (uint32_t i = 0; i < count; i++)
		if (add_node(imp->f, nodes[i].node) < 0)
			return -1;
	return import_ports(w, imp, nodes, false, t);
}

void cr_import_keep_free(struct cr_import_keep *keep)
{
	free(keep->walk);
	free(keep->guid);
	free(keep->nodes);
	memset(keep, 0, sizeof(*keep));
}

int cr_import_subnet(osm_opensm_t *osm, struct cr_import *imp,
		     struct cr_import_keep *keep, struct cr_fabric *old)
{
	osm_subn_t *subn = &osm->subn;
	struct walk_job w = {
		.node_tbl = &subn->node_guid_tbl,
		.port_tbl = &subn->port_guid_tbl,
		.keep = keep && old && old == keep->f ? keep : NULL,
		.count = cl_qmap_count(&subn->node_guid_tbl),
		.nports = cl_qmap_count(&subn->port_guid_tbl),
	};
	struct node_ref *nodes = NULL;
	const struct node_ref *ref;
	uint64_t *guid = NULL;
	double start = cr_now(), t[5] = {0};
	int ret = 1;

	memset(imp, 0, sizeof(*imp));
	w.walk = malloc((w.count + 1) * sizeof(*w.walk));
	w.ports = malloc((w.nports + 1) * sizeof(*w.ports));
	w.tmp[0] = malloc((3 * (size_t)w.count + 1) * sizeof(*w.tmp[0]));
	w.tmp[1] = malloc((3 * (size_t)w.nports + 1) * sizeof(*w.tmp[1]));
	if (!w.walk || !w.ports || !w.tmp[0] || !w.tmp[1])
		goto oom;
	cr_parallel(2, cr_parallel_parts(2, 1), walk_range, &w);
	free(w.tmp[0]);
	free(w.tmp[1]);
	w.tmp[0] = w.tmp[1] = NULL;
	if (w.count != cl_qmap_count(w.node_tbl) ||
	    w.nports != cl_qmap_count(w.port_tbl)) {
		pl_err("CR19",
		       "OpenSM's node or port map does not hold as many items"
		       " as it counts");
		goto fail;
	}
	if (w.same) {
		imp->f = old;
		old = NULL;
		imp->kept = true;
		t[0] = cr_now();
		/* the same nodes: only what they say, ports, links, LIDs */
		ret = import_ports(&w, imp, keep->nodes, true, t);
		if (ret > 0) {
			cr_verbose("import: a node changed under its GUID:"
				   " imported afresh");
			cr_fabric_free(imp->f);
			imp->f = NULL;
			imp->kept = false;
		}
	}
	cr_fabric_free(old);
	old = NULL;
	if (keep && ret)
		cr_import_keep_free(keep);
	if (ret > 0) {
		nodes = malloc((w.count + 1) * sizeof(*nodes));
		if (!nodes)
			goto oom;
		t[0] = cr_now();
		ret = import_new(&w, imp, nodes, t);
	}
	if (ret)
		goto fail;
	if (keep && !imp->kept) {
		guid = malloc((w.count + 1) * sizeof(*guid));
		if (!guid)
			goto oom;
		for (uint32_t i = 0; i < w.count; i++)
			guid[i] = cl_qmap_key(&w.walk[i]->map_item);
		keep->walk = w.walk;
		keep->guid = guid;
		keep->nodes = nodes;
		keep->count = w.count;
		w.walk = NULL;
		nodes = NULL;
	}
	if (keep)
		keep->f = imp->f;
	imp->sw = calloc(imp->f->num_switches ? imp->f->num_switches : 1,
			 sizeof(*imp->sw));
	if (!imp->sw)
		goto oom;
	ref = keep ? keep->nodes : nodes;
	for (uint32_t i = 0; i < imp->f->num_switches; i++)
		imp->sw[i] = ref[imp->f->switches[i]].node->sw;
	t[4] = cr_now();
	cr_verbose("import: %s: walk %.1f ms, nodes %.1f, ports and links %.1f,"
		   " LIDs %.1f, checks %.1f",
		   imp->kept ? "the previous sweep's fabric read again"
			     : "a new fabric",
		   (t[0] - start) * 1e3, (t[1] - t[0]) * 1e3,
		   (t[2] - t[1]) * 1e3, (t[3] - t[2]) * 1e3,
		   (t[4] - t[3]) * 1e3);
	free(w.walk);
	free(w.ports);
	free(nodes);
	return 0;
oom:
	pl_err("CR1A", "out of memory importing the subnet (%u nodes)",
	       w.count);
fail:
	pl_err("CR1B", "cannot import OpenSM's subnet");
	cr_fabric_free(old);
	if (keep)
		cr_import_keep_free(keep);
	free(w.tmp[0]);
	free(w.tmp[1]);
	free(w.walk);
	free(w.ports);
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
