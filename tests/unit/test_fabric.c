// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of the fabric model, LID assignment and hop tables. */
#include <string.h>

#include <croute/route/engine.h>
#include <croute/model/parallel.h>

#include "testutil.h"

static void test_add_and_link(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t sw = tu_switch(f, 4, 1), h = tu_host(f, 1);

	assert_int_equal(f->nodes[sw].ports[3].guid, f->nodes[sw].guid);
	assert_int_equal(f->nodes[h].ports[1].guid, f->nodes[h].guid + 1);
	tu_link(f, sw, 1, h, 1);
	/* Both ends are taken now. */
	assert_int_equal(cr_fabric_link(f, sw, 1, h, 1), -1);
	assert_int_equal(cr_fabric_link(f, sw, 5, h, 1), -1);
	assert_int_equal(cr_fabric_link(f, sw, 0, h, 1), -1);
	assert_int_equal(cr_remote(f, sw, 1), h);
	assert_int_equal(f->nodes[h].ports[1].remote_port, 1);
	assert_int_equal(cr_fabric_add_node(f, CR_NODE_SWITCH, 9, 0, "x"),
			 CR_NO_NODE);
	assert_int_equal(cr_fabric_add_node(f, CR_NODE_SWITCH, 9, 255, "x"),
			 CR_NO_NODE);
	cr_fabric_free(f);
}

static void test_assign_lids(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 3, 2, NULL, 2);
	uint8_t port;

	/* 4 switches with one LID each, 6 hosts with 4 aligned LIDs each. */
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];

		if (node->type == CR_NODE_SWITCH) {
			assert_int_not_equal(node->ports[0].lid, 0);
			continue;
		}
		assert_int_equal(node->ports[1].lmc, 2);
		assert_int_equal(node->ports[1].lid % 4, 0);
		for (unsigned l = 0; l < 4; l++) {
			assert_int_equal(f->lid_node[node->ports[1].lid + l],
					 n);
			assert_int_equal(f->lid_port[node->ports[1].lid + l],
					 1);
		}
		/* A host's LIDs are delivered by its leaf, on its port. */
		assert_int_equal(
			cr_lid_switch(f, node->ports[1].lid + 3, &port),
			node->ports[1].remote);
		assert_int_equal(port, node->ports[1].remote_port);
	}
	assert_int_equal(f->num_switches, 4);
	assert_true(f->max_lid >= 4 + 6 * 4);
	assert_int_equal(cr_lid_switch(f, 0, NULL), CR_NO_NODE);
	cr_fabric_free(f);
}

/*
 * OpenSM's order: the SM's port first, then port GUIDs byte-reversed; a
 * CA port without a cable gets no LID; LMC alignment skips LIDs.
 */
static void test_assign_lids_opensm_order(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t sw = tu_switch(f, 4, 1); /* GUID 0x100001 */
	uint32_t a = cr_fabric_add_node(f, CR_NODE_CA, 0x200100, 2, "a");
	uint32_t b = cr_fabric_add_node(f, CR_NODE_CA, 0x200000, 1, "b");

	/* Port GUIDs: a 0x200101 (cabled), 0x200102 (not); b 0x200001. */
	tu_link(f, sw, 1, a, 1);
	tu_link(f, sw, 2, b, 1);
	f->sm_port_guid = f->nodes[b].ports[1].guid;
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	assert_int_equal(f->nodes[b].ports[1].lid, 1);
	/* 0x100001 and 0x200101 end in 01: byte 2 decides (10 < 20). */
	assert_int_equal(f->nodes[sw].ports[0].lid, 2);
	assert_int_equal(f->nodes[a].ports[1].lid, 3);
	assert_int_equal(f->nodes[a].ports[2].lid, 0);
	assert_int_equal(f->max_lid, 3);
	/* LMC 2: b 4-7, the switch 8, a 12-15 (9-11 skipped). */
	assert_int_equal(cr_fabric_assign_lids(f, 2), 0);
	assert_int_equal(f->nodes[b].ports[1].lid, 4);
	assert_int_equal(f->nodes[sw].ports[0].lid, 8);
	assert_int_equal(f->nodes[a].ports[1].lid, 12);
	assert_int_equal(f->nodes[a].ports[2].lid, 0);
	cr_fabric_free(f);
}

