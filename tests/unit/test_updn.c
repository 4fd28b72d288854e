// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cr-updn: root choice (trees, tori, rings, root GUID lists),
 * complete reachability and freedom from credit loops on trees, tori,
 * rings and random graphs, LMC, disconnected fabrics, and contention-free
 * shift patterns on scrambled directors with remote-GUID sorting.
 */
#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/estimate/estimate.h>
#include <croute/io/gen.h>
#include <croute/model/hops.h>
#include <croute/route/portsel.h>
#include <croute/model/roles.h>

#include "updn_fabrics.h"

/* The by-products of the last tu_route() (the roots). */
static struct cr_byproducts by;
#define tu_route(f, e, o) tu_route_by(f, e, o, &by)

/*
 * Complete from every CA port (and from every switch when there is one
 * root: between several roots up*-down* has no legal path, as in OpenSM's
 * updn without connect_roots), loop and credit-loop free, and minimal
 * where asked.
 */
static void assert_sound(const struct cr_fabric *f, const struct cr_routing *r,
			 bool minimal)
{
	struct cr_check_report rep;
	unsigned flags = CR_CHECK_CREDIT;

	if (minimal)
		flags |= CR_CHECK_MINIMAL;
	if (by.num_roots == 1)
		flags |= CR_CHECK_SWITCHES;
	assert_int_equal(cr_check(f, r, flags, stderr, 5, &rep), 0);
	assert_true(rep.pairs > 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	if (minimal)
		assert_int_equal(rep.non_minimal, 0);
	/* And by an independent walk of the channel dependencies. */
	assert_true(uf_no_credit_loop(f, r));
}

static bool is_root(const struct cr_byproducts *b, uint32_t n)
{
	for (uint32_t i = 0; i < b->num_roots; i++)
		if (b->roots[i] == n)
			return true;
	return false;
}

static void test_roots_two_level(void **state)
{
	struct cr_fabric *f = uf_director(6, 4, 4, 7, 0);
	struct cr_routing *r = tu_route(f, "cr-updn", NULL);

	/* The four spines, nothing else. */
	assert_int_equal(by.num_roots, 4);
	for (uint32_t i = 0; i < by.num_roots; i++)
		assert_int_equal(f->nodes[by.roots[i]].num_ports, 6);
	assert_sound(f, r, true);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_roots_kary(void **state)
{
	struct cr_fabric *f = uf_kary(2, 3);
	struct cr_routing *r = tu_route(f, "updn", NULL);

	/* Level 0 (GUIDs 0x100000..0x100003) is the top of the tree. */
	assert_int_equal(by.num_roots, 4);
	for (uint32_t i = 0; i < by.num_roots; i++)
		assert_true(f->nodes[by.roots[i]].guid < 0x100000 + 1000);
	assert_sound(f, r, true);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* Every switch of a torus looks alike: one root, the lowest GUID. */
static void test_roots_torus(void **state)
{
	struct cr_fabric *f = uf_torus(4, 4, true, 1);
	struct cr_routing *r = tu_route(f, "updn", NULL);

	assert_int_equal(by.num_roots, 1);
	assert_int_equal(f->nodes[by.roots[0]].guid, 0x100001);
	assert_sound(f, r, false);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_roots_ring(void **state)
{
	struct cr_fabric *f = tu_ring(7);
	struct cr_routing *r = tu_route(f, "updn", NULL);

	assert_int_equal(by.num_roots, 1);
	assert_sound(f, r, false);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* On a mesh the centre has the smallest eccentricity. */
static void test_roots_mesh(void **state)
{
	struct cr_fabric *f = uf_torus(5, 5, false, 1);
	struct cr_routing *r = tu_route(f, "updn", NULL);

	assert_int_equal(by.num_roots, 1);
	assert_int_equal(f->nodes[by.roots[0]].guid, 0x100000 + 13);
	assert_sound(f, r, false);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_roots_from_guids(void **state)
{
	struct cr_fabric *f = uf_torus(4, 3, true, 1);
	struct cr_options o;
	struct cr_routing *r;
	uint32_t ca = CR_NO_NODE;

	/* The host of switch 6 (index 5) stands for its switch. */
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == CR_NODE_CA &&
		    f->nodes[n].ports[1].remote == 5)
			ca = n;
	assert_int_not_equal(ca, CR_NO_NODE);
	cr_options_init(&o);
	assert_int_equal(cr_guid_list_add(&o.root_guids, 0x100001), 0);
	assert_int_equal(cr_guid_list_add(&o.root_guids, f->nodes[ca].guid), 0);
	r = tu_route(f, "updn", &o);
	assert_int_equal(by.num_roots, 2);
	assert_true(is_root(&by, 0));
	assert_true(is_root(&by, 5));
	/*
	 * Two roots on a torus may leave pairs without a legal path: only
	 * freedom from credit loops is promised then.
	 */
	assert_true(uf_no_credit_loop(f, r));
	cr_routing_free(r);
	cr_options_release(&o);

	/* A port GUID names its CA too. */
	cr_options_init(&o);
	assert_int_equal(
		cr_guid_list_add(&o.root_guids, f->nodes[ca].ports[1].guid), 0);
	r = tu_route(f, "updn", &o);
	assert_int_equal(by.num_roots, 1);
	assert_true(is_root(&by, 5));
	assert_sound(f, r, false);
	cr_routing_free(r);
	cr_options_release(&o);

	/* Unknown GUIDs: an error, nothing routed. */
	cr_options_init(&o);
	assert_int_equal(cr_guid_list_add(&o.root_guids, 0xdeadbeef), 0);
	r = cr_routing_new(f);
	assert_true(cr_route(cr_engine_find("updn"), f, &o, r) < 0);
	for (uint32_t lid = 0; lid <= f->max_lid; lid++)
		assert_int_equal(r->lft[0][lid], CR_NO_PATH);
	cr_routing_free(r);
	cr_options_release(&o);
	cr_fabric_free(f);
}

/*
 * Four spines (indices 0-3) and four leaves of four hosts; leaf l is
 * cabled to spine s when bit 4 * l + s of mask is set, on the spine's
 * next free port (leaves in order, or in reverse with reversed); with
 * bridge, a switch without hosts hangs between spines 2 and 3.
 */
static struct cr_fabric *partial_tree(unsigned mask, bool reversed, bool bridge)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t spine[4], leaf[4];
	unsigned next[4] = {1, 1, 1, 1};

	for (unsigned s = 0; s < 4; s++)
		spine[s] = tu_switch(f, 6, 1000 + s);
	for (unsigned l = 0; l < 4; l++) {
		leaf[l] = tu_switch(f, 8, l + 1);
		for (unsigned h = 0; h < 4; h++)
			tu_link(f, leaf[l], h + 1, tu_host(f, l * 4 + h), 1);
	}
	for (unsigned i = 0; i < 4; i++) {
		unsigned l = reversed ? 3 - i : i;

		for (unsigned s = 0; s < 4; s++)
			if (mask >> (4 * l + s) & 1)
				tu_link(f, leaf[l], 5 + s, spine[s], next[s]++);
	}
	if (bridge) {
		uint32_t b = tu_switch(f, 4, 99);

		tu_link(f, b, 1, spine[2], next[2]++);
		tu_link(f, b, 2, spine[3], next[3]++);
	}
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/*
 * On a tree-like fabric the top level is the root set even when a leaf
 * does not reach every spine (leaf 3 reaches spines 0 and 1 only): all
 * four spines, not the bridge; every switch reaches every LID (detours
 * where up*-down* has none), over shortest paths from the CAs, without
 * credit loops, whatever the spines' port order.
 */
static void test_roots_top_level(void **state)
{
	for (int rev = 0; rev < 2; rev++) {
		struct cr_fabric *f = partial_tree(0x3fff, rev, true);
		struct cr_routing *r = tu_route(f, "updn", NULL);
		struct cr_check_report rep;

		assert_int_equal(by.num_roots, 4);
		for (uint32_t s = 0; s < 4; s++)
			assert_true(is_root(&by, s));
		assert_true(by.updn_detours);
		assert_int_equal(cr_check(f, r,
					  CR_CHECK_CREDIT | CR_CHECK_SWITCHES,
					  stderr, 5, &rep),
				 0);
		assert_int_equal(rep.unreachable, 0);
		assert_int_equal(rep.loops, 0);
		assert_int_equal(rep.credit_loops, 0);
		assert_sound(f, r, true);
		cr_routing_free(r);
		cr_fabric_free(f);
	}
}

/*
 * Each leaf misses a spine (leaf 3 reaches spines 0, 2, 3): with all
 * four spines as roots, the detours close a credit loop; without the
 * detours between switches without CAs too, so the roots are chosen as
 * without the top-level rule: spine 1, the one every leaf reaches.
 */
static void test_roots_top_level_fallback(void **state)
{
	struct cr_fabric *f = partial_tree(0x77be, false, false);
	struct cr_routing *r = tu_route(f, "updn", NULL);

	assert_int_equal(by.num_roots, 1);
	assert_true(is_root(&by, 1));
	assert_false(by.updn_detours);
	assert_sound(f, r, true);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * Leaf 3 has spine 0 only, and each leaf misses a spine: all detours
 * together close a credit loop, but those CA traffic needs do not (from
 * CA switches, and toward CA LIDs): the spines stay the roots, every CA
 * and every switch reaches every CA LID, only some spine-to-switch-LID
 * pairs keep no route (as between the roots of a full tree), no credit
 * loop. (With all detours or nothing, spine 0 would be the only root.)
 */
static void test_roots_top_level_ca_detours(void **state)
{
	struct cr_fabric *f = partial_tree(0x17bd, false, false);
	struct cr_routing *r = tu_route(f, "updn", NULL);
	struct cr_check_report rep;
	unsigned holes = 0;

	assert_int_equal(by.num_roots, 4);
	assert_true(by.updn_detours);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, stderr, 5, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t n = f->lid_node[lid];

			if (n == CR_NO_NODE || f->switches[s] == n)
				continue;
			if (!cr_is_switch(f, n))
				assert_true(cr_routing_hops(f, r,
							    f->switches[s],
							    lid) >= 0);
			else if (cr_routing_hops(f, r, f->switches[s], lid) < 0)
				holes++;
		}
	assert_true(holes > 0);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* The independent check does see credit loops: min-hop on a ring. */
static void test_cdg_check_sees_loops(void **state)
{
	struct cr_fabric *f = tu_ring(6);
	struct cr_routing *r = tu_route(f, "minhop", NULL);

	assert_false(uf_no_credit_loop(f, r));
	cr_routing_free(r);
	r = tu_route(f, "updn", NULL);
	assert_true(uf_no_credit_loop(f, r));
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_sound_everywhere(void **state)
{
	struct cr_fabric *fabrics[] = {
		tu_ring(4),
		tu_ring(9),
		uf_torus(3, 3, true, 2),
		uf_torus(4, 5, true, 1),
		uf_torus(4, 4, false, 1),
		uf_kary(3, 2),
		uf_director(5, 3, 3, 0, 0),
		uf_director(8, 4, 4, 3, 0),
		uf_random(12, 6, 10, 1),
		uf_random(20, 5, 30, 2),
		uf_random(25, 8, 60, 3),
		uf_random(16, 4, 8, 4),
	};

	for (unsigned i = 0; i < sizeof(fabrics) / sizeof(*fabrics); i++) {
		struct cr_routing *r = tu_route(fabrics[i], "updn", NULL);

		assert_sound(fabrics[i], r, false);
		cr_routing_free(r);
		cr_fabric_free(fabrics[i]);
	}
}

/* Every LID of a port is routed; different LIDs take different spines. */
static void test_lmc(void **state)
{
	struct cr_fabric *f = uf_director(4, 2, 4, 5, 2);
	struct cr_routing *r = tu_route(f, "updn", NULL);

	assert_sound(f, r, true);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];

		if (f->nodes[sw].num_ports != 6)
			continue; /* spines */
		for (uint32_t n = 0; n < f->num_nodes; n++) {
			const struct cr_port *p = &f->nodes[n].ports[1];
			uint32_t seen = 0;

			if (f->nodes[n].type != CR_NODE_CA || p->remote == sw)
				continue;
			for (unsigned l = 0; l < 4; l++) {
				uint8_t out = r->lft[sw][p->lid + l];

				seen |= 1u << out;
			}
			/* Four LIDs over four distinct uplinks. */
			assert_int_equal(__builtin_popcount(seen), 4);
		}
	}
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * A management node on a core switch must not hide the tree. On a
 * two-level tree the spine with the node stops being a root, so that every
 * CA keeps a route to every LID. On a three-level tree that is not enough
 * (top switches of different groups only meet through the leaves): the
 * tops stay roots, the leaves keep their shortest routes and croute's
 * port_shifting its contention-free shifts among the leaf hosts. A top
 * switch of a k-ary n-tree is placed like a leaf, so only io_guid_file
 * can say that its host is no compute node (include/croute/model/roles.h):
 * without it, the tops with hosts are leaves and the tree is not seen.
 */
static void test_roots_management_nodes(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct cr_options o;
	struct cr_routing *r;
	uint32_t spine[3], hosts[64], mgmt[2];
	unsigned nh = 0;

	for (unsigned s = 0; s < 3; s++)
		spine[s] = tu_switch(f, 5, 100 + s);
	for (unsigned l = 0; l < 4; l++) {
		uint32_t leaf = tu_switch(f, 6, l + 1);

		for (unsigned h = 0; h < 3; h++)
			tu_link(f, leaf, h + 1, tu_host(f, l * 3 + h), 1);
		for (unsigned s = 0; s < 3; s++)
			tu_link(f, leaf, 4 + s, spine[s], l + 1);
	}
	tu_link(f, spine[0], 5, tu_host(f, 99), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route(f, "updn", NULL);
	assert_int_equal(by.num_roots, 2);
	assert_false(is_root(&by, spine[0]));
	assert_sound(f, r, false);
	cr_routing_free(r);
	cr_fabric_free(f);

	f = uf_kary(4, 3);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == CR_NODE_CA)
			hosts[nh++] = n;
	mgmt[0] = tu_host(f, 900);
	mgmt[1] = tu_host(f, 901);
	tu_link(f, 0, 5, mgmt[0], 1);
	tu_link(f, 1, 6, mgmt[1], 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	cr_options_init(&o);
	o.port_shifting = true;
	r = tu_route(f, "updn", &o);
	assert_int_not_equal(by.num_roots, 16);
	cr_routing_free(r);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(
			cr_guid_list_add(&o.io_guids, f->nodes[mgmt[i]].guid),
			0);
	r = tu_route(f, "updn", &o);
	assert_int_equal(by.num_roots, 16);
	assert_int_equal(uf_shift_contention_of(f, r, hosts, nh, NULL), 1);
	assert_true(uf_no_credit_loop(f, r));
	cr_routing_free(r);
	cr_options_release(&o);
	cr_fabric_free(f);
}

/*
 * Switch roles (include/croute/model/roles.h): a management host on a spine next
 * to the leaves is an I/O node, a leaf with one host left is still a leaf;
 * lists, when given, decide. Root GUIDs: switches, CAs for their switches,
 * unknown ones skipped, none usable an error.
 */
static void test_roles(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct cr_options o;
	struct cr_roles roles;
	uint32_t spine[3], leaf[4], host[4][3], mgmt;
	bool is_root[8] = {false};

	for (unsigned s = 0; s < 3; s++)
		spine[s] = tu_switch(f, 5, 100 + s);
	for (unsigned l = 0; l < 4; l++) {
		leaf[l] = tu_switch(f, 6, l + 1);
		for (unsigned h = 0; h < (l == 3 ? 1 : 3); h++) {
			host[l][h] = tu_host(f, l * 3 + h);
			tu_link(f, leaf[l], h + 1, host[l][h], 1);
		}
		for (unsigned s = 0; s < 3; s++)
			tu_link(f, leaf[l], 4 + s, spine[s], l + 1);
	}
	mgmt = tu_host(f, 99);
	tu_link(f, spine[0], 5, mgmt, 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	cr_options_init(&o);
	for (int lists = 0; lists < 2; lists++) {
		/* no list, then the management host in io_guid_file */
		assert_int_equal(cr_roles_init(&roles, f, &o), 0);
		for (unsigned s = 0; s < 3; s++)
			assert_false(roles.leaf[f->nodes[spine[s]].sw_index]);
		for (unsigned l = 0; l < 4; l++)
			assert_true(roles.leaf[f->nodes[leaf[l]].sw_index]);
		assert_int_equal(roles.num_leaves, 4);
		assert_int_equal(roles.num_io_switches, 1);
		assert_false(cr_roles_is_cn(&roles, mgmt, 1));
		assert_true(cr_roles_is_cn(&roles, host[3][0], 1));
		cr_roles_release(&roles);
		assert_int_equal(
			cr_guid_list_add(&o.io_guids, f->nodes[mgmt].guid), 0);
	}
	cr_options_release(&o);

	/* An io list that does not name the management host: a leaf. */
	cr_options_init(&o);
	assert_int_equal(
		cr_guid_list_add(&o.io_guids, f->nodes[host[0][0]].guid), 0);
	assert_int_equal(cr_roles_init(&roles, f, &o), 0);
	assert_true(roles.leaf[f->nodes[spine[0]].sw_index]);
	assert_true(cr_roles_is_cn(&roles, mgmt, 1));
	assert_false(cr_roles_is_cn(&roles, host[0][0], 1));
	assert_int_equal(roles.num_leaves, 5);
	cr_roles_release(&roles);
	cr_options_release(&o);

	/* A cn list: its port GUID names the host; one leaf. */
	cr_options_init(&o);
	assert_int_equal(cr_guid_list_add(&o.cn_guids,
					  f->nodes[host[1][2]].ports[1].guid),
			 0);
	assert_int_equal(cr_roles_init(&roles, f, &o), 0);
	assert_int_equal(roles.num_leaves, 1);
	assert_true(roles.leaf[f->nodes[leaf[1]].sw_index]);
	assert_true(cr_roles_is_cn(&roles, host[1][2], 1));
	assert_false(cr_roles_is_cn(&roles, host[1][1], 1));
	cr_roles_release(&roles);
	cr_options_release(&o);

	/* Roots: a switch, the management host by its port GUID, and an
	 * unknown GUID (skipped). */
	cr_options_init(&o);
	assert_int_equal(cr_guid_list_add(&o.root_guids, 0xdeadbeef), 0);
	assert_int_equal(
		cr_guid_list_add(&o.root_guids, f->nodes[spine[2]].guid), 0);
	assert_int_equal(
		cr_guid_list_add(&o.root_guids, f->nodes[mgmt].ports[1].guid),
		0);
	assert_int_equal(cr_roots_from_guids(f, &o.root_guids, "test", is_root),
			 2);
	assert_true(is_root[f->nodes[spine[0]].sw_index]);
	assert_true(is_root[f->nodes[spine[2]].sw_index]);
	assert_false(is_root[f->nodes[spine[1]].sw_index]);
	for (unsigned i = 0; i < 2; i++) {
		const char *e = i ? "ftree" : "updn";
		struct cr_routing *r = cr_routing_new(f);

		/* both engines take the same roots */
		assert_int_equal(cr_route(cr_engine_find(e), f, &o, r), 0);
		cr_routing_free(r);
	}
	cr_options_release(&o);
	cr_options_init(&o);
	assert_int_equal(cr_guid_list_add(&o.root_guids, 0xdeadbeef), 0);
	memset(is_root, 0, sizeof(is_root));
	assert_int_equal(cr_roots_from_guids(f, &o.root_guids, "test", is_root),
			 -1);
	cr_options_release(&o);
	cr_fabric_free(f);
}

/* Two rings without a link between them: each is routed on its own. */
static void test_disconnected(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct cr_routing *r;

	for (unsigned i = 0; i < 8; i++)
		tu_switch(f, 3, i + 1);
	for (unsigned i = 0; i < 4; i++) {
		tu_link(f, i, 1, (i + 1) % 4, 2);
		tu_link(f, 4 + i, 1, 4 + (i + 1) % 4, 2);
	}
	for (unsigned i = 0; i < 8; i++)
		tu_link(f, i, 3, tu_host(f, i), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route(f, "updn", NULL);
	/* One root in each ring. */
	assert_int_equal(by.num_roots, 2);
	assert_true((by.roots[0] < 4) != (by.roots[1] < 4));
	for (unsigned a = 0; a < 8; a++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t d = cr_lid_switch(f, lid, NULL);
			int h = cr_routing_hops(f, r, a, lid);

			if ((d < 4) == (a < 4))
				assert_true(h >= 0);
			else
				assert_int_equal(r->lft[a][lid], CR_NO_PATH);
		}
	assert_true(uf_no_credit_loop(f, r));
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * The central goal: on a two-level director with scrambled spine wiring
 * and full bisection, remote-GUID sorting makes every leaf use its uplinks
 * in the same spine order, so with hosts in leaf order every flow of every
 * shift has its links to itself (for cr-updn and cr-minhop, without
 * sorting too).
 */
static void test_shift_scrambled_director(void **state)
{
	const char *engines[] = {"updn", "minhop"};

	for (unsigned e = 0; e < 2; e++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct cr_fabric *f = uf_director(8, 6, 6, seed, 0);
			struct cr_options o;
			struct cr_routing *r;
			unsigned bad;

			cr_options_init(&o);
			o.remote_guid_sorting = true;
			r = tu_route(f, engines[e], &o);
			assert_int_equal(uf_shift_contention(f, r, &bad), 1);
			cr_routing_free(r);

			/*
			 * Without sorting too: on a tree-like fabric both
			 * engines order the spines by their keys, whatever
			 * the cabling.
			 */
			o.remote_guid_sorting = false;
			r = tu_route(f, engines[e], &o);
			assert_int_equal(uf_shift_contention(f, r, &bad), 1);
			cr_routing_free(r);
			cr_fabric_free(f);
		}
	}
}

/* Shift-pattern bandwidth by the estimator: {average, minimum}. */
static void shift_rates(const struct cr_fabric *f, const struct cr_routing *r,
			double *avg, double *min)
{
	struct cr_pattern shift = {.kind = CR_PAT_SHIFT};
	struct cr_est_params ep;
	struct cr_hosts *hosts = cr_hosts_default(f);
	struct cr_est *est;
	struct cr_est_result *res;

	cr_est_params_init(&ep);
	assert_non_null(hosts);
	est = cr_est_new(f, r, &ep);
	assert_non_null(est);
	res = cr_est_run(est, &shift, hosts);
	assert_non_null(res);
	assert_int_equal(res->unrouted, 0);
	*avg = res->avg_frac;
	*min = res->min_frac;
	cr_est_result_free(res);
	cr_est_free(est);
	cr_hosts_free(hosts);
}

/*
 * The same on `croute gen`'s scrambled director, hosts in the natural
 * order of their names, scored by the estimator: every flow of every
 * shift at the full injection rate, with or without port_shifting, and
 * without any option.
 */
static void test_shift_generated_director(void **state)
{
	const char *engines[] = {"updn", "minhop"};

	for (uint32_t seed = 1; seed <= 2; seed++) {
		struct cr_gen_params p = {.seed = seed};
		struct cr_fabric *f = cr_gen_two_level(12, 8, 8, 8, true, &p);

		assert_non_null(f);
		assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
		for (unsigned e = 0; e < 2; e++) {
			for (unsigned t = 0; t < 3; t++) {
				struct cr_options o;
				struct cr_routing *r;
				double avg, min;

				cr_options_init(&o);
				o.remote_guid_sorting = t > 0;
				/*
				 * Both engines pass CR_PS_SPREAD: their
				 * port_shifting is D-mod-k, not OpenSM's
				 * rotation, and keeps every shift free.
				 */
				o.port_shifting = t == 2;
				r = tu_route(f, engines[e], &o);
				shift_rates(f, r, &avg, &min);
				assert_true(avg > 0.9999);
				assert_true(min > 0.9999);
				cr_routing_free(r);
			}
		}
		cr_fabric_free(f);
	}
}

/* An ordered director is contention free with or without sorting. */
static void test_shift_ordered_director(void **state)
{
	struct cr_fabric *f = uf_director(6, 4, 4, 0, 0);
	struct cr_options o;
	struct cr_routing *r;

	cr_options_init(&o);
	r = tu_route(f, "updn", &o);
	assert_int_equal(uf_shift_contention(f, r, NULL), 1);
	cr_routing_free(r);
	o.remote_guid_sorting = true;
	r = tu_route(f, "updn", &o);
	assert_int_equal(uf_shift_contention(f, r, NULL), 1);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * croute's port_shifting (destination-based, D-mod-k): full k-ary n-trees
 * are free of shift contention (as with cr-updn's flow balance, see
 * test_shift_flow_balance); so are two-level trees with fewer hosts than
 * uplinks per leaf, also when the host count is no multiple of the
 * uplinks (8 x 5 hosts over 6 uplinks: plain selection shares links in
 * the shifts that wrap around from the last host to the first).
 */
static void test_shift_port_shifting(void **state)
{
	struct cr_fabric *fabrics[] = {
		uf_kary(4, 3),
		uf_kary(3, 4),
		uf_kary(2, 5),
		uf_director(12, 5, 6, 0, 0),
		uf_director(12, 5, 6, 11, 0),
		uf_director(10, 5, 6, 0, 0),
		uf_director(8, 5, 6, 3, 0),
		uf_director(7, 3, 4, 5, 0),
	};

	for (unsigned i = 0; i < sizeof(fabrics) / sizeof(*fabrics); i++) {
		struct cr_fabric *f = fabrics[i];
		struct cr_options o;
		struct cr_routing *r;

		cr_options_init(&o);
		o.remote_guid_sorting = true;
		r = tu_route(f, "updn", &o);
		if (i == 5)
			assert_true(uf_shift_contention(f, r, NULL) > 1);
		cr_routing_free(r);
		o.port_shifting = true;
		r = tu_route(f, "updn", &o);
		assert_int_equal(uf_shift_contention(f, r, NULL), 1);
		assert_sound(f, r, true);
		cr_routing_free(r);
		cr_fabric_free(f);
	}
}

/*
 * cr-updn's flow balance without any option: on full k-ary n-trees every
 * flow of every shift has its links to itself (shift 1.0, as cr-ftree).
 * Balancing entries per port instead (as OpenSM's updn and minhop do),
 * every level takes the same residue of the destination's place, so a
 * leaf's destinations on uplink j meet at the top switches reached by
 * port j of the j-th middle switch only: on `croute gen ktree 8 3`
 * cr-updn would use 8 of its 64 top switches and reach shift .2466.
 * Also on `croute gen fat-tree 8` (.3622 with entry counts), by the
 * estimator.
 */
/* k-ary trees: shift free of contention, sound; fat tree: shift 1.0. */
static void check_flow_balance(const struct cr_fabric *f,
			       const struct cr_routing *r, bool kary)
{
	double avg, min;

	if (kary) {
		assert_int_equal(uf_shift_contention(f, r, NULL), 1);
		assert_sound(f, r, true);
		return;
	}
	shift_rates(f, r, &avg, &min);
	assert_true(avg > 0.9999 && min > 0.9999);
}

static void test_shift_flow_balance(void **state)
{
	(void)state;
	uf_each_tree("updn", check_flow_balance);
}

/*
 * `croute gen fat-tree 8` less the first leaf's first uplink: the 16 top
 * switches stay the roots. All detours close a credit loop; those CA
 * traffic needs, turning next to that leaf (up first toward CA switches),
 * do not. CAs reach every LID, every switch every CA LID, no credit loop,
 * shift avg above .93 (.9378; the eccentricity roots give .578).
 */
static void test_roots_top_level_cut(void **state)
{
	struct cr_gen_params p = {.seed = 1};
	struct cr_fabric *f = cr_gen_fat_tree(8, &p);
	struct cr_check_report rep;
	struct cr_routing *r;
	uint32_t leaf = CR_NO_NODE, m;
	unsigned q, roots = 0;
	double avg, min;

	assert_non_null(f);
	for (uint32_t s = 0; s < f->num_switches && leaf == CR_NO_NODE; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (unsigned i = 1; i <= n->num_ports; i++)
			if (n->ports[i].remote != CR_NO_NODE &&
			    !cr_is_switch(f, n->ports[i].remote))
				leaf = f->switches[s];
	}
	assert_int_not_equal(leaf, CR_NO_NODE);
	for (unsigned i = 1; i <= f->nodes[leaf].num_ports; i++) {
		m = f->nodes[leaf].ports[i].remote;
		if (m == CR_NO_NODE || !cr_is_switch(f, m))
			continue;
		q = f->nodes[leaf].ports[i].remote_port;
		f->nodes[leaf].ports[i].remote = CR_NO_NODE;
		f->nodes[leaf].ports[i].remote_port = 0;
		f->nodes[m].ports[q].remote = CR_NO_NODE;
		f->nodes[m].ports[q].remote_port = 0;
		break;
	}
	assert_int_equal(cr_fabric_finalize(f), 0);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route(f, "updn", NULL);
	for (uint32_t s = 0; s < f->num_switches; s++)
		roots += strstr(f->nodes[f->switches[s]].desc, "root") != NULL;
	assert_int_equal(roots, 16);
	assert_int_equal(by.num_roots, 16);
	for (uint32_t i = 0; i < by.num_roots; i++)
		assert_non_null(strstr(f->nodes[by.roots[i]].desc, "root"));
	assert_true(by.updn_detours);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, stderr, 5, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.credit_loops, 0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			if (f->lid_node[lid] != CR_NO_NODE &&
			    !cr_is_switch(f, f->lid_node[lid]))
				assert_true(cr_routing_hops(f, r,
							    f->switches[s],
							    lid) >= 0);
	shift_rates(f, r, &avg, &min);
	assert_true(avg > 0.93);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* LMC with port_shifting: complete, and the LIDs of a port diverse. */
static void test_shift_lmc(void **state)
{
	struct cr_fabric *f = uf_director(4, 3, 4, 9, 2);
	struct cr_options o;
	struct cr_routing *r;

	cr_options_init(&o);
	o.port_shifting = true;
	o.remote_guid_sorting = true;
	r = tu_route(f, "updn", &o);
	assert_sound(f, r, true);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];

		if (f->nodes[sw].num_ports != 7)
			continue; /* spines */
		for (uint32_t n = 0; n < f->num_nodes; n++) {
			const struct cr_port *p = &f->nodes[n].ports[1];
			uint32_t seen = 0;

			if (f->nodes[n].type != CR_NODE_CA || p->remote == sw)
				continue;
			for (unsigned l = 0; l < 4; l++)
				seen |= 1u << r->lft[sw][p->lid + l];
			assert_int_equal(__builtin_popcount(seen), 4);
		}
	}
	cr_routing_free(r);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roots_two_level),
		cmocka_unit_test(test_roots_kary),
		cmocka_unit_test(test_roots_torus),
		cmocka_unit_test(test_roots_ring),
		cmocka_unit_test(test_roots_mesh),
		cmocka_unit_test(test_roots_from_guids),
		cmocka_unit_test(test_roots_top_level),
		cmocka_unit_test(test_roots_top_level_fallback),
		cmocka_unit_test(test_roots_top_level_ca_detours),
		cmocka_unit_test(test_roots_top_level_cut),
		cmocka_unit_test(test_roots_management_nodes),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_cdg_check_sees_loops),
		cmocka_unit_test(test_sound_everywhere),
		cmocka_unit_test(test_lmc),
		cmocka_unit_test(test_disconnected),
		cmocka_unit_test(test_shift_scrambled_director),
		cmocka_unit_test(test_shift_generated_director),
		cmocka_unit_test(test_shift_ordered_director),
		cmocka_unit_test(test_shift_port_shifting),
		cmocka_unit_test(test_shift_flow_balance),
		cmocka_unit_test(test_shift_lmc),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	cr_byproducts_release(&by);
	return rc;
}
