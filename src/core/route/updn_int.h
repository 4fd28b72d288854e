/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-updn's ranks and labels for incremental.c, which repairs an updn
 * routing with the same definitions the engine routes with
 * (updn_label.c); and below, the state the engine's files (updn*.c)
 * share.
 */
#ifndef CROUTE_UPDN_INT_H
#define CROUTE_UPDN_INT_H

#include <croute/model/fabric.h>
#include <croute/model/roles.h>

/* A switch's label toward one destination switch: its distance and mode. */
#define CR_UPDN_NO_LABEL UINT16_MAX /* distance: no legal route */
enum {
	CR_UPDN_UP = 0, /* mode: the route to the destination starts upward */
	CR_UPDN_DOWN = 1, /* mode: the route only goes down */
};

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

/*
 * The engine's own files: updn.c, updn_roots.c, updn_lids.c, updn_detour.c
 * and updn_label.c, which the others call.
 */

struct cr_byproducts;
struct cr_portsel;
struct cr_routing;

struct updn_adj {
	uint32_t sw; /* switch index of the neighbour */
	uint8_t port; /* local port toward it */
};

struct updn {
	const struct cr_fabric *f;
	uint32_t ns;
	uint32_t *adj_start; /* ns + 1 offsets into adj */
	struct updn_adj *adj;
	uint32_t *comp; /* connected part: its lowest switch index */
	bool *has_ca;
	struct cr_roles roles; /* include/croute/model/roles.h */
	const bool *leaf; /* roles.leaf */
	bool *is_root;
	uint32_t *ord; /* position in the total (rank, GUID) order */
	uint32_t *rank;
	/* Labels toward one destination switch, see updn_label(). */
	uint16_t *dist;
	uint8_t *mode;
	uint32_t
		*queue; /* updn_label(): the labelled switches, nearest first */
	uint32_t labelled; /* how many */
	uint32_t labelled_for;
	bool detour; /* top-level roots: detours where no legal path */
	bool no_top; /* the top-level roots closed a credit loop */
	bool tree_like; /* cr_roles_tree_like(): balance flows, not entries */
	const struct cr_options *o; /* NULL for incremental.c */
};

static inline uint64_t updn_sw_guid(const struct updn *u, uint32_t s)
{
	return u->f->nodes[u->f->switches[s]].guid;
}

/* updn_label.c: the ranks under is_root and the switches' total order. */
int updn_rank_switches(struct updn *u);
/* updn_label.c: labels toward d into dist, mode, queue; how many got one. */
uint32_t updn_label_into(const struct updn *u, uint32_t d, uint16_t *dist,
			 uint8_t *mode, uint32_t *queue);
/* updn_label.c: updn_label_into() u's own arrays, kept while d stays. */
void updn_label(struct updn *u, uint32_t d);
/* updn_label.c: ports of switch w one legal step closer, into cands. */
unsigned updn_candidates(const struct updn *u, const uint16_t *dist,
			 const uint8_t *mode, uint32_t w, uint8_t *cands);
/* updn_roots.c: sets is_root and ranks the switches. */
int updn_choose_roots(struct updn *u, const struct cr_options *o);
/*
 * updn_lids.c: every LID's entries; totals gets the (switch, LID) pairs
 * without a legal path: from switches without CAs, with CAs, apart.
 */
int updn_route_lids(struct updn *u, struct cr_routing *r, struct cr_portsel *ps,
		    const uint16_t *lids, int nlids, uint64_t totals[3]);
int updn_route_flows(struct updn *u, struct cr_routing *r,
		     struct cr_portsel *ps, const uint16_t *lids, int nlids,
		     uint64_t totals[3]);
void updn_route_global(struct updn *u, struct cr_routing *r,
		       struct cr_portsel *ps, const uint16_t *lids, int nlids,
		       uint64_t totals[3]);
/* updn_detour.c: the top-level roots' detours; 1 when they close a loop. */
int updn_detours(struct updn *u, struct cr_routing *r, const uint16_t *lids,
		 int nlids, const bool *only, uint64_t totals[3],
		 struct cr_byproducts *by);

#endif
