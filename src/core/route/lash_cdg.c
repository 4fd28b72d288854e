// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Channel dependency graphs for cr-lash, one per layer, kept acyclic while
 * dependencies are added one at a time.
 *
 * A dependency a -> b joins two channels that meet at a switch (a enters
 * it, b leaves it), so the successors of a are among the channels leaving
 * dst[a] and the predecessors of b among those entering src[b]. Each
 * channel keeps two small bitsets over that switch's neighbours, which
 * makes "is it there" a bit test and walks cheap.
 *
 * Cycle detection is Pearce and Kelly's dynamic topological order: every
 * layer keeps a topological numbering ord[]. Adding a -> b with
 * ord[a] < ord[b] needs no search at all (the common case); otherwise only
 * the channels numbered between ord[b] and ord[a] are searched, forward
 * from b (reaching a means a cycle) and backward from a, and those two sets
 * are renumbered. Removing a dependency never invalidates the numbering, so
 * a rejected path is undone by just clearing the bits it set.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/cmp.h>
#include <croute/model/log.h>

#include "lash_cdg.h"

struct cdg_layer {
	uint64_t *out; /* successors of c: over dst[c]'s channels */
	uint64_t *in; /* predecessors of c: over src[c]'s channels */
	uint64_t *bad; /* like out: known to close a cycle */
	uint32_t *ord;
	uint32_t *at; /* inverse of ord */
};

struct cdg_undo {
	uint32_t a, b;
	uint8_t layer;
};

struct cr_cdg {
	const struct cr_lash_graph *g;
	size_t *out_off; /* word offsets, nchan + 1 */
	size_t *in_off;
	unsigned max_layers;
	unsigned alloc_layers;
	struct cdg_layer *layers;

	uint32_t *mark;
	uint32_t *target; /* stamp: in the forward set */
	uint32_t stamp;
	uint32_t *stack;
	uint64_t *fwd; /* (ord << 32) | channel of the forward set */
	uint64_t *bwd;
	uint32_t *pool;

	struct cdg_undo *undo;
	size_t nundo, undo_cap;
};

static size_t words(uint32_t bits)
{
	return (bits + 63) / 64;
}

static uint32_t degree(const struct cr_lash_graph *g, uint32_t s)
{
	return g->off[s + 1] - g->off[s];
}

int cr_lash_graph_build(const struct cr_fabric *f, struct cr_lash_graph *g)
{
	uint32_t ns = f->num_switches;
	uint32_t *seen = calloc(ns ? ns : 1, sizeof(*seen));
	uint32_t n = 0;

	memset(g, 0, sizeof(*g));
	g->ns = ns;
	g->off = calloc(ns + 1, sizeof(*g->off));
	if (!seen || !g->off)
		goto oom;
	/* Two passes: count distinct neighbours, then fill. */
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (uint32_t s = 0; s < ns; s++) {
			const struct cr_node *sw = &f->nodes[f->switches[s]];

			g->off[s] = n;
			for (unsigned p = 1; p <= sw->num_ports; p++) {
				uint32_t m = sw->ports[p].remote;
				uint32_t t;

				if (m == CR_NO_NODE || !cr_is_switch(f, m))
					continue;
				t = f->nodes[m].sw_index;
				/* seen[t] holds s + 1 once t is counted. */
				if (t == s || seen[t] == s + 1)
					continue;
				seen[t] = s + 1;
				if (pass) {
					g->src[n] = s;
					g->dst[n] = t;
				}
				n++;
			}
		}
		g->off[ns] = n;
		if (!pass) {
			g->nchan = n;
			g->src = malloc((n + 1) * sizeof(*g->src));
			g->dst = malloc((n + 1) * sizeof(*g->dst));
			g->rev = malloc((n + 1) * sizeof(*g->rev));
			if (!g->src || !g->dst || !g->rev)
				goto oom;
			memset(seen, 0, ns * sizeof(*seen));
		}
	}
	for (uint32_t c = 0; c < n; c++) {
		g->rev[c] = cr_lash_graph_chan(g, g->dst[c], g->src[c]);
		if (g->rev[c] == CR_LASH_NO_CHAN) {
			cr_err("cr-lash: link between switches %u and %u is "
			       "one-way",
			       g->src[c], g->dst[c]);
			free(seen);
			cr_lash_graph_release(g);
			return -1;
		}
	}
	free(seen);
	return 0;
