// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute bound (include/croute/bound/bound.h): per phase of a pattern, builds
 * the phase's model (model.c) and hands it to the formulation asked for:
 * the splittable LPs by column generation over paths (colgen.c) or in
 * edge form (edge_lp.c, for cross-checks and --write-lp), or the
 * unsplittable MIP (mip.c); then, for --one-routing, the one LP over all
 * phases (joint.c). A pattern's avg bound is the flow-weighted mean of
 * its phases', its min bound the smallest phase's. The cost is the
 * solvers': see those files and croute(1). Each statistic is its own LP
 * a phase, so one not asked for (o->stats) is not solved: the ceiling of
 * a score that is an average needs only the avg LPs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/clock.h>
#include <croute/model/log.h>

#include "bound_int.h"

unsigned cr_bound_stats(const struct cr_bound_opts *o)
{
	return o && o->stats ? o->stats : CR_BOUND_STAT_AVG | CR_BOUND_STAT_MIN;
}

void cr_bound_opts_init(struct cr_bound_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_extra_hops = 2;
	o->mip_seconds = 60;
}

static int model_build(struct model *m, const struct cr_est *e,
		       const struct cr_flow *flows,
		       const struct cr_bound_opts *o)
{
	m->minimal = o && o->minimal;
	if (cr_bound_model_edges(m, e) || cr_bound_hops(m) ||
	    cr_bound_model_flows(m, e, flows)) {
		cr_err("out of memory building the bound's LP");
		return -1;
	}
	return 0;
}

int cr_bound_phase(const struct cr_fabric *f, const struct cr_est *e,
		   const struct cr_flow *flows, size_t n, unsigned flags,
		   const struct cr_bound_opts *o, struct cr_bound_phase *out)
{
	const char *lp_path = o ? o->lp_path : NULL;
	struct model m = {.f = f, .ns = f->num_switches, .n = n};
	unsigned stats = cr_bound_stats(o);
	bool want_avg = stats & CR_BOUND_STAT_AVG;
	bool want_min = stats & CR_BOUND_STAT_MIN;
	double t0 = cr_now();
	double avg = NAN, lambda = NAN;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->flows = (uint32_t)n;
	if (!n) {
		out->avg_frac = want_avg ? 0 : NAN;
		out->min_frac = want_min ? 0 : NAN;
		return 0;
	}
	glp_term_out(GLP_OFF);
	if (model_build(&m, e, flows, o))
		goto out;
	/* the edge LP, written and not solved: for cross-checks (glpsol) */
	if (lp_path && cr_bound_edge_lp(&m, false, lp_path, NULL, NULL, NULL))
		goto out;
	if (o && o->unsplittable && want_avg) {
		/* the min bound stays the splittable one over the paths */
		ret = cr_bound_mip(&m, o, out);
		if (ret)
			goto out;
		ret = -1;
		avg = out->avg_frac * (double)n;
	} else if (want_avg && (flags & CR_BOUND_EDGE_LP)) {
		if (cr_bound_edge_lp(&m, false, NULL, &avg, &out->rows,
				     &out->cols))
			goto out;
	} else if (want_avg && cr_bound_colgen(&m, false, &avg, &out->rows,
					       &out->cols, &out->rounds)) {
		goto out;
	}
	/* the concurrent-flow LP only where its figure is asked for */
	if (want_min && (flags & CR_BOUND_EDGE_LP) && !(o && o->unsplittable)) {
		if (cr_bound_edge_lp(&m, true, NULL, &lambda, NULL, NULL))
			goto out;
	} else if (want_min &&
		   cr_bound_colgen(&m, true, &lambda, NULL, NULL, NULL)) {
		goto out;
	}
	out->avg_frac = avg / (double)n;
	out->min_frac = lambda;
	if (!(o && o->unsplittable)) {
		out->incumbent_frac = out->avg_frac;
		out->proved = true;
	}
	/* a flow that cannot arrive gets 0 whatever the routing */
	for (size_t i = 0; want_min && i < n; i++)
		if (m.inject[i] <= 0)
			out->min_frac = 0;
	ret = 0;
out:
	out->seconds = cr_now() - t0;
	cr_bound_model_free(&m);
	return ret;
}

