// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's improve step on a thread of its own, so that OpenSM's sweep
 * waits only for the fast step (include/croute/tune/auto.h).
 *
 * The story of one fabric: the sweep routes it with the fast step and
 * installs that; once installed, the thread runs the improve step on
 * private copies of the fabric, the options and the installed tables
 * (it never touches OpenSM's structures, but to ask for a sweep). When
 * the improve step finds better tables, and their churn is within
 * croute_auto_max_churn, they are kept and OpenSM is asked for a heavy
 * sweep as its console's "resweep heavy" does. That sweep imports the
 * fabric again: when its digest (nodes, ports, links, LIDs, rates) and
 * the configuration's are those the tables were made for, they are
 * installed; otherwise they are dropped, the new fabric is routed with
 * the fast step and the improve step starts again for it. Sweeps of the
 * same fabric in between reinstall what is installed and leave the
 * thread running.
 *
 * Guarantees: the first install never waits for the improve step; the
 * improve step's result depends on its inputs only (it gives up whole
 * past its wall-clock limit, or when cancelled, never stops part way),
 * so the tables installed in the end are those `croute route -e auto`
 * computes; stale results are dropped by generation, under the lock.
 *
 * croute_optimize after any other engine takes the same road: the
 * engine's tables are installed at once, the pass runs on the thread, and
 * its tables, when they gain more than croute_auto_improve_threshold
 * (held-out), are installed at a requested sweep as above.
 *
 * Cost in the sweep: the digests, and copies of the fabric and tables.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "err.h"
#include "background.h"
#include "worker.h"
#include "transition.h"

#include <croute/model/clock.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/model/node_match.h>

/* Seconds the improve step may run past 4 x its budget on a busy host. */
#define BG_SLACK_S 30.0
/* run_job: an improvement croute_auto_safe_transitions refuses */
#define BG_UNSAFE 2

struct bg_job {
	/* croute_optimize's pass after this engine; NULL: cr-auto's step */
	const struct cr_engine *opt_e;
	char hosts[1024];
	uint64_t gen;
	struct cr_stop stop; /* its cancel: the worker's */
	double give_up_s; /* wall clock, from the start of the job */
	char name[CR_PLUGIN_NAME_LEN];
	struct cr_fabric *f;
	struct cr_options o;
	struct cr_auto_conf ac;
	struct cr_opt_params par;
	char candidates[512], objective[512];
	struct cr_routing *r; /* the installed tables, then the result */
	struct cr_byproducts by;
	double max_churn;
	/* croute_auto_safe_transitions: the installed tables, kept */
	bool safe_only;
	struct cr_routing *before;
	osm_opensm_t *osm; /* for the sweep request only */
};

struct cr_bg {
	struct cr_worker w; /* runs the jobs (struct bg_job) */
	/* under w's lock; gen is written by the sweeper alone */
	uint64_t gen; /* the state's; a job of another one is stale */
	struct cr_routing *kept; /* an improvement, NULL: none */
	struct cr_byproducts kept_by;
	uint64_t kept_churn;
	/* the sweeper's own; installed read by the thread under lock */
	struct bg_job *prepared; /* to start once installed */
	uint64_t fabric_digest, conf_digest;
	struct cr_routing *installed; /* NULL: nothing for the digests */
	struct cr_byproducts installed_by;
};

/* ---- digests ---------------------------------------------------------- */

static void mix(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= 0x100000001b3ULL;
	}
}

#define MIX(h, v)                                \
	do {                                     \
		__typeof__(v) mix_v_ = (v);      \
		mix(h, &mix_v_, sizeof(mix_v_)); \
	} while (0)

/* What routing reads of the fabric, in its order (indices matter). */
uint64_t cr_bg_fabric_digest(const struct cr_fabric *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	MIX(&h, f->num_nodes);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *nd = &f->nodes[n];

		MIX(&h, (int)nd->type);
		MIX(&h, nd->guid);
		MIX(&h, nd->num_ports);
		MIX(&h, nd->lft_cap);
		mix(&h, nd->desc, strlen(nd->desc));
		for (unsigned p = 0; p <= nd->num_ports; p++) {
			const struct cr_port *pt = &nd->ports[p];

			MIX(&h, pt->guid);
			MIX(&h, pt->lid);
			MIX(&h, pt->lmc);
			MIX(&h, pt->width);
			MIX(&h, (int)pt->speed);
			MIX(&h, pt->remote);
			MIX(&h, pt->remote_port);
		}
	}
	MIX(&h, f->sm_port_guid);
	return h;
}

