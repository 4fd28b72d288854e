// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cr-ftree: complete, minimal, credit-loop-free routing of
 * k-ary n-trees (2 to 4 levels), two-level trees (oversubscribed, scrambled
 * spine wiring, doubled links), missing hosts, root GUID lists, cn/io
 * lists, LMC 2 and degraded trees; shift contention 1 in CA order on the
 * full-bisection ones; tori and random graphs refused with clean tables.
 */
#include <string.h>

#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/io/gen.h>
#include <croute/model/hops.h>
#include <croute/route/portsel.h>

#include "testutil.h"

static void assert_refused(struct cr_fabric *f);
static unsigned turn_notes;
static void count_turn_notes(void *arg, enum cr_log_level level,
			     const char *msg);

static struct cr_fabric *kary(unsigned k, unsigned n, unsigned lmc)
{
	struct cr_fabric *f = cr_gen_kary_ntree(k, n, NULL);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, lmc), 0);
	return f;
}

static struct cr_fabric *two_level(unsigned leaves, unsigned hosts,
				   unsigned uplinks, unsigned spines,
				   bool scramble)
{
	struct cr_gen_params p = {.seed = 7};
	struct cr_fabric *f =
		cr_gen_two_level(leaves, hosts, uplinks, spines, scramble, &p);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/*
 * A copy of f without the nodes marked in drop_node and without the links
 * at the ports listed in drop (node, port pairs), LIDs given afresh.
 */
static struct cr_fabric *copy_without(const struct cr_fabric *f,
				      const bool *drop_node,
				      const uint32_t *drop, unsigned ndrop,
				      unsigned lmc)
{
	struct cr_fabric *c = cr_fabric_new();
	uint32_t *map = calloc(f->num_nodes, sizeof(*map));

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *x = &f->nodes[n];

		map[n] = CR_NO_NODE;
		if (drop_node && drop_node[n])
			continue;
		map[n] = cr_fabric_add_node(c, x->type, x->guid, x->num_ports,
					    x->desc);
		assert_int_not_equal(map[n], CR_NO_NODE);
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *x = &f->nodes[n];

		for (unsigned p = 1; p <= x->num_ports; p++) {
			uint32_t m = x->ports[p].remote;
			bool skip = false;

			if (m == CR_NO_NODE || map[n] == CR_NO_NODE ||
			    map[m] == CR_NO_NODE || m < n ||
			    (m == n && x->ports[p].remote_port < p))
				continue;
			for (unsigned i = 0; i < ndrop; i++) {
				const uint32_t *d = &drop[2 * i];

				skip |= (d[0] == n && d[1] == p) ||
					(d[0] == m &&
					 d[1] == x->ports[p].remote_port);
			}
			if (skip)
				continue;
			tu_link(c, map[n], p, map[m], x->ports[p].remote_port);
		}
	}
	free(map);
	assert_int_equal(cr_fabric_assign_lids(c, lmc), 0);
	return c;
}

/* The last route()'s by-products: the CA order. */
static struct cr_byproducts by;

static struct cr_routing *route(const struct cr_fabric *f,
				const struct cr_options *o)
{
	return tu_route_by(f, "cr-ftree", o, &by);
}

/*
 * Complete from every CA port and every switch, loop and credit-loop free
 * (the check takes every switch as a source), and minimal between CAs.
 */
