// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A pattern's estimate: every phase through cr_est_phase(), folded into
 * the figures a report needs (per phase and overall rates, link loads,
 * the hottest links, flows without path, shift's sender x receiver
 * matrix) without keeping any phase's flows once it is counted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/model/buf.h>
#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include "est_int.h"
#include "phases.h"

struct run_acc {
	struct cr_est_result *res;
	uint32_t *lstamp; /* link counted in this phase when == phase */
	uint32_t *lcnt;
	uint32_t *mat_cnt;
	double sum_frac, sum_gbps;
};

void cr_est_result_free(struct cr_est_result *res)
{
	if (!res)
		return;
	free(res->phase);
	free(res->link_max_flows);
	free(res->link_total_flows);
	free(res->matrix);
	free(res);
}

static void result_name(struct cr_est_result *res, const struct cr_pattern *p,
			const struct cr_pattern_run *pr)
{
	const char *kind = cr_pattern_kind_name(p->kind);

	if (p->kind == CR_PAT_FLOWS) {
		const char *slash = strrchr(p->path, '/');

		snprintf(res->name, sizeof(res->name), "flows:%s",
			 slash ? slash + 1 : p->path);
	} else if (p->kind == CR_PAT_SHIFT && pr->num_phases < pr->phases_total)
		snprintf(res->name, sizeof(res->name), "shift:%u",
			 pr->num_phases);
	else if (p->kind == CR_PAT_BISECT)
		snprintf(res->name, sizeof(res->name), "bisect:%u",
			 pr->num_phases);
	else if (p->kind == CR_PAT_FANIN)
		snprintf(res->name, sizeof(res->name), "fanin:%u", pr->fan);
	else
		snprintf(res->name, sizeof(res->name), "%s", kind);
}

static int result_alloc(struct cr_est *e, struct cr_est_result *res,
			const struct cr_pattern_run *pr, struct run_acc *acc)
{
	size_t cells;

	res->phase = calloc(pr->num_phases, sizeof(*res->phase));
	res->num_links = e->num_links;
	res->link_max_flows = calloc(e->num_links + 1, sizeof(uint32_t));
	res->link_total_flows = calloc(e->num_links + 1, sizeof(uint64_t));
	acc->lstamp = calloc(e->num_links + 1, sizeof(uint32_t));
	acc->lcnt = calloc(e->num_links + 1, sizeof(uint32_t));
	if (!res->phase || !res->link_max_flows || !res->link_total_flows ||
	    !acc->lstamp || !acc->lcnt)
		return -1;
	if (pr->p->kind != CR_PAT_SHIFT)
		return 0;
	res->mat_block = (pr->n + e->par.matrix_max - 1) / e->par.matrix_max;
	res->mat_dim = (pr->n + res->mat_block - 1) / res->mat_block;
	cells = (size_t)res->mat_dim * res->mat_dim;
	res->matrix = calloc(cells, sizeof(*res->matrix));
	acc->mat_cnt = calloc(cells, sizeof(*acc->mat_cnt));
	return res->matrix && acc->mat_cnt ? 0 : -1;
}

/*
 * One estimated phase: its flows, and what cr_est_phase() left for them
 * (detail, and the path of flow i in path[start[i]..start[i + 1]]).
 */
struct phase_view {
	const struct cr_flow *flows;
	size_t n;
	uint32_t label;
	const struct cr_flow_est *fe;
	const uint32_t *start, *path;
};

/*
 * Folds one phase's flows into the pattern's figures. Phases are folded
 * one by one in phase order, whatever thread estimated them: the sums
 * (in floating point) come out the same for any thread count.
 */
