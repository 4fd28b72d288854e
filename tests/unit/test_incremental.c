// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of incremental re-routing (incremental.c): for every
 * inter-switch link of small trees, tori and random graphs, and for
 * removed switches, the repaired tables of cr-minhop are sound (complete,
 * loop free, minimal: every hop count equals the full run's), change only
 * entries whose old step is no longer valid (so never more than a full
 * run changes), and a repair of the fault gives the original tables back
 * byte for byte. cr-updn's are loop and credit-loop free, CA switches
 * reach every CA, and only the counted (CA switch, switch without CAs)
 * pairs lose a path. cr-ftree's, on fat trees, are up*-down* by its
 * ranks with a full run's hop counts for every CA pair, credit-loop free,
 * reach every (switch, LID) pair a full run reaches and change no more
 * entries than a full run. Deterministic, whatever the thread count;
 * fabrics that are no subset of the base, other options or engines, a
 * changed ranking or set of leaves route in full.
 */
#include <string.h>

#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/io/gen.h>
#include <croute/model/hops.h>
#include <croute/route/incremental.h>
#include <croute/model/node_match.h>
#include <croute/model/parallel.h>

#include "../../src/core/route/ftree_int.h"
#include "updn_fabrics.h"

static struct cr_fabric *with_lids(struct cr_fabric *f)
{
	if (!f->max_lid)
		assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/* f without the nodes marked in drop, GUIDs and LIDs kept. */
static struct cr_fabric *drop_nodes(const struct cr_fabric *f, const bool *drop)
{
	struct cr_fabric *g = cr_fabric_new();
	uint32_t *map = calloc(f->num_nodes, sizeof(*map));

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *a = &f->nodes[n];

		map[n] = CR_NO_NODE;
		if (drop[n])
			continue;
		map[n] = cr_fabric_add_node(g, a->type, a->guid, a->num_ports,
					    a->desc);
		g->nodes[map[n]].sysimg_guid = a->sysimg_guid;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *a = &f->nodes[n];

		for (unsigned p = 0; map[n] != CR_NO_NODE && p <= a->num_ports;
		     p++) {
			const struct cr_port *pt = &a->ports[p];
			struct cr_port *q = &g->nodes[map[n]].ports[p];

			if (pt->remote != CR_NO_NODE &&
			    map[pt->remote] != CR_NO_NODE &&
			    (pt->remote > n ||
			     (pt->remote == n && pt->remote_port > p)))
				assert_int_equal(
					cr_fabric_link(g, map[n], p,
						       map[pt->remote],
						       pt->remote_port),
					0);
			q->guid = pt->guid;
			q->lid = pt->lid;
			q->lmc = pt->lmc;
			q->width = pt->width;
			q->speed = pt->speed;
		}
	}
	g->sm_port_guid = f->sm_port_guid;
	free(map);
	assert_int_equal(cr_fabric_finalize(g), 0);
	return g;
}

static struct cr_incr_base *
base_of(const char *engine, const struct cr_fabric *f, struct cr_routing **r)
{
	struct cr_options o;
	struct cr_incr_base *b;

	struct cr_byproducts by = {0};

	cr_options_init(&o);
	*r = tu_route_by(f, engine, &o, &by);
	b = cr_incr_base_new(cr_engine_find(engine), f, &o, *r, &by);
	cr_byproducts_release(&by);
	assert_non_null(b);
	return b;
}

/* 0 and the repaired tables, or 1 (full run needed) and NULL. */
static int incr(const struct cr_incr_base *b, const char *engine,
		const struct cr_fabric *g, struct cr_routing **out,
		struct cr_incr_stats *st)
{
	struct cr_options o;
	/* As the plugin does: the repair must write every entry. */
	struct cr_routing *r = cr_routing_new_raw(g);
	struct cr_byproducts by = {0};
	int ret;

	cr_options_init(&o);
	assert_non_null(r);
	for (uint32_t s = 0; s < g->num_switches; s++)
		memset(r->lft[g->switches[s]], 0x5a, (size_t)g->max_lid + 1);
	ret = cr_route_incremental(b, cr_engine_find(engine), g, &o, r, &by,
				   st);
	cr_byproducts_release(&by);
	assert_true(ret == 0 || ret == 1);
	if (ret) {
		/* cleared for the full run that follows */
		for (uint32_t s = 0; s < g->num_switches; s++)
			for (uint32_t lid = 0; lid <= g->max_lid; lid++)
				assert_int_equal(r->lft[g->switches[s]][lid],
						 CR_NO_PATH);
		cr_routing_free(r);
		r = NULL;
	}
	*out = r;
	return ret;
}

static bool same_tables(const struct cr_fabric *f, const struct cr_routing *a,
			const struct cr_routing *b)
{
	if (a->max_lid != b->max_lid)
		return false;
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (memcmp(a->lft[f->switches[s]], b->lft[f->switches[s]],
			   (size_t)a->max_lid + 1))
			return false;
	return true;
}

/* f without switch node n and the CAs cabled to it. */
static struct cr_fabric *drop_switch(const struct cr_fabric *f, uint32_t n)
{
	bool *drop = calloc(f->num_nodes, sizeof(*drop));
	struct cr_fabric *g;

	assert_non_null(drop);
	drop[n] = true;
	for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
		uint32_t m = f->nodes[n].ports[p].remote;

		if (m != CR_NO_NODE && !cr_is_switch(f, m))
			drop[m] = true;
	}
	g = drop_nodes(f, drop);
	free(drop);
	return g;
}

