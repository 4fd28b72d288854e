// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cr-dfp on generated dragonfly+ fabrics: every switch has
 * an entry for every CA LID, paths between hosts are minimal on intact
 * fabrics, at most two VLs, and no credit loop on either (cr_check with
 * the path SLs), also with global or leaf-spine cables removed; what it
 * cannot route in two VLs it hands to up*-down*, saying so.
 */
#include <stdio.h>
#include <string.h>

#include <croute/check.h>
#include <croute/gen.h>
#include <croute/hops.h>
#include <croute/log.h>

#include "testutil.h"

static unsigned warnings;

static void count_warnings(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	if (level <= CR_LOG_WARN) {
		/* In the test's log: why cr-dfp fell back. */
		fprintf(stderr, "%s\n", msg);
		warnings++;
	}
}

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

static bool connected(const struct cr_fabric *f)
{
	uint8_t *dist = cr_switch_distances(f);
	bool ok = true;

	assert_non_null(dist);
	for (size_t i = 0; i < (size_t)f->num_switches * f->num_switches; i++)
		ok &= dist[i] != CR_HOPS_INF;
	free(dist);
	return ok;
}

/*
 * Routes f with cr-dfp and checks it: returns the warnings logged (a
 * fall-back says why). With minimal, every path from a leaf to a CA is
 * as short as the fabric allows.
 */
static unsigned route_and_check(const struct cr_fabric *f, unsigned max_vls,
				bool minimal)
{
	struct cr_options o;
	struct cr_routing *r = cr_routing_new(f);
	struct cr_check_report rep;
	uint8_t *dist = cr_switch_distances(f);
	unsigned before = warnings;

	cr_options_init(&o);
	o.max_vls = (uint8_t)max_vls;
	assert_non_null(r);
	assert_non_null(dist);
	cr_log_set(count_warnings, NULL, CR_LOG_WARN);
	assert_int_equal(cr_route(cr_engine_find("dfp"), f, &o, r), 0);
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	assert_non_null(r->sl);
	assert_true(r->num_layers >= 1 && r->num_layers <= 2);
	assert_true(r->num_layers <= max_vls);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	for (unsigned sl = 0; sl < 16; sl++)
		assert_true(r->sl2vl[sl] < r->num_layers || sl >= 2);
	/* Every switch reaches every CA LID. */
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t n = f->lid_node[lid], d;
			int h;

			if (n == CR_NO_NODE || cr_is_switch(f, n))
				continue;
			h = cr_routing_hops(f, r, f->switches[s], lid);
			assert_true(h > 0);
			d = cr_lid_switch(f, lid, NULL);
			if (minimal && !is_spine(f, f->switches[s]))
				assert_int_equal(
					h, dist[(size_t)s * f->num_switches +
						f->nodes[d].sw_index] +
						   1);
		}
	free(dist);
	cr_routing_free(r);
	return warnings - before;
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

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

/*
 * A copy of f less count cables between switches, drawn with seed among
 * the global ones (spine to spine) or the leaf-spine ones; NULL when the
 * fabric falls apart.
 */
static struct cr_fabric *cut(const struct cr_fabric *f, unsigned count,
			     bool global, uint64_t seed)
{
	struct cr_fabric *g = cr_fabric_copy(f);
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;

	assert_non_null(g);
	for (unsigned k = 0; k < count;) {
		uint32_t n = g->switches[rnd(&s) % g->num_switches], m;
		unsigned p = 1 + rnd(&s) % g->nodes[n].num_ports;
		struct cr_fabric *h;

		m = g->nodes[n].ports[p].remote;
		if (m == CR_NO_NODE || !cr_is_switch(g, m) ||
		    (is_spine(g, n) && is_spine(g, m)) != global)
			continue;
		h = tu_cut_link(g, n, p);
		cr_fabric_free(g);
		g = h;
		k++;
	}
	if (!connected(g)) {
		cr_fabric_free(g);
		return NULL;
	}
	return g;
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
	struct cr_routing *a = tu_route(f, "dfp", NULL);
	struct cr_routing *b = tu_route(f, "dfp", NULL);

	(void)state;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];

		assert_memory_equal(a->lft[n], b->lft[n], f->max_lid + 1u);
		assert_memory_equal(a->sl[n], b->sl[n], f->max_lid + 1u);
	}
	cr_routing_free(a);
	cr_routing_free(b);
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
