/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whether the LIDs of a port with LMC > 0 take distinct paths: what a
 * stack striping over them (UCX with UCX_IB_LID_PATH_BITS) can gain.
 */
#ifndef CROUTE_LMC_PATHS_H
#define CROUTE_LMC_PATHS_H

#include <stdint.h>

#include <croute/model/fabric.h>
#include <croute/model/routing.h>

struct cr_lmc_paths {
	/* ordered pairs of CA ports with a LID, both cabled to switches */
	uint64_t pairs;
	/* those whose destination's 2^LMC LIDs take pairwise distinct paths */
	uint64_t distinct;
	/* those with a LID of the destination that does not arrive */
	uint64_t broken;
};

/*
 * Counts the pairs. Paths compare as the sequence of output ports from
 * the source's switch: a pair on one switch has one path only. At LMC 0
 * every arriving pair counts as distinct. 0, or -1 (memory, logged).
 */
int cr_lmc_paths_count(const struct cr_fabric *f, const struct cr_routing *r,
		       struct cr_lmc_paths *out);

#endif