/* Back to f: the repair gives the full run's tables (base) again. */
static void assert_back(const struct cr_incr_base *b, const char *engine,
			const struct cr_fabric *f,
			const struct cr_routing *base)
{
	struct cr_routing *back;
	struct cr_incr_stats st;

	assert_int_equal(incr(b, engine, f, &back, &st), 0);
	assert_true(same_tables(f, base, back));
	cr_routing_free(back);
}

/* The switch of base node index n in g (matched by GUID). */
static uint32_t node_in(const struct cr_fabric *f, uint32_t n,
			const struct cr_fabric *g)
{
	return cr_fabric_find_guid(g, f->nodes[n].guid);
}

/*
 * cr-minhop after a fault: sound and minimal (hop for hop as the full
 * run), and every entry that changed had to: its old port is gone or no
 * longer on a shortest path. So the churn is at most the full run's.
 */
static void assert_minhop_repair(const struct cr_fabric *f,
				 const struct cr_routing *base,
				 const struct cr_fabric *g,
				 const struct cr_routing *r)
{
	struct cr_routing *full = tu_route(g, "cr-minhop", NULL);
	struct cr_check_report rep;
	uint8_t *dist = cr_switch_distances(g);
	uint32_t ns = g->num_switches;

	assert_int_equal(cr_check(g, r, CR_CHECK_MINIMAL | CR_CHECK_SWITCHES,
				  NULL, 0, &rep),
			 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.non_minimal, 0);
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t n = g->switches[s], bn = node_in(g, n, f);
		const struct cr_node *sw = &g->nodes[n];

		for (uint32_t lid = 1; lid <= g->max_lid; lid++) {
			uint8_t old = lid <= base->max_lid ? base->lft[bn][lid]
							   : CR_NO_PATH;
			uint8_t now = r->lft[n][lid];
			uint32_t d = cr_lid_switch(g, (uint16_t)lid, NULL);
			uint32_t y;

			assert_int_equal(
				cr_routing_hops(g, r, n, (uint16_t)lid),
				cr_routing_hops(g, full, n, (uint16_t)lid));
			if (old == now || d == CR_NO_NODE || d == n)
				continue;
			/* Changed: the old step must be invalid now. */
			if (old == CR_NO_PATH || old > sw->num_ports)
				continue;
			y = sw->ports[old].remote;
			assert_true(y == CR_NO_NODE || !cr_is_switch(g, y) ||
				    dist[(size_t)g->nodes[y].sw_index * ns +
					 g->nodes[d].sw_index] +
						    1 !=
					    dist[(size_t)s * ns +
						 g->nodes[d].sw_index]);
		}
	}
	assert_true(cr_routing_churn(f, base, g, r) <=
		    cr_routing_churn(f, base, g, full));
	free(dist);
	cr_routing_free(full);
}

