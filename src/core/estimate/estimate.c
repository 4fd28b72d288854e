// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The contention estimator (doc/design.md, "The contention estimator"): walk
 * each flow's path through the LFTs, count the penalty model's degrees per
 * node, bound each flow by its bottleneck link over its penalty, and give
 * the flows their max-min fair rates over the directed links.
 *
 * Directed links are numbered by the port they leave: link base[n] + p
 * leaves port p of node n. Per-node and per-link scratch is allocated
 * once and reset lazily with generation stamps, so a phase costs time in
 * its flows and path lengths, not in the size of the fabric.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/estimate/estimate.h>
#include <croute/model/log.h>
#include "maxmin.h"

#include "est_int.h"

void cr_est_params_init(struct cr_est_params *p)
{
	memset(p, 0, sizeof(*p));
	cr_penalty_default(&p->pen);
	p->matrix_max = 2048;
}

static const char *const paths_names[] = {
	[CR_PATHS_BASE] = "base",
	[CR_PATHS_SPLIT] = "split",
	[CR_PATHS_INDEP] = "indep",
};

const char *cr_est_paths_name(enum cr_est_paths m)
{
	return (unsigned)m < sizeof(paths_names) / sizeof(paths_names[0])
		       ? paths_names[m]
		       : NULL;
}

int cr_est_paths_parse(const char *name, enum cr_est_paths *m)
{
	for (unsigned i = 0; i < sizeof(paths_names) / sizeof(paths_names[0]);
	     i++)
		if (!strcmp(name, paths_names[i])) {
			*m = (enum cr_est_paths)i;
			return 0;
		}
	return -1;
}

/* ---- the context ------------------------------------------------------ */

void cr_est_free(struct cr_est *e)
{
	if (!e)
		return;
	free(e->base);
	free(e->cap);
	free(e->far);
	free(e->far_port);
	free(e->is_switch);
	free(e->stamp);
	free(e->ds);
	free(e->de);
	free(e->phi);
	free(e->gfill);
	free(e->pair_stamp);
	free(e->pair_cnt);
	free(e->pout);
	free(e->start);
	free(e->dst);
	free(e->by_dst);
	free(e->dsts);
	free(e->bound);
	free(e->rate);
	free(e->fe);
	free(e->path);
	cr_maxmin_free(e->mm);
	cr_est_multi_free(e);
	free(e);
}

/*
 * A link runs at the rate both ends agree on: the smaller known one. Two
 * unknown ends take the default rate, or fail: a silent guess would skew
 * every figure downstream.
 */
