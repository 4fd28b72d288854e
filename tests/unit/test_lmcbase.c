// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Base LIDs at LMC > 0: every engine, with each of its toggles, must give
 * the base LIDs the next hops (and cr-lash the SLs) it gives at LMC 0,
 * since jobs that ignore LMC use only those; the further LIDs must still
 * be routed, spread over other next hops somewhere, and cr-lash's layers
 * stay free of credit loops.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include <croute/io/gen.h>
#include <croute/model/check.h>
#include <croute/model/log.h>
#include <croute/route/engine.h>

/* A toggle set of one engine, as croute compare's --engines names it. */
struct lb_case {
	const char *engine;
	bool ps, rgs, glob, first, bal;
	unsigned rounds; /* balance_rounds (rip-up and reroute) */
	uint32_t scatter;
};

/* Every (switch, port with a LID) entry and SL: switches x ports. */
struct lb_snap {
	uint32_t nports;
	uint8_t *port;
	uint8_t *sl;
};

/* The ports that hold LIDs, in node then port order, as node << 8 | p. */
static uint32_t lid_ports(const struct cr_fabric *f, uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t m = 0; m < f->num_nodes; m++)
		for (unsigned p = 0; p <= f->nodes[m].num_ports; p++)
			if (f->nodes[m].ports[p].lid) {
				if (out)
					out[n] = m << 8 | p;
				n++;
			}
	return n;
}

static uint16_t base_lid(const struct cr_fabric *f, uint32_t np)
{
	return f->nodes[np >> 8].ports[np & 0xff].lid;
}

static void lb_options(const struct lb_case *c, struct cr_options *o)
{
	cr_options_init(o);
	o->port_shifting = c->ps;
	o->remote_guid_sorting = c->rgs;
	o->balance_global = c->glob || c->rounds;
	o->balance_rounds = c->rounds;
	o->balance_first = c->first;
	o->lash_balance = c->bal;
	o->scatter_ports = c->scatter;
	o->max_vls = 8;
}

static struct cr_routing *lb_route(const struct cr_fabric *f,
				   const struct lb_case *c)
{
	struct cr_options o;
	struct cr_routing *r = cr_routing_new(f);

	assert_non_null(r);
	lb_options(c, &o);
	if (cr_route(cr_engine_find(c->engine), f, &o, r)) {
		print_error("%s refused\n", c->engine);
		fail();
	}
	cr_options_release(&o);
	return r;
}

static void lb_take(const struct cr_fabric *f, const struct cr_routing *r,
		    const uint32_t *ports, struct lb_snap *s)
{
	s->nports = lid_ports(f, NULL);
	s->port = malloc((size_t)f->num_switches * s->nports + 1);
	s->sl = malloc((size_t)f->num_switches * s->nports + 1);
	assert_non_null(s->port);
	assert_non_null(s->sl);
	for (uint32_t k = 0; k < f->num_switches; k++) {
		uint32_t sw = f->switches[k];

		for (uint32_t i = 0; i < s->nports; i++) {
			uint16_t lid = base_lid(f, ports[i]);
			size_t at = (size_t)k * s->nports + i;

			s->port[at] = r->lft[sw][lid];
			s->sl[at] = r->sl ? r->sl[sw][lid] : 0;
		}
	}
}

/*
 * Routes f at LMC 0 and at lmc: the base LIDs' entries and SLs must be
 * equal (returns the count that differ, the first printed); every further
 * LID of a CA port is routed where its base is, and some further LID
 * leaves a switch by another port than its base.
 */
