// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bound's LPs in path form, solved by column generation: what makes
 * them fast. A column is one path of one flow, rows are the flows, the
 * switch links and the host links, so a master LP has a few rows per flow
 * instead of one per (commodity, switch) as in the edge form
 * (edge_lp.c). Starting from each flow's fewest-hop path, paths whose
 * reduced cost is positive under the master's duals are added (Dijkstra
 * with the links' duals as lengths, one run per source switch; with
 * minimal paths dynamic programming over the destination's shortest-path
 * DAG, one pass per destination switch) until none is left: then the
 * master's optimum is the LP's optimum. Columns are never removed, so the
 * objective never decreases and each round adds at least one new path:
 * it ends.
 *
 * The avg LP's figure is not the master's objective but a dual bound:
 * with the master's link and host-link duals y >= 0 and each flow's
 * cheapest path under y (the pricing's), u(i) = max(0, 1 / inject(i) -
 * y(i's host links) - price(i)) makes (u, y) feasible for the dual of the
 * full LP, all paths' columns included, so sum(cap y) + sum(inject u)
 * bounds the optimum from above whatever GLPK's tolerances (the master's
 * objective is a flow some routing reaches: it is below the optimum by
 * the pricing's tolerance). At the optimum the two meet. Stopping the
 * generation once they are within a small gap was tried: on a 6x6x6
 * torus's jobs phases the gap closes only in the last round or two, so
 * the generation runs to its end.
 *
 * Cost per round: a simplex on the master (rows: flows + links + host
 * links, columns: the paths so far) and one Dijkstra per source switch
 * (or one DAG pass per destination switch); croute bound prints the
 * rounds each phase took.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/iheap.h>
#include <croute/model/log.h>

#include "bound_int.h"

#define SETTLED (CR_IHEAP_OUT - 1) /* pos[] of a switch whose dist is final */

struct graph {
	uint32_t ns;
	uint32_t *off; /* CSR by source switch: edges off[s]..off[s + 1] */
	uint32_t *eid;
	double *dist;
	/*
	 * edge into the switch on the shortest path from the source; with
	 * minimal paths, edge out of it on the cheapest one to the
	 * destination
	 */
	uint32_t *pred;
	struct cr_iheap heap; /* keyed by dist[] */
	uint32_t *by_hops, *cnt; /* minimal: switches by hops to the dest */
};

static void graph_free(struct graph *g)
{
	free(g->off);
	free(g->eid);
	free(g->dist);
	free(g->pred);
	free(g->heap.slot);
	free(g->heap.pos);
	free(g->by_hops);
	free(g->cnt);
}

static int graph_build(struct graph *g, const struct model *m)
{
	g->ns = m->ns;
	g->off = calloc(m->ns + 2, sizeof(uint32_t));
	g->eid = malloc((m->ne + 1) * sizeof(uint32_t));
	g->dist = malloc((m->ns + 1) * sizeof(double));
	g->pred = malloc((m->ns + 1) * sizeof(uint32_t));
	g->heap.slot = malloc((m->ns + 1) * sizeof(uint32_t));
	g->heap.pos = malloc((m->ns + 1) * sizeof(uint32_t));
	g->heap.key = g->dist;
	g->by_hops = malloc((m->ns + 1) * sizeof(uint32_t));
	g->cnt = malloc((m->ns + 2) * sizeof(uint32_t));
	if (!g->off || !g->eid || !g->dist || !g->pred || !g->heap.slot ||
	    !g->heap.pos || !g->by_hops || !g->cnt)
		return -1;
	for (uint32_t k = 0; k < m->ne; k++)
		g->off[m->edge[k].from + 1]++;
	for (uint32_t s = 0; s < m->ns; s++)
		g->off[s + 1] += g->off[s];
	/* edges are built switch by switch: already grouped by source */
	for (uint32_t k = 0; k < m->ne; k++)
		g->eid[k] = k;
	return 0;
}

/*
 * Shortest paths from switch src with lengths len[e] >= 0 plus a tiny
 * per-hop length, so that among equal duals the fewest hops win (and the
 * first round gives fewest-hop paths).
 */
static void dijkstra(struct graph *g, const struct model *m, uint32_t src,
		     const double *len)
{
	for (uint32_t v = 0; v < g->ns; v++) {
		g->dist[v] = INFINITY;
		g->pred[v] = UINT32_MAX;
		g->heap.pos[v] = CR_IHEAP_OUT;
	}
	g->dist[src] = 0;
	g->heap.len = 0;
	cr_iheap_push(&g->heap, src);
	while (g->heap.len) {
		uint32_t u = cr_iheap_pop(&g->heap);

		g->heap.pos[u] = SETTLED;
		for (uint32_t k = g->off[u]; k < g->off[u + 1]; k++) {
			uint32_t e = g->eid[k], v = m->edge[e].to;
			double d = g->dist[u] + len[e] + 1e-9;

			if (g->heap.pos[v] == SETTLED || d >= g->dist[v])
				continue;
			g->dist[v] = d;
			g->pred[v] = e;
			if (g->heap.pos[v] == CR_IHEAP_OUT)
				cr_iheap_push(&g->heap, v);
			else
				cr_iheap_up(&g->heap, g->heap.pos[v]);
		}
	}
}

/*
 * With minimal paths: the cheapest fewest-hop path from every switch to
 * d under len[] (a path's hops are fixed, so no tie length), by dynamic
 * programming over the switches in order of hops to d; ties go to the
 * first edge, so the prices are deterministic.
 */
static void dag_prices(struct graph *g, const struct model *m, uint32_t d,
		       const double *len)
{
	uint32_t ns = m->ns;

	memset(g->cnt, 0, (ns + 2) * sizeof(uint32_t));
	for (uint32_t v = 0; v < ns; v++) {
		uint16_t h = m->hops[(size_t)v * ns + d];

		g->dist[v] = INFINITY;
		g->pred[v] = UINT32_MAX;
		if (h != CR_HOP_NONE)
			g->cnt[h + 1]++;
	}
	for (uint32_t h = 0; h < ns; h++)
		g->cnt[h + 1] += g->cnt[h];
	for (uint32_t v = 0; v < ns; v++) {
		uint16_t h = m->hops[(size_t)v * ns + d];

		if (h != CR_HOP_NONE)
			g->by_hops[g->cnt[h]++] = v;
	}
	g->dist[d] = 0;
	/* by_hops[0] is d itself; then farther and farther */
	for (uint32_t j = 1; j < ns && g->by_hops[0] == d; j++) {
		uint32_t u = g->by_hops[j];

		if (m->hops[(size_t)u * ns + d] == CR_HOP_NONE)
			break;
		for (uint32_t k = m->off[u]; k < m->off[u + 1]; k++) {
			double c;

			if (!cr_bound_on_dag(m, k, d))
				continue;
			c = len[k] + g->dist[m->edge[k].to];
			if (c < g->dist[u]) {
				g->dist[u] = c;
				g->pred[u] = k;
			}
		}
	}
}

/* Per flow: hashes of its paths in the master, not to add one twice. */
struct seen {
	uint64_t **h;
	uint32_t *n, *cap;
	size_t flows;
};

static void seen_free(struct seen *s)
{
	for (size_t i = 0; s->h && i < s->flows; i++)
		free(s->h[i]);
	free(s->h);
	free(s->n);
	free(s->cap);
}

/* One LP's column generation. */
struct colgen {
	const struct model *m;
	bool concurrent; /* the min LP: a column lambda */
	glp_prob *lp; /* the master */
	int nrows, first_cap, first_key; /* rows: flows, links, host links */
	struct graph g;
	struct seen seen;
	int *ind; /* a column's rows */
	double *val;
	double *len; /* per link: its dual, the pricing's length */
	/* the flows by key: by source switch, with minimal by destination */
	size_t *order;
	const uint32_t *key;
	double dual_bound; /* avg: sum of inject u over the flows priced */
};

/*
 * Adds flow i's column for the path to m->dst_sw[i] in c->g (empty when
 * the flow stays on its switch). Rows: flow row, host rows (avg), edges.
 * 0 added, 1 already there, -1 out of memory.
 */
static int add_path(struct colgen *c, size_t i)
{
	const struct model *m = c->m;
	struct seen *seen = &c->seen;
	int *ind = c->ind, len = 0, col;
	double *val = c->val;

	ind[++len] = (int)i + 1;
	val[len] = 1;
	if (!c->concurrent) {
		ind[++len] = c->first_key + (int)m->src_key[i];
		val[len] = 1;
		if (m->dst_key[i] != UINT32_MAX) {
			ind[++len] = c->first_key + (int)m->dst_key[i];
			val[len] = 1;
		}
	}
	uint64_t h = 0xcbf29ce484222325ULL;
	/* minimal: forward from the source; else back from the dest */
	uint32_t v = m->minimal ? m->src_sw[i] : m->dst_sw[i];
	uint32_t stop = m->minimal ? m->dst_sw[i] : m->src_sw[i];

	while (v != stop) {
		uint32_t e = c->g.pred[v];

		if (e == UINT32_MAX || len > (int)m->ns + 4)
			return -1;
		ind[++len] = c->first_cap + (int)e;
		val[len] = 1;
		h = (h ^ e) * 0x100000001b3ULL;
		v = m->minimal ? m->edge[e].to : m->edge[e].from;
	}
	/* a path already in (within GLPK's tolerances): do not repeat it */
	for (uint32_t k = 0; k < seen->n[i]; k++)
		if (seen->h[i][k] == h)
			return 1;
	if (cr_grow32(&seen->h[i], &seen->cap[i], (size_t)seen->n[i] + 1,
		      sizeof(*seen->h[i])))
		return -1;
	seen->h[i][seen->n[i]++] = h;
	col = glp_add_cols(c->lp, 1);
	glp_set_col_bnds(c->lp, col, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(c->lp, col, c->concurrent ? 0.0 : 1.0 / m->inject[i]);
	glp_set_mat_col(c->lp, col, len, ind, val);
	return 0;
}

/* order[] = the flows by key[] (stable; UINT32_MAX last). cnt: ns + 2. */
static void sort_by_switch(const struct model *m, const uint32_t *key,
			   size_t *order, uint32_t *cnt)
{
	size_t pos = 0;

	memset(cnt, 0, (m->ns + 2) * sizeof(uint32_t));
	for (size_t i = 0; i < m->n; i++)
		cnt[key[i] == UINT32_MAX ? m->ns : key[i]]++;
	for (uint32_t s = 0; s <= m->ns; s++) {
		uint32_t c = cnt[s];

		cnt[s] = (uint32_t)pos;
		pos += c;
	}
	for (size_t i = 0; i < m->n; i++)
		order[cnt[key[i] == UINT32_MAX ? m->ns : key[i]]++] = i;
}

/* The master's rows: per flow (its rate), per switch and host link. */
static void master_rows(struct colgen *c)
{
	const struct model *m = c->m;

	glp_set_obj_dir(c->lp, GLP_MAX);
	c->first_cap = (int)m->n + 1;
	c->first_key = c->first_cap + (int)m->ne;
	c->nrows = c->first_key + (int)m->nkeys - 1;
	glp_add_rows(c->lp, c->nrows);
	for (size_t i = 0; i < m->n; i++) {
		if (c->concurrent)
			glp_set_row_bnds(c->lp, (int)i + 1, GLP_FX, 0.0, 0.0);
		else if (m->inject[i] > 0)
			glp_set_row_bnds(c->lp, (int)i + 1, GLP_UP, 0.0,
					 m->inject[i]);
		else
			glp_set_row_bnds(c->lp, (int)i + 1, GLP_FX, 0.0, 0.0);
	}
	cr_bound_capacity_rows(c->lp, m, c->first_cap, c->first_key);
}

/*
 * The min LP's column lambda: -inject in each flow row (the flow's paths
 * carry lambda times its injection), the sum of the injections in each
 * host link row. 0, or -1 out of memory.
 */
static int lambda_column(struct colgen *c)
{
	const struct model *m = c->m;
	int n = 0, col, ret = -1;
	int *li = malloc((m->n + m->nkeys + 2) * sizeof(int));
	double *lv = malloc((m->n + m->nkeys + 2) * sizeof(double));
	double *sum_inj = calloc(m->nkeys + 1, sizeof(double));

	if (!li || !lv || !sum_inj)
		goto out;
	for (size_t i = 0; i < m->n; i++) {
		li[++n] = (int)i + 1;
		lv[n] = -m->inject[i];
		sum_inj[m->src_key[i]] += m->inject[i];
		if (m->dst_key[i] != UINT32_MAX)
			sum_inj[m->dst_key[i]] += m->inject[i];
	}
	for (uint32_t k = 0; k < m->nkeys; k++) {
		li[++n] = c->first_key + (int)k;
		lv[n] = sum_inj[k];
	}
	col = glp_add_cols(c->lp, 1);
	glp_set_col_bnds(c->lp, col, GLP_DB, 0.0, 1.0);
	glp_set_obj_coef(c->lp, col, 1.0);
	glp_set_mat_col(c->lp, col, n, li, lv);
	ret = 0;
out:
	free(li);
	free(lv);
	free(sum_inj);
	return ret;
}

/* Solves the master and takes the links' duals as lengths. 0 or -1. */
static int solve_master(struct colgen *c, const glp_smcp *parm)
{
	const struct model *m = c->m;
	int st = glp_simplex(c->lp, parm);

	if (st || glp_get_status(c->lp) != GLP_OPT) {
		cr_err("the %s LP (%d rows, %d columns) was not solved "
		       "(GLPK: %d, status %d)",
		       c->concurrent ? "concurrent-flow" : "throughput",
		       c->nrows, glp_get_num_cols(c->lp), st,
		       glp_get_status(c->lp));
		return -1;
	}
	for (uint32_t k = 0; k < m->ne; k++) {
		double d = glp_get_row_dual(c->lp, c->first_cap + (int)k);

		c->len[k] = d > 0 ? d : 0;
	}
	return 0;
}

/* What a new path of flow i must cost less than: c minus its rows' duals. */
static double reduced_threshold(const struct colgen *c, size_t i)
{
	const struct model *m = c->m;
	double thr = c->concurrent ? 0 : 1.0 / m->inject[i];

	thr -= glp_get_row_dual(c->lp, (int)i + 1);
	if (!c->concurrent) {
		thr -= glp_get_row_dual(c->lp,
					c->first_key + (int)m->src_key[i]);
		if (m->dst_key[i] != UINT32_MAX)
			thr -= glp_get_row_dual(
				c->lp, c->first_key + (int)m->dst_key[i]);
	}
	return thr;
}

/* A row's dual, never below 0: a larger one keeps the dual feasible. */
static double row_dual(const struct colgen *c, int row)
{
	double d = glp_get_row_dual(c->lp, row);

	return d > 0 ? d : 0;
}

/*
 * inject(i) u(i) of the dual bound: what flow i's cheapest path (price,
 * under the links' duals) leaves of its objective coefficient after its
 * host links' duals.
 */
static double flow_dual(const struct colgen *c, size_t i, double price)
{
	const struct model *m = c->m;
	double u = 1.0 / m->inject[i] - price -
		   row_dual(c, c->first_key + (int)m->src_key[i]);

	if (m->dst_key[i] != UINT32_MAX)
		u -= row_dual(c, c->first_key + (int)m->dst_key[i]);
	return u > 0 ? m->inject[i] * u : 0;
}

/* The dual bound's part from the capacities: sum of cap y. */
static double capacity_dual(const struct colgen *c)
{
	const struct model *m = c->m;
	double sum = 0;

	for (uint32_t k = 0; k < m->ne; k++)
		sum += m->edge[k].cap * c->len[k];
	for (uint32_t k = 0; k < m->nkeys; k++)
		sum += m->key_cap[k] * row_dual(c, c->first_key + (int)k);
	return sum;
}

/*
 * One round of pricing: every flow's cheapest path under the lengths,
 * added when its reduced cost is positive (in round 0: every flow's
 * fewest-hop path). *added: new columns. 0, or -1 out of memory.
 */
static int price_round(struct colgen *c, uint32_t round, unsigned *added)
{
	const struct model *m = c->m;
	uint32_t cur = UINT32_MAX;

	*added = 0;
	for (size_t o = 0; o < m->n; o++) {
		size_t i = c->order[o];
		double thr = INFINITY, price;
		int st;

		if (m->inject[i] <= 0 || m->src_sw[i] == UINT32_MAX)
			continue;
		if (round) {
			thr = reduced_threshold(c, i);
			if (m->src_sw[i] == m->dst_sw[i]) {
				/* its one path is in, with no link */
				if (!c->concurrent)
					c->dual_bound += flow_dual(c, i, 0);
				continue;
			}
		}
		if (c->key[i] != cur) {
			cur = c->key[i];
			if (m->minimal)
				dag_prices(&c->g, m, cur, c->len);
			else
				dijkstra(&c->g, m, cur, c->len);
		}
		/*
		 * the hop lengths only break ties: discount them (more than
		 * a simple path's hops, so the price is never above the
		 * cheapest path's length)
		 */
		price = m->minimal
				? c->g.dist[m->src_sw[i]]
				: c->g.dist[m->dst_sw[i]] - 1e-9 * (m->ns + 1);
		if (!isfinite(price))
			continue;
		if (round && !c->concurrent)
			c->dual_bound += flow_dual(c, i, price);
		if (round && price >= thr - 1e-7 * fabs(thr) - 1e-12)
			continue;
		st = add_path(c, i);
		if (st < 0)
			return -1;
		*added += st == 0;
	}
	return 0;
}

/* The flows that can carry anything: the avg LP's trivial bound. */
static size_t movable(const struct model *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++)
		k += m->inject[i] > 0;
	return k;
}

static int colgen_alloc(struct colgen *c)
{
	const struct model *m = c->m;

	c->lp = glp_create_prob();
	c->seen.flows = m->n;
	c->ind = malloc((m->ns + 8) * sizeof(int));
	c->val = malloc((m->ns + 8) * sizeof(double));
	c->len = calloc(m->ne + 1, sizeof(double));
	c->order = malloc((m->n + 1) * sizeof(size_t));
	c->seen.h = calloc(m->n + 1, sizeof(*c->seen.h));
	c->seen.n = calloc(m->n + 1, sizeof(*c->seen.n));
	c->seen.cap = calloc(m->n + 1, sizeof(*c->seen.cap));
	if (graph_build(&c->g, m) || !c->ind || !c->val || !c->len ||
	    !c->order || !c->seen.h || !c->seen.n || !c->seen.cap)
		return -1;
	return 0;
}

static void colgen_free(struct colgen *c)
{
	graph_free(&c->g);
	seen_free(&c->seen);
	free(c->ind);
	free(c->val);
	free(c->len);
	free(c->order);
	glp_delete_prob(c->lp);
}

int cr_bound_colgen(const struct model *m, bool concurrent, double *value,
		    uint32_t *rows_out, uint32_t *cols_out,
		    uint32_t *rounds_out)
{
	struct colgen c = {.m = m, .concurrent = concurrent};
	double best = INFINITY; /* the avg LP's least dual bound */
	glp_smcp parm;
	uint32_t rounds = 0;
	unsigned added;
	int ret = -1;

	if (colgen_alloc(&c))
		goto oom;
	master_rows(&c);
	if (concurrent && lambda_column(&c))
		goto oom;
	/*
	 * flows by source switch: one Dijkstra serves them all; with
	 * minimal paths by destination switch: one pass over its DAG
	 */
	c.key = m->minimal ? m->dst_sw : m->src_sw;
	sort_by_switch(m, c.key, c.order, c.g.cnt);
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	for (;;) {
		if (rounds && solve_master(&c, &parm))
			goto out;
		c.dual_bound = rounds && !concurrent ? capacity_dual(&c) : 0;
		if (price_round(&c, rounds, &added))
			goto oom;
		if (rounds && !concurrent && c.dual_bound < best)
			best = c.dual_bound;
		cr_debug("bound: round %u, master %.9g, dual bound %.9g, %u"
			 " paths added",
			 rounds, rounds ? glp_get_obj_val(c.lp) : 0.0,
			 c.dual_bound, added);
		if (rounds && !added)
			break;
		if (++rounds > 100000) {
			cr_err("the bound's column generation did not end");
			goto out;
		}
		if (!added && rounds == 1) {
			/* no flow can move at all */
			*value = 0;
			ret = 0;
			goto out;
		}
	}
	/*
	 * the dual bound holds whatever the tolerances; never below the
	 * master's objective (a flow), never above every flow at its rate
	 */
	*value = glp_get_obj_val(c.lp);
	if (!concurrent && best < INFINITY && best > *value)
		*value = best < (double)movable(m) ? best : (double)movable(m);
	if (rows_out)
		*rows_out = (uint32_t)c.nrows;
	if (cols_out)
		*cols_out = (uint32_t)glp_get_num_cols(c.lp);
	if (rounds_out)
		*rounds_out = rounds;
	ret = 0;
	goto out;
oom:
	cr_err("out of memory building the bound's LP");
out:
	colgen_free(&c);
	return ret;
}
