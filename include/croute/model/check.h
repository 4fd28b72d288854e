/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Verification of a routing: reachability of every LID from every CA port,
 * loops, hop optimality and credit loops (cycles in the channel dependency
 * graph of each virtual lane).
 */
#ifndef CROUTE_CHECK_H
#define CROUTE_CHECK_H

#include <stdio.h>
#include <croute/model/routing.h>

struct cr_check_report {
	uint64_t pairs; /* (source CA port, destination LID) checked */
	uint64_t unreachable; /* no entry or dead port on the way */
	uint64_t loops; /* paths that revisit a switch */
	uint64_t non_minimal; /* longer than the fabric's shortest path */
	uint64_t credit_loops; /* virtual lanes whose CDG has a cycle */
	uint32_t max_hops;
	double avg_hops;
};

#define CR_CHECK_MINIMAL 0x1 /* count non-minimal paths */
#define CR_CHECK_CREDIT 0x2 /* look for credit loops */
#define CR_CHECK_SWITCHES 0x4 /* also check paths from every switch */

/*
 * Checks r on f. Problems are reported on out (up to max_report lines each
 * kind; out may be NULL). Returns 0 when the check could run (then see the
 * report), -1 on error.
 */
int cr_check(const struct cr_fabric *f, const struct cr_routing *r,
	     unsigned flags, FILE *out, unsigned max_report,
	     struct cr_check_report *rep);

/*
 * One problem cr_check_each() found, as fields: a path from switch node
 * from to lid (held by port to_port of node to) that is unreachable,
 * loops, or takes hops hops where fewer would do; or a credit loop on
 * virtual lane vl, its cycle of cables (each from a switch port to the
 * far node's port), valid during the call only.
 */
enum cr_check_kind {
	CR_CHECK_UNREACHABLE,
	CR_CHECK_LOOP,
	CR_CHECK_NON_MINIMAL,
	CR_CHECK_CREDIT_LOOP,
};
struct cr_check_cable {
	uint32_t node;
	unsigned port;
	uint32_t remote;
	unsigned remote_port;
};
struct cr_check_problem {
	enum cr_check_kind kind;
	uint32_t from;
	uint16_t lid;
	uint32_t to;
	unsigned to_port;
	unsigned hops;
	unsigned vl;
	const struct cr_check_cable *cables;
	uint32_t num_cables;
};
struct cr_check_sink {
	void (*fn)(void *arg, const struct cr_check_problem *p);
	void *arg;
};
/*
 * A path toward lid that ends short of it from switch node sw: true when
 * it loops among switches, false at a dead end (the reports tell them
 * apart).
 */
bool cr_path_loops(const struct cr_fabric *f, const struct cr_routing *r,
		   uint32_t sw, uint16_t lid);

/* cr_check with each problem handed to out (may be NULL). */
int cr_check_each(const struct cr_fabric *f, const struct cr_routing *r,
		  unsigned flags, const struct cr_check_sink *out,
		  unsigned max_report, struct cr_check_report *rep);
/* A problem as cr_check's text lines. */
void cr_check_print(FILE *out, const struct cr_fabric *f,
		    const struct cr_check_problem *p);

/*
 * The credit-loop search of cr_check on one virtual lane, path SLs
 * ignored: 1 when r's LFTs close a cycle in the channel dependency graph
 * (every switch a source), 0 when not, -1 (logged) out of memory. Engines
 * use it to verify their own routes.
 */
int cr_credit_loop_any(const struct cr_fabric *f, const struct cr_routing *r);

#endif
