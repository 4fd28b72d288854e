// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one-routing bound (--one-routing): the per-phase LPs let every
 * phase route anew; a routing by LFTs sends every flow from source switch
 * s to LID d along the same path, in every phase. So one LP over all
 * phases of the pattern, with per (s, d) and candidate path p a share
 * z(s, d, p) in [0, 1], sum over p of z = 1, shared by every phase:
 *   r(i, p) <= inject(i) z(s_i, d_i, p)   for every flow i of every phase,
 *   per phase: switch links and host links as in the per-phase LPs,
 *   maximise the sum over all flows of r(i, p) / inject(i).
 * An LFT routing is the case z in {0, 1}, with its max-min rates as r:
 * the optimum bounds the pattern's average. Candidates as for the MIP
 * (minimal paths, or simple ones within the extra hops).
 *
 * It is solved by GLPK's interior point method: on the shift LP of
 * tests/fabrics/prod-tree.topo (43,221 rows, 25,654 columns: croute bound
 * -t tests/fabrics/prod-tree.topo --one-routing --paths minimal -v) it
 * takes seconds, the simplex over ten minutes. The bound reported is not
 * the solver's objective but the Lagrangian bound of its duals: for any
 * y >= 0 on the <= rows (free on the = rows), sum of b y plus, per
 * column, its upper bound times its reduced cost when positive, bounds
 * the optimum from above whatever the solver's tolerances.
 */
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>

#include "bound_int.h"

/* (source switch, LID) -> the pair's first z column (0: none yet) */
struct pairmap {
	uint64_t *k;
	int *col;
	uint32_t *np;
	size_t size;
};

static size_t pair_slot(const struct pairmap *pm, uint64_t key)
{
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 11) % pm->size;

	while (pm->col[h] && pm->k[h] != key)
		h = (h + 1) % pm->size;
	return h;
}

struct joint {
	glp_prob *lp;
	struct trip t;
	struct pathset *pair; /* per (source switch, dest switch) */
	uint8_t *done;
	struct pairmap pm;
	double *ub; /* per column */
	size_t ncols_alloc;
	uint64_t flows;
};

static int grow_ub(struct joint *j, int col, double ub)
{
	if (cr_grow(&j->ub, &j->ncols_alloc, (size_t)col + 1, sizeof(*j->ub)))
		return -1;
	j->ub[col] = ub;
	return 0;
}

/* One phase's rows and rate columns. 0, -1 (oom), -2 (too many paths). */
static int add_phase(struct joint *j, const struct model *m,
		     const struct cr_flow *flows, const struct cr_bound_opts *o)
{
	int first_cap = glp_get_num_rows(j->lp) + 1, first_key;

	glp_add_rows(j->lp, (int)(m->ne + m->nkeys));
	first_key = first_cap + (int)m->ne;
	cr_bound_capacity_rows(j->lp, m, first_cap, first_key);
	for (size_t i = 0; i < m->n; i++) {
		uint32_t s = m->src_sw[i], d = m->dst_sw[i], np = 1;
		const struct pathset *ps = NULL;
		double inj = m->inject[i];
		int z0 = 0;

		j->flows++;
		if (inj <= 0)
			continue;
		if (s != d) {
			size_t k = (size_t)s * m->ns + d;
			int st;

			if (!j->done[k]) {
				st = cr_bound_paths(m, s, d, o->max_extra_hops,
						    CR_BOUND_MIP_MAX_PATHS,
						    &j->pair[k]);
				if (st)
					return st;
				j->done[k] = 1;
			}
			ps = &j->pair[k];
			np = ps->count;
			if (!np)
				continue;
		}
		if (np > 1) {
			/* the pair's shares, made when first met */
			uint64_t key = (uint64_t)s << 16 | flows[i].dst_lid;
			size_t h = pair_slot(&j->pm, key);

			if (!j->pm.col[h]) {
				int row = glp_add_rows(j->lp, 1);

				glp_set_row_bnds(j->lp, row, GLP_FX, 1.0, 1.0);
				j->pm.k[h] = key;
				j->pm.col[h] = glp_add_cols(j->lp, (int)np);
				for (uint32_t p = 0; p < np; p++) {
					int c = j->pm.col[h] + (int)p;

					glp_set_col_bnds(j->lp, c, GLP_DB, 0.0,
							 1.0);
					if (grow_ub(j, c, 1.0) ||
					    cr_bound_trip_add(&j->t, row, c,
							      1.0))
						return -1;
				}
			}
			z0 = j->pm.col[h];
		}
		for (uint32_t p = 0; p < np; p++) {
			int r = glp_add_cols(j->lp, 1), link;

			glp_set_col_bnds(j->lp, r, GLP_DB, 0.0, inj);
			glp_set_obj_coef(j->lp, r, 1.0 / inj);
			if (grow_ub(j, r, inj) ||
			    cr_bound_trip_add(&j->t,
					      first_key + (int)m->src_key[i], r,
					      1.0) ||
			    (m->dst_key[i] != UINT32_MAX &&
			     cr_bound_trip_add(&j->t,
					       first_key + (int)m->dst_key[i],
					       r, 1.0)))
				return -1;
			for (uint32_t k = ps ? ps->start[p] : 0;
			     ps && k < ps->start[p + 1]; k++)
				if (cr_bound_trip_add(&j->t,
						      first_cap +
							      (int)ps->edges[k],
						      r, 1.0))
					return -1;
			if (np == 1)
				continue;
			link = glp_add_rows(j->lp, 1);
			glp_set_row_bnds(j->lp, link, GLP_UP, 0.0, 0.0);
			if (cr_bound_trip_add(&j->t, link, r, 1.0) ||
			    cr_bound_trip_add(&j->t, link, z0 + (int)p, -inj))
				return -1;
		}
	}
	return 0;
}

