// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Objectives: which pattern's statistic a routing is judged by, for
 * cr-auto's choice and the optimizer's moves. Scoring runs the same
 * estimator as the report, so that what cr-auto maximizes is what the
 * administrator reads in croute-contention.dump.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/tune/auto.h>
#include <croute/model/buf.h>
#include <croute/io/est_conf.h>
#include <croute/io/jobs.h>
#include <croute/model/log.h>
#include <croute/estimate/host_order.h>

void cr_objective_release(struct cr_objective *obj)
{
	for (unsigned i = 0; i < obj->num_terms; i++)
		cr_pattern_release(&obj->terms[i].pat);
	free(obj->terms);
	obj->terms = NULL;
	obj->num_terms = 0;
}

/* A trailing "@K[:worst]": the term's random host orders. */
static int parse_orders(char *tok, const char *what,
			struct cr_objective_term *t)
{
	size_t len = strlen(tok);
	char *at, *end;
	unsigned long k;

	if (len > 6 && !strcmp(tok + len - 6, ":worst")) {
		t->worst = true;
		tok[len - 6] = '\0';
	}
	at = strrchr(tok, '@');
	if (!at) {
		if (!t->worst)
			return 0;
		cr_err("%s: '%s': :worst goes after @K", what, tok);
		return -1;
	}
	k = strtoul(at + 1, &end, 10);
	if (end == at + 1 || *end || !k || k > CR_OBJECTIVE_MAX_ORDERS) {
		cr_err("%s: '%s': the orders are @K with K from 1 to %d", what,
		       tok, CR_OBJECTIVE_MAX_ORDERS);
		return -1;
	}
	t->orders = (uint32_t)k;
	*at = '\0';
	return 0;
}

/* A trailing "*W": the term's weight in the first weighted term. */
static int parse_weight(char *tok, const char *what,
			struct cr_objective_term *t)
{
	char *star = strrchr(tok, '*'), *end;
	double w;

	if (!star)
		return 0;
	w = strtod(star + 1, &end);
	if (end == star + 1 || *end || !(w > 0) || w > 1000) {
		cr_err("%s: '%s': the weight is *W with W above 0, at most"
		       " 1000",
		       what, tok);
		return -1;
	}
	t->weight = w;
	*star = '\0';
	return 0;
}

/*
 * One "PATTERN[:STAT][@K[:worst]][*W][~N%]" term; the statistic is the
 * last ':' field before the orders.
 */
static int parse_term(char *tok, const char *what, struct cr_objective_term *t)
{
	char *colon, *tilde = strrchr(tok, '~');

	t->stat = CR_STAT_AVG;
	t->tol = 0;
	if (tilde) {
		char *end;
		double pct = strtod(tilde + 1, &end);

		if (end == tilde + 1 || strcmp(end, "%") || !(pct >= 0) ||
		    pct > 50) {
			cr_err("%s: '%s': the tolerance is ~N%% with N from 0"
			       " to 50",
			       what, tok);
			return -1;
		}
		t->tol = pct / 100;
		*tilde = '\0';
	}
	if (parse_weight(tok, what, t) || parse_orders(tok, what, t))
		return -1;
	colon = strrchr(tok, ':');
	if (colon && (!strcmp(colon + 1, "avg") || !strcmp(colon + 1, "min"))) {
		t->stat = !strcmp(colon + 1, "min") ? CR_STAT_MIN : CR_STAT_AVG;
		*colon = '\0';
	}
	if (cr_pattern_parse(tok, &t->pat) < 0) {
		cr_err("%s: '%s' is not PATTERN:avg or PATTERN:min", what, tok);
		return -1;
	}
	if (t->orders && t->pat.kind == CR_PAT_FLOWS) {
		cr_err("%s: '%s': a flows file has no host order to vary", what,
		       tok);
		/* the caller releases only the terms it counted */
		cr_pattern_release(&t->pat);
		return -1;
	}
	return 0;
}

int cr_objective_parse(const char *spec, const char *what,
		       struct cr_objective *obj)
{
	char *copy = strdup(spec ? spec : CR_OBJECTIVE_DEFAULT);
	char *save = NULL, *tok;
	struct cr_objective out = {0};
	size_t cap = 0;