/*
 * cr-updn after a fault: no loop, no credit loop, every CA switch
 * reaches every LID, as after a full run (a repair that cannot give that
 * routes in full).
 */
static void assert_updn_repair(const struct cr_fabric *g,
			       const struct cr_routing *r,
			       const struct cr_incr_stats *st)
{
	struct cr_check_report rep;
	uint64_t lost = 0;

	assert_int_equal(cr_credit_loop_any(g, r), 0);
	assert_true(uf_no_credit_loop(g, r));
	cr_check(g, r, CR_CHECK_CREDIT, NULL, 0, &rep);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	for (uint32_t s = 0; s < g->num_switches; s++) {
		uint32_t n = g->switches[s];
		bool has_ca = false;

		for (unsigned p = 1; p <= g->nodes[n].num_ports; p++) {
			uint32_t m = g->nodes[n].ports[p].remote;

			has_ca |= m != CR_NO_NODE && !cr_is_switch(g, m);
		}
		for (uint32_t lid = 1; has_ca && lid <= g->max_lid; lid++) {
			uint32_t d = cr_lid_switch(g, (uint16_t)lid, NULL);

			if (d == CR_NO_NODE ||
			    cr_routing_hops(g, r, n, (uint16_t)lid) >= 0)
				continue;
			lost++;
		}
	}
	assert_int_equal(lost, 0);
	assert_int_equal(st->lost_pairs, 0);
}

static bool has_ca(const struct cr_fabric *g, uint32_t n)
{
	for (unsigned p = 1; p <= g->nodes[n].num_ports; p++) {
		uint32_t m = g->nodes[n].ports[p].remote;

		if (m != CR_NO_NODE && !cr_is_switch(g, m))
			return true;
	}
	return false;
}

/* The path from switch node n to lid only goes up, then only down. */
static bool up_down(const struct cr_fabric *g, const struct cr_routing *r,
		    const struct ft *ft, uint32_t n, uint16_t lid)
{
	bool down = false;

	for (unsigned i = 0; i <= g->num_switches; i++) {
		uint8_t p = r->lft[n][lid];
		uint32_t m;
		int a, b;

		if (p == 0 || p == CR_NO_PATH)
			return p == 0;
		m = g->nodes[n].ports[p].remote;
		if (!cr_is_switch(g, m))
			return true;
		a = ft->sw[g->nodes[n].sw_index].rank;
		b = ft->sw[g->nodes[m].sw_index].rank;
		if (b < a && down)
			return false;
		down |= b > a;
		n = m;
	}
	return false;
}

/*
 * cr-ftree after a fault: CA pairs up*-down* by the ranks, with the full
 * run's hop counts (the same up-hops); every pair the full run reaches
 * reached; no loop, no credit loop; churn at most the full run's.
 */
static void assert_ftree_repair(const struct cr_fabric *f,
				const struct cr_routing *base,
				const struct cr_fabric *g,
				const struct cr_routing *r)
{
	struct cr_routing *full = tu_route(g, "cr-ftree", NULL);
	struct cr_check_report rep;
	struct cr_options o;
	struct ft ft;

	cr_options_init(&o);
	assert_int_equal(ft_build(&ft, g, &o), 0);
	assert_int_equal(cr_credit_loop_any(g, full), 0);
	assert_int_equal(cr_credit_loop_any(g, r), 0);
	cr_check(g, r, CR_CHECK_CREDIT, NULL, 0, &rep);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.unreachable, 0);
	for (uint32_t s = 0; s < g->num_switches; s++) {
		uint32_t n = g->switches[s];
		bool ca = has_ca(g, n);

		for (uint32_t lid = 1; lid <= g->max_lid; lid++) {
			uint32_t d = cr_lid_switch(g, (uint16_t)lid, NULL);
			int hf = cr_routing_hops(g, full, n, (uint16_t)lid);
			int hi = cr_routing_hops(g, r, n, (uint16_t)lid);

			if (d == CR_NO_NODE)
				continue;
			if (hf >= 0)
				assert_true(hi >= 0);
			if (!ca || g->lid_node[lid] == d)
				continue;
			assert_int_equal(hi, hf);
			assert_true(up_down(g, r, &ft, n, (uint16_t)lid));
		}
	}
	assert_true(cr_routing_churn(f, base, g, r) <=
		    cr_routing_churn(f, base, g, full));
	ft_release(&ft);
	cr_routing_free(full);
}

