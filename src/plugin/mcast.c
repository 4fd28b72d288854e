// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast spanning trees for OpenSM (the engines' mcast_build_stree):
 * OpenSM asks once per MLID, during the sweep after the routing and again
 * when members join or leave. The tree comes from the core
 * (src/core/route/mcast.c) over the fabric of croute's latest run, then
 * goes into each switch's multicast table.
 *
 * OpenSM's own builder reads a hop count per (switch, switch LID, port),
 * which an engine must install: 8 million rows and half a gigabyte on
 * 27,648 hosts, most of a run's install time. With croute's trees those
 * rows are only written when OpenSM will dump them (log flag 0x40), or
 * when croute_mcast_trees FALSE hands the trees back to OpenSM.
 *
 * The fabric is that of the latest run, and OpenSM calls this only while
 * croute's engine is the one in use; still, every tree link is checked
 * against OpenSM's subnet before a bit is set, and a tree that does not
 * match is built again over a fresh import of the subnet.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "err.h"

#include <iba/ib_types.h>
#include <opensm/osm_mcast_mgr.h>
#include <opensm/osm_mcast_tbl.h>
#include <opensm/osm_multicast.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>

#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/route/mcast.h>

void cr_mcast_reset(struct cr_plugin *pl)
{
	cr_mcast_free(pl->mcast);
	pl->mcast = NULL;
	cr_fabric_free(pl->mcast_fabric);
	pl->mcast_fabric = NULL;
}

static osm_switch_t *find_switch(osm_subn_t *subn, const struct cr_fabric *f,
				 uint32_t sw)
{
	return osm_get_switch_by_guid(
		subn, cl_hton64(f->nodes[f->switches[sw]].guid));
}

/* The context over f: a switch forwards multicast if OpenSM says it can. */
static struct cr_mcast_ctx *ctx_new(osm_subn_t *subn, const struct cr_fabric *f)
{
	bool *capable = malloc((f->num_switches + 1) * sizeof(*capable));
	struct cr_mcast_ctx *c;

	if (!capable) {
		pl_err("CR21", "out of memory for the multicast trees");
		return NULL;
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		osm_switch_t *sw = find_switch(subn, f, s);

		capable[s] = sw && osm_switch_supports_mcast(sw);
	}
	c = cr_mcast_new(f, capable);
	free(capable);
	return c;
}

/* The group's end ports in f; *unknown counts those f does not hold. */
static struct cr_mcast_port *members(const struct cr_fabric *f,
				     osm_mgrp_box_t *mbox, uint32_t *n,
				     uint32_t *unknown)
{
	struct cr_mcast_port *m = NULL;
	cl_qlist_t list;
	cl_qmap_t map;
	uint32_t k = 0;

	*n = *unknown = 0;
	if (osm_mcast_make_port_list_and_map(&list, &map, mbox)) {
		osm_mcast_drop_port_list(&list);
		return NULL;
	}
	m = malloc((cl_qlist_count(&list) + 1) * sizeof(*m));
	if (!m) {
		osm_mcast_drop_port_list(&list);
		return NULL;
	}
	for (cl_list_item_t *it = cl_qlist_head(&list);
	     it != cl_qlist_end(&list); it = cl_qlist_next(it)) {
		osm_port_t *port = ((osm_mcast_work_obj_t *)it)->p_port;
		uint64_t guid = cl_ntoh64(osm_port_get_guid(port));
		uint16_t lid = cl_ntoh16(osm_port_get_base_lid(port));
		uint32_t node = CR_NO_NODE;
		uint8_t pn = 0;

		/* By LID, then by GUID when the LID moved since the run. */
		if (lid && lid <= f->max_lid &&
		    f->lid_node[lid] != CR_NO_NODE &&
		    f->nodes[f->lid_node[lid]].ports[f->lid_port[lid]].guid ==
			    guid) {
			node = f->lid_node[lid];
			pn = f->lid_port[lid];
		} else {
			node = cr_fabric_find_port_guid(f, guid, &pn);
		}
		if (node == CR_NO_NODE) {
			(*unknown)++;
			continue;
		}
		m[k++] = (struct cr_mcast_port){node, pn};
	}
	osm_mcast_drop_port_list(&list);
	*n = k;
	return m;
}

/* Each tree link as OpenSM sees it. */
static bool tree_matches(osm_subn_t *subn, const struct cr_fabric *f,
			 const struct cr_mcast_tree *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct cr_node *a = &f->nodes[f->switches[t->e[i].sw]];
		osm_switch_t *sw = find_switch(subn, f, t->e[i].sw);
		const struct cr_port *cp = &a->ports[t->e[i].port];
		osm_physp_t *physp, *rem;

		if (!sw || t->e[i].port >= sw->num_ports)
			return false;
		if (!t->e[i].port)
			continue;
		physp = osm_node_get_physp_ptr(sw->p_node, t->e[i].port);
		if (!physp || !osm_physp_is_valid(physp))
			return false;
		rem = osm_physp_get_remote(physp);
		if (!rem || cp->remote == CR_NO_NODE ||
		    osm_physp_get_port_num(rem) != cp->remote_port ||
		    cl_ntoh64(osm_node_get_node_guid(rem->p_node)) !=
			    f->nodes[cp->remote].guid)
			return false;
	}
	return true;
}

