/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Small fabric builders for unit tests, independent of the generators so
 * that the generators themselves can be tested against them.
 */
#ifndef CROUTE_TESTUTIL_H
#define CROUTE_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <croute/route/engine.h>
#include <croute/model/fabric.h>
#include <croute/model/log.h>
#include <croute/model/routing.h>

/* Do a and b forward every LID the same way at every switch? */
static inline bool tu_same_lfts(const struct cr_fabric *f,
				const struct cr_routing *a,
				const struct cr_routing *b)
{
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		if (memcmp(a->lft[n], b->lft[n], (size_t)f->max_lid + 1))
			return false;
	}
	return true;
}

/*
 * Everything two models hold, compared node by node (same order). whole:
 * also what only the plugin's import fills (LFT capacity, the rates of
 * uncabled ports) and what cr_fabric_finalize() derives; a topology file
 * holds neither.
 */
static inline void tu_assert_same_fabric(const struct cr_fabric *a,
					 const struct cr_fabric *b, bool whole)
{
	assert_int_equal(a->num_nodes, b->num_nodes);
	assert_int_equal(a->max_lid, b->max_lid);
	for (uint32_t i = 0; i < a->num_nodes; i++) {
		const struct cr_node *x = &a->nodes[i], *y = &b->nodes[i];

		assert_int_equal(x->type, y->type);
		assert_int_equal(x->guid, y->guid);
		assert_int_equal(x->sysimg_guid, y->sysimg_guid);
		assert_int_equal(x->num_ports, y->num_ports);
		assert_string_equal(x->desc, y->desc);
		if (whole) {
			assert_int_equal(x->lft_cap, y->lft_cap);
			assert_int_equal(x->sw_index, y->sw_index);
		}
		for (unsigned p = 0; p <= x->num_ports; p++) {
			const struct cr_port *u = &x->ports[p];
			const struct cr_port *v = &y->ports[p];

			assert_int_equal(u->guid, v->guid);
			assert_int_equal(u->lid, v->lid);
			assert_int_equal(u->lmc, v->lmc);
			assert_int_equal(u->remote, v->remote);
			if (u->remote == CR_NO_NODE && !whole)
				continue;
			assert_int_equal(u->remote_port, v->remote_port);
			assert_int_equal(u->width, v->width);
			assert_int_equal(u->speed, v->speed);
		}
	}
	if (!whole)
		return;
	assert_int_equal(a->num_switches, b->num_switches);
	assert_int_equal(a->sm_port_guid, b->sm_port_guid);
	for (uint32_t s = 0; s < a->num_switches; s++)
		assert_int_equal(a->switches[s], b->switches[s]);
	for (uint32_t lid = 0; lid <= a->max_lid; lid++) {
		assert_int_equal(a->lid_node[lid], b->lid_node[lid]);
		if (a->lid_node[lid] != CR_NO_NODE)
			assert_int_equal(a->lid_port[lid], b->lid_port[lid]);
	}
}

static inline uint32_t tu_switch(struct cr_fabric *f, unsigned ports,
				 uint64_t guid)
{
	char desc[32];
	uint32_t n;

	snprintf(desc, sizeof(desc), "sw%04llu", (unsigned long long)guid);
	n = cr_fabric_add_node(f, CR_NODE_SWITCH, 0x100000 + guid, ports, desc);
	assert_int_not_equal(n, CR_NO_NODE);
	return n;
}

static inline uint32_t tu_host(struct cr_fabric *f, uint64_t guid)
{
	char desc[32];
	uint32_t n;

	snprintf(desc, sizeof(desc), "h%04llu", (unsigned long long)guid);
	n = cr_fabric_add_node(f, CR_NODE_CA, 0x200000 + guid * 4, 1, desc);
	assert_int_not_equal(n, CR_NO_NODE);
	return n;
}

