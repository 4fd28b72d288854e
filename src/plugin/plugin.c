// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libcroute.so: an OpenSM event plugin whose create() registers croute's
 * engines as external routing engines (cr-minhop, cr-updn, ...). Each
 * engine run imports the subnet, routes it with the core and writes the
 * LFTs and hop counts back into OpenSM's switches.
 *
 * OpenSM calls build_lid_matrices and then ucast_build_fwd_tables for one
 * engine, both on the sweeper thread and under its exclusive subnet lock;
 * the next engine of the -R list runs only when one of them fails. The
 * first step imports and routes, the second installs; a failure in either
 * leaves the switches as OpenSM prepared them.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <cr_version.h>

#include <errno.h>
#include <inttypes.h>
#if defined(HAVE_MALLINFO2) || defined(HAVE_MALLOC_TRIM)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "err.h"
#include "background.h"
#include "estimate.h"
#include "jobs_watch.h"
#include "jobs_route.h"

#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_version.h>

#include <croute/tune/conf_map.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error "croute is written for OpenSM's event plugin interface version 2"
#endif

/*
 * The code of the core's errors on this thread: the step running. Static
 * TLS, as in the core's log: no __tls_get_addr, which opensm's own
 * libraries do not provide.
 */
static __thread __attribute__((tls_model("initial-exec")))
const char *core_code;

const char *pl_core_code(const char *code)
{
	const char *old = core_code;

	core_code = code;
	return old;
}

/*
 * The core's messages go to OpenSM's log, at the matching level. An error
 * keeps the code the plugin gave it (pl_err) or takes the step's.
 */
static void log_sink(void *arg, enum cr_log_level level, const char *msg)
{
	static const osm_log_level_t osm_level[] = {
		[CR_LOG_ERROR] = OSM_LOG_ERROR,
		[CR_LOG_WARN] = OSM_LOG_INFO,
		[CR_LOG_NOTE] = OSM_LOG_INFO,
		[CR_LOG_INFO] = OSM_LOG_INFO,
		[CR_LOG_VERBOSE] = OSM_LOG_VERBOSE,
		[CR_LOG_DEBUG] = OSM_LOG_DEBUG,
	};
	osm_log_t *log = arg;
	osm_log_level_t l = osm_level[level];

	if (!osm_log_is_active(log, l))
		return;
	if (level == CR_LOG_ERROR && strncmp(msg, "ERR CR", 6))
		osm_log(log, l, "croute: ERR %s: %s\n",
			core_code ? core_code : "CR4F", msg);
	else
		osm_log(log, l, "croute: %s%s\n",
			level == CR_LOG_WARN ? "warning: " : "", msg);
}

/*
 * The core formats a message only when its level is delivered: follow
 * OpenSM's current flags (the console can change them at run time), so
 * debug output costs nothing unless asked for. Only the level changes
 * here: the estimate thread may be logging through the sink, which is set
 * once in create().
 */
static enum cr_log_level osm_log_level(osm_opensm_t *osm)
{
	enum cr_log_level level = CR_LOG_ERROR;

	if (osm_log_is_active(&osm->log, OSM_LOG_DEBUG))
		level = CR_LOG_DEBUG;
	else if (osm_log_is_active(&osm->log, OSM_LOG_VERBOSE))
		level = CR_LOG_VERBOSE;
	else if (osm_log_is_active(&osm->log, OSM_LOG_INFO))
		level = CR_LOG_INFO;
	return level;
}

static void sync_log_level(osm_opensm_t *osm)
{
	cr_log_set_level(osm_log_level(osm));
}

static double elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1e3 +
	       (now.tv_nsec - start->tv_nsec) / 1e6;
}

/* Drops the stored result (and the switch pointers of a run). */
static void run_reset(struct cr_plugin *pl)
{
	cr_routing_free(pl->routing);
	cr_byproducts_release(&pl->by);
	cr_mcast_reset(pl);
	/* The next import may read it again (croute_incremental). */
	cr_fabric_free(pl->recycle);
	pl->recycle = pl->fabric;
	free(pl->run_sw);
	pl->routing = NULL;
	pl->fabric = NULL;
	pl->run_sw = NULL;
	pl->run_engine = NULL;
	pl->installed = false;
	pl->incremental = false;
}

static void snapshot_free(struct cr_sl_snapshot *s)
{
	if (!s)
		return;
	free(s->lid_switch);
	free(s->sl);
	free(s);
}