static int link_rates(struct cr_est *e)
{
	const struct cr_fabric *f = e->f;
	unsigned bad = 0;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];

		for (unsigned p = 1; p <= node->num_ports; p++) {
			const struct cr_port *a = &node->ports[p], *b;
			uint32_t ra, rb, rate;

			if (a->remote == CR_NO_NODE)
				continue;
			b = &f->nodes[a->remote].ports[a->remote_port];
			ra = cr_link_rate_mbps(a->width, a->speed);
			rb = cr_link_rate_mbps(b->width, b->speed);
			rate = !ra ? rb : !rb ? ra : ra < rb ? ra : rb;
			if (!rate)
				rate = e->par.default_rate_mbps;
			if (!rate && bad++ < 5) {
				char la[CR_NODE_LABEL_MAX],
					lb[CR_NODE_LABEL_MAX];

				cr_err("link %s port %u -> %s port %u: "
				       "unknown rate (width %u, speed %s)",
				       cr_node_label(f, n, p, la, sizeof(la)),
				       p,
				       cr_node_label(f, a->remote,
						     a->remote_port, lb,
						     sizeof(lb)),
				       a->remote_port, a->width,
				       cr_speed_name(a->speed));
			}
			e->cap[e->base[n] + p] = rate;
		}
	}
	if (bad) {
		cr_err("%u link%s without a known rate; give a default rate "
		       "to estimate anyway",
		       bad, bad == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

struct cr_est *cr_est_new(const struct cr_fabric *f, const struct cr_routing *r,
			  const struct cr_est_params *p)
{
	struct cr_est *e = calloc(1, sizeof(*e));
	size_t nn = f->num_nodes ? f->num_nodes : 1;
	uint64_t links = 0;

	if (!e)
		goto oom;
	e->f = f;
	e->r = r;
	if (p)
		e->par = *p;
	else
		cr_est_params_init(&e->par);
	if (!e->par.matrix_max)
		e->par.matrix_max = 2048;
	e->base = malloc((nn + 1) * sizeof(*e->base));
	e->is_switch = malloc(nn);
	if (!e->base || !e->is_switch)
		goto oom;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		e->base[n] = (uint32_t)links;
		e->is_switch[n] = f->nodes[n].type == CR_NODE_SWITCH;
		links += f->nodes[n].num_ports + 1;
	}
	if (links >= UINT32_MAX)
		goto oom;
	e->base[f->num_nodes] = (uint32_t)links;
	e->num_links = (uint32_t)links;
	e->cap = calloc(links ? links : 1, sizeof(*e->cap));
	e->far = malloc((links ? links : 1) * sizeof(*e->far));
	e->far_port = calloc(links ? links : 1, 1);
	if (!e->cap || !e->far || !e->far_port)
		goto oom;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned q = 0; q <= f->nodes[n].num_ports; q++) {
			const struct cr_port *port = &f->nodes[n].ports[q];

			e->far[e->base[n] + q] = q ? port->remote : CR_NO_NODE;
			e->far_port[e->base[n] + q] = port->remote_port;
		}
	e->stamp = calloc(nn, sizeof(*e->stamp));
	e->ds = malloc(nn * sizeof(*e->ds));
	e->de = malloc(nn * sizeof(*e->de));
	e->phi = malloc(nn * sizeof(*e->phi));
	e->gfill = malloc(nn * sizeof(*e->gfill));
	e->pair_stamp = calloc(nn, sizeof(*e->pair_stamp));
	e->pair_cnt = malloc(nn * sizeof(*e->pair_cnt));
	e->pout = malloc(nn * sizeof(*e->pout));
	e->mm = cr_maxmin_new(e->num_links);
	if (!e->cap || !e->stamp || !e->ds || !e->de || !e->phi || !e->gfill ||
	    !e->pair_stamp || !e->pair_cnt || !e->pout || !e->mm)
		goto oom;
	if (link_rates(e)) {
		cr_est_free(e);
		return NULL;
	}
	return e;
oom:
	cr_err("out of memory preparing the contention estimate");
	cr_est_free(e);
	return NULL;
}

int cr_est_grow_parallel(void *const arr[], const size_t size[], size_t count,
			 size_t *cap, size_t need)
{
	size_t c = *cap;

	/* each from the same capacity, so all end at the same one */
	for (size_t k = 0; k < count; k++) {
		c = *cap;
		if (cr_grow(arr[k], &c, need, size[k]))
			return -1;
	}
	*cap = c;
	return 0;
}

int cr_est_reserve_flows(struct cr_est *e, size_t n)
{
	void *const arr[] = {&e->start, &e->dst,  &e->by_dst, &e->dsts,
			     &e->bound, &e->rate, &e->fe};
	const size_t size[] = {sizeof(*e->start),  sizeof(*e->dst),
			       sizeof(*e->by_dst), sizeof(*e->dsts),
			       sizeof(*e->bound),  sizeof(*e->rate),
			       sizeof(*e->fe)};

	return cr_est_grow_parallel(arr, size, sizeof(arr) / sizeof(arr[0]),
				    &e->alloc, n + 1);
}

int cr_est_reserve_path(struct cr_est *e, size_t need)
{
	return cr_grow(&e->path, &e->path_alloc, need, sizeof(*e->path));
}

/* ---- one phase -------------------------------------------------------- */

/*
 * Appends flow fl's directed links to path from *used (room for
 * num_switches + 2 more); fills its status, hops, bottleneck and injection
 * rate. Returns the destination node when the flow arrives, CR_NO_NODE
 * otherwise (its links dropped).
 */
uint32_t cr_est_walk(struct cr_est *e, const struct cr_flow *fl,
		     struct cr_flow_est *out, uint32_t *path, size_t *used)
{
	const struct cr_fabric *f = e->f;
	const struct cr_routing *r = e->r;
	uint32_t n = fl->src_node, lid = fl->dst_lid, next, link;
	unsigned p = fl->src_port;
	size_t at = *used;
	double b = INFINITY;