static uint32_t lb_check(struct cr_fabric *f, const struct lb_case *c,
			 unsigned lmc)
{
	uint32_t np, *ports, apart = 0, wrong = 0;
	struct lb_snap s0, s1;
	struct cr_routing *r;
	struct cr_check_report rep;

	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	np = lid_ports(f, NULL);
	ports = malloc((np + 1) * sizeof(*ports));
	assert_non_null(ports);
	lid_ports(f, ports);
	r = lb_route(f, c);
	lb_take(f, r, ports, &s0);
	cr_routing_free(r);

	assert_int_equal(cr_fabric_assign_lids(f, lmc), 0);
	r = lb_route(f, c);
	lb_take(f, r, ports, &s1);
	for (uint32_t k = 0; k < f->num_switches; k++) {
		uint32_t sw = f->switches[k];

		for (uint32_t i = 0; i < np; i++) {
			size_t at = (size_t)k * np + i;
			const struct cr_port *pt =
				&f->nodes[ports[i] >> 8].ports[ports[i] & 0xff];

			if ((s0.port[at] != s1.port[at] ||
			     s0.sl[at] != s1.sl[at]) &&
			    !wrong++)
				print_error("%s%s%s%s%s%s%s%s: switch %s, base "
					    "LID %u: port %u SL %u at LMC %u, "
					    "port %u SL %u at LMC 0\n",
					    c->engine, c->ps ? "+ps" : "",
					    c->rgs ? "+rgs" : "",
					    c->scatter ? "+scatter" : "",
					    c->glob ? "+glob" : "",
					    c->first ? "+first" : "",
					    c->bal ? "+bal" : "",
					    c->rounds ? "+rr" : "",
					    f->nodes[sw].desc, pt->lid,
					    s1.port[at], s1.sl[at], lmc,
					    s0.port[at], s0.sl[at]);
			for (unsigned x = 1; x < (1u << pt->lmc); x++) {
				uint8_t e = r->lft[sw][pt->lid + x];

				if (s1.port[at] != CR_NO_PATH)
					assert_int_not_equal(e, CR_NO_PATH);
				apart += e != s1.port[at];
			}
		}
	}
	if (!c->first)
		assert_true(apart > 0);
	/* cr-lash's SLs at LMC > 0 are still free of credit loops. */
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	if (r->sl)
		assert_int_equal(rep.credit_loops, 0);
	assert_int_equal(rep.unreachable, 0);
	cr_routing_free(r);
	free(s0.port);
	free(s0.sl);
	free(s1.port);
	free(s1.sl);
	free(ports);
	return wrong;
}

static void lb_cases(struct cr_fabric *f, const struct lb_case *cases, size_t n)
{
	uint32_t wrong = 0;

	for (size_t i = 0; i < n; i++)
		for (unsigned lmc = 1; lmc <= 2; lmc++)
			wrong += lb_check(f, &cases[i], lmc);
	assert_int_equal(wrong, 0);
}

/* The 4-ary 3-tree less two top cables: flow balance, D-mod-k, repairs. */
static struct cr_fabric *cut_tree(void)
{
	struct cr_gen_params p = {0};
	struct cr_fabric *f = cr_gen_kary_ntree(4, 3, &p), *g;

	assert_non_null(f);
	for (uint32_t n = 0, cut = 0; n < f->num_nodes && cut < 2; n++) {
		if (f->nodes[n].type != CR_NODE_SWITCH ||
		    strstr(f->nodes[n].desc, "l0") == NULL)
			continue;
		g = tu_cut_link(f, n, 1 + cut);
		cr_fabric_free(f);
		f = g;
		cut++;
	}
	return f;
}

static const struct lb_case plain[] = {
	{.engine = "minhop"},
	{.engine = "minhop", .ps = true},
	{.engine = "minhop", .rgs = true},
	{.engine = "minhop", .glob = true},
	{.engine = "minhop", .scatter = 5},
	{.engine = "updn"},
	{.engine = "updn", .ps = true},
	{.engine = "updn", .glob = true},
	{.engine = "lash"},
	{.engine = "lash", .bal = true},
	{.engine = "lash", .glob = true},
	{.engine = "lash", .rounds = 2},
	{.engine = "lash", .first = true},
};

static void test_tree(void **state)
{
	static const struct lb_case ftree[] = {
		{.engine = "ftree"},
		{.engine = "ftree", .ps = true},
	};
	struct cr_fabric *f = cut_tree();

	(void)state;
	lb_cases(f, plain, sizeof(plain) / sizeof(plain[0]));
	lb_cases(f, ftree, sizeof(ftree) / sizeof(ftree[0]));
	cr_fabric_free(f);
}

