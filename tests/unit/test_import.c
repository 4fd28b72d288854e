// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The plugin's import (src/plugin/import.c) against OpenSM's subnet
 * structures built here from generated fabrics. With croute_incremental
 * the import reads the previous sweep's fabric again in place when OpenSM
 * kept the same nodes: after every change a sweep can bring (a cable
 * down or back, an unhealthy link, a LID, a width, a description, an
 * undiscovered port) that fabric must equal a fresh import field by
 * field, and a change of the nodes themselves must bring a fresh import.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin.h"

#include <croute/io/gen.h>
#include <croute/model/parallel.h>

#include "testutil.h"

struct fake {
	osm_opensm_t *osm;
	osm_node_t **node; /* per node of the source fabric */
	osm_port_t **port; /* per node: its end ports (0, or 1..n) */
	uint32_t n;
};

static osm_node_t *fake_node(const struct cr_node *cn)
{
	unsigned np = cn->num_ports + 1u;
	osm_node_t *node =
		calloc(1, sizeof(*node) + np * sizeof(node->physp_table[0]));

	assert_non_null(node);
	node->node_info.node_type = cn->type == CR_NODE_SWITCH
					    ? IB_NODE_TYPE_SWITCH
					    : IB_NODE_TYPE_CA;
	node->node_info.num_ports = cn->num_ports;
	node->node_info.node_guid = cl_hton64(cn->guid);
	node->node_info.sys_guid = cl_hton64(cn->sysimg_guid);
	node->physp_tbl_size = np;
	snprintf((char *)node->node_desc.description,
		 sizeof(node->node_desc.description), "%s", cn->desc);
	if (cn->type == CR_NODE_SWITCH) {
		node->sw = calloc(1, sizeof(*node->sw));
		assert_non_null(node->sw);
		node->sw->switch_info.lin_cap = cl_hton16(49152);
	}
	for (unsigned p = 0; p < np; p++) {
		osm_physp_t *ph = &node->physp_table[p];

		if (cn->type != CR_NODE_SWITCH && p == 0)
			continue;
		ph->port_guid = cl_hton64(cn->ports[p].guid);
		ph->port_num = (uint8_t)p;
		ph->p_node = node;
		ph->healthy = TRUE;
		ph->port_info.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
		ph->port_info.vl_enforce = 4 << 4; /* 8 data VLs */
	}
	return node;
}

static void fake_port(struct fake *fk, uint32_t n, unsigned p,
		      const struct cr_port *cp)
{
	osm_port_t *port = calloc(1, sizeof(*port));
	osm_physp_t *ph = &fk->node[n]->physp_table[p];

	assert_non_null(port);
	port->p_node = fk->node[n];
	port->p_physp = ph;
	port->guid = ph->port_guid;
	ph->port_info.base_lid = cl_hton16(cp->lid);
	ph->port_info.mkey_lmc = cp->lmc;
	cl_qmap_insert(&fk->osm->subn.port_guid_tbl, port->guid,
		       &port->map_item);
	fk->port[n * 2 + (p > 0)] = port;
}

/* OpenSM's view of f: nodes, cabled ports, a LID per end port. */
static void fake_build(struct fake *fk, const struct cr_fabric *f)
{
	fk->n = f->num_nodes;
	fk->osm = calloc(1, sizeof(*fk->osm));
	fk->node = calloc(f->num_nodes, sizeof(*fk->node));
	fk->port = calloc(f->num_nodes * 2u, sizeof(*fk->port));
	assert_non_null(fk->osm);
	assert_non_null(fk->node);
	assert_non_null(fk->port);
	cl_qmap_init(&fk->osm->subn.node_guid_tbl);
	cl_qmap_init(&fk->osm->subn.port_guid_tbl);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		fk->node[n] = fake_node(&f->nodes[n]);
		cl_qmap_insert(&fk->osm->subn.node_guid_tbl,
			       fk->node[n]->node_info.node_guid,
			       &fk->node[n]->map_item);
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *cn = &f->nodes[n];

		for (unsigned p = 1; p <= cn->num_ports; p++) {
			uint32_t m = cn->ports[p].remote;

			if (m != CR_NO_NODE)
				fk->node[n]->physp_table[p].p_remote_physp =
					&fk->node[m]->physp_table
						 [cn->ports[p].remote_port];
		}
		/* Generated CAs have one port. */
		if (cn->type == CR_NODE_SWITCH)
			fake_port(fk, n, 0, &cn->ports[0]);
		else if (cn->ports[1].lid)
			fake_port(fk, n, 1, &cn->ports[1]);
	}
}

