/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The OpenSM adapter: the only part of croute that includes OpenSM headers.
 * plugin.c holds the event plugin and the engine callbacks; import.c turns
 * OpenSM's subnet into a struct cr_fabric, export.c writes a result back
 * into the switches, mcast.c builds the multicast spanning trees, conf.c
 * reads the options, report.c writes croute's dump files.
 */
#ifndef CROUTE_PLUGIN_H
#define CROUTE_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>

#include <croute/tune/auto.h>
#include <croute/route/engine.h>
#include <croute/tune/optimize.h>
#include <croute/io/conf.h>
#include <croute/route/incremental.h>
#include <croute/route/mcast.h>
#include <croute/model/routing.h>

#define CR_PLUGIN_NAME_LEN 32

/*
 * What path_sl and update_sl2vl read, built once per routing run and never
 * changed afterwards: SA threads read it while the next sweep may be
 * preparing a new one.
 */
struct cr_sl_snapshot {
	uint16_t max_lid;
	uint32_t num_switches;
	uint32_t *lid_switch; /* LID -> switch index, UINT32_MAX: none */
	uint8_t *sl; /* [switch index * (max_lid + 1) + dst LID] */
	uint8_t num_layers;
	uint8_t sl2vl[16];
};

struct cr_plugin;

/* One registered engine; its address is the context OpenSM hands back. */
struct cr_plugin_engine {
	struct cr_plugin *pl;
	const struct cr_engine *e;
	char name[CR_PLUGIN_NAME_LEN]; /* "cr-minhop" */
	bool layers; /* computes path SLs and SL2VL */
	struct cr_sl_snapshot *snap; /* atomic pointer, NULL: none */
};

/* Bits of cr_plugin.ignored_logged, one per OpenSM option croute ignores. */
#define CR_IGNORED_MAX 32

/*
 * What an import leaves for the next (croute_incremental): OpenSM's nodes
 * as it walked them, and f, the fabric they describe (not owned: only
 * compared with the fabric handed back).
 */
struct node_ref; /* import.c's */

struct cr_import_keep {
	const struct cr_fabric *f;
	osm_node_t **walk; /* OpenSM's node map, in its order */
	uint64_t *guid; /* their keys (network byte order) */
	struct node_ref *nodes; /* the nodes in the fabric's order */
	uint32_t count;
};

struct cr_plugin {
	osm_opensm_t *osm;
	struct cr_plugin_engine *engines;
	unsigned num_engines;

	struct cr_conf conf; /* croute's keys, re-read every routing run */
	struct cr_auto_conf auto_conf; /* cr-auto's, from conf */
	struct cr_opt_params opt_params; /* croute_optimize_* */
	uint32_t ignored_logged; /* options already reported */

	/*
	 * The result of the latest run: set up by build_lid_matrices,
	 * written to the switches by ucast_build_fwd_tables. At the end of
	 * the run (UCAST_ROUTING_DONE) the dump files are written, the
	 * estimate takes the tables and croute drops them (OpenSM holds them
	 * in its switches); the fabric and by-products stay until the next
	 * run. The osm_switch_t pointers are only valid during the run
	 * (under OpenSM's exclusive lock).
	 */
	struct cr_plugin_engine *run_engine;
	struct cr_fabric *fabric;
	/*
	 * The previous run's fabric from the start of a run to the import,
	 * which reads it again when OpenSM kept the same nodes (import_keep
	 * describes it; croute_incremental).
	 */
	struct cr_fabric *recycle;
	struct cr_import_keep import_keep;
	struct cr_routing *routing;
	struct cr_byproducts by; /* the engine's roots, CA order, table */
	osm_switch_t **run_sw; /* per switch index */
	struct timespec run_start;
	double ms_import, ms_route; /* phases of the run, for the log */
	bool installed; /* LFTs written, run succeeded */
	bool incremental; /* the run repaired an earlier one's tables */
	bool dumped; /* croute's dump files describe this run */

