// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cr-dfp on generated dragonfly+ fabrics: every switch has
 * an entry for every CA LID, paths between hosts are minimal on intact
 * fabrics, at most two VLs, and no credit loop on either (cr_check with
 * the path SLs), also with global or leaf-spine cables removed; what it
 * cannot route in two VLs it hands to up*-down*, saying so.
 */
#include <string.h>

#include <croute/route/engine.h>
#include <croute/io/gen.h>

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

/*
 * A leaf's uplinks carry the same number of CA LIDs: each is the only
 * way to the groups of its spine's global cables, and the free picks
 * (toward the leaf's own group) fill them up to even. With a cable
 * between every two groups a group has one turn leaf, so every leaf
 * reaches every other through all spines (two turn leaves reach each
 * other through half of them: 2 LIDs apart); picks on the flows routed
 * so far alone ended 12 apart.
 */
static void test_even_uplinks(void **state)
{
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	struct cr_fabric *f = cr_gen_dragonfly_plus(9, 4, 4, 4, 2, &p);
	struct cr_routing *r;
	unsigned warned = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route_ranked(f, "dfp", 8, &warned);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s], load[CR_MAX_PORTS + 1] = {0};
		uint32_t lo = UINT32_MAX, hi = 0;
		const struct cr_node *nd = &f->nodes[sw];

		if (is_spine(f, sw))
			continue;
		for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t n = f->lid_node[lid];

			if (n != CR_NO_NODE && !cr_is_switch(f, n) &&
			    cr_lid_switch(f, lid, NULL) != sw)
				load[r->lft[sw][lid]]++;
		}
		for (unsigned q = 1; q <= nd->num_ports; q++) {
			uint32_t m = nd->ports[q].remote;

			if (m == CR_NO_NODE || !cr_is_switch(f, m))
				continue;
			lo = load[q] < lo ? load[q] : lo;
			hi = load[q] > hi ? load[q] : hi;
		}
		assert_int_equal(hi, lo);
	}
	cr_routing_free(r);
	cr_fabric_free(f);
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
 * Global cables removed: third groups where needed, never a fall-back
 * to up*-down* nor a credit loop. On these draws of 3 to 6 cuts, some
 * (seeds 7 and 35 on the 9-group fabric, 7, 11 and 27 on the 7-group one)
 * leave a switch of some destination without a rising path in every
 * shuffled group order: a chained order and per-VL trees route them.
 */
static void test_global_cuts(void **state)
{
	static const unsigned shapes[][4] = {{9, 4, 4, 2}, {7, 3, 4, 2}};
	unsigned tried = 0, fell = 0;

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct cr_fabric *f = dfly(shapes[i][0], shapes[i][1],
					   shapes[i][2], shapes[i][3]);

		for (uint64_t seed = 1; seed <= 40; seed++) {
			struct cr_fabric *g = cut(f, 3 + seed % 4, true, seed);

			if (!g)
				continue;
			tried++;
			if (route_and_check(g, 8, false)) {
				fprintf(stderr, "shape %u seed %u fell back\n",
					i, (unsigned)seed);
				fell++;
			}
			cr_fabric_free(g);
		}
		cr_fabric_free(f);
	}
	fprintf(stderr, "fell %u of %u\n", fell, tried);
	assert_true(tried >= 40);
	assert_int_equal(fell, 0);
}

/* The pairs of groups (a, b) whose global cables test_no_order keeps. */
static bool kept_pair(const struct cr_fabric *f, uint32_t n, uint32_t m,
		      const void *arg)
{
	const unsigned(*keep)[2] = arg;
	unsigned a, b;

	if (!is_spine(f, n) || !is_spine(f, m))
		return true;
	assert_int_equal(sscanf(f->nodes[n].desc, "g%u", &a), 1);
	assert_int_equal(sscanf(f->nodes[m].desc, "g%u", &b), 1);
	for (unsigned k = 0; keep[k][0] != keep[k][1]; k++)
		if ((keep[k][0] == a && keep[k][1] == b) ||
		    (keep[k][0] == b && keep[k][1] == a))
			return true;
	return false;
}

