/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-lash internals: the switch graph with parallel links bundled into one
 * channel per direction, and one channel dependency graph (CDG) per layer
 * kept acyclic under edge insertion.
 */
#ifndef CROUTE_LASH_CDG_H
#define CROUTE_LASH_CDG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <croute/model/fabric.h>

#define CR_LASH_NO_CHAN UINT32_MAX

/*
 * Channel c leads from switch index src[c] to switch index dst[c]; the
 * channels leaving switch s are off[s] .. off[s + 1] - 1, one per distinct
 * neighbour switch, and rev[c] is the channel back. Bundling parallel links
 * is safe: a cycle over the real links maps onto a cycle over the bundles,
 * so acyclic bundles imply acyclic links, and it leaves port selection free
 * to balance over parallel links without touching the layering.
 */
struct cr_lash_graph {
	uint32_t ns;
	uint32_t nchan;
	uint32_t *off;
	uint32_t *src;
	uint32_t *dst;
	uint32_t *rev;
};

int cr_lash_graph_build(const struct cr_fabric *f, struct cr_lash_graph *g);
void cr_lash_graph_release(struct cr_lash_graph *g);
/* The channel from switch index s to switch index t, or CR_LASH_NO_CHAN. */
uint32_t cr_lash_graph_chan(const struct cr_lash_graph *g, uint32_t s,
			    uint32_t t);

struct cr_cdg;

struct cr_cdg *cr_cdg_new(const struct cr_lash_graph *g, unsigned max_layers);
void cr_cdg_free(struct cr_cdg *c);

/*
 * Adds the dependency a -> b (b leaves the switch a enters) to layer l.
 * Returns 0 when it is there now, -1 when it would close a cycle (the
 * layer is unchanged). Additions are journalled until cr_cdg_rollback.
 */
int cr_cdg_add(struct cr_cdg *c, unsigned l, uint32_t a, uint32_t b);
/*
 * Without searching: 1 when a -> b is in layer l, -1 when it is known to
 * close a cycle there, 0 when unknown.
 */
int cr_cdg_lookup(const struct cr_cdg *c, unsigned l, uint32_t a, uint32_t b);
/* Undoes the journalled additions after the first mark of them. */
void cr_cdg_rollback(struct cr_cdg *c, size_t mark);
/* Forgets the journal (keeps the additions). */
void cr_cdg_commit(struct cr_cdg *c);

#endif
