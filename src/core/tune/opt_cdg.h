/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The channel dependency graph of each virtual lane, kept up to date LID
 * by LID for the improvement pass: cr_check's credit-loop rule (every
 * switch a source, a dependency on the VLs of the SLs of the sources whose
 * route crosses it), with a count per dependency, so that changing a
 * LID's entries or SLs is checked by looking only for a cycle through the
 * dependencies that appeared. Internal to the tune group.
 */
#ifndef CROUTE_OPT_CDG_H
#define CROUTE_OPT_CDG_H

#include <stdbool.h>

#include <croute/model/routing.h>

struct opt_cdg;

/* Every LID of f as r routes it now. NULL (logged) out of memory. */
struct opt_cdg *opt_cdg_new(const struct cr_fabric *f,
			    const struct cr_routing *r);
void opt_cdg_free(struct opt_cdg *g);

/*
 * Adds (sign 1) or removes (sign -1) lid's dependencies as r routes it
 * now: call with -1 before changing its entries or SLs, with 1 after.
 * 0, or -1 (logged) out of memory.
 */
int opt_cdg_lid(struct opt_cdg *g, const struct cr_routing *r, uint16_t lid,
		int sign);

/*
 * Whether a dependency added since the last call closes a cycle in its
 * VL (the graph was acyclic before). Forgets the added ones.
 */
bool opt_cdg_cycle(struct opt_cdg *g);

#endif
