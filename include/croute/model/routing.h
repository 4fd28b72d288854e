/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Routing results and options.
 *
 * An engine (include/croute/route/engine.h) reads a finalized struct cr_fabric
 * and fills a struct cr_routing: one LFT per switch (LID -> output port,
 * CR_NO_PATH when none) and, for engines that use virtual layers, an SL
 * per (source switch, destination LID) and an SL-to-VL map.
 */
#ifndef CROUTE_ROUTING_H
#define CROUTE_ROUTING_H

#include <croute/model/fabric.h>

struct cr_guid_list {
	uint64_t *guids;
	size_t count;
	size_t cap; /* allocated, in GUIDs */
};

/* A switch's port search order (OpenSM's port_search_ordering_file). */
struct cr_port_order {
	uint64_t guid; /* switch node GUID */
	uint8_t num;
	uint8_t ports[CR_MAX_PORTS]; /* listed first, in this order */
};

/* cr-updn's root set when no root GUID list is given. */
enum cr_updn_roots {
	CR_ROOTS_AUTO = 0, /* the tree heuristic, else minimal eccentricity */
	CR_ROOTS_ECC, /* one root: minimal eccentricity */
	CR_ROOTS_TOP, /* the top rank of a BFS layering from the leaves */
};

struct cr_stop;

struct cr_options {
	bool port_shifting;
	bool remote_guid_sorting;
	uint32_t scatter_ports; /* seed; 0 = off */
	struct cr_guid_list root_guids; /* updn, ftree */
	struct cr_guid_list cn_guids; /* ftree compute nodes */
	struct cr_guid_list io_guids; /* ftree I/O nodes */
	struct cr_guid_list guid_order; /* order in which to route port GUIDs */
	struct cr_port_order *port_orders; /* override the port order */
	size_t num_port_orders;
	uint8_t lash_start_vl;
	uint8_t max_vls; /* operational data VLs; 0 = 8 */
	bool lash_balance; /* lash: balance first, fewest layers next */
	/* minhop, updn, lash: path-load balancing (croute_balance global) */
	bool balance_global;
	/*
	 * lash: rounds of rip-up and reroute after global balance (the +rr
	 * toggle): every LID's paths are taken out of the link weights and
	 * routed again against all the others, its layers afresh. 0: none.
	 */
	unsigned balance_rounds;
	/*
	 * minhop, updn, lash: no balance (croute_balance first): the first of
	 * the equal ports in search order, so a mesh or torus cabled by
	 * dimension gets dimension-order routes
	 */
	bool balance_first;
	enum cr_updn_roots updn_roots;
	/*
	 * One engine's own settings beyond these, opaque here: only that
	 * engine reads them (cr-auto's: cr_auto_conf_use()). NULL: defaults.
	 */
	const void *engine_conf;
	/*
	 * Long runs (cr-auto's improve step, the improvement pass) give up
	 * when it says so (include/croute/model/clock.h); NULL: never.
	 */
	const struct cr_stop *stop;
};

struct cr_routing {
	uint32_t num_nodes;
	uint16_t max_lid;
	uint8_t **lft; /* per node; NULL for non-switches */

	/* Engines using virtual layers (cr-lash); sl == NULL otherwise. */
	uint8_t **sl; /* per switch node: SL of (switch, dst LID) */
	uint8_t num_layers;
	uint8_t sl2vl[16];
	/*
	 * The SLs of the paths from one switch's CAs to each LID, as read
	 * from a fabric (croute --live; dfsssp picks an SL per source LID,
	 * spread over spare VLs): per switch node, bit i set when SL i is
	 * one of them, none when no path from there takes an SL; sl holds
	 * the lowest. NULL: sl alone.
	 */
	uint16_t **sl_set;
};

/*
 * What an engine leaves besides the tables: nothing a packet needs, so
 * not part of struct cr_routing. The consumers take it explicitly: the
 * dumps (roots, CA order, cr-auto's table), the host order of the
 * estimator and of croute hosts (the CA order), the optimizer's and the
 * incremental re-routing's up/down ranks (the roots). Engines that leave
 * none leave it empty (all zero).
 */