static void mix_list(uint64_t *h, const struct cr_guid_list *l)
{
	MIX(h, l->count);
	mix(h, l->guids, l->count * sizeof(*l->guids));
}

/* The options and keys the routing depends on. */
static uint64_t conf_digest(const struct cr_plugin_engine *pe,
			    const struct cr_options *o,
			    const struct cr_auto_conf *ac,
			    const struct cr_opt_params *par)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const struct cr_conf *c = &pe->pl->conf;

	MIX(&h, (uintptr_t)pe->e);
	MIX(&h, o->port_shifting);
	MIX(&h, o->remote_guid_sorting);
	MIX(&h, o->scatter_ports);
	mix_list(&h, &o->root_guids);
	mix_list(&h, &o->cn_guids);
	mix_list(&h, &o->io_guids);
	mix_list(&h, &o->guid_order);
	MIX(&h, o->num_port_orders);
	mix(&h, o->port_orders, o->num_port_orders * sizeof(*o->port_orders));
	MIX(&h, o->lash_start_vl);
	MIX(&h, o->max_vls);
	MIX(&h, o->lash_balance);
	MIX(&h, o->balance_global);
	MIX(&h, o->balance_first);
	MIX(&h, (int)o->updn_roots);
	mix(&h, c->auto_candidates, strlen(c->auto_candidates));
	MIX(&h, '|');
	mix(&h, c->auto_objective, strlen(c->auto_objective));
	MIX(&h, ac->budget);
	MIX(&h, ac->qos);
	MIX(&h, ac->allow_credit_loops);
	MIX(&h, ac->improve != NULL);
	MIX(&h, ac->improve_rest);
	MIX(&h, ac->threshold);
	MIX(&h, c->auto_max_churn);
	MIX(&h, c->auto_safe_transitions);
	MIX(&h, c->auto_give_up);
	MIX(&h, par->budget);
	MIX(&h, par->max_extra_hops);
	return h;
}

/* ---- jobs ------------------------------------------------------------- */

static void job_free(void *arg)
{
	struct bg_job *j = arg;

	if (!j)
		return;
	cr_fabric_free(j->f);
	cr_options_release(&j->o);
	cr_routing_free(j->r);
	cr_routing_free(j->before);
	cr_byproducts_release(&j->by);
	free(j);
}

static int copy_list(struct cr_guid_list *dst, const struct cr_guid_list *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->count; i++)
		if (cr_guid_list_add(dst, src->guids[i]))
			return -1;
	return 0;
}

/* A deep copy of o, without its engine's configuration. */
int cr_bg_copy_options(struct cr_options *dst, const struct cr_options *src)
{
	*dst = *src;
	dst->port_orders = NULL;
	dst->num_port_orders = 0;
	if (copy_list(&dst->root_guids, &src->root_guids) ||
	    copy_list(&dst->cn_guids, &src->cn_guids) ||
	    copy_list(&dst->io_guids, &src->io_guids) ||
	    copy_list(&dst->guid_order, &src->guid_order))
		return -1;
	if (src->num_port_orders) {
		size_t n = src->num_port_orders * sizeof(*src->port_orders);

		dst->port_orders = malloc(n);
		if (!dst->port_orders)
			return -1;
		memcpy(dst->port_orders, src->port_orders, n);
		dst->num_port_orders = src->num_port_orders;
	}
	dst->engine_conf = NULL;
	dst->stop = NULL;
	return 0;
}

