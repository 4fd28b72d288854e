// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cr-hyperx on generated HyperX fabrics: every switch has
 * an entry for every CA LID; on intact fabrics one VL and paths that are
 * minimal and dimension-ordered (the generator's "sw-x-y-z" names give
 * the coordinates), with the trunk cables of a hop sharing its LIDs;
 * with three switch-to-switch cables removed at most two VLs, and no
 * credit loop on any (cr_check with the path SLs); the same tables every
 * run.
 */
#include <stdio.h>
#include <string.h>

#include <croute/io/gen.h>

#include "ranked_util.h"

static struct cr_fabric *hyperx(unsigned a, unsigned b, unsigned c,
				unsigned trunk)
{
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	unsigned dims[3] = {a, b, c};
	struct cr_fabric *f = cr_gen_hyperx(dims, c ? 3 : 2, 2, trunk, &p);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/* Switch node n's coordinates from its name "sw-x-y[-z]". */
static void coords(const struct cr_fabric *f, uint32_t n, unsigned c[3])
{
	c[2] = 0;
	assert_true(sscanf(f->nodes[n].desc, "sw-%u-%u-%u", &c[0], &c[1],
			   &c[2]) >= 2);
}

/*
 * The path from switch node n to lid changes one coordinate a hop, in
 * rising dimensions, each to the destination's: minimal and ordered.
 */
static void check_ordered(const struct cr_fabric *f, const struct cr_routing *r,
			  uint32_t n, uint16_t lid)
{
	uint32_t d = cr_lid_switch(f, lid, NULL);
	unsigned want[3], at[3], next[3];
	int last = -1;

	coords(f, d, want);
	while (n != d) {
		uint8_t p = r->lft[n][lid];
		uint32_t m = f->nodes[n].ports[p].remote;
		int changed = -1;

		assert_true(cr_is_switch(f, m));
		coords(f, n, at);
		coords(f, m, next);
		for (int i = 0; i < 3; i++)
			if (at[i] != next[i]) {
				assert_int_equal(changed, -1);
				changed = i;
			}
		assert_true(changed > last);
		assert_int_equal(next[changed], want[changed]);
		last = changed;
		n = m;
	}
}

/*
 * Routes f with cr-hyperx, checks it complete and free of credit loops;
 * returns the warnings logged (a fall-back says why). With intact, one
 * VL and dimension-ordered paths.
 */
static unsigned route_and_check(const struct cr_fabric *f, unsigned max_vls,
				bool intact)
{
	unsigned warned = 0;
	struct cr_routing *r = tu_route_ranked(f, "hyperx", max_vls, &warned);

	if (intact)
		assert_int_equal(r->num_layers, 1);
	for (uint32_t s = 0; intact && s < f->num_switches; s++)
		for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t n = f->lid_node[lid];

			if (n != CR_NO_NODE && !cr_is_switch(f, n))
				check_ordered(f, r, f->switches[s], lid);
		}
	cr_routing_free(r);
	return warned;
}

static void test_intact(void **state)
{
	static const unsigned shapes[][4] = {
		{4, 4, 0, 1},
		{4, 3, 0, 2},
		{3, 3, 3, 1},
		{4, 2, 3, 2},
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct cr_fabric *f = hyperx(shapes[i][0], shapes[i][1],
					     shapes[i][2], shapes[i][3]);

		assert_int_equal(route_and_check(f, 8, true), 0);
		assert_int_equal(route_and_check(f, 1, true), 0);
		cr_fabric_free(f);
	}
}

/*
 * The trunk cables of a hop share its CA LIDs: on each switch, the
 * cables to one neighbour carry counts at most one apart.
 */
static void test_trunks(void **state)
{
	struct cr_fabric *f = hyperx(4, 4, 0, 3);
	struct cr_routing *r = tu_route(f, "hyperx", NULL);
	unsigned used[64];

	(void)state;
	assert_non_null(r);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];
		const struct cr_node *x = &f->nodes[n];

		assert_true(x->num_ports < 64);
		memset(used, 0, sizeof(used));
		for (uint16_t lid = 1; lid <= f->max_lid; lid++)
			if (f->lid_node[lid] != CR_NO_NODE &&
			    !cr_is_switch(f, f->lid_node[lid]))
				used[r->lft[n][lid]]++;
		for (unsigned p = 1; p <= x->num_ports; p++)
			for (unsigned q = 1; q <= x->num_ports; q++) {
				if (!cr_is_switch(f, x->ports[p].remote) ||
				    x->ports[p].remote != x->ports[q].remote)
					continue;
				assert_true(used[p] <= used[q] + 1);
			}
	}
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* A copy of f less count switch-to-switch cables drawn with seed. */
static struct cr_fabric *cut(const struct cr_fabric *f, unsigned count,
			     uint64_t seed)
{
	return tu_cut_random(f, count, seed, NULL, NULL);
}

/* Three cables removed: two VLs at most, no fall-back, no credit loop. */
static void test_cuts(void **state)
{
	static const unsigned shapes[][4] = {
		{4, 4, 0, 1},
		{3, 3, 3, 1},
		{5, 4, 0, 2},
		{2, 2, 2, 1},
	};
	unsigned tried = 0, fell = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct cr_fabric *f = hyperx(shapes[i][0], shapes[i][1],
					     shapes[i][2], shapes[i][3]);

		for (uint64_t seed = 1; seed <= 10; seed++) {
			struct cr_fabric *g = cut(f, 3, seed + 100 * i);

			if (!g)
				continue;
			tried++;
			fell += route_and_check(g, 8, false) != 0;
			cr_fabric_free(g);
		}
		cr_fabric_free(f);
	}
	fprintf(stderr, "fell %u of %u\n", fell, tried);
	assert_true(tried >= 30);
	assert_int_equal(fell, 0);
}

/*
 * Trees and dragonflies+ (switches without CAs, dimensions that do not
 * fit) are refused; so is a ring of seventy (more dimensions than the
 * engine takes).
 */
static void test_not_hyperx(void **state)
{
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	struct cr_fabric *fs[4] = {
		cr_gen_fat_tree(8, &p),
		cr_gen_two_level(6, 4, 4, 4, false, &p),
		cr_gen_dragonfly_plus(5, 4, 4, 2, 2, &p),
		tu_ring(70),
	};

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		assert_non_null(fs[i]);
		assert_int_equal(cr_fabric_assign_lids(fs[i], 0), 0);
		tu_assert_not_its("hyperx", fs[i]);
		cr_fabric_free(fs[i]);
	}
}

/* One VL where cuts need two: up*-down*, said so. */
static void test_fall_back(void **state)
{
	struct cr_fabric *f = hyperx(3, 3, 3, 1);
	unsigned fell = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct cr_fabric *g = cut(f, 3, seed);

		if (g)
			fell += route_and_check(g, 1, false);
		cr_fabric_free(g);
	}
	assert_true(fell >= 1);
	cr_fabric_free(f);
}

/* The same tables and SLs on every run. */
static void test_deterministic(void **state)
{
	struct cr_fabric *f = hyperx(3, 3, 3, 2);
	struct cr_fabric *g = cut(f, 3, 7);
	struct cr_fabric *fs[2] = {f, g};

	(void)state;
	assert_non_null(g);
	for (unsigned k = 0; k < 2; k++)
		tu_assert_same_runs(fs[k], "hyperx");
	cr_fabric_free(f);
	cr_fabric_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact),
		cmocka_unit_test(test_trunks),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_fall_back),
		cmocka_unit_test(test_not_hyperx),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
