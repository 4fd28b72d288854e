// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of cr-minhop: completeness, minimality, balance, LMC. */
#include <string.h>

#include <croute/model/check.h>
#include <croute/io/gen.h>
#include <croute/model/hops.h>
#include <croute/route/portsel.h>

#include "updn_fabrics.h"

static void assert_complete_minimal(const struct cr_fabric *f,
				    const struct cr_routing *r)
{
	struct cr_check_report rep;

	assert_int_equal(cr_check(f, r, CR_CHECK_MINIMAL | CR_CHECK_SWITCHES,
				  stderr, 5, &rep),
			 0);
	assert_true(rep.pairs > 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.non_minimal, 0);
}

static void test_every_lid_routed(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 3, 3, NULL, 0);
	struct cr_routing *r = tu_route(f, "cr-minhop", NULL);

	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];

		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			assert_int_not_equal(r->lft[sw][lid], CR_NO_PATH);
		/* Its own LID goes to port 0. */
		assert_int_equal(r->lft[sw][f->nodes[sw].ports[0].lid], 0);
		/* LID 0 and unused LIDs stay empty. */
		assert_int_equal(r->lft[sw][0], CR_NO_PATH);
	}
	assert_complete_minimal(f, r);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * On a leaf with as many uplinks as remote hosts per leaf, routing hosts
 * leaf by leaf with least-loaded selection sends host i of every leaf over
 * uplink i: each uplink carries the same number of host LIDs.
 */
static void test_uplinks_balanced(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 4, 4, NULL, 0);
	struct cr_routing *r = tu_route(f, "minhop", NULL);

	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];
		unsigned load[9] = {0};

		if (f->nodes[sw].num_ports != 8)
			continue; /* spines */
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint8_t p = r->lft[sw][lid];

			if (!cr_is_switch(f, f->lid_node[lid]) && p > 4)
				load[p]++;
		}
		/* 12 remote hosts over 4 uplinks. */
		for (unsigned p = 5; p <= 8; p++)
			assert_int_equal(load[p], 3);
	}
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* Parallel links between two switches are used evenly. */
static void test_parallel_links(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t a = tu_switch(f, 8, 1), b = tu_switch(f, 8, 2);
	struct cr_routing *r;
	unsigned load[9] = {0};

	for (unsigned i = 0; i < 4; i++)
		tu_link(f, a, 5 + i, b, 5 + i);
	for (unsigned i = 0; i < 4; i++) {
		tu_link(f, a, 1 + i, tu_host(f, i), 1);
		tu_link(f, b, 1 + i, tu_host(f, 4 + i), 1);
	}
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route(f, "minhop", NULL);
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (f->lid_node[lid] >= 2 && r->lft[a][lid] >= 5)
			load[r->lft[a][lid]]++;
	for (unsigned p = 5; p <= 8; p++)
		assert_int_equal(load[p], 1);
	assert_complete_minimal(f, r);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* With LMC 2, a port's four LIDs leave over four different uplinks. */
static void test_lmc_diversity(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 2, 4, NULL, 2);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	uint32_t leaf0 = f->switches[4];

	assert_int_equal(f->nodes[leaf0].num_ports, 6);
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t dst = f->lid_node[lid];
		unsigned seen = 0;

		if (dst == CR_NO_NODE || cr_is_switch(f, dst) ||
		    f->nodes[dst].ports[1].lid != lid ||
		    f->nodes[dst].ports[1].remote == leaf0)
			continue;
		for (unsigned l = 0; l < 4; l++)
			seen |= 1u << r->lft[leaf0][lid + l];
		assert_int_equal(__builtin_popcount(seen), 4);
	}
	assert_complete_minimal(f, r);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_deterministic(void **state)
{
	struct cr_fabric *f = tu_ring(7);
	struct cr_routing *a = tu_route(f, "minhop", NULL);
	struct cr_routing *b = tu_route(f, "minhop", NULL);

	for (uint32_t s = 0; s < f->num_switches; s++)
		assert_memory_equal(a->lft[f->switches[s]],
				    b->lft[f->switches[s]], f->max_lid + 1);
	assert_complete_minimal(f, a);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);
}

