/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Flow balance's main loop, shared by cr-minhop and cr-updn on tree-like
 * fabrics (cr_portsel_use_flows()): every LID, in the engine's order, is
 * routed from the switches farthest from its destination switch inward,
 * each switch passing on to the next the CA sources whose route crosses
 * it, and cr_portsel_pick_flows() balances those flows.
 *
 * On croute_threads threads, with the tables of one thread: a pick reads
 * and writes only its own switch's balance and LFT row, plus the flows of
 * farther switches toward the same LID. So the LIDs of one destination
 * switch go level by level, farthest first; a level's switches are split
 * over the threads, each switch taking those LIDs in order, as one thread
 * would; flows passed on are summed per thread and added by the switch
 * that receives them (integer sums: the same whatever the split).
 */
#ifndef CROUTE_FLOWBAL_H
#define CROUTE_FLOWBAL_H

#include <croute/route/portsel.h>

/* A level: the switch does not route to the destination. */
#define CR_FLOW_NONE UINT16_MAX
/* Destination switches whose levels are prepared at once. */
#define CR_FLOW_SLOTS 64

struct cr_flow_engine {
	void *ctx;
	/*
	 * Fills lev (num_switches entries) for destination switch index di:
	 * 0 at di, the distance elsewhere (each candidate one level nearer),
	 * CR_FLOW_NONE where no route. Called concurrently for distinct
	 * slots (0..CR_FLOW_SLOTS-1); worker (0..cr_threads_get()-1) indexes
	 * per-thread scratch. 0, or -1 after logging.
	 */
	int (*levels)(void *ctx, unsigned worker, unsigned slot, uint32_t di,
		      uint16_t *lev);
	/*
	 * The candidate ports of switch index s toward the slot's
	 * destination, in the order of preference. Called concurrently for
	 * distinct switches.
	 */
	unsigned (*cands)(void *ctx, unsigned slot, const uint16_t *lev,
			  uint32_t s, uint8_t *out);
	/* Optional: nlids LIDs of the slot's destination are routed. */
	void (*group)(void *ctx, unsigned slot, unsigned nlids);
};

/*
 * Routes the nlids LIDs (cr_lid_order()) with flow balance. ps must have
 * cr_portsel_use_flows() on. 0, or -1 (logged).
 */
int cr_flow_route(const struct cr_fabric *f, struct cr_routing *r,
		  struct cr_portsel *ps, const uint16_t *lids, int nlids,
		  const struct cr_flow_engine *e);

/*
 * The least work (picks) split over threads; tests set 1 so that even
 * small fabrics run every level on several threads. 0: the default.
 */
void cr_flow_set_grain(unsigned picks);
/* That least work: the picks a round needs before it is split. */
unsigned cr_flow_grain(void);

#endif
