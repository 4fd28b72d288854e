/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Switch-to-switch hop distances, the basis of every shortest-path engine. */
#ifndef CROUTE_HOPS_H
#define CROUTE_HOPS_H

#include <croute/fabric.h>

#define CR_HOPS_INF 255

/*
 * dist[a * num_switches + b]: hops from switch index a to switch index b
 * over switch-to-switch links (CR_HOPS_INF when disconnected). One BFS per
 * switch. NULL when memory runs out.
 */
uint8_t *cr_switch_distances(const struct cr_fabric *f);

#endif