	memset(out, 0, sizeof(*out));
	out->stop_node = n;
	out->stop_port = (uint8_t)p;
	if (n >= f->num_nodes || f->nodes[n].type == CR_NODE_SWITCH || !p ||
	    p > f->nodes[n].num_ports ||
	    f->nodes[n].ports[p].remote == CR_NO_NODE) {
		out->status = CR_FLOW_BAD_SOURCE;
		return CR_NO_NODE;
	}
	out->inject = e->cap[e->base[n] + p];
	out->status = CR_FLOW_NO_PATH;
	if (!lid || lid > f->max_lid || f->lid_node[lid] == CR_NO_NODE)
		return CR_NO_NODE;
	if (lid > r->max_lid)
		return CR_NO_NODE;
	/* a simple path visits each switch once at most */
	for (uint32_t hops = 0; hops <= f->num_switches + 1; hops++) {
		link = e->base[n] + p;
		path[at++] = link;
		if (e->cap[link] < b)
			b = e->cap[link];
		next = e->far[link];
		if (!e->is_switch[next]) {
			/* a CA or router: the end, right or wrong */
			if (next != f->lid_node[lid] ||
			    e->far_port[link] != f->lid_port[lid]) {
				out->stop_node = next;
				out->stop_port = e->far_port[link];
				return CR_NO_NODE;
			}
			goto arrived;
		}
		n = next;
		out->stop_node = n;
		out->stop_port = 0;
		if (f->lid_node[lid] == n)
			goto arrived; /* the switch's own LID */
		if (!r->lft[n])
			return CR_NO_NODE;
		p = r->lft[n][lid];
		out->stop_port = (uint8_t)p;
		/* CR_NO_PATH is beyond any node's ports */
		if (!p || p >= e->base[n + 1] - e->base[n] ||
		    e->far[e->base[n] + p] == CR_NO_NODE)
			return CR_NO_NODE;
	}
	out->status = CR_FLOW_LOOP;
	return CR_NO_NODE;
arrived:
	out->status = CR_FLOW_OK;
	out->hops = (uint32_t)(at - *used);
	out->bottleneck = b;
	*used = at;
	return f->lid_node[lid];
}

static void node_touch(struct cr_est *e, uint32_t n)
{
	if (e->stamp[n] == e->gen)
		return;
	e->stamp[n] = e->gen;
	e->ds[n] = e->de[n] = e->phi[n] = 0;
	e->pout[n] = 0;
}

static void next_gen(struct cr_est *e)
{
	if (++e->gen)
		return;
	memset(e->stamp, 0, e->f->num_nodes * sizeof(*e->stamp));
	e->gen = 1;
}

/*
 * Δs, Δe, Φ and Ω over the counted flows (those that arrive at another
 * node). Ω is per flow (left in e->fe[].penalty for the moment); the flows
 * are grouped by destination so Φ and Ω need no pair table.
 */
static void count_degrees(struct cr_est *e, const struct cr_flow *flows,
			  size_t n, double *omega)
{
	uint32_t ndst = 0, off = 0;

	next_gen(e);
	for (size_t i = 0; i < n; i++) {
		uint32_t s = flows[i].src_node, d = e->dst[i];

		if (d == CR_NO_NODE)
			continue;
		node_touch(e, s);
		node_touch(e, d);
		e->ds[s]++;
		if (!e->de[d]++)
			e->dsts[ndst++] = d;
	}
	for (uint32_t j = 0; j < ndst; j++) {
		e->gfill[e->dsts[j]] = off;
		off += e->de[e->dsts[j]];
	}
	for (size_t i = 0; i < n; i++)
		if (e->dst[i] != CR_NO_NODE)
			e->by_dst[e->gfill[e->dst[i]]++] = (uint32_t)i;
	off = 0;
	for (uint32_t j = 0; j < ndst; j++) {
		uint32_t d = e->dsts[j], end = off + e->de[d];

		if (++e->pair_gen == 0) {
			memset(e->pair_stamp, 0,
			       e->f->num_nodes * sizeof(*e->pair_stamp));
			e->pair_gen = 1;
		}
		for (uint32_t k = off; k < end; k++) {
			uint32_t s = flows[e->by_dst[k]].src_node;

			if (e->pair_stamp[s] != e->pair_gen) {
				e->pair_stamp[s] = e->pair_gen;
				e->pair_cnt[s] = 0;
				e->phi[d]++;
			}
			e->pair_cnt[s]++;
		}
		for (uint32_t k = off; k < end; k++)
			omega[e->by_dst[k]] =
				e->pair_cnt[flows[e->by_dst[k]].src_node];
		off = end;
	}
}