static void accumulate(struct cr_est *e, struct run_acc *acc,
		       const struct cr_pattern_run *pr, uint32_t ph,
		       const struct phase_view *v)
{
	const struct cr_flow *flows = v->flows;
	size_t n = v->n;
	uint32_t label = v->label;
	struct cr_est_result *res = acc->res;
	struct cr_est_phase_stat *st = &res->phase[ph];
	double sf = 0, sg = 0;

	st->label = label;
	st->flows = (uint32_t)n;
	st->min_frac = st->min_gbps = n ? INFINITY : 0;
	for (size_t i = 0; i < n; i++) {
		const struct cr_flow_est *fe = &v->fe[i];
		double frac = fe->inject > 0 ? fe->rate / fe->inject : 0;
		double gbps = fe->rate / 1000;

		sf += frac;
		sg += gbps;
		if (frac < st->min_frac)
			st->min_frac = frac;
		if (gbps < st->min_gbps)
			st->min_gbps = gbps;
		if (fe->status != CR_FLOW_OK) {
			struct cr_est_unrouted *u;

			st->unrouted++;
			if (res->num_unrouted_kept < CR_EST_UNROUTED_KEPT) {
				u = &res->unrouted_kept[res->num_unrouted_kept];
				res->num_unrouted_kept++;
				u->flow = flows[i];
				u->phase = label;
				u->stop_node = fe->stop_node;
				u->stop_port = fe->stop_port;
				u->status = fe->status;
			}
		}
		for (uint32_t k = v->start[i]; k < v->start[i + 1]; k++) {
			uint32_t l = v->path[k];

			if (acc->lstamp[l] != ph + 1) {
				acc->lstamp[l] = ph + 1;
				acc->lcnt[l] = 0;
			}
			if (++acc->lcnt[l] > res->link_max_flows[l])
				res->link_max_flows[l] = acc->lcnt[l];
			res->link_total_flows[l]++;
		}
		if (res->matrix) {
			/* shift flows come in host order: j -> j + k */
			uint32_t b = res->mat_block;
			size_t c = (size_t)(i / b) * res->mat_dim +
				   ((i + label) % pr->n) / b;

			res->matrix[c] += (float)frac;
			acc->mat_cnt[c]++;
		}
	}
	st->avg_frac = n ? sf / n : 0;
	st->avg_gbps = n ? sg / n : 0;
	acc->sum_frac += sf;
	acc->sum_gbps += sg;
	res->flows += n;
	res->unrouted += st->unrouted;
	if (st->min_frac < res->min_frac)
		res->min_frac = st->min_frac;
	if (st->min_gbps < res->min_gbps)
		res->min_gbps = st->min_gbps;
}

static bool hotter(const struct cr_est_result *res, uint32_t a, uint32_t b)
{
	if (res->link_max_flows[a] != res->link_max_flows[b])
		return res->link_max_flows[a] > res->link_max_flows[b];
	if (res->link_total_flows[a] != res->link_total_flows[b])
		return res->link_total_flows[a] > res->link_total_flows[b];
	return a < b;
}

static void find_hot(struct cr_est *e, struct cr_est_result *res)
{
	uint32_t top[CR_EST_HOT];
	unsigned n = 0;

	for (uint32_t l = 0; l < e->num_links; l++) {
		unsigned i;

		if (!res->link_total_flows[l])
			continue;
		if (n == CR_EST_HOT && !hotter(res, l, top[n - 1]))
			continue;
		i = n < CR_EST_HOT ? n++ : n - 1;
		while (i && hotter(res, l, top[i - 1])) {
			top[i] = top[i - 1];
			i--;
		}
		top[i] = l;
	}
	/* link number -> (node, port): base[] is sorted */
	for (unsigned i = 0; i < n; i++) {
		uint32_t lo = 0, hi = e->f->num_nodes;

		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (e->base[mid] <= top[i])
				lo = mid;
			else
				hi = mid;
		}
		res->hot[i].node = lo;
		res->hot[i].port = (uint8_t)(top[i] - e->base[lo]);
		res->hot[i].max_flows = res->link_max_flows[top[i]];
		res->hot[i].total_flows = res->link_total_flows[top[i]];
		res->hot[i].capacity = e->cap[top[i]];
	}
	res->num_hot = n;
}

