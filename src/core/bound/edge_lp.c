// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bound's LPs in edge form, kept as the independent cross-check of
 * the path form (colgen.c) and for --write-lp.
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
 * lambda. Flows that cannot arrive (bad source, unknown LID) are 0. With
 * minimal paths the commodities are by destination switch and the links
 * off its shortest-path DAG are fixed at 0.
 *
 * Cost: GLPK's simplex on (commodities x links) columns; see croute(1)
 * for the sizes measured.
 */
#include <stdlib.h>

#include <croute/model/log.h>

#include "bound_int.h"

struct edge_lp {
	const struct model *m;
	bool concurrent; /* the min LP: one column lambda */
	glp_prob *lp;
	struct trip t;
	int first_x; /* x(c, e) */
	int first_cons, first_cap, first_key, nrows;
};

/* The flows' columns t(i) (or lambda), then x(c, e). */
static void add_columns(struct edge_lp *x)
{
	const struct model *m = x->m;
	glp_prob *lp = x->lp;

	if (x->concurrent) {
		glp_add_cols(lp, 1);
		glp_set_col_bnds(lp, 1, GLP_DB, 0.0, 1.0);
		glp_set_obj_coef(lp, 1, 1.0);
		x->first_x = 2;
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
		x->first_x = (int)m->n + 1;
	}
	if (!m->ncomm || !m->ne)
		return;
	glp_add_cols(lp, (int)(m->ncomm * m->ne));
	for (uint32_t c = 0; c < m->ncomm; c++)
		for (uint32_t k = 0; k < m->ne; k++)
			glp_set_col_bnds(
				lp, x->first_x + (int)(c * m->ne + k),
				!m->minimal || cr_bound_on_dag(m, k,
							       m->comm_sw[c])
					? GLP_LO
					: GLP_FX,
				0.0, 0.0);
}

/* Conservation, switch link capacity and host link rows. */
static void add_rows(struct edge_lp *x)
{
	const struct model *m = x->m;

	x->first_cons = 1;
	x->first_cap = x->first_cons + (int)(m->ncomm * m->ns);
	x->first_key = x->first_cap + (int)m->ne;
	x->nrows = x->first_key + (int)m->nkeys - 1;
	if (x->nrows > 0)
		glp_add_rows(x->lp, x->nrows);
	for (int r = x->first_cons; r < x->first_cap; r++)
		glp_set_row_bnds(x->lp, r, GLP_FX, 0.0, 0.0);
	cr_bound_capacity_rows(x->lp, m, x->first_cap, x->first_key);
}

/* x(c, e) leaves e's tail, enters its head and uses its capacity. */
static int link_terms(struct edge_lp *x)
{
	const struct model *m = x->m;

	for (uint32_t c = 0; c < m->ncomm; c++) {
		for (uint32_t k = 0; k < m->ne; k++) {
			int col = x->first_x + (int)(c * m->ne + k);
			int base = x->first_cons + (int)(c * m->ns);

			if (cr_bound_trip_add(&x->t,
					      base + (int)m->edge[k].from, col,
					      1.0) ||
			    cr_bound_trip_add(&x->t, base + (int)m->edge[k].to,
					      col, -1.0) ||
			    cr_bound_trip_add(&x->t, x->first_cap + (int)k, col,
					      1.0))
				return -1;
		}
	}
	return 0;
}

/* The flows' supplies and host links; lambda's are merged afterwards. */
static int flow_terms(struct edge_lp *x)
{
	const struct model *m = x->m;

	for (size_t i = 0; i < m->n; i++) {
		int col = x->concurrent ? 1 : (int)i + 1;
		double v = x->concurrent ? m->inject[i] : 1.0;

		if (m->inject[i] <= 0)
			continue;
		if (m->comm[i] != UINT32_MAX) {
			int base = x->first_cons + (int)(m->comm[i] * m->ns);

			/* out - in - supply = 0 at S, out - in + t = 0 at D */
			if (cr_bound_trip_add(&x->t, base + (int)m->src_sw[i],
					      col, -v) ||
			    cr_bound_trip_add(&x->t, base + (int)m->dst_sw[i],
					      col, v))
				return -1;
		}
		if (cr_bound_trip_add(&x->t, x->first_key + (int)m->src_key[i],
				      col, v))
			return -1;
		if (m->dst_key[i] != UINT32_MAX &&
		    cr_bound_trip_add(&x->t, x->first_key + (int)m->dst_key[i],
				      col, v))
			return -1;
	}
	return 0;
}

/* GLPK rejects duplicate (row, col) pairs: sums lambda's per row. */
static int merge_lambda(struct edge_lp *x)
{
	struct trip *t = &x->t;
	size_t w = 0;
	double *acc = calloc(x->nrows + 1, sizeof(double));
	int *seen = calloc(x->nrows + 1, sizeof(int));

	if (!acc || !seen) {
		free(acc);
		free(seen);
		return -1;
	}
	for (size_t k = 1; k <= t->n; k++) {
		if (t->ja[k] != 1) {
			w++;
			t->ia[w] = t->ia[k];
			t->ja[w] = t->ja[k];
			t->ar[w] = t->ar[k];
			continue;
		}
		acc[t->ia[k]] += t->ar[k];
		seen[t->ia[k]] = 1;
	}
	for (int r = 1; r <= x->nrows; r++) {
		if (!seen[r] || acc[r] == 0)
			continue;
		w++;
		t->ia[w] = r;
		t->ja[w] = 1;
		t->ar[w] = acc[r];
	}
	t->n = w;
	free(acc);
	free(seen);
	return 0;
}

/* The whole LP in x->lp: 0, or -1 out of memory (not logged). */
static int build(struct edge_lp *x)
{
	glp_set_obj_dir(x->lp, GLP_MAX);
	add_columns(x);
	add_rows(x);
	if (link_terms(x) || flow_terms(x))
		return -1;
	if (x->concurrent && x->t.n && merge_lambda(x))
		return -1;
	if (x->t.n)
		glp_load_matrix(x->lp, (int)x->t.n, x->t.ia, x->t.ja, x->t.ar);
	return 0;
}

int cr_bound_edge_lp(const struct model *m, bool concurrent,
		     const char *lp_path, double *value, uint32_t *rows_out,
		     uint32_t *cols_out)
{
	struct edge_lp x = {.m = m, .concurrent = concurrent};
	glp_smcp parm;
	int ncols, st, ret = -1;

	x.lp = glp_create_prob();
	if (build(&x)) {
		cr_err("out of memory building the bound's LP");
		goto out;
	}
	ncols = glp_get_num_cols(x.lp);
	if (lp_path && glp_write_lp(x.lp, NULL, lp_path)) {
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
	st = glp_simplex(x.lp, &parm);
	if (st || glp_get_status(x.lp) != GLP_OPT) {
		cr_err("the %s LP (%d rows, %d columns) was not solved "
		       "(GLPK: %d, status %d)",
		       concurrent ? "concurrent-flow" : "throughput", x.nrows,
		       ncols, st, glp_get_status(x.lp));
		goto out;
	}
	*value = glp_get_obj_val(x.lp);
	if (rows_out)
		*rows_out = (uint32_t)x.nrows;
	if (cols_out)
		*cols_out = (uint32_t)ncols;
	ret = 0;
out:
	cr_bound_trip_free(&x.t);
	glp_delete_prob(x.lp);
	return ret;
}
