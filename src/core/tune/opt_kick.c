// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Iterated local search for the improvement pass (optimize.c): the climb
 * stops at a local optimum of single moves and swaps, and kicks look for a
 * better one nearby.
 *
 * Kicks. Once a round with swaps keeps nothing (a local optimum of both
 * neighbourhoods), iterated local search goes on while the budget lasts:
 * a kick moves a few credited pairs, drawn by credit from a fixed
 * pseudo-random sequence, to legal ports drawn the same way whatever they
 * score; the climb runs again with those pairs frozen; its tables are
 * kept when they beat the best so far, else the pass goes back to the
 * best (held estimate rebuilt, its work counted). Kicks grow from 2 to 8
 * pairs while they fail; KICK_FAILS failures in a row end the search.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/estimate/est_inc.h>
#include <croute/model/log.h>

#include "opt_cdg.h"
#include "opt_held.h"
#include "opt_int.h"

#define KICK_FAILS 24 /* kicks in a row that find nothing better: stop */
#define KICK_SEED 0x6b69636bu /* the kicks' fixed pseudo-random sequence */

/* The next number of the kicks' fixed sequence (splitmix64). */
static uint64_t next_rand(struct opt *o)
{
	uint64_t z = (o->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Moves (w, lid) to the legal port q whatever it scores (the moves of a
 * kick): 1 kept, 0 refused (a credit loop no layer avoids), -1 error.
 */
static int force(struct opt *o, uint32_t w, uint16_t lid, uint8_t q)
{
	uint8_t p = o->r->lft[w][lid];
	struct cr_est_inc_change c = {.sw = w, .old_port = p, .lid = lid};
	long rc;
	int ok;

	if (o->cdg && opt_lids_cdg(o, &lid, 1, -1))
		return -1;
	o->r->lft[w][lid] = q;
	rc = cr_est_inc_try_n(o->inc, &c, 1, o->tavg, o->tmin);
	o->tries++;
	if (rc == -1)
		goto fail;
	if (rc < 0)
		goto undo; /* cannot be: the path was walked as legal */
	if (o->cdg) {
		ok = opt_credit_ok(o, w, &lid, 1);
		if (ok < 0)
			goto fail;
		if (!ok) {
			o->credit_rejects++;
			o->r->lft[w][lid] = p;
			return opt_lids_cdg(o, &lid, 1, 1) ? -1 : 0;
		}
	}
	if (cr_est_inc_commit(o->inc) ||
	    opt_keep(o,
		     &(struct move){.sw = w, .lid = lid, .from = p, .to = q}))
		goto fail;
	o->lid_serial[o->lid_ix[lid]] = cr_est_inc_commits(o->inc);
	o->sw_serial[sw_of(o, w)] = cr_est_inc_commits(o->inc);
	return 1;
undo:
	o->r->lft[w][lid] = p;
	return o->cdg && opt_lids_cdg(o, &lid, 1, 1) ? -1 : 0;
fail:
	o->r->lft[w][lid] = p;
	return -1;
}

/*
 * A kick: `strength` (switch, LID) pairs drawn from the fixed sequence,
 * each with a chance in proportion to its credit (the pairs that hold
 * flows back), each moved to a legal port drawn the same way, whatever
 * the objective says. The climb that follows leaves them where the kick
 * put them (frozen), so that it looks for a local optimum around them
 * instead of undoing them. The number of pairs moved, or -1 on error.
 */
static int kick(struct opt *o, unsigned strength)
{
	const struct cr_fabric *f = o->f;
	unsigned done = 0;
	double total = 0;

	opt_rank_pairs(o);
	o->kick_gen++;
	for (size_t i = 0; i < o->npairs; i++)
		total += o->pairs[i].heat;
	for (unsigned k = 0; k < strength * 4 && done < strength; k++) {
		double at = (double)(next_rand(o) >> 11) * 0x1p-53 * total;
		size_t i = 0;
		uint32_t ix, w;
		uint16_t lid;
		uint8_t p;
		struct opt_entry e;
		unsigned np = 0;
		int rc;

		if (!(total > 0))
			break;
		while (i + 1 < o->npairs && at >= o->pairs[i].heat) {
			at -= o->pairs[i].heat;
			i++;
		}
		ix = o->pairs[i].ix;
		if (opt_frozen(o, ix))
			continue;
		w = f->switches[ix / o->nlids];
		lid = o->lids[ix % o->nlids];
		p = o->r->lft[w][lid];
		rc = opt_entry_at(o, w, lid, &e);
		if (rc < 0)
			return -1;
		if (!rc)
			continue;
		for (unsigned q = 1; q <= f->nodes[w].num_ports; q++)
			if (q != p && opt_legal(o, &e, q))
				o->ports[np++] = (uint8_t)q;
		if (!np)
			continue;
		rc = force(o, w, lid, o->ports[next_rand(o) % np]);
		if (rc < 0)
			return -1;
		if (rc) {
			o->frozen[ix] = o->kick_gen;
			done++;
		}
	}
	return (int)done;
}

/*
 * Back to the best tables found (the first `moves` kept moves and `sls`
 * SL changes, scoring `best`): the later ones undone, the held estimate
 * and the credit loop graphs built again for them (when `rebuild`; their
 * work counted). 0, or -1 on error.
 */
static int back_to(struct opt *o, size_t moves, size_t sls, const double *best,
		   bool rebuild)
{
	bool too_big;

	for (size_t i = o->nkept; i-- > moves;)
		o->r->lft[o->kept[i].sw][o->kept[i].lid] = o->kept[i].from;
	o->nkept = moves;
	while (o->nsl_log > sls) {
		struct sl_change *c = &o->sl_log[--o->nsl_log];

		o->r->sl[c->sw][c->lid] = c->from;
	}
	if (!rebuild)
		return 0;
	o->work_base += cr_est_inc_work(o->inc);
	cr_est_inc_free(o->inc);
	o->inc = opt_held_inc(o->held, o->f, o->r, MAX_ENTRIES, &too_big);
	if (!o->inc)
		return -1; /* it held as much before */
	o->work_base += cr_est_inc_held(o->inc);
	opt_terms(o, false, o->cur);
	if (cr_objective_cmp(o->cur, best, o->obj->num_terms)) {
		/* cannot be: the same tables give the same estimate */
		cr_err("optimize: the best tables estimate %.6f, not %.6f",
		       o->cur[0], best[0]);
		return -1;
	}
	if (o->cdg) {
		opt_cdg_free(o->cdg);
		o->cdg = opt_cdg_new(o->f, o->r);
		if (!o->cdg)
			return -1;
	}
	/*
	 * The commit serials start again. The best tables are a local
	 * optimum: every pair failed there (memo 1: failed at commit 0),
	 * but those the kick that led to them froze, never tried there.
	 */
	for (size_t i = 0; i < (size_t)o->ns * o->nlids; i++)
		o->memo[i] = 1;
	for (unsigned i = 0; i < o->nbest_kicked; i++)
		o->memo[o->best_kicked[i]] = 0;
	memset(o->swap_memo, 0, SWAP_MEMO * sizeof(*o->swap_memo));
	memset(o->lid_serial, 0, o->nlids * sizeof(*o->lid_serial));
	memset(o->sw_serial, 0, o->ns * sizeof(*o->sw_serial));
	return 0;
}

/*
 * Under cr_opt_params.pareto, no term of the tables held below the
 * start's (a kick may push one there, whatever the climb does after).
 */
static bool above_floor(const struct opt *o)
{
	for (unsigned i = 1; o->pareto && i < o->obj->num_terms; i++)
		if (cr_objective_cmp(o->cur + i, o->floor + i, 1) < 0)
			return false;
	return true;
}

/*
 * Iterated local search from the climb's local optimum: kick, climb
 * around the kick, keep the result when it beats the best so far, else
 * go back to the best. The kick's strength grows with the kicks that
 * failed in a row (2, 4, 8 pairs, then again), and KICK_FAILS of them
 * end it, as do the climb's own limits. 0, or -1 on error.
 */
int opt_iterate(struct opt *o, double t0, double budget, uint64_t max_tries,
		struct cr_opt_stats *s)
{
	unsigned nt = o->obj->num_terms, fails = 0;
	size_t moves = o->nkept, sls = o->nsl_log;
	double *best = calloc(nt + 1, sizeof(*best));
	int rc = 0;

	if (!best)
		return -1;
	o->rng = KICK_SEED;
	opt_terms(o, false, best);
	while (fails < KICK_FAILS) {
		int k = kick(o, 2u << (fails % 3));

		if (k <= 0) {
			rc = k;
			break;
		}
		s->kicks++;
		rc = opt_climb(o, t0, budget, max_tries, s);
		if (rc < 0)
			break;
		opt_terms(o, false, o->cur);
		cr_verbose("optimize: kick %u (%d pairs): %.4f, best %.4f,"
			   " work %llu",
			   s->kicks, k, o->cur[0], best[0],
			   (unsigned long long)opt_work(o));
		if (cr_objective_cmp(o->cur, best, nt) > 0 && above_floor(o)) {
			memcpy(best, o->cur, nt * sizeof(*best));
			moves = o->nkept;
			sls = o->nsl_log;
			o->nbest_kicked = 0;
			for (size_t i = 0; i < (size_t)o->ns * o->nlids; i++)
				if (opt_frozen(o, i) && o->nbest_kicked < 64)
					o->best_kicked[o->nbest_kicked++] =
						(uint32_t)i;
			s->kicks_kept++;
			fails = 0;
		} else {
			fails++;
			if (back_to(o, moves, sls, best, rc == 1)) {
				rc = -1;
				break;
			}
		}
		if (rc == 0)
			break; /* a limit stopped the climb */
		rc = 0;
	}
	free(best);
	return rc;
}
