// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute bound's linear programs (include/croute/bound.h).
 *
 * Per phase: the switches and their links form a directed graph (parallel
 * links merged, capacities summed, in Gb/s to keep GLPK's numbers near 1).
 * Flow i enters at the switch S(i) of its source port and leaves at the
 * switch D(i) of its destination LID. One commodity per source switch c:
 * columns x(c, e) >= 0 on every directed switch link e; rows
 *   conservation  out(c, v) - in(c, v) = supply(c, v)  for every switch v,
 *   capacity      sum over c of x(c, e) <= cap(e),
 *   host links    sum of the flows from one source port <= its rate, and
 *                 the same for the flows into one destination port,
 * where supply(c, S) is the sum of c's flows and supply(c, D) minus the
 * flows of c that end at D. The avg LP has one column t(i) in
 * [0, inject(i)] per flow and maximises sum t(i) / inject(i); the min LP
 * replaces t(i) by lambda * inject(i), lambda in [0, 1], and maximises
 * lambda. Flows that cannot arrive (bad source, unknown LID) are 0.
 *
 * Cost: GLPK's simplex on (commodities x links) columns; see croute(1)
 * for the sizes measured.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/clock.h>
#include <croute/iheap.h>
#include <croute/log.h>

#include "bound_int.h"

void cr_bound_model_free_flows(struct model *m)
{
	free(m->src_sw);
	free(m->dst_sw);
	free(m->src_key);
	free(m->dst_key);
	free(m->inject);
	free(m->comm);
	free(m->comm_sw);
	free(m->key_cap);
	m->src_sw = m->dst_sw = m->src_key = m->dst_key = NULL;
	m->comm = m->comm_sw = NULL;
	m->inject = m->key_cap = NULL;
	m->ncomm = m->nkeys = 0;
}

void cr_bound_model_free(struct model *m)
{
	cr_bound_model_free_flows(m);
	free(m->edge);
	free(m->off);
	free(m->hops);
}

int cr_bound_model_edges(struct model *m, const struct cr_est *e)
{
	const struct cr_fabric *f = m->f;
	size_t alloc = 0;

	for (uint32_t s = 0; s < m->ns; s++) {
		uint32_t a = f->switches[s];
		uint32_t first = m->ne;

		for (unsigned p = 1; p <= f->nodes[a].num_ports; p++) {
			uint32_t b = cr_remote(f, a, p), k;
			double cap = cr_est_capacity(e, a, p) / 1000.0;

			if (b == CR_NO_NODE || !cr_is_switch(f, b) || b == a ||
			    cap <= 0)
				continue;
			for (k = first; k < m->ne; k++)
				if (m->edge[k].to == f->nodes[b].sw_index)
					break;
			if (k < m->ne) {
				m->edge[k].cap += cap;
				continue;
			}
			if (m->ne == alloc) {
				size_t na = alloc ? 2 * alloc : 256;
				struct edge *g =
					realloc(m->edge, na * sizeof(*g));

				if (!g)
					return -1;
				m->edge = g;
				alloc = na;
			}
			m->edge[m->ne++] = (struct edge){
				.from = s,
				.to = f->nodes[b].sw_index,
				.cap = cap,
			};
		}
	}
	return 0;
}

/*
 * Host-link keys: a source port's up link and a destination port's down
 * link are distinct capacities; keys index them in the order first met.
 */
struct keymap {
	uint64_t *k;
	uint32_t *v;
	size_t size;
};

static uint32_t key_get(struct keymap *km, struct model *m, uint64_t key,
			double cap)
{
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 7) % km->size;

	while (km->v[h] != UINT32_MAX) {
		if (km->k[h] == key)
			return km->v[h];
		h = (h + 1) % km->size;
	}
	km->k[h] = key;
	km->v[h] = m->nkeys;
	m->key_cap[m->nkeys] = cap;
	return m->nkeys++;
}