/* The improve step's inputs, every one a private copy. NULL (logged). */
static struct bg_job *
job_new(struct cr_plugin *pl, const struct cr_plugin_engine *pe,
	const struct cr_fabric *f, const struct cr_options *o,
	const struct cr_routing *r, const struct cr_byproducts *by)
{
	const struct cr_auto_conf *ac = &pl->auto_conf;
	struct bg_job *j = calloc(1, sizeof(*j));
	double budget = cr_auto_budget(ac);

	if (!j)
		goto oom;
	if (pe->e != &cr_auto_engine) {
		j->opt_e = pe->e;
		snprintf(j->objective, sizeof(j->objective), "%s",
			 pl->conf.auto_objective);
		snprintf(j->hosts, sizeof(j->hosts), "%s", pl->conf.auto_hosts);
		budget = pl->opt_params.budget > 0 ? pl->opt_params.budget
						   : CR_OPT_BUDGET_DEFAULT;
	}
	snprintf(j->name, sizeof(j->name), "%s", pe->name);
	j->osm = pl->osm;
	j->max_churn = pl->conf.auto_max_churn;
	j->safe_only = pl->conf.auto_safe_transitions;
	j->par = pl->opt_params;
	j->ac = *ac;
	j->ac.improve_arg = &j->par;
	if (ac->candidates) {
		snprintf(j->candidates, sizeof(j->candidates), "%s",
			 ac->candidates);
		j->ac.candidates = j->candidates;
	}
	if (ac->objective) {
		snprintf(j->objective, sizeof(j->objective), "%s",
			 ac->objective);
		j->ac.objective = j->objective;
	}
	/* the configuration is read again at the next sweep */
	if (!j->opt_e && ac->hosts) {
		snprintf(j->hosts, sizeof(j->hosts), "%s", ac->hosts);
		j->ac.hosts = j->hosts;
	}
	j->ac.threshold = pl->conf.auto_improve_threshold;
	/* The pass's own budget (croute_optimize) comes on top. */
	if (!j->opt_e && ac->improve && !ac->improve_rest)
		budget += j->par.budget > 0 ? j->par.budget
					    : CR_OPT_BUDGET_DEFAULT;
	/*
	 * The pass's own guard factor on the whole step, and more slack:
	 * nothing waits for the thread, and giving up loses all its work.
	 */
	j->give_up_s = pl->conf.auto_give_up > 0
			       ? pl->conf.auto_give_up
			       : CR_OPT_WALL_GUARD * budget + BG_SLACK_S;
	if (cr_bg_copy_options(&j->o, o))
		goto oom;
	j->o.engine_conf = j->opt_e ? NULL : &j->ac;
	j->stop.cancel = cr_worker_cancel_flag(&pl->bg->w);
	j->o.stop = &j->stop;
	j->f = cr_fabric_copy(f);
	j->r = cr_routing_copy(r);
	if (!j->f || !j->r || cr_byproducts_copy(&j->by, by))
		goto oom;
	return j;
oom:
	pl_err("CR2E",
	       "%s: out of memory preparing the improve step; the fast"
	       " step's tables stay",
	       pe->name);
	job_free(j);
	return NULL;
}

/* ---- the thread ------------------------------------------------------- */

static uint64_t lft_entries(const struct cr_fabric *f)
{
	return (uint64_t)f->num_switches * ((uint64_t)f->max_lid + 1);
}

