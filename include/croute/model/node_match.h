/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Nodes of two fabrics matched by GUID, and the churn between two
 * routings: what incremental re-routing (incremental.h) and its reports
 * compare.
 */
#ifndef CROUTE_NODE_MATCH_H
#define CROUTE_NODE_MATCH_H

#include <croute/model/routing.h>

/*
 * a2b[n] for every node of a: the node of b with its GUID, or CR_NO_NODE;
 * with b2a too when not NULL. -1 out of memory or on duplicate GUIDs.
 */
int cr_match_nodes(const struct cr_fabric *a, const struct cr_fabric *b,
		   uint32_t *a2b, uint32_t *b2a);

/*
 * LFT entries that differ between two routings (switches matched by node
 * GUID, LIDs up to the larger max_lid; a switch present in one only
 * counts its entries that are not CR_NO_PATH).
 */
uint64_t cr_routing_churn(const struct cr_fabric *fa,
			  const struct cr_routing *ra,
			  const struct cr_fabric *fb,
			  const struct cr_routing *rb);

#endif
