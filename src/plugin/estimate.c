// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The contention estimate of every routing a croute engine installs.
 *
 * At OSM_EVENT_ID_UCAST_ROUTING_DONE (the LFTs are already set) report()
 * copies the plugin's own model of the fabric and of the routing, and
 * hands the copy to a worker thread: the estimate of a large fabric takes
 * seconds, and the sweeper thread must not wait for it. The thread never
 * touches OpenSM's structures; it logs through osm_log, which is thread
 * safe, and writes croute-contention.dump through a temporary file.
 *
 * One job runs at a time. A routing that completes while an estimate runs
 * replaces the queued job (only the newest routing is worth estimating)
 * and marks the running one superseded: it stops at its next pattern and
 * writes nothing. The plugin's delete lets the queued job run and joins
 * the thread, so that `opensm -o` leaves a complete dump behind; it also
 * hands over the last routing when OpenSM, exiting, never reported its
 * end. With croute_estimate none nothing is copied and no thread is
 * started.
 *
 * croute-contention.dump: '#' comment lines (engine, hosts, factors),
 * then each pattern's report as `croute estimate` prints it, so that the
 * two compare line by line (but for the timing in parentheses).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"
#include "err.h"
#include "estimate.h"
#include "worker.h"

#include <complib/cl_nodenamemap.h>

#include <croute/estimate/est_setup.h>
#include <croute/estimate/est_report.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>
#include <croute/estimate/host_order.h>

#define CONTENTION_DUMP "croute-contention.dump"

/* ---- jobs ------------------------------------------------------------- */

struct est_job {
	struct cr_fabric *f; /* NULL: only remove a stale dump */
	struct cr_routing *r;
	struct cr_byproducts by; /* its CA order: the host order */
	struct cr_est_conf conf;
	char engine[CR_PLUGIN_NAME_LEN];
	char *path; /* the dump */
	char *name_map; /* node_name_map_name, or NULL */
};

struct cr_est_worker {
	struct cr_worker w; /* runs the jobs (struct est_job) */
	/* The routing run last handed over (cr_plugin.run_start). */
	bool handed;
	struct timespec handed_run;
};

/*
 * The dump's patterns also on random host orders, as `croute estimate
 * --orders 6 --seed 101` scores them: a job's ranks rarely come in the
 * hosts' own order. The seed is none cr-auto tunes or holds out on.
 */
#define DUMP_ORDERS 6
#define DUMP_ORDER_SEED 101

static void job_free(void *arg)
{
	struct est_job *j = arg;

	if (!j)
		return;
	cr_routing_free(j->r);
	cr_byproducts_release(&j->by);
	cr_fabric_free(j->f);
	free(j->path);
	free(j->name_map);
	free(j);
}

/* dir's croute-contention.dump, NULL: out of memory. */
static char *dump_path(const char *dir)
{
	size_t len = strlen(dir) + sizeof(CONTENTION_DUMP) + 2;
	char *path = malloc(len);

	if (path)
		snprintf(path, len, "%s/%s", dir, CONTENTION_DUMP);
	return path;
}

/* ---- the estimate, on the worker thread ------------------------------- */

static void remove_dump(const char *path)
{
	if (unlink(path) < 0 && errno != ENOENT)
		pl_err("CR2A", "cannot remove the stale %s: %s", path,
		       strerror(errno));
}

/* Names from OpenSM's node name map, for the report only. */
static void apply_name_map(struct est_job *j)
{
	nn_map_t *map;

	if (!j->name_map)
		return;
	map = open_node_name_map(j->name_map);
	if (!map)
		return;
	for (uint32_t n = 0; n < j->f->num_nodes; n++) {
		struct cr_node *node = &j->f->nodes[n];
		char desc[IB_NODE_DESCRIPTION_SIZE + 1];
		char *name;

		/*
		 * remap_node_name cleans the description in place and ends
		 * it at IB_NODE_DESCRIPTION_SIZE - 1 whatever its length:
		 * it wants a buffer of that size, not our string.
		 */
		memset(desc, 0, sizeof(desc));
		strncpy(desc, node->desc, IB_NODE_DESCRIPTION_SIZE - 1);
		name = remap_node_name(map, node->guid, desc);
		if (!name)
			continue;
		free(node->desc);
		node->desc = name;
	}
	close_node_name_map(map);
}

