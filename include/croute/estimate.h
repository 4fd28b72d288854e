/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contention estimator: the InfiniBand penalty model (J. Vienne's
 * thesis, as SimGrid's network/model:IB implements it) applied to the paths
 * a routing gives, for traffic patterns of concurrent flows. doc/design.md,
 * "The contention estimator", fixes the model; this is its only
 * implementation.
 *
 * Use: cr_est_new() once per (fabric, routing); cr_est_run() per pattern;
 * report with cr_est_summary(), cr_est_write_text() or cr_est_write_json().
 * cr_est_phase() scores one set of flows and gives per-flow detail.
 * Memory: proportional to the fabric plus the largest phase's flows.
 */
#ifndef CROUTE_ESTIMATE_H
#define CROUTE_ESTIMATE_H

#include <stdio.h>
#include <croute/routing.h>

/* ---- penalty factors -------------------------------------------------- */

struct cr_penalty {
	double be; /* βe: reception */
	double bs; /* βs: emission */
	double gr; /* γr: receive buffers saturated */
};

#define CR_PENALTY_DEFAULT "0.965;0.925;1.35"

void cr_penalty_default(struct cr_penalty *p);
/*
 * Parses "βe;βs;γr" (three positive numbers). On error logs a message
 * naming what (the key or option the text came from) and the bad value,
 * leaves *p unchanged and returns -1.
 */
int cr_penalty_parse(const char *s, const char *what, struct cr_penalty *p);

/* ---- endpoints and host order ----------------------------------------- */

/* A CA port: the source of a flow, or one host of a pattern. */
struct cr_endpoint {
	uint32_t node;
	uint8_t port;
	uint16_t lid; /* base LID of the port */
};

struct cr_hosts {
	struct cr_endpoint *ep;
	uint32_t count;
};

/*
 * Every CA in natural sort order of node descriptions (ties: node GUID),
 * each by its first cabled port with a LID. NULL (logged) on error.
 */
struct cr_hosts *cr_hosts_default(const struct cr_fabric *f);
/* The CA ports with these LIDs, in this order (ftree's CA order). */
struct cr_hosts *cr_hosts_from_lids(const struct cr_fabric *f,
				    const uint32_t *lids, size_t n);
/*
 * A host list file: one host a line, as in flows files (see
 * cr_endpoint_parse); '#' starts a comment. Errors name file:line.
 */
struct cr_hosts *cr_hosts_read(const struct cr_fabric *f, const char *path);
/*
 * The order doc/design.md prescribes: the host list file when path is not
 * NULL; else the routing's CA order (cr-ftree) when it has one; else
 * cr_hosts_default().
 */
struct cr_hosts *cr_hosts_for(const struct cr_fabric *f,
			      const struct cr_routing *r, const char *path);
void cr_hosts_free(struct cr_hosts *h);

/*
 * Strcmp with digit runs compared as numbers ("sw2" < "sw10"), the order
 * `croute gen` names hosts for.
 */
int cr_natural_cmp(const char *a, const char *b);

/* ---- patterns --------------------------------------------------------- */

enum cr_pattern_kind {
	CR_PAT_SHIFT, /* phase k: host i sends to host i + k mod N */
	CR_PAT_BISECT, /* random perfect matchings, both directions */
	CR_PAT_ALLTOALL, /* one phase, every host to every other */
	CR_PAT_FANIN, /* k hosts to one, then that one to the k */
	CR_PAT_FLOWS, /* one phase read from a file */
};

struct cr_pattern {
	enum cr_pattern_kind kind;
	/*
	 * shift: phases to sample (0: all N - 1); bisect: matchings (0: 10);
	 * fanin: senders (0: min(16, N - 1)).
	 */
	uint32_t count;
	uint32_t root; /* fanin: the receiver's index in the hosts */
	uint64_t seed; /* shift sample, bisect matchings */
	char *path; /* flows: the file (owned) */
};

/*
 * "shift", "shift:K", "bisect", "bisect:R", "alltoall", "fanin",
 * "fanin:K", "flows:FILE". seed starts at 1. -1 (logged) on error.
 */
int cr_pattern_parse(const char *spec, struct cr_pattern *p);
/*
 * A comma-separated list of those ("shift,bisect"); *pats is allocated.
 * Returns the count, or -1 (logged, nothing allocated).
 */
int cr_pattern_list_parse(const char *list, struct cr_pattern **pats);
void cr_pattern_release(struct cr_pattern *p);
void cr_pattern_list_free(struct cr_pattern *pats, int n);
const char *cr_pattern_kind_name(enum cr_pattern_kind kind);

/* ---- flows ------------------------------------------------------------ */

struct cr_flow {
	uint32_t src_node; /* a CA or router */
	uint8_t src_port;
	uint16_t dst_lid;
};

/*
 * One endpoint of a flows or host file: a node description (in double
 * quotes when it has spaces; a quoted token is always a description), a
 * GUID (0x..., node or port GUID) or a LID (decimal). A node stands for
 * its first cabled port with a LID (a switch: its LID). The index makes
 * each lookup logarithmic.
 */
struct cr_ep_index;
struct cr_ep_index *cr_ep_index_new(const struct cr_fabric *f);
void cr_ep_index_free(struct cr_ep_index *ix);
/* Fills *ep; returns 0, or -1 with *why set to a static reason. */
int cr_endpoint_parse(const struct cr_ep_index *ix, const char *tok,
		      bool quoted, struct cr_endpoint *ep, const char **why);

/* Reads a flows file ("src dst" per line). Errors name file:line. */
int cr_flows_read(const struct cr_fabric *f, const char *path,
		  struct cr_flow **flows, size_t *n);

/* ---- the estimator ---------------------------------------------------- */

struct cr_est_params {
	struct cr_penalty pen;
	/* Mb/s for links whose width or speed is unknown; 0: an error. */
	uint32_t default_rate_mbps;
	/* shift matrix exact up to this many hosts, blocks beyond (0: 2048) */
	uint32_t matrix_max;
};

void cr_est_params_init(struct cr_est_params *p);

struct cr_est;

/*
 * f must be finalized and stay unchanged, r sized for f, while the
 * estimator lives. NULL (logged) on error, unknown link rates included.
 */
struct cr_est *cr_est_new(const struct cr_fabric *f, const struct cr_routing *r,
			  const struct cr_est_params *p);
void cr_est_free(struct cr_est *e);

enum cr_flow_status {
	CR_FLOW_OK = 0,
	CR_FLOW_NO_PATH, /* no entry, dead port, delivered elsewhere */
	CR_FLOW_LOOP, /* the path revisits a switch */
	CR_FLOW_BAD_SOURCE, /* the source is not a cabled CA port */
};

/* Per-flow detail of cr_est_phase(). Rates in Mb/s. */
struct cr_flow_est {
	double rate; /* max-min fair rate; 0 when not OK */
	double bound; /* bottleneck / penalty */
	double bottleneck; /* B: smallest link capacity on the path */
	double penalty; /* p = max(Pout(s), pe) */
	double inject; /* capacity of the source port's link */
	uint32_t hops; /* directed links on the path */
	uint32_t stop_node; /* not OK: where the walk ended */
	uint8_t stop_port;
	uint8_t status; /* enum cr_flow_status */
};

/*
 * Scores one phase of n concurrent flows; out (n entries, may be NULL)
 * receives the detail. Returns the number of flows that do not arrive, or
 * -1 (logged) when memory runs out.
 *
 * Counting (Δs, Δe, Φ, Ω) is per node and covers the flows that arrive at
 * another node: a flow that does not arrive moves nothing and gets rate
 * 0; a flow between two ports of one CA is not network contention and
 * keeps penalty 1, as SimGrid ignores such comms.
 */
long cr_est_phase(struct cr_est *e, const struct cr_flow *flows, size_t n,
		  struct cr_flow_est *out);

/* The directed link leaving port `port` of node `node`: its load. */
struct cr_est_link {
	uint32_t node;
	uint8_t port;
	uint32_t max_flows; /* most concurrent flows in one phase */
	uint64_t total_flows; /* summed over the phases */
	double capacity; /* Mb/s */
};

struct cr_est_phase_stat {
	uint32_t label; /* shift: k; otherwise the phase number */
	uint32_t flows;
	uint32_t unrouted;
	double avg_frac, min_frac; /* of the source's injection rate */
	double avg_gbps, min_gbps;
};

struct cr_est_unrouted {
	struct cr_flow flow;
	uint32_t phase; /* label */
	uint32_t stop_node;
	uint8_t stop_port;
	uint8_t status;
};

#define CR_EST_HOT 10
#define CR_EST_UNROUTED_KEPT 10

struct cr_est_result {
	enum cr_pattern_kind kind;
	uint64_t seed;
	char name[64]; /* "shift", "shift:64" */
	uint32_t hosts;
	uint32_t phases_total; /* the pattern's phases in all */
	uint64_t flows;
	uint64_t unrouted; /* flows that do not arrive */
	double avg_frac, min_frac; /* over every flow; unrouted = 0 */
	double avg_gbps, min_gbps;
	double seconds; /* time the estimate took */

	uint32_t num_phases; /* phases run */
	struct cr_est_phase_stat *phase;

	struct cr_est_link hot[CR_EST_HOT]; /* by max_flows, total */
	unsigned num_hot;

	struct cr_est_unrouted unrouted_kept[CR_EST_UNROUTED_KEPT];
	unsigned num_unrouted_kept;

	/* Every directed link (for histograms): num_links entries. */
	uint32_t num_links;
	uint32_t *link_max_flows;
	uint64_t *link_total_flows;

	/*
	 * shift: sender x receiver rate (fraction of injection), mat_dim
	 * squared cells, each the average of the flows between host blocks
	 * of mat_block hosts (1: exact); cells without flows are < 0.
	 */
	uint32_t mat_dim;
	uint32_t mat_block;
	float *matrix;
};

/*
 * Runs every phase of pattern p over the hosts (which may be NULL for a
 * flows pattern). NULL (logged) on error: bad flows file, fewer than two
 * hosts, memory.
 */
struct cr_est_result *cr_est_run(struct cr_est *e, const struct cr_pattern *p,
				 const struct cr_hosts *hosts);
void cr_est_result_free(struct cr_est_result *res);

/* ---- reports ---------------------------------------------------------- */

/* One line for a log: name, flows, avg and min, hottest link, unrouted. */
void cr_est_summary(const struct cr_est_result *res, char *buf, size_t len);
#define CR_REPORT_PHASES 0x1 /* one line / entry per phase */
#define CR_REPORT_MATRIX 0x2 /* JSON: the shift matrix */
/* The full report. 0, or -1 on an I/O error. */
int cr_est_write_text(FILE *out, const struct cr_fabric *f,
		      const struct cr_est_result *res, unsigned flags);
/* A JSON object {"patterns": [...]} for n results. 0 or -1. */
int cr_est_write_json(FILE *out, const struct cr_fabric *f,
		      struct cr_est_result *const *res, unsigned n,
		      unsigned flags);

#endif