/*
 * check.c's channel dependencies of r, by switch index: bit (s, in port,
 * out port) when some LID enters switch s by in port and leaves by out.
 */
static uint8_t *dependencies(const struct cr_fabric *g,
			     const struct cr_routing *r)
{
	size_t w = CR_MAX_PORTS + 1;
	uint8_t *bits = calloc((size_t)g->num_switches * w * w, 1);

	for (uint32_t s = 0; s < g->num_switches; s++) {
		const struct cr_node *n = &g->nodes[g->switches[s]];

		for (uint32_t lid = 1; lid <= g->max_lid; lid++) {
			uint8_t p = r->lft[g->switches[s]][lid], q;
			uint32_t m;

			if (p == 0 || p == CR_NO_PATH || p > n->num_ports)
				continue;
			m = n->ports[p].remote;
			if (m == CR_NO_NODE || !cr_is_switch(g, m))
				continue;
			q = r->lft[m][lid];
			if (q == 0 || q == CR_NO_PATH)
				continue;
			bits[((size_t)g->nodes[m].sw_index * w +
			      n->ports[p].remote_port) *
				     w +
			     q] = 1;
		}
	}
	return bits;
}

/*
 * cr-ftree's shortcut: a repair is searched for credit loops only when
 * it made a channel dependency the base's tables lacked, which must be
 * exactly when one exists (f and g share node indices). Returns 1 when
 * the repair made one.
 */
static unsigned assert_ftree_deps(const struct cr_fabric *f,
				  const struct cr_routing *base,
				  const struct cr_fabric *g,
				  const struct cr_routing *r,
				  const struct cr_incr_stats *st)
{
	size_t w = CR_MAX_PORTS + 1, n = (size_t)g->num_switches * w * w;
	uint8_t *a = dependencies(f, base), *b = dependencies(g, r);
	bool added = false;

	for (size_t i = 0; i < n && !added; i++)
		added = b[i] && !a[i];
	assert_int_equal(st->new_dependency, added);
	if (st->searched)
		assert_true(added);
	free(a);
	free(b);
	return added;
}

static unsigned ftree_new_deps; /* repairs with a new dependency */

/* The full run's fabric again: its by-products too (roots, CA order). */
static void assert_back_byproducts(const struct cr_incr_base *b,
				   const char *engine,
				   const struct cr_fabric *f)
{
	const struct cr_engine *e = cr_engine_find(engine);
	struct cr_routing *r = cr_routing_new(f), *full = cr_routing_new(f);
	struct cr_byproducts by = {0}, want = {0};
	struct cr_incr_stats st;
	struct cr_options o;

	assert_non_null(r);
	assert_non_null(full);
	cr_options_init(&o);
	assert_int_equal(cr_route_by(e, f, &o, full, &want), 0);
	assert_int_equal(cr_route_incremental(b, e, f, &o, r, &by, &st), 0);
	assert_true(st.same);
	assert_true(same_tables(f, full, r));
	assert_int_equal(by.num_roots, want.num_roots);
	if (want.num_roots)
		assert_memory_equal(by.roots, want.roots,
				    want.num_roots * sizeof(*want.roots));
	assert_int_equal(by.num_ca_order, want.num_ca_order);
	if (want.num_ca_order)
		assert_memory_equal(by.ca_order, want.ca_order,
				    want.num_ca_order * sizeof(*want.ca_order));
	assert_int_equal(by.updn_detours, want.updn_detours);
	assert_int_equal(by.ftree_turns_restricted,
			 want.ftree_turns_restricted);
	cr_byproducts_release(&by);
	cr_byproducts_release(&want);
	cr_routing_free(r);
	cr_routing_free(full);
}

