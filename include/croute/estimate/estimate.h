/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contention estimator: the InfiniBand penalty model (J. Vienne's
 * thesis, as SimGrid's network/model:IB implements it) applied to the paths
 * a routing gives, for traffic patterns of concurrent flows. doc/design.md,
 * "The contention estimator", fixes the model; this is its only
 * implementation.
 *
 * Use: cr_est_new() once per (fabric, routing); cr_est_run() per pattern;
 * report with est_report.h.
 * cr_est_phase() scores one set of flows and gives per-flow detail.
 * Memory: proportional to the fabric plus the largest phase's flows.
 */
#ifndef CROUTE_ESTIMATE_H
#define CROUTE_ESTIMATE_H

#include <croute/estimate/host_order.h>
#include <croute/estimate/pattern.h>
#include <croute/estimate/penalty.h>

/*
 * How a flow to a port with LMC > 0 uses the port's 2^LMC LIDs: only the
 * base LID (what MPI stacks do by default), striped evenly over them (a
 * link crossed by j of its k paths carries j/k of its rate), or each LID
 * a flow of its own bounded at 1/k of the injection (an upper reference).
 * At LMC 0 the three are the same estimate.
 */
enum cr_est_paths {
	CR_PATHS_BASE = 0,
	CR_PATHS_SPLIT,
	CR_PATHS_INDEP,
};

struct cr_est_params {
	struct cr_penalty pen;
	enum cr_est_paths paths;
	/* split and indep: at most this many of the LIDs (0: all) */
	uint32_t lanes;
	/* Mb/s for links whose width or speed is unknown; 0: an error. */
	uint32_t default_rate_mbps;
	/* shift matrix exact up to this many hosts, blocks beyond (0: 2048) */
	uint32_t matrix_max;
	/*
	 * cr_est_patterns(): also score each pattern on this many random
	 * host orders (cr_hosts_random_order() of order_seed); 0: only the
	 * order given.
	 */
	uint32_t orders;
	uint64_t order_seed;
};

void cr_est_params_init(struct cr_est_params *p);

/* "base", "split" or "indep"; NULL for another value */
const char *cr_est_paths_name(enum cr_est_paths m);
/* 0, or -1 when name is not a path model */
int cr_est_paths_parse(const char *name, enum cr_est_paths *m);

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

/*
 * The data rate (Mb/s) the estimator gives the link leaving port `port` of
 * node `node`: the smaller known rate of its two ends, or the default
 * rate; 0 when the port has no cable.
 */
double cr_est_capacity(const struct cr_est *e, uint32_t node, unsigned port);

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

/*
 * A pattern on random host orders: how the routing fares for a job whose
 * rank order it does not know. Order j (0 <= j < count) of a seed is the
 * same permutation on every run and platform.
 */
struct cr_est_orders {
	uint32_t
		count; /* orders scored; 0: none, or the pattern has no hosts */
	uint64_t seed;
	double mean_avg, worst_avg; /* per-flow average: mean, lowest */
	double mean_min, worst_min; /* slowest flow: mean, lowest */
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

	/*
	 * Every directed link (for histograms): num_links entries, the link
	 * leaving port p of node n at index p + the sum of (num_ports + 1)
	 * over the nodes before n.
	 */
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

	/* cr_est_patterns() with params.orders: the random orders' scores */
	struct cr_est_orders orders;
};

/*
 * Runs every phase of pattern p over the hosts (which may be NULL for a
 * flows pattern). NULL (logged) on error: bad flows file, fewer than two
 * hosts, memory.
 */
struct cr_est_result *cr_est_run(struct cr_est *e, const struct cr_pattern *p,
				 const struct cr_hosts *hosts);
void cr_est_result_free(struct cr_est_result *res);

/*
 * Host order j of seed: a uniform random permutation of h (Fisher-Yates
 * driven by the j-th draw of seed's cr_rand_next() stream, so that orders
 * of different seeds do not coincide). NULL (logged) out of memory.
 */
struct cr_hosts *cr_hosts_random_order(const struct cr_hosts *h, uint64_t seed,
				       uint32_t j);
/*
 * Runs p on n random orders of hosts (orders 0..n-1 of seed) and fills
 * *out; the pattern's own seed (phases, matchings) stays. A flows pattern
 * has no hosts: out->count 0. 0, or -1 (logged) on error.
 */
int cr_est_run_orders(struct cr_est *e, const struct cr_pattern *p,
		      const struct cr_hosts *hosts, uint32_t n, uint64_t seed,
		      struct cr_est_orders *out);

/*
 * Every pattern of pats on f routed by r: cr_est_new(), then the hosts
 * from hosts(arg) (owned by the caller; NULL, logged, on error), then
 * cr_est_run() per pattern in order (and cr_est_run_orders() when
 * par->orders is set), each result handed to
 * result(arg, i, res), which owns it; res is NULL (logged) when pattern i
 * could not be estimated. result() returns 0 to go on; anything else
 * stops the run and is returned. -1 when the estimator or the hosts
 * cannot be set up.
 */
struct cr_est_each {
	const struct cr_hosts *(*hosts)(void *arg);
	int (*result)(void *arg, int i, struct cr_est_result *res);
};
int cr_est_patterns(const struct cr_fabric *f, const struct cr_routing *r,
		    const struct cr_est_params *par,
		    const struct cr_pattern *pats, int n,
		    const struct cr_est_each *cb, void *arg);

#endif
