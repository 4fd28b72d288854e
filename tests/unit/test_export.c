// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The plugin's install (src/plugin/export.c) against OpenSM's switch
 * structures: every hop row it writes must be what installing pair by
 * pair through osm_switch_set_hops would leave, from hop counts walked one
 * (switch, LID) at a time with cr_routing_hops. The rows are built
 * directly and in parallel, so this also covers 1 against 3 threads, and
 * a second sweep into the rows OpenSM keeps (cleared, not freed), and
 * repairs (croute_incremental) whose rows start from their base's counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin.h"

#include <croute/route/engine.h>
#include <croute/io/gen.h>
#include <croute/route/incremental.h>
#include <croute/model/parallel.h>

#include "testutil.h"

/* export.c's only OpenSM call outside headers; as OpenSM does it. */
void osm_switch_clear_hops(osm_switch_t *sw)
{
	for (unsigned i = 0; i < sw->num_hops; i++)
		if (sw->hops[i])
			memset(sw->hops[i], OSM_NO_PATH, sw->num_ports);
}

/* Switches as osm_switch_prepare_path_rebuild() leaves them. */
static osm_switch_t **switches(const struct cr_fabric *f)
{
	osm_switch_t **sws = calloc(f->num_switches, sizeof(*sws));

	assert_non_null(sws);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		osm_switch_t *sw = calloc(1, sizeof(*sw));

		assert_non_null(sw);
		/* the node only names the switch in error messages */
		sw->p_node = calloc(1, sizeof(*sw->p_node));
		assert_non_null(sw->p_node);
		sw->p_node->node_info.node_guid =
			cl_hton64(f->nodes[f->switches[s]].guid);
		sw->num_ports = f->nodes[f->switches[s]].num_ports + 1;
		sw->max_lid_ho = f->max_lid;
		sw->lft_size = (f->max_lid / 64 + 1) * 64;
		sw->new_lft = malloc(sw->lft_size);
		sw->num_hops = f->max_lid + 1u;
		sw->hops = calloc(sw->num_hops, sizeof(*sw->hops));
		assert_non_null(sw->new_lft);
		assert_non_null(sw->hops);
		memset(sw->new_lft, OSM_NO_PATH, sw->lft_size);
		sws[s] = sw;
	}
	return sws;
}

static void switches_free(const struct cr_fabric *f, osm_switch_t **sws)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		for (unsigned i = 0; i < sws[s]->num_hops; i++)
			free(sws[s]->hops[i]);
		free(sws[s]->hops);
		free(sws[s]->new_lft);
		free(sws[s]->p_node);
		free(sws[s]);
	}
	free(sws);
}

/*
 * The rows of switch s by the definition at the top of export.c, each
 * count set the way osm_switch_set_hops sets it: exp[lid * np + port].
 */
static uint8_t *expected(const struct cr_fabric *f, const struct cr_routing *r,
			 uint32_t s, unsigned np)
{
	uint32_t node = f->switches[s];
	uint8_t *exp = malloc(((size_t)f->max_lid + 1) * np);

	assert_non_null(exp);
	memset(exp, OSM_NO_PATH, ((size_t)f->max_lid + 1) * np);
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t t = cr_lid_switch(f, (uint16_t)lid, NULL);
		int h = cr_routing_hops(f, r, node, (uint16_t)lid);
		uint8_t port = r->lft[node][lid], *row;
		bool ca;
		uint16_t at;

		if (t == CR_NO_NODE || h < 0 || port == CR_NO_PATH)
			continue;
		ca = f->lid_node[lid] != t;
		at = ca ? f->nodes[t].ports[0].lid : (uint16_t)lid;
		/* A CA on this very switch: only its port-0 row. */
		if (!at || (ca && h <= 1))
			continue;
		row = exp + (size_t)at * np;
		if (row[port] > h - ca) {
			row[port] = (uint8_t)(h - ca);
			if (row[0] > row[port])
				row[0] = row[port];
		}
	}
	return exp;
}

