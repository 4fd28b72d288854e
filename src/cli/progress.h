/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Progress of long work (bound, compare, estimate, --live) on a terminal:
 * one line on stderr with the steps done and an estimate of the time
 * left, nothing when stderr is not a terminal or with -q.
 */
#ifndef CROUTE_CLI_PROGRESS_H
#define CROUTE_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct cli_progress;

/* Starts the line for total steps of what; NULL when it is not shown. */
struct cli_progress *cli_progress_start(const char *what, uint64_t total);
/* done steps of the total are finished (p may be NULL). */
void cli_progress_set(struct cli_progress *p, uint64_t done);
/*
 * Of the step under way, part of parts (in unit, "phases") are done, for
 * the line and the time left; the first part of a step is drawn at once.
 */
void cli_progress_part(struct cli_progress *p, const char *unit, uint64_t part,
		       uint64_t parts);
/* While held, the line is not drawn: output of the caller's is under way. */
void cli_progress_hold(struct cli_progress *p, bool hold);
/* Clears the line and frees p (may be NULL). */
void cli_progress_end(struct cli_progress *p);

#endif
