/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the bound's files share: one phase's fabric-level model (model.c),
 * its path sets (paths.c) and the formulations bound.c dispatches to: the
 * LPs by column generation (colgen.c) or in edge form (edge_lp.c), the
 * unsplittable MIP (mip.c); joint.c's one LP over all phases is declared
 * in include/croute/bound/bound.h.
 */
#ifndef CROUTE_BOUND_INT_H
#define CROUTE_BOUND_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glpk.h>

#include <croute/bound/bound.h>

#define CR_HOP_NONE UINT16_MAX /* no path between two switches */

struct edge {
	uint32_t from, to; /* switch indices */
	double cap; /* Gb/s */
};

/* One phase's fabric-level data, shared by the LPs and the MIP. */
struct model {
	const struct cr_fabric *f;
	uint32_t ns; /* switches */
	struct edge *edge; /* grouped by from, in switch order */
	uint32_t ne;
	uint32_t *off; /* edges of switch s: off[s] .. off[s + 1] */
	bool minimal; /* only switch-hop-minimal paths */
	/* hops[u * ns + v]: fewest switch hops from u to v (CR_HOP_NONE) */
	uint16_t *hops;
	/* per flow */
	size_t n;
	uint32_t *src_sw, *dst_sw; /* switch indices; UINT32_MAX: none */
	uint32_t *src_key, *dst_key; /* host-link row keys; UINT32_MAX none */
	double *inject; /* Gb/s; 0: the flow cannot arrive */
	/*
	 * commodity of the flow (UINT32_MAX: none needed): by source switch,
	 * or with minimal by destination switch, whose shortest-path DAG
	 * holds the commodity's arcs
	 */
	uint32_t *comm;
	uint32_t ncomm;
	uint32_t *comm_sw; /* commodity -> its source (destination) switch */
	/* host links: key -> capacity (Gb/s) */
	double *key_cap;
	uint32_t nkeys;
};

/* Edge e lies on a fewest-hop path toward switch d. */
static inline bool cr_bound_on_dag(const struct model *m, uint32_t e,
				   uint32_t d)
{
	uint16_t a = m->hops[(size_t)m->edge[e].from * m->ns + d];
	uint16_t b = m->hops[(size_t)m->edge[e].to * m->ns + d];

	return a != CR_HOP_NONE && b != CR_HOP_NONE && b + 1 == a;
}

/*
 * The model's switch links from e's rates (then cr_bound_hops()), and its
 * flows (cr_bound_model_flows, freed by cr_bound_model_free_flows before
 * the next phase's): 0, or -1 out of memory (not logged).
 */
int cr_bound_model_edges(struct model *m, const struct cr_est *e);
int cr_bound_model_flows(struct model *m, const struct cr_est *e,
			 const struct cr_flow *flows);
void cr_bound_model_free_flows(struct model *m);
void cr_bound_model_free(struct model *m);

/* m->off and m->hops from m->edge: 0, or -1 out of memory. */
int cr_bound_hops(struct model *m);

/* Growing triplet arrays for glp_load_matrix (1-based). */
struct trip {
	int *ia, *ja;
	double *ar;
	size_t n, alloc;
};

int cr_bound_trip_add(struct trip *t, int row, int col, double v);
/*
 * The capacity rows every formulation shares: one per switch link (its
 * capacity) from first_cap, one per host link (its key's) from first_key.
 */
void cr_bound_capacity_rows(glp_prob *lp, const struct model *m, int first_cap,
			    int first_key);
void cr_bound_trip_free(struct trip *t);

/*
 * Candidate paths of one switch pair for the MIP, as edge lists: minimal
 * ones (m->minimal), or simple ones up to extra hops beyond the fewest.
 * At most max paths: more gives -2 (*count set to max + 1). 0, or -1 out
 * of memory.
 */
struct pathset {
	uint32_t count;
	uint32_t *start; /* path k: edges[start[k] .. start[k + 1]) */
	uint32_t *edges;
};

int cr_bound_paths(const struct model *m, uint32_t s, uint32_t d,
		   unsigned extra, uint32_t max, struct pathset *out);
void cr_bound_pathset_free(struct pathset *p);

/*
 * The phase's avg LP, or with concurrent its min LP (the largest common
 * fraction lambda): *value the objective, the master's final size and
 * the pricing rounds when asked. Path form by column generation
 * (colgen.c). 0, or -1 (logged).
 */
int cr_bound_colgen(const struct model *m, bool concurrent, double *value,
		    uint32_t *rows_out, uint32_t *cols_out,
		    uint32_t *rounds_out);
/*
 * The same LP in edge form (edge_lp.c), written to lp_path when given,
 * solved when value is. 0, or -1 (logged).
 */
int cr_bound_edge_lp(const struct model *m, bool concurrent,
		     const char *lp_path, double *value, uint32_t *rows_out,
		     uint32_t *cols_out);

/*
 * The unsplittable bound of one phase (mip.c): out's avg_frac, min_frac,
 * incumbent, proved and MIP sizes. 0, -1 (logged), or -2 when the phase
 * is beyond the MIP's size limit (logged).
 */
int cr_bound_mip(const struct model *m, const struct cr_bound_opts *o,
		 struct cr_bound_phase *out);

#endif
