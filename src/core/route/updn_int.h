/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-updn's ranks and labels for incremental.c, which repairs an updn
 * routing with the same definitions the engine routes with (updn.c).
 */
#ifndef CROUTE_UPDN_INT_H
#define CROUTE_UPDN_INT_H

#include <croute/fabric.h>

#define CR_UPDN_NO_LABEL UINT16_MAX
#define CR_UPDN_DOWN 1 /* mode: the route to the destination only goes down */

struct updn;

/*
 * The engine's state for f with the given root switches (node indices):
 * adjacency, ranks (BFS from the roots) and the total order of the
 * switches. NULL (logged) when a root is no switch or memory runs out.
 */
struct updn *cr_updn_open(const struct cr_fabric *f, const uint32_t *roots,
			  uint32_t num_roots);
void cr_updn_close(struct updn *u);
/* Per switch index: rank (UINT32_MAX unreachable), place in the order. */
const uint32_t *cr_updn_ranks(const struct updn *u);
const uint32_t *cr_updn_order(const struct updn *u);
/*
 * Labels every switch toward destination switch index d, as the engine
 * does: dist (CR_UPDN_NO_LABEL: no legal route) and mode. queue holds
 * num_switches entries. Returns how many switches got a label.
 */
uint32_t cr_updn_label(const struct updn *u, uint32_t d, uint16_t *dist,
		       uint8_t *mode, uint32_t *queue);

#endif