	out.order_seed = 1;

	if (!copy)
		goto oom;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		if (!*tok)
			continue;
		if (cr_grow(&out.terms, &cap, out.num_terms + 1,
			    sizeof(*out.terms)))
			goto oom;
		memset(&out.terms[out.num_terms], 0, sizeof(*out.terms));
		if (parse_term(tok, what, &out.terms[out.num_terms]) < 0)
			goto fail;
		out.num_terms++;
	}
	if (!out.num_terms) {
		cr_err("%s: no pattern given", what);
		goto fail;
	}
	free(copy);
	*obj = out;
	return 0;
oom:
	cr_err("%s: out of memory", what);
fail:
	free(copy);
	cr_objective_release(&out);
	return -1;
}

void cr_objective_pattern(const struct cr_objective *obj, unsigned i,
			  const struct cr_hosts *hosts, struct cr_pattern *p)
{
	*p = obj->terms[i].pat;
	if (p->kind == CR_PAT_JOBS) {
		p->jobs = obj->jobs;
		return;
	}
	/*
	 * N - 1 shifts of N hosts cost N^2 flows: sample, as the report
	 * does, or within max_flows. The sample depends on the host count
	 * only, so every candidate gets the same.
	 */
	if (p->kind == CR_PAT_SHIFT && !p->count && hosts && hosts->count > 1) {
		uint64_t n = hosts->count;

		if (obj->shift_phases && obj->shift_phases < n - 1) {
			p->count = obj->shift_phases;
		} else if (obj->shift_phases) {
			/* All phases: p->count stays 0. */
		} else if (obj->max_flows && n * (n - 1) > obj->max_flows) {
			p->count = (uint32_t)(obj->max_flows / n);
			if (p->count < 16)
				p->count = 16;
		} else if (!obj->max_flows) {
			p->count = cr_est_sample_phases((uint32_t)n);
		}
	}
	/* all-to-all at once: n(n - 1) flows, sampled to max_flows */
	if (p->kind == CR_PAT_ALLTOALL && !p->count && hosts &&
	    hosts->count > 1 && obj->max_flows &&
	    (uint64_t)hosts->count * (hosts->count - 1) > obj->max_flows)
		p->count = (uint32_t)(obj->max_flows / hosts->count);
}

/*
 * Held-out samples come from the training seeds plus this: odd and far
 * from any multiple of splitmix64's increment, so that their streams do
 * not run into the training ones.
 */
#define HELDOUT_SALT 0x5851f42d4c957f2dULL

/* Folds an "@K" term's random orders into *score, its own order's. */
static int term_orders(struct cr_est *est, const struct cr_objective *obj,
		       unsigned i, const struct cr_pattern *p,
		       const struct cr_hosts *hosts, enum cr_score_set set,
		       double *score)
{
	const struct cr_objective_term *t = &obj->terms[i];
	uint64_t seed = obj->order_seed ? obj->order_seed : 1;
	struct cr_est_orders o;
	bool min = t->stat == CR_STAT_MIN;
	double mean, worst;

	if (set == CR_SCORE_HELDOUT)
		seed += HELDOUT_SALT;
	if (cr_est_run_orders(est, p, cr_objective_term_hosts(obj, i, hosts),
			      t->orders, seed, &o))
		return -1;
	if (!o.count)
		return 0;
	mean = min ? o.mean_min : o.mean_avg;
	worst = min ? o.worst_min : o.worst_avg;
	/* held out: the random orders alone, the own one being trained on */
	if (set == CR_SCORE_HELDOUT)
		*score = t->worst ? worst : mean;
	else if (t->worst)
		*score = worst < *score ? worst : *score;
	else
		*score = (*score + mean * o.count) / (o.count + 1);
	return 0;
}

