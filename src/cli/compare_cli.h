/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What croute compare's table and its --lmc table share: the engine sets
 * and routing one of them with its refusal kept.
 */
#ifndef CROUTE_COMPARE_CLI_H
#define CROUTE_COMPARE_CLI_H

#include <croute/estimate/pattern.h>
#include <croute/model/fabric.h>
#include <croute/route/engine.h>

#include "est_cli.h"

/* The options column: the set's toggles, "ps+rgs" (empty: none). */
void compare_set_opts(const struct cr_engine_set *s, char *buf, size_t len);

/*
 * Routes f with set s; NULL when the engine refused, its first error
 * in why (empty when it gave none).
 */
struct cr_routing *compare_route_set(struct cli_setup *setup,
				     const struct cr_fabric *f,
				     const struct cr_engine_set *s,
				     double *secs, char *why, size_t len);

/* compare --lmc L,...: each set routed at each LMC of the list. */
struct compare_lmc {
	struct cli_setup *setup;
	struct est_setup *est;
	unsigned lmc[CR_MAX_LMC + 1];
	unsigned num_lmc;
	bool paths_given; /* --paths: that model alone */
	bool json;
	const struct cr_engine_set *sets;
	int nsets;
	const struct cr_pattern *pats;
	int npat;
};

/* "0,1,2" into l; 0, or -1 after a usage error naming --lmc. */
int compare_lmc_parse(struct compare_lmc *l, const struct cli_cmd *cmd,
		      const char *arg);
/*
 * The table on f (its LIDs reassigned at each LMC). An LMC whose LIDs do
 * not fit is refused before any row. Returns the exit status.
 */
int compare_lmc_table(struct compare_lmc *l, struct cr_fabric *f);

#endif
