// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* All-pairs switch distances by one BFS per switch: O(S * (S + links)). */
#include <stdlib.h>
#include <string.h>

#include <croute/hops.h>
#include <croute/log.h>

uint8_t *cr_switch_distances(const struct cr_fabric *f)
{
	uint32_t ns = f->num_switches;
	uint8_t *dist = malloc((size_t)ns * ns + 1);
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));

	if (!dist || !queue) {
		cr_err("out of memory for %u x %u switch distances", ns, ns);
		free(dist);
		free(queue);
		return NULL;
	}
	memset(dist, CR_HOPS_INF, (size_t)ns * ns);
	for (uint32_t s = 0; s < ns; s++) {
		uint8_t *d = dist + (size_t)s * ns;
		uint32_t head = 0, tail = 0;

		d[s] = 0;
		queue[tail++] = f->switches[s];
		while (head < tail) {
			const struct cr_node *n = &f->nodes[queue[head++]];
			uint8_t next = d[n->sw_index] + 1;

			if (next >= CR_HOPS_INF)
				continue;
			for (unsigned p = 1; p <= n->num_ports; p++) {
				uint32_t m = n->ports[p].remote;

				if (m == CR_NO_NODE || !cr_is_switch(f, m) ||
				    d[f->nodes[m].sw_index] != CR_HOPS_INF)
					continue;
				d[f->nodes[m].sw_index] = next;
				queue[tail++] = m;
			}
		}
	}
	free(queue);
	return dist;
}