static void assert_sound(const struct cr_fabric *f, const struct cr_routing *r,
			 bool minimal)
{
	struct cr_check_report rep;
	unsigned flags = CR_CHECK_CREDIT | CR_CHECK_SWITCHES;

	assert_int_equal(cr_check(f, r, flags, stderr, 5, &rep), 0);
	assert_true(rep.pairs > 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	if (!minimal)
		return;
	assert_int_equal(cr_check(f, r, CR_CHECK_MINIMAL, stderr, 5, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.non_minimal, 0);
}

/*
 * Minimal between CAs only: in a degraded tree, a switch may be left with
 * no up/down path to some LIDs (routed through the turn leaf).
 */
static void assert_ca_minimal(const struct cr_fabric *f,
			      const struct cr_routing *r)
{
	uint8_t *dist = cr_switch_distances(f);
	uint32_t ns = f->num_switches;

	assert_non_null(dist);
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t sw = f->switches[s];
		bool has_ca = false;

		for (unsigned p = 1; p <= f->nodes[sw].num_ports; p++) {
			uint32_t m = f->nodes[sw].ports[p].remote;

			has_ca |= m != CR_NO_NODE && !cr_is_switch(f, m);
		}
		for (uint16_t lid = 1; has_ca && lid <= f->max_lid; lid++) {
			uint32_t d = cr_lid_switch(f, lid, NULL);

			if (d == CR_NO_NODE ||
			    cr_is_switch(f, f->lid_node[lid]))
				continue;
			assert_int_equal(cr_routing_hops(f, r, sw, lid),
					 dist[s * ns + f->nodes[d].sw_index] +
						 1);
		}
	}
	free(dist);
}

/* Every CA-attached switch reaches every CA LID. */
static void assert_ca_complete(const struct cr_fabric *f,
			       const struct cr_routing *r)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];
		bool has_ca = false;

		for (unsigned p = 1; p <= f->nodes[sw].num_ports; p++) {
			uint32_t m = f->nodes[sw].ports[p].remote;

			has_ca |= m != CR_NO_NODE && !cr_is_switch(f, m);
		}
		for (uint16_t lid = 1; has_ca && lid <= f->max_lid; lid++)
			if (f->lid_node[lid] != CR_NO_NODE &&
			    !cr_is_switch(f, f->lid_node[lid]))
				assert_true(cr_routing_hops(f, r, sw, lid) > 0);
	}
}

/*
 * One flow of a shift phase walked through the LFTs, which must deliver it:
 * with add, counts it on each switch output port in use; returns the most
 * flows on a port of its path.
 */
static unsigned walk_flow(const struct cr_fabric *f, const struct cr_routing *r,
			  uint16_t src, uint16_t dst, uint16_t *use, bool add)
{
	uint32_t sw = cr_lid_switch(f, src, NULL);
	unsigned hops = 0, most = 0;

	assert_int_not_equal(sw, CR_NO_NODE);
	for (;;) {
		uint8_t p = r->lft[sw][dst];
		uint32_t next;
		uint16_t *u;

		assert_true(p != CR_NO_PATH && p != 0);
		assert_true(++hops < 64);
		u = &use[(size_t)sw * (CR_MAX_PORTS + 1) + p];
		*u += add;
		if (*u > most)
			most = *u;
		next = f->nodes[sw].ports[p].remote;
		assert_int_not_equal(next, CR_NO_NODE);
		if (!cr_is_switch(f, next)) {
			assert_int_equal(next, f->lid_node[dst]);
			return most;
		}
		sw = next;
	}
}

/*
 * Over the phases of the shift pattern in CA order (phase k: host i sends
 * to host i + k): the worst number of flows on one switch output port, and
 * (*slowed) the most flows of one phase that share a port with another.
 */
static unsigned shift_load(const struct cr_fabric *f,
			   const struct cr_routing *r, unsigned *slowed)
{
	uint32_t n = by.num_ca_order;
	size_t cells = (size_t)f->num_nodes * (CR_MAX_PORTS + 1);
	uint16_t *use = malloc(cells * sizeof(*use));
	const uint32_t *ca = by.ca_order;
	unsigned worst = 0, most;

	assert_true(n > 1);
	*slowed = 0;
	for (uint32_t k = 1; k < n; k++) {
		unsigned shared = 0;

		memset(use, 0, cells * sizeof(*use));
		for (uint32_t i = 0; i < n; i++) {
			most = walk_flow(f, r, ca[i], ca[(i + k) % n], use,
					 true);
			if (most > worst)
				worst = most;
		}
		for (uint32_t i = 0; i < n; i++)
			shared += walk_flow(f, r, ca[i], ca[(i + k) % n], use,
					    false) > 1;
		if (shared > *slowed)
			*slowed = shared;
	}
	free(use);
	return worst;
}