int cr_objective_score_set(const struct cr_fabric *f,
			   const struct cr_routing *r,
			   const struct cr_objective *obj,
			   const struct cr_hosts *hosts, enum cr_score_set set,
			   double *score)
{
	struct cr_est_params par;
	struct cr_est *est;
	int ret = -1;

	cr_est_params_init(&par);
	par.paths = obj->paths;
	par.lanes = obj->lanes;
	est = cr_est_new(f, r, &par);
	if (!est)
		return -1;
	for (unsigned i = 0; i < obj->num_terms; i++) {
		struct cr_pattern p;
		struct cr_est_result *res;

		cr_objective_pattern(obj, i, hosts, &p);
		if (set == CR_SCORE_HELDOUT)
			p.seed += HELDOUT_SALT;
		res = cr_est_run(est, &p,
				 cr_objective_term_hosts(obj, i, hosts));
		if (!res)
			goto out;
		score[i] = obj->terms[i].stat == CR_STAT_MIN ? res->min_frac
							     : res->avg_frac;
		cr_est_result_free(res);
		if (set != CR_SCORE_OWN && obj->terms[i].orders &&
		    term_orders(est, obj, i, &p, hosts, set, &score[i]))
			goto out;
	}
	cr_objective_blend(obj, score);
	ret = 0;
out:
	cr_est_free(est);
	return ret;
}

const struct cr_hosts *cr_objective_term_hosts(const struct cr_objective *obj,
					       unsigned i,
					       const struct cr_hosts *hosts)
{
	if (obj->terms[i].pat.kind == CR_PAT_JOBS && obj->jobs)
		return &obj->jobs->hosts;
	return hosts;
}

void cr_objective_blend(const struct cr_objective *obj, double *score)
{
	unsigned first = obj->num_terms;
	double sum = 0, wsum = 0;

	for (unsigned i = 0; i < obj->num_terms; i++) {
		if (!(obj->terms[i].weight > 0))
			continue;
		if (first == obj->num_terms)
			first = i;
		sum += obj->terms[i].weight * score[i];
		wsum += obj->terms[i].weight;
	}
	if (first < obj->num_terms)
		score[first] = sum / wsum;
}

int cr_objective_score(const struct cr_fabric *f, const struct cr_routing *r,
		       const struct cr_objective *obj,
		       const struct cr_hosts *hosts, double *score)
{
	return cr_objective_score_set(f, r, obj, hosts, CR_SCORE_TRAIN, score);
}

struct cr_hosts *cr_objective_hosts(const struct cr_fabric *f,
				    const struct cr_objective *obj)
{
	struct cr_hosts *h, *rail;

	if (obj->hosts_file)
		return cr_hosts_read(f, obj->hosts_file);
	h = cr_hosts_default(f);
	if (!h || !obj->rail_order)
		return h;
	rail = cr_hosts_rail(f, h);
	cr_hosts_free(h);
	return rail;
}

bool cr_objective_has_orders(const struct cr_objective *obj)
{
	for (unsigned i = 0; i < obj->num_terms; i++)
		if (obj->terms[i].orders)
			return true;
	return false;
}

bool cr_objective_holds_out(const struct cr_objective *obj,
			    const struct cr_hosts *hosts)
{
	for (unsigned i = 0; i < obj->num_terms; i++) {
		struct cr_pattern p;

		cr_objective_pattern(obj, i, hosts, &p);
		if (obj->terms[i].orders || p.kind == CR_PAT_BISECT ||
		    (p.kind == CR_PAT_ALLTOALL && p.count && hosts &&
		     p.count < hosts->count - 1) ||
		    (p.kind == CR_PAT_SHIFT && p.count && hosts &&
		     p.count < hosts->count - 1))
			return true;
	}
	return false;
}

/* Closer than this is a tie: sums of many flows round differently. */
#define SCORE_EPS 1e-9

int cr_objective_cmp_tol(const struct cr_objective *obj, const double *a,
			 const double *b)
{
	for (unsigned i = 0; i < obj->num_terms; i++) {
		double big = a[i] > b[i] ? a[i] : b[i];
		double eps = obj->terms[i].tol * big + SCORE_EPS;

		if (a[i] > b[i] + eps)
			return 1;
		if (a[i] < b[i] - eps)
			return -1;
	}
	return 0;
}

int cr_objective_cmp(const double *a, const double *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (a[i] > b[i] + SCORE_EPS)
			return 1;
		if (a[i] < b[i] - SCORE_EPS)
			return -1;
	}
	return 0;
}
