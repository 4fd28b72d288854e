// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast trees: every tree is checked against the definition, not
 * against a stored answer. Its switch ports must pair up into links (both
 * ends forward), those links must connect the switches that forward into
 * one tree (edges = switches - 1, connected), every reachable member's
 * port must forward and no other CA port; then the root is the centre.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <croute/io/gen.h>
#include <croute/route/mcast.h>
#include <croute/model/parallel.h>

#include "testutil.h"

static bool has(const struct cr_mcast_tree *t, uint32_t sw, uint8_t port)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->e[i].sw == sw && t->e[i].port == port)
			return true;
	return false;
}

/* The definition; returns the number of switches on the tree. */
static uint32_t check_tree(const struct cr_fabric *f,
			   const struct cr_mcast_tree *t,
			   const struct cr_mcast_port *m, uint32_t n,
			   const bool *capable)
{
	uint32_t ns = f->num_switches, nsw = 0, edges = 0, head = 0, tail = 0;
	uint8_t *on = calloc(ns, 1), *seen = calloc(ns, 1);
	uint32_t *q = calloc(ns, sizeof(*q));

	assert_non_null(on);
	assert_non_null(seen);
	assert_non_null(q);
	for (uint32_t i = 0; i < t->n; i++) {
		const struct cr_node *a = &f->nodes[f->switches[t->e[i].sw]];
		uint8_t p = t->e[i].port;
		uint32_t r;

		if (i)
			assert_true(t->e[i - 1].sw < t->e[i].sw ||
				    (t->e[i - 1].sw == t->e[i].sw &&
				     t->e[i - 1].port < t->e[i].port));
		if (capable)
			assert_true(capable[t->e[i].sw]);
		if (!on[t->e[i].sw])
			nsw++;
		on[t->e[i].sw] = 1;
		if (!p)
			continue;
		r = a->ports[p].remote;
		assert_int_not_equal(r, CR_NO_NODE);
		if (cr_is_switch(f, r)) {
			/* both ends of a tree link forward */
			assert_true(has(t, f->nodes[r].sw_index,
					a->ports[p].remote_port));
			edges++;
			continue;
		}
		/* a CA port forwards only for a member */
		bool member = false;

		for (uint32_t k = 0; k < n; k++)
			member |= m[k].node == r &&
				  m[k].port == a->ports[p].remote_port;
		assert_true(member);
	}
	if (!t->n)
		goto out;
	assert_int_equal(edges % 2, 0);
	assert_int_equal(edges / 2, nsw - 1);
	/* connected over the tree's links */
	seen[t->root] = 1;
	q[tail++] = t->root;
	assert_true(on[t->root]);
	while (head < tail) {
		uint32_t s = q[head++];
		const struct cr_node *a = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= a->num_ports; p++) {
			uint32_t r = a->ports[p].remote;

			if (!has(t, s, (uint8_t)p) || r == CR_NO_NODE ||
			    !cr_is_switch(f, r) || seen[f->nodes[r].sw_index])
				continue;
			seen[f->nodes[r].sw_index] = 1;
			q[tail++] = f->nodes[r].sw_index;
		}
	}
	assert_int_equal(tail, nsw);
	/* every member reached: its port forwards */
	for (uint32_t k = 0; k < n; k++) {
		const struct cr_node *h = &f->nodes[m[k].node];

		if (h->type == CR_NODE_SWITCH) {
			assert_true(has(t, h->sw_index, 0));
			continue;
		}
		uint32_t r = h->ports[m[k].port].remote;

		if (capable && !capable[f->nodes[r].sw_index])
			continue;
		assert_true(has(t, f->nodes[r].sw_index,
				h->ports[m[k].port].remote_port));
	}
out:
	free(on);
	free(seen);
	free(q);
	return nsw;
}

/* Every CA port of f, every step-th one from first. */
static uint32_t cas(const struct cr_fabric *f, uint32_t first, uint32_t step,
		    struct cr_mcast_port *m)
{
	uint32_t n = 0, k = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++) {
		if (f->nodes[i].type != CR_NODE_CA)
			continue;
		if (k++ % step == first)
			m[n++] = (struct cr_mcast_port){i, 1};
	}
	return n;
}

