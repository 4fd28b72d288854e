/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * croute's own opensm.conf keys (remote_guid_sorting, croute_*) and the
 * GUID list files OpenSM's keys name (root_guid_file, ...), parsed from
 * text. The plugin reads the files and calls these; keeping the parsing
 * out of the plugin lets it be unit-tested and fuzzed without OpenSM.
 *
 * Errors name the file and line, the key and the value; a bad value
 * leaves the key as it was (the default, or an earlier line's value).
 * Values only a higher layer can check are checked after parsing
 * (cr_conf_check); a bad one of those falls back to the default.
 */
#ifndef CROUTE_CONF_H
#define CROUTE_CONF_H

#include <stdbool.h>
#include <stdio.h>

#include <croute/io/est_conf.h>
#include <croute/model/routing.h>

/*
 * "A job whose rank order we do not know": shift over the own order and
 * 8 random ones, bisect over as many orders (their matchings), a sampled
 * all-to-all (random pairs, sized to max_flows); the first term within
 * 1% is a tie for the next. Chosen on training orders, held-out orders
 * confirm it (bench/auto/README).
 */
#define CR_OBJECTIVE_DEFAULT "shift:avg@8~1%,bisect:avg@8,alltoall:avg"

/*
 * The improve step replaces installed tables only when better by this
 * (relative) on held-out samples (croute_auto_improve_threshold).
 */
#define CR_AUTO_THRESHOLD_DEFAULT 0.01

/*
 * The jobs file (croute_jobs_*; croute(8), croute-slurm(8)): the least
 * predicted gain on the jobs for a job-driven change, the least seconds
 * between two readings of the file, the seconds croute-slurm's prolog
 * waits for the state file to list its job.
 */
#define CR_JOBS_THRESHOLD_DEFAULT 0.02
#define CR_JOBS_MIN_INTERVAL_DEFAULT 30
#define CR_JOBS_WAIT_DEFAULT 5
/*
 * The refine stage's tables replace the first stage's, installed
 * moments before while the jobs run, only when they gain at least this
 * much more on the jobs (croute_jobs_refine_threshold): each change is a
 * heavy sweep and LFT blocks rewritten under live traffic.
 */
#define CR_JOBS_REFINE_THRESHOLD_DEFAULT 0.005

struct cr_engine;

#define CR_CONF_MAX_FAIL 8

/*
 * The croute_fail_engine test hook: where it makes an engine run fail. The
 * key is not part of the shipped configuration: it is accepted only when
 * cr_conf.test_hooks is set, which the plugin does only when opensm runs
 * with CROUTE_TEST_HOOKS=1 in its environment (tests/ibsim/lib.sh).
 */
#define CR_TEST_HOOKS_ENV "CROUTE_TEST_HOOKS"
enum cr_fail_stage {
	CR_FAIL_NONE = 0,
	CR_FAIL_IMPORT, /* before anything is written */
	CR_FAIL_ROUTE, /* after the engine ran */
	CR_FAIL_EXPORT, /* after new_lft and the hops were written */
};

struct cr_fail_rule {
	char name[32]; /* the engine as written; "": every engine */
	const struct cr_engine *engine; /* name's, found by cr_conf_check */
	enum cr_fail_stage stage;
};

/*
 * The keys whose values only a higher layer can check (an engine name, a
 * candidate list, an objective, estimate patterns and penalty factors):
 * the parser stores them as written and where, and cr_conf_check
 * (include/croute/tune/conf_check.h) checks them before use.
 */
enum cr_conf_checked {
	CR_CHECK_NONE = 0,
	CR_CHECK_AUTO_CANDIDATES,
	CR_CHECK_AUTO_OBJECTIVE,
	CR_CHECK_FAIL_ENGINE,
	CR_CHECK_PATTERNS,
	CR_CHECK_PENALTY,
	CR_CHECK_JOBS_FILE,
	CR_CHECK_PATHS,
	CR_CHECK_JOBS_OBJECTIVE,
	CR_CHECK_NUM,
};

struct cr_conf_at {
	const char *path; /* the caller's, as given to the parser */
	unsigned line;
};

/* croute's own keys from opensm.conf. */
struct cr_conf {
	bool remote_guid_sorting;
	bool lash_balance; /* croute_lash_balance: cr_options.lash_balance */
	bool lash_sl_dump; /* croute_lash_sl_dump: write croute-lash-sl.dump */
	bool dump_hosts; /* croute_dump_hosts: write croute-hosts.dump */
	bool dump_slurm; /* croute_dump_slurm: write croute-topology.conf */
	bool test_hooks; /* croute_fail_engine is accepted (test builds) */
	/*
	 * The caller refuses a bad line (croute -F) instead of going on
	 * without it (the plugin): messages then say nothing was ignored.
	 */
	bool refuse;
	unsigned threads; /* croute_threads: 0 = online CPUs, up to 8 */
	bool incremental; /* croute_incremental (include/croute/route/incremental.h) */
	bool mcast_trees; /* croute_mcast_trees (include/croute/route/mcast.h) */
	struct cr_fail_rule fail[CR_CONF_MAX_FAIL];
	unsigned num_fail;
	char fail_engine[256]; /* croute_fail_engine as written */
	struct cr_est_conf est; /* the contention estimate (est_conf.h) */
	bool balance_global; /* croute_balance global */
	bool balance_first; /* croute_balance first */
	/* cr-auto (include/croute/tune/auto.h); "" / 0: the default */
	char auto_candidates[512];
	char auto_objective[512];
	char auto_hosts[1024]; /* croute_auto_hosts: a host list file */
	double auto_budget;
	bool auto_allow_credit_loops;
	bool auto_optimize; /* the pass on cr-auto's winner, in its budget */
	/*
	 * cr-auto's improve step (and croute_optimize's pass) on a thread
	 * after the sweep, not in it (the plugin's background.c)
	 */
	bool auto_background;
	double auto_improve_threshold; /* relative, on held-out samples */
	double auto_max_churn; /* fraction of all LFT entries, 1: no cap */
	/* background installs only when safe in every mix (transition.h) */
	bool auto_safe_transitions;
	unsigned auto_max_vls; /* the most VLs a winner may use; 0: no cap */
	/*
	 * wall-clock seconds after which the improve step gives up whole;
	 * 0: CR_OPT_WALL_GUARD x its budget + 30 (background.c)
	 */
	double auto_give_up;
	/* the improvement pass (include/croute/tune/optimize.h) */
	bool optimize;
	double optimize_budget; /* 0: the default */
	unsigned optimize_max_extra_hops;
	/* the jobs file; "": none (include/croute/tune/conf_map.h) */
	char jobs_file[1024];
	double jobs_threshold; /* relative, 0 <= x < 1 */
	double jobs_min_interval; /* seconds */
	unsigned jobs_wait; /* seconds; croute-slurm's, checked here too */
	unsigned jobs_budget; /* seconds of work; 0: cr_jobs_tune's default */
	char jobs_objective[512]; /* as --jobs-objective; "": the default */
	int jobs_refine; /* seconds of work, as --jobs-refine; -1: default */
	double jobs_refine_threshold; /* relative, 0 <= x < 1 */
	struct cr_conf_at at[CR_CHECK_NUM]; /* where each checked key was set */
};

/* Every key's default, test_hooks off. */
void cr_conf_defaults(struct cr_conf *c);
/*
 * One line of opensm.conf (modified in place): "key value", '#' starts a
 * comment. Keys that are not croute's are skipped silently (OpenSM owns
 * them); an unknown croute_* key or a bad value is logged. Returns 0, or
 * -1 when the line had an error.
 */
int cr_conf_parse_line(struct cr_conf *c, const char *path, unsigned lineno,
		       char *line);
/* Every line of fp; returns the number of lines with an error. */
int cr_conf_parse_file(struct cr_conf *c, FILE *fp, const char *path);
/*
 * Logs that checked key k's value val is not valid, naming the file and
 * line it came from, as the parser logs a bad value.
 */
void cr_conf_report(const struct cr_conf *c, enum cr_conf_checked k,
		    const char *val);
/* The stage at which the test hook fails engine e, CR_FAIL_NONE if none. */
enum cr_fail_stage cr_conf_fail_stage(const struct cr_conf *c,
				      const struct cr_engine *e);

struct cr_fabric;

/*
 * A GUID list file: one GUID a line (hex, 0x optional), '#' starts a
 * comment. Text after a GUID, which OpenSM's own parser ignores, is a
 * warning; on every line it is a node-name map given by mistake, an error.
 * key names the opensm.conf key in messages. Returns 0, or -1 (logged with
 * file and line) on the first bad line or out of memory; l then holds the
 * GUIDs before it. A line of another kind of file (an LFT dump, a
 * topology) says what the file is.
 */
int cr_guid_file_parse(FILE *fp, const char *path, const char *key,
		       struct cr_guid_list *l);
/*
 * The same, against the fabric f (NULL: none): a GUID that is no node or
 * port of f is a warning naming the line; a file none of whose GUIDs is in
 * f, an error.
 */
int cr_guid_file_parse_in(FILE *fp, const char *path, const char *key,
			  const struct cr_fabric *f, struct cr_guid_list *l);

/*
 * OpenSM's port_search_ordering_file: "0xGUID port port ..." a line, '#'
 * comments. Appends to o->port_orders; -1 (logged with file and line) on
 * the first bad line. With a fabric f, a line for a GUID that is no switch
 * of f, or a port the switch lacks, is a warning naming the line.
 */
int cr_port_order_parse(FILE *fp, const char *path, const char *key,
			struct cr_options *o);
int cr_port_order_parse_in(FILE *fp, const char *path, const char *key,
			   const struct cr_fabric *f, struct cr_options *o);

#endif