static inline void tu_link(struct cr_fabric *f, uint32_t a, unsigned pa,
			   uint32_t b, unsigned pb)
{
	assert_int_equal(cr_fabric_link(f, a, pa, b, pb), 0);
	f->nodes[a].ports[pa].width = f->nodes[b].ports[pb].width = 4;
	f->nodes[a].ports[pa].speed = f->nodes[b].ports[pb].speed =
		CR_SPEED_QDR;
}

/*
 * Two-level tree: `leaves` leaves with `hosts` hosts on ports 1..hosts and
 * `spines` uplinks on ports hosts+1..; leaf l's uplink u goes to spine u,
 * port l + 1, or to a permuted port when perm (spine-major, leaves x
 * spines entries) is given.
 */
static inline struct cr_fabric *tu_two_level(unsigned leaves, unsigned hosts,
					     unsigned spines,
					     const unsigned *perm, unsigned lmc)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t *leaf = calloc(leaves, sizeof(*leaf));
	uint32_t *spine = calloc(spines, sizeof(*spine));
	uint64_t g = 1;

	for (unsigned s = 0; s < spines; s++)
		spine[s] = tu_switch(f, leaves, 1000 + s);
	for (unsigned l = 0; l < leaves; l++) {
		leaf[l] = tu_switch(f, hosts + spines, g++);
		for (unsigned h = 0; h < hosts; h++)
			tu_link(f, leaf[l], h + 1, tu_host(f, l * hosts + h),
				1);
	}
	for (unsigned s = 0; s < spines; s++)
		for (unsigned l = 0; l < leaves; l++)
			tu_link(f, leaf[l], hosts + 1 + s, spine[s],
				1 + (perm ? perm[s * leaves + l] : l));
	free(leaf);
	free(spine);
	assert_int_equal(cr_fabric_assign_lids(f, lmc), 0);
	return f;
}

/* A ring of n switches (ports 1 and 2) with one host each on port 3. */
static inline struct cr_fabric *tu_ring(unsigned n)
{
	struct cr_fabric *f = cr_fabric_new();

	for (unsigned i = 0; i < n; i++)
		tu_switch(f, 3, i + 1);
	for (unsigned i = 0; i < n; i++)
		tu_link(f, i, 1, (i + 1) % n, 2);
	for (unsigned i = 0; i < n; i++)
		tu_link(f, i, 3, tu_host(f, i), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/*
 * Routes f with the named engine and default options, asserting success;
 * the by-products into *by when by is not NULL (the caller releases).
 */
static inline struct cr_routing *tu_route_by(const struct cr_fabric *f,
					     const char *engine,
					     const struct cr_options *opts,
					     struct cr_byproducts *by)
{
	struct cr_options defaults;
	struct cr_routing *r = cr_routing_new(f);

	cr_options_init(&defaults);
	assert_non_null(r);
	assert_int_equal(cr_route_by(cr_engine_find(engine), f,
				     opts ? opts : &defaults, r, by),
			 0);
	return r;
}

static inline struct cr_routing *tu_route(const struct cr_fabric *f,
					  const char *engine,
					  const struct cr_options *opts)
{
	return tu_route_by(f, engine, opts, NULL);
}

/* A copy of f less the link on node n's port p (which must have one). */
static inline struct cr_fabric *tu_cut_link(const struct cr_fabric *f,
					    uint32_t n, unsigned p)
{
	struct cr_fabric *g = cr_fabric_copy(f);
	uint32_t m;
	unsigned q;

	assert_non_null(g);
	m = g->nodes[n].ports[p].remote;
	q = g->nodes[n].ports[p].remote_port;
	assert_int_not_equal(m, CR_NO_NODE);
	g->nodes[n].ports[p].remote = CR_NO_NODE;
	g->nodes[n].ports[p].remote_port = 0;
	g->nodes[m].ports[q].remote = CR_NO_NODE;
	g->nodes[m].ports[q].remote_port = 0;
	assert_int_equal(cr_fabric_finalize(g), 0);
	return g;
}

#endif