/*
 * Phases in parallel. Each thread has an estimator of its own (the
 * per-node and per-link scratch of cr_est_phase()); the caller's thread
 * makes the flows of a round of phases (patterns keep scratch of their
 * own), the threads estimate contiguous runs of them, each phase's result
 * is copied into its slot, and the slots are folded in phase order. Every
 * phase's figures depend only on its flows, so the result is identical
 * for any thread count.
 */
#define SLOTS_PER_THREAD 4
/* Flows the slots may hold in all (about 70 bytes each), else 1 thread. */
#define POOL_MAX_FLOWS (4u << 20)

struct slot {
	struct cr_flow *flows;
	size_t n;
	uint32_t label;
	struct cr_flow_est *fe;
	uint32_t *start;
	uint32_t *path;
	size_t path_alloc;
};

struct pool {
	unsigned nparts, nslots;
	struct cr_est **est; /* per part; est[0] is the caller's */
	struct slot *slot;
	int failed;
};

static void pool_free(struct pool *pl)
{
	for (unsigned i = 1; pl->est && i < pl->nparts; i++)
		cr_est_free(pl->est[i]);
	for (unsigned i = 0; pl->slot && i < pl->nslots; i++) {
		free(pl->slot[i].flows);
		free(pl->slot[i].fe);
		free(pl->slot[i].start);
		free(pl->slot[i].path);
	}
	free(pl->est);
	free(pl->slot);
}

static int pool_init(struct pool *pl, struct cr_est *e, unsigned nparts,
		     size_t max_flows)
{
	memset(pl, 0, sizeof(*pl));
	pl->nparts = nparts;
	pl->nslots = nparts * SLOTS_PER_THREAD;
	pl->est = calloc(nparts, sizeof(*pl->est));
	pl->slot = calloc(pl->nslots, sizeof(*pl->slot));
	if (!pl->est || !pl->slot)
		return -1;
	pl->est[0] = e;
	for (unsigned i = 1; i < nparts; i++)
		if (!(pl->est[i] = cr_est_new(e->f, e->r, &e->par)))
			return -1;
	for (unsigned i = 0; i < pl->nslots; i++) {
		struct slot *s = &pl->slot[i];

		s->flows = malloc((max_flows + 1) * sizeof(*s->flows));
		s->fe = malloc((max_flows + 1) * sizeof(*s->fe));
		s->start = malloc((max_flows + 2) * sizeof(*s->start));
		if (!s->flows || !s->fe || !s->start)
			return -1;
	}
	return 0;
}

/* Estimates slots [begin, end) on this part's estimator. */
static int pool_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct pool *pl = arg;
	struct cr_est *e = pl->est[part];

	(void)nparts;
	for (uint32_t i = begin; i < end; i++) {
		struct slot *s = &pl->slot[i];
		size_t used;

		if (cr_est_phase(e, s->flows, s->n, NULL) < 0)
			return -1;
		used = e->start[s->n];
		if (cr_grow(&s->path, &s->path_alloc, used, sizeof(*s->path))) {
			cr_err("out of memory estimating a phase");
			return -1;
		}
		memcpy(s->fe, e->fe, s->n * sizeof(*s->fe));
		memcpy(s->start, e->start, (s->n + 1) * sizeof(*s->start));
		if (used)
			memcpy(s->path, e->path, used * sizeof(*s->path));
	}
	return 0;
}

/* Every phase of pr, a round of nslots at a time, folded in order. */
static int run_pool(struct cr_est *e, struct run_acc *acc,
		    struct cr_pattern_run *pr, unsigned nparts)
{
	struct pool pl;
	int ret = -1;