/* GLPK's error hook: back to the solve, which gives up cleanly. */
static void glpk_failed(void *info)
{
	longjmp(*(jmp_buf *)info, 1);
}

/*
 * glp_interior on j's LP: its status, or -1 when GLPK stopped on an
 * internal error (the normal equations of a large LP overflow its sizes:
 * random 64, shift, every phase on minimal paths). GLPK's own state is
 * then unusable, so its environment, j's LP included, is freed.
 */
static int solve(struct joint *j, const glp_iptcp *parm)
{
	/* GLPK's environment is per thread, so is the jump target */
	static _Thread_local jmp_buf env;
	int st;

	if (setjmp(env)) {
		glp_error_hook(NULL, NULL);
		glp_free_env();
		j->lp = NULL;
		return -1;
	}
	glp_error_hook(glpk_failed, &env);
	st = glp_interior(j->lp, parm);
	glp_error_hook(NULL, NULL);
	return st;
}

/*
 * The Lagrangian bound of the duals y (see above): an upper bound on the
 * LP's optimum for any y of the right signs.
 */
static double dual_bound(struct joint *j)
{
	int nr = glp_get_num_rows(j->lp), nc = glp_get_num_cols(j->lp);
	double *y = calloc((size_t)nr + 1, sizeof(double));
	double *d = calloc((size_t)nc + 1, sizeof(double));
	double b = 0;

	if (!y || !d) {
		free(y);
		free(d);
		return NAN;
	}
	for (int r = 1; r <= nr; r++) {
		double v = glp_ipt_row_dual(j->lp, r);

		if (glp_get_row_type(j->lp, r) == GLP_UP) {
			if (v < 0)
				v = 0;
			b += v * glp_get_row_ub(j->lp, r);
		} else {
			b += v * glp_get_row_lb(j->lp, r); /* = rows */
		}
		y[r] = v;
	}
	for (int c = 1; c <= nc; c++)
		d[c] = glp_get_obj_coef(j->lp, c);
	for (size_t k = 1; k <= j->t.n; k++)
		d[j->t.ja[k]] -= j->t.ar[k] * y[j->t.ia[k]];
	for (int c = 1; c <= nc; c++)
		if (d[c] > 0)
			b += d[c] * j->ub[c];
	free(y);
	free(d);
	return b;
}

