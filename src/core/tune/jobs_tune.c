// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Routing tuned for the running jobs (include/croute/tune/jobs_tune.h):
 * the improvement pass on the jobs objective, from the best of the tables
 * in use and a few engines' fresh tables. The jobs of a busy machine are
 * fragmented, so which engine spreads them best differs from what the
 * oblivious patterns rank; the pass then only climbs from there. Running
 * queue pairs keep their path SLs, so a start with other SLs is never
 * taken and the pass never re-layers. The refine stage first swaps
 * whole routes of destinations that share a switch (jobs_swap.c), a move
 * the pass's single entries cannot make, then climbs on the rest of its
 * budget.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/check.h>
#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/model/node_match.h>
#include <croute/tune/jobs_tune.h>
#include "jobs_swap.h"

/* The refine budget's share whole-route swaps may take at most. */
#define SWAP_SHARE 0.5

/* A starting point: tables, the engine whose moves keep them legal. */
struct base {
	const struct cr_engine *e;
	struct cr_routing *r;
	struct cr_byproducts by; /* owned unless from the start */
	const struct cr_byproducts *byp;
	char name[64];
	double score; /* the objective's first term, blended */
};

static bool has_pair(const struct cr_jobs *jobs)
{
	for (uint32_t k = 0; k < jobs->num_jobs; k++)
		if (jobs->job[k].count > 1)
			return true;
	return false;
}

static uint8_t sl_at(const struct cr_routing *r, uint32_t n, uint16_t lid)
{
	return r->sl && r->sl[n] ? r->sl[n][lid] : 0;
}

/* Same SL on every (switch, LID): no SL array counts as SL 0. */
static bool same_sls(const struct cr_fabric *f, const struct cr_routing *a,
		     const struct cr_routing *b)
{
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		for (uint32_t l = 1; l <= f->max_lid; l++)
			if (sl_at(a, n, (uint16_t)l) !=
			    sl_at(b, n, (uint16_t)l))
				return false;
	}
	return true;
}

static bool all_sl0(const struct cr_fabric *f, const struct cr_routing *r)
{
	for (uint32_t i = 0; r->sl && i < f->num_switches; i++)
		for (uint32_t l = 1; l <= f->max_lid; l++)
			if (sl_at(r, f->switches[i], (uint16_t)l))
				return false;
	return true;
}

/* The jobs term and shift, on r. */
static int measure(const struct cr_fabric *f, const struct cr_routing *r,
		   const struct cr_jobs *jobs, const struct cr_hosts *hosts,
		   double *jobs_score, double *shift_score)
{
	struct cr_objective obj;
	double s[2];
	int ret;

	if (cr_objective_parse(CR_JOBS_TERM ",shift:avg", "jobs", &obj))
		return -1;
	obj.jobs = jobs;
	ret = cr_objective_score(f, r, &obj, hosts, s);
	cr_objective_release(&obj);
	*jobs_score = s[0];
	*shift_score = s[1];
	return ret;
}

/* The objective's first score on r (cr_objective_score blends it). */
static int score_of(const struct cr_fabric *f, const struct cr_routing *r,
		    const struct cr_objective *obj,
		    const struct cr_hosts *hosts, double *out)
{
	double *s = calloc(obj->num_terms, sizeof(*s));
	int ret = -1;

	if (!s) {
		cr_err("jobs: out of memory");
		return -1;
	}
	if (!cr_objective_score(f, r, obj, hosts, s)) {
		*out = s[0];
		ret = 0;
	}
	free(s);
	return ret;
}

/*
 * The terms that make the objective's first score (the weighted ones when
 * the first is weighted, else the first alone), in *lead (terms
 * allocated, patterns shared: free lead->terms only). The starts are
 * ranked on that score alone, so the terms that only break ties
 * (bisect's samples) are not estimated for each; the seeds of the terms'
 * samples and orders do not depend on their index, so the score is the
 * same to the bit.
 */
static int lead_terms(const struct cr_objective *obj, struct cr_objective *lead)
{
	bool weighted = obj->terms[0].weight > 0;

	*lead = *obj;
	lead->num_terms = 0;
	lead->terms = calloc(obj->num_terms, sizeof(*lead->terms));
	if (!lead->terms) {
		cr_err("jobs: out of memory");
		return -1;
	}
	for (unsigned i = 0; i < obj->num_terms; i++)
		if (!i || (weighted && obj->terms[i].weight > 0))
			lead->terms[lead->num_terms++] = obj->terms[i];
	return 0;
}