/*
 * The tree over the current context: 0, 1 when it does not match OpenSM's
 * subnet, -1 on failure (logged). *unknown: members f does not hold.
 */
static int build(struct cr_plugin *pl, osm_mgrp_box_t *mbox,
		 const struct cr_fabric *f, struct cr_mcast_tree *t,
		 uint32_t *unknown)
{
	osm_subn_t *subn = &pl->osm->subn;
	uint16_t mlid = mbox->mlid;
	struct cr_mcast_port *m;
	uint32_t n;
	int ret;

	if (!pl->mcast && !(pl->mcast = ctx_new(subn, f)))
		return -1;
	m = members(f, mbox, &n, unknown);
	if (!m) {
		pl_err("CR22",
		       "out of memory listing the members of MLID 0x%04x",
		       mlid);
		return -1;
	}
	/* The MLID spreads groups over equally good roots and parents. */
	ret = cr_mcast_tree_build(pl->mcast, m, n, mlid, t);
	free(m);
	if (ret)
		return -1;
	return tree_matches(subn, f, t) ? 0 : 1;
}

ib_api_status_t cr_mcast_stree(struct cr_plugin *pl, osm_mgrp_box_t *mbox)
{
	osm_subn_t *subn = &pl->osm->subn;
	uint16_t mlid = mbox->mlid;
	struct cr_mcast_tree t = {0};
	const struct cr_fabric *f =
		pl->mcast_fabric ? pl->mcast_fabric : pl->fabric;
	uint32_t unknown = 0;
	double t0 = cr_now();
	char la[CR_NODE_LABEL_MAX];
	int ret;

	ret = f ? build(pl, mbox, f, &t, &unknown) : 1;
	if ((ret > 0 || unknown) && !pl->mcast_fabric) {
		/* OpenSM's subnet moved on since the run: import it again. */
		struct cr_import imp;

		cr_mcast_tree_release(&t);
		cr_mcast_reset(pl);
		cr_info("MLID 0x%04x: the subnet changed since croute's"
			" latest run; multicast trees from a fresh import",
			mlid);
		if (cr_import_subnet(pl->osm, &imp, NULL, NULL) < 0)
			return IB_ERROR;
		free(imp.sw);
		pl->mcast_fabric = imp.f;
		f = imp.f;
		unknown = 0;
		ret = build(pl, mbox, f, &t, &unknown);
	}
	if (ret > 0) {
		pl_err("CR23",
		       "MLID 0x%04x: the tree does not match OpenSM's subnet"
		       " even after a fresh import",
		       mlid);
		ret = -1;
	}
	if (ret < 0) {
		cr_mcast_tree_release(&t);
		return IB_ERROR;
	}
	if (unknown)
		pl_err("CR24",
		       "MLID 0x%04x: %u member ports are not in the subnet",
		       mlid, unknown);
	if (t.unreached)
		pl_err("CR25",
		       "MLID 0x%04x: %u member ports cannot be reached over"
		       " switches that forward multicast",
		       mlid, t.unreached);
	for (uint32_t i = 0; i < t.n; i++) {
		osm_switch_t *sw = find_switch(subn, f, t.e[i].sw);

		/* OpenSM sized every table for its highest MLID already. */
		if (!sw->mcast_tbl.p_mask_tbl || mlid < IB_LID_MCAST_START_HO ||
		    mlid > sw->mcast_tbl.max_mlid_ho) {
			if (!i || t.e[i - 1].sw != t.e[i].sw)
				pl_err("CR26",
				       "MLID 0x%04x: switch 0x%016" PRIx64
				       " has no multicast table that far",
				       mlid,
				       cl_ntoh64(osm_node_get_node_guid(
					       sw->p_node)));
			continue;
		}
		osm_mcast_tbl_set(&sw->mcast_tbl, mlid, t.e[i].port);
	}
	if (t.root != CR_NO_NODE && t.n)
		cr_verbose("MLID 0x%04x: %u member ports, a tree of %u ports"
			   " from %s, depth %u, in %.2f ms",
			   mlid, t.members, t.n,
			   cr_node_label(f, f->switches[t.root], 0, la,
					 sizeof(la)),
			   t.depth, (cr_now() - t0) * 1e3);
	cr_mcast_tree_release(&t);
	return IB_SUCCESS;
}