int cr_bound_joint(const struct cr_fabric *f, const struct cr_est *e,
		   const struct cr_pattern *p, const struct cr_hosts *hosts,
		   const struct cr_bound_opts *o, struct cr_bound_result *res)
{
	double *avg = &res->avg_frac, *primal = &res->joint_primal;
	struct model m = {.f = f, .ns = f->num_switches, .minimal = o->minimal};
	struct cr_phases *ph = cr_phases_start(f, p, hosts);
	struct cr_flow *flows = NULL;
	struct joint j = {0};
	size_t npairs = (size_t)m.ns * m.ns;
	glp_iptcp parm;
	int st, ret = -1;
	double b;

	if (!ph)
		return -1;
	glp_term_out(GLP_OFF);
	j.lp = glp_create_prob();
	glp_set_obj_dir(j.lp, GLP_MAX);
	j.pair = calloc(npairs + 1, sizeof(*j.pair));
	j.done = calloc(npairs + 1, 1);
	j.pm.size = 4 * (size_t)(hosts ? hosts->count : 1) * (m.ns + 1) + 7;
	j.pm.k = malloc(j.pm.size * sizeof(*j.pm.k));
	j.pm.col = calloc(j.pm.size, sizeof(*j.pm.col));
	flows = malloc((cr_phases_max_flows(ph) + 1) * sizeof(*flows));
	if (!j.pair || !j.done || !j.pm.k || !j.pm.col || !flows ||
	    cr_bound_model_edges(&m, e) || cr_bound_hops(&m))
		goto oom;
	for (uint32_t ix = 0; ix < cr_phases_count(ph); ix++) {
		uint32_t label;

		m.n = cr_phases_get(ph, ix, flows, &label);
		if (cr_bound_model_flows(&m, e, flows))
			goto oom;
		st = add_phase(&j, &m, flows, o);
		cr_bound_model_free_flows(&m);
		if (st == -1)
			goto oom;
		if (st == -2) {
			cr_err("--one-routing: more than %u candidate paths "
			       "between two switches",
			       CR_BOUND_MIP_MAX_PATHS);
			goto out;
		}
	}
	if (!j.flows || !glp_get_num_cols(j.lp)) {
		*avg = *primal = 0;
		ret = 0;
		goto out;
	}
	glp_load_matrix(j.lp, (int)j.t.n, j.t.ia, j.t.ja, j.t.ar);
	/* as glpsol does: the iterations need it (else GLPK's limit) */
	glp_scale_prob(j.lp, GLP_SF_AUTO);
	glp_init_iptcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	st = solve(&j, &parm);
	if (st < 0) {
		cr_err("--one-routing: GLPK could not solve the LP (%zu "
		       "entries over %llu flows); it is for small fabrics: "
		       "sample phases with --phases",
		       j.t.n, (unsigned long long)j.flows);
		goto out;
	}
	/*
	 * The duals bound the optimum whatever their quality, so the best
	 * point of a search stopped by instability or its iteration limit
	 * still serves (on the LP above, instability, with a dual bound
	 * equal to the objective to six digits)
	 */
	if ((st && st != GLP_EINSTAB && st != GLP_ENOCVG && st != GLP_EITLIM) ||
	    glp_ipt_status(j.lp) == GLP_UNDEF) {
		cr_err("the one-routing LP (%d rows, %d columns) was not solved"
		       " (GLPK: %d, status %d)",
		       glp_get_num_rows(j.lp), glp_get_num_cols(j.lp), st,
		       glp_ipt_status(j.lp));
		goto out;
	}
	b = dual_bound(&j);
	if (isnan(b))
		goto oom;
	*primal = glp_ipt_obj_val(j.lp) / (double)j.flows;
	*avg = b / (double)j.flows;
	cr_verbose("bound: one routing: %d rows, %d columns, objective %.6f,"
		   " dual bound %.6f (GLPK: %d, status %d)",
		   glp_get_num_rows(j.lp), glp_get_num_cols(j.lp), *primal,
		   *avg, st, glp_ipt_status(j.lp));
	ret = 0;
	goto out;
oom:
	cr_err("out of memory building the one-routing LP");
out:
	for (size_t k = 0; j.pair && k < npairs; k++)
		cr_bound_pathset_free(&j.pair[k]);
	free(j.pair);
	free(j.done);
	free(j.pm.k);
	free(j.pm.col);
	free(j.ub);
	cr_bound_trip_free(&j.t);
	if (j.lp)
		glp_delete_prob(j.lp);
	cr_bound_model_free(&m);
	free(flows);
	cr_phases_stop(ph);
	return ret;
}
