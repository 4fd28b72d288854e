/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shortest paths on two ranked VLs, shared by cr-dfp and cr-hyperx.
 *
 * Each engine ranks every channel (switch-to-switch cable, one way) in
 * two orders, one a VL, and writes the ranks into erank[] before each
 * try. A path whose channels' ranks strictly rise on VL v's order may
 * travel on v: every dependency on v then joins two channels of rising
 * rank, so no VL has a credit loop whatever the engine's ranks are. This
 * module labels the switches toward a destination in breadth-first
 * waves over such paths, keeps the equal candidates, picks a port per
 * LID with the port-selection module, and checks the finished tables.
 * The engine owns only its structure (groups, dimensions) and its ranks.
 */
#ifndef CROUTE_ROUTE_RANKED_H
#define CROUTE_ROUTE_RANKED_H

#include <stdbool.h>
#include <stdint.h>

#include <croute/routing.h>
#include <croute/portsel.h>

struct cr_ranked {
	const char *name; /* the engine, for the log */
	const struct cr_fabric *f;
	const struct cr_options *o;
	struct cr_routing *r;
	uint32_t ns;
	uint32_t *adj_start, *adj; /* switch adjacency (hops.h) */
	uint8_t *adj_port;
	uint32_t *esrc; /* per adjacency entry: its switch */
	uint32_t *port_entry; /* per switch and port: its entry, or -1 */
	uint32_t stride; /* ports a switch in port_entry */
	int *erank[2]; /* per adjacency entry: its channel's rank on VL v */
	uint32_t *cas; /* per switch index: its CA ports */
	/* Toward one destination switch, per switch index: */
	int *dist; /* hops, -1 unlabelled */
	uint8_t *ok; /* bit v: the path rises in VL v's ranking */
	uint8_t mask; /* the VLs a path may rise on (bits) */
	uint8_t *pref1; /* prefers a path rising on VL 1 only to VL 0 only */
	int *first[2]; /* its first channel's rank in each ranking */
	uint32_t *cand_start; /* candidates: ports in cand[] */
	uint8_t *cand;
	struct cr_portsel *ps;
	bool flows; /* the port-selection module balances flows */
	uint64_t *flow; /* per switch index: CA sources through it */
	uint32_t *order, num_order; /* labelled switches, nearest first */
};

/* Allocates the arrays and counts CAs; -1 when memory runs out. */
int cr_ranked_init(struct cr_ranked *k);
void cr_ranked_free(struct cr_ranked *k);

/*
 * Whether the path through adjacency entry i (into switch index t)
 * rises on each VL given t's label (bits, within mask), and the
 * channel's ranks.
 */
uint8_t cr_ranked_via(const struct cr_ranked *k, uint32_t i, uint32_t t,
		      int *r0, int *r1);
/* Labels every switch toward switch index t, wave by wave. */
void cr_ranked_label(struct cr_ranked *k, uint32_t t);
/*
 * Appends to cand[] from nc the ports of labelled switch index s whose
 * neighbour gives it its label; returns the new count.
 */
uint32_t cr_ranked_add_cands(struct cr_ranked *k, uint32_t s, uint32_t nc);
/* Orders the labelled switches by distance, nearest first. */
void cr_ranked_sort(struct cr_ranked *k);
/*
 * Routes every LID delivered by switch index t over the candidates;
 * *second is set when a path needs VL 1.
 */
void cr_ranked_route_dest(struct cr_ranked *k, uint32_t t, bool *second);
/* A fresh port selection and tables for the next try; -1: memory. */
int cr_ranked_reset(struct cr_ranked *k);
/*
 * Completes routed tables: falls back when they need a second VL
 * (second; which paths: which) that max_vls denies, else sets the layers
 * and SL2VL and checks that every path, as written, rises on its SL's
 * VL. 0, else the fallback's return (1 when it routed, -1 when it
 * failed).
 */
int cr_ranked_finish(struct cr_ranked *k, struct cr_byproducts *by, bool second,
		     const char *which);
/* Routes the whole fabric with cr-updn on one VL, saying why. */
int cr_ranked_fall_back(const struct cr_ranked *k, struct cr_byproducts *by,
			const char *why);

#endif
