// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The improvement pass: deterministic hill climbing on an engine's LFTs,
 * judged move by move by the contention estimate itself.
 *
 * Scoring. Every phase of the objective's patterns is held with its
 * flows' paths and max-min rates (include/croute/estimate/est_inc.h). A move
 * changes one entry: LID l leaves switch w by port q, not p. The flows to
 * l that left w by p take the new path; only their phases are solved
 * again, so a move costs (flows moved) x (one phase's solve), and its
 * figure is the estimate's own, to the bit (the final full estimate
 * confirms it).
 *
 * Where to look. In every phase the solver's rates show what holds each
 * flow back: a saturated link on which it is among the fastest (else its
 * narrowest link). A flow below its injection rate credits (1 - its
 * fraction) to every (switch, its LID) pair on its path up to that link:
 * only there can a move steer it around; every pair on a path gets a
 * token credit too, so that it is tried last (moving a flow that is not
 * held back can free a link for others). A round takes the pairs by
 * decreasing credit; for each, every legal port is tried and the best
 * strict improvement of the objective (cr_objective_cmp) is kept. Once a
 * round keeps nothing, swaps are tried as well: the LID and one of up to
 * SWAP_LIDS credited LIDs on the new port exchange ports (both entries
 * at once, so the switch's port loads stay), until a round with swaps
 * keeps nothing. Only LIDs whose moved flows share a phase with the
 * LID's are taken: when every term is an average, a swap of LIDs in
 * disjoint phases scores as the sum of two single moves, which were
 * found no better (cr_est_inc_phases; this leaves the few swaps that can
 * help, and on prod-tree the pass converges higher than with them all).
 * A port's swaps are tried right after its single move, so the phases
 * only the LID touches are the ones that move just solved: the held
 * estimate reuses them (a swap then costs about its partner's phases).
 * A round ends after ROUND_PAIRS pairs once ROUND_KEPT moves were kept
 * (the credit is then recomputed), or at the end of the list. A pair
 * that improved nothing is not tried again while neither
 * its phases, any entry of its LID, nor any entry of its switch changed
 * (the try would give the same figures).
 *
 * Guarantees. The objective never decreases (moves are kept only when it
 * improves; the full estimate after the pass must agree, else every move
 * is undone); moves are chosen on the objective's training samples, "@K"
 * terms on each of their random orders (opt_held.c: the held estimate
 * holds every order's phases, so a move is never tuned to the own order
 * alone);
 * where the objective samples (orders, matchings, shift's phases), its
 * held-out samples (CR_SCORE_HELDOUT) must not drop either, so that tables
 * tuned to the samples they saw are not installed; after the pass,
 * cr_check must find no more unreachable pairs, loops or credit loops
 * than before, else every move is undone.
 * The order of everything is fixed (ties by switch, LID, port), and the
 * budget is counted in work done (CR_OPT_WORK_PER_S), not in seconds, so
 * the result depends only on the inputs; a machine CR_OPT_WALL_GUARD
 * times slower than the budget's rate, or the caller's stop, makes the
 * pass give up whole (every move undone, logged), never stop part way.
 *
 * Cost: one estimate to hold the phases (memory: the phases' paths, at
 * most MAX_ENTRIES entries, else the pass is skipped and says so), then
 * per move tried the solves of its phases.
 *
 * The legality of moves is in opt_legal.c, the kicks in opt_kick.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/model/buf.h>
#include <croute/model/check.h>
#include <croute/model/clock.h>
#include <croute/route/engine.h>
#include <croute/io/est_conf.h>
#include <croute/estimate/est_inc.h>
#include <croute/estimate/estimate.h>
#include <croute/model/log.h>
#include <croute/tune/optimize.h>

#include "opt_cdg.h"
#include "opt_held.h"
#include "opt_int.h"

#define ROUND_PAIRS 256 /* pairs a round takes at least */
#define ROUND_KEPT 32 /* moves kept before the credit is recomputed */
#define MAX_PAIRS (8u << 20) /* (switch, LID) pairs credited, at most */
#define SWAP_LIDS 16 /* LIDs a port offers for swaps, at most */
#define PHASES_HELD 4096 /* a LID's phases compared for swaps, at most */

void cr_opt_params_init(struct cr_opt_params *p)
{
	memset(p, 0, sizeof(*p));
	p->budget = CR_OPT_BUDGET_DEFAULT;
}

/* ---- set-up ----------------------------------------------------------- */

static int opt_init(struct opt *o, const struct cr_hosts *hosts)
{
	const struct cr_fabric *f = o->f;
	unsigned nt = o->obj->num_terms;
	uint64_t links = 0;

	o->ns = f->num_switches;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		links += f->nodes[n].num_ports + 1;
	o->nlinks = (uint32_t)links;
	o->link_node = malloc((links + 1) * sizeof(*o->link_node));
	o->lids = malloc((hosts->count + 1) * sizeof(*o->lids));
	o->lid_ix = malloc(((size_t)f->max_lid + 1) * sizeof(*o->lid_ix));
	o->dist = calloc(o->ns + 1, sizeof(*o->dist));
	o->stack = malloc((o->ns + 1) * sizeof(*o->stack));
	o->stamp = calloc(o->ns + 1, sizeof(*o->stamp));
	o->sws = malloc((o->ns + 2) * sizeof(*o->sws));
	o->cur = calloc(nt + 1, sizeof(double));
	o->trial = calloc(nt + 1, sizeof(double));
	o->best = calloc(nt + 1, sizeof(double));
	o->tavg = calloc(o->held->npat + 1, sizeof(double));
	o->tmin = calloc(o->held->npat + 1, sizeof(double));
	if (!o->link_node || !o->lids || !o->lid_ix || !o->dist || !o->stack ||
	    !o->stamp || !o->sws || !o->cur || !o->trial || !o->best ||
	    !o->tavg || !o->tmin)
		return -1;
	links = 0;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
			o->link_node[links++] = n;
	for (uint32_t l = 0; l <= f->max_lid; l++)
		o->lid_ix[l] = NONE;
	for (uint32_t i = 0; i < hosts->count; i++) {
		uint16_t lid = hosts->ep[i].lid;

		if (!lid || lid > o->r->max_lid || o->lid_ix[lid] != NONE ||
		    cr_lid_switch(f, lid, NULL) == CR_NO_NODE)
			continue;
		o->lid_ix[lid] = o->nlids;
		o->lids[o->nlids++] = lid;
	}
	o->srcs = malloc((2 * (size_t)o->ns + 2) * sizeof(*o->srcs));
	o->ph_a = malloc(PHASES_HELD * sizeof(*o->ph_a));
	o->ph_b = malloc(PHASES_HELD * sizeof(*o->ph_b));
	o->swap_memo = calloc(SWAP_MEMO, sizeof(*o->swap_memo));
	o->swapped = malloc(256 * SWAP_LIDS * sizeof(*o->swapped));
	if (!o->srcs || !o->ph_a || !o->ph_b || !o->swap_memo || !o->swapped)
		return -1;
	o->additive = true;
	for (unsigned i = 0; i < nt; i++)
		if (o->obj->terms[i].stat != CR_STAT_AVG)
			o->additive = false;
	if (o->r->sl) {
		uint16_t used = 0;

		for (uint32_t i = 0; i < o->ns; i++) {
			const uint8_t *sl = o->r->sl[f->switches[i]];

			for (uint32_t k = 0; sl && k < o->nlids; k++)
				used |= 1u << (sl[o->lids[k]] & 15);
		}
		for (unsigned v = 0; v < 16; v++)
			if (used & (1u << v))
				o->sls[o->nsls++] = (uint8_t)v;
	}
	if ((uint64_t)o->ns * o->nlids > MAX_PAIRS)
		return 0; /* the caller says what it skips */
	o->heat = calloc((size_t)o->ns * o->nlids + 1, sizeof(*o->heat));
	o->memo = calloc((size_t)o->ns * o->nlids + 1, sizeof(*o->memo));
	o->lid_serial = calloc(o->nlids + 1, sizeof(*o->lid_serial));
	o->sw_serial = calloc(o->ns + 1, sizeof(*o->sw_serial));
	o->pairs = malloc(((size_t)o->ns * o->nlids + 1) * sizeof(*o->pairs));
	o->frozen = calloc((size_t)o->ns * o->nlids + 1, sizeof(*o->frozen));
	o->ports = malloc(256);
	if (!o->heat || !o->memo || !o->lid_serial || !o->sw_serial ||
	    !o->pairs || !o->frozen || !o->ports)
		return -1;
	return 0;
}

static void opt_free(struct opt *o)
{
	free(o->link_node);
	free(o->lids);
	free(o->lid_ix);
	for (uint32_t s = 0; o->dist && s < o->ns; s++)
		free(o->dist[s]);
	free(o->dist);
	free(o->stack);
	free(o->stamp);
	free(o->sws);
	free(o->key);
	free(o->cur);
	free(o->trial);
	free(o->best);
	free(o->tavg);
	free(o->tmin);
	free(o->heat);
	free(o->memo);
	free(o->lid_serial);
	free(o->sw_serial);
	free(o->pairs);
	free(o->frozen);
	free(o->ports);
	free(o->kept);
	free(o->sl_log);
	free(o->srcs);
	free(o->ph_a);
	free(o->ph_b);
	free(o->swap_memo);
	free(o->swapped);
	opt_cdg_free(o->cdg);
	cr_est_inc_free(o->inc);
}

/* The objective's terms as held now, or as the last try gave them. */
void opt_terms(const struct opt *o, bool trial, double *out)
{
	struct opt_held *h = o->held;

	if (trial) {
		opt_held_terms(h, o->obj, o->tavg, o->tmin, out);
		return;
	}
	for (unsigned j = 0; j < h->npat; j++) {
		h->avg[j] = cr_est_inc_avg(o->inc, j);
		h->min[j] = cr_est_inc_min(o->inc, j);
	}
	opt_held_terms(h, o->obj, h->avg, h->min, out);
}

/* The work of every solve so far, across restarts of the held estimate. */
uint64_t opt_work(const struct opt *o)
{
	return o->work_base + cr_est_inc_work(o->inc);
}

/* (switch index * nlids + LID index) forced by the kick being climbed? */
bool opt_frozen(const struct opt *o, size_t ix)
{
	return o->kick_gen && o->frozen[ix] == o->kick_gen;
}

/* ---- where flows are held back ---------------------------------------- */

static void credit(void *arg, uint16_t lid, const uint32_t *links, unsigned n,
		   unsigned b, double frac)
{
	struct opt *o = arg;
	uint32_t li = lid <= o->f->max_lid ? o->lid_ix[lid] : NONE;
	double w = 1 - frac;

	if (li == NONE)
		return;
	/*
	 * Every pair on a path gets a little (they are tried last: moving a
	 * flow that is not held back can free a link for others); the pairs
	 * up to the link that holds a flow back get its deficit (none when
	 * its own host link, either end, holds it: no route helps).
	 */
	for (unsigned k = 1; k + 1 < n; k++) {
		uint32_t w_node = o->link_node[links[k]];

		o->heat[(size_t)sw_of(o, w_node) * o->nlids + li] += 1e-6;
	}
	if (b == 0 || b + 1 >= n)
		return;
	if (o->weight_min >= 0 && frac <= o->weight_min * (1 + 1e-9))
		w += 1e3; /* the worst flows first when the minimum counts */
	for (unsigned k = 1; k <= b; k++) {
		uint32_t w_node = o->link_node[links[k]];

		o->heat[(size_t)sw_of(o, w_node) * o->nlids + li] += w;
	}
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->heat != y->heat)
		return x->heat > y->heat ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

/* The pairs with credit, most first. */
void opt_rank_pairs(struct opt *o)
{
	size_t np = (size_t)o->ns * o->nlids;

	memset(o->heat, 0, np * sizeof(*o->heat));
	/* the first term's flows on each of its orders */
	for (unsigned j = 0; j < o->held->first[1]; j++) {
		o->weight_min = o->obj->terms[0].stat == CR_STAT_MIN
					? cr_est_inc_min(o->inc, j)
					: -1;
		cr_est_inc_limits(o->inc, j, credit, o);
	}
	o->npairs = 0;
	for (size_t i = 0; i < np; i++)
		if (o->heat[i] > 0) {
			o->pairs[o->npairs].heat = o->heat[i];
			o->pairs[o->npairs].ix = (uint32_t)i;
			o->npairs++;
		}
	qsort(o->pairs, o->npairs, sizeof(*o->pairs), cmp_pair);
}

/* ---- moves ------------------------------------------------------------ */

int opt_keep(struct opt *o, const struct move *m)
{
	if (cr_grow(&o->kept, &o->kept_alloc, o->nkept + 1, sizeof(*o->kept)))
		return -1;
	o->kept[o->nkept++] = *m;
	return 0;
}

/*
 * Do lid2's flows leaving w by q share a phase with the nph phases in
 * ph_a (the flows a move takes off their port)? When they do not, and
 * every term is an average, moving both scores as the sum of the two
 * moves alone, which the single moves already found no better: not worth
 * a try. Too many phases to compare: assumed shared.
 */
static bool shares_phases(struct opt *o, uint32_t w, unsigned q, uint16_t lid2,
			  uint32_t nph)
{
	uint32_t nb, i = 0, j = 0;

	if (!o->additive || nph > PHASES_HELD)
		return true;
	nb = cr_est_inc_phases(o->inc, w, q, lid2, o->ph_b, PHASES_HELD);
	if (nb > PHASES_HELD)
		return true;
	while (i < nph && j < nb) {
		if (o->ph_a[i] == o->ph_b[j])
			return true;
		if (o->ph_a[i] < o->ph_b[j])
			i++;
		else
			j++;
	}
	return false;
}

static struct swap_memo *swap_slot(struct opt *o, uint32_t w, uint16_t a,
				   uint16_t b)
{
	uint64_t h = ((uint64_t)w << 32 | (uint32_t)a << 16 | b) *
		     0x9e3779b97f4a7c15ull;

	return &o->swap_memo[h >> 48 & (SWAP_MEMO - 1)];
}

/*
 * Did swapping lid (on port p of w) and lid2 (on q) fail with nothing
 * changed since that could change its figures: neither LID's entries,
 * nor the phases of either's flows through w (the swap re-solves only
 * those)? Then it fails again: not solved (the same decisions for less
 * work; each swap is otherwise tried from both of its LIDs' pairs).
 */
static bool swap_failed(struct opt *o, uint32_t w, uint16_t lid, unsigned p,
			uint16_t lid2, unsigned q)
{
	uint16_t a = lid < lid2 ? lid : lid2, b = lid < lid2 ? lid2 : lid;
	const struct swap_memo *m = swap_slot(o, w, a, b);

	if (!o->swap_memo_on || !m->at || m->sw != w || m->a != a || m->b != b)
		return false;
	return o->lid_serial[o->lid_ix[lid]] < m->at &&
	       o->lid_serial[o->lid_ix[lid2]] < m->at &&
	       cr_est_inc_version(o->inc, w, p, lid) < m->at &&
	       cr_est_inc_version(o->inc, w, q, lid2) < m->at;
}

static void swap_fails(struct opt *o, uint32_t w, uint16_t lid, uint16_t lid2)
{
	uint16_t a = lid < lid2 ? lid : lid2, b = lid < lid2 ? lid2 : lid;

	*swap_slot(o, w, a, b) = (struct swap_memo){
		.sw = w, .a = a, .b = b, .at = cr_est_inc_commits(o->inc) + 1};
}

/* Scores the changes c[0..n) (the LFT already changed): 1 better. */
static int score_changes(struct opt *o, const struct cr_est_inc_change *c,
			 unsigned n)
{
	long rc = cr_est_inc_try_part(o->inc, c, n, o->held->first[1], o->tavg,
				      o->tmin);

	o->tries++;
	if (rc == -1)
		return -1;
	if (rc <= 0)
		return 0;
	opt_terms(o, true, o->trial);
	/*
	 * The first term alone decides when it is worse: the others' phases
	 * are solved only when it ties or gains (the same decisions)
	 */
	if (cr_objective_cmp(o->trial, o->best, 1) < 0)
		return 0;
	if (o->obj->num_terms > 1) {
		if (cr_est_inc_try_more(o->inc, o->tavg, o->tmin))
			return -1;
		opt_terms(o, true, o->trial);
	}
	if (cr_objective_cmp(o->trial, o->best, o->obj->num_terms) <= 0)
		return 0;
	for (unsigned i = 1; o->pareto && i < o->obj->num_terms; i++)
		if (cr_objective_cmp(o->trial + i, o->floor + i, 1) < 0)
			return 0;
	memcpy(o->best, o->trial, o->obj->num_terms * sizeof(*o->best));
	return 1;
}

/*
 * Tries every legal port for (w, lid) and, when none improves, swaps with
 * LIDs on those ports (both entries at once: the loads of w's ports stay);
 * keeps the best strict improvement of the objective: 1 kept, 0 none, -1
 * error.
 */
/*
 * Keeps try_pair()'s best try: lid at w to port bq, and unless li2 is
 * NONE the LID of index li2 from bq to p (a swap), unless it would close
 * a credit loop. 1 kept, 0 refused, -1 error.
 */
static int keep_best(struct opt *o, uint32_t w, uint16_t lid, uint8_t p,
		     unsigned bq, uint32_t li2)
{
	struct cr_est_inc_change c[2];
	uint32_t si = sw_of(o, w);
	unsigned nc;
	bool cdg_in = false;
	uint16_t moved[2];
	int rc;

	c[0] = (struct cr_est_inc_change){.sw = w, .old_port = p, .lid = lid};
	nc = li2 == NONE ? 1 : 2;
	moved[0] = lid;
	moved[1] = nc == 2 ? o->lids[li2] : 0;
	/* the graphs lose the old dependencies before the entries change */
	if (o->cdg && opt_lids_cdg(o, moved, nc, -1))
		return -1;
	o->r->lft[w][lid] = (uint8_t)bq;
	if (nc == 2) {
		c[1] = (struct cr_est_inc_change){
			.sw = w, .old_port = (uint8_t)bq, .lid = o->lids[li2]};
		o->r->lft[w][o->lids[li2]] = p;
	}
	if (cr_est_inc_try_n(o->inc, c, nc, o->tavg, o->tmin) <= 0)
		goto undo; /* cannot be: the same try as above */
	if (o->cdg) {
		rc = opt_credit_ok(o, w, moved, nc);
		if (rc < 0)
			goto fail;
		if (!rc) {
			o->credit_rejects++;
			goto undo;
		}
		cdg_in = true;
	}
	if (cr_est_inc_commit(o->inc))
		goto fail;
	if (opt_keep(o, &(struct move){.sw = w,
				       .lid = lid,
				       .from = p,
				       .to = (uint8_t)bq}) ||
	    (nc == 2 && opt_keep(o, &(struct move){.sw = w,
						   .lid = o->lids[li2],
						   .from = (uint8_t)bq,
						   .to = p})))
		goto fail;
	o->lid_serial[o->lid_ix[lid]] = cr_est_inc_commits(o->inc);
	if (nc == 2)
		o->lid_serial[li2] = cr_est_inc_commits(o->inc);
	o->sw_serial[si] = cr_est_inc_commits(o->inc);
	return 1;
undo:
	o->r->lft[w][lid] = p;
	if (nc == 2)
		o->r->lft[w][o->lids[li2]] = (uint8_t)bq;
	if (o->cdg && !cdg_in && opt_lids_cdg(o, moved, nc, 1))
		return -1;
	return 0;
fail:
	o->r->lft[w][lid] = p;
	if (nc == 2)
		o->r->lft[w][o->lids[li2]] = (uint8_t)bq;
	return -1;
}

static int try_pair(struct opt *o, uint32_t w, uint16_t lid, uint64_t max_tries)
{
	const struct cr_fabric *f = o->f;
	uint32_t si = sw_of(o, w), li2 = NONE, nswapped = 0;
	unsigned nt = o->obj->num_terms, bq = 0;
	uint32_t nph = 0;
	uint8_t p = o->r->lft[w][lid];
	struct cr_est_inc_change c[2];
	struct opt_entry e;
	bool single = false;
	int rc;

	rc = opt_entry_at(o, w, lid, &e);
	if (rc <= 0)
		return rc;
	opt_terms(o, false, o->cur);
	memcpy(o->best, o->cur, nt * sizeof(*o->best));
	c[0] = (struct cr_est_inc_change){.sw = w, .old_port = p, .lid = lid};
	if (o->swaps)
		nph = cr_est_inc_phases(o->inc, w, p, lid, o->ph_a,
					PHASES_HELD);
	/*
	 * Each port's swaps right after its single move: the phases only
	 * the LID touches are then those the single move just solved (the
	 * held estimate reuses them). Swaps only while no single move
	 * improved; the best of all tried is kept.
	 */
	for (unsigned q = 1; q <= f->nodes[w].num_ports; q++) {
		unsigned taken = 0;

		if (q == p || o->tries >= max_tries || !opt_legal(o, &e, q))
			continue;
		o->r->lft[w][lid] = (uint8_t)q;
		rc = score_changes(o, c, 1);
		o->r->lft[w][lid] = p;
		if (rc < 0)
			return -1;
		if (rc) {
			bq = q;
			li2 = NONE;
			single = true;
		}
		for (uint32_t j = 0;
		     !single && o->swaps && j < o->nlids && taken < SWAP_LIDS;
		     j++) {
			uint16_t lid2 = o->lids[j];

			if (lid2 == lid || o->r->lft[w][lid2] != q ||
			    !(o->heat[(size_t)si * o->nlids + j] > 0) ||
			    opt_frozen(o, (size_t)si * o->nlids + j) ||
			    o->tries >= max_tries ||
			    !shares_phases(o, w, q, lid2, nph) ||
			    !opt_swap_ok(o, w, j, p))
				continue;
			taken++;
			o->swapped[nswapped++] = j;
			if (swap_failed(o, w, lid, p, lid2, q))
				continue;
			c[1] = (struct cr_est_inc_change){
				.sw = w, .old_port = (uint8_t)q, .lid = lid2};
			o->r->lft[w][lid] = (uint8_t)q;
			o->r->lft[w][lid2] = p;
			rc = score_changes(o, c, 2);
			o->r->lft[w][lid] = p;
			o->r->lft[w][lid2] = (uint8_t)q;
			if (rc < 0)
				return -1;
			if (rc) {
				bq = q;
				li2 = j;
			}
		}
	}
	if (!bq) {
		/* every swap tried scored no better than the tables now */
		for (uint32_t k = 0; k < nswapped; k++)
			swap_fails(o, w, lid, o->lids[o->swapped[k]]);
		return 0;
	}
	return keep_best(o, w, lid, p, bq, li2);
}

/* Tried with nothing changed since it last failed? */
static bool stale(struct opt *o, uint32_t ix)
{
	uint32_t w = o->f->switches[ix / o->nlids], li = ix % o->nlids;
	uint32_t at = o->memo[ix];
	uint16_t lid = o->lids[li];

	if (!at)
		return false;
	if (o->lid_serial[li] >= at || o->sw_serial[ix / o->nlids] >= at)
		return false;
	return cr_est_inc_version(o->inc, w, o->r->lft[w][lid], lid) < at;
}

/*
 * Rounds until one keeps nothing (1: a local optimum), max_tries moves are
 * tried or the budget is spent (0). -1 on error, -2 when it gives up.
 */
int opt_climb(struct opt *o, double t0, double budget, uint64_t max_tries,
	      struct cr_opt_stats *s)
{
	uint64_t work = (uint64_t)(budget * CR_OPT_WORK_PER_S);

	for (;;) {
		unsigned kept = 0;
		size_t done = 0;

		opt_rank_pairs(o);
		for (size_t i = 0; i < o->npairs; i++) {
			uint32_t ix = o->pairs[i].ix;
			int rc;

			if (o->tries >= max_tries)
				return 0;
			if (opt_work(o) >= work) {
				s->work_hit = true;
				return 0;
			}
			/* a caller's deadline replaces the pass's guard */
			if (cr_stop_now(o->stop) ||
			    (!(o->stop && o->stop->deadline > 0) &&
			     cr_now() - t0 >= CR_OPT_WALL_GUARD * budget +
						      CR_OPT_WALL_SLACK)) {
				s->budget_hit = true;
				return -2;
			}
			if (stale(o, ix) || opt_frozen(o, ix))
				continue;
			rc = try_pair(o, o->f->switches[ix / o->nlids],
				      o->lids[ix % o->nlids], max_tries);
			if (rc < 0)
				return -1;
			if (rc)
				kept++;
			else
				o->memo[ix] = cr_est_inc_commits(o->inc) + 1;
			if (++done >= ROUND_PAIRS && kept >= ROUND_KEPT)
				break;
		}
		cr_verbose(
			"optimize: round: %zu pairs credited, %zu taken, %u"
			" kept; %llu tried, %llu solves, %llu reused, %u refused"
			" for credit loops, %.4f, %.2f s",
			o->npairs, done, kept, (unsigned long long)o->tries,
			(unsigned long long)cr_est_inc_solves(o->inc),
			(unsigned long long)cr_est_inc_reused(o->inc),
			o->credit_rejects, cr_est_inc_avg(o->inc, 0),
			cr_now() - t0);
		if (kept)
			continue;
		if (o->swaps || !o->may_swap)
			return 1;
		/* single moves are exhausted: swaps from now on */
		o->swaps = true;
		memset(o->memo, 0, (size_t)o->ns * o->nlids * sizeof(*o->memo));
	}
}

static bool engine_is(const struct cr_engine *e, const char *name)
{
	return e && !strcmp(e->name, name);
}

static void undo_all(struct opt *o)
{
	for (size_t i = o->nkept; i-- > 0;)
		o->r->lft[o->kept[i].sw][o->kept[i].lid] = o->kept[i].from;
	o->nkept = 0;
	while (o->nsl_log) {
		struct sl_change *c = &o->sl_log[--o->nsl_log];

		o->r->sl[c->sw][c->lid] = c->from;
	}
}

/* One pass's state, shared by its steps. */
struct pass {
	const struct cr_engine *e;
	const struct cr_objective *obj;
	struct cr_opt_params par;
	double budget;
	uint64_t max_tries;
	double t0;
	struct opt o;
	struct cr_hosts *hosts;
	struct opt_held held; /* the patterns the pass climbs on */
	double *score; /* the start's terms */
	double *after; /* the full estimate's, after the pass */
	/*
	 * The objective's training samples at the start (score: what the
	 * held estimate gives, the own order; with "@K" terms, train adds
	 * their random orders) and its held-out samples before and after.
	 */
	double *train, *held0, *held1;
	bool orders, holds_out;
	bool too_big; /* the held estimate would pass MAX_ENTRIES */
	struct cr_check_report rep0; /* the start's check */
	struct cr_opt_stats s;
};

/* What a step leaves the pass to do. */
enum step {
	STEP_ON, /* the next step */
	STEP_SKIP, /* nothing to do: tables as they came, no summary */
	STEP_DONE, /* the summary line; r as it stands */
	STEP_REVERT, /* a check failed after the pass: every move undone */
	STEP_ERR, /* an error (logged): r as it came */
};

/* The parameters, and which moves the engine's guarantees allow. */
static void pass_params(struct pass *ps, const struct cr_opt_params *p)
{
	if (p)
		ps->par = *p;
	else
		cr_opt_params_init(&ps->par);
	ps->budget =
		ps->par.budget > 0 ? ps->par.budget : CR_OPT_BUDGET_DEFAULT;
	ps->max_tries =
		ps->par.max_evals ? ps->par.max_evals : CR_OPT_MAX_EVALS;
	ps->o.pareto = ps->par.pareto;
	ps->o.keep_sls = ps->par.keep_sls;
	ps->o.stop = ps->par.stop;
	ps->o.leg = engine_is(ps->e, "updn") ? LEG_UPDN : LEG_MINIMAL;
	/* longer paths only where the engine's guarantee allows them */
	ps->o.extra = engine_is(ps->e, "minhop") || engine_is(ps->e, "updn")
			      ? ps->par.max_extra_hops
			      : 0;
}

/* The hosts, the terms' patterns and the objective at the start. */
static enum step first_estimate(struct pass *ps)
{
	const struct cr_fabric *f = ps->o.f;
	const struct cr_objective *obj = ps->obj;
	struct opt *o = &ps->o;

	/* a host list file is the order asked for, whatever the engine */
	ps->hosts = ps->par.natural_hosts || obj->hosts_file || obj->rail_order
			    ? cr_objective_hosts(f, obj)
			    : cr_hosts_for(f, o->by, NULL);
	ps->score = calloc(obj->num_terms + 1, sizeof(double));
	ps->after = calloc(obj->num_terms + 1, sizeof(double));
	ps->train = calloc(obj->num_terms + 1, sizeof(double));
	ps->held0 = calloc(obj->num_terms + 1, sizeof(double));
	ps->held1 = calloc(obj->num_terms + 1, sizeof(double));
	if (!ps->hosts || !ps->score || !ps->after || !ps->train ||
	    !ps->held0 || !ps->held1) {
		cr_err("optimize: out of memory");
		return STEP_ERR;
	}
	if (ps->hosts->count < 2)
		return STEP_SKIP;
	/* the training samples: the own order and each "@K" term's orders */
	if (opt_held_make(&ps->held, obj, ps->hosts))
		return STEP_ERR;
	o->held = &ps->held;
	/*
	 * The held estimate is the first estimate too, where holding it
	 * costs little next to the pass; on large fabrics a plain estimate
	 * first, which is all a fabric at full rate needs.
	 */
	if (ps->hosts->count <= CR_EST_LARGE_HOSTS) {
		o->inc = opt_held_inc(&ps->held, f, o->r, MAX_ENTRIES,
				      &ps->too_big);
		if (!o->inc && !ps->too_big)
			return STEP_ERR;
	}
	ps->orders = cr_objective_has_orders(obj);
	if (o->inc)
		opt_terms(o, false, ps->score);
	else if (cr_objective_score(f, o->r, obj, ps->hosts, ps->score))
		return STEP_ERR;
	ps->s.before = ps->s.after = ps->score[0];
	/* every flow at its injection rate: nothing to gain (and no check
	 * to pay for, which on large fabrics is the cost) */
	return ps->score[0] >= 1 - 1e-12 ? STEP_DONE : STEP_ON;
}

/*
 * The start's check, the search's state, the credit-loop graphs and the
 * held estimate, which must give the start's figures.
 */
static enum step prepare_search(struct pass *ps)
{
	const struct cr_fabric *f = ps->o.f;
	unsigned nt = ps->obj->num_terms;
	struct opt *o = &ps->o;

	if (cr_check(f, o->r, CR_CHECK_CREDIT, NULL, 0, &ps->rep0))
		return STEP_ERR;
	ps->holds_out = cr_objective_holds_out(ps->obj, ps->hosts);
	memcpy(ps->train, ps->score, nt * sizeof(*ps->train));
	if (ps->holds_out &&
	    cr_objective_score_set(f, o->r, ps->obj, ps->hosts,
				   CR_SCORE_HELDOUT, ps->held0))
		return STEP_ERR;
	ps->s.before = ps->s.after = ps->train[0];
	ps->s.held_before = ps->s.held_after = ps->held0[0];
	ps->s.tried = ps->train[0];
	/* up/down excludes credit loops by its rule; others by the check,
	 * when there were none to start with */
	o->check_credit = o->leg != LEG_UPDN && !ps->rep0.credit_loops;
	o->may_swap = true;
	o->swap_memo_on = !ps->par.no_swap_memo;
	if (opt_init(o, ps->hosts) ||
	    (o->leg == LEG_UPDN && opt_updn_keys(o))) {
		cr_err("optimize: out of memory");
		return STEP_ERR;
	}
	if (o->check_credit) {
		o->cdg = opt_cdg_new(f, o->r);
		if (!o->cdg)
			return STEP_ERR;
	}
	if (!o->heat) {
		cr_info("optimize: %u switches x %u LIDs is too large a"
			" search; tables left as they are",
			o->ns, o->nlids);
		return STEP_DONE;
	}
	if (!o->inc && !ps->too_big)
		o->inc = opt_held_inc(&ps->held, f, o->r, MAX_ENTRIES,
				      &ps->too_big);
	if (!o->inc) {
		if (!ps->too_big)
			return STEP_ERR;
		cr_info("optimize: the objective's phases hold more than %u"
			" path entries; tables left as they are",
			MAX_ENTRIES);
		return STEP_DONE;
	}
	opt_terms(o, false, o->cur);
	if (cr_objective_cmp(o->cur, ps->score, nt)) {
		/* cannot be: est_inc.c repeats cr_est_run() */
		cr_err("optimize: the held estimate (%.6f) is not the"
		       " estimate (%.6f); tables left as they are",
		       o->cur[0], ps->score[0]);
		return STEP_ERR;
	}
	return STEP_ON;
}

/* The climb, then the kicks from its local optimum. */
static enum step search(struct pass *ps)
{
	struct opt *o = &ps->o;
	int rc;

	o->floor = ps->score;
	rc = opt_climb(o, ps->t0, ps->budget, ps->max_tries, &ps->s);
	if (rc == 1 && !ps->par.no_kicks)
		rc = opt_iterate(o, ps->t0, ps->budget, ps->max_tries, &ps->s);
	if (rc < 0)
		return STEP_ERR;
	ps->s.moves = (unsigned)o->nkept;
	ps->s.relayered = o->relayered;
	ps->s.evals = (unsigned)(o->tries > UINT32_MAX ? UINT32_MAX : o->tries);
	return o->nkept ? STEP_ON : STEP_DONE;
}

/*
 * A full estimate must confirm the gain, and cr_check find no more
 * unreachable pairs, loops or credit loops than at the start.
 */
static enum step confirm(struct pass *ps)
{
	const struct cr_fabric *f = ps->o.f;
	const struct cr_objective *obj = ps->obj;
	struct cr_check_report rep1;

	if (cr_objective_score(f, ps->o.r, obj, ps->hosts, ps->after))
		return STEP_ERR;
	ps->s.tried = ps->after[0];
	if (cr_objective_cmp(ps->after, ps->train, obj->num_terms) <= 0) {
		/* with "@K" terms, a gain on the own order alone: no error */
		if (ps->orders)
			cr_info("optimize: the pass's gain on the own order"
				" (%.6f from %.6f) is not one on the objective"
				" (%.6f from %.6f); every move undone",
				ps->o.cur[0], ps->score[0], ps->after[0],
				ps->train[0]);
		else
			cr_err("optimize: the full estimate (%.6f) does not"
			       " confirm the pass (%.6f from %.6f); every move"
			       " undone",
			       ps->after[0], ps->o.cur[0], ps->score[0]);
		return STEP_REVERT;
	}
	ps->s.after = ps->after[0];
	if (ps->holds_out &&
	    cr_objective_score_set(f, ps->o.r, obj, ps->hosts, CR_SCORE_HELDOUT,
				   ps->held1))
		return STEP_ERR;
	ps->s.held_after = ps->held1[0];
	if (ps->holds_out &&
	    cr_objective_cmp(ps->held1, ps->held0, obj->num_terms) < 0) {
		cr_info("optimize: training %.4f -> %.4f but held-out"
			" %.4f -> %.4f: tuned to the samples it saw; every"
			" move undone",
			ps->train[0], ps->after[0], ps->held0[0], ps->held1[0]);
		return STEP_REVERT;
	}
	if (cr_check(f, ps->o.r, CR_CHECK_CREDIT, NULL, 0, &rep1))
		return STEP_ERR;
	if (rep1.unreachable > ps->rep0.unreachable ||
	    rep1.loops > ps->rep0.loops ||
	    rep1.credit_loops > ps->rep0.credit_loops) {
		cr_err("optimize: cr_check found more problems after"
		       " the pass (unreachable %llu, loops %llu,"
		       " credit loops %llu); every move undone",
		       (unsigned long long)rep1.unreachable,
		       (unsigned long long)rep1.loops,
		       (unsigned long long)rep1.credit_loops);
		return STEP_REVERT;
	}
	return STEP_DONE;
}

/* The objective before and after, the moves, the time and the work. */
static void log_summary(struct pass *ps)
{
	const struct cr_objective *obj = ps->obj;
	struct cr_opt_stats *s = &ps->s;
	struct opt *o = &ps->o;
	char relayered[64] = "", kicks[64] = "", held[64] = "";

	s->seconds = cr_now() - ps->t0;
	if (o->relayered && !s->reverted)
		snprintf(relayered, sizeof(relayered),
			 " (%u with sources moved to another layer)",
			 o->relayered);
	if (s->kicks)
		snprintf(kicks, sizeof(kicks), ", %u kick%s (%u kept)",
			 s->kicks, s->kicks == 1 ? "" : "s", s->kicks_kept);
	if (ps->holds_out)
		snprintf(held, sizeof(held), " (held-out %.4f -> %.4f)",
			 s->held_before, s->held_after);
	cr_info("optimize: cr-%s %s%s %.4f -> %.4f (%+.1f%%)%s, %u move%s"
		" kept of %u tried%s%s, %.2f s, work %llu%s",
		ps->e ? ps->e->name : "?",
		cr_pattern_kind_name(obj->terms[0].pat.kind),
		obj->terms[0].stat == CR_STAT_MIN ? ":min" : ":avg", s->before,
		s->after,
		s->before > 0 ? 100 * (s->after - s->before) / s->before : 0.0,
		held, s->moves, s->moves == 1 ? "" : "s", s->evals, relayered,
		kicks, s->seconds,
		(unsigned long long)(o->inc ? opt_work(o) : 0),
		s->work_hit ? " (its budget's work done)"
		: o->tries >= ps->max_tries
			? " (stopped at the limit of moves tried)"
			: "");
}

int cr_optimize(const struct cr_fabric *f, const struct cr_engine *e,
		const struct cr_objective *obj, const struct cr_opt_params *p,
		struct cr_routing *r, const struct cr_byproducts *by,
		struct cr_opt_stats *st)
{
	static const struct cr_byproducts none = {0};
	struct pass ps = {
		.e = e,
		.obj = obj,
		.t0 = cr_now(),
		.o = {.f = f, .r = r, .by = by ? by : &none, .obj = obj},
	};
	enum step step = STEP_ON;
	int ret = 0;

	pass_params(&ps, p);
	if (ps.o.leg == LEG_UPDN && !ps.o.by->num_roots) {
		cr_info("optimize: cr-%s left no roots: nothing to move",
			e->name);
		step = STEP_SKIP;
	}
	if (step == STEP_ON)
		step = first_estimate(&ps);
	if (step == STEP_ON)
		step = prepare_search(&ps);
	if (step == STEP_ON)
		step = search(&ps);
	if (step == STEP_ON)
		step = confirm(&ps);
	if (step == STEP_DONE) {
		log_summary(&ps);
	} else if (step == STEP_REVERT) {
		undo_all(&ps.o);
		ps.s.reverted = true;
		ps.s.after = ps.s.before;
		ps.s.moves = 0;
	} else if (step == STEP_ERR) {
		/* r as it came */
		if (ps.s.budget_hit)
			cr_info("optimize: gave up after %.2f s (%s); every"
				" move undone",
				cr_now() - ps.t0,
				cr_stop_now(ps.o.stop)
					? "stopped by its caller"
					: "the wall clock passed its guard");
		undo_all(&ps.o);
		ps.s.after = ps.s.before;
		ps.s.moves = 0;
		ret = ps.s.budget_hit ? -2 : -1;
	}
	ps.s.work = ps.o.inc ? opt_work(&ps.o) : 0;
	if (st)
		*st = ps.s;
	opt_free(&ps.o);
	cr_hosts_free(ps.hosts);
	free(ps.score);
	free(ps.after);
	free(ps.train);
	free(ps.held0);
	free(ps.held1);
	opt_held_free(&ps.held);
	return ret;
}

int cr_optimize_hook(const struct cr_auto_pass *ap, void *arg, double *spent)
{
	struct cr_opt_params p = *(const struct cr_opt_params *)arg;
	struct cr_opt_stats st = {0};
	int ret;

	p.stop = ap->o->stop;
	if (ap->budget > 0)
		p.budget = ap->budget;
	/*
	 * Improve what cr-auto scored (the same hosts in the same order), and
	 * on every term: the winner was chosen on all of them.
	 */
	p.natural_hosts = true;
	p.pareto = true;
	p.no_kicks |= !ap->kicks;
	ret = cr_optimize(ap->f, ap->e, ap->obj, &p, ap->r, ap->by, &st);
	if (spent)
		*spent = (double)st.work / CR_OPT_WORK_PER_S;
	return ret;
}