static void test_finalize_rejects(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 2, 1, NULL, 0);
	uint32_t h = 0;

	while (cr_is_switch(f, h))
		h++;

	/* Duplicate LID. */
	f->nodes[0].ports[0].lid = f->nodes[1].ports[0].lid;
	assert_int_equal(cr_fabric_finalize(f), -1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	/* Misaligned for its LMC. */
	f->nodes[h].ports[1].lmc = 1;
	f->nodes[h].ports[1].lid |= 1;
	assert_int_equal(cr_fabric_finalize(f), -1);
	/* Beyond the unicast range. */
	f->nodes[h].ports[1].lmc = 0;
	f->nodes[h].ports[1].lid = 0xC000;
	assert_int_equal(cr_fabric_finalize(f), -1);
	/* Asymmetric link. */
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	f->nodes[h].ports[1].remote_port = 7;
	assert_int_equal(cr_fabric_finalize(f), -1);
	cr_fabric_free(f);
	/* LMC beyond 7. */
	f = tu_two_level(1, 1, 1, NULL, 0);
	assert_int_equal(cr_fabric_assign_lids(f, 8), -1);
	cr_fabric_free(f);
}

/* Over 4,096 nodes the links are checked in parts, on two threads. */
static void test_finalize_parts(void **state)
{
	struct cr_fabric *f = tu_two_level(128, 64, 2, NULL, 0);
	uint32_t last = 0, top = 0;

	(void)state;
	cr_threads_set(2);
	assert_true(f->num_nodes > 2 * 4096);
	assert_int_equal(cr_fabric_finalize(f), 0);
	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			top = f->nodes[i].ports[p].lid > top
				      ? f->nodes[i].ports[p].lid
				      : top;
	assert_int_equal(f->max_lid, top);
	/* A bad link in the last part, then in the first. */
	while (cr_is_switch(f, f->num_nodes - 1 - last))
		last++;
	last = f->num_nodes - 1 - last;
	f->nodes[last].ports[1].remote_port = 9;
	assert_int_equal(cr_fabric_finalize(f), -1);
	cr_fabric_free(f);
	f = tu_two_level(128, 64, 2, NULL, 0);
	f->nodes[0].ports[1].remote_port = 200;
	assert_int_equal(cr_fabric_finalize(f), -1);
	cr_fabric_free(f);
	cr_threads_set(0);
}

static void test_link_rates(void **state)
{
	assert_int_equal(cr_link_rate_mbps(4, CR_SPEED_QDR), 32000);
	assert_int_equal(cr_link_rate_mbps(4, CR_SPEED_EDR), 100000);
	assert_int_equal(cr_link_rate_mbps(4, CR_SPEED_FDR), 54545);
	assert_int_equal(cr_link_rate_mbps(4, CR_SPEED_HDR), 200000);
	assert_int_equal(cr_link_rate_mbps(1, CR_SPEED_SDR), 2000);
	assert_int_equal(cr_link_rate_mbps(4, CR_SPEED_UNKNOWN), 0);
	assert_int_equal(cr_link_rate_mbps(0, CR_SPEED_QDR), 0);
	assert_int_equal(cr_speed_parse("qdr", 3), CR_SPEED_QDR);
	assert_int_equal(cr_speed_parse("FDR10", 5), CR_SPEED_FDR10);
	assert_int_equal(cr_speed_parse("FDR10", 3), CR_SPEED_FDR);
	assert_int_equal(cr_link_rate_mbps(4, CR_SPEED_NDR), 400000);
	assert_int_equal(cr_link_rate_mbps(4, CR_SPEED_XDR), 800000);
	assert_int_equal(cr_link_rate_mbps(12, CR_SPEED_XDR), 2400000);
	assert_int_equal(cr_link_rate_mbps(2, CR_SPEED_NDR), 200000);
	assert_int_equal(cr_speed_parse("XDR", 3), CR_SPEED_XDR);
	assert_int_equal(cr_speed_parse("YDR", 3), CR_SPEED_UNKNOWN);
	assert_string_equal(cr_speed_name(CR_SPEED_EDR), "EDR");
}

