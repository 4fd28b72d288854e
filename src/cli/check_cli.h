/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* croute check --transition (check_transition.c). */
#ifndef CROUTE_CHECK_CLI_H
#define CROUTE_CHECK_CLI_H

#include "cli.h"

/* Each file for the tables now ([0]) and after ([1]); NULL: none. */
struct check_pair {
	const char *lfts[2];
	const char *sl[2];
	const char *sl2vl[2];
};

/*
 * Reads both tables on s's fabric and reports whether going from one to
 * the other is safe in every mix: the exit status (CLI_OK safe,
 * CLI_PROBLEMS unsafe, CLI_BAD bad input).
 */
int cli_check_transition(struct cli_setup *s, const struct check_pair *p,
			 bool json);

#endif
