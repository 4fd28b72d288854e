/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Switch-to-switch hop distances, the basis of every shortest-path engine. */
#ifndef CROUTE_HOPS_H
#define CROUTE_HOPS_H

#include <stdbool.h>
#include <stdint.h>

#include <croute/model/fabric.h>

#define CR_HOPS_INF 255

/*
 * dist[a * num_switches + b]: hops from switch index a to switch index b
 * over switch-to-switch links (CR_HOPS_INF when disconnected or farther).
 * NULL when memory runs out (logged).
 */
uint8_t *cr_switch_distances(const struct cr_fabric *f);
/*
 * The same over the switches with among[switch index] only (NULL: all):
 * the others are neither ends nor relays (their rows and columns are
 * CR_HOPS_INF, their own entry too).
 */
uint8_t *cr_switch_distances_among(const struct cr_fabric *f,
				   const bool *among);

/*
 * The switch-to-switch links of every switch, in port order: neighbour
 * switch indices adj[start[s]..start[s + 1]) and, when port is not NULL,
 * the local ports (start has num_switches + 1 entries). The caller frees
 * the arrays, also after a failure (-1, out of memory: not logged).
 */
int cr_switch_adjacency(const struct cr_fabric *f, uint32_t **start,
			uint32_t **adj, uint8_t **port);

#endif
