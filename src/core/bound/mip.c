// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unsplittable bound of one phase: each flow takes at most one of its
 * candidate paths (bound_int.h: minimal ones, or simple ones within some
 * extra hops), as any LFT routing does. GLPK's branch and bound on
 *   columns  r(i, p) in [0, inject(i)]  (flow i's rate on path p),
 *            y(i, p) binary             (flow i takes p),
 *   rows     sum over p of y(i, p) <= 1,
 *            r(i, p) - inject(i) y(i, p) <= 0,
 *            switch links and host links as in the LPs,
 *   maximise sum r(i, p) / inject(i).
 * A flow with one candidate (or none between switches) has only r: no
 * choice to make.
 *
 * With lanes k > 1 (a flow striped over its port's k LIDs, each with a
 * path of its own: estimate's split and indep models), y(i, p) is an
 * integer in [0, k], the lanes on p, with sum y <= k and r(i, p) <=
 * inject(i) y(i, p) / k. A split flow of rate x puts x j/k on a path j
 * of its lanes take, at most inject j/k; an indep lane at most inject/k:
 * either is a feasible point, so the optimum bounds both. k = 1 is the
 * one-path MIP above. The LP relaxation is the splittable LP over the same
 * paths, so the MIP's optimum lies between an incumbent (a real path
 * choice) and that.
 *
 * What is reported as the bound is never an incumbent: the proved optimum,
 * or when the limit stops the search, the best bound of the open nodes
 * (read at each node selection, when the open nodes cover every choice
 * not yet fathomed), never above the root LP.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>

#include "bound_int.h"

struct mip_cb {
	double best; /* upper bound over the open nodes; +inf: none yet */
	uint32_t nodes;
};

static void callback(glp_tree *tree, void *info)
{
	struct mip_cb *cb = info;
	int a_cnt, n_cnt, t_cnt, p;
	double b, inc;

	if (glp_ios_reason(tree) != GLP_ISELECT)
		return;
	glp_ios_tree_size(tree, &a_cnt, &n_cnt, &t_cnt);
	cb->nodes = (uint32_t)t_cnt;
	p = glp_ios_best_node(tree);
	if (!p)
		return;
	b = glp_ios_node_bound(tree, p);
	/* an incumbent (or nothing) also bounds the fathomed part */
	inc = glp_mip_obj_val(glp_ios_get_prob(tree));
	if (inc > b)
		b = inc;
	if (b < cb->best)
		cb->best = b;
}

struct cand {
	struct pathset *pair; /* per (s, d): NULL until enumerated */
	uint8_t *done;
};

static struct pathset *pair_paths(const struct model *m, struct cand *c,
				  const struct cr_bound_opts *o, uint32_t s,
				  uint32_t d, int *st)
{
	size_t k = (size_t)s * m->ns + d;

	*st = 0;
	if (!c->done[k]) {
		*st = cr_bound_paths(m, s, d, o->max_extra_hops,
				     CR_BOUND_MIP_MAX_PATHS, &c->pair[k]);
		if (*st)
			return NULL;
		c->done[k] = 1;
	}
	return &c->pair[k];
}

/* One phase's MIP while it is built and searched. */
struct mip {
	const struct model *m;
	const struct cr_bound_opts *o;
	struct cand c;
	glp_prob *lp;
	struct trip t;
	int first_cap, first_key; /* switch link and host link rows */
};

/*
 * Enumerates every flow's candidates and checks the limits first, to
 * refuse before building anything big. 0, -1 out of memory (not
 * logged), or -2 beyond the limits (logged).
 */
static int candidates(struct mip *x)
{
	const struct model *m = x->m;
	uint64_t paths = 0;
	int st;

	for (size_t i = 0; i < m->n; i++) {
		struct pathset *ps;

		if (m->inject[i] <= 0 || m->src_sw[i] == m->dst_sw[i])
			continue;
		ps = pair_paths(m, &x->c, x->o, m->src_sw[i], m->dst_sw[i],
				&st);
		if (st == -1)
			return -1;
		if (st == -2) {
			cr_err("the unsplittable bound: more than %u candidate"
			       " paths between two switches (limit "
			       "CR_BOUND_MIP_MAX_PATHS)",
			       CR_BOUND_MIP_MAX_PATHS);
			return -2;
		}
		paths += ps->count;
	}
	if (paths > CR_BOUND_MIP_MAX_COLS) {
		cr_err("the unsplittable bound: %llu candidate paths in a phase"
		       " (limit %u)",
		       (unsigned long long)paths, CR_BOUND_MIP_MAX_COLS);
		return -2;
	}
	return 0;
}

/*
 * Flow i's columns: a rate r(i, p) per candidate on its host links and
 * the path's switch links; with a choice to make, a binary y(i, p) per
 * candidate, its link row r - inject y <= 0 and the choice row. 0, or -1
 * out of memory.
 */
static int add_flow(struct mip *x, size_t i, uint32_t *binaries)
{
	const struct model *m = x->m;
	const struct pathset *ps = NULL;
	uint32_t np = 1, choice_row = 0;
	double inj = m->inject[i];
	double lanes = x->o && x->o->lanes > 1 ? (double)x->o->lanes : 1.0;

	if (inj <= 0)
		return 0;
	if (m->src_sw[i] != m->dst_sw[i]) {
		ps = &x->c.pair[(size_t)m->src_sw[i] * m->ns + m->dst_sw[i]];
		np = ps->count;
		if (!np)
			return 0; /* cannot arrive: 0 */
	}
	if (np > 1) {
		choice_row = (uint32_t)glp_add_rows(x->lp, 1);
		glp_set_row_bnds(x->lp, (int)choice_row, GLP_UP, 0.0, lanes);
	}
	for (uint32_t p = 0; p < np; p++) {
		int r = glp_add_cols(x->lp, 1), y, link;

		glp_set_col_bnds(x->lp, r, GLP_DB, 0.0, inj);
		glp_set_obj_coef(x->lp, r, 1.0 / inj);
		if (cr_bound_trip_add(&x->t, x->first_key + (int)m->src_key[i],
				      r, 1.0) ||
		    (m->dst_key[i] != UINT32_MAX &&
		     cr_bound_trip_add(&x->t, x->first_key + (int)m->dst_key[i],
				       r, 1.0)))
			return -1;
		for (uint32_t k = ps ? ps->start[p] : 0;
		     ps && k < ps->start[p + 1]; k++)
			if (cr_bound_trip_add(&x->t,
					      x->first_cap + (int)ps->edges[k],
					      r, 1.0))
				return -1;
		if (np == 1)
			continue;
		y = glp_add_cols(x->lp, 1);
		if (lanes > 1) {
			glp_set_col_kind(x->lp, y, GLP_IV);
			glp_set_col_bnds(x->lp, y, GLP_DB, 0.0, lanes);
		} else {
			glp_set_col_kind(x->lp, y, GLP_BV);
		}
		link = glp_add_rows(x->lp, 1);
		glp_set_row_bnds(x->lp, link, GLP_UP, 0.0, 0.0);
		if (cr_bound_trip_add(&x->t, link, r, 1.0) ||
		    cr_bound_trip_add(&x->t, link, y, -inj / lanes) ||
		    cr_bound_trip_add(&x->t, (int)choice_row, y, 1.0))
			return -1;
		(*binaries)++;
	}
	return 0;
}

/* The capacity rows, then every flow's. 0, or -1 out of memory. */
static int build(struct mip *x, struct cr_bound_phase *out)
{
	const struct model *m = x->m;

	glp_set_obj_dir(x->lp, GLP_MAX);
	x->first_cap = 1;
	x->first_key = x->first_cap + (int)m->ne;
	glp_add_rows(x->lp, x->first_key + (int)m->nkeys - 1);
	cr_bound_capacity_rows(x->lp, m, x->first_cap, x->first_key);
	for (size_t i = 0; i < m->n; i++)
		if (add_flow(x, i, &out->binaries))
			return -1;
	out->rows = (uint32_t)glp_get_num_rows(x->lp);
	out->cols = (uint32_t)glp_get_num_cols(x->lp);
	return 0;
}

/*
 * Root LP, then branch and bound with GLPK's cuts and the time limit:
 * the proved optimum, or where the limit stops the search the best open
 * bound capped by the root's. out's avg_frac, incumbent_frac, proved and
 * nodes. 0 or -1 (logged).
 */
static int search(struct mip *x, struct cr_bound_phase *out)
{
	const struct model *m = x->m;
	struct mip_cb cb = {.best = INFINITY};
	glp_prob *lp = x->lp;
	glp_smcp sp;
	glp_iocp ip;
	double root, inc, bound;
	int st;

	glp_load_matrix(lp, (int)x->t.n, x->t.ia, x->t.ja, x->t.ar);
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.presolve = GLP_OFF; /* the tree needs the root's basis */
	st = glp_simplex(lp, &sp);
	if (st || glp_get_status(lp) != GLP_OPT) {
		cr_err("the unsplittable bound's root LP (%d rows, %d columns)"
		       " was not solved (GLPK: %d, status %d)",
		       glp_get_num_rows(lp), glp_get_num_cols(lp), st,
		       glp_get_status(lp));
		return -1;
	}
	root = glp_get_obj_val(lp);
	glp_init_iocp(&ip);
	ip.msg_lev = GLP_MSG_OFF;
	ip.presolve = GLP_OFF; /* node bounds of this very problem */
	ip.cb_func = callback;
	ip.cb_info = &cb;
	ip.gmi_cuts = GLP_ON;
	ip.mir_cuts = GLP_ON;
	ip.cov_cuts = GLP_ON;
	ip.clq_cuts = GLP_ON;
	if (x->o->mip_seconds > 0)
		ip.tm_lim = x->o->mip_seconds * 1000 < INT32_MAX
				    ? (int)(x->o->mip_seconds * 1000)
				    : INT32_MAX;
	st = glp_intopt(lp, &ip);
	out->nodes = cb.nodes;
	inc = 0;
	if (glp_mip_status(lp) == GLP_OPT || glp_mip_status(lp) == GLP_FEAS)
		inc = glp_mip_obj_val(lp);
	if (!st && glp_mip_status(lp) == GLP_OPT) {
		bound = inc;
		out->proved = true;
	} else if (st == GLP_ETMLIM || st == 0) {
		/* stopped: the open nodes' bound, or the root's */
		bound = cb.best < root ? cb.best : root;
		if (bound < inc)
			bound = inc;
	} else {
		cr_err("the unsplittable bound's MIP failed (GLPK: %d, status "
		       "%d)",
		       st, glp_mip_status(lp));
		return -1;
	}
	out->avg_frac = bound / (double)m->n;
	out->incumbent_frac = inc / (double)m->n;
	return 0;
}

int cr_bound_mip(const struct model *m, const struct cr_bound_opts *o,
		 struct cr_bound_phase *out)
{
	size_t npairs = (size_t)m->ns * m->ns;
	struct mip x = {.m = m, .o = o};
	int ret = -1;

	x.lp = glp_create_prob();
	x.c.pair = calloc(npairs + 1, sizeof(*x.c.pair));
	x.c.done = calloc(npairs + 1, 1);
	if (!x.c.pair || !x.c.done)
		goto oom;
	ret = candidates(&x);
	if (ret == -1)
		goto oom;
	if (ret)
		goto out;
	ret = -1;
	if (build(&x, out))
		goto oom;
	if (!out->cols) {
		out->proved = true;
		ret = 0;
		goto out;
	}
	ret = search(&x, out);
	goto out;
oom:
	cr_err("out of memory building the unsplittable bound's MIP");
out:
	for (size_t k = 0; x.c.pair && k < npairs; k++)
		cr_bound_pathset_free(&x.c.pair[k]);
	free(x.c.pair);
	free(x.c.done);
	cr_bound_trip_free(&x.t);
	glp_delete_prob(x.lp);
	return ret;
}
