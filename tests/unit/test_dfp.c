// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cr-dfp on generated dragonfly+ fabrics: every switch has
 * an entry for every CA LID, paths between hosts are minimal on intact
 * fabrics, at most two VLs, and no credit loop on either (cr_check with
 * the path SLs), also with global or leaf-spine cables removed; what it
 * cannot route in two VLs it hands to up*-down*, saying so.
 */
#include <string.h>

#include <croute/gen.h>

#include "ranked_util.h"

static struct cr_fabric *dfly(unsigned groups, unsigned leaves, unsigned spines,
			      unsigned global)
{
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	struct cr_fabric *f =
		cr_gen_dragonfly_plus(groups, leaves, spines, 2, global, &p);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static bool is_spine(const struct cr_fabric *f, uint32_t n)
{
	return cr_is_switch(f, n) && strstr(f->nodes[n].desc, "-spine-");
}

/*
 * Routes f with cr-dfp and checks it: returns the warnings logged (a
 * fall-back says why). With minimal, every path from a leaf to a CA is
 * as short as the fabric allows.
 */
static unsigned route_and_check(const struct cr_fabric *f, unsigned max_vls,
				bool minimal)
{
	unsigned warned = 0;
	struct cr_routing *r = tu_route_ranked(f, "dfp", max_vls, &warned);
	uint8_t *dist = cr_switch_distances(f);

	assert_non_null(dist);
	for (unsigned sl = 0; sl < 16; sl++)
		assert_true(r->sl2vl[sl] < r->num_layers || sl >= 2);
	for (uint32_t s = 0; minimal && s < f->num_switches; s++)
		for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t n = f->lid_node[lid], d;

			if (n == CR_NO_NODE || cr_is_switch(f, n) ||
			    is_spine(f, f->switches[s]))
				continue;
			d = cr_lid_switch(f, lid, NULL);
			assert_int_equal(
				cr_routing_hops(f, r, f->switches[s], lid),
				dist[(size_t)s * f->num_switches +
				     f->nodes[d].sw_index] +
					1);
		}
	free(dist);
	cr_routing_free(r);
	return warned;
}

static void test_intact(void **state)
{
	static const unsigned shapes[][4] = {
		{9, 4, 4, 2},
		{5, 3, 2, 2},
		{7, 2, 3, 2},
		{4, 1, 3, 1},
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct cr_fabric *f = dfly(shapes[i][0], shapes[i][1],
					   shapes[i][2], shapes[i][3]);

		assert_int_equal(route_and_check(f, 8, true), 0);
		cr_fabric_free(f);
	}
}

/* Whether the cable n-m joins two spines (global) or not (!global). */
static bool global_or_not(const struct cr_fabric *f, uint32_t n, uint32_t m,
			  const void *arg)
{
	return (is_spine(f, n) && is_spine(f, m)) == *(const bool *)arg;
}

/*
 * A copy of f less count cables between switches, drawn with seed among
 * the global ones (spine to spine) or the leaf-spine ones; NULL when the
 * fabric falls apart.
 */
static struct cr_fabric *cut(const struct cr_fabric *f, unsigned count,
			     bool global, uint64_t seed)
{
	return tu_cut_random(f, count, seed, global_or_not, &global);
}

/*
 * Global cables removed: third groups where needed. A fall-back to
 * up*-down* is allowed, never a credit loop, and it must stay rare: on
 * these cuts one in twenty draws needs it (a leaf's traffic to a spine's
 * LID finds no rising path in any group order tried).
 */
static void test_global_cuts(void **state)
{
	struct cr_fabric *f = dfly(9, 4, 4, 2);
	unsigned tried = 0, fell = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		struct cr_fabric *g = cut(f, 3 + seed % 4, true, seed);

		if (!g)
			continue;
		tried++;
		fell += route_and_check(g, 8, false) != 0;
		cr_fabric_free(g);
	}
	assert_true(tried >= 12);
	assert_true(fell * 10 <= tried);
	cr_fabric_free(f);
}

/* Leaf-spine cables removed: complete and loop-free all the same. */
static void test_leaf_cuts(void **state)
{
	struct cr_fabric *f = dfly(5, 3, 3, 2);

	(void)state;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct cr_fabric *g = cut(f, 1 + seed % 3, false, seed);

		if (!g)
			continue;
		route_and_check(g, 8, false);
		cr_fabric_free(g);
	}
	cr_fabric_free(f);
}

/* One VL, or a fabric of another kind: up*-down*, with a warning. */
static void test_fall_back(void **state)
{
	struct cr_fabric *f = dfly(9, 4, 4, 2);
	struct cr_fabric *t = tu_ring(6);

	(void)state;
	assert_int_equal(route_and_check(f, 1, false), 1);
	assert_int_equal(route_and_check(t, 8, false), 1);
	cr_fabric_free(f);
	cr_fabric_free(t);
}

/* The same tables and SLs on every run. */
static void test_deterministic(void **state)
{
	struct cr_fabric *f = dfly(7, 2, 3, 2);

	(void)state;
	tu_assert_same_runs(f, "dfp");
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact),
		cmocka_unit_test(test_global_cuts),
		cmocka_unit_test(test_leaf_cuts),
		cmocka_unit_test(test_fall_back),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
