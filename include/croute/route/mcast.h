/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Multicast spanning trees over the switches of a fabric, one per group:
 * which switch ports forward a multicast LID. The plugin hands them to
 * OpenSM (mcast_build_stree) so that OpenSM's own builder, which reads
 * per-port hop counts for every pair of switches, is not needed; the
 * command can show them too.
 */
#ifndef CROUTE_MCAST_H
#define CROUTE_MCAST_H

#include <stdbool.h>
#include <stdint.h>

#include <croute/model/fabric.h>

/* A member end port: a CA or router port, or a switch's port 0. */
struct cr_mcast_port {
	uint32_t node;
	uint8_t port;
};

/* One forwarding port of the tree: switch index (fabric->switches), port. */
struct cr_mcast_entry {
	uint32_t sw;
	uint8_t port;
};

struct cr_mcast_tree {
	struct cr_mcast_entry *e; /* sorted by switch index, then port */
	uint32_t n;
	uint32_t root; /* switch index, CR_NO_NODE: no tree */
	uint32_t members; /* member ports the tree reaches */
	uint32_t unreached; /* member ports it cannot reach (logged) */
	uint8_t depth; /* hops from the root to the farthest member switch */
};

/*
 * The switch graph of f for multicast: the links between switches that
 * forward multicast (capable[switch index]; NULL: all do). The distances
 * between all switches are computed on the first tree, once, and shared
 * by every group. f must outlive the context. NULL out of memory (logged).
 */
struct cr_mcast_ctx *cr_mcast_new(const struct cr_fabric *f,
				  const bool *capable);
void cr_mcast_free(struct cr_mcast_ctx *c);

/*
 * The tree for the n member ports m (duplicates allowed). The root is the
 * switch whose farthest member is nearest (then the least total distance;
 * among equal roots, and among equal parents of a switch, seed chooses,
 * so that groups with different MLIDs spread over equal spines). Every
 * switch on the tree takes a shortest path toward the root, so the tree
 * is loop-free and each member is as few hops from the root as the fabric
 * allows. With fewer than two reachable members the tree is empty, as in
 * OpenSM. Returns 0, or -1 out of memory (logged); t is then empty.
 */
int cr_mcast_tree_build(struct cr_mcast_ctx *c, const struct cr_mcast_port *m,
			uint32_t n, uint32_t seed, struct cr_mcast_tree *t);
void cr_mcast_tree_release(struct cr_mcast_tree *t);

#endif
