// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fabric generators. Every generator adds the switches first, then the
 * hosts leaf by leaf, each leaf's hosts in port order, and gives GUIDs in
 * that same order (switches below CAs). So node order, GUID order and the
 * natural order of host names ("h0001 HCA-1", ...) all agree, whichever
 * of them a tool sorts by. On a switch the host ports come first, then
 * the ports toward other switches.
 *
 * Randomness (scrambled wiring, random graphs) comes from a local
 * splitmix64, so a seed means the same fabric on every libc.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/gen.h>
#include <croute/model/log.h>
#include <croute/model/rand.h>

#include "gen_build.h"

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	return cr_rand_next(&r->s);
}

/* Uniform in [0, n): the bias of the 64-bit multiply is negligible. */
static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

static void shuffle(struct rng *r, uint32_t *a, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = rng_below(r, i), t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* The shared builder (gen_build.h) and the generator's own randomness. */
struct gen {
	struct cr_genb b;
	struct rng rng;
};

static int gen_init(struct gen *g, const struct cr_gen_params *p,
		    unsigned long total_hosts)
{
	if (cr_genb_init(&g->b, p, total_hosts))
		return -1;
	g->rng.s = g->b.p.seed;
	return 0;
}

/*
 * Switch <w, l> (w a word of n-1 base-k digits, level l = 0 at the roots)
 * is cabled to <w', l+1> when w and w' differ at most in digit l: down port
 * w'[l] + 1 of the upper switch to up port k + w[l] + 1 of the lower one.
 */
struct cr_fabric *cr_gen_kary_ntree(unsigned k, unsigned n,
				    const struct cr_gen_params *p)
{
	struct gen g;
	unsigned long per_level = 1, hosts;
	unsigned np = p && p->hca_ports ? p->hca_ports : 1;
	int err = 0;

	/* One message per fault: the range first, then the port count. */
	if (k < 2 || n < 1) {
		cr_err("gen: a k-ary n-tree needs k >= 2 and n >= 1");
		return NULL;
	}
	if (cr_genb_check_ports("a k-ary n-tree switch", 2ul * k))
		return NULL;
	for (unsigned i = 1; i < n; i++) {
		per_level *= k;
		if (per_level * n > 1000000) {
			cr_err("gen: %u-ary %u-tree is too large", k, n);
			return NULL;
		}
	}
	if (k % np) {
		cr_err("gen: %u host ports do not divide a leaf's %u down"
		       " ports",
		       np, k);
		return NULL;
	}
	hosts = per_level * (k / np);
	if (gen_init(&g, p, hosts))
		return NULL;
	for (unsigned l = 0; l < n && !err; l++)
		for (unsigned long i = 0; i < per_level && !err; i++)
			err = cr_genb_switch(&g.b, 2 * k, "sw-l%u-%0*lu", l,
					     (int)cr_genb_digits(per_level - 1),
					     i) == CR_NO_NODE;
	for (unsigned l = 0; l + 1 < n && !err; l++) {
		unsigned long stride = 1;

		/* digit l of the word is worth k^(n-2-l) in the index */
		for (unsigned i = l + 2; i < n; i++)
			stride *= k;
		for (unsigned long i = 0; i < per_level && !err; i++) {
			unsigned dl = (i / stride) % k;
			unsigned long base = i - dl * stride;

			for (unsigned d = 0; d < k && !err; d++)
				err = cr_genb_cable(
					&g.b, l * per_level + i, d + 1,
					(l + 1) * per_level + base + d * stride,
					k + dl + 1);
		}
	}
	for (unsigned long i = 0; i < per_level && !err; i++)
		err = cr_genb_hosts(&g.b, (n - 1) * per_level + i, 1, k / np);
	return cr_genb_done(&g.b, err);
}

/*
 * The largest 3-level fat tree of k-port switches: k pods of k/2 leaves
 * (k/2 hosts each) and k/2 middle switches, under (k/2)^2 roots. Middle
 * switch j of every pod reaches roots j*k/2 .. j*k/2 + k/2 - 1, on the
 * root's port pod + 1: k^3/4 hosts at full bisection (27,648 for k = 48).
 * Fewer hosts per leaf keep every switch: k = 64 with 18 a leaf is 36,864
 * hosts and 5,120 switches, 41,984 LIDs, near the unicast limit. With u
 * uplinks a leaf (u middle switches a pod, u x k/2 roots) and k - u hosts,
 * the leaves are oversubscribed: the trees most clusters buy.
 */
struct cr_fabric *cr_gen_fat_tree(unsigned k, const struct cr_gen_params *p)
{
	struct gen g;
	unsigned h = k / 2, u = p && p->leaf_uplinks ? p->leaf_uplinks : h;
	unsigned per_leaf = k - u;
	uint32_t mids, leaves;
	int err = 0;

	if (k < 2 || k % 2) {
		cr_err("gen: a fat tree needs an even number of ports >= 2");
		return NULL;
	}
	if (cr_genb_check_ports("a fat-tree switch", k))
		return NULL;
	if (p && p->hca_ports > 1) {
		cr_err("gen: fat-tree hosts have one port each");
		return NULL;
	}
	if (u >= k) {
		cr_err("gen: a leaf of a %u-port fat tree has %u ports, not"
		       " room for %u uplinks and a host",
		       k, k, u);
		return NULL;
	}
	if (p && p->leaf_hosts > k - u) {
		cr_err("gen: a leaf of a %u-port fat tree with %u uplinks has"
		       " room for %u hosts, not %u",
		       k, u, k - u, p->leaf_hosts);
		return NULL;
	}
	if (p && p->leaf_hosts)
		per_leaf = p->leaf_hosts;
	if (gen_init(&g, p, (unsigned long)k * h * per_leaf))
		return NULL;
	for (unsigned j = 0; j < u && !err; j++)
		for (unsigned t = 0; t < h && !err; t++)
			err = cr_genb_switch(&g.b, k, "sw-root-%0*u-%0*u",
					     (int)cr_genb_digits(u - 1), j,
					     (int)cr_genb_digits(h - 1),
					     t) == CR_NO_NODE;
	mids = g.b.f->num_nodes;
	for (unsigned pod = 0; pod < k && !err; pod++)
		for (unsigned j = 0; j < u && !err; j++)
			err = cr_genb_switch(&g.b, k, "sw-mid-%0*u-%0*u",
					     (int)cr_genb_digits(k - 1), pod,
					     (int)cr_genb_digits(u - 1),
					     j) == CR_NO_NODE;
	leaves = g.b.f->num_nodes;
	for (unsigned pod = 0; pod < k && !err; pod++)
		for (unsigned l = 0; l < h && !err; l++)
			err = cr_genb_switch(&g.b, k, "sw-leaf-%0*u-%0*u",
					     (int)cr_genb_digits(k - 1), pod,
					     (int)cr_genb_digits(h - 1),
					     l) == CR_NO_NODE;
	/* a leaf's hosts on its first ports, its uplinks on its last */
	for (unsigned pod = 0; pod < k && !err; pod++)
		for (unsigned j = 0; j < u && !err; j++) {
			uint32_t mid = mids + pod * u + j;

			for (unsigned t = 0; t < h && !err; t++)
				err = cr_genb_cable(&g.b, j * h + t, pod + 1,
						    mid, h + t + 1);
			for (unsigned l = 0; l < h && !err; l++)
				err = cr_genb_cable(&g.b, mid, l + 1,
						    leaves + pod * h + l,
						    k - u + j + 1);
		}
	for (unsigned i = 0; i < k * h && !err; i++)
		err = cr_genb_hosts(&g.b, leaves + i, 1, per_leaf);
	return cr_genb_done(&g.b, err);
}

/*
 * Uplink u of a leaf goes to spine u % spines; a spine's ports toward one
 * leaf are consecutive. Scrambling shuffles which uplink port of each leaf
 * goes to which spine, and the order of each spine's ports, as on
 * directors whose line boards reach the spine boards in no visible order.
 */
struct cr_fabric *cr_gen_two_level(unsigned leaves, unsigned hosts_per_leaf,
				   unsigned uplinks, unsigned spines,
				   bool scramble, const struct cr_gen_params *p)
{
	struct gen g;
	unsigned np = p && p->hca_ports ? p->hca_ports : 1;
	unsigned down = hosts_per_leaf * np;
	unsigned max_per = spines ? (uplinks + spines - 1) / spines : 0;
	uint32_t *spine_ports = NULL, *spine_next = NULL, *slot = NULL;
	int err = 0;

	if (!leaves || !spines || !uplinks || uplinks < spines) {
		cr_err("gen: a two-level tree needs leaves, spines, and at"
		       " least one uplink per spine from every leaf");
		return NULL;
	}
	if (cr_genb_check_ports("a leaf", (unsigned long)down + uplinks) ||
	    cr_genb_check_ports("a spine", (unsigned long)leaves * max_per))
		return NULL;
	if (gen_init(&g, p, (unsigned long)leaves * hosts_per_leaf))
		return NULL;
	spine_ports = calloc((size_t)spines * leaves * max_per + 1,
			     sizeof(*spine_ports));
	spine_next = calloc(spines, sizeof(*spine_next));
	slot = calloc(uplinks, sizeof(*slot));
	if (!spine_ports || !spine_next || !slot) {
		cr_err("gen: out of memory");
		err = -1;
		goto out;
	}
	for (unsigned s = 0; s < spines && !err; s++) {
		unsigned cnt = uplinks / spines + (s < uplinks % spines);
		uint32_t *sp = spine_ports + (size_t)s * leaves * max_per;

		err = cr_genb_switch(&g.b, leaves * cnt, "spine-%0*u",
				     (int)cr_genb_digits(spines - 1),
				     s) == CR_NO_NODE;
		for (uint32_t i = 0; i < leaves * cnt; i++)
			sp[i] = i + 1;
		if (scramble)
			shuffle(&g.rng, sp, leaves * cnt);
	}
	for (unsigned l = 0; l < leaves && !err; l++)
		err = cr_genb_switch(&g.b, down + uplinks, "leaf-%0*u",
				     (int)cr_genb_digits(leaves - 1),
				     l) == CR_NO_NODE;
	for (unsigned l = 0; l < leaves && !err; l++) {
		uint32_t leaf = spines + l;

		for (unsigned u = 0; u < uplinks; u++)
			slot[u] = u;
		if (scramble)
			shuffle(&g.rng, slot, uplinks);
		for (unsigned u = 0; u < uplinks && !err; u++) {
			unsigned s = slot[u] % spines;
			uint32_t *sp =
				spine_ports + (size_t)s * leaves * max_per;

			err = cr_genb_cable(&g.b, leaf, down + u + 1, s,
					    sp[spine_next[s]++]);
		}
	}
	for (unsigned l = 0; l < leaves && !err; l++)
		err = cr_genb_hosts(&g.b, spines + l, 1, hosts_per_leaf);
out:
	free(spine_ports);
	free(spine_next);
	free(slot);
	return cr_genb_done(&g.b, err);
}

/*
 * Switch (x, y, z) is node x + X (y + Y z). Port 2d + 1 + host ports leads
 * to the + neighbour in dimension d, the next one to the - neighbour; a
 * ring of two gets two parallel links, a ring of one none.
 */
struct cr_fabric *cr_gen_torus(const unsigned *dims, unsigned ndims, bool wrap,
			       unsigned hosts_per_switch,
			       const struct cr_gen_params *p)
{
	struct gen g;
	unsigned np = p && p->hca_ports ? p->hca_ports : 1;
	unsigned hp = hosts_per_switch * np;
	unsigned long count = 1;
	unsigned d[3] = {1, 1, 1};
	int err = 0;

	if (ndims < 1 || ndims > 3) {
		cr_err("gen: tori and meshes have 1 to 3 dimensions");
		return NULL;
	}
	for (unsigned i = 0; i < ndims; i++) {
		d[i] = dims[i];
		count *= d[i];
		if (!d[i] || count > 100000) {
			cr_err("gen: bad torus dimensions");
			return NULL;
		}
	}
	if (cr_genb_check_ports("a torus switch", hp + 2ul * ndims) ||
	    gen_init(&g, p, count * hosts_per_switch))
		return NULL;
	for (unsigned long i = 0; i < count && !err; i++) {
		unsigned x = i % d[0], y = i / d[0] % d[1], z = i / d[0] / d[1];

		if (ndims == 3)
			err = cr_genb_switch(&g.b, hp + 2 * ndims,
					     "sw-%0*u-%0*u-%0*u",
					     (int)cr_genb_digits(d[0] - 1), x,
					     (int)cr_genb_digits(d[1] - 1), y,
					     (int)cr_genb_digits(d[2] - 1),
					     z) == CR_NO_NODE;
		else if (ndims == 2)
			err = cr_genb_switch(&g.b, hp + 2 * ndims,
					     "sw-%0*u-%0*u",
					     (int)cr_genb_digits(d[0] - 1), x,
					     (int)cr_genb_digits(d[1] - 1),
					     y) == CR_NO_NODE;
		else
			err = cr_genb_switch(&g.b, hp + 2, "sw-%0*u",
					     (int)cr_genb_digits(d[0] - 1),
					     x) == CR_NO_NODE;
	}
	for (unsigned long i = 0; i < count && !err; i++) {
		unsigned long stride = 1;

		for (unsigned k = 0; k < ndims && !err; k++) {
			unsigned c = i / stride % d[k];
			unsigned long j;

			if (d[k] == 1 || (!wrap && c + 1 == d[k]))
				goto next;
			j = c + 1 < d[k] ? i + stride : i - c * stride;
			err = cr_genb_cable(&g.b, i, hp + 2 * k + 1, j,
					    hp + 2 * k + 2);
		next:
			stride *= d[k];
		}
	}
	for (unsigned long i = 0; i < count && !err; i++)
		err = cr_genb_hosts(&g.b, i, 1, hosts_per_switch);
	return cr_genb_done(&g.b, err);
}

/*
 * A random spanning tree first (each switch, in shuffled order, joins one
 * with a free port), so the graph is connected; then random extra links
 * between switches with free ports, never doubled, until no pair is left
 * or many tries fail.
 */
struct cr_fabric *cr_gen_random(unsigned switches, unsigned links,
				unsigned hosts_per_switch,
				const struct cr_gen_params *p)
{
	struct gen g;
	unsigned np = p && p->hca_ports ? p->hca_ports : 1;
	unsigned hp = hosts_per_switch * np;
	uint32_t *order = NULL, *used = NULL, *open = NULL;
	uint32_t nopen = 0;
	int err = 0;

	if (!switches || (switches > 1 && links < 1) ||
	    (switches > 2 && links < 2) || switches > 100000) {
		cr_err("gen: a connected random fabric of %u switches needs"
		       " at least %u links per switch",
		       switches, switches > 2 ? 2 : 1);
		return NULL;
	}
	if (cr_genb_check_ports("a random-fabric switch",
				(unsigned long)hp + links) ||
	    gen_init(&g, p, (unsigned long)switches * hosts_per_switch))
		return NULL;
	order = malloc(switches * sizeof(*order));
	used = calloc(switches, sizeof(*used));
	open = malloc(switches * sizeof(*open));
	if (!order || !used || !open) {
		cr_err("gen: out of memory");
		err = -1;
		goto out;
	}
	for (unsigned i = 0; i < switches && !err; i++)
		err = cr_genb_switch(&g.b, hp + links, "sw-%0*u",
				     (int)cr_genb_digits(switches - 1),
				     i) == CR_NO_NODE;
	for (uint32_t i = 0; i < switches; i++)
		order[i] = i;
	shuffle(&g.rng, order, switches);
	/* open[]: switches already in the tree that have a free port */
	for (uint32_t i = 0; i < switches && !err; i++) {
		uint32_t s = order[i];

		if (i) {
			uint32_t k = rng_below(&g.rng, nopen), t = open[k];

			err = cr_genb_cable(&g.b, s, hp + ++used[s], t,
					    hp + ++used[t]);
			if (used[t] == links)
				open[k] = open[--nopen];
		}
		if (used[s] < links)
			open[nopen++] = s;
	}
	for (unsigned fails = 0; !err && nopen > 1 && fails < 64 * switches;) {
		uint32_t a = rng_below(&g.rng, nopen);
		uint32_t b = rng_below(&g.rng, nopen);
		uint32_t s = open[a], t = open[b];
		bool linked = s == t;

		for (unsigned q = 1; q <= used[s] && !linked; q++)
			linked = g.b.f->nodes[s].ports[hp + q].remote == t;
		if (linked) {
			fails++;
			continue;
		}
		err = cr_genb_cable(&g.b, s, hp + ++used[s], t, hp + ++used[t]);
		/* drop the higher index first so the other stays valid */
		if (a < b) {
			uint32_t x = a;

			a = b;
			b = x;
		}
		if (used[open[a]] == links)
			open[a] = open[--nopen];
		if (used[open[b]] == links)
			open[b] = open[--nopen];
	}
	for (uint32_t i = 0; i < switches && !err; i++)
		err = cr_genb_hosts(&g.b, i, 1, hosts_per_switch);
out:
	free(order);
	free(used);
	free(open);
	return cr_genb_done(&g.b, err);
}