/*
 * Every inter-switch link of f in turn: cut it, repair the engine's
 * tables, check them, then repair back to f. Returns how many cuts were
 * incremental.
 */
static unsigned every_link(struct cr_fabric *f, const char *engine)
{
	struct cr_routing *base;
	struct cr_incr_base *b = base_of(engine, f, &base);
	unsigned incremental = 0;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		for (unsigned p = 1;
		     cr_is_switch(f, n) && p <= f->nodes[n].num_ports; p++) {
			uint32_t m = f->nodes[n].ports[p].remote;
			struct cr_fabric *g;
			struct cr_routing *r, *back, *again;
			struct cr_incr_stats st;

			if (m == CR_NO_NODE || m < n || !cr_is_switch(f, m))
				continue;
			g = tu_cut_link(f, n, p);
			if (incr(b, engine, g, &r, &st) == 0) {
				incremental++;
				assert_int_equal(st.links_down, 1);
				assert_false(st.same);
				if (!strcmp(engine, "cr-minhop"))
					assert_minhop_repair(f, base, g, r);
				else if (!strcmp(engine, "cr-ftree")) {
					assert_ftree_repair(f, base, g, r);
					ftree_new_deps += assert_ftree_deps(
						f, base, g, r, &st);
				} else
					assert_updn_repair(g, r, &st);
				/* Same inputs, same tables. */
				assert_int_equal(
					incr(b, engine, g, &again, &st), 0);
				assert_true(same_tables(g, r, again));
				cr_routing_free(again);
				cr_routing_free(r);
			}
			/* The cable back: the full run's tables exactly. */
			assert_int_equal(incr(b, engine, f, &back, &st), 0);
			assert_true(st.same);
			assert_int_equal(st.entries, 0);
			assert_true(same_tables(f, base, back));
			cr_routing_free(back);
			cr_fabric_free(g);
		}
	}
	assert_back_byproducts(b, engine, f);
	cr_incr_base_free(b);
	cr_routing_free(base);
	return incremental;
}

static void test_minhop_links(void **state)
{
	struct cr_fabric *fabrics[] = {
		tu_two_level(4, 3, 3, NULL, 0),
		tu_two_level(3, 2, 2, NULL, 1),
		uf_kary(2, 3),
		uf_kary(3, 3),
		uf_torus(4, 4, true, 1),
		uf_random(14, 6, 12, 7),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fabrics) / sizeof(fabrics[0]); i++) {
		struct cr_fabric *f = with_lids(fabrics[i]);

		/* Nothing is refused: minimal paths survive any cut. */
		assert_true(every_link(f, "cr-minhop") > 0);
		cr_fabric_free(f);
	}
}

/*
 * Four spines and four leaves of four hosts, leaf 3 cabled to spines 0
 * and 1 only, a switch without hosts between spines 2 and 3: cr-updn
 * takes the four spines as roots and min-hop detours where up*-down* has
 * no path (tests/unit/test_updn.c has the same fabric). The repairs make
 * the detours again: complete, free of credit loops, as a full run.
 */
static struct cr_fabric *detour_tree(void)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t spine[4], leaf[4], b;
	unsigned next[4] = {1, 1, 1, 1};

	for (unsigned s = 0; s < 4; s++)
		spine[s] = tu_switch(f, 6, 1000 + s);
	for (unsigned l = 0; l < 4; l++) {
		leaf[l] = tu_switch(f, 8, l + 1);
		for (unsigned h = 0; h < 4; h++)
			tu_link(f, leaf[l], h + 1, tu_host(f, l * 4 + h), 1);
		for (unsigned s = 0; s < (l == 3 ? 2 : 4); s++)
			tu_link(f, leaf[l], 5 + s, spine[s], next[s]++);
	}
	b = tu_switch(f, 4, 99);
	tu_link(f, b, 1, spine[2], next[2]++);
	tu_link(f, b, 2, spine[3], next[3]++);
	return f;
}

