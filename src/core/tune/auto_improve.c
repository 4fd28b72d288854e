// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's improvement: the pass (croute_optimize's) on the winner, a
 * second chance for the candidate first on the last term, and the test
 * an improve step's result must pass to replace the tables installed.
 *
 * The pass's moves must not make the winner worse on cr-auto's own
 * judgement (the objective with its tolerances) nor on held-out samples.
 * A result replaces the installed tables only when it beats them on the
 * held-out samples by the threshold (cr_auto_conf.threshold, relative,
 * the first term outside it decides) and, unless it was ranked on
 * held-out samples, is not worse on the training ones: a gain within
 * the estimate's sampling noise is not worth the churn of a new install.
 *
 * Cost: the pass's budget (in work), two scorings of both tables for the
 * test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/tune/auto.h>
#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/model/node_match.h>

#include "auto_int.h"

/* The scores of every term, "a/b/c", for the log. */
void auto_scores_text(const struct cr_objective *obj, const double *sc,
		      char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < obj->num_terms && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%.4f", i ? "/" : "",
				      sc[i]);
}

/*
 * The winner's held-out figures before (kept) and after (now) the pass,
 * every term, as " (held-out A -> B)" in buf ("" when the objective holds nothing
 * out). 1 when they drop, 0 when not, -1 (logged) on error.
 */
static int heldout_drop(const struct run *a, const struct cr_routing *kept,
			const struct cr_routing *now, char *buf, size_t len)
{
	const struct cr_objective *obj = &a->obj;
	double *h = calloc(2 * (obj->num_terms + 1), sizeof(*h));
	double *h1 = h ? h + obj->num_terms + 1 : NULL;
	char t0[128], t1[128];
	int ret = -1;

	buf[0] = '\0';
	if (!cr_objective_holds_out(obj, a->hosts)) {
		free(h);
		return 0;
	}
	if (!h ||
	    cr_objective_score_set(a->f, kept, obj, a->hosts, CR_SCORE_HELDOUT,
				   h) ||
	    cr_objective_score_set(a->f, now, obj, a->hosts, CR_SCORE_HELDOUT,
				   h1))
		goto out;
	auto_scores_text(obj, h, t0, sizeof(t0));
	auto_scores_text(obj, h1, t1, sizeof(t1));
	snprintf(buf, len, " (held-out %s -> %s)", t0, t1);
	ret = cr_objective_cmp(h1, h, obj->num_terms) < 0;
out:
	free(h);
	return ret;
}

/*
 * The optimizer (croute_optimize) on the winner *best. Its moves must
 * not make the winner worse on cr-auto's own judgement, the objective
 * with its tolerances (the pass compares terms strictly, so a gain on
 * the first term below its tolerance may cost more than that on the
 * next): then the winner stays as routed. The winner's
 * scores become those of the routing installed. budget: the pass's
 * seconds of work (0: its own). The pass's seconds.
 */