/* The improve step's result, under the lock. True: ask for a sweep. */
static bool settle(struct cr_bg *bg, struct bg_job *j, int rc)
{
	uint64_t churn, all = lft_entries(j->f);
	double share;

	if (j->gen != bg->gen) {
		if (rc == 1)
			cr_info("%s: background: the improvement found is"
				" dropped: the fabric or the configuration"
				" changed while it ran",
				j->name);
		return false;
	}
	if (rc < 0) {
		cr_info("%s: background: nothing to install (the improve"
			" step stopped, see above); the fast step's tables"
			" stay",
			j->name);
		return false;
	}
	if (rc == 0) {
		cr_info("%s: background: nothing better than the installed"
			" tables by croute_auto_improve_threshold; they stay",
			j->name);
		return false;
	}
	if (rc == BG_UNSAFE) {
		cr_info("%s: background: the improvement is not installed: the"
			" change is unsafe (croute_auto_safe_transitions, see"
			" above); the installed tables stay",
			j->name);
		return false;
	}
	/*
	 * The tables installed: the sweeper changes them only after it
	 * moved to another generation, under this lock.
	 */
	churn = bg->installed
			? cr_routing_churn(j->f, bg->installed, j->f, j->r)
			: all;
	share = all ? (double)churn / (double)all : 0;
	if (share > j->max_churn) {
		cr_info("%s: background: the improvement is not installed:"
			" it changes %" PRIu64 " LFT entries, %.2f%% of all,"
			" above croute_auto_max_churn (%.2f%%)",
			j->name, churn, 100 * share, 100 * j->max_churn);
		return false;
	}
	cr_routing_free(bg->kept);
	cr_byproducts_release(&bg->kept_by);
	bg->kept = j->r;
	j->r = NULL;
	cr_byproducts_move(&bg->kept_by, &j->by);
	bg->kept_churn = churn;
	/*
	 * Cancelled (under this lock) by a new sweep or by the plugin's
	 * delete, which OpenSM calls while its SM object still exists.
	 */
	if (cr_worker_cancelled(&bg->w))
		return false;
	cr_info("%s: background: improvement found (%" PRIu64 " LFT entries"
		" to change, %.2f%% of all) after %.1f s; kept, a heavy sweep"
		" requested to install it",
		j->name, churn, 100 * share,
		cr_now() - (j->stop.deadline - j->give_up_s));
	return true;
}

/*
 * croute_optimize's pass on j->r, as cr_auto_improve() for cr-auto: 1
 * when it kept moves and its gain (held-out when the objective holds
 * some out) passes croute_auto_improve_threshold, 0 when not, -1 when it
 * gave up or failed (logged).
 */
static int run_optimize(struct bg_job *j)
{
	struct cr_opt_params p = j->par;
	struct cr_opt_stats st = {0};
	struct cr_objective obj;
	double thr = j->ac.threshold > 0 ? j->ac.threshold
					 : CR_AUTO_THRESHOLD_DEFAULT;
	double b, a;
	int rc;

	if (cr_objective_parse(j->objective[0] ? j->objective : NULL,
			       "croute_auto_objective", &obj))
		return -1;
	obj.max_flows = CR_AUTO_MAX_FLOWS;
	obj.hosts_file = j->hosts[0] ? j->hosts : NULL;
	p.stop = &j->stop;
	rc = cr_optimize(j->f, j->opt_e, &obj, &p, j->r, &j->by, &st);
	cr_objective_release(&obj);
	if (rc < 0)
		return -1;
	if (!st.moves || st.reverted)
		return 0;
	b = st.held_before > 0 ? st.held_before : st.before;
	a = st.held_before > 0 ? st.held_after : st.after;
	if (b > 0 && (a - b) / b > thr)
		return 1;
	cr_info("%s: background: the pass's gain %.4f -> %.4f is not above"
		" croute_auto_improve_threshold (%.3f)",
		j->name, b, a, thr);
	return 0;
}

/*
 * The improve step or the pass; with croute_auto_safe_transitions, an
 * improvement is checked against the tables it started from, which are
 * the installed ones while the generation holds (settle drops it
 * otherwise): here, on the thread, so that neither the sweep nor the
 * lock waits for the check.
 */
static int run_job(void *ctx, void *job)
{
	struct bg_job *j = job;
	int rc;

	(void)ctx;
	pl_core_code("CR48");
	j->stop.deadline = cr_now() + j->give_up_s;
	cr_info("%s: background: the %s starts (gives up after %.1f s)",
		j->name, j->opt_e ? "improvement pass" : "improve step",
		j->give_up_s);
	if (j->safe_only && !(j->before = cr_routing_copy(j->r)))
		return -1;
	rc = j->opt_e ? run_optimize(j)
		      : cr_auto_improve(j->f, &j->o, j->r, &j->by);
	if (rc == 1 && j->before &&
	    !cr_plugin_transition_safe(j->name, j->f, j->before, j->r))
		rc = BG_UNSAFE;
	cr_routing_free(j->before);
	j->before = NULL;
	return rc;
}