/* One job's run through cr_est_patterns(). */
struct job_run {
	struct cr_est_worker *w;
	struct est_job *j;
	const struct cr_hosts *hosts;
	struct cr_est_result **res;
	int n, done;
	bool cancelled;
};

/*
 * croute_paths, when not base: the model and the LMC it applies to, so
 * that a reader knows which stack the figures are for. Among the '#'
 * lines before the blank one: the patterns' reports stay comparable
 * with croute estimate's.
 */
static void write_paths(FILE *fp, const struct cr_fabric *f,
			const struct cr_est_params *par)
{
	unsigned lmc = 0;

	if (par->paths == CR_PATHS_BASE)
		return;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1;
		     !cr_is_switch(f, n) && p <= f->nodes[n].num_ports; p++)
			if (f->nodes[n].ports[p].lmc > lmc)
				lmc = f->nodes[n].ports[p].lmc;
	fprintf(fp,
		"# paths: %s over each destination port's 2^LMC LIDs"
		" (croute_paths), LMC %u",
		cr_est_paths_name(par->paths), lmc);
	if (par->lanes)
		fprintf(fp, ", at most %u of them", par->lanes);
	fputc('\n', fp);
}

static int write_dump(const struct job_run *jr, const char *how,
		      const struct cr_est_params *par,
		      const struct cr_pattern *pats)
{
	const struct cr_penalty *pen = &par->pen;
	const struct est_job *j = jr->j;
	const struct cr_hosts *hosts = jr->hosts;
	struct cr_est_result *const *res = jr->res;
	int n = jr->n;
	/* The dump says how long each pattern took, as it always has. */
	unsigned flags =
		CR_REPORT_TIMES |
		(j->conf.mode == CR_EST_MODE_FULL ? CR_REPORT_PHASES : 0);
	char *tmp = NULL;
	FILE *fp;

	fp = cr_file_create(j->path, &tmp);
	if (!fp)
		return -1;
	fprintf(fp,
		"# %s: contention estimate of the routing %s installed\n"
		"# %u switches, %u hosts in the order of %s\n"
		"# penalty factors (be;bs;gr) %.6g;%.6g;%.6g\n",
		CONTENTION_DUMP, j->engine, j->f->num_switches, hosts->count,
		how, pen->be, pen->bs, pen->gr);
	write_paths(fp, j->f, par);
	fputc('\n', fp);
	/* before the patterns' reports, where croute estimate prints it */
	cr_est_write_orders(fp, res, n, DUMP_ORDERS, DUMP_ORDER_SEED);
	for (int i = 0; i < n; i++) {
		if (!res[i]) {
			/* Said, so that a reader does not take it as left out. */
			fprintf(fp,
				"pattern %s%s%s: not estimated (see OpenSM's"
				" log)\n\n",
				cr_pattern_kind_name(pats[i].kind),
				pats[i].path ? ":" : "",
				pats[i].path ? pats[i].path : "");
			continue;
		}
		cr_est_write_text(fp, j->f, res[i], flags);
		fputc('\n', fp);
	}
	return cr_file_commit(fp, tmp, j->path);
}

static int job_patterns(struct est_job *j, uint32_t hosts,
			struct cr_pattern **pats)
{
	bool sampled;
	int n = cr_est_conf_patterns_for(&j->conf, hosts, pats, &sampled);

	if (sampled)
		cr_info("contention estimate: %u hosts, so shift is estimated"
			" on %u sampled phases (croute_patterns chooses)",
			hosts, cr_est_sample_phases(hosts));
	return n;
}

/* Checked before each pattern: a newer routing makes this one moot. */
static bool job_superseded(struct job_run *jr)
{
	if (!cr_worker_cancelled(&jr->w->w))
		return false;
	cr_verbose("contention estimate of %s's routing superseded by a newer"
		   " routing",
		   jr->j->engine);
	jr->cancelled = true;
	return true;
}

static const struct cr_hosts *job_hosts(void *arg)
{
	struct job_run *jr = arg;

	return job_superseded(jr) ? NULL : jr->hosts;
}