/*
 * The model, as SimGrid's NetworkIBModel::compute_IB_factors applies it:
 * ps from the sender's degree (γr when the receiver takes >= 3 flows),
 * Pout the sender's largest ps, pe from the receiver's distinct senders
 * and the flows of this pair; the bound divides the path's bottleneck.
 */
static void penalties(struct cr_est *e, const struct cr_flow *flows, size_t n,
		      const double *omega)
{
	const struct cr_penalty *pen = &e->par.pen;

	for (size_t i = 0; i < n; i++) {
		uint32_t s = flows[i].src_node, d = e->dst[i];
		double ps = 1;

		if (d == CR_NO_NODE)
			continue;
		if (e->ds[s] >= 2)
			ps = e->ds[s] * pen->bs * (e->de[d] >= 3 ? pen->gr : 1);
		if (ps > e->pout[s])
			e->pout[s] = ps;
	}
	for (size_t i = 0; i < n; i++) {
		struct cr_flow_est *fe = &e->fe[i];
		uint32_t s = flows[i].src_node, d = e->dst[i];
		double pe = 1;

		if (fe->status != CR_FLOW_OK) {
			e->bound[i] = 0;
			continue;
		}
		fe->penalty = 1;
		if (d != CR_NO_NODE) {
			if (e->de[d] != 1)
				pe = e->phi[d] * pen->be * omega[i];
			fe->penalty = e->pout[s] > pe ? e->pout[s] : pe;
		}
		fe->bound = fe->bottleneck / fe->penalty;
		e->bound[i] = fe->bound;
	}
}

void cr_est_degrees(struct cr_est *e, const struct cr_flow *flows, size_t n)
{
	/* e->rate doubles as Ω's scratch: it is written only afterwards */
	count_degrees(e, flows, n, e->rate);
	penalties(e, flows, n, e->rate);
}

long cr_est_phase(struct cr_est *e, const struct cr_flow *flows, size_t n,
		  struct cr_flow_est *out)
{
	size_t used = 0;
	long unrouted = 0;

	if (e->par.paths != CR_PATHS_BASE) {
		unrouted = cr_est_phase_multi(e, flows, n);
		if (unrouted >= 0 && out)
			memcpy(out, e->fe, n * sizeof(*out));
		return unrouted;
	}
	if (cr_est_reserve_flows(e, n))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		uint32_t d;

		if (cr_est_reserve_path(e, used + e->f->num_switches + 3))
			goto oom;
		e->start[i] = (uint32_t)used;
		d = cr_est_walk(e, &flows[i], &e->fe[i], e->path, &used);
		/* flows within one node are not network contention: SimGrid
		 * leaves them out of the penalty counts too */
		e->dst[i] = d == flows[i].src_node ? CR_NO_NODE : d;
		if (e->fe[i].status != CR_FLOW_OK)
			unrouted++;
	}
	e->start[n] = (uint32_t)used;
	cr_est_degrees(e, flows, n);
	if (cr_maxmin_solve(e->mm, e->cap, n, e->start, e->path, e->bound,
			    e->rate))
		return -1;
	for (size_t i = 0; i < n; i++)
		e->fe[i].rate = e->fe[i].status == CR_FLOW_OK ? e->rate[i] : 0;
	if (out)
		memcpy(out, e->fe, n * sizeof(*out));
	return unrouted;
oom:
	cr_err("out of memory estimating a phase of %zu flows", n);
	return -1;
}

double cr_est_capacity(const struct cr_est *e, uint32_t node, unsigned port)
{
	if (node >= e->f->num_nodes || port > e->f->nodes[node].num_ports)
		return 0;
	return e->cap[e->base[node] + port];
}