/* The one term text names, on r. */
static int score_of_text(const struct cr_fabric *f, const struct cr_routing *r,
			 const char *text, const struct cr_hosts *hosts,
			 double *out)
{
	struct cr_objective obj;
	int ret;

	if (cr_objective_parse(text, "jobs", &obj))
		return -1;
	ret = score_of(f, r, &obj, hosts, out);
	cr_objective_release(&obj);
	return ret;
}

static void base_release(struct base *b)
{
	cr_routing_free(b->r);
	if (b->byp == &b->by)
		cr_byproducts_release(&b->by);
	memset(b, 0, sizeof(*b));
}

/* An engine's refusal of a fabric is no error of the tuning's. */
static void quiet(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

/*
 * Routes candidate name into *b: 0 when its tables may start the pass
 * (complete, no loop, no credit loop, the SLs of start), 1 when not, -1
 * on error (logged).
 */
static int try_base(const struct cr_jobs_start *s, const char *name,
		    struct base *b)
{
	struct cr_options co;
	struct cr_check_report rep;
	int rc;

	memset(b, 0, sizeof(*b));
	b->byp = &b->by;
	if (cr_auto_candidate(name, s->o, &b->e, &co)) {
		cr_err("jobs: '%s' is no candidate", name);
		return -1;
	}
	if (b->e->layered)
		return 1;
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->r = cr_routing_new(s->f);
	if (!b->r)
		return -1;
	cr_log_set_thread(quiet, NULL);
	rc = cr_route_by(b->e, s->f, &co, b->r, &b->by);
	cr_log_set_thread(NULL, NULL);
	if (rc)
		return 1;
	if (cr_check(s->f, b->r, CR_CHECK_CREDIT, NULL, 0, &rep) < 0)
		return -1;
	if (rep.unreachable || rep.loops || rep.credit_loops ||
	    !same_sls(s->f, s->r, b->r))
		return 1;
	return 0;
}

/*
 * best holds the start (s->r); replaces it with any base of list that
 * scores above it. 0, -1 on error, -2 when t's stop said to give up.
 */
static int best_base(const struct cr_jobs_start *s, const char *list,
		     const struct cr_objective *obj,
		     const struct cr_hosts *hosts, const struct cr_stop *stop,
		     struct base *best)
{
	char *copy = strdup(list), *save = NULL, *tok;
	struct base b;
	int ret = -1, rc;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (cr_stop_now(stop)) {
			ret = -2;
			goto out;
		}
		rc = try_base(s, tok, &b);
		if (!rc)
			rc = score_of(s->f, b.r, obj, hosts, &b.score);
		if (rc < 0) {
			base_release(&b);
			goto out;
		}
		if (!rc && b.score > best->score) {
			base_release(best);
			*best = b;
			best->byp = &best->by;
		} else {
			base_release(&b);
		}
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/*
 * The pass from b on obj under b's engine's rule, SLs kept. (Longer
 * paths, or cr-minhop's rule with the credit-loop check on cr-updn's
 * tables, gained nothing on bench/jobs' training mixes.)
 */
static int climb(const struct cr_jobs_start *s, const struct cr_objective *obj,
		 const struct cr_jobs_tune_params *t, double budget,
		 struct base *b, struct cr_opt_stats *st)
{
	struct cr_opt_params op;

	cr_opt_params_init(&op);
	/* the pass counts its budget in CR_OPT_WORK_PER_S units */
	op.budget = budget * (CR_JOBS_WORK_PER_S / CR_OPT_WORK_PER_S);
	op.natural_hosts = true;
	op.keep_sls = true;
	op.stop = t ? t->stop : NULL;
	return cr_optimize(s->f, b->e, obj, &op, b->r, b->byp, st);
}

/* The start, its engine (cr-auto: its winner's) and score. */
static int start_base(const struct cr_jobs_start *s,
		      const struct cr_objective *obj,
		      const struct cr_hosts *hosts, struct base *b)
{
	struct cr_options co;

	memset(b, 0, sizeof(*b));
	b->e = s->e;
	b->byp = s->by;
	snprintf(b->name, sizeof(b->name), "the tables in use");
	if (s->e == &cr_auto_engine &&
	    cr_auto_candidate(s->by->auto_winner, s->o, &b->e, &co)) {
		cr_err("jobs: cr-auto's winner '%s' is no candidate",
		       s->by->auto_winner);
		return -1;
	}
	b->r = cr_routing_copy(s->r);
	if (!b->r)
		return -1;
	return score_of(s->f, b->r, obj, hosts, &b->score);
}

static int tune(const struct cr_jobs_start *s, const struct cr_jobs *jobs,
		const struct cr_jobs_tune_params *t,
		const struct cr_hosts *hosts, struct base *b,
		struct cr_jobs_gain *g)
{
	const char *bases = t && t->bases ? t->bases : CR_JOBS_BASES_DEFAULT;
	struct cr_objective obj, lead;
	struct cr_opt_stats st;
	double from;
	int ret;

	if (cr_objective_parse(t && t->objective ? t->objective
						 : CR_JOBS_OBJECTIVE_DEFAULT,
			       "jobs objective", &obj))
		return -1;
	obj.jobs = jobs;
	if (lead_terms(&obj, &lead)) {
		cr_objective_release(&obj);
		return -1;
	}
	ret = start_base(s, &lead, hosts, b);
	from = b->score;
	if (!ret && *bases && all_sl0(s->f, s->r))
		ret = best_base(s, bases, &lead, hosts, t ? t->stop : NULL, b);
	free(lead.terms);
	if (!ret) {
		cr_note("jobs: the pass starts from %s (%.4f; the tables in"
			" use %.4f)",
			b->name, b->score, from);
		ret = climb(s, &obj, t,
			    t && t->budget > 0 ? t->budget
					       : CR_JOBS_BUDGET_DEFAULT,
			    b, &st);
	}
	cr_objective_release(&obj);
	if (ret)
		return ret;
	g->moves = st.moves;
	return 0;
}

struct cr_jobs_stage {
	struct cr_jobs_start s;
	const struct cr_jobs *jobs;
	char *objective; /* NULL: the default */
	struct base b; /* r: a copy of the first stage's tables */
	struct cr_jobs_gain g; /* the first stage's */
};

void cr_jobs_stage_free(struct cr_jobs_stage *st)
{
	if (!st)
		return;
	base_release(&st->b);
	free(st->objective);
	free(st);
}

/*
 * What the refine stage needs of the first: b's engine and by-products
 * (taken: b->by then belongs to the stage), a copy of its tables.
 */
static int stage_new(const struct cr_jobs_start *s, const struct cr_jobs *jobs,
		     const struct cr_jobs_tune_params *t,
		     const struct cr_jobs_gain *g, struct base *b,
		     struct cr_jobs_stage **out)
{
	struct cr_jobs_stage *st = calloc(1, sizeof(*st));

	if (!st ||
	    (t && t->objective && !(st->objective = strdup(t->objective)))) {
		free(st);
		cr_err("jobs: out of memory");
		return -1;
	}
	st->s = *s;
	st->jobs = jobs;
	st->g = *g;
	st->b = *b;
	st->b.r = cr_routing_copy(b->r);
	if (b->byp == &b->by) {
		st->b.byp = &st->b.by;
		memset(&b->by, 0, sizeof(b->by));
		b->byp = NULL;
	}
	if (!st->b.r) {
		cr_jobs_stage_free(st);
		return -1;
	}
	*out = st;
	return 0;
}

/*
 * The refine stage's search: whole-route swaps first (moves the pass's
 * single entries cannot make, jobs_swap.c), then the pass on what is
 * left of the budget. The swaps' work counts against the same budget.
 */
static int refine_climb(const struct cr_jobs_stage *st,
			const struct cr_objective *obj,
			const struct cr_jobs_tune_params *t, struct base *b,
			struct cr_opt_stats *os)
{
	double work = t->refine * CR_JOBS_WORK_PER_S, left;
	struct jobs_swap_stats ss;
	int ret;

	memset(os, 0, sizeof(*os));
	ret = cr_jobs_swap(st->s.f, b->r, st->jobs, obj,
			   (uint64_t)(work * SWAP_SHARE), t->stop, &ss);
	if (ret)
		return ret;
	left = (work - (double)ss.work) / CR_JOBS_WORK_PER_S;
	if (left > 0)
		ret = climb(&st->s, obj, t, left, b, os);
	os->moves += ss.swaps;
	return ret;
}

int cr_jobs_refine(const struct cr_jobs_stage *st,
		   const struct cr_jobs_tune_params *t, struct cr_routing **out,
		   struct cr_jobs_gain *g)
{
	const struct cr_fabric *f = st->s.f;
	struct cr_hosts *hosts = cr_hosts_default(f);
	struct cr_objective obj;
	struct cr_opt_stats os;
	struct base b = st->b;
	int ret = -1;

	*g = st->g;
	*out = NULL;
	b.r = NULL;
	if (!hosts ||
	    cr_objective_parse(st->objective ? st->objective
					     : CR_JOBS_OBJECTIVE_DEFAULT,
			       "jobs objective", &obj)) {
		cr_hosts_free(hosts);
		return -1;
	}
	obj.jobs = st->jobs;
	b.r = cr_routing_copy(st->b.r);
	if (!b.r)
		goto out;
	cr_note("jobs: refining from the first stage's tables (%u moves)",
		st->g.moves);
	ret = refine_climb(st, &obj, t, &b, &os);
	if (ret)
		goto out;
	ret = -1;
	if (!same_sls(f, st->s.r, b.r)) {
		cr_err("jobs: the refined tables change path SLs");
		goto out;
	}
	if (measure(f, b.r, st->jobs, hosts, &g->jobs_after, &g->shift_after))
		goto out;
	g->moves += os.moves;
	g->churn = cr_routing_churn(f, st->s.r, f, b.r);
	g->gain = g->jobs_before > 0 ? g->jobs_after / g->jobs_before - 1 : 0;
	*out = b.r;
	b.r = NULL;
	ret = 0;
out:
	cr_routing_free(b.r);
	cr_objective_release(&obj);
	cr_hosts_free(hosts);
	return ret;
}

int cr_jobs_tune_first(const struct cr_jobs_start *s,
		       const struct cr_jobs *jobs,
		       const struct cr_jobs_tune_params *t,
		       struct cr_routing **out, struct cr_jobs_gain *g,
		       struct cr_jobs_stage **stage)
{
	struct cr_hosts *hosts = cr_hosts_default(s->f);
	struct base b = {0};
	int ret = -1;

	memset(g, 0, sizeof(*g));
	*out = NULL;
	if (stage)
		*stage = NULL;
	if (!hosts)
		goto out;
	/* no pair, no jobs' traffic to score: the jobs term stays 0 */
	if (!has_pair(jobs)) {
		cr_note("jobs: no job has two hosts: the tables stay");
		b.r = cr_routing_copy(s->r);
		if (!b.r || score_of_text(s->f, s->r, "shift:avg", hosts,
					  &g->shift_before))
			goto out;
		g->shift_after = g->shift_before;
		goto done;
	}
	if (measure(s->f, s->r, jobs, hosts, &g->jobs_before, &g->shift_before))
		goto out;
	g->jobs_after = g->jobs_before;
	g->shift_after = g->shift_before;
	ret = tune(s, jobs, t, hosts, &b, g);
	if (ret)
		goto out;
	ret = -1;
	if (!same_sls(s->f, s->r, b.r)) {
		/* the pass keeps SLs and bases with others are refused */
		cr_err("jobs: the tuned tables change path SLs");
		goto out;
	}
	if (measure(s->f, b.r, jobs, hosts, &g->jobs_after, &g->shift_after))
		goto out;
	if (stage && stage_new(s, jobs, t, g, &b, stage))
		goto out;
done:
	g->churn = cr_routing_churn(s->f, s->r, s->f, b.r);
	g->gain = g->jobs_before > 0 ? g->jobs_after / g->jobs_before - 1 : 0;
	*out = b.r;
	b.r = NULL;
	ret = 0;
out:
	base_release(&b);
	cr_hosts_free(hosts);
	return ret;
}

int cr_jobs_tune(const struct cr_jobs_start *s, const struct cr_jobs *jobs,
		 const struct cr_jobs_tune_params *t, struct cr_routing **out,
		 struct cr_jobs_gain *g)
{
	struct cr_jobs_stage *st = NULL;
	struct cr_routing *first = NULL;
	int ret;

	if (!t || t->refine <= 0)
		return cr_jobs_tune_first(s, jobs, t, out, g, NULL);
	ret = cr_jobs_tune_first(s, jobs, t, &first, g, &st);
	if (!ret && st) {
		ret = cr_jobs_refine(st, t, out, g);
		cr_routing_free(first);
	} else if (!ret) {
		*out = first;
	}
	cr_jobs_stage_free(st);
	return ret;
}
