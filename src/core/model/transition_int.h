/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What transition.c and transition_report.c share. */
#ifndef CROUTE_TRANSITION_INT_H
#define CROUTE_TRANSITION_INT_H

#include <croute/model/transition.h>

#define TR_BLK 64
#define TR_NONE UINT32_MAX

struct tr {
	const struct cr_fabric *f;
	const struct cr_routing *r[2]; /* 0: the tables now, 1: the next */
	uint32_t ns;
	uint32_t *base; /* first channel of each switch index, ns + 1 */
	uint32_t nchan;
	uint32_t *nbr; /* per channel: the switch index across, or TR_NONE */
	/*
	 * Per table, LID of the block and switch index: the port (a port
	 * the switch lacks reads as CR_NO_PATH) and the switch it leads to
	 */
	uint8_t *blk;
	uint32_t *nx;
	/*
	 * The same ports switch-major ([switch index][table][LID in block]),
	 * and per switch index and LID of the block the SLs crossing it
	 * (layered only): the dependencies are set a switch at a time, so
	 * that each switch's bitmaps are written while in cache
	 */
	uint8_t *pt;
	uint16_t *maskt;
	uint32_t lid0; /* the block's first LID */
	uint32_t *succ; /* per switch index: next switch by table 0 and 1 */
	uint32_t *indeg, *order; /* Kahn's algorithm */
	uint8_t *col, *kstack; /* the loop search */
	uint16_t *mask; /* per switch index: SLs crossing it toward the LID */
	bool layered; /* path SLs given: a graph per VL */
	unsigned nvl;
	uint8_t vl_of[16]; /* per graph: its VL */
	uint16_t vl_sls[16]; /* per graph: the SLs it carries */
	size_t words; /* per graph */
	uint64_t *out; /* per graph and channel: out-port bitmaps, 4 words */
	uint32_t loop_lid; /* a part's first LID whose union graph cycles */
};

static inline uint8_t cr_tr_port(const struct tr *t, unsigned k, uint32_t b,
				 uint32_t s)
{
	return t->blk[((size_t)k * TR_BLK + b) * t->ns + s];
}

/* The switch index table k's entry of s leads to, or TR_NONE. */
static inline uint32_t cr_tr_next(const struct tr *t, unsigned k, uint32_t b,
				  uint32_t s)
{
	return t->nx[((size_t)k * TR_BLK + b) * t->ns + s];
}

/* Reads the entries of LIDs lid0 .. lid0 + 63 of both tables. */
void cr_tr_load_block(struct tr *t, uint32_t lid0);
/* An entry that leaves by a port of the switch n. */
bool cr_tr_routed(uint8_t p, const struct cr_node *n);
/*
 * The union graph toward LID lid0 + b, in Kahn's order (t->order).
 * Returns the number of switches ordered: all of them unless it has a
 * cycle.
 */
uint32_t cr_tr_lid_graph(struct tr *t, uint32_t b);
/* The SLs of the traffic crossing each switch toward LID lid0 + b. */
void cr_tr_lid_masks(struct tr *t, uint32_t b);
/* The union graph of LID lid0 + b has a cycle: describes one; 1. */
int cr_tr_report_loop(struct tr *t, uint32_t b, FILE *out,
		      struct cr_transition_report *rep);
/* 1 (described) when graph g has a cycle, 0 when not, -1 out of memory. */
int cr_tr_credit_cycle(struct tr *t, unsigned g, FILE *out,
		       struct cr_transition_report *rep);

#endif
