// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dragonfly+: G groups, each a two-level tree of L leaves and S spines
 * (every leaf one cable to every spine, H hosts a leaf), and N global
 * cables on every spine, to spines of other groups.
 *
 * The global cables spread over the group pairs as evenly as the ports
 * allow: with P = S x N ports a group, every pair of groups gets
 * q = P / (G - 1) cables, and each group r = P - q (G - 1) pairs one more.
 * Those extra cables form an r-regular circulant graph: group g with
 * g +- 1 .. g +- r/2, and when r is odd a matching on top, g with g + G/2
 * for an even G; for an odd G (then G x S x N is odd) alternate pairs of
 * the cycle g, g + m, g + 2m, ... with m = (G - 1) / 2, which leaves one
 * group, and one spine in it, a cable short. So two pairs of groups differ
 * by at most one cable.
 *
 * A group lists its cables in rounds, every round one cable to each group
 * still owed one, in the order g + 1, g + 2, ... (mod G); its c-th cable
 * leaves spine c mod S on global port c / S. The j-th cable from g to h
 * meets the j-th from h to g. Every position is a formula, so the wiring
 * costs no memory beyond the fabric and is the same on every run.
 *
 * Ports: a leaf's hosts first, then spine s on port H + s + 1 (H x
 * hca_ports + s + 1); a spine's leaf l on port l + 1, then its global
 * ports.
 */
#include <croute/model/log.h>
#include "gen_build.h"

struct dfly {
	unsigned G, L, S, N;
	unsigned long q, r; /* cables every pair; extra pairs a group */
	unsigned k; /* extra pairs at distance 1..k each way */
	unsigned moff; /* odd r: the matching's distance, even G */
};

/* The matching partner's distance from g, or 0 when g has none. */
static unsigned match_off(const struct dfly *d, unsigned g)
{
	unsigned G = d->G, m = (G - 1) / 2, t;

	if (!(d->r % 2))
		return 0;
	if (G % 2 == 0)
		return G / 2;
	/* g = t m mod G: m = -1/2 mod G, so t = -2g mod G */
	t = (G - (2ul * g) % G) % G;
	if (t == G - 1)
		return 0;
	return t % 2 ? m + 1 : m;
}

static unsigned long slots(const struct dfly *d, unsigned g)
{
	return d->q * (d->G - 1) + 2 * d->k + !!match_off(d, g);
}

/* Group g's c-th cable: the distance of its peer; *j, its round. */
static unsigned slot_peer(const struct dfly *d, unsigned g, unsigned long c,
			  unsigned long *j)
{
	unsigned long base = d->q * (d->G - 1), i;
	unsigned mo = match_off(d, g);

	if (c < base) {
		*j = c / (d->G - 1);
		return 1 + c % (d->G - 1);
	}
	*j = d->q;
	i = c - base;
	if (i < d->k)
		return i + 1;
	if (mo && i == d->k)
		return mo;
	return d->G - d->k + (i - d->k - !!mo);
}

/* The slot of group g's j-th cable to the group at distance off. */
static unsigned long peer_slot(const struct dfly *d, unsigned g, unsigned off,
			       unsigned long j)
{
	unsigned long base = d->q * (d->G - 1);
	unsigned mo = match_off(d, g);

	if (j < d->q)
		return j * (d->G - 1) + off - 1;
	if (off <= d->k)
		return base + off - 1;
	if (mo && off == mo)
		return base + d->k;
	return base + d->k + !!mo + (off - (d->G - d->k));
}

static int check(const struct dfly *d, unsigned H, unsigned np)
{
	unsigned long long sw = (unsigned long long)d->G * (d->L + d->S);
	unsigned long long nodes = sw + (unsigned long long)d->G * d->L * H;

	if (d->G < 2 || !d->L || !d->S || !d->N) {
		cr_err("gen: dragonfly+ needs at least 2 groups, and leaves,"
		       " spines and global cables");
		return -1;
	}
	if ((unsigned long long)d->S * d->N < d->G - 1) {
		cr_err("gen: dragonfly+ of %u groups needs spines x global"
		       " >= %u to reach every other group (%u x %u)",
		       d->G, d->G - 1, d->S, d->N);
		return -1;
	}
	if (nodes > CR_GEN_MAX_NODES) {
		cr_err("gen: dragonfly+ of %llu nodes is too large (%lu at"
		       " most)",
		       nodes, CR_GEN_MAX_NODES);
		return -1;
	}
	if (cr_genb_check_ports("a dragonfly+ leaf",
				(unsigned long long)H * np + d->S) ||
	    cr_genb_check_ports("a dragonfly+ spine",
				(unsigned long long)d->L + d->N))
		return -1;
	return 0;
}

static int global_cables(struct cr_genb *g, const struct dfly *d)
{
	unsigned per = d->S + d->L;

	for (unsigned a = 0; a < d->G; a++)
		for (unsigned long c = 0; c < slots(d, a); c++) {
			unsigned long j, c2;
			unsigned off = slot_peer(d, a, c, &j);
			unsigned b = (a + off) % d->G;

			if (b < a)
				continue;
			c2 = peer_slot(d, b, d->G - off, j);
			if (cr_genb_cable(
				    g, a * per + c % d->S, d->L + 1 + c / d->S,
				    b * per + c2 % d->S, d->L + 1 + c2 / d->S))
				return -1;
		}
	return 0;
}

struct cr_fabric *cr_gen_dragonfly_plus(unsigned groups, unsigned leaves,
					unsigned spines, unsigned hosts,
					unsigned global,
					const struct cr_gen_params *p)
{
	struct dfly d = {.G = groups, .L = leaves, .S = spines, .N = global};
	unsigned np = p && p->hca_ports ? p->hca_ports : 1;
	unsigned gd = cr_genb_digits(groups - 1);
	unsigned ld = cr_genb_digits(leaves - 1);
	unsigned sd = cr_genb_digits(spines - 1);
	unsigned per = spines + leaves;
	struct cr_genb g;
	int err = 0;

	if (check(&d, hosts, np))
		return NULL;
	d.q = (unsigned long)spines * global / (groups - 1);
	d.r = (unsigned long)spines * global - d.q * (groups - 1);
	d.k = d.r / 2;
	if (cr_genb_init(&g, p, (unsigned long)groups * leaves * hosts))
		return NULL;
	for (unsigned a = 0; a < groups && !err; a++) {
		for (unsigned s = 0; s < spines && !err; s++)
			err = cr_genb_switch(&g, leaves + global,
					     "g%0*u-spine-%0*u", (int)gd, a,
					     (int)sd, s) == CR_NO_NODE;
		for (unsigned l = 0; l < leaves && !err; l++)
			err = cr_genb_switch(&g, hosts * np + spines,
					     "g%0*u-leaf-%0*u", (int)gd, a,
					     (int)ld, l) == CR_NO_NODE;
	}
	for (unsigned a = 0; a < groups && !err; a++)
		for (unsigned l = 0; l < leaves && !err; l++)
			for (unsigned s = 0; s < spines && !err; s++)
				err = cr_genb_cable(&g, a * per + spines + l,
						    hosts * np + s + 1,
						    a * per + s, l + 1);
	if (!err)
		err = global_cables(&g, &d);
	for (unsigned a = 0; a < groups && !err; a++)
		for (unsigned l = 0; l < leaves && !err; l++)
			err = cr_genb_hosts(&g, a * per + spines + l, 1, hosts);
	return cr_genb_done(&g, err);
}
