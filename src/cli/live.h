/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --live's parts that speak infiniband-diags' libraries (HAVE_LIVE only). */
#ifndef CROUTE_CLI_LIVE_H
#define CROUTE_CLI_LIVE_H

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include <croute/model/routing.h>

#include "cli.h"

/*
 * The model of a discovered fabric, in node GUID order, finalized; NULL
 * (logged) when it is not consistent (live_build.c).
 */
struct cr_fabric *cli_live_build(ibnd_fabric_t *fab);
/*
 * LFT block b (64 bytes: LIDs 64b..64b+63) of switch sw into r, up to the
 * switch's LinearFDBTop top; a port beyond the switch's is no path.
 */
void cli_live_lft_block(const uint8_t *block, unsigned b, unsigned top,
			const struct cr_fabric *f, struct cr_routing *r,
			uint32_t sw);

/*
 * The path SLs (SA PathRecords) and the SL2VL tables between switches
 * (SMPs) of the routing in place into r, whose LFTs are read; mad is
 * opened for the SMI and SA classes. CLI_LIVE_SL_AUTO asks every pair
 * only when a path from the local port is not on SL 0. Returns 0 (r->sl
 * stays NULL when no SLs were read, said why), or -1 after an error.
 */
int cli_live_read_sls(struct ibmad_port *mad, ibnd_fabric_t *fab,
		      const struct cr_fabric *f, struct cr_routing *r,
		      enum cli_live_sl mode);

#endif
