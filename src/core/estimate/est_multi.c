// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A phase when flows use the 2^LMC LIDs of their destination port, as MPI
 * stacks that stripe do (doc/design.md, "The contention estimator"). Every lane (LID)
 * of a flow is walked through the LFTs; the flow arrives when all its
 * lanes do. The penalty model counts the flow once per node, as in the
 * base model: striping adds paths, not senders.
 *
 * split: one rate per flow, spread evenly over its k lanes; a link
 * crossed by j of them carries j/k of it (max-min with shares). indep:
 * each lane a flow of its own, bounded by 1/k of the injection, the
 * flow's rate their sum. The flow's path for the link statistics is the
 * union of its lanes' links. Cost: k walks per flow and a max-min over at
 * most k times the base model's path entries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>
#include "maxmin.h"

#include "est_int.h"

void cr_est_multi_free(struct cr_est *e)
{
	free(e->share);
	free(e->lstamp);
	free(e->lcnt);
	free(e->lane_path);
	free(e->lane_start);
	free(e->lane_bneck);
	if (e->sub) {
		free(e->sub->start);
		free(e->sub->path);
		free(e->sub->owner);
		free(e->sub->bound);
		free(e->sub->rate);
		free(e->sub);
	}
}

/* The flow's lanes: its port's 2^LMC LIDs from the base LID, capped. */
static uint32_t lanes_of(const struct cr_est *e, const struct cr_flow *fl)
{
	const struct cr_fabric *f = e->f;
	const struct cr_port *port;
	uint32_t lid = fl->dst_lid, k;

	if (!lid || lid > f->max_lid || f->lid_node[lid] == CR_NO_NODE)
		return 1;
	port = &f->nodes[f->lid_node[lid]].ports[f->lid_port[lid]];
	/* a flow to one of the other LIDs asks for that path only */
	if (port->lid != lid)
		return 1;
	k = 1u << port->lmc;
	if (e->par.lanes && k > e->par.lanes)
		k = e->par.lanes;
	return k;
}

static int multi_setup(struct cr_est *e)
{
	size_t room = (size_t)(1u << CR_MAX_LMC) * (e->f->num_switches + 3);
	size_t nl = e->num_links ? e->num_links : 1;

	if (e->lstamp)
		return 0;
	e->lstamp = calloc(nl, sizeof(*e->lstamp));
	e->lcnt = malloc(nl * sizeof(*e->lcnt));
	e->lane_path = malloc(room * sizeof(*e->lane_path));
	e->lane_start =
		malloc(((1u << CR_MAX_LMC) + 1) * sizeof(*e->lane_start));
	e->lane_bneck = malloc((1u << CR_MAX_LMC) * sizeof(*e->lane_bneck));
	e->sub = calloc(1, sizeof(*e->sub));
	if (!e->lstamp || !e->lcnt || !e->lane_path || !e->lane_start ||
	    !e->lane_bneck || !e->sub)
		return -1;
	return 0;
}

/*
 * Walks the k lanes of flow i into lane_path. The flow's detail is its
 * base lane's, or that of the first lane that does not arrive.
 */
static uint32_t walk_lanes(struct cr_est *e, const struct cr_flow *fl,
			   uint32_t k, struct cr_flow_est *fe)
{
	size_t used = 0;
	uint32_t d = CR_NO_NODE;

	for (uint32_t j = 0; j < k; j++) {
		struct cr_flow lane = *fl;
		struct cr_flow_est lfe;
		uint32_t dj;

		lane.dst_lid = (uint16_t)(fl->dst_lid + j);
		e->lane_start[j] = (uint32_t)used;
		dj = cr_est_walk(e, &lane, &lfe, e->lane_path, &used);
		e->lane_bneck[j] = lfe.bottleneck;
		if (!j)
			*fe = lfe;
		if (dj == CR_NO_NODE) {
			*fe = lfe;
			return CR_NO_NODE;
		}
		d = dj;
	}
	e->lane_start[k] = (uint32_t)used;
	return d;
}

/*
 * The union of the lanes' links, appended to e->path with each link's
 * share (lanes crossing it / k); returns the split model's bottleneck:
 * the rate at which the first link alone would be full.
 */
static double union_links(struct cr_est *e, uint32_t k, size_t *used)
{
	uint32_t end = e->lane_start[k];
	double b = INFINITY;
	size_t first = *used;

	if (++e->lgen == 0) {
		memset(e->lstamp, 0, e->num_links * sizeof(*e->lstamp));
		e->lgen = 1;
	}
	for (uint32_t x = 0; x < end; x++) {
		uint32_t l = e->lane_path[x];

		if (e->lstamp[l] != e->lgen) {
			e->lstamp[l] = e->lgen;
			e->lcnt[l] = 0;
			e->path[(*used)++] = l;
		}
		e->lcnt[l]++;
	}
	for (size_t x = first; x < *used; x++) {
		uint32_t l = e->path[x];
		double v = e->cap[l] * k / e->lcnt[l];

		e->share[x] = (double)e->lcnt[l] / k;
		if (v < b)
			b = v;
	}
	return b;
}