static unsigned shift_contention(const struct cr_fabric *f,
				 const struct cr_routing *r)
{
	unsigned slowed;

	return shift_load(f, r, &slowed);
}

static uint32_t count_cas(const struct cr_fabric *f)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		n += f->nodes[i].type == CR_NODE_CA;
	return n;
}

static void check_full_tree(struct cr_fabric *f, const struct cr_options *o)
{
	struct cr_routing *r = route(f, o);

	assert_int_equal(by.num_ca_order, count_cas(f));
	assert_sound(f, r, true);
	assert_int_equal(shift_contention(f, r), 1);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_kary_ntrees(void **state)
{
	check_full_tree(kary(4, 2, 0), NULL); /* 2 levels */
	check_full_tree(kary(4, 3, 0), NULL); /* 3 levels */
	check_full_tree(kary(2, 4, 0), NULL); /* 4 levels */
	check_full_tree(kary(3, 4, 0), NULL);
}

/*
 * The largest 3-level tree of k-port switches: k pods of k/2 leaves and
 * k/2 middle switches, (k/2)^2 roots using all k ports (k-ary n-trees'
 * roots use half); middle switch j of every pod goes to roots j*k/2.. .
 */
static struct cr_fabric *pod_tree_guids(unsigned k, unsigned stride)
{
	struct cr_fabric *f = cr_fabric_new();
	unsigned h = k / 2, roots = h * h, mids = roots, leaves = mids + k * h;
	unsigned n = roots + 2 * k * h;

	/* stride prime to n: GUIDs a permutation, unrelated to position */
	for (unsigned i = 0; i < n; i++)
		tu_switch(f, k, (uint64_t)i * stride % n);
	for (unsigned p = 0; p < k; p++)
		for (unsigned j = 0; j < h; j++) {
			uint32_t mid = mids + p * h + j;

			for (unsigned t = 0; t < h; t++)
				tu_link(f, j * h + t, p + 1, mid, h + t + 1);
			for (unsigned l = 0; l < h; l++)
				tu_link(f, mid, l + 1, leaves + p * h + l,
					h + j + 1);
		}
	for (unsigned l = 0; l < k * h; l++)
		for (unsigned i = 0; i < h; i++)
			tu_link(f, leaves + l, i + 1, tu_host(f, l * h + i), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static struct cr_fabric *pod_tree(unsigned k)
{
	return pod_tree_guids(k, 1);
}

static void test_pod_tree(void **state)
{
	struct cr_fabric *f = pod_tree(8), *g;
	bool *drop = calloc(f->num_nodes, sizeof(*drop));
	struct cr_routing *r;

	/* Half the roots: 2:1 between middle and top, 1:1 below. */
	for (unsigned j = 0; j < 4; j++)
		for (unsigned t = 2; t < 4; t++)
			drop[j * 4 + t] = true;
	g = copy_without(f, drop, NULL, 0, 0);
	r = route(g, NULL);
	assert_sound(g, r, true);
	assert_int_equal(shift_contention(g, r), 2);
	cr_routing_free(r);
	cr_fabric_free(g);
	free(drop);
	check_full_tree(f, NULL);
	/* Switch GUIDs in no relation to the topology: the CA order follows
	 * the topology, and the slots agree anyway. */
	check_full_tree(pod_tree_guids(8, 37), NULL);
}

static void test_one_switch(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t sw = tu_switch(f, 8, 1);

	for (unsigned h = 0; h < 6; h++)
		tu_link(f, sw, h + 1, tu_host(f, h), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	check_full_tree(f, NULL);
}

/*
 * Roots with two links into every pod, to two middle switches: complete
 * and regular, but its switch pairs without an up/down path cannot all be
 * routed through a turn without closing a credit loop. CA routes stay
 * contention free; the switch routes that would close a loop are left
 * out, and the log says so.
 */
static void test_dual_link_roots(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct cr_check_report rep;
	struct cr_routing *r;

	for (unsigned i = 0; i < 40; i++)
		tu_switch(f, 8, i); /* 8 roots, 16 middle, 16 leaves */
	for (unsigned p = 0; p < 4; p++)
		for (unsigned j = 0; j < 4; j++) {
			uint32_t mid = 8 + p * 4 + j;

			for (unsigned t = 0; t < 4; t++)
				tu_link(f, mid, 5 + t, (j / 2) * 4 + t,
					p * 2 + (j % 2) + 1);
			for (unsigned l = 0; l < 4; l++)
				tu_link(f, mid, l + 1, 24 + p * 4 + l, 5 + j);
		}
	for (unsigned l = 0; l < 16; l++)
		for (unsigned i = 0; i < 4; i++)
			tu_link(f, 24 + l, i + 1, tu_host(f, l * 4 + i), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	turn_notes = 0;
	cr_log_set(count_turn_notes, NULL, CR_LOG_INFO);
	r = route(f, NULL);
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	assert_int_equal(turn_notes, 1);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT | CR_CHECK_MINIMAL,
				  NULL, 0, &rep),
			 0);
	assert_int_equal(rep.unreachable, 0); /* from CAs */
	assert_int_equal(rep.non_minimal, 0);
	assert_int_equal(rep.credit_loops, 0);
	assert_int_equal(shift_contention(f, r), 1);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* Switches cut off from the tree (a pair linked to each other only) are
 * left out, as OpenSM does, and the rest routed. */
static void test_switch_island(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t spine = tu_switch(f, 4, 1), a = tu_switch(f, 4, 2);
	uint32_t b = tu_switch(f, 4, 3), i1 = tu_switch(f, 2, 4);
	uint32_t i2 = tu_switch(f, 2, 5);
	struct cr_routing *r;

	tu_link(f, spine, 1, a, 3);
	tu_link(f, spine, 2, b, 3);
	tu_link(f, i1, 1, i2, 1);
	tu_link(f, a, 1, tu_host(f, 1), 1);
	tu_link(f, b, 1, tu_host(f, 2), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = route(f, NULL);
	assert_ca_complete(f, r);
	assert_int_equal(by.num_ca_order, 2);
	for (uint32_t l = 0; l <= f->max_lid; l++)
		if (l != f->nodes[i1].ports[0].lid)
			assert_int_equal(r->lft[i1][l], CR_NO_PATH);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_two_level(void **state)
{
	struct cr_options o;

	check_full_tree(two_level(8, 6, 6, 6, false), NULL);
	/* Doubled links: two to every spine, port groups of two. */
	check_full_tree(two_level(8, 8, 8, 4, false), NULL);
	/* Uneven groups: 6 uplinks over 4 spines, two of them doubled. */
	check_full_tree(two_level(8, 6, 6, 4, false), NULL);
	check_full_tree(two_level(8, 6, 6, 4, true), NULL);
	/* Scrambled spine wiring, with and without remote GUID sorting. */
	check_full_tree(two_level(12, 8, 8, 8, true), NULL);
	cr_options_init(&o);
	o.remote_guid_sorting = true;
	check_full_tree(two_level(12, 8, 8, 8, true), &o);
	check_full_tree(two_level(8, 8, 8, 4, true), &o);
	o.port_shifting = true;
	check_full_tree(two_level(8, 8, 8, 4, true), &o);
}

static void test_oversubscribed(void **state)
{
	/* 2:1: two hosts share each uplink, never more. */
	struct cr_fabric *f = two_level(8, 8, 4, 4, false);
	struct cr_routing *r = route(f, NULL);

	assert_sound(f, r, true);
	assert_int_equal(shift_contention(f, r), 2);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_oversubscribed_uneven(void **state)
{
	/*
	 * 8 hosts over 6 uplinks, 2 to each of 3 spines: each leaf's down
	 * cables carry two destinations twice, so 4 flows into every leaf
	 * share a cable in any phase. Taking the same pairs up (count_cns())
	 * slows no other flow: at most 4 x 12 flows of a phase. Numbered
	 * across leaf boundaries, up to 7 of a window of 8 would be slowed.
	 */
	struct cr_fabric *f = two_level(12, 8, 6, 3, true);
	struct cr_routing *r = route(f, NULL);
	unsigned slowed;

	assert_sound(f, r, true);
	assert_int_equal(shift_load(f, r, &slowed), 2);
	assert_int_equal(slowed, 4 * 12);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * Three levels: pods of `leaves` leaves with `hosts` hosts and one cable to
 * each of the pod's `mids` middle switches; middle switch j of every pod has
 * one cable to each of the `tops` top switches of group j.
 */
static struct cr_fabric *three_level(unsigned pods, unsigned leaves,
				     unsigned hosts, unsigned mids,
				     unsigned tops)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t top[16][16], mid[16][16];
	uint64_t g = 1, h = 0;

	assert_true(mids <= 16 && tops <= 16 && pods <= 16);
	for (unsigned j = 0; j < mids; j++)
		for (unsigned t = 0; t < tops; t++)
			top[j][t] = tu_switch(f, pods, g++);
	for (unsigned p = 0; p < pods; p++)
		for (unsigned j = 0; j < mids; j++) {
			mid[p][j] = tu_switch(f, leaves + tops, g++);
			for (unsigned t = 0; t < tops; t++)
				tu_link(f, mid[p][j], leaves + 1 + t, top[j][t],
					p + 1);
		}
	for (unsigned p = 0; p < pods; p++)
		for (unsigned l = 0; l < leaves; l++) {
			uint32_t leaf = tu_switch(f, hosts + mids, g++);

			for (unsigned i = 0; i < hosts; i++)
				tu_link(f, leaf, i + 1, tu_host(f, h++), 1);
			for (unsigned j = 0; j < mids; j++)
				tu_link(f, leaf, hosts + 1 + j, mid[p][j],
					l + 1);
		}
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static void test_oversubscribed_three_levels(void **state)
{
	/*
	 * 6 hosts over 4 up links a leaf, middle switches 1:1. As on two
	 * levels, only the 4 flows into each leaf that share its down cables
	 * may be slowed (4 x 16). That takes the leaves' pairs aligned and
	 * each middle switch's destinations spread over all its parents
	 * (arrival_digits()): by index / slots, two of the four tops of a
	 * group got them all.
	 */
	struct cr_fabric *f = three_level(4, 4, 6, 4, 4);
	struct cr_routing *r = route(f, NULL);
	unsigned slowed;

	(void)state;
	assert_sound(f, r, true);
	assert_int_equal(shift_load(f, r, &slowed), 2);
	assert_int_equal(slowed, 4 * 16);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_missing_hosts(void **state)
{
	struct cr_fabric *f = kary(4, 3, 0), *g;
	bool *drop = calloc(f->num_nodes, sizeof(*drop));
	struct cr_routing *r;
	unsigned dropped = 0;

	/* Every fifth host, and all of one leaf's but one. */
	for (uint32_t n = 0, i = 0; n < f->num_nodes; n++) {
		if (f->nodes[n].type != CR_NODE_CA)
			continue;
		if (i % 5 == 0 || (i >= 8 && i < 11))
			drop[n] = true;
		dropped += drop[n];
		i++;
	}
	g = copy_without(f, drop, NULL, 0, 0);
	r = route(g, NULL);
	assert_int_equal(by.num_ca_order, 64 - dropped);
	assert_sound(g, r, true);
	cr_routing_free(r);
	cr_fabric_free(g);
	cr_fabric_free(f);
	free(drop);
}

static uint32_t find_desc(const struct cr_fabric *f, const char *desc)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!strcmp(f->nodes[n].desc, desc))
			return n;
	fail_msg("no node %s", desc);
	return CR_NO_NODE;
}

static void test_root_guids(void **state)
{
	struct cr_fabric *f = kary(4, 3, 0);
	struct cr_options o;

	cr_options_init(&o);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!strncmp(f->nodes[n].desc, "sw-l0-", 6))
			assert_int_equal(cr_guid_list_add(&o.root_guids,
							  f->nodes[n].guid),
					 0);
	assert_int_equal(o.root_guids.count, 16);
	check_full_tree(f, &o);
	cr_options_release(&o);
}

/*
 * The I/O nodes do not move compute-node routes: every switch sends each
 * compute node's LID out of the same port as on the fabric without them.
 */
static void assert_io_harmless(const struct cr_fabric *f,
			       const struct cr_routing *r,
			       const struct cr_guid_list *io)
{
	bool *drop = calloc(f->num_nodes, sizeof(*drop));
	struct cr_fabric *g;
	struct cr_routing *t;

	for (size_t i = 0; i < io->count; i++)
		drop[cr_fabric_find_guid(f, io->guids[i])] = true;
	g = copy_without(f, drop, NULL, 0, 0);
	t = route(g, NULL);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		uint32_t m;

		if (f->nodes[n].type != CR_NODE_CA || drop[n])
			continue;
		m = cr_fabric_find_guid(g, f->nodes[n].guid);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint32_t a = f->switches[s];
			uint32_t b = cr_fabric_find_guid(g, f->nodes[a].guid);

			assert_int_equal(r->lft[a][f->nodes[n].ports[1].lid],
					 t->lft[b][g->nodes[m].ports[1].lid]);
		}
	}
	cr_routing_free(t);
	cr_fabric_free(g);
	free(drop);
}

static void test_cn_io(void **state)
{
	struct cr_fabric *f = kary(4, 3, 0);
	struct cr_options o, io;
	struct cr_routing *r, *s;
	struct cr_byproducts rby;
	unsigned i = 0;

	cr_options_init(&o);
	cr_options_init(&io);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (f->nodes[n].type != CR_NODE_CA)
			continue;
		/* The last host of every fourth leaf is an I/O node. */
		if (i % 16 == 3)
			cr_guid_list_add(&io.io_guids, f->nodes[n].guid);
		else
			cr_guid_list_add(&o.cn_guids, f->nodes[n].guid);
		i++;
	}
	r = route(f, &o);
	rby = by;
	memset(&by, 0, sizeof(by));
	s = route(f, &io);
	assert_int_equal(rby.num_ca_order, 60);
	assert_int_equal(by.num_ca_order, 60);
	assert_memory_equal(rby.ca_order, by.ca_order, 60 * sizeof(uint32_t));
	cr_byproducts_release(&rby);
	assert_sound(f, r, true);
	assert_sound(f, s, true);
	assert_io_harmless(f, s, &io.io_guids);
	cr_routing_free(r);
	cr_routing_free(s);
	cr_options_release(&o);
	cr_options_release(&io);
	cr_fabric_free(f);
}

/*
 * 8 leaves of 4 compute nodes under 4 spines; with io_leaf a ninth leaf
 * holding two I/O nodes only, else one I/O node on the first spine. The
 * I/O GUIDs go to *io.
 */
static struct cr_fabric *io_fabric(bool io_leaf, struct cr_guid_list *io)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t spine[4], leaf[9], h;
	unsigned nleaves = io_leaf ? 9 : 8;

	for (unsigned s = 0; s < 4; s++)
		spine[s] = tu_switch(f, 10, 100 + s);
	for (unsigned l = 0; l < nleaves; l++) {
		leaf[l] = tu_switch(f, 8, l + 1);
		for (unsigned s = 0; s < 4; s++)
			tu_link(f, leaf[l], 5 + s, spine[s], l + 1);
	}
	for (unsigned l = 0; l < nleaves; l++)
		for (unsigned i = 0; i < (l == 8 ? 2 : 4); i++) {
			h = tu_host(f, l * 4 + i);
			tu_link(f, leaf[l], i + 1, h, 1);
			if (l == 8)
				cr_guid_list_add(io, f->nodes[h].guid);
		}
	if (!io_leaf) {
		h = tu_host(f, 99);
		tu_link(f, spine[0], 10, h, 1);
		cr_guid_list_add(io, f->nodes[h].guid);
	}
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static void test_io_placement(void **state)
{
	for (int io_leaf = 0; io_leaf < 2; io_leaf++) {
		struct cr_options o;
		struct cr_fabric *f;
		struct cr_routing *r;

		cr_options_init(&o);
		f = io_fabric(io_leaf, &o.io_guids);
		r = route(f, &o);
		assert_int_equal(by.num_ca_order, 32);
		assert_sound(f, r, true);
		assert_int_equal(shift_contention(f, r), 1);
		cr_routing_free(r);
		cr_options_release(&o);
		if (io_leaf) {
			cr_fabric_free(f);
			continue;
		}
		/* Unlisted, the node on the spine makes it a leaf. */
		assert_refused(f);
	}
}

static void test_lmc2(void **state)
{
	struct cr_fabric *f = kary(4, 3, 2);
	struct cr_routing *r = route(f, NULL);
	uint32_t leaf0 = find_desc(f, "sw-l2-00");

	assert_sound(f, r, true);
	assert_int_equal(by.num_ca_order, 64);
	/* From another leaf, the 4 LIDs of each port leave on 4 different
	 * uplinks. */
	for (uint32_t i = 0; i < by.num_ca_order; i++) {
		uint16_t base = by.ca_order[i];
		unsigned seen = 0;

		if (cr_lid_switch(f, base, NULL) == leaf0)
			continue;
		for (unsigned k = 0; k < 4; k++)
			seen |= 1u << r->lft[leaf0][base + k];
		assert_int_equal(__builtin_popcount(seen), 4);
	}
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_degraded(void **state)
{
	struct cr_fabric *f = kary(4, 3, 0), *g;
	bool *drop = calloc(f->num_nodes, sizeof(*drop));
	uint32_t leaf = find_desc(f, "sw-l2-05");
	uint32_t link[2] = {leaf, 4 + 2}; /* its second uplink */
	struct cr_routing *r;

	g = copy_without(f, NULL, link, 1, 0);
	r = route(g, NULL);
	assert_int_equal(by.num_ca_order, 64);
	assert_sound(g, r, false);
	assert_ca_minimal(g, r);
	cr_routing_free(r);
	cr_fabric_free(g);

	/* One root switch gone. */
	drop[find_desc(f, "sw-l0-03")] = true;
	g = copy_without(f, drop, NULL, 0, 0);
	r = route(g, NULL);
	assert_sound(g, r, false);
	assert_ca_minimal(g, r);
	cr_routing_free(r);
	cr_fabric_free(g);

	/* One middle switch gone, and a link elsewhere too. */
	drop[find_desc(f, "sw-l0-03")] = false;
	drop[find_desc(f, "sw-l1-06")] = true;
	g = copy_without(f, drop, link, 1, 0);
	r = route(g, NULL);
	assert_sound(g, r, false);
	assert_ca_minimal(g, r);
	cr_routing_free(r);
	cr_fabric_free(g);
	cr_fabric_free(f);
	free(drop);
}

static void count_turn_notes(void *arg, enum cr_log_level level,
			     const char *msg)
{
	turn_notes += strstr(msg, "credit loop") != NULL;
}

/*
 * Random failures on the 8-port pod tree: up to 23 links between middle
 * switches and roots, and 2 of those switches. CAs must still all reach
 * each other, with no loop and no credit loop (switch routes without an
 * up/down path may be left out in such trees, never looped).
 */
static void test_degraded_random(void **state)
{
	uint64_t rng = 1;
	unsigned refused = 0;
	struct cr_options o;

	cr_options_init(&o);
	turn_notes = 0;
	cr_log_set(count_turn_notes, NULL, CR_LOG_INFO);
	for (unsigned seed = 0; seed < 300; seed++) {
		struct cr_fabric *f = pod_tree(8), *g;
		bool *drop = calloc(f->num_nodes, sizeof(*drop));
		uint32_t cut[2 * 24];
		unsigned ncut = 0, n;
		struct cr_check_report rep;
		struct cr_routing *r;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		n = (rng >> 33) % 24;
		for (unsigned i = 0; i < n; i++) {
			uint32_t sw;
			unsigned p;

			rng = rng * 6364136223846793005ull + 1;
			sw = (rng >> 33) % 48; /* roots and middles */
			p = 1 + (rng >> 20) % 8;
			/* links to the roots only: a leaf keeps its hosts
			 * reachable (else the tree is refused, rightly) */
			if (sw >= 16 && p <= 4)
				continue;
			cut[2 * ncut] = sw;
			cut[2 * ncut++ + 1] = p;
		}
		rng = rng * 6364136223846793005ull + 1;
		for (unsigned i = 0; i < (rng >> 33) % 3; i++) {
			uint32_t sw = (rng >> (20 + 7 * i)) % 48;

			drop[sw] = true;
		}
		g = copy_without(f, drop, cut, ncut, 0);
		r = cr_routing_new(g);
		if (cr_route(cr_engine_find("ftree"), g, &o, r)) {
			/* Some CA lost every up/down path: refused, clean. */
			for (uint32_t i = 0; i < g->num_switches; i++)
				for (uint32_t l = 0; l <= g->max_lid; l++)
					assert_int_equal(
						r->lft[g->switches[i]][l],
						CR_NO_PATH);
			refused++;
		} else {
			assert_int_equal(
				cr_check(g, r, CR_CHECK_CREDIT, NULL, 0, &rep),
				0);
			assert_int_equal(rep.loops, 0);
			assert_int_equal(rep.credit_loops, 0);
			assert_ca_complete(g, r);
		}
		cr_routing_free(r);
		cr_fabric_free(g);
		cr_fabric_free(f);
		free(drop);
	}
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	/* Some of them needed their switch-to-switch turns checked. */
	assert_true(turn_notes > 0);
	assert_true(refused < 30);
}

static void assert_refused(struct cr_fabric *f)
{
	struct cr_options o;
	struct cr_routing *r = cr_routing_new(f);
	struct cr_byproducts rby = {0};

	cr_options_init(&o);
	assert_true(cr_route_by(cr_engine_find("cr-ftree"), f, &o, r, &rby) <
		    0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t l = 0; l <= f->max_lid; l++)
			assert_int_equal(r->lft[f->switches[s]][l], CR_NO_PATH);
	assert_null(rby.ca_order);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_not_fat_trees(void **state)
{
	unsigned dims[2] = {4, 4};
	struct cr_fabric *f = cr_gen_torus(dims, 2, true, 1, NULL);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	assert_refused(f);
	f = cr_gen_random(16, 4, 1, NULL);
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	assert_refused(f);
	/* A ring with a host on every switch: all leaves, linked. */
	f = tu_ring(5);
	assert_refused(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kary_ntrees),
		cmocka_unit_test(test_one_switch),
		cmocka_unit_test(test_pod_tree),
		cmocka_unit_test(test_dual_link_roots),
		cmocka_unit_test(test_switch_island),
		cmocka_unit_test(test_two_level),
		cmocka_unit_test(test_oversubscribed),
		cmocka_unit_test(test_oversubscribed_uneven),
		cmocka_unit_test(test_oversubscribed_three_levels),
		cmocka_unit_test(test_missing_hosts),
		cmocka_unit_test(test_root_guids),
		cmocka_unit_test(test_cn_io),
		cmocka_unit_test(test_io_placement),
		cmocka_unit_test(test_lmc2),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_degraded_random),
		cmocka_unit_test(test_not_fat_trees),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	cr_byproducts_release(&by);
	return rc;
}
