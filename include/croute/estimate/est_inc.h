/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contention estimate kept up to date under small LFT changes, for
 * the improvement pass: every phase of a few patterns is held with its
 * flows' paths and rates, and a change of one (switch, LID) entry is
 * scored by re-walking only the flows to that LID that crossed the
 * switch, and re-solving only their phases. The figures are the ones
 * cr_est_run() gives for the same routing, to the last bit.
 *
 * Directed links are numbered as in struct cr_est_result: the link
 * leaving port p of node n is p plus the sum of (num_ports + 1) over the
 * nodes before n.
 */
#ifndef CROUTE_EST_INC_H
#define CROUTE_EST_INC_H

#include <croute/estimate/estimate.h>

struct cr_est_inc;

/*
 * Estimates every phase of pats[0..n) on f routed by r; r's LFTs are read
 * again on each cr_est_inc_try(). NULL (logged) on error; NULL with
 * *too_big set when the phases would hold more than max_entries path
 * entries (not logged: the caller says what it skips).
 */
struct cr_est_inc *cr_est_inc_new(const struct cr_fabric *f,
				  const struct cr_routing *r,
				  const struct cr_pattern *pats, unsigned n,
				  const struct cr_hosts *hosts,
				  uint64_t max_entries, bool *too_big);
/*
 * The same, pattern i on hosts[i]: a pattern held on several host orders
 * (the objective's random orders) is several patterns.
 */
struct cr_est_inc *cr_est_inc_new_each(const struct cr_fabric *f,
				       const struct cr_routing *r,
				       const struct cr_pattern *pats,
				       const struct cr_hosts *const *hosts,
				       unsigned n, uint64_t max_entries,
				       bool *too_big);
void cr_est_inc_free(struct cr_est_inc *x);

/* Pattern i's average and minimum fraction of injection, as reported. */
double cr_est_inc_avg(const struct cr_est_inc *x, unsigned i);
double cr_est_inc_min(const struct cr_est_inc *x, unsigned i);

/*
 * After the caller changed r's entry for lid at switch node sw, whose
 * old port was old_port: the flows to lid that left sw by old_port are
 * walked again and their phases solved again; avg[] and min[] (one per
 * pattern) receive the figures the change gives. Nothing is kept until
 * cr_est_inc_commit(). Returns the number of flows that changed path, -2
 * when one of them no longer arrives (or arrives where it did not), -1
 * (logged) out of memory.
 */
long cr_est_inc_try(struct cr_est_inc *x, uint32_t sw, unsigned old_port,
		    uint16_t lid, double *avg, double *min);
/* The same for several entries changed at once (each counted once). */
struct cr_est_inc_change {
	uint32_t sw; /* switch node */
	uint8_t old_port;
	uint16_t lid;
};
long cr_est_inc_try_n(struct cr_est_inc *x, const struct cr_est_inc_change *c,
		      unsigned n, double *avg, double *min);
/*
 * The same, solving only the phases of patterns 0 .. npat - 1: the other
 * patterns' figures are NAN until cr_est_inc_try_more() solves the rest
 * (0, or -1 logged); a try is kept (commit) only once complete. A caller
 * whose first figure already decides saves the other patterns' solves.
 */
long cr_est_inc_try_part(struct cr_est_inc *x,
			 const struct cr_est_inc_change *c, unsigned n,
			 unsigned npat, double *avg, double *min);
int cr_est_inc_try_more(struct cr_est_inc *x, double *avg, double *min);
/* Keeps the last try. 0, or -1 (logged) out of memory. */
int cr_est_inc_commit(struct cr_est_inc *x);
/* Commits so far; a phase changed by commit c has version c. */
uint32_t cr_est_inc_commits(const struct cr_est_inc *x);
/*
 * The newest version among the phases holding a flow to lid that leaves
 * sw by port: a try of (sw, lid) scores the same as at commit c when
 * neither these phases nor any entry for lid changed since.
 */
uint32_t cr_est_inc_version(const struct cr_est_inc *x, uint32_t sw,
			    unsigned port, uint16_t lid);
/*
 * The phases holding a flow to lid that leaves sw by port, in increasing
 * order, each once: at most max into out[]; returns how many there are.
 * Two changes whose phases are disjoint score as the sum of their own
 * changes (each phase is solved on its own).
 */
uint32_t cr_est_inc_phases(const struct cr_est_inc *x, uint32_t sw,
			   unsigned port, uint16_t lid, uint32_t *out,
			   uint32_t max);
/* Phase solves made so far: the work, independent of the machine. */
uint64_t cr_est_inc_solves(const struct cr_est_inc *x);
/*
 * Phases a try took from the phase's previous try instead of solving
 * them: the same changed flows on the same paths, nothing committed to
 * the phase since (each phase keeps its last solve). They count a
 * quarter of a solve's work: the copies a phase costs anyway.
 */
uint64_t cr_est_inc_reused(const struct cr_est_inc *x);
/*
 * Path entries plus flows of every phase solved so far: what the solves
 * cost, counted the same on any machine and under any load.
 */
uint64_t cr_est_inc_work(const struct cr_est_inc *x);
/*
 * Path entries plus flows of every phase held: the work of solving them
 * all once, as cr_est_inc_new() did (not counted in cr_est_inc_work()).
 */
uint64_t cr_est_inc_held(const struct cr_est_inc *x);

/*
 * Where flows are held back: fn(arg, lid, links, n, b, frac) for every
 * flow of pattern `pat` that arrives, links[0..n) its path (host link
 * first), b the index in it of the link that limits it (saturated, the
 * flow among its fastest; else its narrowest link), n when it gets its
 * injection rate.
 */
typedef void cr_est_inc_limit_fn(void *arg, uint16_t lid, const uint32_t *links,
				 unsigned n, unsigned b, double frac);
void cr_est_inc_limits(struct cr_est_inc *x, unsigned pat,
		       cr_est_inc_limit_fn *fn, void *arg);

#endif
