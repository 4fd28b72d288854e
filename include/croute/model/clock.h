/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one clock of the core: run times in logs, reports and budgets. */
#ifndef CROUTE_CLOCK_H
#define CROUTE_CLOCK_H

#include <stdbool.h>

/* Seconds on the monotonic clock (differences only). */
double cr_now(void);

/*
 * When a long computation gives up: cancel (read atomically, set by
 * another thread) or the clock past deadline (cr_now() seconds; 0: none).
 * Work stopped this way is thrown away whole, never cut at a point that
 * depends on timing.
 */
struct cr_stop {
	const bool *cancel; /* NULL: none */
	double deadline;
	/*
	 * Asked too, on the computing thread, when not NULL: news that only
	 * that thread can see (the plugin's jobs watcher: a new jobs file)
	 */
	bool (*asks)(void *arg);
	void *arg;
};

/* Whether s (NULL: never) says to give up now. */
bool cr_stop_now(const struct cr_stop *s);

#endif