/*
 * Where no group order joins every pair of groups by a path of rising
 * places, the rankings cannot route every pair on two VLs: up*-down*, said
 * so. Groups 2 and 3 are cabled to group 1 only, and group 0 to 1 and 4,
 * 4 to 0 and 1. The pair (2, 3) needs 1 between them, say 2 < 1 < 3;
 * then 0 and 4 must be above 1 for the pair (2, 0) (its paths 2-1-0 and
 * 2-1-4-0 both rise from 1), and below it for (3, 0): no order fits.
 */
static void test_no_order(void **state)
{
	static const unsigned keep[][2] = {{0, 1}, {0, 4}, {1, 2},
					   {1, 3}, {1, 4}, {0, 0}};
	struct cr_fabric *f = dfly(5, 2, 2, 2);
	struct cr_fabric *g = cr_fabric_copy(f);

	(void)state;
	assert_non_null(g);
	for (uint32_t s = 0; s < g->num_switches; s++) {
		uint32_t n = g->switches[s];

		for (unsigned p = 1; p <= g->nodes[n].num_ports; p++) {
			uint32_t m = g->nodes[n].ports[p].remote;
			struct cr_fabric *h;

			if (m == CR_NO_NODE || !cr_is_switch(g, m) ||
			    kept_pair(g, n, m, keep))
				continue;
			h = tu_cut_link(g, n, p);
			cr_fabric_free(g);
			g = h;
		}
	}
	assert_true(tu_connected(g));
	assert_int_equal(route_and_check(g, 8, false), 1);
	cr_fabric_free(g);
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

/* One VL: up*-down*, with a warning; a fabric of another kind: refused. */
static void test_fall_back(void **state)
{
	struct cr_fabric *f = dfly(9, 4, 4, 2);
	struct cr_fabric *t = tu_ring(6);

	(void)state;
	assert_int_equal(route_and_check(f, 1, false), 1);
	tu_assert_not_its("dfp", t);
	cr_fabric_free(f);
	cr_fabric_free(t);
}

/* Whether cr-dfp's own check vouched for f's tables (by->vls_ranked). */
static bool ranked(const struct cr_fabric *f, unsigned max_vls)
{
	struct cr_byproducts by = {0};
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	bool v;

	assert_non_null(r);
	cr_options_init(&o);
	o.max_vls = (uint8_t)max_vls;
	cr_log_set(tu_count_warnings, NULL, CR_LOG_WARN);
	assert_int_equal(cr_route_by(cr_engine_find("dfp"), f, &o, r, &by), 0);
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	v = by.vls_ranked;
	cr_byproducts_release(&by);
	cr_routing_free(r);
	return v;
}

/*
 * cr-auto trusts the engine's check for its credit-loop part only when
 * the tables are the engine's ranked ones, never up*-down*'s fall-back.
 */
static void test_vouched(void **state)
{
	struct cr_fabric *f = dfly(9, 4, 4, 2);
	struct cr_fabric *t = tu_ring(6);

	(void)state;
	assert_true(ranked(f, 8));
	assert_false(ranked(f, 1));
	tu_assert_not_its("dfp", t);
	cr_fabric_free(f);
	cr_fabric_free(t);
}

/* cr-dfp's VLs for cr-auto's cap (by->native_vls): dragonflies+ only. */
static uint8_t native_vls(const struct cr_fabric *f)
{
	struct cr_byproducts by = {0};
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	uint8_t v;

	assert_non_null(r);
	cr_options_init(&o);
	cr_log_set(tu_count_warnings, NULL, CR_LOG_WARN);
	assert_int_equal(cr_route_by(cr_engine_find("dfp"), f, &o, r, &by), 0);
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	v = by.native_vls;
	cr_byproducts_release(&by);
	cr_routing_free(r);
	return v;
}

/*
 * A dragonfly+ says how many VLs it took; a two-level tree (one group)
 * and a three-level tree (top switches without leaves) are no
 * dragonflies+: cr-dfp refuses them.
 */
static void test_native_vls(void **state)
{
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	struct cr_fabric *f = dfly(5, 4, 4, 4);
	struct cr_fabric *t = cr_gen_two_level(6, 4, 4, 4, false, &p);
	struct cr_fabric *k = cr_gen_kary_ntree(4, 3, &p);

	(void)state;
	assert_non_null(t);
	assert_non_null(k);
	assert_int_equal(cr_fabric_assign_lids(t, 0), 0);
	assert_int_equal(cr_fabric_assign_lids(k, 0), 0);
	assert_int_equal(native_vls(f), 2);
	assert_int_equal(cr_dfp_is_dragonfly(f), 1);
	assert_int_equal(cr_dfp_is_dragonfly(t), 0);
	assert_int_equal(cr_dfp_is_dragonfly(k), 0);
	tu_assert_not_its("dfp", t);
	tu_assert_not_its("dfp", k);
	cr_fabric_free(f);
	cr_fabric_free(t);
	cr_fabric_free(k);
}

/*
 * With global balance, on a dragonfly+ where every two groups share a
 * cable, a leaf's path to a host is minimal whichever spine it takes, so
 * its picks are those of cr-minhop's global balance, which routes the
 * same CA LIDs in the same order on the same path weights. A switch's
 * own LID, routed among the CA LIDs here, must not weigh on them.
 */
static void test_global_as_minhop(void **state)
{
	static const unsigned shapes[][5] = {
		{12, 4, 4, 2, 3},
		{9, 4, 4, 4, 2},
		{12, 8, 6, 2, 5},
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
		const unsigned *sh = shapes[i];
		struct cr_fabric *f = cr_gen_dragonfly_plus(sh[0], sh[1], sh[2],
							    sh[3], sh[4], &p);
		struct cr_routing *d, *m;
		struct cr_options o;

		assert_non_null(f);
		assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
		cr_options_init(&o);
		o.balance_global = true;
		d = cr_routing_new(f);
		m = cr_routing_new(f);
		assert_non_null(d);
		assert_non_null(m);
		assert_int_equal(cr_route(cr_engine_find("dfp"), f, &o, d), 0);
		assert_int_equal(cr_route(cr_engine_find("minhop"), f, &o, m),
				 0);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint32_t sw = f->switches[s];

			if (is_spine(f, sw))
				continue;
			for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
				uint32_t n = f->lid_node[lid];

				if (n != CR_NO_NODE && !cr_is_switch(f, n))
					assert_int_equal(d->lft[sw][lid],
							 m->lft[sw][lid]);
			}
		}
		cr_routing_free(d);
		cr_routing_free(m);
		cr_fabric_free(f);
	}
}

