/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-ftree's rules for incremental re-routing (ftree_incr.c), for the
 * base (incr_base.c) and the repair (incremental.c, incr_repair.c).
 */
#ifndef CROUTE_FT_INCR_H
#define CROUTE_FT_INCR_H

#include <croute/route/portsel.h>

#include "ftree_int.h"

/*
 * Every destination switch's labels (incr_lab.h) as a full run's u and
 * ancestors give them: lab[d * ns + s]. -1 out of memory.
 */
int ft_incr_labels(const struct ft *ft, uint8_t *lab);
/* The ranks by switch index (UINT32_MAX: none), and the leaves' GUIDs. */
void ft_incr_shape(const struct ft *ft, uint32_t *rank, uint64_t *leaf_guid);
/* Parallel links in the port selection order, as a full run has them. */
void ft_incr_order_ports(struct ft *ft, struct cr_portsel *ps);
/*
 * The entry of switch w for destination t (ft_dest_of()) by cr-ftree's
 * rules under the labels row toward t's switch; w must have a label.
 */
uint8_t ft_incr_pick(const struct ft *ft, struct cr_portsel *ps, uint32_t w,
		     const struct ft_dest *t, const uint8_t *row);

#endif