/* Under the lock, the job no longer running. */
static void settle_job(void *ctx, void *job, int rc)
{
	struct bg_job *j = job;

	/* As OpenSM's console does "resweep heavy". */
	if (settle(ctx, j, rc)) {
		j->osm->subn.force_heavy_sweep = TRUE;
		osm_opensm_sweep(j->osm);
	}
}

static const struct cr_worker_ops bg_ops = {
	.name = "improve step thread",
	.run = run_job,
	.settle = settle_job,
	.free_job = job_free,
};

/* ---- the sweeper's side ----------------------------------------------- */

static struct cr_bg *bg_get(struct cr_plugin *pl)
{
	struct cr_bg *bg = pl->bg;

	if (bg)
		return bg;
	bg = calloc(1, sizeof(*bg));
	if (!bg || cr_worker_init(&bg->w, &bg_ops, bg)) {
		free(bg);
		return NULL;
	}
	pl->bg = bg;
	return bg;
}

/* Under the lock: a new state; whatever the old one had goes. */
static void drop_locked(struct cr_bg *bg, const char *name, const char *why)
{
	struct bg_job *running;

	bg->gen++;
	running = cr_worker_drop_locked(&bg->w);
	if (running && why)
		cr_info("%s: background: the running %s is cancelled: %s",
			running->name,
			running->opt_e ? "improvement pass" : "improve step",
			why);
	if (bg->kept && why)
		cr_info("%s: background: the improvement kept is dropped: %s",
			name, why);
	cr_routing_free(bg->kept);
	bg->kept = NULL;
	cr_byproducts_release(&bg->kept_by);
	job_free(bg->prepared);
	bg->prepared = NULL;
	cr_routing_free(bg->installed);
	bg->installed = NULL;
	cr_byproducts_release(&bg->installed_by);
}

void cr_bg_forget(struct cr_plugin *pl, const char *why)
{
	struct cr_bg *bg = pl->bg;

	if (!bg)
		return;
	cr_worker_lock(&bg->w);
	drop_locked(bg, "cr-auto", bg->installed ? why : NULL);
	cr_worker_unlock(&bg->w);
	/* pl->incr_base is another engine's from now on, or none */
	pl->auto_base[0] = '\0';
	pl->auto_base_why[0] = '\0';
}

/* *r and by: a copy of the installed tables. */
static int reinstall(struct cr_bg *bg, struct cr_routing **r,
		     struct cr_byproducts *by)
{
	struct cr_routing *c = cr_routing_copy(bg->installed);

	cr_byproducts_release(by);
	if (!c || cr_byproducts_copy(by, &bg->installed_by)) {
		cr_routing_free(c);
		return -1;
	}
	cr_routing_free(*r);
	*r = c;
	return 0;
}

/*
 * The same fabric and configuration as the tables installed: those
 * again, or the improvement kept for them. 1 done, -1 out of memory.
 */
static int same_fabric(struct cr_bg *bg, const struct cr_plugin_engine *pe,
		       const struct cr_fabric *f, struct cr_routing **r,
		       struct cr_byproducts *by)
{
	uint64_t all = lft_entries(f);

	if (bg->kept) {
		cr_routing_free(bg->installed);
		cr_byproducts_release(&bg->installed_by);
		bg->installed = bg->kept;
		cr_byproducts_move(&bg->installed_by, &bg->kept_by);
		bg->kept = NULL;
		cr_info("%s: background: the fabric is the one the improvement"
			" was found for: installing it, %" PRIu64 " LFT entries"
			" change (%.2f%% of all)",
			pe->name, bg->kept_churn,
			all ? 100.0 * (double)bg->kept_churn / (double)all : 0);
	} else {
		cr_info("%s: the fabric and configuration routed before: the"
			" installed tables again%s",
			pe->name,
			cr_worker_has_job_locked(&bg->w)
				? " (their improve step still runs)"
				: "");
	}
	return reinstall(bg, r, by) ? -1 : 1;
}

int cr_bg_route(struct cr_plugin_engine *pe, const struct cr_fabric *f,
		const struct cr_options *o, struct cr_routing **r,
		struct cr_byproducts *by, enum cr_bg_how *how)
{
	struct cr_plugin *pl = pe->pl;
	struct cr_bg *bg = bg_get(pl);
	bool rebase = false;
	uint64_t fd = cr_bg_fabric_digest(f);
	uint64_t cd = conf_digest(pe, o, &pl->auto_conf, &pl->opt_params);
	int rc = 0;

