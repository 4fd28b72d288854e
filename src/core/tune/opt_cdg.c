// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-VL channel dependency graphs with a count per dependency (see
 * opt_cdg.h). A channel is a switch's output port; the dependency (c, q)
 * says that some LID forwarded on channel c leaves the next switch by its
 * port q. As in cr_check, a LID's dependency at switch s belongs to the
 * VLs of the SLs of s and of every switch whose route to the LID crosses
 * s. A new dependency (count from 0) closes a cycle exactly when its head
 * channel reaches its tail in that VL's graph: one depth-first search.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>

#include "opt_cdg.h"

struct added {
	uint32_t vl, chan;
	uint8_t q;
};

struct opt_cdg {
	const struct cr_fabric *f;
	uint32_t ns, nchan, stride;
	uint32_t *chan_base; /* switch index -> its port 0's channel */
	uint32_t *chan_sw; /* channel -> switch node */
	uint8_t vl_ix[16]; /* SL -> compact VL index */
	unsigned nvl;
	uint32_t *cnt; /* [vl][chan][port] */
	uint16_t *mask; /* switch index -> SL bits crossing it */
	uint32_t *path;
	struct added *added;
	size_t nadded, added_alloc;
	uint32_t *stamp, gen, *stack;
};

void opt_cdg_free(struct opt_cdg *g)
{
	if (!g)
		return;
	free(g->chan_base);
	free(g->chan_sw);
	free(g->cnt);
	free(g->mask);
	free(g->path);
	free(g->added);
	free(g->stamp);
	free(g->stack);
	free(g);
}

static uint32_t sw_ix(const struct opt_cdg *g, uint32_t node)
{
	return g->f->nodes[node].sw_index;
}

/* The next switch node from switch node s toward lid by port p, or
 * CR_NO_NODE. */
static uint32_t next_sw(const struct opt_cdg *g, uint32_t s, unsigned p)
{
	const struct cr_fabric *f = g->f;
	uint32_t m;

	if (!p || p == CR_NO_PATH || p > f->nodes[s].num_ports)
		return CR_NO_NODE;
	m = cr_remote(f, s, p);
	return m != CR_NO_NODE && cr_is_switch(f, m) ? m : CR_NO_NODE;
}

struct opt_cdg *opt_cdg_new(const struct cr_fabric *f,
			    const struct cr_routing *r)
{
	struct opt_cdg *g = calloc(1, sizeof(*g));
	uint16_t used = 0;
	unsigned maxp = 0;

	if (!g)
		goto oom;
	g->f = f;
	g->ns = f->num_switches;
	g->chan_base = malloc((g->ns + 1) * sizeof(*g->chan_base));
	if (!g->chan_base)
		goto oom;
	for (uint32_t i = 0; i < g->ns; i++) {
		unsigned np = f->nodes[f->switches[i]].num_ports;

		g->chan_base[i] = g->nchan;
		g->nchan += np + 1;
		if (np > maxp)
			maxp = np;
	}
	g->stride = maxp + 1;
	for (uint32_t i = 0; i < g->ns; i++) {
		const uint8_t *sl = r->sl ? r->sl[f->switches[i]] : NULL;

		for (uint32_t l = 1; l <= r->max_lid; l++)
			used |= 1u << (sl ? r->sl2vl[sl[l] & 15] & 15 : 0);
	}
	for (unsigned v = 0; v < 16; v++)
		if (used & (1u << v))
			g->vl_ix[v] = (uint8_t)g->nvl++;
	g->chan_sw = malloc((g->nchan + 1) * sizeof(*g->chan_sw));
	g->cnt = calloc((size_t)g->nvl * g->nchan * g->stride + 1,
			sizeof(*g->cnt));
	g->mask = malloc((g->ns + 1) * sizeof(*g->mask));
	g->path = malloc((g->ns + 2) * sizeof(*g->path));
	g->stamp = calloc(g->nchan + 1, sizeof(*g->stamp));
	g->stack = malloc((g->nchan + 1) * sizeof(*g->stack));
	if (!g->chan_sw || !g->cnt || !g->mask || !g->path || !g->stamp ||
	    !g->stack)
		goto oom;
	for (uint32_t i = 0; i < g->ns; i++)
		for (uint32_t c = g->chan_base[i];
		     c <
		     g->chan_base[i] + f->nodes[f->switches[i]].num_ports + 1;
		     c++)
			g->chan_sw[c] = f->switches[i];
	for (uint32_t l = 1; l <= f->max_lid && l <= r->max_lid; l++)
		if (f->lid_node[l] != CR_NO_NODE &&
		    opt_cdg_lid(g, r, (uint16_t)l, 1))
			goto fail;
	g->nadded = 0;
	return g;
oom:
	cr_err("out of memory for the channel dependency graphs");
fail:
	opt_cdg_free(g);
	return NULL;
}