static void test_engine_names(void **state)
{
	assert_non_null(cr_engine_find("minhop"));
	assert_ptr_equal(cr_engine_find("cr-minhop"), cr_engine_find("minhop"));
	assert_non_null(cr_engine_find("cr-updn"));
	assert_non_null(cr_engine_find("ftree"));
	assert_non_null(cr_engine_find("lash"));
	assert_null(cr_engine_find("cr-"));
	assert_null(cr_engine_find("file"));
	assert_null(cr_engine_find(NULL));
}

/* Hop tables follow the LFTs, including dead ends and loops. */
static void test_hop_table(void **state)
{
	struct cr_fabric *f = tu_ring(4);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	size_t row = f->max_lid + 1;
	uint8_t *hops = malloc(row * f->num_switches);
	uint16_t lid0 = f->nodes[0].ports[0].lid;
	uint16_t host2 = f->nodes[f->nodes[2].ports[3].remote].ports[1].lid;

	assert_int_equal(cr_routing_hop_table(f, r, hops), 0);
	assert_int_equal(hops[0 * row + lid0], 0);
	assert_int_equal(hops[1 * row + lid0], 1);
	assert_int_equal(hops[2 * row + lid0], 2);
	assert_int_equal(hops[2 * row + host2], 1);
	assert_int_equal(hops[0 * row + host2], 3);
	assert_int_equal(cr_routing_hops(f, r, 0, host2), 3);
	assert_int_equal(cr_routing_hops(f, r, 2, lid0), 2);

	/* A loop between switches 0 and 1 toward host 2. */
	r->lft[0][host2] = 1; /* 0 -> 1 */
	r->lft[1][host2] = 2; /* 1 -> 0 */
	assert_int_equal(cr_routing_hop_table(f, r, hops), 0);
	assert_int_equal(hops[0 * row + host2], CR_NO_PATH);
	assert_int_equal(hops[1 * row + host2], CR_NO_PATH);
	assert_int_equal(hops[2 * row + host2], 1);
	assert_int_equal(cr_routing_hops(f, r, 0, host2), -1);
	/* A dead end: port 0 delivers only the switch's own LID. */
	r->lft[3][host2] = 0;
	assert_int_equal(cr_routing_hops(f, r, 3, host2), -1);
	free(hops);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * cr_fabric_copy and cr_routing_copy copy every field: each set to a
 * non-zero pattern, the copies compared byte for byte with their
 * pointers set aside, and no pointer shared. (A new field also stops the
 * build until the copy handles it: see the size checks in the model.)
 */
static void test_copy_every_field(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 3, 2, NULL, 1), *g, a, b;
	struct cr_routing *r, *c, ra, rb;
	struct cr_byproducts by = {0}, bc = {0}, ba, bb;
	size_t row;

	(void)state;
	f->sm_port_guid = 0x1234567;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct cr_node *node = &f->nodes[n];

		node->sysimg_guid = node->guid + 7;
		node->lft_cap = 1000 + n;
		for (unsigned p = 0; p <= node->num_ports; p++) {
			/* A LID's range must stay what was assigned: the
			 * routing below walks it. */
			if (!node->ports[p].lid)
				node->ports[p].lmc = 1;
			node->ports[p].width = 4;
			node->ports[p].speed = CR_SPEED_EDR;
		}
	}
	g = cr_fabric_copy(f);
	assert_non_null(g);
	a = *f;
	b = *g;
	assert_true(a.nodes != b.nodes && a.switches != b.switches &&
		    a.lid_node != b.lid_node && a.lid_port != b.lid_port);
	a.nodes = b.nodes = NULL;
	a.switches = b.switches = NULL;
	a.lid_node = b.lid_node = NULL;
	a.lid_port = b.lid_port = NULL;
	assert_memory_equal(&a, &b, sizeof(a));
	assert_memory_equal(f->switches, g->switches,
			    f->num_switches * sizeof(*f->switches));
	assert_memory_equal(f->lid_node, g->lid_node,
			    (f->max_lid + 1u) * sizeof(*f->lid_node));
	assert_memory_equal(f->lid_port, g->lid_port, f->max_lid + 1u);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct cr_node x = f->nodes[n], y = g->nodes[n];

		assert_string_equal(x.desc, y.desc);
		assert_ptr_not_equal(x.desc, y.desc);
		assert_ptr_not_equal(x.ports, y.ports);
		assert_memory_equal(x.ports, y.ports,
				    (x.num_ports + 1u) * sizeof(*x.ports));
		x.desc = y.desc = NULL;
		x.ports = y.ports = NULL;
		assert_memory_equal(&x, &y, sizeof(x));
	}

	r = tu_route(f, "minhop", NULL);
	row = (size_t)r->max_lid + 1;
	assert_int_equal(cr_routing_alloc_sl(f, r), 0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		memset(r->sl[f->switches[s]], 1 + s % 3, row);
	r->num_layers = 3;
	assert_int_equal(cr_routing_alloc_sl_set(f, r), 0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (size_t lid = 0; lid < row; lid++)
			r->sl_set[f->switches[s]][lid] = (uint16_t)(s + lid);
	for (unsigned i = 0; i < 16; i++)
		r->sl2vl[i] = (uint8_t)(15 - i);
	by.num_roots = 2;
	by.roots = malloc(2 * sizeof(*by.roots));
	by.num_ca_order = 3;
	by.ca_order = malloc(3 * sizeof(*by.ca_order));
	by.auto_table = strdup("1 1 cr-minhop");
	assert_true(by.roots && by.ca_order && by.auto_table);
	by.roots[0] = f->switches[0];
	by.roots[1] = f->switches[1];
	for (unsigned i = 0; i < 3; i++)
		by.ca_order[i] = 5 + i;
	c = cr_routing_copy(r);
	assert_non_null(c);
	for (uint32_t n = 0; n < r->num_nodes; n++) {
		assert_true(!r->lft[n] == !c->lft[n]);
		assert_true(!r->sl[n] == !c->sl[n]);
		if (r->lft[n]) {
			assert_ptr_not_equal(r->lft[n], c->lft[n]);
			assert_memory_equal(r->lft[n], c->lft[n], row);
		}
		if (r->sl[n]) {
			assert_ptr_not_equal(r->sl[n], c->sl[n]);
			assert_memory_equal(r->sl[n], c->sl[n], row);
		}
		assert_true(!r->sl_set[n] == !c->sl_set[n]);
		if (r->sl_set[n]) {
			assert_ptr_not_equal(r->sl_set[n], c->sl_set[n]);
			assert_memory_equal(r->sl_set[n], c->sl_set[n],
					    row * sizeof(*r->sl_set[n]));
		}
	}
	ra = *r;
	rb = *c;
	assert_true(ra.sl_set != rb.sl_set);
	ra.sl_set = rb.sl_set = NULL;
	assert_true(ra.lft != rb.lft && ra.sl != rb.sl);
	ra.lft = rb.lft = NULL;
	ra.sl = rb.sl = NULL;
	assert_memory_equal(&ra, &rb, sizeof(ra));

	/* The by-products, every field (cr_byproducts_copy). */
	assert_int_equal(cr_byproducts_copy(&bc, &by), 0);
	assert_memory_equal(by.roots, bc.roots, 2 * sizeof(*by.roots));
	assert_memory_equal(by.ca_order, bc.ca_order, 3 * sizeof(*by.ca_order));
	assert_string_equal(by.auto_table, bc.auto_table);
	ba = by;
	bb = bc;
	assert_true(ba.roots != bb.roots && ba.ca_order != bb.ca_order &&
		    ba.auto_table != bb.auto_table);
	ba.roots = bb.roots = NULL;
	ba.ca_order = bb.ca_order = NULL;
	ba.auto_table = bb.auto_table = NULL;
	assert_memory_equal(&ba, &bb, sizeof(ba));
	cr_byproducts_release(&bc);
	cr_byproducts_release(&by);
	assert_null(by.roots);
	assert_int_equal(by.num_roots, 0);

	cr_routing_free(c);
	cr_routing_free(r);
	cr_fabric_free(g);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_link),
		cmocka_unit_test(test_assign_lids),
		cmocka_unit_test(test_assign_lids_opensm_order),
		cmocka_unit_test(test_finalize_rejects),
		cmocka_unit_test(test_finalize_parts),
		cmocka_unit_test(test_link_rates),
		cmocka_unit_test(test_engine_names),
		cmocka_unit_test(test_hop_table),
		cmocka_unit_test(test_copy_every_field),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