static void test_updn_detours(void **state)
{
	struct cr_fabric *f = with_lids(detour_tree());
	struct cr_routing *r = cr_routing_new(f);
	struct cr_byproducts by = {0};
	struct cr_options o;

	(void)state;
	cr_options_init(&o);
	assert_int_equal(cr_route_by(cr_engine_find("updn"), f, &o, r, &by), 0);
	assert_true(by.updn_detours);
	cr_byproducts_release(&by);
	cr_routing_free(r);
	assert_true(every_link(f, "cr-updn") > 0);
	cr_fabric_free(f);
}

static void test_updn_links(void **state)
{
	struct cr_fabric *fabrics[] = {
		tu_two_level(4, 3, 3, NULL, 0),
		uf_kary(2, 3),
		uf_kary(3, 3),
		uf_torus(4, 4, true, 1),
		uf_random(14, 6, 12, 7),
	};
	unsigned total = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(fabrics) / sizeof(fabrics[0]); i++) {
		struct cr_fabric *f = with_lids(fabrics[i]);

		total += every_link(f, "cr-updn");
		cr_fabric_free(f);
	}
	/* Some cuts change ranks (a full run), most do not. */
	assert_true(total > 10);
}

/*
 * A 3-level fat tree as `croute gen fat-tree` makes it: its roots (the
 * top level) come from the tree heuristic, without detours; a cut
 * between a middle switch and a root leaves that pod's leaves without a
 * legal up*-down* path to the root's LID, and a leaf-middle cut the leaf
 * without one to the middle switch's. The repair makes the detours a
 * full run makes with those roots, so every such cut is repaired and
 * complete.
 */
static void test_updn_fat_tree(void **state)
{
	struct cr_gen_params p = {0};
	struct cr_fabric *f = with_lids(cr_gen_fat_tree(4, &p));
	struct cr_routing *r = cr_routing_new(f);
	struct cr_byproducts by = {0};
	struct cr_options o;
	unsigned links = 0;

	(void)state;
	cr_options_init(&o);
	assert_int_equal(cr_route_by(cr_engine_find("updn"), f, &o, r, &by), 0);
	assert_false(by.updn_detours);
	cr_byproducts_release(&by);
	cr_routing_free(r);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (unsigned q = 1; q <= f->nodes[f->switches[s]].num_ports;
		     q++) {
			uint32_t m = f->nodes[f->switches[s]].ports[q].remote;

			links += m != CR_NO_NODE && cr_is_switch(f, m) &&
				 m > f->switches[s];
		}
	assert_int_equal(every_link(f, "cr-updn"), links);
	cr_fabric_free(f);
}

static void test_ftree_links(void **state)
{
	struct cr_gen_params p = {0};
	struct cr_fabric *fabrics[] = {
		tu_two_level(4, 3, 3, NULL, 0),
		tu_two_level(3, 2, 2, NULL, 1),
		uf_kary(2, 3),
		uf_kary(3, 3),
		cr_gen_fat_tree(4, &p),
		cr_gen_two_level(6, 3, 6, 4, true, &p),
	};
	unsigned total = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(fabrics) / sizeof(fabrics[0]); i++) {
		struct cr_fabric *f = with_lids(fabrics[i]);
		unsigned links = 0;

		for (uint32_t n = 0; n < f->num_nodes; n++)
			for (unsigned q = 1;
			     cr_is_switch(f, n) && q <= f->nodes[n].num_ports;
			     q++) {
				uint32_t m = f->nodes[n].ports[q].remote;

				links += m != CR_NO_NODE && m > n &&
					 cr_is_switch(f, m);
			}
		/* The ranks survive any one cable of these trees. */
		assert_int_equal(every_link(f, "cr-ftree"), links);
		total += links;
		cr_fabric_free(f);
	}
	/* Both ways are checked: some repairs add dependencies, most not. */
	assert_true(ftree_new_deps > 0 && ftree_new_deps < total);
}