oom:
	cr_err("cr-lash: out of memory for the switch graph");
	free(seen);
	cr_lash_graph_release(g);
	return -1;
}

void cr_lash_graph_release(struct cr_lash_graph *g)
{
	free(g->off);
	free(g->src);
	free(g->dst);
	free(g->rev);
	memset(g, 0, sizeof(*g));
}

uint32_t cr_lash_graph_chan(const struct cr_lash_graph *g, uint32_t s,
			    uint32_t t)
{
	for (uint32_t c = g->off[s]; c < g->off[s + 1]; c++)
		if (g->dst[c] == t)
			return c;
	return CR_LASH_NO_CHAN;
}

struct cr_cdg *cr_cdg_new(const struct cr_lash_graph *g, unsigned max_layers)
{
	struct cr_cdg *c = calloc(1, sizeof(*c));
	size_t n = g->nchan + 1;

	if (!c)
		goto oom;
	c->g = g;
	c->max_layers = max_layers;
	c->layers = calloc(max_layers, sizeof(*c->layers));
	c->out_off = malloc((n + 1) * sizeof(*c->out_off));
	c->in_off = malloc((n + 1) * sizeof(*c->in_off));
	c->mark = calloc(n, sizeof(*c->mark));
	c->target = calloc(n, sizeof(*c->target));
	c->stack = malloc(n * sizeof(*c->stack));
	c->fwd = malloc(n * sizeof(*c->fwd));
	c->bwd = malloc(n * sizeof(*c->bwd));
	c->pool = malloc(n * sizeof(*c->pool));
	if (!c->layers || !c->out_off || !c->in_off || !c->mark || !c->target ||
	    !c->stack || !c->fwd || !c->bwd || !c->pool)
		goto oom;
	c->out_off[0] = c->in_off[0] = 0;
	for (uint32_t i = 0; i < g->nchan; i++) {
		c->out_off[i + 1] = c->out_off[i] + words(degree(g, g->dst[i]));
		c->in_off[i + 1] = c->in_off[i] + words(degree(g, g->src[i]));
	}
	return c;
oom:
	cr_err("cr-lash: out of memory for the dependency graphs");
	cr_cdg_free(c);
	return NULL;
}

void cr_cdg_free(struct cr_cdg *c)
{
	if (!c)
		return;
	for (unsigned l = 0; c->layers && l < c->alloc_layers; l++) {
		free(c->layers[l].out);
		free(c->layers[l].in);
		free(c->layers[l].bad);
		free(c->layers[l].ord);
		free(c->layers[l].at);
	}
	free(c->layers);
	free(c->out_off);
	free(c->in_off);
	free(c->mark);
	free(c->target);
	free(c->stack);
	free(c->fwd);
	free(c->bwd);
	free(c->pool);
	free(c->undo);
	free(c);
}

/* Layers are allocated on first use: most fabrics need a few. */
static struct cdg_layer *get_layer(struct cr_cdg *c, unsigned l)
{
	uint32_t n = c->g->nchan;

	while (c->alloc_layers <= l) {
		struct cdg_layer *y = &c->layers[c->alloc_layers];

		y->out = calloc(c->out_off[n] + 1, sizeof(*y->out));
		y->in = calloc(c->in_off[n] + 1, sizeof(*y->in));
		y->bad = calloc(c->out_off[n] + 1, sizeof(*y->bad));
		y->ord = malloc((n + 1) * sizeof(*y->ord));
		y->at = malloc((n + 1) * sizeof(*y->at));
		if (!y->out || !y->in || !y->bad || !y->ord || !y->at) {
			cr_err("cr-lash: out of memory for layer %u", l);
			return NULL;
		}
		for (uint32_t i = 0; i < n; i++)
			y->ord[i] = y->at[i] = i;
		c->alloc_layers++;
	}
	return &c->layers[l];
}