int cr_bound_mip_check(const struct cr_fabric *f, const struct cr_est *e,
		       const struct cr_pattern *p, const struct cr_hosts *hosts,
		       const struct cr_bound_opts *o)
{
	struct model m = {.f = f, .ns = f->num_switches};
	struct cr_phases *ph = cr_phases_start(f, p, hosts);
	struct cr_flow *flows = NULL;
	uint32_t *count = NULL; /* per switch pair, UINT32_MAX: not known */
	uint64_t grand = 0;
	size_t npairs = (size_t)m.ns * m.ns;
	int ret = -1;

	if (!ph)
		return -1;
	m.minimal = o->minimal;
	flows = malloc((cr_phases_max_flows(ph) + 1) * sizeof(*flows));
	count = malloc((npairs + 1) * sizeof(*count));
	if (!flows || !count || cr_bound_model_edges(&m, e) ||
	    cr_bound_hops(&m)) {
		cr_err("out of memory");
		goto out;
	}
	memset(count, 0xff, npairs * sizeof(*count));
	for (uint32_t ix = 0; ix < cr_phases_count(ph); ix++) {
		uint32_t label;
		uint64_t total = 0;

		m.n = cr_phases_get(ph, ix, flows, &label);
		if (cr_bound_model_flows(&m, e, flows)) {
			cr_err("out of memory");
			goto out;
		}
		for (size_t i = 0; i < m.n; i++) {
			uint32_t s = m.src_sw[i], d = m.dst_sw[i];
			size_t k = (size_t)s * m.ns + d;
			struct pathset ps;
			int st;

			if (m.inject[i] <= 0 || s == d)
				continue;
			if (count[k] == UINT32_MAX) {
				st = cr_bound_paths(&m, s, d, o->max_extra_hops,
						    CR_BOUND_MIP_MAX_PATHS,
						    &ps);
				count[k] = ps.count;
				cr_bound_pathset_free(&ps);
				if (st == -1) {
					cr_err("out of memory");
					goto out;
				}
			}
			if (count[k] > CR_BOUND_MIP_MAX_PATHS) {
				cr_err("%s: more than %u candidate"
				       " paths between two switches (%s); it "
				       "is for small fabrics",
				       o->unsplittable ? "--unsplittable"
						       : "--one-routing",
				       CR_BOUND_MIP_MAX_PATHS,
				       m.minimal ? "minimal paths"
						 : "lower --max-extra-hops?");
				goto out;
			}
			total += count[k];
		}
		cr_bound_model_free_flows(&m);
		grand += total;
		if (o->one_routing && grand > CR_BOUND_JOINT_MAX_COLS) {
			cr_err("--one-routing: more than %u candidate (flow, "
			       "path) pairs over the phases; use --phases",
			       CR_BOUND_JOINT_MAX_COLS);
			goto out;
		}
		if (o->unsplittable && total > CR_BOUND_MIP_MAX_COLS) {
			cr_err("--unsplittable: phase %u has %llu candidate "
			       "paths (limit %u); the MIP is for small fabrics",
			       label, (unsigned long long)total,
			       CR_BOUND_MIP_MAX_COLS);
			goto out;
		}
	}
	ret = 0;
out:
	cr_bound_model_free(&m);
	free(count);
	free(flows);
	cr_phases_stop(ph);
	return ret;
}

void cr_bound_result_free(struct cr_bound_result *b)
{
	if (!b)
		return;
	free(b->phase);
	free(b);
}

struct cr_bound_result *cr_bound_run(const struct cr_fabric *f,
				     const struct cr_est *e,
				     const struct cr_pattern *p,
				     const struct cr_hosts *hosts,
				     const struct cr_bound_opts *o)
{
	struct cr_bound_result *b = calloc(1, sizeof(*b));
	struct cr_phases *ph = NULL;
	struct cr_flow *flows = NULL;
	double t0 = cr_now();
	double sum = 0, inc = 0;
	struct cr_bound_opts po;
	const struct cr_bound_opts *phase_o = o;

	if (!b)
		goto oom;
	ph = cr_phases_start(f, p, hosts);
	if (!ph)
		goto fail;
	b->num_phases = cr_phases_count(ph);
	b->phases_total = cr_phases_total(ph);
	b->hosts = hosts ? hosts->count : 0;
	b->min_frac = INFINITY;
	if (p->kind == CR_PAT_FLOWS)
		snprintf(b->name, sizeof(b->name), "flows");
	else if (b->num_phases < b->phases_total || p->kind == CR_PAT_BISECT)
		snprintf(b->name, sizeof(b->name), "%s:%u",
			 cr_pattern_kind_name(p->kind), b->num_phases);
	else
		snprintf(b->name, sizeof(b->name), "%s",
			 cr_pattern_kind_name(p->kind));
	if (o) {
		/* lp_path is one phase's LP, not each phase's in turn */
		po = *o;
		po.lp_path = NULL;
		phase_o = &po;
	}
	if (o && o->one_routing) {
		/* the phases' own bounds (split), then the one LP */
		po.one_routing = po.unsplittable = false;
	}
	b->phase = calloc(b->num_phases + 1, sizeof(*b->phase));
	flows = malloc((cr_phases_max_flows(ph) + 1) * sizeof(*flows));
	if (!b->phase || !flows)
		goto oom;
	for (uint32_t i = 0; i < b->num_phases; i++) {
		uint32_t label;
		size_t n = cr_phases_get(ph, i, flows, &label);

		if (cr_bound_phase(f, e, flows, n, 0, phase_o, &b->phase[i]))
			goto fail;
		b->phase[i].label = label;
		b->flows += n;
		sum += b->phase[i].avg_frac * (double)n;
		inc += b->phase[i].incumbent_frac * (double)n;
		b->unproved += !b->phase[i].proved;
		cr_verbose("bound: %s phase %u (%u of %u): avg %.4f%s, %.2f s",
			   b->name, label, i + 1, b->num_phases,
			   b->phase[i].avg_frac,
			   b->phase[i].proved ? "" : " (not proved)",
			   b->phase[i].seconds);
		if (b->phase[i].min_frac < b->min_frac)
			b->min_frac = b->phase[i].min_frac;
		if (o && o->on_phase)
			o->on_phase(o->on_phase_arg, i + 1, b->num_phases);
	}
	b->avg_frac = b->flows ? sum / (double)b->flows : 0;
	b->phase_avg_frac = b->avg_frac;
	if (o && o->one_routing && cr_bound_joint(f, e, p, hosts, o, b))
		goto fail;
	b->incumbent_frac = b->flows ? inc / (double)b->flows : 0;
	if (!b->num_phases)
		b->min_frac = 0;
	/* a statistic not asked for is NAN, in the pattern as per phase */
	if (!(cr_bound_stats(o) & CR_BOUND_STAT_MIN))
		b->min_frac = NAN;
	b->seconds = cr_now() - t0;
	goto out;
oom:
	cr_err("out of memory bounding pattern %s",
	       cr_pattern_kind_name(p->kind));
fail:
	cr_bound_result_free(b);
	b = NULL;
out:
	cr_phases_stop(ph);
	free(flows);
	return b;
}
