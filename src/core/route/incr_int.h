/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Incremental re-routing's own parts: the base a full run leaves
 * (incr_base.c), the state of one repair (incremental.c prepares it,
 * incr_repair.c relabels and chooses entries again, ftree_incr_turns.c
 * fills cr-ftree's turns).
 */
#ifndef CROUTE_INCR_INT_H
#define CROUTE_INCR_INT_H

#include <croute/route/engine.h>
#include <croute/route/incremental.h>
#include <croute/route/portsel.h>

#include "ftree_int.h"
#include "incr_lab.h"
#include "updn_int.h"

enum incr_kind { K_NONE, K_MINHOP, K_UPDN, K_FTREE };

/* What a full run leaves for incremental runs (incr_base.c). */
struct cr_incr_base {
	const struct cr_engine *e;
	enum incr_kind kind;
	uint64_t digest;
	struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_byproducts by; /* updn: the roots */
	uint32_t ns;
	uint8_t *lab; /* [destination * ns + switch], switch indices */
	uint32_t *rank; /* updn, ftree: the ranks (ftree: UINT32_MAX none) */
	/* ftree: the leaves in CA order, by GUID */
	uint64_t *leaf_guid;
	uint32_t nleaves;
	/*
	 * ftree: the base's channel dependencies (check.c's graph, which a
	 * full run searched for credit loops): bit (y * stride + in port) *
	 * stride + out port of switch index y. NULL: not kept.
	 */
	uint8_t *cdg;
	/* Routes counted per switch port, as port selection counts them. */
	uint32_t *cnt; /* [switch * stride + port] */
	size_t stride;
	uint8_t *hops; /* cr_routing_hop_table's, once an install gave it */
	/*
	 * ftree: per destination switch, how many switches with a rank have
	 * no up/down path to it (turn entries), for a repair that does not
	 * visit them; NULL: not counted.
	 */
	uint32_t *nones;
	uint32_t turn; /* ftree: the turn leaf (switch index), CR_NO_NODE */
};

struct dead_end {
	uint32_t sw; /* switch index (new) of the surviving end */
	uint8_t port;
	uint32_t far; /* switch index (base) of the other end, or CR_NO_NODE */
};

struct todo {
	uint32_t pos; /* the LID's place in cr_lid_order() */
	uint32_t sw; /* switch index (new) */
	uint16_t lid;
	uint8_t old; /* the base's entry */
};

struct bucket {
	uint32_t *v;
	uint32_t n, cap;
};

/* One incremental run: the new fabric mapped onto the base, and its work. */
struct incr_repair {
	const struct cr_incr_base *base;
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_incr_stats *st;
	enum incr_kind kind;
	uint32_t ns;
	uint32_t *n2o; /* node (new) -> node (base) */
	uint32_t *o2n;
	uint32_t *sw2o; /* switch index (new) -> switch index (base) */
	bool identity; /* sw2o[s] == s */
	uint32_t *adj_start, *adj_sw; /* live switch links (new) */
	uint8_t *adj_port;
	struct dead_end *dead;
	uint32_t ndead;
	struct updn *updn; /* cr-updn: the new fabric's ranks */
	const uint32_t *ord; /* updn: the order of the switches; ftree: ranks */
	/* ftree: the new fabric's tree, its LIDs numbered, its turn leaf */
	struct ft ft;
	bool have_ft;
	struct ft_lid *ftl;
	uint32_t *ftrank;
	uint32_t turn; /* switch index, CR_NO_NODE */
	uint64_t turn_entries; /* entries without an up/down path changed */
	struct turn_chg {
		uint32_t sw;
		uint16_t lid;
	} * chg; /* those entries, but the cleared ones */
	size_t nchg, cap_chg;
	/*
	 * ftree: (destination, switch) pairs, in destination order, whose
	 * turn entries check_entries() cleared (the switch has no up/down
	 * path to the destination): ft_incr_fill_turns() fills them again.
	 */
	struct turn_clr {
		uint32_t d, sw;
	} * clr;
	size_t nclr, cap_clr;
	double ms_check;
	bool *has_ca;
	/* updn: destinations some CA switch lost its legal path to */
	bool *lost_dest;
	/* LIDs (new) by destination switch */
	uint32_t *lid_dsw; /* [lid]: switch index, CR_NO_NODE */
	uint32_t *dst_start;
	uint16_t *dst_lids;
	uint32_t *pos; /* [lid]: place in cr_lid_order() */
	uint8_t **rows; /* [destination]: new labels, when it has work */
	/* scratch, per destination (stamped with destination + 1) */
	uint32_t *gen_q, *gen_aff, *gen_fix, *gen_set;
	uint8_t *tent;
	uint32_t *aff, naff;
	uint32_t *set, nset;
	struct bucket bk[LAB_MAX_DIST + 2];
	struct todo *todo;
	size_t ntodo, todo_cap;
	uint64_t churn;
	/* Counted routes cleared, per switch port, against the base's. */
	int32_t *delta; /* [switch * base stride + port] */
};

/* A digest of the options that change tables. */
uint64_t incr_options_digest(const struct cr_options *o);

/* The bit of base->cdg for in port -> out port at switch index y. */
static inline size_t incr_cdg_bit(const struct cr_incr_base *base, uint32_t y,
				  unsigned in, unsigned out)
{
	return ((size_t)y * base->stride + in) * base->stride + out;
}

/*
 * Whether the entry of switch index w for lid counts in port selection's
 * balance: a CA or router LID of another switch (cr_portsel_pick() with
 * CR_PS_NOCOUNT for switch LIDs; a LID's own switch does not pick).
 */
bool incr_counted(const struct cr_fabric *f, uint32_t w, uint16_t lid,
		  uint8_t port);
/*
 * Per LID, 1 + the index of the switch whose CA or router holds it when
 * its entries count in the balance (incr_counted()), else 0: rows are then
 * counted without a node lookup per entry.
 */
uint32_t *incr_counted_lids(const struct cr_fabric *f);
/* Adds to c the routes switch index w's row lft counts, as incr_counted(). */
void incr_count_row(const struct cr_fabric *f, const uint32_t *lc, uint32_t w,
		    const uint8_t *lft, uint32_t *c);

/* Sets st->reason (why the run is not incremental); returns 1. */
int incr_reason(struct cr_incr_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* LIDs the base routed that lead nowhere now: no entry anywhere. */
void incr_clear_lost_lids(struct incr_repair *rep);
/*
 * Per destination switch: new labels, the affected switches, the entries
 * to choose again (cleared and listed). 0, 1 (st->reason: a full run), -1.
 */
int incr_find_work(struct incr_repair *rep);
/* Chooses the listed entries again by the engine's rules. */
int incr_pick_again(struct incr_repair *rep, const struct cr_options *o);
/* Walks every entry chosen again to its LID; -1 when one is wrong. */
int incr_verify(struct incr_repair *rep);
/*
 * cr-ftree: the switch routes without an up/down path, as a full run
 * fills them, then the credit-loop search if needed. 0, 1 (st->reason: a
 * full run), -1.
 */
int ft_incr_fill_turns(struct incr_repair *rep);

#endif