static void new_stamp(struct cr_cdg *c)
{
	if (++c->stamp == 0) {
		memset(c->mark, 0, (c->g->nchan + 1) * sizeof(*c->mark));
		memset(c->target, 0, (c->g->nchan + 1) * sizeof(*c->target));
		c->stamp = 1;
	}
}

static bool test_bit(const uint64_t *w, uint32_t i)
{
	return w[i / 64] >> (i % 64) & 1;
}

/*
 * Forward search from b over channels numbered below ub = ord[a]. Returns
 * the size of the set, or -1 when a is reached (the dependency would close
 * a cycle).
 */
static long search_forward(struct cr_cdg *c, struct cdg_layer *y, uint32_t a,
			   uint32_t b)
{
	const struct cr_lash_graph *g = c->g;
	uint32_t ub = y->ord[a];
	size_t sp = 0, nf = 0;

	c->stack[sp++] = b;
	c->mark[b] = c->stamp;
	while (sp) {
		uint32_t x = c->stack[--sp];
		uint32_t t = g->dst[x];
		const uint64_t *w = y->out + c->out_off[x];

		c->fwd[nf++] = (uint64_t)y->ord[x] << 32 | x;
		c->target[x] = c->stamp;
		for (size_t k = 0; k < c->out_off[x + 1] - c->out_off[x]; k++) {
			uint64_t bits = w[k];

			while (bits) {
				uint32_t j = k * 64 + __builtin_ctzll(bits);
				uint32_t z = g->off[t] + j;

				bits &= bits - 1;
				if (z == a)
					return -1;
				if (c->mark[z] == c->stamp || y->ord[z] > ub)
					continue;
				c->mark[z] = c->stamp;
				c->stack[sp++] = z;
			}
		}
	}
	return (long)nf;
}

/* Backward search from a over channels numbered above lb = ord[b]. */
static size_t search_backward(struct cr_cdg *c, struct cdg_layer *y, uint32_t a,
			      uint32_t b)
{
	const struct cr_lash_graph *g = c->g;
	uint32_t lb = y->ord[b];
	size_t sp = 0, nb = 0;

	c->stack[sp++] = a;
	c->mark[a] = c->stamp;
	while (sp) {
		uint32_t x = c->stack[--sp];
		uint32_t s = g->src[x];
		const uint64_t *w = y->in + c->in_off[x];

		c->bwd[nb++] = (uint64_t)y->ord[x] << 32 | x;
		for (size_t k = 0; k < c->in_off[x + 1] - c->in_off[x]; k++) {
			uint64_t bits = w[k];

			while (bits) {
				uint32_t j = k * 64 + __builtin_ctzll(bits);
				uint32_t z = g->rev[g->off[s] + j];

				bits &= bits - 1;
				if (c->mark[z] == c->stamp || y->ord[z] < lb)
					continue;
				c->mark[z] = c->stamp;
				c->stack[sp++] = z;
			}
		}
	}
	return nb;
}

/*
 * Everything that reaches a now comes before everything b reaches, each
 * set keeping its internal order, on the same numbers as before. When the
 * numbers span little more than the sets, a scan of that span sorts them
 * for free; otherwise they are sorted.
 */