	if (!bg) {
		pl_err("CR2F", "%s: out of memory", pe->name);
		return -1;
	}
	cr_worker_lock(&bg->w);
	*how = CR_BG_AGAIN;
	if (bg->installed && fd == bg->fabric_digest && cd == bg->conf_digest) {
		/*
		 * A candidate's own tables can be kept for repairs as the
		 * fast step's are; tables the pass changed cannot.
		 */
		if (bg->kept && bg->kept_by.auto_passed)
			cr_auto_drop_base(pl, "the installed tables are the"
					      " improvement pass's");
		rebase = bg->kept && pe->e == &cr_auto_engine;
		rc = same_fabric(bg, pe, f, r, by);
	} else {
		drop_locked(bg, pe->name,
			    !bg->installed	      ? NULL
			    : fd != bg->fabric_digest ? "the fabric changed"
						      : "the configuration"
							" changed");
	}
	cr_worker_unlock(&bg->w);
	if (rc > 0 && rebase && !by->auto_passed)
		cr_auto_keep_base(pl, pe, f, o, *r, by);
	if (rc)
		return rc < 0 ? -1 : 0;
	/*
	 * A fabric or configuration of its own: the repair of the fast
	 * step's tables (croute_incremental), else the fast step, at once.
	 */
	if (pe->e != &cr_auto_engine) {
		/* croute_optimize: the engine's tables now, the pass after */
		if (cr_route_by(pe->e, f, o, *r, by) < 0) {
			pl_err("CR30",
			       "%s cannot route this fabric (%u switches, %u"
			       " nodes)",
			       pe->name, f->num_switches, f->num_nodes);
			return -1;
		}
		*how = CR_BG_AGAIN;
	} else if (cd == bg->conf_digest &&
		   cr_auto_repair(pl, pe, f, o, *r, by)) {
		*how = CR_BG_REPAIRED;
	} else {
		if (cr_auto_fast(f, o, *r, by) < 0)
			return -1;
		*how = CR_BG_FAST;
		cr_auto_keep_base(pl, pe, f, o, *r, by);
	}
	bg->fabric_digest = fd;
	bg->conf_digest = cd;
	/* No copies for an improve step that would find the same tables. */
	if (pe->e == &cr_auto_engine && cr_auto_improve_idle(f, o, by)) {
		cr_info("%s: background: no improve step for this fabric (its"
			" budget, croute_auto_budget, holds the fast step's"
			" winner alone and no improvement pass); no copies"
			" kept",
			pe->name);
		return 0;
	}
	bg->installed = cr_routing_copy(*r);
	if (!bg->installed || cr_byproducts_copy(&bg->installed_by, by)) {
		cr_routing_free(bg->installed);
		bg->installed = NULL;
		pl_err("CR31", "%s: out of memory keeping the installed tables",
		       pe->name);
		return 0;
	}
	bg->prepared = job_new(pl, pe, f, o, *r, by);
	return 0;
}

void cr_bg_installed(struct cr_plugin *pl)
{
	struct cr_bg *bg = pl->bg;
	struct bg_job *j;

	if (!bg || !bg->prepared)
		return;
	j = bg->prepared;
	bg->prepared = NULL;
	/*
	 * The sweeper alone changes gen; the job reaches the thread under
	 * the lock. A running job was cancelled when the state changed: the
	 * thread takes this one once it stops.
	 */
	j->gen = bg->gen;
	cr_worker_submit(&bg->w, j);
}

void cr_bg_stop(struct cr_plugin *pl)
{
	struct cr_bg *bg = pl->bg;

	if (!bg)
		return;
	cr_worker_lock(&bg->w);
	drop_locked(bg, "cr-auto",
		    cr_worker_running_locked(&bg->w) ? "OpenSM exits" : NULL);
	cr_worker_unlock(&bg->w);
	cr_worker_destroy(&bg->w);
	free(bg);
	pl->bg = NULL;
}
