/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fabrics and measures for the cr-updn and port-selection tests, on top of
 * testutil.h: trees with scrambled uplinks, k-ary n-trees, tori, random
 * graphs; an independent credit-loop check; shift-pattern link loads.
 */
#ifndef CROUTE_UPDN_FABRICS_H
#define CROUTE_UPDN_FABRICS_H

#include <string.h>

#include <croute/io/gen.h>

#include "testutil.h"

static inline uint32_t uf_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static inline void uf_shuffle(unsigned *a, unsigned n, uint64_t *seed)
{
	for (unsigned i = n; i > 1; i--) {
		unsigned j = uf_rand(seed) % i, t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/*
 * Two-level director: `leaves` leaves with `hosts` hosts (ports 1..hosts)
 * and one uplink to each of `spines` spines. With seed != 0 the wiring is
 * scrambled on both sides, as on line boards cabled to spine boards in
 * "random" port order: leaf l's uplink ports reach the spines in a
 * permuted order, and each spine's ports reach the leaves permuted.
 * Spine GUIDs are not in spine-index order either.
 */
static inline struct cr_fabric *uf_director(unsigned leaves, unsigned hosts,
					    unsigned spines, uint64_t seed,
					    unsigned lmc)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t *leaf = calloc(leaves, sizeof(*leaf));
	uint32_t *spine = calloc(spines, sizeof(*spine));
	unsigned *up = calloc(spines, sizeof(*up));
	unsigned *down = calloc(leaves, sizeof(*down));
	unsigned *gperm = calloc(spines, sizeof(*gperm));
	unsigned *sport = calloc(spines * leaves, sizeof(*sport));

	for (unsigned s = 0; s < spines; s++)
		gperm[s] = s;
	if (seed)
		uf_shuffle(gperm, spines, &seed);
	for (unsigned s = 0; s < spines; s++)
		spine[s] = tu_switch(f, leaves, 1000 + gperm[s]);
	for (unsigned l = 0; l < leaves; l++) {
		leaf[l] = tu_switch(f, hosts + spines, l + 1);
		for (unsigned h = 0; h < hosts; h++)
			tu_link(f, leaf[l], h + 1, tu_host(f, l * hosts + h),
				1);
	}
	for (unsigned s = 0; s < spines; s++) {
		for (unsigned l = 0; l < leaves; l++)
			down[l] = l;
		if (seed)
			uf_shuffle(down, leaves, &seed);
		for (unsigned l = 0; l < leaves; l++)
			sport[s * leaves + l] = down[l];
	}
	for (unsigned l = 0; l < leaves; l++) {
		for (unsigned s = 0; s < spines; s++)
			up[s] = s;
		if (seed)
			uf_shuffle(up, spines, &seed);
		for (unsigned s = 0; s < spines; s++)
			tu_link(f, leaf[l], hosts + 1 + up[s], spine[s],
				1 + sport[s * leaves + l]);
	}
	free(leaf);
	free(spine);
	free(up);
	free(down);
	free(gperm);
	free(sport);
	assert_int_equal(cr_fabric_assign_lids(f, lmc), 0);
	return f;
}

/*
 * k-ary n-tree: n levels of k^(n-1) switches, level 0 at the top; k hosts
 * on each leaf (level n-1). Switch (l, w) links to (l+1, w') when w and
 * w' differ at most in base-k digit n-2-l, so that consecutive leaves
 * share their parents (hosts in node order are in subtree order).
 */
static inline struct cr_fabric *uf_kary(unsigned k, unsigned n)
{
	struct cr_fabric *f = cr_fabric_new();
	unsigned per = 1, host = 0;
	uint32_t *sw;

	for (unsigned i = 1; i < n; i++)
		per *= k;
	sw = calloc(per * n, sizeof(*sw));
	for (unsigned l = 0; l < n; l++)
		for (unsigned w = 0; w < per; w++)
			sw[l * per + w] = tu_switch(f, 2 * k, l * 1000 + w);
	for (unsigned l = 0; l + 1 < n; l++) {
		unsigned pw = 1;

		for (unsigned i = 0; i + 2 + l < n; i++)
			pw *= k;
		for (unsigned w = 0; w < per; w++) {
			unsigned digit = (w / pw) % k;

			for (unsigned j = 0; j < k; j++) {
				unsigned w2 = w + (j - digit) * pw;

				tu_link(f, sw[l * per + w], 1 + j,
					sw[(l + 1) * per + w2], k + 1 + digit);
			}
		}
	}
	for (unsigned w = 0; w < per; w++)
		for (unsigned j = 0; j < k; j++)
			tu_link(f, sw[(n - 1) * per + w], 1 + j,
				tu_host(f, host++), 1);
	free(sw);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/* x by y torus (wrap) or mesh, `hosts` hosts per switch on ports 5... */
static inline struct cr_fabric *uf_torus(unsigned x, unsigned y, bool wrap,
					 unsigned hosts)
{
	struct cr_fabric *f = cr_fabric_new();
	unsigned host = 0;

	for (unsigned i = 0; i < x * y; i++)
		tu_switch(f, 4 + hosts, i + 1);
	for (unsigned j = 0; j < y; j++)
		for (unsigned i = 0; i < x; i++) {
			unsigned s = j * x + i;

			if (wrap || i + 1 < x)
				tu_link(f, s, 1, j * x + (i + 1) % x, 2);
			if (wrap || j + 1 < y)
				tu_link(f, s, 3, ((j + 1) % y) * x + i, 4);
		}
	for (unsigned s = 0; s < x * y; s++)
		for (unsigned h = 0; h < hosts; h++)
			tu_link(f, s, 5 + h, tu_host(f, host++), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/*
 * Random connected graph: n switches of `ports` ports, a random spanning
 * tree plus random extra links, one host per switch on its last port.
 */
static inline struct cr_fabric *uf_random(unsigned n, unsigned ports,
					  unsigned extra, uint64_t seed)
{
	struct cr_fabric *f = cr_fabric_new();
	unsigned *used = calloc(n, sizeof(*used));

	for (unsigned i = 0; i < n; i++)
		tu_switch(f, ports, i + 1);
	for (unsigned i = 1; i < n; i++) {
		unsigned j;

		do
			j = uf_rand(&seed) % i;
		while (used[j] + 1 >= ports);
		tu_link(f, i, ++used[i], j, ++used[j]);
	}
	for (unsigned e = 0; e < extra; e++) {
		unsigned a = uf_rand(&seed) % n, b = uf_rand(&seed) % n;

		if (a == b || used[a] + 1 >= ports || used[b] + 1 >= ports)
			continue;
		tu_link(f, a, ++used[a], b, ++used[b]);
	}
	for (unsigned i = 0; i < n; i++)
		tu_link(f, i, ports, tu_host(f, i), 1);
	free(used);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/* Channels: dense ids, base[switch index] + port. */
struct uf_cdg {
	size_t nch;
	uint8_t *edge; /* nch x nch bits */
};

static inline void uf_cdg_add(struct uf_cdg *g, size_t a, size_t b)
{
	size_t bit = a * g->nch + b;

	g->edge[bit / 8] |= 1u << (bit % 8);
}

static inline bool uf_cdg_has(const struct uf_cdg *g, size_t a, size_t b)
{
	size_t bit = a * g->nch + b;

	return g->edge[bit / 8] & (1u << (bit % 8));
}

static inline bool uf_cdg_cycle_from(const struct uf_cdg *g, size_t c,
				     uint8_t *color)
{
	color[c] = 1;
	for (size_t d = 0; d < g->nch; d++) {
		if (!uf_cdg_has(g, c, d))
			continue;
		if (color[d] == 1)
			return true;
		if (!color[d] && uf_cdg_cycle_from(g, d, color))
			return true;
	}
	color[c] = 2;
	return false;
}

/*
 * Independent of cr_check(): follows every (switch, LID) route that
 * arrives through the LFTs and looks for a cycle among the
 * switch-to-switch channel dependencies. Returns true when credit-loop
 * free.
 */
static inline bool uf_no_credit_loop(const struct cr_fabric *f,
				     const struct cr_routing *r)
{
	struct uf_cdg g;
	uint8_t *color;
	bool ok = true;
	size_t *base = calloc(f->num_switches + 1, sizeof(*base));

	for (uint32_t s = 0; s < f->num_switches; s++)
		base[s + 1] = base[s] + f->nodes[f->switches[s]].num_ports + 1;
	g.nch = base[f->num_switches];
	g.edge = calloc(g.nch * g.nch / 8 + 1, 1);
	color = calloc(g.nch, 1);
	assert_non_null(g.edge);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t sw = f->switches[s];
			size_t prev = SIZE_MAX;
			unsigned steps = 0;

			/* Routes that do not arrive add no dependency. */
			if (f->lid_node[lid] == CR_NO_NODE ||
			    cr_routing_hops(f, r, sw, lid) < 0)
				continue;
			for (;;) {
				uint8_t p = r->lft[sw][lid];
				uint32_t next;
				size_t ch;

				assert_true(++steps <= f->num_switches + 1);
				if (p == 0 || p == CR_NO_PATH)
					break;
				next = f->nodes[sw].ports[p].remote;
				if (!cr_is_switch(f, next))
					break;
				ch = base[f->nodes[sw].sw_index] + p;
				if (prev != SIZE_MAX)
					uf_cdg_add(&g, prev, ch);
				prev = ch;
				sw = next;
			}
		}
	}
	for (size_t c = 0; c < g.nch && ok; c++)
		if (!color[c] && uf_cdg_cycle_from(&g, c, color))
			ok = false;
	free(color);
	free(g.edge);
	free(base);
	return ok;
}

/*
 * Shift pattern over the nh hosts (CA nodes) in that order: phase k, host
 * i sends to host (i + k) mod nh. Returns the most flows any directed link
 * carries in any phase (1: every flow gets its full link); *bad_phases
 * receives the phases where some link carries more than one flow.
 */
static inline unsigned uf_shift_contention_of(const struct cr_fabric *f,
					      const struct cr_routing *r,
					      const uint32_t *hosts,
					      unsigned nh, unsigned *bad_phases)
{
	unsigned worst = 0, bad = 0;
	size_t stride = 256;
	uint32_t *load = calloc((size_t)f->num_nodes * stride, sizeof(*load));

	for (unsigned k = 1; k < nh; k++) {
		unsigned phase_max = 0;

		memset(load, 0, (size_t)f->num_nodes * stride * sizeof(*load));
		for (unsigned i = 0; i < nh; i++) {
			uint32_t src = hosts[i];
			uint32_t dst = hosts[(i + k) % nh];
			uint16_t lid = f->nodes[dst].ports[1].lid;
			uint32_t node = src;
			uint8_t p = 1;

			for (unsigned steps = 0;; steps++) {
				uint32_t *c = &load[(size_t)node * stride + p];

				assert_true(steps <= f->num_switches + 1);
				if (++*c > phase_max)
					phase_max = *c;
				node = f->nodes[node].ports[p].remote;
				assert_int_not_equal(node, CR_NO_NODE);
				if (!cr_is_switch(f, node))
					break;
				p = r->lft[node][lid];
				assert_int_not_equal(p, CR_NO_PATH);
				assert_int_not_equal(p, 0);
			}
		}
		bad += phase_max > 1;
		if (phase_max > worst)
			worst = phase_max;
	}
	free(load);
	if (bad_phases)
		*bad_phases = bad;
	return worst;
}

/* The same over every CA in node order (leaf order in these builders). */
static inline unsigned uf_shift_contention(const struct cr_fabric *f,
					   const struct cr_routing *r,
					   unsigned *bad_phases)
{
	uint32_t *hosts = calloc(f->num_nodes, sizeof(*hosts));
	unsigned nh = 0, worst;

	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == CR_NODE_CA)
			hosts[nh++] = n;
	worst = uf_shift_contention_of(f, r, hosts, nh, bad_phases);
	free(hosts);
	return worst;
}

/* Checks an engine's routing r of f (kary: a k-ary n-tree of uf_kary). */
typedef void (*uf_check_fn)(const struct cr_fabric *f,
			    const struct cr_routing *r, bool kary);

/*
 * The trees the flow-balance tests share, each routed by engine (default
 * options) and handed to check: the k-ary n-trees (4, 3), (3, 4) and
 * (2, 5), then `croute gen fat-tree 8`.
 */
static inline void uf_each_tree(const char *engine, uf_check_fn check)
{
	static const unsigned trees[][2] = {{4, 3}, {3, 4}, {2, 5}};
	struct cr_gen_params p = {.seed = 1};
	struct cr_fabric *g = cr_gen_fat_tree(8, &p);
	struct cr_routing *r;

	for (unsigned i = 0; i < sizeof(trees) / sizeof(*trees); i++) {
		struct cr_fabric *f = uf_kary(trees[i][0], trees[i][1]);

		r = tu_route(f, engine, NULL);
		check(f, r, true);
		cr_routing_free(r);
		cr_fabric_free(f);
	}
	assert_non_null(g);
	assert_int_equal(cr_fabric_assign_lids(g, 0), 0);
	r = tu_route(g, engine, NULL);
	check(g, r, false);
	cr_routing_free(r);
	cr_fabric_free(g);
}

#endif