struct cr_byproducts {
	uint32_t *roots; /* updn: root switch nodes */
	uint32_t num_roots;
	bool updn_detours; /* updn: some pairs left up*-down* (top level) */
	/*
	 * updn: (switch with CAs, LID) pairs the roots leave without a
	 * path; the plugin fails rather than install tables some CAs
	 * cannot use.
	 */
	uint64_t stranded;
	/* ftree: switch routes without an up/down path restricted or left
	 * out, to stay free of credit loops */
	bool ftree_turns_restricted;
	uint32_t *ca_order; /* ftree: LIDs of CA ports, in CA order */
	uint32_t num_ca_order;
	char *auto_table; /* cr-auto: the ranked candidates (text) */
	char auto_winner[48]; /* cr-auto: the candidate installed */
	/* cr-auto: the improvement pass changed the winner's tables */
	bool auto_passed;
	/*
	 * cr-dfp, cr-hyperx: every path of the tables as the engine returned
	 * them, from every switch to every LID, was checked to rise on its
	 * SL's VL ranking: no VL has a credit loop (the engine's own check,
	 * complete). Says nothing of tables changed since (a pass, a
	 * repair): read right after the routing run.
	 */
	bool vls_ranked;
	/*
	 * cr-dfp on a dragonfly+ (two or more groups, each with leaves and
	 * spines): the VLs it routed it on, which cr-auto holds every other
	 * candidate to; 0 on any other fabric.
	 */
	uint8_t native_vls;
	/*
	 * cr-dfp: its own rule chose path loads (croute_balance global's
	 * port choice), so its tables are those it routes with that asked.
	 */
	bool path_loads;
};

/* Frees what b holds and empties it. */
void cr_byproducts_release(struct cr_byproducts *b);
/* A deep copy into *dst (emptied first); -1 (logged) out of memory. */
int cr_byproducts_copy(struct cr_byproducts *dst,
		       const struct cr_byproducts *src);
/* Moves src's by-products into dst (dst's released first). */
void cr_byproducts_move(struct cr_byproducts *dst, struct cr_byproducts *src);

/* Allocates empty LFTs (all CR_NO_PATH) for every switch of f. */
struct cr_routing *cr_routing_new(const struct cr_fabric *f);
/*
 * The same, its entries not set: for a caller that writes every one
 * (an incremental run copies its base's tables; 88 MB not written twice
 * at 27,648 hosts), or clears the tables when it does not.
 */
struct cr_routing *cr_routing_new_raw(const struct cr_fabric *f);
void cr_routing_free(struct cr_routing *r);
/*
 * A deep copy of every field: LFTs and SLs (the plugin hands one to its
 * estimate thread). NULL (logged) out of memory.
 */
struct cr_routing *cr_routing_copy(const struct cr_routing *src);
/* Resets every LFT to CR_NO_PATH and drops SLs. */
void cr_routing_clear(struct cr_routing *r);
/* Allocates r->sl (all 0) for every switch. */
int cr_routing_alloc_sl(const struct cr_fabric *f, struct cr_routing *r);
/* Allocates r->sl_set (all empty) for every switch. */
int cr_routing_alloc_sl_set(const struct cr_fabric *f, struct cr_routing *r);
/*
 * The SLs (bit i: SL i) of the paths from switch node sw to lid: r->sl_set
 * where given, else r->sl's, else SL 0.
 */
uint16_t cr_routing_sls(const struct cr_routing *r, uint32_t sw, uint16_t lid);

/*
 * Hop count of the routed path from switch sw to lid, following the LFTs:
 * 0 for the switch's own LID, 1 for a CA cabled to it. Returns -1 when the
 * path does not arrive (no entry, dead port, loop).
 */
int cr_routing_hops(const struct cr_fabric *f, const struct cr_routing *r,
		    uint32_t sw, uint16_t lid);

/*
 * Fills hops[switch index][lid] (num_switches x (max_lid + 1) bytes, the
 * caller allocates) with every switch's routed hop count, 255 where none.
 * Linear in the LFT size: each (switch, LID) is resolved once.
 */
int cr_routing_hop_table(const struct cr_fabric *f, const struct cr_routing *r,
			 uint8_t *hops);

/*
 * The same a range of LIDs at a time, for callers that cannot afford the
 * whole table (it is num_switches x (max_lid + 1) bytes: 88 MB on 27,648
 * hosts). cr_hop_ctx_rows fills hops[s * stride + lid - begin] for every
 * switch index s and begin <= lid < end (end clamped to max_lid + 1).
 * The context reads f and r, which must not change while it lives.
 */
struct cr_hop_ctx;
struct cr_hop_ctx *cr_hop_ctx_new(const struct cr_fabric *f,
				  const struct cr_routing *r);
int cr_hop_ctx_rows(struct cr_hop_ctx *j, uint32_t begin, uint32_t end,
		    uint8_t *hops, size_t stride);
/*
 * The same for a list of LIDs (ascending makes it faster): fills
 * hops[s * stride + i] with switch s's count toward lids[i], i < n.
 * -1 (logged) for a LID beyond the fabric.
 */
int cr_hop_ctx_lids(struct cr_hop_ctx *j, const uint16_t *lids, uint32_t n,
		    uint8_t *hops, size_t stride);
void cr_hop_ctx_free(struct cr_hop_ctx *j);

void cr_options_init(struct cr_options *o);
void cr_options_release(struct cr_options *o);
int cr_guid_list_add(struct cr_guid_list *l, uint64_t guid);
void cr_guid_list_release(struct cr_guid_list *l);

#endif
