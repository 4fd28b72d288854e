/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Safe transitions: whether the switches may go from one routing to
 * another while OpenSM rewrites their LFTs a block at a time, so that for
 * a while every switch holds its old entry for some LIDs and its new entry
 * for others, in any combination.
 *
 * A change is safe when (checked in this order):
 *   - every SL that some path uses maps to the same VL in both;
 *   - no (source switch, destination LID) pair that both route changes
 *     its SLs (running queue pairs keep the path SLs they were given);
 *   - toward each destination LID, the union of the old and new next hops
 *     over all switches has no cycle: no mix forwards a packet in a loop;
 *   - per VL, the channel dependencies of every path a mix can produce
 *     are acyclic: a packet may follow old entries at some switches and
 *     new ones at others, so a dependency pairs either entry of one
 *     switch with either entry of the next (doc/design.md, "Safe
 *     transitions", has the argument).
 * Every switch is taken as a source of every LID, as cr_check() does.
 */
#ifndef CROUTE_TRANSITION_H
#define CROUTE_TRANSITION_H

#include <stdio.h>
#include <croute/model/routing.h>

enum cr_transition_fault {
	CR_TRANSITION_SAFE = 0,
	CR_TRANSITION_SL2VL, /* an SL in use goes to another VL */
	CR_TRANSITION_SL, /* a pair's path SLs change */
	CR_TRANSITION_LOOP, /* a mix forwards a LID in a cycle */
	CR_TRANSITION_CREDIT, /* a VL's union of dependencies has a cycle */
};

struct cr_transition_report {
	enum cr_transition_fault fault;
	uint64_t changed; /* LFT entries (switch, LID in use) that differ */
	uint16_t lid; /* SL, LOOP: the destination LID */
	uint32_t sw; /* SL: the source switch node; LOOP: one on the cycle */
	uint8_t sl; /* SL2VL: the SL */
	uint8_t vl; /* CREDIT: the VL */
	uint32_t cycle; /* LOOP: switches, CREDIT: cables on the cycle */
};

/*
 * Checks the change from the tables from to the tables to on f (both made
 * for f's LIDs; for a change of the fabric, f is the fabric after it: a
 * cable gone carries nothing). The first fault found is described on out (may be NULL):
 * switches by name, GUID and LID, ports, the LID and the VL, and which
 * table each step takes. Returns 0 safe, 1 unsafe (see rep->fault), -1
 * (logged) when the check cannot run.
 */
int cr_transition_check(const struct cr_fabric *f,
			const struct cr_routing *from,
			const struct cr_routing *to, FILE *out,
			struct cr_transition_report *rep);

/* "safe", "SL2VL changes", "SL changes", "forwarding loop", "credit loop" */
const char *cr_transition_fault_name(enum cr_transition_fault fault);

#endif