static void fake_free(struct fake *fk)
{
	for (uint32_t n = 0; n < fk->n; n++) {
		free(fk->port[2 * n]);
		free(fk->port[2 * n + 1]);
		if (fk->node[n]) {
			free(fk->node[n]->sw);
			free(fk->node[n]->print_desc);
			free(fk->node[n]);
		}
	}
	free(fk->node);
	free(fk->port);
	free(fk->osm);
}

/*
 * One sweep: the kept import (reading prev again, or not when kept is
 * false) against a fresh one. Returns the kept import's fabric.
 */
static struct cr_fabric *sweep(struct fake *fk, struct cr_import_keep *keep,
			       struct cr_fabric *prev, bool kept)
{
	struct cr_import a, b;
	uint32_t i;

	assert_int_equal(cr_import_subnet(fk->osm, &a, keep, prev), 0);
	assert_int_equal(a.kept, kept);
	assert_ptr_equal(keep->f, a.f);
	/* The walk (four chains at once) kept the map's order. */
	i = 0;
	for (cl_map_item_t *it = cl_qmap_head(&fk->osm->subn.node_guid_tbl);
	     it != cl_qmap_end(&fk->osm->subn.node_guid_tbl);
	     it = cl_qmap_next(it))
		assert_ptr_equal(keep->walk[i++], it);
	assert_int_equal(i, keep->count);
	assert_int_equal(cr_import_subnet(fk->osm, &b, NULL, NULL), 0);
	assert_false(b.kept);
	tu_assert_same_fabric(a.f, b.f, true);
	assert_int_equal(a.max_vls, b.max_vls);
	assert_int_equal(a.unhealthy, b.unhealthy);
	for (uint32_t s = 0; s < a.f->num_switches; s++) {
		assert_non_null(a.sw[s]);
		assert_ptr_equal(a.sw[s], b.sw[s]);
	}
	free(a.sw);
	cr_import_release(&b);
	return a.f;
}

static uint32_t first_ca(const struct cr_fabric *f)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!cr_is_switch(f, n) &&
		    f->nodes[n].ports[1].remote != CR_NO_NODE)
			return n;
	fail();
	return 0;
}

static void cut(struct fake *fk, uint32_t n, unsigned p)
{
	osm_physp_t *ph = &fk->node[n]->physp_table[p];

	ph->p_remote_physp->p_remote_physp = NULL;
	ph->p_remote_physp = NULL;
}