/* A switch cut off from the rest keeps its own LID and nothing else. */
static void test_disconnected(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t a = tu_switch(f, 4, 1), b = tu_switch(f, 4, 2);
	struct cr_routing *r;
	struct cr_check_report rep;

	tu_link(f, a, 1, tu_host(f, 1), 1);
	tu_link(f, b, 1, tu_host(f, 2), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route(f, "minhop", NULL);
	assert_int_equal(r->lft[a][f->nodes[b].ports[0].lid], CR_NO_PATH);
	assert_int_equal(r->lft[a][f->nodes[a].ports[0].lid], 0);
	assert_int_equal(cr_check(f, r, 0, NULL, 0, &rep), 0);
	/* Each host misses the other switch and the other host. */
	assert_int_equal(rep.unreachable, 4);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * Flow balance on tree-like fabrics: on full k-ary n-trees and a
 * generated fat tree every flow of every shift has its links to itself,
 * paths still minimal. Counting routes per port, every level picked by
 * the same residue of the destination's place and only k of the k^2 top
 * switches carried CA traffic: contention 4, 9 and 8 on these k-ary
 * trees, shift .2466 on `croute gen ktree 8 3`. port_shifting keeps its
 * own rule (D-mod-k), which is free of contention here as well.
 */
/* Shift free of contention, complete and minimal, also port_shifting. */
static void check_flow_balance(const struct cr_fabric *f,
			       const struct cr_routing *r, bool kary)
{
	struct cr_routing *ps;
	struct cr_options o;

	assert_int_equal(uf_shift_contention(f, r, NULL), 1);
	assert_complete_minimal(f, r);
	if (!kary)
		return;
	cr_options_init(&o);
	o.port_shifting = true;
	ps = tu_route(f, "minhop", &o);
	assert_int_equal(uf_shift_contention(f, ps, NULL), 1);
	assert_complete_minimal(f, ps);
	cr_routing_free(ps);
}

static void test_shift_flow_balance(void **state)
{
	(void)state;
	uf_each_tree("minhop", check_flow_balance);
}

/*
 * croute_balance first: every switch takes the lowest-numbered port on a
 * shortest path. croute gen cables a mesh by dimension (ports X+, X-, Y+,
 * Y-, ...), so that is dimension-order routing, free of credit loops on a
 * mesh, where balancing by route counts closes some.
 */
static void test_balance_first(void **state)
{
	const unsigned dims[] = {3, 3, 3};
	struct cr_gen_params p = {.seed = 1};
	struct cr_fabric *f = cr_gen_torus(dims, 3, false, 2, &p);
	uint8_t *dist;
	struct cr_routing *r;
	struct cr_options o;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route(f, "minhop", NULL);
	assert_int_equal(cr_credit_loop_any(f, r), 1);
	cr_routing_free(r);
	cr_options_init(&o);
	o.balance_first = true;
	r = tu_route(f, "minhop", &o);
	assert_complete_minimal(f, r);
	assert_int_equal(cr_credit_loop_any(f, r), 0);
	/* the first port, by number, of those on a shortest path */
	dist = cr_switch_distances(f);
	assert_non_null(dist);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t d = cr_lid_switch(f, lid, NULL);
			uint32_t di, ns = f->num_switches;
			unsigned want = 0;

			if (d == CR_NO_NODE || d == f->switches[s])
				continue;
			di = f->nodes[d].sw_index;
			for (unsigned q = 1; q <= n->num_ports && !want; q++) {
				uint32_t m = n->ports[q].remote;

				if (m != CR_NO_NODE && cr_is_switch(f, m) &&
				    dist[(size_t)f->nodes[m].sw_index * ns +
					 di] + 1 ==
					    dist[(size_t)s * ns + di])
					want = q;
			}
			assert_int_equal(r->lft[f->switches[s]][lid], want);
		}
	}
	free(dist);
	cr_routing_free(r);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_lid_routed),
		cmocka_unit_test(test_uplinks_balanced),
		cmocka_unit_test(test_parallel_links),
		cmocka_unit_test(test_lmc_diversity),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_disconnected),
		cmocka_unit_test(test_shift_flow_balance),
		cmocka_unit_test(test_balance_first),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
