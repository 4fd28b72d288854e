/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What croute resilience's output files share (src/core/report/resil*). */
#ifndef CROUTE_RESIL_INT_H
#define CROUTE_RESIL_INT_H

#include <stdio.h>

#include <croute/report/resil.h>

struct cr_resil_summary {
	uint32_t unrouted, unreachable, credit, loops;
	uint32_t worst, churn_at; /* rows */
	double worst_frac, median_frac;
	uint64_t churn_blocks, churn_entries;
};

/* A row's bandwidth as a fraction of the intact fabric's. */
double cr_resil_frac(const struct cr_resil_report *rep,
		     const struct cr_resil_row *r);
/* Row numbers, worst failure first (allocated; NULL out of memory). */
uint32_t *cr_resil_worst_first(const struct cr_resil_report *rep);
int cr_resil_summarize(const struct cr_resil_report *rep,
		       struct cr_resil_summary *s);
/* "name 0xGUID port p - name 0xGUID port q", or a switch's name and GUID. */
void cr_resil_what(FILE *out, const struct cr_resil_row *r);
/*
 * The first i in [from, end) where a[i] != b[i], else end: a failure
 * changes a few entries of each table, and its row costs two passes over
 * every table (the changes for the estimate, the blocks for the churn).
 */
uint32_t cr_resil_next_diff(const uint8_t *a, const uint8_t *b, uint32_t from,
			    uint32_t end);

/*
 * A worker's incremental score (resil_inc.c): the phases of c's patterns
 * on hosts' random orders over the intact tables r of f. NULL when they
 * would not fit or memory runs out (the worker scores in full).
 */
struct cr_resil_inc;
struct cr_hosts;
struct cr_resil_inc *cr_resil_inc_new(const struct cr_fabric *f,
				      const struct cr_routing *r,
				      const struct cr_hosts *hosts,
				      const struct cr_resil_conf *c);
void cr_resil_inc_free(struct cr_resil_inc *x);
/*
 * Failure ft's means into avg[] and min[] from tables r of g, hosts h:
 * 0; 1 when it must be scored in full; -1 (logged) out of memory.
 */
int cr_resil_inc_score(struct cr_resil_inc *x, const struct cr_fabric *g,
		       const struct cr_routing *r, const struct cr_fault *ft,
		       const struct cr_hosts *h, double *avg, double *min);

/*
 * The check of a cable failure from the intact routing's counts per LID
 * (resil_check.c): only the LIDs whose paths can differ walked again.
 * NULL when the intact routing has path SLs or memory runs out.
 */
struct cr_resil_check;
struct cr_check_report;
struct cr_resil_check *cr_resil_check_new(const struct cr_fabric *f,
					  const struct cr_routing *r);
void cr_resil_check_free(struct cr_resil_check *x);
/*
 * cr_check()'s pairs, unreachable, loops and credit loops (CR_CHECK_CREDIT)
 * of tables r on g, fault ft of f (intact tables r0): 0; 1 when it must
 * be checked in full; -1 (logged) out of memory. loop_free: r was
 * searched whole for credit loops on one VL and has none (the repair's
 * own search, cr_incr_stats.loop_free), not searched again.
 */
int cr_resil_check_cable(const struct cr_resil_check *x,
			 const struct cr_fabric *f, const struct cr_routing *r0,
			 const struct cr_fabric *g, const struct cr_routing *r,
			 const struct cr_fault *ft, bool loop_free,
			 struct cr_check_report *rep);

#endif
