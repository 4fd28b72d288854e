/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the tests of the engines on ranked VLs (cr-dfp, cr-hyperx) share:
 * warnings counted (a fall-back to up*-down* says why), cables cut at
 * random with a seed, routing checked complete and free of credit loops
 * on at most two VLs, and the same tables on every run.
 */
#ifndef CROUTE_RANKED_UTIL_H
#define CROUTE_RANKED_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/route/flowbal.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

#include "testutil.h"

static unsigned tu_warnings;

static inline void tu_count_warnings(void *arg, enum cr_log_level level,
				     const char *msg)
{
	(void)arg;
	if (level <= CR_LOG_WARN) {
		/* In the test's log: why the engine fell back. */
		fprintf(stderr, "%s\n", msg);
		tu_warnings++;
	}
}

/*
 * engine refuses f as a fabric not of its kind: CR_ROUTE_NOT_ITS_FABRIC
 * and an error that says so.
 */
static inline void tu_assert_not_its(const char *engine,
				     const struct cr_fabric *f)
{
	struct cr_routing *r = cr_routing_new(f);
	unsigned before = tu_warnings;
	struct cr_options o;

	assert_non_null(r);
	cr_options_init(&o);
	cr_log_set(tu_count_warnings, NULL, CR_LOG_ERROR);
	assert_int_equal(cr_route(cr_engine_find(engine), f, &o, r),
			 CR_ROUTE_NOT_ITS_FABRIC);
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	assert_true(tu_warnings > before);
	cr_routing_free(r);
}

static inline uint32_t tu_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

static inline bool tu_connected(const struct cr_fabric *f)
{
	uint8_t *dist = cr_switch_distances(f);
	bool ok = true;

	assert_non_null(dist);
	for (size_t i = 0; i < (size_t)f->num_switches * f->num_switches; i++)
		ok &= dist[i] != CR_HOPS_INF;
	free(dist);
	return ok;
}

/* Whether the cable from switch node n to switch node m may be cut. */
typedef bool (*tu_cable_fn)(const struct cr_fabric *f, uint32_t n, uint32_t m,
			    const void *arg);

/*
 * A copy of f less count switch-to-switch cables drawn with seed among
 * those ok accepts (NULL: all); NULL when the fabric falls apart.
 */
static inline struct cr_fabric *tu_cut_random(const struct cr_fabric *f,
					      unsigned count, uint64_t seed,
					      tu_cable_fn ok, const void *arg)
{
	struct cr_fabric *g = cr_fabric_copy(f);
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;

	assert_non_null(g);
	for (unsigned k = 0; k < count;) {
		uint32_t n = g->switches[tu_rnd(&s) % g->num_switches];
		unsigned p = 1 + tu_rnd(&s) % g->nodes[n].num_ports;
		uint32_t m = g->nodes[n].ports[p].remote;
		struct cr_fabric *h;

		if (m == CR_NO_NODE || !cr_is_switch(g, m) ||
		    (ok && !ok(g, n, m, arg)))
			continue;
		h = tu_cut_link(g, n, p);
		cr_fabric_free(g);
		g = h;
		k++;
	}
	if (!tu_connected(g)) {
		cr_fabric_free(g);
		return NULL;
	}
	return g;
}

/*
 * Routes f with engine and options o (max_vls: at most that many VLs)
 * and checks it: SLs, one or two layers, no loop, no credit loop on the
 * path SLs, every switch an entry for every CA LID. Returns the routing
 * (the warnings it logged added to *warned) for the engine's own checks.
 */
static inline struct cr_routing *
tu_route_ranked_opts(const struct cr_fabric *f, const char *engine,
		     const struct cr_options *o, unsigned *warned)
{
	struct cr_routing *r = cr_routing_new(f);
	struct cr_check_report rep;
	unsigned before = tu_warnings;

	assert_non_null(r);
	cr_log_set(tu_count_warnings, NULL, CR_LOG_WARN);
	assert_int_equal(cr_route(cr_engine_find(engine), f, o, r), 0);
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	assert_non_null(r->sl);
	assert_true(r->num_layers >= 1 && r->num_layers <= 2);
	assert_true(r->num_layers <= o->max_vls);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t n = f->lid_node[lid];

			if (n == CR_NO_NODE || cr_is_switch(f, n))
				continue;
			assert_true(cr_routing_hops(f, r, f->switches[s], lid) >
				    0);
		}
	*warned += tu_warnings - before;
	return r;
}

/* tu_route_ranked_opts() with the default options but max_vls. */
static inline struct cr_routing *tu_route_ranked(const struct cr_fabric *f,
						 const char *engine,
						 unsigned max_vls,
						 unsigned *warned)
{
	struct cr_options o;

	cr_options_init(&o);
	o.max_vls = (uint8_t)max_vls;
	return tu_route_ranked_opts(f, engine, &o, warned);
}

/*
 * The same tables and SLs on two runs of engine on f, on one thread and
 * on four (the final check splits the LIDs between threads from 512
 * LIDs on).
 */
static inline void tu_assert_same_runs(const struct cr_fabric *f,
				       const char *engine)
{
	struct cr_routing *a, *b;

	cr_threads_set(1);
	a = tu_route(f, engine, NULL);
	/* Every level of flow balance split over the threads. */
	cr_threads_set(4);
	cr_flow_set_grain(1);
	b = tu_route(f, engine, NULL);
	cr_flow_set_grain(0);
	cr_threads_set(0);

	assert_non_null(a);
	assert_non_null(b);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];

		assert_memory_equal(a->lft[n], b->lft[n], f->max_lid + 1u);
		assert_memory_equal(a->sl[n], b->sl[n], f->max_lid + 1u);
	}
	cr_routing_free(a);
	cr_routing_free(b);
}

#endif
