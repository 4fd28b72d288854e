/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The penalty factors of the estimator's model (doc/design.md, "The
 * contention estimator"): their defaults and the one parser of their text
 * form, used by the command's --penalty and by croute_penalty_factors.
 */
#ifndef CROUTE_PENALTY_H
#define CROUTE_PENALTY_H

#include <stddef.h>

#include <croute/io/est_conf.h> /* CR_PENALTY_DEFAULT */

struct cr_penalty {
	double be; /* βe: reception */
	double bs; /* βs: emission */
	double gr; /* γr: receive buffers saturated */
};

void cr_penalty_default(struct cr_penalty *p);
/*
 * Parses "βe;βs;γr" (three positive numbers; blanks around them allowed).
 * Returns 0, or -1 leaving *p unchanged and, when why is not NULL,
 * writing what is wrong into why (len bytes). Logs nothing: the caller
 * names the file, line, key or option.
 */
int cr_penalty_scan(const char *s, struct cr_penalty *p, char *why, size_t len);
/*
 * cr_penalty_scan that logs its error, naming what (the key or option the
 * text came from) and the bad value.
 */
int cr_penalty_parse(const char *s, const char *what, struct cr_penalty *p);

#endif