/* Oversubscribed leaves: cr-ftree's arrival digits and repairs. */
static void test_oversubscribed(void **state)
{
	static const struct lb_case ftree[] = {
		{.engine = "ftree"},
		{.engine = "ftree", .ps = true},
	};
	struct cr_gen_params p = {.leaf_hosts = 6, .leaf_uplinks = 2};
	struct cr_fabric *f = cr_gen_fat_tree(8, &p), *g;
	uint32_t leaf = CR_NO_NODE;
	unsigned up = 1;

	(void)state;
	assert_non_null(f);
	/* One uplink cut, so that some picks fall to the port loads. */
	for (uint32_t n = 0; n < f->num_nodes && leaf == CR_NO_NODE; n++)
		if (f->nodes[n].type == CR_NODE_SWITCH &&
		    f->nodes[n].ports[1].remote != CR_NO_NODE &&
		    !cr_is_switch(f, f->nodes[n].ports[1].remote))
			leaf = n;
	assert_int_not_equal(leaf, CR_NO_NODE);
	while (up <= f->nodes[leaf].num_ports &&
	       (f->nodes[leaf].ports[up].remote == CR_NO_NODE ||
		!cr_is_switch(f, f->nodes[leaf].ports[up].remote)))
		up++;
	assert_true(up <= f->nodes[leaf].num_ports);
	g = tu_cut_link(f, leaf, up);
	cr_fabric_free(f);
	lb_cases(g, ftree, sizeof(ftree) / sizeof(ftree[0]));
	lb_cases(g, plain, 1);
	cr_fabric_free(g);
}

/*
 * A two-level tree whose last leaf misses half the spines, as the
 * production tree's leaf-6: cr-ftree's D-mod-k parent is missing there
 * and the port loads choose.
 */
static void test_partial_leaf(void **state)
{
	static const struct lb_case ftree[] = {
		{.engine = "ftree"},
		{.engine = "ftree", .ps = true},
		{.engine = "updn"},
		{.engine = "minhop"},
	};
	struct cr_gen_params gp = {0};
	struct cr_fabric *f = cr_gen_two_level(4, 6, 4, 4, false, &gp), *g;
	uint32_t leaf = CR_NO_NODE;

	(void)state;
	assert_non_null(f);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == CR_NODE_SWITCH &&
		    f->nodes[n].ports[1].remote != CR_NO_NODE &&
		    !cr_is_switch(f, f->nodes[n].ports[1].remote))
			leaf = n;
	assert_int_not_equal(leaf, CR_NO_NODE);
	for (unsigned cut = 0, p = 1; cut < 2 && p <= f->nodes[leaf].num_ports;
	     p++) {
		uint32_t m = f->nodes[leaf].ports[p].remote;

		if (m == CR_NO_NODE || !cr_is_switch(f, m))
			continue;
		g = tu_cut_link(f, leaf, p);
		cr_fabric_free(f);
		f = g;
		cut++;
	}
	lb_cases(f, ftree, sizeof(ftree) / sizeof(ftree[0]));
	cr_fabric_free(f);
}

/* Plain least-loaded picks: a HyperX with doubled cables, a torus. */
static void test_hyperx_torus(void **state)
{
	const unsigned dims[] = {3, 3};
	struct cr_gen_params p = {0};
	struct cr_fabric *h = cr_gen_hyperx(dims, 2, 3, 2, &p);
	struct cr_fabric *t = cr_gen_torus(dims, 2, true, 2, &p);

	(void)state;
	assert_non_null(h);
	assert_non_null(t);
	lb_cases(h, plain, sizeof(plain) / sizeof(plain[0]));
	lb_cases(t, plain, sizeof(plain) / sizeof(plain[0]));
	cr_fabric_free(h);
	cr_fabric_free(t);
}

static void test_random(void **state)
{
	struct cr_gen_params p = {.seed = 3};
	struct cr_fabric *f = cr_gen_random(12, 4, 3, &p);

	(void)state;
	assert_non_null(f);
	lb_cases(f, plain, sizeof(plain) / sizeof(plain[0]));
	cr_fabric_free(f);
}

static void test_dragonfly(void **state)
{
	static const struct lb_case dfp[] = {
		{.engine = "dfp"},
		{.engine = "dfp", .glob = true},
		{.engine = "dfp", .rounds = 6},
		{.engine = "lash"},
		{.engine = "minhop"},
	};
	struct cr_gen_params p = {.speed = CR_SPEED_QDR, .width = 4};
	struct cr_fabric *f = cr_gen_dragonfly_plus(5, 4, 4, 2, 4, &p);

	(void)state;
	assert_non_null(f);
	lb_cases(f, dfp, sizeof(dfp) / sizeof(dfp[0]));
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_oversubscribed),
		cmocka_unit_test(test_partial_leaf),
		cmocka_unit_test(test_hyperx_torus),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_dragonfly),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