/*
 * cr-ftree: a top switch or a middle one goes away (same ranks and
 * leaves: repaired); a leaf with its hosts (other leaves: full).
 */
static void test_ftree_switch_gone(void **state)
{
	struct cr_fabric *f = uf_kary(3, 3);

	(void)state;
	for (int level = 0; level < 3; level++) {
		struct cr_routing *base, *r;
		struct cr_incr_base *b = base_of("cr-ftree", f, &base);
		struct cr_incr_stats st;
		struct cr_fabric *g = drop_switch(f, 3 * 3 * level + 4);

		if (level == 2) {
			assert_int_equal(incr(b, "cr-ftree", g, &r, &st), 1);
			assert_non_null(strstr(st.reason, "leaves"));
		} else {
			assert_int_equal(incr(b, "cr-ftree", g, &r, &st), 0);
			assert_int_equal(st.switches_gone, 1);
			assert_ftree_repair(f, base, g, r);
			cr_routing_free(r);
		}
		assert_back(b, "cr-ftree", f, base);
		cr_fabric_free(g);
		cr_incr_base_free(b);
		cr_routing_free(base);
	}
	cr_fabric_free(f);
}

/*
 * A switch goes away: a top switch, a middle one, or a leaf with its
 * hosts. cr-updn's roots are the top switches: losing one is a full run.
 */
static void test_switch_gone(void **state)
{
	static const char *const engines[] = {"cr-minhop", "cr-updn"};
	struct cr_fabric *f = uf_kary(3, 3);

	(void)state;
	for (int e = 0; e < 2; e++) {
		for (int level = 0; level < 3; level++) {
			struct cr_routing *base, *r;
			struct cr_incr_base *b = base_of(engines[e], f, &base);
			struct cr_incr_stats st;
			bool leaf = level == 2;
			/* uf_kary: level 0 first (the top), hosts on the last */
			struct cr_fabric *g = drop_switch(f, 3 * 3 * level + 4);

			if (e == 1 && level == 0) {
				assert_int_equal(
					incr(b, engines[e], g, &r, &st), 1);
				assert_non_null(strstr(st.reason, "root"));
				goto next;
			}
			assert_int_equal(incr(b, engines[e], g, &r, &st), 0);
			assert_int_equal(st.switches_gone, 1);
			assert_int_equal(st.nodes_gone, leaf ? 4 : 1);
			if (e == 0)
				assert_minhop_repair(f, base, g, r);
			else
				assert_updn_repair(g, r, &st);
			/* The lost hosts' LIDs are routed nowhere. */
			for (uint32_t lid = 1; lid <= g->max_lid; lid++)
				if (cr_lid_switch(g, (uint16_t)lid, NULL) ==
				    CR_NO_NODE)
					for (uint32_t s = 0;
					     s < g->num_switches; s++)
						assert_int_equal(
							r->lft[g->switches[s]]
							      [lid],
							CR_NO_PATH);
			assert_back(b, engines[e], f, base);
			cr_routing_free(r);
		next:
			cr_fabric_free(g);
			cr_incr_base_free(b);
			cr_routing_free(base);
		}
	}
	cr_fabric_free(f);
}

/*
 * The same repair whatever the thread count (updn's and ftree's labels,
 * ftree's channel dependencies in parallel).
 */
static void test_threads(void **state)
{
	static const char *const engines[] = {"cr-updn", "cr-ftree"};
	struct cr_fabric *f = with_lids(uf_kary(3, 3));
	struct cr_fabric *g = tu_cut_link(f, 10, 1);

	(void)state;
	for (int e = 0; e < 2; e++) {
		struct cr_routing *r[2], *base[2];
		struct cr_incr_stats st;

		for (int i = 0; i < 2; i++) {
			struct cr_incr_base *b;

			cr_threads_set(i ? 4 : 1);
			b = base_of(engines[e], f, &base[i]);
			assert_int_equal(incr(b, engines[e], g, &r[i], &st), 0);
			cr_incr_base_free(b);
		}
		cr_threads_set(0);
		assert_true(same_tables(g, r[0], r[1]));
		for (int i = 0; i < 2; i++) {
			cr_routing_free(r[i]);
			cr_routing_free(base[i]);
		}
	}
	cr_fabric_free(g);
	cr_fabric_free(f);
}

