/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The improvement pass's state and the functions its files share:
 * optimize.c (set-up, scoring, the climb, the entry points), opt_legal.c
 * (which moves keep the engine's guarantees) and opt_kick.c (iterated
 * local search). Internal to the tune group.
 */
#ifndef CROUTE_OPT_INT_H
#define CROUTE_OPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <croute/estimate/est_inc.h>
#include <croute/tune/optimize.h>

#define NONE UINT32_MAX
#define MAX_ENTRIES (48u << 20) /* path entries held, at most */
#define SWAP_MEMO (1u << 16) /* failed swaps remembered, at most */

struct opt_cdg;
struct opt_held;

enum legality { LEG_MINIMAL, LEG_UPDN };

struct move {
	uint32_t sw; /* node */
	uint16_t lid;
	uint8_t from, to;
};

struct sl_change {
	uint32_t sw; /* node */
	uint16_t lid;
	uint8_t from;
};

/* A swap of two LIDs at a switch that failed, and when (1 + commits). */
struct swap_memo {
	uint32_t sw, at;
	uint16_t a, b; /* the LIDs, a < b */
};

struct pair {
	double heat;
	uint32_t ix; /* switch index * nlids + LID index */
};

struct opt {
	const struct cr_fabric *f;
	struct cr_routing *r;
	const struct cr_byproducts *by; /* cr-updn's roots */
	const struct cr_objective *obj;
	const struct cr_stop *stop; /* cr_opt_params.stop */
	enum legality leg;
	bool check_credit; /* cr_check on each kept move */
	bool pareto; /* cr_opt_params.pareto: no term below floor */
	bool keep_sls; /* cr_opt_params.keep_sls: never re-layer */
	const double *floor; /* the start's terms */
	unsigned extra;
	uint32_t ns;
	uint32_t *link_node; /* directed link -> the node it leaves */
	uint32_t nlinks;
	uint16_t *lids; /* destination LIDs */
	uint32_t nlids;
	uint32_t *lid_ix; /* LID -> index in lids, NONE */
	uint8_t **dist; /* switch index -> BFS hops to it, lazily */
	uint32_t *stack, *stamp, gen, *sws;
	uint64_t *key; /* up/down */
	struct cr_est_inc *inc;
	struct opt_held *held; /* the held patterns: terms on their orders */
	double *cur, *trial, *best;
	double *tavg, *tmin; /* a try's figures, one per held pattern */
	double *heat; /* per pair */
	double weight_min; /* flows at or below it weigh most (min stat) */
	uint32_t *memo; /* per pair: 1 + commits when it last failed */
	uint32_t *lid_serial; /* per LID index: commits at its last change */
	uint32_t *sw_serial; /* per switch index: the same */
	bool swaps, may_swap;
	struct pair *pairs;
	size_t npairs;
	struct move *kept;
	size_t nkept, kept_alloc;
	uint64_t tries;
	unsigned credit_rejects; /* moves a credit loop refused */
	unsigned relayered; /* moves kept by reassigning layers */
	/* layered routings (cr-lash): SLs in use, and SL changes to undo */
	uint8_t sls[16];
	unsigned nsls;
	struct sl_change *sl_log;
	size_t nsl_log, sl_log_alloc;
	uint32_t *srcs; /* switch nodes whose route crosses the moved entry */
	uint32_t *ph_a, *ph_b; /* phases of two LIDs' moved flows */
	struct swap_memo *swap_memo; /* SWAP_MEMO, by hash: lossy */
	bool swap_memo_on;
	uint32_t *swapped; /* a try's swap partners (LID indices) */
	bool additive; /* every term an average: disjoint changes add up */
	struct opt_cdg *cdg; /* when moves must not close credit loops */
	/* iterated local search (kicks): what a restart from the best needs */
	uint64_t work_base; /* work of held estimates since replaced */
	uint32_t *frozen; /* per pair: the kick that forced it */
	uint32_t kick_gen;
	uint64_t rng;
	uint8_t *ports; /* a kick's legal ports */
	uint32_t best_kicked[64]; /* pairs the best tables' kick froze */
	unsigned nbest_kicked;
};

static inline uint32_t sw_of(const struct opt *o, uint32_t node)
{
	return o->f->nodes[node].sw_index;
}

/* optimize.c */
void opt_terms(const struct opt *o, bool trial, double *out);
uint64_t opt_work(const struct opt *o);
bool opt_frozen(const struct opt *o, size_t ix);
void opt_rank_pairs(struct opt *o);
int opt_keep(struct opt *o, const struct move *m);
int opt_climb(struct opt *o, double t0, double budget, uint64_t max_tries,
	      struct cr_opt_stats *s);

/* opt_legal.c */
const uint8_t *opt_dist_to(struct opt *o, uint32_t d);
int opt_walk(struct opt *o, uint32_t w, unsigned p, uint16_t lid, uint32_t dsw,
	     uint32_t *sws);
bool opt_updn_all_down(const struct opt *o, const uint32_t *sws, int len);
int opt_updn_keys(struct opt *o);
/*
 * The entry (w, lid) as routed, whose moves opt_legal() judges: dsw its
 * destination's switch index, dist the hops to it, na the switches of
 * its path (left in o->sws), all_down whether that path only goes down.
 */
struct opt_entry {
	uint32_t w;
	uint16_t lid;
	uint32_t dsw;
	const uint8_t *dist;
	int na;
	bool all_down;
};
/*
 * Fills *e for (w, lid): 1, or 0 when its path has no move to judge (w
 * is its destination's switch, no port, no path), -1 out of memory.
 */
int opt_entry_at(struct opt *o, uint32_t w, uint16_t lid, struct opt_entry *e);
bool opt_legal(struct opt *o, const struct opt_entry *e, unsigned q);
int opt_lids_cdg(struct opt *o, const uint16_t *lids, unsigned n, int sign);
int opt_credit_ok(struct opt *o, uint32_t w, const uint16_t *lids, unsigned n);
bool opt_swap_ok(struct opt *o, uint32_t w, uint32_t li2, unsigned p);

/* opt_kick.c */
int opt_iterate(struct opt *o, double t0, double budget, uint64_t max_tries,
		struct cr_opt_stats *s);

#endif
