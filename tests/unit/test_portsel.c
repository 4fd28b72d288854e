// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the port-selection rules (doc/design.md, "Port selection"):
 * least-loaded pick in port order, the RFC's port_shifting table (OpenSM's
 * rotation, for engines without CR_PS_SPREAD), croute's destination-based
 * port_shifting (CR_PS_SPREAD), remote-GUID ordering, reproducible
 * scatter_ports, LMC diversity, and the LID order engines route in.
 */
#include <string.h>

#include <croute/io/conf.h>
#include <croute/route/portsel.h>

#include "updn_fabrics.h"

/*
 * Switch X (node 0) with ports 1..3 cabled to switches Y1..Y3 (GUIDs
 * descending, so remote-GUID order is the reverse of port order), and
 * three hosts on each Y: LIDs 1..13.
 */
static struct cr_fabric *star(void)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t x = tu_switch(f, 4, 1), y[3];

	for (unsigned i = 0; i < 3; i++) {
		y[i] = tu_switch(f, 4, 30 - i);
		tu_link(f, x, 1 + i, y[i], 1);
	}
	for (unsigned i = 0; i < 9; i++)
		tu_link(f, y[i / 3], 2 + i % 3, tu_host(f, i), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static void route_nine(bool shifting, bool sorting, char table[3][16])
{
	struct cr_fabric *f = star();
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct cr_portsel *ps;
	const uint8_t cands[] = {1, 2, 3};

	cr_options_init(&o);
	o.port_shifting = shifting;
	o.remote_guid_sorting = sorting;
	ps = cr_portsel_new(f, &o, r);
	assert_non_null(ps);
	memset(table, 0, 3 * 16);
	for (uint16_t lid = 1; lid <= 9; lid++) {
		uint8_t p = cr_portsel_pick(ps, 0, cands, 3, lid, 0);
		size_t len;

		assert_true(p >= 1 && p <= 3);
		r->lft[0][lid] = p;
		len = strlen(table[p - 1]);
		snprintf(table[p - 1] + len, 16 - len, "%s%u", len ? " " : "",
			 lid);
	}
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* ports, ordered in place at switch sw, are a, b, c. */
static void order_is(const struct cr_portsel *ps, uint32_t sw, uint8_t ports[3],
		     uint8_t a, uint8_t b, uint8_t c)
{
	cr_portsel_order(ps, sw, ports, 3);
	assert_int_equal(ports[0], a);
	assert_int_equal(ports[1], b);
	assert_int_equal(ports[2], c);
}

static void test_round_robin(void **state)
{
	char t[3][16];

	route_nine(false, false, t);
	assert_string_equal(t[0], "1 4 7");
	assert_string_equal(t[1], "2 5 8");
	assert_string_equal(t[2], "3 6 9");
}

/* OpenSM's rotation gives the RFC's table: A: 1 6 8, B: 2 4 9, C: 3 5 7. */
static void test_port_shifting_rfc(void **state)
{
	char t[3][16];

	route_nine(true, false, t);
	assert_string_equal(t[0], "1 6 8");
	assert_string_equal(t[1], "2 4 9");
	assert_string_equal(t[2], "3 5 7");
}

/*
 * croute's port_shifting for engines routing in cr_lid_order()
 * (CR_PS_SPREAD): destination-based, whatever the loads or the order in
 * which LIDs come. X's ports lead down toward the hosts' switches, so
 * host i (the i-th in the LID order) takes candidate i mod 3.
 */
static void test_port_shifting_spread(void **state)
{
	struct cr_fabric *f = star();
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct cr_portsel *ps;
	const uint8_t cands[] = {3, 1, 2};

	cr_options_init(&o);
	o.port_shifting = true;
	ps = cr_portsel_new(f, &o, r);
	assert_non_null(ps);
	for (int i = 8; i >= 0; i--) {
		/* The hosts are nodes 4..12, in LID order. */
		uint16_t lid = f->nodes[4 + i].ports[1].lid;

		assert_int_equal(
			cr_portsel_pick(ps, 0, cands, 3, lid, CR_PS_SPREAD),
			1 + i % 3);
	}
	/* Without the flag: OpenSM's rotation, by load. */
	assert_int_equal(cr_portsel_pick(ps, 0, cands, 3, 5, 0), 1);
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* With remote-GUID sorting, port 3 (lowest remote GUID) comes first. */
static void test_remote_guid_order(void **state)
{
	char t[3][16];
	struct cr_fabric *f = star();
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct cr_portsel *ps;
	uint8_t ports[] = {1, 2, 3};

	route_nine(false, true, t);
	assert_string_equal(t[2], "1 4 7");
	assert_string_equal(t[1], "2 5 8");
	assert_string_equal(t[0], "3 6 9");

	cr_options_init(&o);
	o.remote_guid_sorting = true;
	ps = cr_portsel_new(f, &o, r);
	order_is(ps, 0, ports, 3, 2, 1);
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * port_search_ordering_file: the listed ports first, the rest in port
 * order; it wins over remote-GUID order on the switch it names. Bad lines
 * are refused with file and line.
 */
static void test_port_search_order(void **state)
{
	static const char good[] = "# X: port 2 first\n0x100001 2\n"
				   "0x999 4 1\n";
	static const char *const bad[] = {
		"0x100001 0\n", "0x100001 255\n", "0x100001 2 2\n",
		"x 1 2\n",	"0x100001 1x\n",
	};
	struct cr_fabric *f = star();
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct cr_portsel *ps;
	uint8_t ports[] = {1, 2, 3};
	FILE *fp;

	cr_options_init(&o);
	o.remote_guid_sorting = true;
	fp = fmemopen((void *)good, sizeof(good) - 1, "r");
	assert_int_equal(cr_port_order_parse(fp, "good", "test", &o), 0);
	fclose(fp);
	assert_int_equal(o.num_port_orders, 2);
	assert_int_equal(o.port_orders[1].num, 2);
	ps = cr_portsel_new(f, &o, r);
	order_is(ps, 0, ports, 2, 1, 3);
	/* The least loaded of the first in that order. */
	assert_int_equal(cr_portsel_pick(ps, 0, ports, 3, 1, 0), 2);
	assert_int_equal(cr_portsel_pick(ps, 0, ports, 3, 2, 0), 1);
	cr_portsel_free(ps);
	cr_options_release(&o);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_options_init(&o);
		fp = fmemopen((void *)bad[i], strlen(bad[i]), "r");
		assert_int_equal(cr_port_order_parse(fp, "bad", "test", &o),
				 -1);
		fclose(fp);
		assert_int_equal(o.num_port_orders, 0);
		cr_options_release(&o);
	}
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* Parallel links to one node: ordered by the remote port number. */
static void test_remote_guid_ties(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t x = tu_switch(f, 3, 1), y = tu_switch(f, 3, 2);
	struct cr_routing *r;
	struct cr_options o;
	struct cr_portsel *ps;
	uint8_t ports[] = {1, 2, 3};

	tu_link(f, x, 1, y, 3);
	tu_link(f, x, 2, y, 1);
	tu_link(f, x, 3, y, 2);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = cr_routing_new(f);
	cr_options_init(&o);
	o.remote_guid_sorting = true;
	ps = cr_portsel_new(f, &o, r);
	order_is(ps, x, ports, 2, 3, 1);
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_nocount_and_edges(void **state)
{
	struct cr_fabric *f = star();
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct cr_portsel *ps;
	const uint8_t cands[] = {2, 3};

	cr_options_init(&o);
	ps = cr_portsel_new(f, &o, r);
	assert_int_equal(cr_portsel_pick(ps, 0, cands, 0, 5, 0), CR_NO_PATH);
	assert_int_equal(cr_portsel_pick(ps, 0, cands, 2, 5, CR_PS_NOCOUNT), 2);
	assert_int_equal(cr_portsel_count(ps, 0, 2), 0);
	assert_int_equal(cr_portsel_pick(ps, 0, cands, 2, 6, 0), 2);
	assert_int_equal(cr_portsel_pick(ps, 0, cands, 2, 7, 0), 3);
	assert_int_equal(cr_portsel_pick(ps, 0, cands + 1, 1, 8, 0), 3);
	assert_int_equal(cr_portsel_count(ps, 0, 2), 1);
	assert_int_equal(cr_portsel_count(ps, 0, 3), 2);
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* The switch tu_switch() made with this GUID. */
static uint32_t node_of(const struct cr_fabric *f, uint64_t guid)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].guid == 0x100000 + guid)
			return n;
	fail();
	return 0;
}

/*
 * Rip-up: after commit and uncommit of a LID, its routes weigh on neither
 * the link weights nor the port counts: the same pick comes again, where
 * with the weights still in the other, unloaded uplink would win.
 */
static void test_uncommit(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 1, 2, NULL, 0);
	struct cr_routing *r = cr_routing_new(f);
	uint32_t leaf0 = node_of(f, 1), leaf1 = node_of(f, 2), h1;
	const uint8_t up[] = {2, 3};
	struct cr_options o;
	struct cr_portsel *ps;
	uint16_t lid;
	uint8_t p0;

	(void)state;
	h1 = f->nodes[leaf1].ports[1].remote;
	lid = f->nodes[h1].ports[1].lid;
	cr_options_init(&o);
	o.balance_global = true;
	o.balance_rounds = 1;
	ps = cr_portsel_new(f, &o, r);
	assert_non_null(ps);
	r->lft[leaf1][lid] = 1;
	for (unsigned s = 0; s < 2; s++)
		r->lft[node_of(f, 1000 + s)][lid] = 2;
	p0 = cr_portsel_pick(ps, leaf0, up, 2, lid, CR_PS_SPREAD);
	r->lft[leaf0][lid] = p0;
	cr_portsel_commit(ps, lid);
	assert_int_equal(cr_portsel_count(ps, leaf0, p0), 1);
	cr_portsel_uncommit(ps, lid);
	assert_int_equal(cr_portsel_count(ps, leaf0, p0), 0);
	assert_int_equal(cr_portsel_pick(ps, leaf0, up, 2, lid, CR_PS_SPREAD),
			 p0);
	/* Committed again, its path is the heavier one. */
	cr_portsel_commit(ps, lid);
	assert_int_not_equal(
		cr_portsel_pick(ps, leaf0, up, 2, lid, CR_PS_SPREAD), p0);
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void scatter_run(uint32_t seed, uint8_t *out, unsigned n)
{
	struct cr_fabric *f = star();
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct cr_portsel *ps;
	const uint8_t cands[] = {1, 2, 3};

	cr_options_init(&o);
	o.scatter_ports = seed;
	ps = cr_portsel_new(f, &o, r);
	for (unsigned i = 0; i < n; i++) {
		out[i] = cr_portsel_pick(ps, 0, cands, 3, 1 + i % 13, 0);
		/* Always among the least loaded: counts never differ by 2. */
		for (unsigned a = 1; a <= 3; a++)
			for (unsigned b = 1; b <= 3; b++)
				assert_true(cr_portsel_count(ps, 0, a) <=
					    cr_portsel_count(ps, 0, b) + 1);
	}
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_scatter_reproducible(void **state)
{
	uint8_t a[60], b[60], c[60];

	scatter_run(42, a, 60);
	scatter_run(42, b, 60);
	scatter_run(43, c, 60);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
}

/*
 * LMC 2: X's ports 1 and 2 reach Y1 and Y2 of one system image, ports 3
 * and 4 both reach Y3. The four LIDs of a port first take another system
 * image (port 3 after port 1), then another node (port 2), then anything
 * (port 4, least loaded).
 */
static void test_lmc_diversity(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t x = tu_switch(f, 5, 1), y1 = tu_switch(f, 2, 2),
		 y2 = tu_switch(f, 2, 3), y3 = tu_switch(f, 3, 4), h;
	struct cr_routing *r;
	struct cr_options o;
	struct cr_portsel *ps;
	const uint8_t cands[] = {1, 2, 3, 4};
	const uint8_t want[] = {1, 3, 2, 4};
	uint16_t base;

	f->nodes[y1].sysimg_guid = f->nodes[y2].sysimg_guid = 0xabc;
	tu_link(f, x, 1, y1, 1);
	tu_link(f, x, 2, y2, 1);
	tu_link(f, x, 3, y3, 1);
	tu_link(f, x, 4, y3, 2);
	h = tu_host(f, 1);
	tu_link(f, y3, 3, h, 1);
	assert_int_equal(cr_fabric_assign_lids(f, 2), 0);
	base = f->nodes[h].ports[1].lid;
	r = cr_routing_new(f);
	cr_options_init(&o);
	ps = cr_portsel_new(f, &o, r);
	for (unsigned i = 0; i < 4; i++) {
		uint8_t p = cr_portsel_pick(ps, x, cands, 4, base + i, 0);

		assert_int_equal(p, want[i]);
		r->lft[x][base + i] = p;
	}
	cr_portsel_free(ps);

	/* scatter_ports turns the preference off, as in OpenSM. */
	cr_routing_clear(r);
	o.scatter_ports = 7;
	ps = cr_portsel_new(f, &o, r);
	for (unsigned i = 0; i < 4; i++)
		r->lft[x][base + i] =
			cr_portsel_pick(ps, x, cands, 4, base + i, 0);
	/* Still one LID per port: least loaded comes first. */
	for (unsigned p = 1; p <= 4; p++)
		assert_int_equal(cr_portsel_count(ps, x, p), 1);
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * LMC 1, two parallel cables from X to Y: the second LID takes the other
 * cable though no further LID loads either, and the next base LID does
 * not see the further LIDs' routes (it takes the cable no base LID uses).
 */
static void test_lmc_cable(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t x = tu_switch(f, 3, 1), y = tu_switch(f, 3, 2), h;
	struct cr_routing *r;
	struct cr_options o;
	struct cr_portsel *ps;
	const uint8_t cands[] = {1, 2};
	uint16_t base;

	(void)state;
	tu_link(f, x, 1, y, 1);
	tu_link(f, x, 2, y, 2);
	h = tu_host(f, 1);
	tu_link(f, y, 3, h, 1);
	assert_int_equal(cr_fabric_assign_lids(f, 1), 0);
	base = f->nodes[h].ports[1].lid;
	r = cr_routing_new(f);
	cr_options_init(&o);
	ps = cr_portsel_new(f, &o, r);
	r->lft[x][base] = cr_portsel_pick(ps, x, cands, 2, base, 0);
	assert_int_equal(r->lft[x][base], 1);
	r->lft[x][base + 1] = cr_portsel_pick(ps, x, cands, 2, base + 1, 0);
	assert_int_equal(r->lft[x][base + 1], 2);
	assert_int_equal(cr_portsel_pick(ps, x, cands, 2, base, 0), 2);
	cr_portsel_free(ps);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * CA LIDs leaf by leaf in port order, then switch LIDs; with LMC 1 every
 * port's base LID in that order, then its second LIDs in the same order.
 * A GUID order list comes first.
 */
static void test_lid_order(void **state)
{
	struct cr_fabric *f = uf_director(3, 2, 2, 0, 1);
	struct cr_options o;
	uint16_t *lids;
	int n;
	uint32_t last_ca = 0;

	cr_options_init(&o);
	n = cr_lid_order(f, &o, &lids);
	assert_int_equal(n, 5 + 6 * 2);
	for (int i = 0; i < 6; i++) {
		uint32_t node = f->lid_node[lids[i]];

		assert_int_equal(f->nodes[node].type, CR_NODE_CA);
		assert_true(cr_lid_is_base(f, lids[i]));
		/* Hosts were added leaf by leaf, in port order. */
		assert_true(node >= last_ca);
		last_ca = node;
		/* The second LIDs follow the switch LIDs, in that order. */
		assert_int_equal(lids[11 + i], lids[i] + 1);
	}
	for (int i = 6; i < 11; i++)
		assert_true(cr_is_switch(f, f->lid_node[lids[i]]));
	free(lids);

	assert_int_equal(cr_guid_list_add(&o.guid_order,
					  f->nodes[last_ca].ports[1].guid),
			 0);
	n = cr_lid_order(f, &o, &lids);
	assert_int_equal(n, 17);
	assert_int_equal(f->lid_node[lids[0]], last_ca);
	assert_int_equal(f->lid_node[lids[11]], last_ca);
	assert_int_equal(lids[11], lids[0] + 1);
	free(lids);
	cr_options_release(&o);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_port_shifting_rfc),
		cmocka_unit_test(test_port_shifting_spread),
		cmocka_unit_test(test_remote_guid_order),
		cmocka_unit_test(test_remote_guid_ties),
		cmocka_unit_test(test_port_search_order),
		cmocka_unit_test(test_nocount_and_edges),
		cmocka_unit_test(test_uncommit),
		cmocka_unit_test(test_scatter_reproducible),
		cmocka_unit_test(test_lmc_diversity),
		cmocka_unit_test(test_lmc_cable),
		cmocka_unit_test(test_lid_order),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