/* BFS hops between two switches, for the centre check. */
static unsigned hops(const struct cr_fabric *f, uint32_t a, uint32_t b)
{
	uint32_t ns = f->num_switches, head = 0, tail = 0;
	uint32_t *q = malloc(ns * sizeof(*q));
	uint8_t *d = malloc(ns);
	unsigned r;

	memset(d, 255, ns);
	d[a] = 0;
	q[tail++] = a;
	while (head < tail) {
		uint32_t s = q[head++];
		const struct cr_node *x = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= x->num_ports; p++) {
			uint32_t o = x->ports[p].remote;

			if (o == CR_NO_NODE || !cr_is_switch(f, o) ||
			    d[f->nodes[o].sw_index] != 255)
				continue;
			d[f->nodes[o].sw_index] = d[s] + 1;
			q[tail++] = f->nodes[o].sw_index;
		}
	}
	r = d[b];
	free(q);
	free(d);
	return r;
}

/* The farthest member from switch s (CA members one hop more). */
static unsigned ecc(const struct cr_fabric *f, uint32_t s,
		    const struct cr_mcast_port *m, uint32_t n)
{
	unsigned mx = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = f->nodes[m[k].node].ports[m[k].port].remote;
		unsigned h = hops(f, s, f->nodes[r].sw_index) + 1;

		if (h > mx)
			mx = h;
	}
	return mx;
}

static void test_trees(void **state)
{
	struct cr_gen_params p = {.seed = 5};
	unsigned dims[] = {4, 4, 3};
	(void)state;

	for (int which = 0; which < 4; which++) {
		struct cr_fabric *f =
			which == 0   ? cr_gen_kary_ntree(4, 3, &p)
			: which == 1 ? cr_gen_fat_tree(8, &p)
			: which == 2 ? cr_gen_random(30, 5, 2, &p)
				     : cr_gen_torus(dims, 3, true, 1, &p);
		struct cr_mcast_port *m;
		struct cr_mcast_ctx *c;

		assert_non_null(f);
		assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
		m = calloc(f->num_nodes, sizeof(*m));
		c = cr_mcast_new(f, NULL);
		assert_non_null(c);
		for (uint32_t step = 1; step <= 7; step += 3) {
			uint32_t n = cas(f, 0, step, m);

			for (uint32_t seed = 0; seed < 3; seed++) {
				struct cr_mcast_tree t, u;
				unsigned best = 255;

				assert_int_equal(
					cr_mcast_tree_build(c, m, n, seed, &t),
					0);
				assert_int_equal(t.members, n);
				assert_int_equal(t.unreached, 0);
				check_tree(f, &t, m, n, NULL);
				/* the centre: no switch has a nearer
				 * farthest member */
				for (uint32_t s = 0; s < f->num_switches; s++) {
					unsigned e = ecc(f, s, m, n);

					if (e < best)
						best = e;
				}
				assert_int_equal(ecc(f, t.root, m, n), best);
				/* the same again, on more threads too */
				cr_threads_set(seed + 1);
				assert_int_equal(
					cr_mcast_tree_build(c, m, n, seed, &u),
					0);
				cr_threads_set(0);
				assert_int_equal(u.n, t.n);
				assert_int_equal(u.root, t.root);
				for (uint32_t i = 0; i < t.n; i++) {
					assert_int_equal(u.e[i].sw, t.e[i].sw);
					assert_int_equal(u.e[i].port,
							 t.e[i].port);
				}
				cr_mcast_tree_release(&t);
				cr_mcast_tree_release(&u);
			}
		}
		cr_mcast_free(c);
		free(m);
		cr_fabric_free(f);
	}
}

/* On a fat tree the root is a top switch: paths go up, then down. */
static void test_fat_tree_root(void **state)
{
	struct cr_gen_params p = {.seed = 1};
	struct cr_fabric *f = cr_gen_kary_ntree(4, 3, &p);
	struct cr_mcast_port *m;
	struct cr_mcast_ctx *c;
	uint32_t n, roots[4] = {0};
	unsigned distinct = 0;
	(void)state;

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	m = calloc(f->num_nodes, sizeof(*m));
	c = cr_mcast_new(f, NULL);
	n = cas(f, 0, 1, m);
	for (uint32_t seed = 0; seed < 4; seed++) {
		struct cr_mcast_tree t;
		const struct cr_node *r;
		bool new_root = true;

		assert_int_equal(cr_mcast_tree_build(c, m, n, seed, &t), 0);
		r = &f->nodes[f->switches[t.root]];
		/* a top switch of a 4-ary 3-tree: no CA, depth 2 */
		for (unsigned q = 1; q <= r->num_ports; q++)
			assert_true(r->ports[q].remote == CR_NO_NODE ||
				    cr_is_switch(f, r->ports[q].remote));
		assert_int_equal(t.depth, 2);
		assert_int_equal(check_tree(f, &t, m, n, NULL),
				 1 + 4 + 16); /* root, a switch a pod, leaves */
		for (unsigned i = 0; i < distinct; i++)
			new_root &= roots[i] != t.root;
		if (new_root)
			roots[distinct++] = t.root;
		cr_mcast_tree_release(&t);
	}
	/* groups spread over the top switches */
	assert_true(distinct > 1);
	cr_mcast_free(c);
	free(m);
	cr_fabric_free(f);
}

