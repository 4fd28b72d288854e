// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Routing tuned for the running jobs (include/croute/tune/jobs_tune.h):
 * the improvement pass on the jobs objective, from the tables in use, so
 * that a change moves only the entries the jobs gain by. Running queue
 * pairs keep their path SLs, so tables whose SLs moved are dropped.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/model/node_match.h>
#include <croute/tune/jobs_tune.h>

static bool has_pair(const struct cr_jobs *jobs)
{
	for (uint32_t k = 0; k < jobs->num_jobs; k++)
		if (jobs->job[k].count > 1)
			return true;
	return false;
}

static bool same_sls(const struct cr_fabric *f, const struct cr_routing *a,
		     const struct cr_routing *b)
{
	if (!a->sl || !b->sl)
		return !a->sl && !b->sl;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		if (memcmp(a->sl[n], b->sl[n], (size_t)a->max_lid + 1))
			return false;
	}
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

int cr_jobs_tune(const struct cr_jobs_start *s, const struct cr_jobs *jobs,
		 const struct cr_jobs_tune_params *t, struct cr_routing **out,
		 struct cr_jobs_gain *g)
{
	const struct cr_engine *e = s->e;
	struct cr_options co;
	struct cr_objective obj;
	struct cr_opt_params op;
	struct cr_opt_stats st;
	struct cr_hosts *hosts = cr_hosts_default(s->f);
	struct cr_routing *r = cr_routing_copy(s->r);
	int ret = -1;

	memset(g, 0, sizeof(*g));
	*out = NULL;
	if (!hosts || !r)
		goto out;
	if (e == &cr_auto_engine &&
	    cr_auto_candidate(s->by->auto_winner, s->o, &e, &co)) {
		cr_err("jobs: cr-auto's winner '%s' is no candidate",
		       s->by->auto_winner);
		goto out;
	}
	if (measure(s->f, s->r, jobs, hosts, &g->jobs_before, &g->shift_before))
		goto out;
	g->jobs_after = g->jobs_before;
	g->shift_after = g->shift_before;
	if (!has_pair(jobs)) {
		cr_note("jobs: no job has two hosts: the tables stay");
		ret = 0;
		goto done;
	}
	if (cr_objective_parse(t && t->objective ? t->objective
						 : CR_JOBS_OBJECTIVE_DEFAULT,
			       "jobs objective", &obj))
		goto out;
	obj.jobs = jobs;
	cr_opt_params_init(&op);
	op.budget = t && t->budget > 0 ? t->budget : CR_JOBS_BUDGET_DEFAULT;
	op.natural_hosts = true;
	op.stop = t ? t->stop : NULL;
	ret = cr_optimize(s->f, e, &obj, &op, r, s->by, &st);
	cr_objective_release(&obj);
	if (ret)
		goto out;
	if (!same_sls(s->f, s->r, r)) {
		cr_note("jobs: the tuned tables change path SLs: dropped");
		cr_routing_free(r);
		r = cr_routing_copy(s->r);
		if (!r)
			goto out;
		goto done;
	}
	g->moves = st.moves;
	if (measure(s->f, r, jobs, hosts, &g->jobs_after, &g->shift_after)) {
		ret = -1;
		goto out;
	}
done:
	g->churn = cr_routing_churn(s->f, s->r, s->f, r);
	g->gain = g->jobs_before > 0 ? g->jobs_after / g->jobs_before - 1 : 0;
	*out = r;
	r = NULL;
	ret = 0;
out:
	cr_routing_free(r);
	cr_hosts_free(hosts);
	return ret;
}
