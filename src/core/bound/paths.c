// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bound's path sets: fewest switch hops between every pair of
 * switches (which fixes the shortest-path DAG toward each switch, the arcs
 * a minimal path may take), and the candidate paths of one switch pair for
 * the unsplittable MIP, enumerated depth first in edge order so that the
 * MIP is the same on every run.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>

#include "bound_int.h"

int cr_bound_hops(struct model *m)
{
	uint32_t ns = m->ns, *queue;

	m->off = calloc(ns + 2, sizeof(uint32_t));
	m->hops = malloc(((size_t)ns * ns + 1) * sizeof(uint16_t));
	queue = malloc((ns + 1) * sizeof(uint32_t));
	if (!m->off || !m->hops || !queue) {
		free(queue);
		return -1;
	}
	/* edges are built switch by switch: already grouped by source */
	for (uint32_t k = 0; k < m->ne; k++)
		m->off[m->edge[k].from + 1]++;
	for (uint32_t s = 0; s < ns; s++)
		m->off[s + 1] += m->off[s];
	memset(m->hops, 0xff, (size_t)ns * ns * sizeof(uint16_t));
	for (uint32_t s = 0; s < ns; s++) {
		uint16_t *h = &m->hops[(size_t)s * ns];
		uint32_t head = 0, tail = 0;

		h[s] = 0;
		queue[tail++] = s;
		while (head < tail) {
			uint32_t u = queue[head++];

			for (uint32_t k = m->off[u]; k < m->off[u + 1]; k++) {
				uint32_t v = m->edge[k].to;

				if (h[v] != CR_HOP_NONE)
					continue;
				h[v] = (uint16_t)(h[u] + 1);
				queue[tail++] = v;
			}
		}
	}
	free(queue);
	return 0;
}

void cr_bound_pathset_free(struct pathset *p)
{
	free(p->start);
	free(p->edges);
	memset(p, 0, sizeof(*p));
}

struct walk {
	const struct model *m;
	uint32_t d, limit, max;
	bool minimal;
	uint32_t *stack; /* edges of the path so far */
	uint8_t *on; /* switches on it */
	struct pathset *out;
	size_t alloc_paths, alloc_edges, nedges;
	int err;
};

static int record(struct walk *w, uint32_t len)
{
	struct pathset *p = w->out;

	if (p->count >= w->max) {
		p->count = w->max + 1;
		return -2;
	}
	if (cr_grow(&p->start, &w->alloc_paths, (size_t)p->count + 2,
		    sizeof(*p->start)) ||
	    cr_grow(&p->edges, &w->alloc_edges, w->nedges + len,
		    sizeof(*p->edges)))
		return -1;
	p->start[p->count] = (uint32_t)w->nedges;
	memcpy(&p->edges[w->nedges], w->stack, len * sizeof(uint32_t));
	w->nedges += len;
	p->count++;
	p->start[p->count] = (uint32_t)w->nedges;
	return 0;
}

static int dfs(struct walk *w, uint32_t u, uint32_t len)
{
	const struct model *m = w->m;
	size_t ns = m->ns;

	if (u == w->d)
		return record(w, len);
	for (uint32_t k = m->off[u]; k < m->off[u + 1]; k++) {
		uint32_t v = m->edge[k].to;
		uint16_t hv = m->hops[(size_t)v * ns + w->d];
		int st;

		if (w->on[v] || hv == CR_HOP_NONE)
			continue;
		if (w->minimal ? !cr_bound_on_dag(m, k, w->d)
			       : len + 1 + hv > w->limit)
			continue;
		w->stack[len] = k;
		w->on[v] = 1;
		st = dfs(w, v, len + 1);
		w->on[v] = 0;
		if (st)
			return st;
	}
	return 0;
}

int cr_bound_paths(const struct model *m, uint32_t s, uint32_t d,
		   unsigned extra, uint32_t max, struct pathset *out)
{
	uint16_t h = m->hops[(size_t)s * m->ns + d];
	struct walk w = {
		.m = m,
		.d = d,
		.max = max,
		.minimal = m->minimal,
		.out = out,
	};
	int st;

	memset(out, 0, sizeof(*out));
	if (h == CR_HOP_NONE)
		return 0;
	w.limit = m->minimal ? h : h + extra;
	w.stack = malloc((w.limit + 1) * sizeof(uint32_t));
	w.on = calloc(m->ns + 1, 1);
	out->start = malloc(sizeof(uint32_t));
	if (!w.stack || !w.on || !out->start) {
		st = -1;
		goto out;
	}
	out->start[0] = 0;
	w.alloc_paths = 1;
	w.on[s] = 1;
	st = dfs(&w, s, 0);
out:
	free(w.stack);
	free(w.on);
	return st;
}