	struct cr_est_worker *est_worker; /* estimate.c; NULL until used */
	struct cr_bg *bg; /* background.c; NULL until used */
	struct cr_jobs_watch *jobs_watch; /* jobs_watch.c; NULL: none */
	struct cr_jobs_route *jobs_route; /* jobs_route.c; NULL until used */

	/* croute_incremental: the latest full run, NULL when none kept. */
	struct cr_incr_base *incr_base;
	/*
	 * cr-auto's: the winner whose fast-step tables incr_base keeps
	 * ("": none, auto_base_why says why); the install hands the hop
	 * table to incr_base only when the tables are those or a repair.
	 */
	char auto_base[48];
	char auto_base_why[160];
	bool export_no_base;

	/*
	 * mcast.c: the multicast trees' context over fabric (or over
	 * mcast_fabric, a fresh import when the subnet changed since the
	 * run); both NULL until the first tree after a run.
	 */
	struct cr_mcast_ctx *mcast;
	struct cr_fabric *mcast_fabric;
};

/* import.c */
struct cr_import {
	struct cr_fabric *f;
	osm_switch_t **sw; /* per switch index of f */
	uint8_t max_vls; /* least operational data VLs of switch links */
	unsigned unhealthy; /* links left out: OpenSM marked them unhealthy */
	bool kept; /* f is the previous import's, read again */
};

/*
 * OpenSM's subnet as a fabric, in imp. With keep, old may be keep's
 * fabric (the previous import's, now the caller's to give up): when
 * OpenSM still has the same nodes, that fabric is read again in place
 * (the same fabric a fresh import would give, without building 30,000
 * nodes anew); any other old is freed. keep is updated on success and
 * emptied on failure. -1 logged.
 */
int cr_import_subnet(osm_opensm_t *osm, struct cr_import *imp,
		     struct cr_import_keep *keep, struct cr_fabric *old);
void cr_import_release(struct cr_import *imp);
void cr_import_keep_free(struct cr_import_keep *keep);

/* export.c */
void cr_export_clear(osm_subn_t *subn);
/*
 * base: the kept full run (croute_incremental), or NULL; repaired: r
 * repairs it. hops: write the hop rows too (someone will read them). A
 * full run's hop table is handed to its base. churn, when not NULL, is
 * increased by the entries that differ from the tables OpenSM's switches
 * hold (counted while copying: the tables are read once).
 */
int cr_export(osm_opensm_t *osm, const struct cr_fabric *f,
	      const struct cr_routing *r, osm_switch_t *const *sw,
	      struct cr_incr_base *base, bool repaired, bool hops,
	      uint64_t *churn);

/* mcast.c */
ib_api_status_t cr_mcast_stree(struct cr_plugin *pl, osm_mgrp_box_t *mbox);
/* Drops the trees' context: the next tree starts from the latest run. */
void cr_mcast_reset(struct cr_plugin *pl);

/* conf.c */
/*
 * croute's keys from opensm.conf (OpenSM's config_file) into c: defaults
 * first, a bad line logged and skipped; the croute_fail_engine test hook
 * only with CR_TEST_HOOKS_ENV=1.
 */
void cr_conf_read(struct cr_plugin *pl, struct cr_conf *c);
/*
 * Whether engine e's run leaves cr-auto's improve step (or
 * croute_optimize's pass) to a thread after the sweep (background.c):
 * croute_auto_background, for cr-auto or with croute_optimize.
 */
bool cr_conf_background(const struct cr_conf *c, const struct cr_engine *e);
/*
 * The run's options: the GUID and port order files OpenSM's keys name
 * into o, then pl->conf and OpenSM's keys through cr_conf_map() (flags:
 * CR_CONF_IN_SWEEP when the improve step runs in the sweep) into o,
 * pl->auto_conf and pl->opt_params. -1 (logged) when a file cannot be
 * read.
 */
int cr_conf_options(struct cr_plugin *pl, unsigned flags, struct cr_options *o);

/* report.c */
void cr_report_dumps(struct cr_plugin *pl, bool ours);

#endif
