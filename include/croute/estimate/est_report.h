/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The estimator's results as text: a log line, the full text report
 * (croute-contention.dump, `croute estimate`) and JSON (--json). The
 * formats are in doc/design.md, "File formats". HTML is est_html.h.
 */
#ifndef CROUTE_EST_REPORT_H
#define CROUTE_EST_REPORT_H

#include <stdio.h>

#include <croute/estimate/estimate.h>

/* One line for a log: name, flows, avg and min, hottest link, unrouted. */
void cr_est_summary(const struct cr_est_result *res, char *buf, size_t len);
#define CR_REPORT_PHASES 0x1 /* one line / entry per phase */
#define CR_REPORT_MATRIX 0x2 /* JSON: the shift matrix */
#define CR_REPORT_TIMES 0x4 /* text: each pattern's run time */
/* The full report. 0, or -1 on an I/O error. */
int cr_est_write_text(FILE *out, const struct cr_fabric *f,
		      const struct cr_est_result *res, unsigned flags);
/*
 * Each result on the hosts' own order and on the random orders
 * cr_est_patterns() scored (params.orders of params.order_seed): the
 * mean and worst of the average and of the slowest flow. NULL results
 * are left out. 0, or -1 on an I/O error.
 */
int cr_est_write_orders(FILE *out, struct cr_est_result *const *res, int n,
			uint32_t orders, uint64_t seed);
/*
 * The end of a JSON object, "patterns": [...]}, for n results; the caller
 * writes the opening brace and its other fields. 0 or -1.
 */
int cr_est_write_json(FILE *out, const struct cr_fabric *f,
		      struct cr_est_result *const *res, unsigned n,
		      unsigned flags);

#endif
