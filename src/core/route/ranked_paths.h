/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shortest paths on ranked VLs, shared by the engines (cr-dfp, cr-hyperx)
 * that keep two VLs free of credit loops by ranking channels: a path
 * takes SL 0 if its channels' VL 0 ranks strictly rise, else SL 1 if its
 * VL 1 ranks do. The engine supplies the ranking; this module labels the
 * switches toward each destination in waves, keeps the candidate ports,
 * picks among them with the port-selection module and checks the tables.
 */
#ifndef CROUTE_RANKED_PATHS_H
#define CROUTE_RANKED_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <croute/model/fabric.h>
#include <croute/model/parallel.h>
#include <croute/route/portsel.h>
#include <croute/model/routing.h>

struct cr_ranked;

/* LIDs of one destination switch routed together under flow balance. */
#define CR_RANKED_CHUNK 64

/*
 * The rank in VL v's ranking of the channel of adjacency entry i, from
 * switch index s into switch index t.
 */
typedef int (*cr_rank_fn)(const struct cr_ranked *rp, unsigned v, uint32_t i,
			  uint32_t s, uint32_t t);
/*
 * Labels every switch toward switch index t (cr_ranked_label, with the
 * engine's preferences) and returns the connected switches left without
 * a path CA traffic needs, the first in *one.
 */
typedef uint32_t (*cr_label_fn)(struct cr_ranked *rp, uint32_t t,
				const uint8_t *hop, uint32_t *one);
/* Sets up the engine's try k (ranking orders); -1: out of memory. */
typedef int (*cr_try_fn)(struct cr_ranked *rp, unsigned k);

struct cr_ranked {
	const struct cr_fabric *f;
	const struct cr_options *o;
	struct cr_routing *r;
	const char *name; /* the engine, for messages */
	const char *try_what; /* what try k changes, for messages */
	cr_rank_fn rank;
	cr_label_fn label;
	cr_try_fn set_try;
	uint32_t ns;
	uint32_t *adj_start, *adj; /* switch adjacency (hops.h) */
	uint8_t *adj_port;
	uint32_t *port_start, *port_entry; /* switch index, port: entry */
	int *rk[2]; /* per adjacency entry: rank() in this try, per VL */
	uint64_t pairs_left; /* switch to switch, neither with CAs, no path */
	/* Toward one destination switch, per switch index: */
	int *dist; /* hops, -1 unlabelled */
	uint8_t *ok; /* bit v: the path rises in VL v's ranking */
	uint8_t *pref1; /* prefers a path rising on VL 1 only to VL 0 only */
	uint8_t mask; /* the VLs a path may rise on (bits) */
	int *first[2]; /* its first channel's rank in each ranking */
	uint32_t *cand_start; /* candidates: ports in cand[] */
	uint8_t *cand;
	struct cr_portsel *ps;
	bool flows; /* the port-selection module balances flows */
	bool second; /* some path needs VL 1 */
	bool rerouting; /* a round of rip-up and reroute: uncommit first */
	uint32_t *cas; /* per switch index: its CA ports */
	/*
	 * Flow balance, toward the current destination switch: per switch
	 * index with CAs, its only port one hop nearer (0: none, several),
	 * whose flows were expected (expect_forced()).
	 */
	uint8_t *only;
	uint32_t level_start[257]; /* order[] positions by distance */
	/*
	 * Flow balance, a chunk of the destination's LIDs at a time, one
	 * level per round of the team: flows passed on by member w into
	 * acc[w][switch index * CR_RANKED_CHUNK + LID in chunk].
	 */
	struct cr_team *team;
	unsigned members;
	uint64_t *acc[CR_MAX_THREADS];
	bool second_by[CR_MAX_THREADS];
	uint32_t lbegin, lend; /* the round's level: order[] positions */
	unsigned nchunks;
	uint16_t lids[CR_RANKED_CHUNK];
	uint8_t lflags[CR_RANKED_CHUNK];
	unsigned num_lids;
	uint32_t *order, num_order; /* labelled switches, nearest first */
	uint32_t *stack; /* cr_ranked_follow's walk */
};

/* The arrays above, adjacency and CA counts; -1: out of memory. */
int cr_ranked_alloc(struct cr_ranked *rp);
void cr_ranked_free(struct cr_ranked *rp);

/* Ranks and rise of the path through entry i (s -> t) given t's. */
uint8_t cr_ranked_state_via(const struct cr_ranked *rp, uint32_t i, uint32_t s,
			    uint32_t t, int *r0, int *r1);
/* Whether switch s lacks a path to t that CA traffic needs. */
bool cr_ranked_lacks(const struct cr_ranked *rp, uint32_t s, uint32_t t,
		     const uint8_t *hop);
/*
 * Labels every switch toward switch index t in waves, preferring VL 1
 * where pref1, on the VLs of mask, and keeps the candidates. Returns the
 * connected switches left without a path CA traffic needs (first: *one).
 */
uint32_t cr_ranked_label(struct cr_ranked *rp, uint32_t t, const uint8_t *hop,
			 uint32_t *one);
/* The waves of cr_ranked_label alone: dist, ok and first. */
void cr_ranked_label_waves(struct cr_ranked *rp, uint32_t t);

/*
 * cr_ranked_tree()'s trees, per switch index: best[v][s], the rank of
 * the first channel of s's path on VL v (INT_MIN: none), next[v][s], its
 * adjacency entry (UINT32_MAX: none); hops and done: scratch.
 */
struct cr_ranked_trees {
	int *best[2];
	uint32_t *next[2];
	int *hops;
	bool *done;
};

/*
 * Toward switch index t on VL v's ranking alone, into tr's best[v] and
 * next[v]: each switch with a path rising there gets the one whose first
 * channel ranks highest, then the fewest hops (the most room for the
 * switches that join it).
 */
void cr_ranked_tree(const struct cr_ranked *rp, uint32_t t, unsigned v,
		    const struct cr_ranked_trees *tr);
/*
 * Labels every switch toward switch index t along the adjacency entries
 * next[] (UINT32_MAX: none) as cr_ranked_label would: dist, ok, first
 * and one candidate each. A switch whose path does not reach t or rise
 * on either VL is left unlabelled. Returns the connected switches left
 * without a path CA traffic needs (first: *one).
 */
uint32_t cr_ranked_follow(struct cr_ranked *rp, uint32_t t,
			  const uint32_t *next, const uint8_t *hop,
			  uint32_t *one);

/*
 * Routes with each of the engine's tries until one routes every CA
 * pair: 0, -1 with the reason in why, -2 out of memory.
 */
int cr_ranked_route_tries(struct cr_ranked *rp, const uint8_t *dist,
			  unsigned tries, char *why, size_t len);
/*
 * After a successful cr_ranked_route_tries: the VLs and SL2VL, checked
 * to rise; else (need: what would need a second VL) up*-down* instead.
 * 0 routed on ranked VLs, 1 routed by the fallback, -1 failure.
 */
int cr_ranked_finish(struct cr_ranked *rp, struct cr_byproducts *by,
		     const char *need);
/* Routes the whole fabric with cr-updn on one VL, the reason logged. */
int cr_ranked_fall_back(const struct cr_ranked *rp, struct cr_byproducts *by,
			const char *why);

#endif