static int job_result(void *arg, int i, struct cr_est_result *res)
{
	struct job_run *jr = arg;
	char line[256];

	jr->res[i] = res;
	if (res) {
		jr->done++;
		cr_est_summary(res, line, sizeof(line));
		cr_info("contention estimate (%s): %s", jr->j->engine, line);
	}
	/* A failed pattern is logged; the other patterns still count. */
	return i + 1 < jr->n && job_superseded(jr) ? 1 : 0;
}

static const struct cr_est_each job_each = {
	.hosts = job_hosts,
	.result = job_result,
};

/* The host order actually used, as croute estimate states it. */
static const char *hosts_how(const struct est_job *j, const struct cr_hosts *h)
{
	if (j->by.ca_order && j->by.num_ca_order)
		return "the engine's CA order";
	/* sorted: hosts that share a description are neighbours */
	for (uint32_t i = 1; i < h->count; i++)
		if (!strcmp(j->f->nodes[h->ep[i].node].desc,
			    j->f->nodes[h->ep[i - 1].node].desc))
			return "node descriptions, natural sort; hosts that"
			       " share one by node GUID";
	return "node descriptions, natural sort";
}

static int run_job(void *ctx, void *job)
{
	struct est_job *j = job;
	struct job_run jr = {.w = ctx, .j = j};
	struct cr_est_params par;
	struct cr_pattern *pats = NULL;
	struct cr_hosts *hosts = NULL;
	struct timespec t0, t1;
	const char *how;
	int n = 0, rc;

	pl_core_code("CR47");

	if (!j->f) {
		remove_dump(j->path);
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_est_params_init(&par);
	cr_est_conf_penalty(&j->conf, &par.pen);
	cr_est_conf_paths(&j->conf, &par.paths, &par.lanes);
	par.orders = DUMP_ORDERS;
	par.order_seed = DUMP_ORDER_SEED;
	hosts = cr_hosts_for(j->f, &j->by, NULL);
	if (!hosts)
		goto fail;
	how = hosts_how(j, hosts);
	/* A fabric cut down to one host (the SM's switch cut off, say). */
	if (hosts->count < 2) {
		cr_info("no contention estimate of %s's routing: %u host(s);"
			" %s removed",
			j->engine, hosts->count, j->path);
		remove_dump(j->path);
		goto out;
	}
	n = job_patterns(j, hosts->count, &pats);
	if (n < 0)
		goto fail;
	jr.hosts = hosts;
	jr.n = n;
	jr.res = calloc(n, sizeof(*jr.res));
	if (!jr.res)
		goto fail;
	rc = cr_est_patterns(j->f, j->r, &par, pats, n, &job_each, &jr);
	if (jr.cancelled)
		goto out;
	if (rc || !jr.done)
		goto fail;
	apply_name_map(j);
	if (write_dump(&jr, how, &par, pats))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_verbose("wrote %s in %.2f s", j->path,
		   (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	goto out;
fail:
	pl_err("CR2B", "no contention estimate of %s's routing; %s removed",
	       j->engine, j->path);
	remove_dump(j->path);
out:
	for (int i = 0; jr.res && i < n; i++)
		cr_est_result_free(jr.res[i]);
	free(jr.res);
	if (n > 0)
		cr_pattern_list_free(pats, n);
	cr_hosts_free(hosts);
	return 0;
}

/*
 * Before a job, the sweep has freed its transient memory (OpenSM's LFT
 * MADs, croute's scratch); after it, the job's tables and the estimate's
 * work are freed. malloc keeps most of that, so its free pages go back to
 * the system here, off the sweeper thread, before the estimate grows and
 * after it.
 */
static void give_back(void *ctx)
{
	(void)ctx;
#ifdef HAVE_MALLOC_TRIM
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	malloc_trim(0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_verbose("contention estimate thread: free heap pages given back"
		   " in %.1f ms",
		   (t1.tv_sec - t0.tv_sec) * 1e3 +
			   (t1.tv_nsec - t0.tv_nsec) / 1e6);
#endif
}

static const struct cr_worker_ops est_ops = {
	.name = "contention estimate thread",
	.run = run_job,
	.idle = give_back,
	.free_job = job_free,
};

/* ---- the sweeper's side ----------------------------------------------- */

static struct cr_est_worker *worker_get(struct cr_plugin *pl)
{
	struct cr_est_worker *w = pl->est_worker;

	if (w)
		return w;
	w = calloc(1, sizeof(*w));
	if (!w || cr_worker_init(&w->w, &est_ops, w)) {
		free(w);
		pl_err("CR2C",
		       "out of memory starting the contention estimate");
		return NULL;
	}
	pl->est_worker = w;
	return w;
}

/* Queues j (taking it), replacing a queued job, superseding a running one. */
static void submit(struct cr_plugin *pl, struct est_job *j)
{
	struct cr_est_worker *w = worker_get(pl);

	if (!w) {
		job_free(j);
		return;
	}
	cr_worker_submit(&w->w, j);
}

/*
 * Queues the estimate of the routing croute installed last (ours), or
 * only the removal of a dump that would describe a routing that is gone;
 * queued too, so that an estimate still running cannot rename its dump
 * into place afterwards.
 */
static void hand_over(struct cr_plugin *pl, bool ours)
{
	const char *dir = pl->osm->subn.opt.dump_files_dir;
	const char *map = pl->osm->subn.opt.node_name_map_name;
	const struct cr_est_conf *c = &pl->conf.est;
	struct cr_est_worker *w;
	struct timespec t0, t1;
	struct est_job *j;

	if (!dir || !*dir)
		return;
	if (c->mode == CR_EST_MODE_NONE && !pl->est_worker) {
		/* Nothing runs, nothing queued: no thread needed. */
		char *path = dump_path(dir);

		if (path)
			remove_dump(path);
		free(path);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	w = worker_get(pl);
	j = calloc(1, sizeof(*j));
	if (!w || !j)
		goto oom;
	w->handed = true;
	w->handed_run = pl->run_start;
	j->path = dump_path(dir);
	if (!j->path)
		goto oom;
	if (ours && c->mode != CR_EST_MODE_NONE) {
		j->conf = *c;
		snprintf(j->engine, sizeof(j->engine), "%s",
			 pl->run_engine->name);
		if (map && *map) {
			j->name_map = strdup(map);
			if (!j->name_map)
				goto oom;
		}
		j->f = cr_fabric_copy(pl->fabric);
		if (!j->f)
			goto oom;
		/* Taken, not copied: croute drops its tables after a run. */
		j->r = pl->routing;
		pl->routing = NULL;
		if (!j->r || cr_byproducts_copy(&j->by, &pl->by))
			goto oom;
	}
	submit(pl, j);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_verbose("routing handed to the estimate thread in %.1f ms",
		   (t1.tv_sec - t0.tv_sec) * 1e3 +
			   (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return;
oom:
	pl_err("CR2D", "out of memory copying the routing for the contention"
		       " estimate; none this time");
	job_free(j);
}

void cr_estimate_routing_done(struct cr_plugin *pl)
{
	const struct osm_routing_engine *used = pl->osm->routing_engine_used;

	hand_over(pl, pl->installed && pl->fabric && pl->routing && used &&
			      used->context == (void *)pl->run_engine);
}

void cr_estimate_stop(struct cr_plugin *pl)
{
	struct cr_est_worker *w = pl->est_worker;

	/*
	 * OpenSM stops reporting events once its exit flag is set, which
	 * opensm -o can do before the sweep that routed has reported
	 * UCAST_ROUTING_DONE: then the routing installed last was never
	 * handed over. Its tables are croute's (installed is only set when
	 * OpenSM took them; routing_engine_used is gone by now), so
	 * estimate them here.
	 */
	if (pl->installed && pl->fabric && pl->routing && pl->run_engine &&
	    pl->conf.est.mode != CR_EST_MODE_NONE &&
	    (!w || !w->handed || w->handed_run.tv_sec != pl->run_start.tv_sec ||
	     w->handed_run.tv_nsec != pl->run_start.tv_nsec)) {
		cr_info("OpenSM exits before reporting the end of routing:"
			" estimating %s's routing now",
			pl->run_engine->name);
		hand_over(pl, true);
		w = pl->est_worker;
	}
	if (!w)
		return;
	/* The queued job is the newest routing: it runs too, then we stop. */
	cr_worker_destroy(&w->w);
	free(w);
	pl->est_worker = NULL;
}