static void reorder(struct cr_cdg *c, struct cdg_layer *y, uint32_t lo,
		    uint32_t hi, size_t nf, size_t nb)
{
	size_t n = 0;

	if (hi - lo <= 8 * (nf + nb)) {
		size_t f = 0, b = 0;

		for (uint32_t o = lo; o <= hi; o++) {
			uint32_t x = y->at[o];

			if (c->mark[x] != c->stamp)
				continue;
			c->pool[n++] = o;
			if (c->target[x] == c->stamp)
				c->fwd[f++] = x;
			else
				c->bwd[b++] = x;
		}
	} else {
		qsort(c->fwd, nf, sizeof(*c->fwd), cr_cmp_u64);
		qsort(c->bwd, nb, sizeof(*c->bwd), cr_cmp_u64);
		for (size_t i = 0; i < nb; i++)
			c->pool[n++] = c->bwd[i] >> 32;
		for (size_t i = 0; i < nf; i++)
			c->pool[n++] = c->fwd[i] >> 32;
		qsort(c->pool, n, sizeof(*c->pool), cr_cmp_u32);
	}
	n = 0;
	for (size_t i = 0; i < nb; i++) {
		uint32_t x = (uint32_t)c->bwd[i];

		y->ord[x] = c->pool[n];
		y->at[c->pool[n++]] = x;
	}
	for (size_t i = 0; i < nf; i++) {
		uint32_t x = (uint32_t)c->fwd[i];

		y->ord[x] = c->pool[n];
		y->at[c->pool[n++]] = x;
	}
}

static void set_edge(struct cr_cdg *c, struct cdg_layer *y, uint32_t a,
		     uint32_t b, bool on)
{
	const struct cr_lash_graph *g = c->g;
	uint32_t t = g->dst[a];
	uint32_t j = b - g->off[t]; /* b among t's channels out */
	uint32_t k = g->rev[a] - g->off[t]; /* a's source among t's */
	uint64_t *ow = y->out + c->out_off[a] + j / 64;
	uint64_t *iw = y->in + c->in_off[b] + k / 64;

	if (on) {
		*ow |= 1ull << (j % 64);
		*iw |= 1ull << (k % 64);
	} else {
		*ow &= ~(1ull << (j % 64));
		*iw &= ~(1ull << (k % 64));
	}
}

int cr_cdg_add(struct cr_cdg *c, unsigned l, uint32_t a, uint32_t b)
{
	const struct cr_lash_graph *g = c->g;
	struct cdg_layer *y;
	uint32_t t = g->dst[a];

	if (l >= c->max_layers || g->src[b] != t)
		return -1;
	y = get_layer(c, l);
	if (!y)
		return -1;
	if (test_bit(y->out + c->out_off[a], b - g->off[t]))
		return 0;
	if (a == b || test_bit(y->bad + c->out_off[a], b - g->off[t]))
		return -1;
	if (y->ord[b] < y->ord[a]) {
		long nf;
		size_t nb;
		uint32_t lo, hi;

		new_stamp(c);
		nf = search_forward(c, y, a, b);
		if (nf < 0) {
			/*
			 * Against committed dependencies only, the verdict is
			 * final: they are never removed.
			 */
			if (!c->nundo) {
				uint32_t j = b - g->off[t];

				y->bad[c->out_off[a] + j / 64] |= 1ull
								  << (j % 64);
			}
			return -1;
		}
		lo = y->ord[b];
		hi = y->ord[a];
		nb = search_backward(c, y, a, b);
		reorder(c, y, lo, hi, (size_t)nf, nb);
	}
	if (cr_grow(&c->undo, &c->undo_cap, c->nundo + 1, sizeof(*c->undo))) {
		cr_err("cr-lash: out of memory");
		return -1;
	}
	c->undo[c->nundo++] = (struct cdg_undo){a, b, (uint8_t)l};
	set_edge(c, y, a, b, true);
	return 0;
}

int cr_cdg_lookup(const struct cr_cdg *c, unsigned l, uint32_t a, uint32_t b)
{
	const struct cr_lash_graph *g = c->g;
	uint32_t j = b - g->off[g->dst[a]];

	if (l >= c->alloc_layers)
		return 0;
	if (test_bit(c->layers[l].out + c->out_off[a], j))
		return 1;
	return test_bit(c->layers[l].bad + c->out_off[a], j) ? -1 : 0;
}

void cr_cdg_rollback(struct cr_cdg *c, size_t mark)
{
	while (c->nundo > mark) {
		struct cdg_undo *u = &c->undo[--c->nundo];

		set_edge(c, &c->layers[u->layer], u->a, u->b, false);
	}
}

void cr_cdg_commit(struct cr_cdg *c)
{
	c->nundo = 0;
}
