// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* All-pairs switch distances by one BFS per switch: O(S * (S + links)). */
#include <stdlib.h>
#include <string.h>

#include <croute/hops.h>
#include <croute/log.h>
#include <croute/parallel.h>

struct bfs_job {
	uint32_t ns;
	const uint32_t *start; /* cr_switch_adjacency() */
	const uint32_t *adj;
	uint8_t *dist;
};

/*
 * Each source's BFS fills its own row: sources run in parallel. Over the
 * switch links alone, in flat arrays: at 2,880 switches the hosts' ports
 * and the node records cost more than the search itself.
 */
static int bfs_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	const struct bfs_job *j = arg;
	uint32_t ns = j->ns;
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));

	(void)part;
	(void)nparts;
	if (!queue)
		return -1;
	for (uint32_t s = begin; s < end; s++) {
		uint8_t *d = j->dist + (size_t)s * ns;
		uint32_t head = 0, tail = 0;

		d[s] = 0;
		queue[tail++] = s;
		while (head < tail) {
			uint32_t x = queue[head++];
			uint8_t next = d[x] + 1;

			if (next >= CR_HOPS_INF)
				continue;
			for (uint32_t k = j->start[x]; k < j->start[x + 1];
			     k++) {
				uint32_t y = j->adj[k];

				if (d[y] != CR_HOPS_INF)
					continue;
				d[y] = next;
				queue[tail++] = y;
			}
		}
	}
	free(queue);
	return 0;
}

uint8_t *cr_switch_distances(const struct cr_fabric *f)
{
	uint32_t ns = f->num_switches;
	uint32_t *start = NULL, *adj = NULL;
	struct bfs_job j = {.ns = ns, .dist = malloc((size_t)ns * ns + 1)};

	if (j.dist && !cr_switch_adjacency(f, &start, &adj, NULL)) {
		j.start = start;
		j.adj = adj;
		memset(j.dist, CR_HOPS_INF, (size_t)ns * ns);
		if (!cr_parallel(ns, cr_parallel_parts(ns, 64), bfs_range,
				 &j)) {
			free(start);
			free(adj);
			return j.dist;
		}
	}
	cr_err("out of memory for %u x %u switch distances", ns, ns);
	free(start);
	free(adj);
	free(j.dist);
	return NULL;
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