int cr_bound_model_flows(struct model *m, const struct cr_est *e,
			 const struct cr_flow *flows)
{
	const struct cr_fabric *f = m->f;
	struct keymap km = {0};
	uint32_t *sw_comm = NULL;
	size_t n = m->n;
	int ret = -1;

	m->src_sw = malloc((n + 1) * sizeof(uint32_t));
	m->dst_sw = malloc((n + 1) * sizeof(uint32_t));
	m->src_key = malloc((n + 1) * sizeof(uint32_t));
	m->dst_key = malloc((n + 1) * sizeof(uint32_t));
	m->inject = calloc(n + 1, sizeof(double));
	m->comm = malloc((n + 1) * sizeof(uint32_t));
	m->comm_sw = malloc((m->ns + 1) * sizeof(uint32_t));
	m->key_cap = malloc((2 * n + 1) * sizeof(double));
	sw_comm = malloc((m->ns + 1) * sizeof(uint32_t));
	km.size = 4 * n + 7;
	km.k = malloc(km.size * sizeof(*km.k));
	km.v = malloc(km.size * sizeof(*km.v));
	if (!m->src_sw || !m->dst_sw || !m->src_key || !m->dst_key ||
	    !m->inject || !m->comm || !m->comm_sw || !m->key_cap || !sw_comm ||
	    !km.k || !km.v)
		goto out;
	memset(km.v, 0xff, km.size * sizeof(*km.v));
	memset(sw_comm, 0xff, (m->ns + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		const struct cr_flow *fl = &flows[i];
		uint32_t s = fl->src_node, sw, dsw, dn, cs;
		unsigned p = fl->src_port;
		uint8_t dport = 0;
		double inj;

		m->src_sw[i] = m->dst_sw[i] = UINT32_MAX;
		m->src_key[i] = m->dst_key[i] = m->comm[i] = UINT32_MAX;
		if (s >= f->num_nodes || cr_is_switch(f, s) || !p ||
		    p > f->nodes[s].num_ports)
			continue;
		sw = cr_remote(f, s, p);
		inj = cr_est_capacity(e, s, p) / 1000.0;
		if (sw == CR_NO_NODE || !cr_is_switch(f, sw) || inj <= 0)
			continue;
		if (!fl->dst_lid || fl->dst_lid > f->max_lid)
			continue;
		dn = f->lid_node[fl->dst_lid];
		dsw = cr_lid_switch(f, fl->dst_lid, &dport);
		if (dn == CR_NO_NODE || dsw == CR_NO_NODE)
			continue;
		m->inject[i] = inj;
		m->src_sw[i] = f->nodes[sw].sw_index;
		m->dst_sw[i] = f->nodes[dsw].sw_index;
		m->src_key[i] = key_get(&km, m, (uint64_t)s << 9 | p << 1, inj);
		if (dn != dsw) {
			/* the switch port that delivers the LID, down link */
			double c = cr_est_capacity(e, dsw, dport) / 1000.0;

			m->dst_key[i] = key_get(
				&km, m, (uint64_t)dsw << 9 | dport << 1 | 1, c);
		}
		if (m->src_sw[i] == m->dst_sw[i])
			continue;
		/* minimal: the destination's DAG bounds the arcs */
		cs = m->minimal ? m->dst_sw[i] : m->src_sw[i];
		if (sw_comm[cs] == UINT32_MAX) {
			sw_comm[cs] = m->ncomm;
			m->comm_sw[m->ncomm++] = cs;
		}
		m->comm[i] = sw_comm[cs];
	}
	ret = 0;
out:
	free(sw_comm);
	free(km.k);
	free(km.v);
	return ret;
}

int cr_bound_trip_add(struct trip *t, int row, int col, double v)
{
	if (t->n + 1 >= t->alloc) {
		size_t na = t->alloc ? 2 * t->alloc : 4096;
		int *ia = realloc(t->ia, na * sizeof(int));

		if (!ia)
			return -1;
		t->ia = ia;
		ia = realloc(t->ja, na * sizeof(int));
		if (!ia)
			return -1;
		t->ja = ia;
		double *ar = realloc(t->ar, na * sizeof(double));

		if (!ar)
			return -1;
		t->ar = ar;
		t->alloc = na;
	}
	t->n++;
	t->ia[t->n] = row;
	t->ja[t->n] = col;
	t->ar[t->n] = v;
	return 0;
}

void cr_bound_trip_free(struct trip *t)
{
	free(t->ia);
	free(t->ja);
	free(t->ar);
}

/* One row per switch link from first_cap, one per host link from first_key. */
void cr_bound_capacity_rows(glp_prob *lp, const struct model *m, int first_cap,
			    int first_key)
{
	for (uint32_t k = 0; k < m->ne; k++)
		glp_set_row_bnds(lp, first_cap + (int)k, GLP_UP, 0.0,
				 m->edge[k].cap);
	for (uint32_t k = 0; k < m->nkeys; k++)
		glp_set_row_bnds(lp, first_key + (int)k, GLP_UP, 0.0,
				 m->key_cap[k]);
}

/*
 * Builds and solves one LP. concurrent: the min LP (one column lambda),
 * else the avg LP. *value receives the objective. 0 or -1 (logged).
 */
static int solve(const struct model *m, bool concurrent, const char *lp_path,
		 double *value, uint32_t *rows_out, uint32_t *cols_out)
{
	glp_prob *lp = glp_create_prob();
	struct trip t = {0};
	glp_smcp parm;
	int ncols, nrows, first_x, first_cons, first_cap, first_key, ret = -1;
	int st;

	glp_set_obj_dir(lp, GLP_MAX);
	/* columns: flows (or lambda), then x(c, e) */
	if (concurrent) {
		glp_add_cols(lp, 1);
		glp_set_col_bnds(lp, 1, GLP_DB, 0.0, 1.0);
		glp_set_obj_coef(lp, 1, 1.0);
		first_x = 2;
	} else {
		glp_add_cols(lp, (int)m->n);
		for (size_t i = 0; i < m->n; i++) {
			int c = (int)i + 1;

			if (m->inject[i] > 0) {
				glp_set_col_bnds(lp, c, GLP_DB, 0.0,
						 m->inject[i]);
				glp_set_obj_coef(lp, c, 1.0 / m->inject[i]);
			} else {
				glp_set_col_bnds(lp, c, GLP_FX, 0.0, 0.0);
			}
		}
		first_x = (int)m->n + 1;
	}
	if (m->ncomm && m->ne) {
		glp_add_cols(lp, (int)(m->ncomm * m->ne));
		for (uint32_t c = 0; c < m->ncomm; c++)
			for (uint32_t k = 0; k < m->ne; k++)
				glp_set_col_bnds(
					lp, first_x + (int)(c * m->ne + k),
					!m->minimal || cr_bound_on_dag(
							       m, k,
							       m->comm_sw[c])
						? GLP_LO
						: GLP_FX,
					0.0, 0.0);
	}
	ncols = glp_get_num_cols(lp);
	/* rows: conservation, edge capacity, host links */
	first_cons = 1;
	first_cap = first_cons + (int)(m->ncomm * m->ns);
	first_key = first_cap + (int)m->ne;
	nrows = first_key + (int)m->nkeys - 1;
	if (nrows > 0)
		glp_add_rows(lp, nrows);
	for (int r = first_cons; r < first_cap; r++)
		glp_set_row_bnds(lp, r, GLP_FX, 0.0, 0.0);
	cr_bound_capacity_rows(lp, m, first_cap, first_key);
	for (uint32_t c = 0; c < m->ncomm; c++) {
		for (uint32_t k = 0; k < m->ne; k++) {
			int col = first_x + (int)(c * m->ne + k);
			int base = first_cons + (int)(c * m->ns);

			if (cr_bound_trip_add(&t, base + (int)m->edge[k].from,
					      col, 1.0) ||
			    cr_bound_trip_add(&t, base + (int)m->edge[k].to,
					      col, -1.0) ||
			    cr_bound_trip_add(&t, first_cap + (int)k, col, 1.0))
				goto oom;
		}
	}
	/* the flows' terms; lambda's are summed per row first */
	for (size_t i = 0; i < m->n; i++) {
		int col = concurrent ? 1 : (int)i + 1;
		double v = concurrent ? m->inject[i] : 1.0;

		if (m->inject[i] <= 0)
			continue;
		if (m->comm[i] != UINT32_MAX) {
			int base = first_cons + (int)(m->comm[i] * m->ns);

			/* out - in - supply = 0 at S, out - in + t = 0 at D */
			if (cr_bound_trip_add(&t, base + (int)m->src_sw[i], col,
					      -v) ||
			    cr_bound_trip_add(&t, base + (int)m->dst_sw[i], col,
					      v))
				goto oom;
		}
		if (cr_bound_trip_add(&t, first_key + (int)m->src_key[i], col,
				      v))
			goto oom;
		if (m->dst_key[i] != UINT32_MAX &&
		    cr_bound_trip_add(&t, first_key + (int)m->dst_key[i], col,
				      v))
			goto oom;
	}
	if (concurrent && t.n) {
		/* GLPK rejects duplicate (row, col) pairs: merge lambda's */
		size_t w = 0;
		double *acc = calloc(nrows + 1, sizeof(double));
		int *seen = calloc(nrows + 1, sizeof(int));

		if (!acc || !seen) {
			free(acc);
			free(seen);
			goto oom;
		}
		for (size_t k = 1; k <= t.n; k++) {
			if (t.ja[k] != 1) {
				w++;
				t.ia[w] = t.ia[k];
				t.ja[w] = t.ja[k];
				t.ar[w] = t.ar[k];
				continue;
			}
			acc[t.ia[k]] += t.ar[k];
			seen[t.ia[k]] = 1;
		}
		for (int r = 1; r <= nrows; r++) {
			if (!seen[r] || acc[r] == 0)
				continue;
			w++;
			t.ia[w] = r;
			t.ja[w] = 1;
			t.ar[w] = acc[r];
		}
		t.n = w;
		free(acc);
		free(seen);
	}
	if (t.n)
		glp_load_matrix(lp, (int)t.n, t.ia, t.ja, t.ar);
	if (lp_path && glp_write_lp(lp, NULL, lp_path)) {
		cr_err("cannot write the LP to %s", lp_path);
		goto out;
	}
	if (!value) {
		ret = 0;
		goto out;
	}
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON;
	st = glp_simplex(lp, &parm);
	if (st || glp_get_status(lp) != GLP_OPT) {
		cr_err("the %s LP (%d rows, %d columns) was not solved "
		       "(GLPK: %d, status %d)",
		       concurrent ? "concurrent-flow" : "throughput", nrows,
		       ncols, st, glp_get_status(lp));
		goto out;
	}
	*value = glp_get_obj_val(lp);
	if (rows_out)
		*rows_out = (uint32_t)nrows;
	if (cols_out)
		*cols_out = (uint32_t)ncols;
	ret = 0;
	goto out;
oom:
	cr_err("out of memory building the bound's LP");
out:
	cr_bound_trip_free(&t);
	glp_delete_prob(lp);
	return ret;
}

/* ---- column generation ------------------------------------------------ */

/*
 * The same LPs in path form, which is what makes them fast: a column is
 * one path of one flow, rows are the flows, the switch links and the host
 * links, so a master LP has a few rows per flow instead of one per
 * (commodity, switch). Starting from each flow's fewest-hop path, paths
 * whose reduced cost is positive under the master's duals are added
 * (Dijkstra with the links' duals as lengths, one run per source switch)
 * until none is left: then the master's optimum is the LP's optimum.
 * Columns are never removed, so the objective never decreases and each
 * round adds at least one new path: it ends.
 */
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

/*
 * Adds flow i's column for the path to m->dst_sw[i] in g (empty when the
 * flow stays on its switch). Rows: flow row, host rows (avg), edges.
 */
struct seen {
	uint64_t **h; /* per flow: hashes of its paths in the LP */
	uint32_t *n;
	size_t flows;
};

static void seen_free(struct seen *s)
{
	for (size_t i = 0; s->h && i < s->flows; i++)
		free(s->h[i]);
	free(s->h);
	free(s->n);
}

/* 0 added, 1 already there, -1 out of memory */
static int add_path(glp_prob *lp, const struct model *m, const struct graph *g,
		    size_t i, bool concurrent, int first_cap, int first_key,
		    int *ind, double *val, struct seen *seen)
{
	int len = 0, col;

	ind[++len] = (int)i + 1;
	val[len] = 1;
	if (!concurrent) {
		ind[++len] = first_key + (int)m->src_key[i];
		val[len] = 1;
		if (m->dst_key[i] != UINT32_MAX) {
			ind[++len] = first_key + (int)m->dst_key[i];
			val[len] = 1;
		}
	}
	uint64_t h = 0xcbf29ce484222325ULL;
	/* minimal: forward from the source; else back from the dest */
	uint32_t v = m->minimal ? m->src_sw[i] : m->dst_sw[i];
	uint32_t stop = m->minimal ? m->dst_sw[i] : m->src_sw[i];

	while (v != stop) {
		uint32_t e = g->pred[v];

		if (e == UINT32_MAX || len > (int)m->ns + 4)
			return -1;
		ind[++len] = first_cap + (int)e;
		val[len] = 1;
		h = (h ^ e) * 0x100000001b3ULL;
		v = m->minimal ? m->edge[e].to : m->edge[e].from;
	}
	/* a path already in (within GLPK's tolerances): do not repeat it */
	for (uint32_t k = 0; k < seen->n[i]; k++)
		if (seen->h[i][k] == h)
			return 1;
	if (seen->n[i] % 8 == 0) {
		uint64_t *grow = realloc(seen->h[i],
					 (seen->n[i] + 8) * sizeof(uint64_t));

		if (!grow)
			return -1;
		seen->h[i] = grow;
	}
	seen->h[i][seen->n[i]++] = h;
	col = glp_add_cols(lp, 1);
	glp_set_col_bnds(lp, col, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(lp, col, concurrent ? 0.0 : 1.0 / m->inject[i]);
	glp_set_mat_col(lp, col, len, ind, val);
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

static int solve_paths(const struct model *m, bool concurrent, double *value,
		       uint32_t *rows_out, uint32_t *cols_out,
		       uint32_t *rounds_out)
{
	glp_prob *lp = glp_create_prob();
	struct graph g = {0};
	struct seen seen = {.flows = m->n};
	glp_smcp parm;
	int nrows, first_cap, first_key, lambda = 0, ret = -1;
	int *ind = NULL;
	double *val = NULL, *len = NULL, *sum_inj = NULL;
	size_t *order = NULL;
	const uint32_t *key;
	uint32_t rounds = 0;

	if (graph_build(&g, m))
		goto oom;
	ind = malloc((m->ns + 8) * sizeof(int));
	val = malloc((m->ns + 8) * sizeof(double));
	len = calloc(m->ne + 1, sizeof(double));
	sum_inj = calloc(m->nkeys + 1, sizeof(double));
	order = malloc((m->n + 1) * sizeof(size_t));
	seen.h = calloc(m->n + 1, sizeof(*seen.h));
	seen.n = calloc(m->n + 1, sizeof(*seen.n));
	if (!ind || !val || !len || !sum_inj || !order || !seen.h || !seen.n)
		goto oom;
	glp_set_obj_dir(lp, GLP_MAX);
	first_cap = (int)m->n + 1;
	first_key = first_cap + (int)m->ne;
	nrows = first_key + (int)m->nkeys - 1;
	glp_add_rows(lp, nrows);
	for (size_t i = 0; i < m->n; i++) {
		if (concurrent)
			glp_set_row_bnds(lp, (int)i + 1, GLP_FX, 0.0, 0.0);
		else if (m->inject[i] > 0)
			glp_set_row_bnds(lp, (int)i + 1, GLP_UP, 0.0,
					 m->inject[i]);
		else
			glp_set_row_bnds(lp, (int)i + 1, GLP_FX, 0.0, 0.0);
	}
	cr_bound_capacity_rows(lp, m, first_cap, first_key);
	if (concurrent) {
		/* lambda: -inject in each flow row, sum in each host row */
		int n = 0, *li = malloc((m->n + m->nkeys + 2) * sizeof(int));
		double *lv = malloc((m->n + m->nkeys + 2) * sizeof(double));

		if (!li || !lv) {
			free(li);
			free(lv);
			goto oom;
		}
		for (size_t i = 0; i < m->n; i++) {
			li[++n] = (int)i + 1;
			lv[n] = -m->inject[i];
			sum_inj[m->src_key[i]] += m->inject[i];
			if (m->dst_key[i] != UINT32_MAX)
				sum_inj[m->dst_key[i]] += m->inject[i];
		}
		for (uint32_t k = 0; k < m->nkeys; k++) {
			li[++n] = first_key + (int)k;
			lv[n] = sum_inj[k];
		}
		lambda = glp_add_cols(lp, 1);
		glp_set_col_bnds(lp, lambda, GLP_DB, 0.0, 1.0);
		glp_set_obj_coef(lp, lambda, 1.0);
		glp_set_mat_col(lp, lambda, n, li, lv);
		free(li);
		free(lv);
	}
	/*
	 * flows by source switch: one Dijkstra serves them all; with
	 * minimal paths by destination switch: one pass over its DAG
	 */
	key = m->minimal ? m->dst_sw : m->src_sw;
	sort_by_switch(m, key, order, g.cnt);
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	for (;;) {
		unsigned added = 0;
		uint32_t cur = UINT32_MAX;
		int st;

		if (rounds) {
			st = glp_simplex(lp, &parm);
			if (st || glp_get_status(lp) != GLP_OPT) {
				cr_err("the %s LP (%d rows, %d columns) was "
				       "not solved (GLPK: %d, status %d)",
				       concurrent ? "concurrent-flow"
						  : "throughput",
				       nrows, glp_get_num_cols(lp), st,
				       glp_get_status(lp));
				goto out;
			}
			for (uint32_t k = 0; k < m->ne; k++) {
				double d = glp_get_row_dual(lp,
							    first_cap + (int)k);

				len[k] = d > 0 ? d : 0;
			}
		}
		for (size_t o = 0; o < m->n; o++) {
			size_t i = order[o];
			double thr, price;

			if (m->inject[i] <= 0 || m->src_sw[i] == UINT32_MAX)
				continue;
			if (rounds) {
				/* reduced cost = c - duals of its rows */
				thr = concurrent ? 0 : 1.0 / m->inject[i];
				thr -= glp_get_row_dual(lp, (int)i + 1);
				if (!concurrent) {
					thr -= glp_get_row_dual(
						lp,
						first_key + (int)m->src_key[i]);
					if (m->dst_key[i] != UINT32_MAX)
						thr -= glp_get_row_dual(
							lp,
							first_key +
								(int)m->dst_key
									[i]);
				}
				if (m->src_sw[i] == m->dst_sw[i])
					continue; /* its one path is in */
			} else {
				thr = INFINITY;
			}
			if (key[i] != cur) {
				cur = key[i];
				if (m->minimal)
					dag_prices(&g, m, cur, len);
				else
					dijkstra(&g, m, cur, len);
			}
			/* the hop lengths only break ties: discount them */
			price = m->minimal ? g.dist[m->src_sw[i]]
					   : g.dist[m->dst_sw[i]] -
						     1e-9 * (m->ns + 1);
			if (!isfinite(price))
				continue;
			if (rounds && price >= thr - 1e-7 * fabs(thr) - 1e-12)
				continue;
			st = add_path(lp, m, &g, i, concurrent, first_cap,
				      first_key, ind, val, &seen);
			if (st < 0)
				goto oom;
			added += st == 0;
		}
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
	*value = glp_get_obj_val(lp);
	if (rows_out)
		*rows_out = (uint32_t)nrows;
	if (cols_out)
		*cols_out = (uint32_t)glp_get_num_cols(lp);
	if (rounds_out)
		*rounds_out = rounds;
	ret = 0;
	goto out;
oom:
	cr_err("out of memory building the bound's LP");
out:
	graph_free(&g);
	seen_free(&seen);
	free(ind);
	free(val);
	free(len);
	free(sum_inj);
	free(order);
	glp_delete_prob(lp);
	return ret;
}

/* The edge LP, written and not solved: for cross-checks (glpsol). */
static int solve_write(const struct model *m, const char *path)
{
	return solve(m, false, path, NULL, NULL, NULL);
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
		   const struct cr_bound_opts *o, struct cr_bound_phase *out,
		   const char *lp_path)
{
	struct model m = {.f = f, .ns = f->num_switches, .n = n};
	double t0 = cr_now();
	double avg = 0, lambda = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->flows = (uint32_t)n;
	if (!n)
		return 0;
	glp_term_out(GLP_OFF);
	if (model_build(&m, e, flows, o))
		goto out;
	if (lp_path && solve_write(&m, lp_path))
		goto out;
	if (o && o->unsplittable) {
		/* the min bound stays the splittable one over the paths */
		ret = cr_bound_mip(&m, o, out);
		if (ret)
			goto out;
		ret = -1;
		avg = out->avg_frac * (double)n;
		if (solve_paths(&m, true, &lambda, NULL, NULL, NULL))
			goto out;
	} else if (flags & CR_BOUND_EDGE_LP) {
		if (solve(&m, false, NULL, &avg, &out->rows, &out->cols) ||
		    solve(&m, true, NULL, &lambda, NULL, NULL))
			goto out;
	} else if (solve_paths(&m, false, &avg, &out->rows, &out->cols,
			       &out->rounds) ||
		   solve_paths(&m, true, &lambda, NULL, NULL, NULL)) {
		goto out;
	}
	out->avg_frac = avg / (double)n;
	out->min_frac = lambda;
	if (!(o && o->unsplittable)) {
		out->incumbent_frac = out->avg_frac;
		out->proved = true;
	}
	/* a flow that cannot arrive gets 0 whatever the routing */
	for (size_t i = 0; i < n; i++)
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
				st = cr_bound_paths(
					&m, s, d, m.minimal, o->max_extra_hops,
					CR_BOUND_MIP_MAX_PATHS, &ps);
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
	if (o && o->one_routing) {
		/* the phases' own bounds (split), then the one LP */
		po = *o;
		po.one_routing = po.unsplittable = false;
		phase_o = &po;
	}
	b->phase = calloc(b->num_phases + 1, sizeof(*b->phase));
	flows = malloc((cr_phases_max_flows(ph) + 1) * sizeof(*flows));
	if (!b->phase || !flows)
		goto oom;
	for (uint32_t i = 0; i < b->num_phases; i++) {
		uint32_t label;
		size_t n = cr_phases_get(ph, i, flows, &label);

		if (cr_bound_phase(f, e, flows, n, 0, phase_o, &b->phase[i],
				   NULL))
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
	}
	b->avg_frac = b->flows ? sum / (double)b->flows : 0;
	b->phase_avg_frac = b->avg_frac;
	if (o && o->one_routing &&
	    cr_bound_joint(f, e, p, hosts, o, &b->avg_frac, &b->joint_primal))
		goto fail;
	b->incumbent_frac = b->flows ? inc / (double)b->flows : 0;
	if (!b->num_phases)
		b->min_frac = 0;
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