/*
 * cr-dfp with global balance, rounds of rip-up and reroute or none, on
 * at most two VLs, checked (tu_route_ranked_opts()).
 */
static struct cr_routing *route_global(const struct cr_fabric *f,
				       unsigned rounds)
{
	struct cr_options o;
	unsigned warned = 0;

	cr_options_init(&o);
	o.max_vls = 2;
	o.balance_global = true;
	o.balance_rounds = rounds;
	return tu_route_ranked_opts(f, "dfp", &o, &warned);
}

/*
 * The most CA-to-CA routes on one global cable (one direction), and
 * the sum of their squares: routes walked through the tables.
 */
static uint64_t global_load(const struct cr_fabric *f,
			    const struct cr_routing *r, uint64_t *squares)
{
	size_t stride = CR_MAX_PORTS + 1;
	uint32_t *load = calloc((size_t)f->num_nodes * stride, sizeof(*load));
	uint64_t most = 0;

	assert_non_null(load);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];
		unsigned cas = 0;

		for (unsigned p = 1; p <= f->nodes[sw].num_ports; p++) {
			uint32_t m = f->nodes[sw].ports[p].remote;

			cas += m != CR_NO_NODE && !cr_is_switch(f, m);
		}
		for (uint16_t lid = 1; cas && lid <= f->max_lid; lid++) {
			uint32_t n = f->lid_node[lid], at = sw;

			if (n == CR_NO_NODE || cr_is_switch(f, n))
				continue;
			for (unsigned hops = 0; hops < 16; hops++) {
				uint8_t p = r->lft[at][lid];
				uint32_t m;

				assert_true(p && p <= f->nodes[at].num_ports);
				m = f->nodes[at].ports[p].remote;
				if (!cr_is_switch(f, m))
					break;
				if (is_spine(f, at) && is_spine(f, m))
					load[(size_t)at * stride + p] += cas;
				at = m;
			}
		}
	}
	*squares = 0;
	for (size_t i = 0; i < (size_t)f->num_nodes * stride; i++) {
		most = load[i] > most ? load[i] : most;
		*squares += (uint64_t)load[i] * load[i];
	}
	free(load);
	return most;
}