static double improve_winner(struct run *a, struct cand *w, double budget,
			     struct cr_routing **best,
			     struct cr_byproducts *best_by, bool kicks,
			     double *spent)
{
	const struct cr_objective *obj = &a->obj;
	struct cr_options wo = *a->o;
	struct cr_auto_pass p = {.f = a->f,
				 .o = &wo,
				 .e = w->e,
				 .obj = obj,
				 .by = best_by,
				 .budget = budget,
				 .kicks = kicks};
	struct cr_routing *kept = cr_routing_copy(*best);
	double *before = calloc(obj->num_terms + 1, sizeof(*before));
	double t1 = cr_now();
	char s0[128], s1[128], h[300] = "";
	int rc;

	auto_cand_options(w, &wo);
	if (!kept || !before) {
		cr_info("cr-auto: out of memory: no improvement pass");
		goto out;
	}
	memcpy(before, w->score, obj->num_terms * sizeof(*before));
	auto_scores_text(obj, before, s0, sizeof(s0));
	*spent = 0;
	p.r = *best;
	rc = a->ac->improve(&p, a->ac->improve_arg, spent);
	if (rc < 0) {
		/* A pass that gave up: its step with it, never half done. */
		a->gave_up |= rc == CR_AUTO_IMPROVE_GAVE_UP;
		cr_info("cr-auto: the improvement pass left %s as it was%s",
			w->name,
			rc == CR_AUTO_IMPROVE_GAVE_UP ? " (it gave up)" : "");
		goto out;
	}
	if (cr_objective_score(a->f, *best, obj, a->hosts, w->score) ||
	    cr_objective_cmp_tol(obj, w->score, before) < 0 ||
	    heldout_drop(a, kept, *best, h, sizeof(h))) {
		struct cr_routing *t = *best;

		auto_scores_text(obj, w->score, s1, sizeof(s1));
		cr_info("cr-auto: the improvement pass took %s from %s to %s%s:"
			" worse on the objective with its tolerances or on"
			" held-out samples, the winner stays as routed",
			w->name, s0, s1, h);
		*best = kept;
		kept = t;
		memcpy(w->score, before, obj->num_terms * sizeof(*before));
		goto out;
	}
	auto_scores_text(obj, w->score, s1, sizeof(s1));
	cr_info("cr-auto: the improvement pass took %s from %s to %s%s",
		w->name, s0, s1, h);
out:
	cr_routing_free(kept);
	free(before);
	return cr_now() - t1;
}

/* The qualified candidate first on the last term, if not the winner: -1. */
static int runner_up(const struct cand *v, int n,
		     const struct cr_objective *obj, int win)
{
	unsigned last = obj->num_terms - 1;
	int b = -1;

	if (!last)
		return -1;
	for (int i = 0; i < n; i++)
		if (v[i].ok && i != win &&
		    (b < 0 || v[i].score[last] > v[b].score[last]))
			b = i;
	if (b < 0 || v[b].score[last] <= v[win].score[last] + 1e-9)
		return -1;
	return b;
}

/*
 * The pass raises the winner's first term and keeps the later ones where
 * they were, so a candidate ahead on the last term can end ahead once
 * improved (test_second_chance has such a fabric). So when another
 * candidate (b) leads on the last term, the winner's pass stops at its
 * first local optimum (no kicks), b is routed again and its pass gets the
 * work left, the better of the two is kept, and kicks on it take what
 * remains. Where the winner's climb needs the whole budget, b gets none
 * and the winner is as its pass left it. Returns the seconds it took.
 */
static double second_chance(struct run *a, int b, double budget, double *spent)
{
	const struct cr_objective *obj = &a->obj;
	struct cand *v = a->v;
	struct cr_byproducts by = {0};
	struct cr_routing *cr = NULL;
	double t1 = cr_now();

	*spent = 0;
	if (budget < AUTO_PASS_MIN_S)
		return 0;
	cr_info("cr-auto: %s, first on the last term, gets the pass too"
		" (%.3f s of work)",
		v[b].name, budget);
	auto_run_one(a, &v[b], &cr, &by);
	if (!cr)
		goto out;
	improve_winner(a, &v[b], budget, &cr, &by, false, spent);
	if (a->gave_up)
		goto out;
	if (auto_cmp(obj, auto_threshold(a->ac), v[b].score, v[b].vls,
		     v[a->win].score, v[a->win].vls) > 0) {
		struct cr_routing *t = a->best;

		cr_info("cr-auto: improved, %s beats %s", v[b].name,
			v[a->win].name);
		a->best = cr;
		cr = t;
		cr_byproducts_release(&a->best_by);
		cr_byproducts_move(&a->best_by, &by);
		a->win = b;
	} else {
		cr_info("cr-auto: improved, %s still trails %s", v[b].name,
			v[a->win].name);
	}
out:
	cr_routing_free(cr);
	cr_byproducts_release(&by);
	return cr_now() - t1;
}

/*
 * The improvement pass on the winner: with its own budget, or with the
 * work the candidates left, shared with the runner-up on the last term
 * when there is one (second_chance()).
 */