/*
 * Replaces the engine's snapshot. Only called from the engine callbacks,
 * under OpenSM's exclusive lock, while SA threads (path_sl) wait on the
 * shared side of the same lock: the old snapshot has no reader left.
 */
static void snapshot_publish(struct cr_plugin_engine *pe,
			     struct cr_sl_snapshot *s)
{
	struct cr_sl_snapshot *old;

	old = __atomic_exchange_n(&pe->snap, s, __ATOMIC_ACQ_REL);
	snapshot_free(old);
}

static struct cr_sl_snapshot *snapshot_build(const struct cr_fabric *f,
					     const struct cr_routing *r)
{
	struct cr_sl_snapshot *s = calloc(1, sizeof(*s));
	size_t row = (size_t)f->max_lid + 1;

	if (!s)
		goto oom;
	s->max_lid = f->max_lid;
	s->num_switches = f->num_switches;
	s->num_layers = r->num_layers;
	memcpy(s->sl2vl, r->sl2vl, sizeof(s->sl2vl));
	s->lid_switch = malloc(row * sizeof(*s->lid_switch));
	s->sl = calloc(f->num_switches ? f->num_switches : 1, row);
	if (!s->lid_switch || !s->sl)
		goto oom;
	s->lid_switch[0] = UINT32_MAX;
	for (size_t lid = 1; lid < row; lid++) {
		uint32_t sw = cr_lid_switch(f, (uint16_t)lid, NULL);

		s->lid_switch[lid] =
			sw == CR_NO_NODE ? UINT32_MAX : f->nodes[sw].sw_index;
	}
	for (uint32_t i = 0; i < f->num_switches; i++) {
		const uint8_t *sl = r->sl[f->switches[i]];

		if (sl)
			memcpy(s->sl + i * row, sl, row);
	}
	return s;
oom:
	pl_err("CR01", "out of memory saving the path SLs");
	snapshot_free(s);
	return NULL;
}

/*
 * opensm's resident memory now and at its peak, in MB, from
 * /proc/self/status (0 where unknown): the log shows what a run cost.
 */
static void memory_mb(unsigned long *rss, unsigned long *peak)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[128];

	*rss = *peak = 0;
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "VmRSS:", 6))
			*rss = strtoul(line + 6, NULL, 10) / 1024;
		else if (!strncmp(line, "VmHWM:", 6))
			*peak = strtoul(line + 6, NULL, 10) / 1024;
	}
	fclose(fp);
}

/*
 * The process's heap in MB (glibc, every arena): in use, and held free by
 * malloc, not given back to the system (0 and 0 where unknown).
 */
static void heap_mb(unsigned long *used, unsigned long *held)
{
#ifdef HAVE_MALLINFO2
	struct mallinfo2 m = mallinfo2();

	*used = (unsigned long)((m.uordblks + m.hblkhd) >> 20);
	*held = (unsigned long)(m.fordblks >> 20);
#else
	*used = *held = 0;
#endif
}

/*
 * After a run: the LFTs are OpenSM's now (its switches' new_lft and,
 * once set, lft), and the estimate took croute's copy or needs none:
 * croute's copy goes. The heap's free pages are given back by the
 * estimate thread after its job (estimate.c), off the sweep.
 */
static void release_run_memory(struct cr_plugin *pl)
{
	unsigned long rss, peak, used, held;

	cr_routing_free(pl->routing);
	pl->routing = NULL;
	if (!osm_log_is_active(&pl->osm->log, OSM_LOG_VERBOSE))
		return;
	memory_mb(&rss, &peak);
	heap_mb(&used, &held);
	cr_verbose("after the run: opensm memory %lu MB: heap in use %lu MB,"
		   " %lu MB free but held by malloc",
		   rss, used, held);
}

static uint32_t lids_in_use(const struct cr_fabric *f)
{
	uint32_t n = 0;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (f->lid_node[lid] != CR_NO_NODE)
			n++;
	return n;
}

/*
 * croute_incremental: repairs the latest full run's tables into r when f
 * is that fabric less some links or nodes. Anything else, and any
 * failure, is logged and leaves r for a full run. True when r is routed.
 */
static bool route_incremental(struct cr_plugin *pl, struct cr_plugin_engine *pe,
			      const struct cr_engine *e,
			      const struct cr_fabric *f,
			      const struct cr_options *o, struct cr_routing *r,
			      struct cr_byproducts *by)
{
	struct cr_incr_stats st;
	struct timespec t0;
	int ret;