/* The SL bits of the sources crossing each switch toward lid. */
static void masks(struct opt_cdg *g, const struct cr_routing *r, uint16_t lid)
{
	const struct cr_fabric *f = g->f;
	uint32_t dst = f->lid_node[lid];
	uint32_t dsw = cr_is_switch(f, dst)
			       ? dst
			       : cr_remote(f, dst, f->lid_port[lid]);

	for (uint32_t i = 0; i < g->ns; i++) {
		uint32_t s = f->switches[i];

		g->mask[i] = r->sl && r->sl[s] ? 1u << (r->sl[s][lid] & 15) : 1;
	}
	for (uint32_t i = 0; i < g->ns; i++) {
		uint32_t n = g->f->switches[i], len = 0;

		/* only routes that arrive pass their SL on (cr_check) */
		while (n != dsw && len <= g->ns && r->lft[n]) {
			n = next_sw(g, n, r->lft[n][lid]);
			if (n == CR_NO_NODE)
				break;
			g->path[len++] = sw_ix(g, n);
		}
		if (n != dsw)
			continue;
		for (uint32_t k = 0; k < len; k++)
			g->mask[g->path[k]] |= g->mask[i] & 0xffff;
	}
}

/* Records a dependency that a count just brought from 0 (logged). */
static int add_dep(struct opt_cdg *g, uint32_t vl, uint32_t chan, uint8_t q)
{
	if (cr_grow(&g->added, &g->added_alloc, g->nadded + 1,
		    sizeof(*g->added))) {
		cr_err("out of memory for the dependency graphs");
		return -1;
	}
	g->added[g->nadded++] = (struct added){.vl = vl, .chan = chan, .q = q};
	return 0;
}

int opt_cdg_lid(struct opt_cdg *g, const struct cr_routing *r, uint16_t lid,
		int sign)
{
	const struct cr_fabric *f = g->f;
	uint16_t own;

	if (!lid || lid > f->max_lid || f->lid_node[lid] == CR_NO_NODE)
		return 0;
	masks(g, r, lid);
	for (uint32_t i = 0; i < g->ns; i++) {
		uint32_t s = f->switches[i], m;
		uint8_t p, q;

		if (!r->lft[s])
			continue;
		p = r->lft[s][lid];
		m = next_sw(g, s, p);
		if (m == CR_NO_NODE || !r->lft[m])
			continue;
		q = r->lft[m][lid];
		if (!q || q == CR_NO_PATH || q > f->nodes[m].num_ports)
			continue;
		own = g->mask[i]; /* the SLs crossing s */
		for (unsigned sl = 0; sl < 16; sl++) {
			uint32_t v, c;
			uint32_t *n;

			if (!(own & (1u << sl)))
				continue;
			v = g->vl_ix[r->sl ? r->sl2vl[sl] & 15 : 0];
			c = g->chan_base[i] + p;
			n = &g->cnt[((size_t)v * g->nchan + c) * g->stride + q];
			if (sign > 0) {
				if (!(*n)++ && add_dep(g, v, c, q))
					return -1;
			} else if (*n) {
				(*n)--;
			}
		}
	}
	return 0;
}

/* Does channel `from` reach channel `to` in VL v? */
static bool reaches(struct opt_cdg *g, uint32_t v, uint32_t from, uint32_t to)
{
	const struct cr_fabric *f = g->f;
	uint32_t top = 0;

	if (++g->gen == 0) {
		memset(g->stamp, 0, g->nchan * sizeof(*g->stamp));
		g->gen = 1;
	}
	g->stamp[from] = g->gen;
	g->stack[top++] = from;
	while (top) {
		uint32_t c = g->stack[--top], s = g->chan_sw[c];
		unsigned p = c - g->chan_base[sw_ix(g, s)];
		uint32_t m = next_sw(g, s, p), base;
		const uint32_t *row;

		if (m == CR_NO_NODE)
			continue;
		row = &g->cnt[((size_t)v * g->nchan + c) * g->stride];
		base = g->chan_base[sw_ix(g, m)];
		for (unsigned q = 1; q <= f->nodes[m].num_ports; q++) {
			uint32_t d = base + q;

			if (!row[q])
				continue;
			if (d == to)
				return true;
			if (g->stamp[d] != g->gen) {
				g->stamp[d] = g->gen;
				g->stack[top++] = d;
			}
		}
	}
	return false;
}

bool opt_cdg_cycle(struct opt_cdg *g)
{
	bool cycle = false;

	for (size_t i = 0; i < g->nadded && !cycle; i++) {
		const struct added *a = &g->added[i];
		uint32_t s = g->chan_sw[a->chan];
		unsigned p = a->chan - g->chan_base[sw_ix(g, s)];
		uint32_t m = next_sw(g, s, p);

		if (m == CR_NO_NODE ||
		    !g->cnt[((size_t)a->vl * g->nchan + a->chan) * g->stride +
			    a->q])
			continue;
		cycle = reaches(g, a->vl, g->chan_base[sw_ix(g, m)] + a->q,
				a->chan);
	}
	g->nadded = 0;
	return cycle;
}