/* Whatever is not a subset of the base, or routed otherwise: full. */
static void test_full_runs(void **state)
{
	struct cr_fabric *f = with_lids(uf_kary(2, 3));
	struct cr_fabric *g = tu_cut_link(f, 4, 1);
	struct cr_routing *base, *gbase, *r;
	struct cr_incr_base *b = base_of("cr-minhop", f, &base);
	struct cr_incr_base *gb = base_of("cr-minhop", g, &gbase);
	struct cr_incr_stats st;
	struct cr_options o;

	(void)state;
	/* A link that was not there: full. */
	assert_int_equal(incr(gb, "cr-minhop", f, &r, &st), 1);
	assert_non_null(strstr(st.reason, "appeared"));
	/* Another engine, other options: full. */
	assert_int_equal(incr(b, "cr-updn", g, &r, &st), 1);
	cr_options_init(&o);
	o.port_shifting = true;
	r = cr_routing_new(g);
	assert_int_equal(cr_route_incremental(b, cr_engine_find("minhop"), g,
					      &o, r, NULL, &st),
			 1);
	cr_routing_free(r);
	/* A changed LID: full. */
	g->nodes[g->num_nodes - 1].ports[1].lid = g->max_lid + 1;
	assert_int_equal(cr_fabric_finalize(g), 0);
	assert_int_equal(incr(b, "cr-minhop", g, &r, &st), 1);
	/* Engines without a repair keep nothing. */
	assert_null(
		cr_incr_base_new(cr_engine_find("ftree"), f, &o, base, NULL));
	assert_null(
		cr_incr_base_new(cr_engine_find("lash"), f, &o, base, NULL));
	cr_incr_base_free(b);
	cr_incr_base_free(gb);
	cr_routing_free(base);
	cr_routing_free(gbase);
	cr_fabric_free(g);
	cr_fabric_free(f);
}

/* Churn counts entries by switch GUID, a missing switch's in full. */
static void test_churn(void **state)
{
	struct cr_fabric *f = with_lids(uf_kary(2, 2));
	struct cr_routing *a = tu_route(f, "cr-minhop", NULL);
	struct cr_routing *b = cr_routing_copy(a);
	bool *drop = calloc(f->num_nodes, sizeof(*drop));
	struct cr_fabric *g;
	uint64_t row = 0;

	(void)state;
	assert_int_equal(cr_routing_churn(f, a, f, b), 0);
	b->lft[f->switches[0]][1] ^= 1;
	b->lft[f->switches[1]][2] = CR_NO_PATH;
	assert_int_equal(cr_routing_churn(f, a, f, b), 2);
	drop[f->switches[0]] = true;
	g = drop_nodes(f, drop);
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		row += a->lft[f->switches[0]][lid] != CR_NO_PATH;
	cr_routing_free(b);
	b = cr_routing_new(g);
	for (uint32_t s = 0; s < g->num_switches; s++)
		memcpy(b->lft[g->switches[s]],
		       a->lft[node_in(g, g->switches[s], f)],
		       (size_t)f->max_lid + 1);
	assert_int_equal(cr_routing_churn(f, a, g, b), row);
	free(drop);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(g);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minhop_links),
		cmocka_unit_test(test_updn_links),
		cmocka_unit_test(test_updn_detours),
		cmocka_unit_test(test_updn_fat_tree),
		cmocka_unit_test(test_switch_gone),
		cmocka_unit_test(test_ftree_links),
		cmocka_unit_test(test_ftree_switch_gone),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_full_runs),
		cmocka_unit_test(test_churn),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