void auto_improve(struct run *a)
{
	/* The rest of the budget, in work: deterministic. */
	double rest = AUTO_PASS_SHARE * (a->budget_work - a->work_done) /
		      WORK_PER_S,
	       spent = 0, more = 0;
	int b;

	if (!a->ac->improve_rest) {
		a->improve_s = improve_winner(a, &a->v[a->win], 0, &a->best,
					      &a->best_by, true, &spent);
		return;
	}
	if (rest < AUTO_PASS_MIN_S) {
		cr_info("cr-auto: no budget left for the improvement pass"
			" (%.3f s of work)",
			rest > 0 ? rest : 0);
		return;
	}
	b = runner_up(a->v, a->n, &a->obj, a->win);
	/* kicks only once both climbs are done */
	a->improve_s = improve_winner(a, &a->v[a->win], rest, &a->best,
				      &a->best_by, b < 0, &spent);
	if (b < 0 || a->gave_up)
		return;
	a->improve_s += second_chance(a, b, rest - spent, &more);
	spent += more;
	if (!a->gave_up && rest - spent >= AUTO_PASS_MIN_S)
		a->improve_s +=
			improve_winner(a, &a->v[a->win], rest - spent, &a->best,
				       &a->best_by, true, &more);
}

int auto_accept(const struct run *a, const struct cr_routing *was,
		double *score)
{
	const struct cr_objective *obj = &a->obj;
	unsigned n = obj->num_terms;
	double thr = auto_threshold(a->ac);
	double *t = calloc(4 * ((size_t)n + 1), sizeof(*t));
	double *t1, *h0, *h1;
	bool held = cr_objective_holds_out(obj, a->hosts);
	char s0[128], s1[128], g0[128], g1[128];
	uint64_t diff;
	int ret = -1, up;

	if (!t) {
		cr_err("cr-auto: out of memory comparing the improve step's"
		       " tables");
		return -1;
	}
	t1 = t + n + 1;
	h0 = t1 + n + 1;
	h1 = h0 + n + 1;
	diff = cr_routing_churn(a->f, was, a->f, a->best);
	*score = a->v[a->win].score[0];
	if (!diff) {
		cr_info("cr-auto: improve step: %s, its tables the installed"
			" ones: nothing to install",
			a->v[a->win].name);
		ret = 0;
		goto out;
	}
	if (cr_objective_score(a->f, was, obj, a->hosts, t) ||
	    cr_objective_score(a->f, a->best, obj, a->hosts, t1))
		goto out;
	if (held && (cr_objective_score_set(a->f, was, &a->held_obj, a->hosts,
					    CR_SCORE_HELDOUT, h0) ||
		     cr_objective_score_set(a->f, a->best, &a->held_obj,
					    a->hosts, CR_SCORE_HELDOUT, h1)))
		goto out;
	if (!held) {
		memcpy(h0, t, n * sizeof(*t));
		memcpy(h1, t1, n * sizeof(*t));
	}
	up = auto_cmp_thr(h1, h0, n, thr);
	/*
	 * A winner ranked on held-out samples (auto_rank.c) is judged on
	 * them alone: asking it not to lose on the training ones would
	 * keep the tables tuned to them.
	 */
	ret = up > 0 && (a->nfin > 1 || cr_objective_cmp_tol(obj, t1, t) >= 0);
	*score = ret ? t1[0] : t[0];
	auto_scores_text(obj, t, s0, sizeof(s0));
	auto_scores_text(obj, t1, s1, sizeof(s1));
	auto_scores_text(obj, h0, g0, sizeof(g0));
	auto_scores_text(obj, h1, g1, sizeof(g1));
	cr_info("cr-auto: improve step: %s, %llu LFT entries differ;"
		" %s %s -> %s, training %s -> %s: %s",
		a->v[a->win].name, (unsigned long long)diff,
		held ? "held-out" : "(nothing held out) training", g0, g1, s0,
		s1,
		ret	 ? "an improvement"
		: up > 0 ? "not kept: worse on the training samples"
			 : "not kept: not better by the threshold");
out:
	free(t);
	return ret;
}
