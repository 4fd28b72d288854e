/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one clock of the core: run times in logs, reports and budgets. */
#ifndef CROUTE_CLOCK_H
#define CROUTE_CLOCK_H

/* Seconds on the monotonic clock (differences only). */
double cr_now(void);

#endif