	if (pool_init(&pl, e, nparts, pr->max_flows)) {
		cr_err("out of memory estimating pattern %s on %u threads",
		       cr_pattern_kind_name(pr->p->kind), nparts);
		goto out;
	}
	for (uint32_t ph0 = 0; ph0 < pr->num_phases; ph0 += pl.nslots) {
		uint32_t m = pr->num_phases - ph0;

		if (m > pl.nslots)
			m = pl.nslots;
		for (uint32_t i = 0; i < m; i++)
			pl.slot[i].n =
				cr_pattern_phase(pr, ph0 + i, pl.slot[i].flows,
						 &pl.slot[i].label);
		if (cr_parallel(m, nparts < m ? nparts : m, pool_range, &pl))
			goto out;
		for (uint32_t i = 0; i < m; i++) {
			const struct slot *s = &pl.slot[i];
			struct phase_view v = {s->flows, s->n,	   s->label,
					       s->fe,	 s->start, s->path};

			accumulate(e, acc, pr, ph0 + i, &v);
		}
	}
	ret = 0;
out:
	pool_free(&pl);
	return ret;
}

struct cr_est_result *cr_est_run(struct cr_est *e, const struct cr_pattern *p,
				 const struct cr_hosts *hosts)
{
	struct cr_est_result *res = calloc(1, sizeof(*res));
	struct run_acc acc = {.res = res};
	struct cr_pattern_run pr;
	struct cr_flow *flows = NULL;
	double t0 = cr_now();
	bool started = false;
	unsigned nparts;
	size_t cells;

	if (!res)
		goto oom;
	if (cr_pattern_start(&pr, e->f, p, hosts))
		goto fail;
	started = true;
	res->kind = p->kind;
	res->seed = p->seed;
	res->hosts = pr.n;
	res->num_phases = pr.num_phases;
	res->phases_total = pr.phases_total;
	res->min_frac = res->min_gbps = INFINITY;
	result_name(res, p, &pr);
	flows = malloc((pr.max_flows + 1) * sizeof(*flows));
	if (!flows || result_alloc(e, res, &pr, &acc))
		goto oom;
	nparts = cr_parallel_parts(pr.num_phases, 2);
	if ((uint64_t)pr.max_flows * nparts * SLOTS_PER_THREAD > POOL_MAX_FLOWS)
		nparts = 1;
	if (nparts > 1) {
		if (run_pool(e, &acc, &pr, nparts))
			goto fail;
	}
	for (uint32_t ph = 0; nparts == 1 && ph < pr.num_phases; ph++) {
		struct phase_view v = {.flows = flows};

		v.n = cr_pattern_phase(&pr, ph, flows, &v.label);
		if (cr_est_phase(e, flows, v.n, NULL) < 0)
			goto fail;
		v.fe = e->fe;
		v.start = e->start;
		v.path = e->path;
		accumulate(e, &acc, &pr, ph, &v);
	}
	if (!res->flows)
		res->min_frac = res->min_gbps = 0;
	res->avg_frac = res->flows ? acc.sum_frac / res->flows : 0;
	res->avg_gbps = res->flows ? acc.sum_gbps / res->flows : 0;
	cells = res->matrix ? (size_t)res->mat_dim * res->mat_dim : 0;
	for (size_t c = 0; c < cells; c++) {
		/* the average of the cell's flows; none: a host to itself */
		if (acc.mat_cnt[c])
			res->matrix[c] /= acc.mat_cnt[c];
		else
			res->matrix[c] = -1.0f;
	}
	find_hot(e, res);
	res->seconds = cr_now() - t0;
	goto out;
oom:
	cr_err("out of memory estimating pattern %s",
	       cr_pattern_kind_name(p->kind));
fail:
	cr_est_result_free(res);
	res = NULL;
out:
	if (started)
		cr_pattern_stop(&pr);
	free(flows);
	free(acc.lstamp);
	free(acc.lcnt);
	free(acc.mat_cnt);
	return res;
}