static void check_rows(const struct cr_fabric *f, const struct cr_routing *r,
		       osm_switch_t **sws)
{
	unsigned rows = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		unsigned np = sws[s]->num_ports;
		uint8_t *exp = expected(f, r, s, np);

		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			const uint8_t *e = exp + (size_t)lid * np;
			const uint8_t *got = sws[s]->hops[lid];
			bool none = true;

			for (unsigned p = 0; p < np; p++)
				none = none && e[p] == OSM_NO_PATH;
			if (!got) {
				assert_true(none);
				continue;
			}
			rows += !none;
			assert_memory_equal(got, e, np);
		}
		assert_memory_equal(sws[s]->new_lft + 1,
				    r->lft[f->switches[s]] + 1, f->max_lid);
		free(exp);
	}
	/* Every switch has at least its own row. */
	assert_true(rows >= f->num_switches);
}

static void one(struct cr_fabric *f, const char *engine)
{
	const struct cr_engine *e = cr_engine_find(engine);
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	osm_switch_t **a, **b;
	uint8_t ***kept;

	assert_non_null(e);
	assert_non_null(r);
	cr_options_init(&o);
	assert_int_equal(cr_route(e, f, &o, r), 0);

	cr_threads_set(1);
	a = switches(f);
	assert_int_equal(cr_export(NULL, f, r, a, NULL, false, true, NULL), 0);
	check_rows(f, r, a);

	/* Without hop rows (croute's multicast trees): the LFTs alone. */
	b = switches(f);
	assert_int_equal(cr_export(NULL, f, r, b, NULL, false, false, NULL), 0);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		assert_memory_equal(b[s]->new_lft + 1,
				    r->lft[f->switches[s]] + 1, f->max_lid);
		for (unsigned i = 0; i < b[s]->num_hops; i++)
			assert_null(b[s]->hops[i]);
	}
	switches_free(f, b);

	cr_threads_set(3);
	b = switches(f);
	assert_int_equal(cr_export(NULL, f, r, b, NULL, false, true, NULL), 0);
	check_rows(f, r, b);

	/* The next sweep: OpenSM clears the rows and keeps them. */
	kept = calloc(f->num_switches, sizeof(*kept));
	assert_non_null(kept);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		size_t n = b[s]->num_hops * sizeof(**kept);

		kept[s] = malloc(n);
		assert_non_null(kept[s]);
		memcpy(kept[s], b[s]->hops, n);
		osm_switch_clear_hops(b[s]);
		memset(b[s]->new_lft, OSM_NO_PATH, b[s]->lft_size);
	}
	assert_int_equal(cr_export(NULL, f, r, b, NULL, false, true, NULL), 0);
	check_rows(f, r, b);
	/* No row allocated anew where one was kept: OpenSM would leak it. */
	for (uint32_t s = 0; s < f->num_switches; s++) {
		for (unsigned i = 0; i < b[s]->num_hops; i++)
			assert_true(!kept[s][i] || kept[s][i] == b[s]->hops[i]);
		free(kept[s]);
	}
	free(kept);

	cr_threads_set(0);
	switches_free(f, a);
	switches_free(f, b);
	cr_routing_free(r);
}

static struct cr_fabric *gen(int which)
{
	struct cr_gen_params p = {.seed = 11};
	unsigned dims[] = {3, 4};
	struct cr_fabric *f = NULL;

