/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Incremental re-routing (croute_incremental, doc/design.md "Incremental
 * re-routing"): after a full run of cr-minhop, cr-updn or cr-ftree, a
 * fabric that differs from it only by links or nodes that went away (same
 * GUIDs, ports and LIDs otherwise) is routed by repairing its tables:
 * an entry whose path is still up and still a shortest (legal) one is
 * kept, the others are chosen again by the engine's rules, the port loads
 * of the kept entries counted. The result depends only on the full run
 * (the base) and the new fabric, so it is deterministic, and a fabric
 * equal to the base gets the base's tables back exactly.
 */
#ifndef CROUTE_INCREMENTAL_H
#define CROUTE_INCREMENTAL_H

#include <croute/route/engine.h>
#include <croute/model/routing.h>

/* What a full run leaves for later incremental runs (opaque). */
struct cr_incr_base;

/*
 * Keeps copies of a full run's fabric and routing, and the labels the
 * repair needs (switch distances for minhop, up*-down* labels for updn,
 * up-hops and ancestors for ftree, with its ranks and leaves). by is
 * needed for updn (the roots) and ftree (whether turns were restricted).
 * NULL when the engine or the options do not allow incremental runs
 * (reason logged at info level) or memory runs out.
 */
struct cr_incr_base *cr_incr_base_new(const struct cr_engine *e,
				      const struct cr_fabric *f,
				      const struct cr_options *o,
				      const struct cr_routing *r,
				      const struct cr_byproducts *by);
void cr_incr_base_free(struct cr_incr_base *base);

/* The base's copies of the full run's fabric and routing. */
const struct cr_fabric *cr_incr_base_fabric(const struct cr_incr_base *base);
const struct cr_routing *cr_incr_base_routing(const struct cr_incr_base *base);

/*
 * The hop table of the base's routing (cr_routing_hop_table's layout),
 * for installs of its repairs to start from: the base owns (and frees)
 * hops from now on. NULL until kept.
 */
void cr_incr_base_keep_hops(struct cr_incr_base *base, uint8_t *hops);
const uint8_t *cr_incr_base_hops(const struct cr_incr_base *base);

struct cr_incr_stats {
	bool same; /* the fabric equals the base: its tables as they are */
	uint32_t links_down; /* base links missing (switch-switch) */
	uint32_t host_links_down; /* base links to CAs/routers missing */
	uint32_t nodes_gone; /* base nodes missing */
	uint32_t switches_gone;
	uint32_t dests; /* destination switches with a changed label */
	uint32_t lids; /* LIDs with at least one entry chosen again */
	uint64_t entries; /* entries chosen again (or cleared) */
	/*
	 * cr-updn: (switch with CAs, LID of a switch without CAs) pairs
	 * left without a legal path under the kept ranks.
	 */
	uint64_t lost_pairs;
	/*
	 * cr-ftree: some changed entry makes a channel dependency the
	 * base's tables did not have (known when the base kept them), and
	 * whether the tables were searched for credit loops.
	 */
	bool new_dependency;
	bool searched;
	/*
	 * The repaired tables, whole, were searched for credit loops on
	 * one VL (cr_credit_loop_any()) and have none: cr-updn's detours.
	 */
	bool loop_free;
	char reason[160]; /* when not incremental: why */
	/* The first link down, both ends, for the log: "" when none. */
	char link_down[2 * CR_NODE_LABEL_MAX + 48];
};

/*
 * Routes f by repairing the base's tables into r (fresh from
 * cr_routing_new(f), or cr_routing_new_raw(f): every entry is written),
 * its by-products (cr-updn's roots) into by (may be NULL; ftree: the CA
 * order).
 * Returns 0 on success; 1 when f is no subset of the base, or the engine,
 * the options, updn's ranks or ftree's ranks or leaves differ, or ftree's
 * repaired tables would close a credit loop (st->reason says which: the caller
 * routes in full); -1 on an error (logged). r is cleared unless 0.
 */
int cr_route_incremental(const struct cr_incr_base *base,
			 const struct cr_engine *e, const struct cr_fabric *f,
			 const struct cr_options *o, struct cr_routing *r,
			 struct cr_byproducts *by, struct cr_incr_stats *st);

#endif