static void test_kept(void **state)
{
	struct cr_gen_params gp = {.seed = 3};
	struct cr_fabric *src = cr_gen_fat_tree(8, &gp), *f, *first;
	struct cr_import_keep keep = {0};
	struct fake fk;
	uint32_t sw, ca;
	uint16_t lid;
	osm_physp_t *a, *b;

	(void)state;
	assert_non_null(src);
	assert_int_equal(cr_fabric_assign_lids(src, 0), 0);
	fake_build(&fk, src);
	sw = src->switches[3];
	ca = first_ca(src);
	lid = (uint16_t)((src->max_lid + 8u) & ~3u); /* free, LMC 2 */

	for (unsigned t = 1; t <= 3; t += 2) {
		cr_threads_set(t);
		/* The first sweep imports afresh; the same subnet: kept. */
		f = sweep(&fk, &keep, NULL, false);
		first = cr_fabric_copy(f);
		assert_non_null(first);
		f = sweep(&fk, &keep, f, true);
		tu_assert_same_fabric(f, first, true);

		/* A cable between switches down, then back. */
		a = &fk.node[sw]->physp_table[src->nodes[sw].num_ports];
		b = a->p_remote_physp;
		assert_non_null(b);
		cut(&fk, sw, src->nodes[sw].num_ports);
		f = sweep(&fk, &keep, f, true);
		assert_int_equal(
			f->nodes[sw].ports[src->nodes[sw].num_ports].remote,
			CR_NO_NODE);
		a->p_remote_physp = b;
		b->p_remote_physp = a;
		f = sweep(&fk, &keep, f, true);
		tu_assert_same_fabric(f, first, true);

		/* Unhealthy, narrower, undiscovered, other LID and name. */
		b->healthy = FALSE;
		fk.node[sw]->physp_table[1].port_info.link_width_active =
			IB_LINK_WIDTH_ACTIVE_1X;
		fk.node[sw]->physp_table[2].port_info.vl_enforce = 2 << 4;
		fk.node[ca]->physp_table[1].port_info.base_lid = cl_hton16(lid);
		fk.node[ca]->physp_table[1].port_info.mkey_lmc = 2;
		fk.node[sw]->print_desc = strdup("renamed switch");
		assert_non_null(fk.node[sw]->print_desc);
		fk.node[sw]->node_info.sys_guid = cl_hton64(0x1234);
		fk.node[sw]->sw->switch_info.lin_cap = cl_hton16(1024);
		f = sweep(&fk, &keep, f, true);
		assert_string_equal(f->nodes[sw].desc, "renamed switch");
		assert_int_equal(f->nodes[ca].ports[1].lid, lid);
		fk.node[ca]->physp_table[1].port_guid = 0;
		cl_qmap_remove_item(&fk.osm->subn.port_guid_tbl,
				    &fk.port[2 * ca + 1]->map_item);
		f = sweep(&fk, &keep, f, true);
		assert_int_equal(f->nodes[ca].ports[1].lid, 0);

		/* Everything back: the first import again. */
		b->healthy = TRUE;
		fk.node[sw]->physp_table[1].port_info.link_width_active =
			IB_LINK_WIDTH_ACTIVE_4X;
		fk.node[sw]->physp_table[2].port_info.vl_enforce = 4 << 4;
		fk.node[ca]->physp_table[1].port_guid =
			cl_hton64(src->nodes[ca].ports[1].guid);
		fk.node[ca]->physp_table[1].port_info.base_lid =
			cl_hton16(src->nodes[ca].ports[1].lid);
		fk.node[ca]->physp_table[1].port_info.mkey_lmc = 0;
		cl_qmap_insert(&fk.osm->subn.port_guid_tbl,
			       fk.port[2 * ca + 1]->guid,
			       &fk.port[2 * ca + 1]->map_item);
		free(fk.node[sw]->print_desc);
		fk.node[sw]->print_desc = NULL;
		fk.node[sw]->node_info.sys_guid =
			cl_hton64(src->nodes[sw].sysimg_guid);
		fk.node[sw]->sw->switch_info.lin_cap = cl_hton16(49152);
		f = sweep(&fk, &keep, f, true);
		tu_assert_same_fabric(f, first, true);

		/* A fabric other than the kept one is not read again. */
		cr_fabric_free(f);
		f = sweep(&fk, &keep, first, false);
		assert_int_equal(f->num_nodes, src->num_nodes);
		cr_fabric_free(f);
	}
	cr_threads_set(0);
	cr_import_keep_free(&keep);
	fake_free(&fk);
	cr_fabric_free(src);
}