	if (!pl->incr_base) {
		cr_info("%s: full run (no earlier full run kept)", pe->name);
		return false;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = cr_route_incremental(pl->incr_base, e, f, o, r, by, &st);
	if (ret) {
		cr_info("%s: full run (%s)", pe->name,
			ret < 0 ? "the incremental run failed" : st.reason);
		return false;
	}
	cr_info("%s: incremental run: %s%u switch links and %u host links"
		" down%s%s%s, %u nodes (%u switches) gone; labels changed"
		" toward %u switches; %" PRIu64
		" entries of %u LIDs chosen again; %" PRIu64
		" (CA switch, LID of a switch without CAs) pairs left"
		" without a legal path; %.1f ms",
		pe->name, st.same ? "the full run's fabric again: " : "",
		st.links_down, st.host_links_down,
		st.link_down[0] ? " (repaired around the link " : "",
		st.link_down,
		!st.link_down[0]			 ? ""
		: st.links_down + st.host_links_down > 1 ? " and others)"
							 : ")",
		st.nodes_gone, st.switches_gone, st.dests, st.entries, st.lids,
		st.lost_pairs, elapsed_ms(&t0));
	return true;
}

/*
 * After a full run: keep it for later incremental runs (with
 * croute_incremental), else drop what was kept.
 */
static void keep_full_run(struct cr_plugin *pl, struct cr_plugin_engine *pe,
			  const struct cr_fabric *f, const struct cr_options *o,
			  const struct cr_routing *r,
			  const struct cr_byproducts *by, bool incremental)
{
	struct timespec t0;

	if (incremental)
		return;
	cr_incr_base_free(pl->incr_base);
	pl->incr_base = NULL;
	if (!pl->conf.incremental || pl->conf.optimize ||
	    pe->e == &cr_auto_engine)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pl->incr_base = cr_incr_base_new(pe->e, f, o, r, by);
	if (pl->incr_base)
		cr_info("%s: full run kept for incremental runs in %.1f ms",
			pe->name, elapsed_ms(&t0));
}

void cr_auto_drop_base(struct cr_plugin *pl, const char *why)
{
	if (!pl->auto_base[0])
		return;
	cr_info("cr-auto: croute_incremental: %s, not the %s tables kept:"
		" a fault is routed afresh by the fast step",
		why, pl->auto_base);
	snprintf(pl->auto_base_why, sizeof(pl->auto_base_why), "%s", why);
	pl->auto_base[0] = '\0';
	cr_incr_base_free(pl->incr_base);
	pl->incr_base = NULL;
}

void cr_auto_keep_base(struct cr_plugin *pl, const struct cr_plugin_engine *pe,
		       const struct cr_fabric *f, const struct cr_options *o,
		       const struct cr_routing *r,
		       const struct cr_byproducts *by)
{
	const struct cr_engine *e;
	struct cr_options co;
	struct timespec t0;

	cr_incr_base_free(pl->incr_base);
	pl->incr_base = NULL;
	pl->auto_base[0] = '\0';
	if (!pl->conf.incremental || pl->conf.optimize ||
	    cr_auto_candidate(by->auto_winner, o, &e, &co))
		return;
	/* cr-lash's and cr-dfp's layers: no repair keeps them acyclic */
	if (e->layered) {
		snprintf(
			pl->auto_base_why, sizeof(pl->auto_base_why),
			"the winner %s is cr-%s, whose tables croute_incremental"
			" does not repair",
			by->auto_winner, e->name);
		cr_info("%s: %s: a fault is routed afresh by the fast step",
			pe->name, pl->auto_base_why);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pl->incr_base = cr_incr_base_new(e, f, &co, r, by);
	if (!pl->incr_base) {
		snprintf(pl->auto_base_why, sizeof(pl->auto_base_why),
			 "the winner %s's tables could not be kept",
			 by->auto_winner);
		return;
	}
	snprintf(pl->auto_base, sizeof(pl->auto_base), "%s", by->auto_winner);
	cr_info("%s: the winner %s's tables kept for incremental runs in"
		" %.1f ms",
		pe->name, pl->auto_base, elapsed_ms(&t0));
}

bool cr_auto_repair(struct cr_plugin *pl, struct cr_plugin_engine *pe,
		    const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by)
{
	const struct cr_engine *e;
	struct cr_options co;

	if (!pl->conf.incremental || pl->conf.optimize)
		return false;
	if (!pl->auto_base[0]) {
		cr_info("%s: routed afresh by the fast step, not repaired (%s)",
			pe->name,
			pl->auto_base_why[0] ? pl->auto_base_why
					     : "no earlier tables kept");
		return false;
	}
	if (cr_auto_candidate(pl->auto_base, o, &e, &co) ||
	    !route_incremental(pl, pe, e, f, &co, r, by))
		return false;
	cr_info("%s: the winner %s's tables repaired (croute_incremental);"
		" the improve step follows in the background",
		pe->name, pl->auto_base);
	snprintf(by->auto_winner, sizeof(by->auto_winner), "%s", pl->auto_base);
	return true;
}

static ib_api_status_t engine_mcast_stree(void *context, osm_mgrp_box_t *mbox)
{
	struct cr_plugin_engine *pe = context;
	const char *code = pl_core_code("CR45");
	ib_api_status_t st = cr_mcast_stree(pe->pl, mbox);

	pl_core_code(code);
	return st;
}

/*
 * croute_mcast_trees: croute's trees, or OpenSM's own builder (which
 * OpenSM calls when an engine has none), for every occurrence of
 * croute's engines in the -R list. Set before each run; OpenSM builds
 * the trees after it.
 */
static void mcast_trees_follow_conf(struct cr_plugin *pl)
{
	for (struct osm_routing_engine *re = pl->osm->routing_engine_list; re;
	     re = re->next) {
		const struct cr_plugin_engine *pe = re->context;

		if (pe >= pl->engines && pe < pl->engines + pl->num_engines)
			re->mcast_build_stree = pl->conf.mcast_trees
							? engine_mcast_stree
							: NULL;
	}
}

/* croute_optimize: the improvement pass on the engine's tables. */
static void optimize_routing(struct cr_plugin *pl,
			     const struct cr_plugin_engine *pe,
			     const struct cr_fabric *f, struct cr_routing *r,
			     const struct cr_byproducts *by)
{
	struct cr_objective obj;

	/* the key was checked when read; the pass never fails it */
	if (cr_objective_parse(
		    pl->conf.auto_objective[0] ? pl->conf.auto_objective : NULL,
		    "croute_auto_objective", &obj))
		return;
	obj.max_flows = CR_AUTO_MAX_FLOWS;
	obj.hosts_file = pl->conf.auto_hosts[0] ? pl->conf.auto_hosts : NULL;
	if (cr_optimize(f, pe->e, &obj, &pl->opt_params, r, by, NULL))
		cr_info("%s: the improvement pass left the tables as routed",
			pe->name);
	cr_objective_release(&obj);
}

/* One engine run's state between the phases of its first step. */
struct run {
	struct cr_plugin *pl;
	struct cr_plugin_engine *pe;
	struct cr_import imp;
	struct cr_options o;
	struct cr_routing *r;
	struct cr_byproducts by;
	bool background; /* the improve step or the pass on a thread */
	bool incremental; /* r repairs the kept full run */
};

/* croute_fail_engine, a test hook: true when the run is to fail here. */
static bool test_hook_fails(const struct run *run, enum cr_fail_stage stage,
			    const char *when)
{
	if (cr_conf_fail_stage(&run->pl->conf, run->pe->e) != stage)
		return false;
	pl_err("CR02", "%s: failing %s, as croute_fail_engine asks (test hook)",
	       run->pe->name, when);
	return true;
}

static void run_begin(struct run *run)
{
	struct cr_plugin *pl = run->pl;
	osm_opensm_t *osm = pl->osm;

	sync_log_level(osm);
	clock_gettime(CLOCK_MONOTONIC, &pl->run_start);
	cr_options_init(&run->o);
	run_reset(pl);
	snapshot_publish(run->pe, NULL);
	/*
	 * OpenSM prepares the switches once per sweep, not per engine: an
	 * engine that failed before this one may have left entries behind.
	 * None ran before the first engine of the -R list, and croute's own
	 * failures clear what they wrote: then the clear (every switch's LFT
	 * and hop rows again) is not needed.
	 */
	if (!osm->routing_engine_list ||
	    osm->routing_engine_list->context != run->pe)
		cr_export_clear(&osm->subn);
}

/*
 * opensm.conf, read again at every run: the threads, the multicast trees'
 * builder, the options and cr-auto's settings, where the improve step
 * runs.
 */
static int run_configure(struct run *run)
{
	struct cr_plugin *pl = run->pl;
	struct cr_plugin_engine *pe = run->pe;
	struct cr_jobs_conf jc;

	pl_core_code("CR40");
	cr_conf_read(pl, &pl->conf);
	cr_conf_jobs(&pl->conf, &jc);
	cr_jobs_watch_update(&pl->jobs_watch, &jc,
			     jc.file ? cr_jobs_route_get(pl) : NULL);
	if (!pl->jobs_watch)
		cr_jobs_route_forget(pl->jobs_route, NULL);
	cr_threads_set(pl->conf.threads);
	mcast_trees_follow_conf(pl);
	if (test_hook_fails(run, CR_FAIL_IMPORT, "before the import"))
		return -1;
	run->background = cr_conf_background(&pl->conf, pe->e);
	if (cr_conf_options(pl, run->background ? 0 : CR_CONF_IN_SWEEP,
			    &run->o) < 0)
		return -1;
	if (!run->background)
		cr_bg_forget(pl, pe->e == &cr_auto_engine
					 ? "croute_auto_background is FALSE"
					 : "another engine routes");
	/*
	 * Without QoS OpenSM programs no SL2VL tables: every layer lands on
	 * VL 0, where the layers' paths together can close a credit loop.
	 * Refused before routing, whatever number of layers this fabric
	 * would take, so that a change of the fabric cannot turn a run
	 * that was safe into one that is not.
	 */
	if (pe->e->layered && !pl->osm->subn.opt.qos) {
		pl_err("CR03",
		       "%s needs qos TRUE (or -Q): without it OpenSM programs"
		       " no SL2VL tables and its layers would share VL 0,"
		       " where they can deadlock; not routing, OpenSM moves"
		       " on to the next engine",
		       pe->name);
		return -1;
	}
	return 0;
}

static int run_import(struct run *run)
{
	struct cr_plugin *pl = run->pl;
	struct cr_fabric *recycle = pl->recycle;

	pl_core_code("CR41");
	pl->recycle = NULL;
	if (!pl->conf.incremental)
		cr_import_keep_free(&pl->import_keep);
	if (cr_import_subnet(pl->osm, &run->imp,
			     pl->conf.incremental ? &pl->import_keep : NULL,
			     recycle) < 0)
		return -1;
	pl->ms_import = elapsed_ms(&pl->run_start);
	run->o.max_vls = run->imp.max_vls;
	if (run->imp.unhealthy)
		cr_info("%s: %u links OpenSM marked unhealthy are left out",
			run->pe->name, run->imp.unhealthy);
	return 0;
}

/*
 * The tables: a repair of the kept full run (croute_incremental), the
 * fast step with the improve step on a thread, or the engine itself.
 */
static int run_route(struct run *run)
{
	struct cr_plugin *pl = run->pl;
	struct cr_plugin_engine *pe = run->pe;
	const struct cr_fabric *f = run->imp.f;
	bool try_incremental = pl->conf.incremental && !pl->conf.optimize &&
			       pe->e != &cr_auto_engine;

	pl_core_code("CR42");
	/* A repair writes every entry, else clears them all. */
	run->r = try_incremental && pl->incr_base ? cr_routing_new_raw(f)
						  : cr_routing_new(f);
	if (!run->r)
		return -1;
	if (try_incremental)
		run->incremental = route_incremental(pl, pe, pe->e, f, &run->o,
						     run->r, &run->by);
	pl->export_no_base = false;
	if (run->background) {
		enum cr_bg_how how;

		if (cr_bg_route(pe, f, &run->o, &run->r, &run->by, &how) < 0)
			return -1;
		run->incremental = how == CR_BG_REPAIRED;
		/* other tables than the base's: its hop table is not theirs */
		pl->export_no_base = how == CR_BG_AGAIN;
	} else if (!run->incremental &&
		   cr_route_by(pe->e, f, &run->o, run->r, &run->by) < 0) {
		pl_err("CR04",
		       "%s cannot route this fabric (%u switches, %u nodes)",
		       pe->name, f->num_switches, f->num_nodes);
		return -1;
	}
	return 0;
}

/*
 * After routing: refuse tables some CAs cannot use, run croute_optimize's
 * pass in the sweep, keep a full run for croute_incremental.
 */
static int run_settle(struct run *run)
{
	struct cr_plugin *pl = run->pl;
	struct cr_plugin_engine *pe = run->pe;
	const struct cr_fabric *f = run->imp.f;

	pl_core_code("CR43");
	/* Tables some CAs cannot use: the next engine of the list instead. */
	if (run->by.stranded) {
		pl_err("CR05",
		       "%s: %" PRIu64 " (switch with CAs, LID) pairs have no"
		       " up*/down* path with these roots: not installing"
		       " tables some CAs cannot use",
		       pe->name, run->by.stranded);
		return -1;
	}
	/* The same rule for any routing that came out on several VLs. */
	if (run->r->sl && run->r->num_layers > 1 && !pl->osm->subn.opt.qos) {
		pl_err("CR06",
		       "%s: these tables use %u VLs, which needs qos TRUE"
		       " (or -Q): not installing them",
		       pe->name, run->r->num_layers);
		return -1;
	}
	if (pl->conf.optimize && pe->e != &cr_auto_engine && !run->background)
		optimize_routing(pl, pe, f, run->r, &run->by);
	if (!run->background)
		keep_full_run(pl, pe, f, &run->o, run->r, &run->by,
			      run->incremental);
	/* The jobs' tables in place of these, when tuned from them. */
	if (pl->jobs_watch && cr_jobs_route_sweep(pl->jobs_route, pe, f,
						  &run->o, &run->r, &run->by)) {
		pl->export_no_base = true;
		run->incremental = false;
	}
	/* croute_incremental's bookkeeping counts as routing, not install. */
	pl->ms_route = elapsed_ms(&pl->run_start) - pl->ms_import;
	pl->incremental = run->incremental;
	if (test_hook_fails(run, CR_FAIL_ROUTE, "after routing"))
		return -1;
	return 0;
}

/* The result, for the second step. */
static void run_keep(struct run *run)
{
	struct cr_plugin *pl = run->pl;

	if (osm_log_is_active(&pl->osm->log, OSM_LOG_VERBOSE)) {
		unsigned long rss, peak;

		memory_mb(&rss, &peak);
		cr_verbose("%s: imported and routed; opensm memory %lu MB,"
			   " peak %lu MB",
			   run->pe->name, rss, peak);
	}
	cr_options_release(&run->o);
	pl->fabric = run->imp.f;
	pl->run_sw = run->imp.sw;
	pl->routing = run->r;
	cr_byproducts_move(&pl->by, &run->by);
	pl->run_engine = run->pe;
}

static int run_fail(struct run *run)
{
	struct cr_plugin *pl = run->pl;

	cr_bg_forget(pl, "the run failed");
	cr_jobs_route_forget(pl->jobs_route, "the run failed");
	cr_options_release(&run->o);
	cr_routing_free(run->r);
	cr_byproducts_release(&run->by);
	cr_import_release(&run->imp);
	pl->import_keep.f = NULL; /* it described imp.f */
	pl_err("CR07",
	       "%s failed after %.1f ms; OpenSM moves on to the next engine",
	       run->pe->name, elapsed_ms(&pl->run_start));
	return -1;
}

/* The first step: import the subnet and route it; nothing is written. */
static int engine_build_lid_matrices(void *context)
{
	struct cr_plugin_engine *pe = context;
	struct run run = {.pl = pe->pl, .pe = pe};

	run_begin(&run);
	if (run_configure(&run) || run_import(&run) || run_route(&run) ||
	    run_settle(&run))
		return run_fail(&run);
	run_keep(&run);
	return 0;
}

/* The second step: install the result of the first. */
static int engine_build_fwd_tables(void *context)
{
	struct cr_plugin_engine *pe = context;
	struct cr_plugin *pl = pe->pl;
	osm_opensm_t *osm = pl->osm;
	const struct cr_fabric *f = pl->fabric;
	unsigned long rss, peak;
	uint64_t churn = 0;
	double total;

	pl_core_code("CR44");
	if (pl->run_engine != pe || !f || !pl->routing) {
		pl_err("CR08",
		       "%s: asked for forwarding tables without a routing",
		       pe->name);
		goto fail;
	}
	/* Who reads hop rows: OpenSM's multicast trees, and its dumps. */
	if (cr_export(osm, f, pl->routing, pl->run_sw,
		      pl->export_no_base ? NULL : pl->incr_base,
		      pl->incremental,
		      !pl->conf.mcast_trees ||
			      osm_log_is_active(&osm->log, OSM_LOG_ROUTING),
		      pl->conf.incremental ? &churn : NULL) < 0)
		goto fail;
	if (pl->conf.incremental)
		cr_info("%s: %s run: churn %" PRIu64 " LFT entries against"
			" the tables installed before",
			pe->name, pl->incremental ? "incremental" : "full",
			churn);
	if (cr_conf_fail_stage(&pl->conf, pe->e) == CR_FAIL_EXPORT) {
		pl_err("CR09",
		       "%s: failing after writing the LFTs, as"
		       " croute_fail_engine asks (test hook)",
		       pe->name);
		goto fail;
	}
	if (pl->routing->sl) {
		struct cr_sl_snapshot *s = snapshot_build(f, pl->routing);

		if (!s)
			goto fail;
		snapshot_publish(pe, s);
	}
	/* The switch pointers are only good while OpenSM holds its lock. */
	free(pl->run_sw);
	pl->run_sw = NULL;
	pl->installed = true;
	pl->dumped = false;
	cr_bg_installed(pl);
	if (pl->jobs_watch && cr_jobs_route_installed(pl->jobs_route))
		cr_jobs_watch_kick(pl->jobs_watch);
	total = elapsed_ms(&pl->run_start);
	memory_mb(&rss, &peak);
	cr_info("%s: routed %u switches, %u LIDs in %.1f ms (import %.1f,"
		" route %.1f, install %.1f)%s; opensm memory %lu MB, peak %lu"
		" MB",
		pe->name, f->num_switches, lids_in_use(f), total, pl->ms_import,
		pl->ms_route, total - pl->ms_import - pl->ms_route,
		pl->incremental ? ", incremental" : "", rss, peak);
	return 0;
fail:
	cr_bg_forget(pl, "the install failed");
	cr_jobs_route_forget(pl->jobs_route, "the install failed");
	cr_export_clear(&osm->subn);
	snapshot_publish(pe, NULL);
	run_reset(pl);
	pl_err("CR0A",
	       "%s failed after %.1f ms; OpenSM moves on to the next engine",
	       pe->name, elapsed_ms(&pl->run_start));
	return -1;
}

/*
 * Called from SA threads with LIDs in network order: reads only the
 * immutable snapshot, never the fabric or OpenSM's tables.
 */
static uint8_t engine_path_sl(void *context, uint8_t path_sl_hint,
			      const ib_net16_t slid, const ib_net16_t dlid)
{
	struct cr_plugin_engine *pe = context;
	const struct cr_sl_snapshot *s;
	uint16_t src = cl_ntoh16(slid), dst = cl_ntoh16(dlid);
	uint32_t sw;

	s = __atomic_load_n(&pe->snap, __ATOMIC_ACQUIRE);
	if (!s || !src || !dst || src > s->max_lid || dst > s->max_lid)
		return path_sl_hint;
	sw = s->lid_switch[src];
	/* A LID routed to no switch has no layer: OpenSM's choice stands. */
	if (sw == UINT32_MAX || s->lid_switch[dst] == UINT32_MAX)
		return path_sl_hint;
	return s->sl[(size_t)sw * ((size_t)s->max_lid + 1) + dst];
}

/* The same SL-to-VL map on every port: layers are fabric-wide. */
static void engine_update_sl2vl(void *context, osm_physp_t *port,
				uint8_t in_port_num, uint8_t out_port_num,
				ib_slvl_table_t *t)
{
	struct cr_plugin_engine *pe = context;
	const struct cr_sl_snapshot *s;

	s = __atomic_load_n(&pe->snap, __ATOMIC_ACQUIRE);
	if (!s || !s->num_layers)
		return;
	for (uint8_t sl = 0; sl < 16; sl++)
		ib_slvl_table_set(t, sl, s->sl2vl[sl] & 0xf);
}

/*
 * Called once per occurrence of the engine in the -R list, with the
 * context shared by all of them: everything is freed in plugin_delete.
 */
static void engine_destroy(void *context)
{
	struct cr_plugin_engine *pe = context;

	cr_verbose("%s: engine released", pe->name);
}

static int engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	struct cr_plugin_engine *pe = re->context;

	re->build_lid_matrices = engine_build_lid_matrices;
	re->ucast_build_fwd_tables = engine_build_fwd_tables;
	re->mcast_build_stree = engine_mcast_stree;
	re->destroy = engine_destroy;
	/*
	 * Only engines with virtual layers take over SLs and SL2VL: for the
	 * others OpenSM's own QoS choices (and use_optimized_slvl) apply.
	 */
	if (pe->layers) {
		re->path_sl = engine_path_sl;
		re->update_sl2vl = engine_update_sl2vl;
	}
	cr_verbose("%s: set up as OpenSM routing engine", pe->name);
	return 0;
}

static void plugin_delete(void *plugin_data)
{
	struct cr_plugin *pl = plugin_data;

	if (!pl)
		return;
	/*
	 * opensm -o can set its exit flag before the sweep that routed has
	 * reported UCAST_ROUTING_DONE (events stop then): the routing croute
	 * installed last still gets its dump files, and its estimate.
	 */
	if (pl->installed && !pl->dumped)
		cr_report_dumps(pl, true);
	/* Before the log goes: the watcher and the improve step stop. */
	cr_jobs_watch_stop(&pl->jobs_watch);
	cr_jobs_route_free(pl->jobs_route);
	pl->jobs_route = NULL;
	cr_bg_stop(pl);
	/* Before the log goes: a running estimate still writes its dump. */
	cr_estimate_stop(pl);
	run_reset(pl);
	cr_fabric_free(pl->recycle);
	cr_import_keep_free(&pl->import_keep);
	cr_incr_base_free(pl->incr_base);
	for (unsigned i = 0; i < pl->num_engines; i++)
		snapshot_free(pl->engines[i].snap);
	free(pl->engines);
	free(pl);
	/* Messages from here on must not reach a log that is going away. */
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
}

static void *plugin_create(osm_opensm_t *osm)
{
	struct cr_plugin *pl;
	unsigned n = 0, registered = 0;
	char names[CR_PLUGIN_NAME_LEN * 16] = "";

	cr_log_set(log_sink, &osm->log, osm_log_level(osm));
	pl_core_code("CR49");
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		goto oom;
	pl->osm = osm;
	while (cr_engines[n])
		n++;
	n++; /* cr-auto */
	pl->engines = calloc(n, sizeof(*pl->engines));
	if (!pl->engines)
		goto oom;
	for (unsigned i = 0; i < n; i++) {
		struct cr_plugin_engine *pe = &pl->engines[i];

		pe->pl = pl;
		pe->e = i + 1 < n ? cr_engines[i] : &cr_auto_engine;
		/* cr-auto installs layers when a cr-lash candidate wins. */
		pe->layers = pe->e->layered || pe->e == &cr_auto_engine;
		snprintf(pe->name, sizeof(pe->name), "cr-%s", pe->e->name);
	}
	pl->num_engines = n;

	/*
	 * Registration comes last: once an engine is registered OpenSM keeps
	 * its context, so from here on create() must not fail (OpenSM would
	 * unload the plugin under the registered pointers) unless nothing
	 * got registered at all.
	 */
	for (unsigned i = 0; i < n; i++) {
		struct cr_plugin_engine *pe = &pl->engines[i];
		external_routing_engine_module_t m = {
			.name = pe->name,
			.setup = engine_setup,
			.context = pe,
		};
		cl_status_t st;

		st = osm_register_external_routing_engine(osm, &m, pe);
		if (st != CL_SUCCESS) {
			pl_err("CR0B", "cannot register routing engine %s (%s)",
			       pe->name, CL_STATUS_MSG(st));
			continue;
		}
		registered++;
		if (strlen(names) + strlen(pe->name) + 2 < sizeof(names)) {
			strcat(names, " ");
			strcat(names, pe->name);
		}
	}
	if (!registered) {
		pl_err("CR0C",
		       "no routing engine registered; croute is not loaded");
		plugin_delete(pl);
		return NULL;
	}
	cr_info("croute %s for %s loaded; routing engines:%s", CR_VERSION,
		OSM_VERSION, names);
	return pl;
oom:
	pl_err("CR0D", "out of memory loading the plugin");
	plugin_delete(pl);
	return NULL;
}

static void plugin_report(void *plugin_data, osm_epi_event_id_t event_id,
			  void *event_data)
{
	struct cr_plugin *pl = plugin_data;

	/* After the LFTs are set: the moment for croute's dump files. */
	if (event_id == OSM_EVENT_ID_UCAST_ROUTING_DONE) {
		const struct osm_routing_engine *used =
			pl->osm->routing_engine_used;

		cr_report_dumps(pl, used && pl->run_engine &&
					    used->context ==
						    (void *)pl->run_engine);
	}
	/* Then the contention estimate, on a thread of its own. */
	if (event_id == OSM_EVENT_ID_UCAST_ROUTING_DONE) {
		cr_estimate_routing_done(pl);
		release_run_memory(pl);
	}
}

osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = plugin_create,
	.delete = plugin_delete,
	.report = plugin_report,
};
