// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-updn's ranks and labels, the definitions every other file of the
 * engine routes by (updn.c, updn_roots.c, updn_lids.c, updn_detour.c) and
 * incremental.c repairs by: the ranks and the total order of the switches
 * (updn_rank_switches()), the labels toward one destination switch
 * (updn_label_into()) and the legal next steps they allow
 * (updn_candidates()). The rules are explained at the top of updn.c.
 *
 * Cost: a BFS and a sort of the switches per ranking, a BFS per labelling,
 * O(links of the switch) per candidate list.
 */
#include <stdlib.h>

#include <croute/model/log.h>

#include "updn_int.h"

struct updn_key {
	uint32_t rank;
	uint32_t sw;
	uint64_t guid;
};

static int cmp_key(const void *a, const void *b)
{
	const struct updn_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* Multi-source BFS from the roots, then the total order of the keys. */
int updn_rank_switches(struct updn *u)
{
	struct updn_key *keys = malloc((u->ns + 1) * sizeof(*keys));
	uint32_t head = 0, tail = 0;

	if (!keys) {
		cr_err("cr-updn: out of memory ranking %u switches", u->ns);
		return -1;
	}

	for (uint32_t s = 0; s < u->ns; s++) {
		u->rank[s] = UINT32_MAX;
		if (u->is_root[s]) {
			u->rank[s] = 0;
			u->queue[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t x = u->queue[head++];

		for (uint32_t k = u->adj_start[x]; k < u->adj_start[x + 1];
		     k++) {
			uint32_t y = u->adj[k].sw;

			if (u->rank[y] == UINT32_MAX) {
				u->rank[y] = u->rank[x] + 1;
				u->queue[tail++] = y;
			}
		}
	}
	for (uint32_t s = 0; s < u->ns; s++) {
		keys[s].rank = u->rank[s];
		keys[s].sw = s;
		keys[s].guid = updn_sw_guid(u, s);
	}
	qsort(keys, u->ns, sizeof(*keys), cmp_key);
	for (uint32_t i = 0; i < u->ns; i++)
		u->ord[keys[i].sw] = i;
	free(keys);
	u->labelled_for = CR_NO_NODE;
	return 0;
}

/*
 * Level by level, so that a switch reached at the same distance both ways
 * becomes DOWN.
 */
uint32_t updn_label_into(const struct updn *u, uint32_t d, uint16_t *dist,
			 uint8_t *mode, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, level_end;

	for (uint32_t s = 0; s < u->ns; s++)
		dist[s] = CR_UPDN_NO_LABEL;
	dist[d] = 0;
	mode[d] = CR_UPDN_DOWN;
	queue[tail++] = d;
	while (head < tail) {
		level_end = tail;
		for (; head < level_end; head++) {
			uint32_t x = queue[head];
			uint16_t next = dist[x] + 1;

			for (uint32_t k = u->adj_start[x];
			     k < u->adj_start[x + 1]; k++) {
				uint32_t w = u->adj[k].sw;
				/* The route would step w -> x. */
				bool down = u->ord[x] > u->ord[w];

				if (down && mode[x] != CR_UPDN_DOWN)
					continue;
				if (dist[w] == CR_UPDN_NO_LABEL) {
					dist[w] = next;
					mode[w] = down ? CR_UPDN_DOWN
						       : CR_UPDN_UP;
					queue[tail++] = w;
				} else if (dist[w] == next && down) {
					mode[w] = CR_UPDN_DOWN;
				}
			}
		}
	}
	return tail;
}

void updn_label(struct updn *u, uint32_t d)
{
	if (u->labelled_for == d)
		return;
	u->labelled = updn_label_into(u, d, u->dist, u->mode, u->queue);
	u->labelled_for = d;
}

/* Ports of switch w one legal step closer to the labelled destination. */
unsigned updn_candidates(const struct updn *u, const uint16_t *dist,
			 const uint8_t *mode, uint32_t w, uint8_t *cands)
{
	unsigned n = 0;

	for (uint32_t k = u->adj_start[w]; k < u->adj_start[w + 1]; k++) {
		uint32_t x = u->adj[k].sw;

		if (dist[x] != dist[w] - 1)
			continue;
		if (mode[w] == CR_UPDN_DOWN
			    ? u->ord[x] > u->ord[w] && mode[x] == CR_UPDN_DOWN
			    : u->ord[x] < u->ord[w])
			cands[n++] = u->adj[k].port;
	}
	return n;
}