/*
 * Switches that do not forward multicast are left out, and so are members
 * behind them; fewer than two members: no tree, as in OpenSM.
 */
static void test_capable(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 2, 2, NULL, 0);
	struct cr_mcast_port m[8];
	bool capable[6];
	struct cr_mcast_ctx *c;
	struct cr_mcast_tree t;
	uint32_t n, spine0 = CR_NO_NODE, leaf0 = CR_NO_NODE;
	(void)state;

	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	n = cas(f, 0, 1, m);
	assert_int_equal(n, 8);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *a = &f->nodes[f->switches[s]];

		if (a->guid == 0x100000 + 1000)
			spine0 = s;
		if (a->guid == 0x100000 + 1)
			leaf0 = s;
	}
	assert_int_not_equal(spine0, CR_NO_NODE);
	assert_int_not_equal(leaf0, CR_NO_NODE);

	/* a spine without multicast: the tree goes through the other */
	for (uint32_t s = 0; s < 6; s++)
		capable[s] = s != spine0;
	c = cr_mcast_new(f, capable);
	assert_int_equal(cr_mcast_tree_build(c, m, n, 0, &t), 0);
	assert_int_equal(t.members, 8);
	assert_int_equal(check_tree(f, &t, m, n, capable), 5);
	cr_mcast_tree_release(&t);
	cr_mcast_free(c);

	/* a leaf without it: its two hosts are unreached */
	for (uint32_t s = 0; s < 6; s++)
		capable[s] = s != leaf0;
	c = cr_mcast_new(f, capable);
	assert_int_equal(cr_mcast_tree_build(c, m, n, 0, &t), 0);
	assert_int_equal(t.members, 6);
	assert_int_equal(t.unreached, 2);
	check_tree(f, &t, m, n, capable);
	cr_mcast_tree_release(&t);

	/* one member: nothing to forward */
	assert_int_equal(cr_mcast_tree_build(c, &m[2], 1, 0, &t), 0);
	assert_int_equal(t.n, 0);
	cr_mcast_tree_release(&t);
	cr_mcast_free(c);
	cr_fabric_free(f);
}

/* A switch's own port 0 as a member, and two hosts on one switch. */
static void test_switch_member(void **state)
{
	struct cr_fabric *f = tu_two_level(3, 2, 2, NULL, 0);
	struct cr_mcast_port m[6];
	struct cr_mcast_ctx *c;
	struct cr_mcast_tree t;
	uint32_t leaf = CR_NO_NODE;
	(void)state;

	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	assert_int_equal(cas(f, 0, 1, m), 6);
	for (uint32_t i = 0; i < f->num_nodes; i++)
		if (f->nodes[i].guid == 0x100000 + 3)
			leaf = i;
	assert_int_not_equal(leaf, CR_NO_NODE);
	c = cr_mcast_new(f, NULL);
	/* hosts 0 and 1 share leaf 1: the tree is that switch alone */
	assert_int_equal(cr_mcast_tree_build(c, m, 2, 0, &t), 0);
	assert_int_equal(check_tree(f, &t, m, 2, NULL), 1);
	assert_int_equal(t.n, 2);
	cr_mcast_tree_release(&t);
	/* leaf 3's port 0 and host 0 */
	m[1] = (struct cr_mcast_port){leaf, 0};
	assert_int_equal(cr_mcast_tree_build(c, m, 2, 0, &t), 0);
	assert_int_equal(check_tree(f, &t, m, 2, NULL), 3);
	assert_true(has(&t, f->nodes[leaf].sw_index, 0));
	cr_mcast_tree_release(&t);
	cr_mcast_free(c);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trees),
		cmocka_unit_test(test_fat_tree_root),
		cmocka_unit_test(test_capable),
		cmocka_unit_test(test_switch_member),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