/*
 * Rip-up and reroute: each CA LID taken out of the path weights and
 * routed again against all the others, on the same candidates, so the
 * ranks, and with them freedom from credit loops, hold. Where group
 * pairs share two or three cables the global cables come out more even.
 */
static void test_reroute(void **state)
{
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	struct cr_fabric *f = cr_gen_dragonfly_plus(12, 8, 6, 2, 5, &p);
	struct cr_routing *a, *b;
	uint64_t most_a, most_b, sq_a, sq_b;
	unsigned tried = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	a = route_global(f, 0);
	b = route_global(f, cr_rr_rounds(cr_engine_find("dfp")));
	most_a = global_load(f, a, &sq_a);
	most_b = global_load(f, b, &sq_b);
	fprintf(stderr,
		"global cables: most %llu -> %llu, squares %llu -> %llu\n",
		(unsigned long long)most_a, (unsigned long long)most_b,
		(unsigned long long)sq_a, (unsigned long long)sq_b);
	assert_true(most_b < most_a);
	assert_true(sq_b < sq_a);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);

	/* With global cables cut: complete, two VLs, no credit loop. */
	f = dfly(9, 4, 4, 2);
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct cr_fabric *g = cut(f, 3 + seed % 4, true, seed);

		if (!g)
			continue;
		cr_routing_free(
			route_global(g, cr_rr_rounds(cr_engine_find("dfp"))));
		cr_fabric_free(g);
		tried++;
	}
	assert_true(tried >= 8);
	cr_fabric_free(f);
}

/*
 * The same tables and SLs on every run, whatever the threads; 648 LIDs,
 * so that the final check runs on more than one.
 */
static void test_deterministic(void **state)
{
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	struct cr_fabric *f = dfly(7, 2, 3, 2);
	struct cr_fabric *g = cr_gen_dragonfly_plus(9, 4, 4, 16, 2, &p);
	unsigned warned = 0;

	(void)state;
	tu_assert_same_runs(f, "dfp");
	assert_non_null(g);
	assert_int_equal(cr_fabric_assign_lids(g, 0), 0);
	assert_true(g->max_lid >= 512);
	cr_threads_set(4);
	cr_routing_free(tu_route_ranked(g, "dfp", 8, &warned));
	cr_threads_set(0);
	assert_int_equal(warned, 0);
	tu_assert_same_runs(g, "dfp");
	cr_fabric_free(f);
	cr_fabric_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact),
		cmocka_unit_test(test_even_uplinks),
		cmocka_unit_test(test_global_cuts),
		cmocka_unit_test(test_leaf_cuts),
		cmocka_unit_test(test_no_order),
		cmocka_unit_test(test_fall_back),
		cmocka_unit_test(test_vouched),
		cmocka_unit_test(test_native_vls),
		cmocka_unit_test(test_global_as_minhop),
		cmocka_unit_test(test_reroute),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