static int sub_reserve(struct cr_est_sub *s, size_t n, size_t entries)
{
	size_t c = s->alloc;

	if (cr_grow(&s->start, &c, n + 1, sizeof(*s->start)))
		return -1;
	c = s->alloc;
	if (cr_grow(&s->owner, &c, n + 1, sizeof(*s->owner)))
		return -1;
	c = s->alloc;
	if (cr_grow(&s->bound, &c, n + 1, sizeof(*s->bound)))
		return -1;
	c = s->alloc;
	if (cr_grow(&s->rate, &c, n + 1, sizeof(*s->rate)))
		return -1;
	s->alloc = c;
	return cr_grow(&s->path, &s->path_alloc, entries, sizeof(*s->path));
}

/* indep: each lane of flow i becomes a flow; bound[] holds bottlenecks. */
static int add_subs(struct cr_est *e, uint32_t i, uint32_t k, size_t *ns,
		    size_t *sused, double *sum)
{
	struct cr_est_sub *s = e->sub;
	double inject = e->fe[i].inject;

	if (sub_reserve(s, *ns + k, *sused + e->lane_start[k]))
		return -1;
	*sum = 0;
	for (uint32_t j = 0; j < k; j++) {
		uint32_t a = e->lane_start[j], b = e->lane_start[j + 1];
		double cap = e->lane_bneck[j] < inject / k ? e->lane_bneck[j]
							   : inject / k;

		s->start[*ns] = (uint32_t)*sused;
		s->owner[*ns] = i;
		s->bound[*ns] = cap;
		*sum += cap;
		memcpy(s->path + *sused, e->lane_path + a,
		       (b - a) * sizeof(*s->path));
		*sused += b - a;
		(*ns)++;
	}
	return 0;
}

static int solve_indep(struct cr_est *e, size_t n, size_t ns, size_t sused)
{
	struct cr_est_sub *s = e->sub;

	s->start[ns] = (uint32_t)sused;
	for (size_t x = 0; x < ns; x++) {
		double pen = e->fe[s->owner[x]].penalty;

		s->bound[x] /= pen > 0 ? pen : 1;
	}
	if (cr_maxmin_solve(e->mm, e->cap, ns, s->start, s->path, s->bound,
			    s->rate))
		return -1;
	for (size_t i = 0; i < n; i++)
		e->rate[i] = 0;
	for (size_t x = 0; x < ns; x++)
		e->rate[s->owner[x]] += s->rate[x];
	return 0;
}

long cr_est_phase_multi(struct cr_est *e, const struct cr_flow *flows, size_t n)
{
	size_t used = 0, ns = 0, sused = 0, room;
	long unrouted = 0;
	bool indep = e->par.paths == CR_PATHS_INDEP;

	if (multi_setup(e) || cr_est_reserve_flows(e, n))
		goto oom;
	room = (size_t)(1u << CR_MAX_LMC) * (e->f->num_switches + 3);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = lanes_of(e, &flows[i]), d;
		double b, sum;

		if (cr_est_reserve_path(e, used + room) ||
		    cr_grow(&e->share, &e->share_alloc, e->path_alloc,
			    sizeof(*e->share)))
			goto oom;
		e->start[i] = (uint32_t)used;
		d = walk_lanes(e, &flows[i], k, &e->fe[i]);
		e->dst[i] = d == flows[i].src_node ? CR_NO_NODE : d;
		if (d == CR_NO_NODE) {
			unrouted++;
			continue;
		}
		b = union_links(e, k, &used);
		if (indep) {
			if (add_subs(e, (uint32_t)i, k, &ns, &sused, &sum))
				goto oom;
			b = sum;
		}
		e->fe[i].bottleneck = b;
	}
	e->start[n] = (uint32_t)used;
	cr_est_degrees(e, flows, n);
	if (indep) {
		if (sub_reserve(e->sub, ns, sused) ||
		    solve_indep(e, n, ns, sused))
			goto oom;
	} else {
		struct cr_maxmin_flows mf = {.n = n,
					     .start = e->start,
					     .path = e->path,
					     .share = e->share,
					     .bound = e->bound};

		if (cr_maxmin_solve_shares(e->mm, e->cap, &mf, e->rate))
			return -1;
	}
	for (size_t i = 0; i < n; i++)
		e->fe[i].rate = e->fe[i].status == CR_FLOW_OK ? e->rate[i] : 0;
	return unrouted;
oom:
	cr_err("out of memory estimating a phase of %zu flows over several "
	       "paths",
	       n);
	return -1;
}