/* Nodes that come and go, or change under their GUID: imported afresh. */
static void test_nodes_change(void **state)
{
	struct cr_gen_params gp = {.seed = 4};
	struct cr_fabric *src = cr_gen_fat_tree(8, &gp), *f;
	struct cr_import_keep keep = {0};
	struct fake fk;
	osm_node_t *old, *twin;
	uint32_t ca, sw;
	unsigned p;

	(void)state;
	assert_non_null(src);
	assert_int_equal(cr_fabric_assign_lids(src, 0), 0);
	fake_build(&fk, src);
	ca = first_ca(src);
	sw = src->nodes[ca].ports[1].remote;
	p = src->nodes[ca].ports[1].remote_port;

	f = sweep(&fk, &keep, NULL, false);
	f = sweep(&fk, &keep, f, true);
	/* A port cabled to a node OpenSM does not list: an error. */
	cl_qmap_remove_item(&fk.osm->subn.node_guid_tbl,
			    &fk.node[ca]->map_item);
	{
		struct cr_import a;

		assert_int_equal(cr_import_subnet(fk.osm, &a, &keep, f), -1);
		assert_null(a.f);
		assert_null(keep.walk);
	}
	cl_qmap_insert(&fk.osm->subn.node_guid_tbl,
		       fk.node[ca]->node_info.node_guid,
		       &fk.node[ca]->map_item);
	f = sweep(&fk, &keep, NULL, false);

	/* A host goes: its node and port leave OpenSM's maps. */
	cut(&fk, sw, p);
	cl_qmap_remove_item(&fk.osm->subn.node_guid_tbl,
			    &fk.node[ca]->map_item);
	cl_qmap_remove_item(&fk.osm->subn.port_guid_tbl,
			    &fk.port[2 * ca + 1]->map_item);
	f = sweep(&fk, &keep, f, false);
	assert_int_equal(f->num_nodes, src->num_nodes - 1);
	f = sweep(&fk, &keep, f, true);

	/* It comes back as a new OpenSM node with the same GUID. */
	old = fk.node[ca];
	twin = fake_node(&src->nodes[ca]);
	fk.node[ca] = twin;
	twin->physp_table[1].p_remote_physp = &fk.node[sw]->physp_table[p];
	fk.node[sw]->physp_table[p].p_remote_physp = &twin->physp_table[1];
	cl_qmap_insert(&fk.osm->subn.node_guid_tbl, twin->node_info.node_guid,
		       &twin->map_item);
	fk.port[2 * ca + 1]->p_node = twin;
	fk.port[2 * ca + 1]->p_physp = &twin->physp_table[1];
	cl_qmap_insert(&fk.osm->subn.port_guid_tbl, fk.port[2 * ca + 1]->guid,
		       &fk.port[2 * ca + 1]->map_item);
	f = sweep(&fk, &keep, f, false);
	assert_int_equal(f->num_nodes, src->num_nodes);
	f = sweep(&fk, &keep, f, true);
	free(old);

	/* Replaced between two sweeps: as many nodes, the GUID the same. */
	old = fk.node[ca];
	twin = fake_node(&src->nodes[ca]);
	fk.node[ca] = twin;
	twin->physp_table[1].p_remote_physp = &fk.node[sw]->physp_table[p];
	fk.node[sw]->physp_table[p].p_remote_physp = &twin->physp_table[1];
	cl_qmap_remove_item(&fk.osm->subn.node_guid_tbl, &old->map_item);
	cl_qmap_insert(&fk.osm->subn.node_guid_tbl, twin->node_info.node_guid,
		       &twin->map_item);
	fk.port[2 * ca + 1]->p_node = twin;
	fk.port[2 * ca + 1]->p_physp = &twin->physp_table[1];
	f = sweep(&fk, &keep, f, false);
	f = sweep(&fk, &keep, f, true);
	free(old);

	/* The same object says it is another kind of node now. */
	fk.node[ca]->node_info.node_type = IB_NODE_TYPE_ROUTER;
	f = sweep(&fk, &keep, f, false);
	assert_int_equal(f->nodes[ca].type, CR_NODE_ROUTER);
	f = sweep(&fk, &keep, f, true);
	cr_fabric_free(f);
	cr_import_keep_free(&keep);
	fake_free(&fk);
	cr_fabric_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_nodes_change),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