	switch (which) {
	case 0:
		f = cr_gen_fat_tree(8, &p);
		break;
	case 1:
		f = cr_gen_kary_ntree(4, 3, &p);
		break;
	case 2:
		f = cr_gen_random(30, 5, 2, &p);
		break;
	case 3:
		f = cr_gen_torus(dims, 2, true, 2, &p);
		break;
	case 4: /* LMC 2: several LIDs per port */
		f = cr_gen_kary_ntree(4, 2, &p);
		assert_non_null(f);
		assert_int_equal(cr_fabric_assign_lids(f, 2), 0);
		return f;
	}
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static void test_trees(void **state)
{
	(void)state;
	for (int w = 0; w < 2; w++) {
		struct cr_fabric *f = gen(w);

		one(f, "minhop");
		one(f, "updn");
		one(f, "ftree");
		cr_fabric_free(f);
	}
}

static void test_others(void **state)
{
	(void)state;
	for (int w = 2; w < 5; w++) {
		struct cr_fabric *f = gen(w);

		one(f, "minhop");
		one(f, "updn");
		cr_fabric_free(f);
	}
}

/*
 * g repaired from base b (whose full run installed its counts into it),
 * installed through the base's counts: the rows must be the ones the
 * definition gives for g's own tables. Returns whether g was repaired.
 */
static bool repair_rows(struct cr_incr_base *b, const char *engine,
			const struct cr_fabric *g)
{
	struct cr_routing *r = cr_routing_new(g);
	struct cr_incr_stats st;
	struct cr_options o;
	osm_switch_t **sws;
	bool done;

	assert_non_null(r);
	cr_options_init(&o);
	done = !cr_route_incremental(b, cr_engine_find(engine), g, &o, r, NULL,
				     &st);
	if (done) {
		sws = switches(g);
		assert_int_equal(
			cr_export(NULL, g, r, sws, b, true, true, NULL), 0);
		check_rows(g, r, sws);
		switches_free(g, sws);
	}
	cr_routing_free(r);
	return done;
}

static void test_repairs(void **state)
{
	(void)state;
	for (int w = 0; w < 2; w++) {
		struct cr_fabric *f = gen(w);
		const char *engines[] = {"minhop", "updn", "ftree"};

		for (unsigned k = 0; k < 3; k++) {
			struct cr_byproducts by = {0};
			struct cr_routing *r;
			struct cr_incr_base *b;
			struct cr_options o;
			osm_switch_t **sws;
			struct cr_fabric *g;
			unsigned cuts = 0, repaired = 0;

			cr_options_init(&o);
			r = tu_route_by(f, engines[k], &o, &by);
			b = cr_incr_base_new(cr_engine_find(engines[k]), f, &o,
					     r, &by);
			assert_non_null(b);
			sws = switches(f);
			assert_int_equal(cr_export(NULL, f, r, sws, b, false,
						   true, NULL),
					 0);
			check_rows(f, r, sws);
			assert_non_null(cr_incr_base_hops(b));
			switches_free(f, sws);

			/* The base's fabric again: its counts as they are. */
			g = cr_fabric_copy(f);
			assert_true(repair_rows(b, engines[k], g));
			cr_fabric_free(g);
			/* Each switch's first two links, and a host link. */
			for (uint32_t s = 0; s < f->num_switches; s++) {
				uint32_t n = f->switches[s];

				for (unsigned p = 1; p <= f->nodes[n].num_ports;
				     p++) {
					uint32_t m =
						f->nodes[n].ports[p].remote;

					if (m == CR_NO_NODE ||
					    (cr_is_switch(f, m) && p > 2) ||
					    (!cr_is_switch(f, m) && s))
						continue;
					g = tu_cut_link(f, n, p);
					repaired +=
						repair_rows(b, engines[k], g);
					cuts++;
					cr_fabric_free(g);
				}
			}
			/* Most cuts are repairs, not full runs. */
			assert_true(repaired * 2 > cuts);
			/*
			 * Tables that still name a port whose link went down
			 * (no entry changed): the walks through it end there.
			 */
			g = tu_cut_link(f, f->switches[0], 1);
			sws = switches(g);
			assert_int_equal(
				cr_export(NULL, g, r, sws, b, true, true, NULL),
				0);
			check_rows(g, r, sws);
			switches_free(g, sws);
			cr_fabric_free(g);
			cr_incr_base_free(b);
			cr_byproducts_release(&by);
			cr_routing_free(r);
		}
		cr_fabric_free(f);
	}
}

/*
 * The install checks, copies and counts churn a stretch of 4,096 LIDs at
 * a time: on a fabric of more LIDs than that, the churn against what the
 * switches hold must be the count entry by entry (OpenSM's lft shorter or
 * longer than the routing, switches new to OpenSM), on 1 and 3 threads,
 * and a port beyond the switch anywhere must fail the install.
 */
static void test_lft_stretches(void **state)
{
	struct cr_gen_params p = {.seed = 5};
	struct cr_fabric *f = cr_gen_fat_tree(24, &p);
	const struct cr_engine *e = cr_engine_find("ftree");
	struct cr_routing *r;
	struct cr_options o;
	osm_switch_t **sws;
	uint64_t want = 0;
	uint32_t rng = 1;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	assert_true(f->max_lid > 4096);
	r = cr_routing_new(f);
	assert_non_null(r);
	cr_options_init(&o);
	assert_int_equal(cr_route(e, f, &o, r), 0);
	sws = switches(f);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const uint8_t *row = r->lft[f->switches[s]];
		osm_switch_t *sw = sws[s];

		/* Some switches are new to OpenSM, some hold a short table. */
		if (s % 7 == 3)
			continue;
		sw->lft_size = s % 5 == 1 ? 4160 : sw->lft_size;
		sw->lft = malloc(sw->lft_size);
		assert_non_null(sw->lft);
		memset(sw->lft, OSM_NO_PATH, sw->lft_size);
		memcpy(sw->lft + 1, row + 1,
		       (sw->lft_size - 1u < f->max_lid ? sw->lft_size - 1u
						       : f->max_lid));
		for (unsigned k = 0; k < s % 11; k++) {
			rng = rng * 1103515245u + 12345u;
			sw->lft[1 + (rng >> 8) % (sw->lft_size - 1u)] ^= 1;
		}
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const uint8_t *row = r->lft[f->switches[s]];
		const osm_switch_t *sw = sws[s];

		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint8_t held = sw->lft && lid < sw->lft_size
					       ? sw->lft[lid]
					       : OSM_NO_PATH;
			/* past a short table: not installed, so no path */
			uint8_t now =
				lid < sw->lft_size ? row[lid] : OSM_NO_PATH;

			want += now != held;
		}
	}
	for (unsigned t = 1; t <= 3; t += 2) {
		uint64_t churn = 0;

		cr_threads_set(t);
		if (t == 3)
			for (uint32_t s = 0; s < f->num_switches; s++)
				memset(sws[s]->new_lft, OSM_NO_PATH,
				       sws[s]->lft_size);
		/* A short table cannot hold the routing: it must fail. */
		assert_int_equal(
			cr_export(NULL, f, r, sws, NULL, false, false, &churn),
			-1);
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		if (sws[s]->lft_size != 4160)
			continue;
		sws[s]->max_lid_ho = 4159;
		for (uint32_t lid = 4160; lid <= f->max_lid; lid++)
			r->lft[f->switches[s]][lid] = OSM_NO_PATH;
	}
	for (unsigned t = 1; t <= 3; t += 2) {
		uint64_t churn = 0;

		cr_threads_set(t);
		assert_int_equal(
			cr_export(NULL, f, r, sws, NULL, false, false, &churn),
			0);
		assert_int_equal(churn, want);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			unsigned n = sws[s]->lft_size - 1u < f->max_lid
					     ? sws[s]->lft_size - 1u
					     : f->max_lid;

			assert_memory_equal(sws[s]->new_lft + 1,
					    r->lft[f->switches[s]] + 1, n);
		}
	}
	/* A port the switch does not have, late in its table. */
	r->lft[f->switches[2]][4100] = (uint8_t)sws[2]->num_ports;
	assert_int_equal(cr_export(NULL, f, r, sws, NULL, false, false, NULL),
			 -1);
	r->lft[f->switches[2]][4100] = OSM_NO_PATH - 1;
	assert_int_equal(cr_export(NULL, f, r, sws, NULL, false, false, NULL),
			 -1);
	r->lft[f->switches[2]][4100] = (uint8_t)(sws[2]->num_ports - 1);
	assert_int_equal(cr_export(NULL, f, r, sws, NULL, false, false, NULL),
			 0);
	cr_threads_set(0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		free(sws[s]->lft);
	switches_free(f, sws);
	cr_routing_free(r);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trees),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_repairs),
		cmocka_unit_test(test_lft_stretches),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
