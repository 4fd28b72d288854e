// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * All-pairs switch distances: a breadth-first search from every switch at
 * once, one bit per source. Round d ORs each switch's neighbours' bit
 * rows into its own; a bit that appears is a distance d. Rounds are the
 * diameter, each a word-wide OR per switch link: O(diameter * links * S /
 * 64), where one search per source costs O(S * links) in all.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

struct dist_job {
	uint32_t ns, words;
	const uint32_t *start; /* cr_switch_adjacency() */
	const uint32_t *adj;
	const uint64_t *cur;
	uint64_t *nxt;
	uint8_t *dist;
	uint8_t d;
	uint8_t *changed; /* per part */
};

/* A range of switches' rows for one round: each part writes its own. */
static int dist_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct dist_job *j = arg;
	uint32_t w = j->words;

	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		const uint64_t *old = j->cur + (size_t)s * w;
		uint64_t *row = j->nxt + (size_t)s * w;
		uint8_t *dist = j->dist + (size_t)s * j->ns;

		memcpy(row, old, w * sizeof(*row));
		for (uint32_t k = j->start[s]; k < j->start[s + 1]; k++) {
			const uint64_t *o = j->cur + (size_t)j->adj[k] * w;

			for (uint32_t i = 0; i < w; i++)
				row[i] |= o[i];
		}
		for (uint32_t i = 0; i < w; i++) {
			uint64_t fresh = row[i] & ~old[i];

			if (fresh)
				j->changed[part] = 1;
			while (fresh) {
				unsigned b = (unsigned)__builtin_ctzll(fresh);

				dist[(size_t)i * 64 + b] = j->d;
				fresh &= fresh - 1;
			}
		}
	}
	return 0;
}

uint8_t *cr_switch_distances_among(const struct cr_fabric *f, const bool *among)
{
	uint32_t ns = f->num_switches, w = (ns + 63) / 64, k = 0;
	unsigned nparts = cr_parallel_parts(ns, 64);
	uint32_t *start = NULL, *adj = NULL;
	struct dist_job j = {.ns = ns, .words = w};
	uint64_t *a, *b;

	j.dist = malloc((size_t)ns * ns + 1);
	a = calloc((size_t)ns * w + 1, sizeof(*a));
	b = calloc((size_t)ns * w + 1, sizeof(*b));
	j.changed = calloc(nparts, 1);
	if (!j.dist || !a || !b || !j.changed ||
	    cr_switch_adjacency(f, &start, &adj, NULL))
		goto oom;
	/* Links with a switch outside among neither lead nor relay. */
	for (uint32_t s = 0, from = 0; among && s < ns; s++) {
		uint32_t to = start[s + 1];

		start[s] = k;
		for (uint32_t i = from; among[s] && i < to; i++)
			if (among[adj[i]])
				adj[k++] = adj[i];
		from = to;
	}
	if (among)
		start[ns] = k;
	j.start = start;
	j.adj = adj;
	memset(j.dist, CR_HOPS_INF, (size_t)ns * ns);
	for (uint32_t s = 0; s < ns; s++)
		if (!among || among[s]) {
			a[(size_t)s * w + s / 64] |= 1ull << (s % 64);
			j.dist[(size_t)s * ns + s] = 0;
		}
	for (unsigned d = 1; d < CR_HOPS_INF; d++) {
		bool any = false;
		uint64_t *t;

		j.cur = a;
		j.nxt = b;
		j.d = (uint8_t)d;
		memset(j.changed, 0, nparts);
		cr_parallel(ns, nparts, dist_range, &j);
		for (unsigned p = 0; p < nparts; p++)
			any |= j.changed[p];
		if (!any)
			break;
		t = a;
		a = b;
		b = t;
	}
	free(a);
	free(b);
	free(j.changed);
	free(start);
	free(adj);
	return j.dist;
oom:
	cr_err("out of memory for %u x %u switch distances", ns, ns);
	free(a);
	free(b);
	free(j.changed);
	free(start);
	free(adj);
	free(j.dist);
	return NULL;
}

uint8_t *cr_switch_distances(const struct cr_fabric *f)
{
	return cr_switch_distances_among(f, NULL);
}

int cr_switch_adjacency(const struct cr_fabric *f, uint32_t **start,
			uint32_t **adj, uint8_t **port)
{
	uint32_t ns = f->num_switches, k = 0;

	*start = malloc((ns + 1) * sizeof(**start));
	*adj = NULL;
	if (port)
		*port = NULL;
	if (!*start)
		return -1;
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= n->num_ports; p++)
			k += n->ports[p].remote != CR_NO_NODE &&
			     cr_is_switch(f, n->ports[p].remote);
	}
	*adj = malloc((k + 1) * sizeof(**adj));
	if (port)
		*port = malloc(k + 1);
	if (!*adj || (port && !*port))
		return -1;
	k = 0;
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		(*start)[s] = k;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m == CR_NO_NODE || !cr_is_switch(f, m))
				continue;
			if (port)
				(*port)[k] = (uint8_t)p;
			(*adj)[k++] = f->nodes[m].sw_index;
		}
	}
	(*start)[ns] = k;
	return 0;
}
