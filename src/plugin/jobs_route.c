// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Routing for the running jobs (jobs_route.h). The sweep installs its
 * engine's tables (the base) as ever and keeps them, with the fabric they
 * were made for, as an immutable snapshot; the watcher's thread tunes the
 * snapshot's tables for the jobs, off the sweep and off every lock, with
 * the parameters `croute route --jobs` uses by default, so that the
 * installed tables are those the command prints for the same fabric,
 * LIDs and jobs file.
 *
 * A tuning is installed when it differs from the installed tables and:
 * it gains at least croute_jobs_threshold on the jobs term over them, or
 * it is the base tables again (no job left to route for) and the jobs
 * lose nothing by it; its churn is within croute_auto_max_churn; no path
 * SL changes (running queue pairs keep theirs); and every mix of old and
 * new entries is safe (cr_transition_check(), whatever
 * croute_auto_safe_transitions says: the change is made by choice while
 * jobs run). Kept tables are installed by a heavy sweep, as the
 * background improvements are, when that sweep's fabric and base tables
 * are the snapshot's; any other base drops them, is installed at once,
 * and is tuned again once installed, but for new base tables of the same
 * fabric while the jobs' are in the switches: those stay until the new
 * base is tuned (carried; cr_jobs_route_sweep()).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin.h"
#include "err.h"
#include "background.h"
#include "jobs_route.h"
#include "transition.h"

#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/model/node_match.h>
#include <croute/tune/jobs_tune.h>

/*
 * Seconds a tuning may run past 4 x its budget on a busy host. The budget
 * is seconds of CPU, and a crowded SM host stretches them into many more
 * of the wall clock (bench/slurm/README); the tuning runs on the
 * watcher's thread, never in a sweep, so waiting costs the SM nothing.
 */
#define JR_SLACK_S 120.0

/* The tables a sweep installed and what they were made of; immutable. */
struct jr_base {
	unsigned refs; /* under the lock */
	uint64_t gen;
	uint64_t fabric_digest;
	char name[CR_PLUGIN_NAME_LEN];
	const struct cr_engine *e;
	struct cr_fabric *f;
	struct cr_options o;
	struct cr_routing *r;
	struct cr_byproducts by;
};

/*
 * The refine stage of the latest reading (the watcher's thread only):
 * what the first stage left, then the refined tables until installed.
 */
struct jr_refine {
	struct jr_base *b; /* a reference; NULL: nothing to refine */
	struct cr_jobs *jobs;
	struct cr_jobs_stage *stage;
	uint64_t token; /* the reading's */
	/* the jobs term of the tables installed when the jobs were read */
	double read_term;
	struct cr_routing *refined; /* worth installing; NULL: none */
};

struct cr_jobs_route {
	pthread_mutex_t lock;
	osm_opensm_t *osm; /* for the sweep request only */
	bool cancel; /* atomic: a running tuning gives up */
	bool stopping; /* atomic: the plugin unloads */
	/* under the lock */
	uint64_t gen; /* the base's; a tuning of another one is stale */
	struct jr_base *base; /* NULL: none installed */
	struct cr_routing *tuned; /* in the switches, NULL: the base */
	const char *tuned_why;
	bool carried; /* tuned is an older base's, kept for this one */
	struct cr_routing *kept; /* to install at the next sweep */
	const char *kept_why;
	uint64_t kept_token;
	bool installing; /* the run under way carries kept */
	bool news; /* installed_* are for the watcher */
	uint64_t installed_token;
	const char *installed_why;
	bool fresh; /* the base is new: tune it once installed */
	bool retune; /* a new base, installed: tune it */
	struct jr_refine rf; /* the watcher's thread's only */
};

static void base_unref_locked(struct jr_base *b)
{
	if (!b || --b->refs)
		return;
	cr_fabric_free(b->f);
	cr_options_release(&b->o);
	cr_routing_free(b->r);
	cr_byproducts_release(&b->by);
	free(b);
}

struct cr_jobs_route *cr_jobs_route_get(struct cr_plugin *pl)
{
	struct cr_jobs_route *jr = pl->jobs_route;

	if (jr)
		return jr;
	jr = calloc(1, sizeof(*jr));
	if (!jr || pthread_mutex_init(&jr->lock, NULL)) {
		free(jr);
		pl_err("CR54",
		       "out of memory: the routing is not tuned for the jobs");
		return NULL;
	}
	jr->osm = pl->osm;
	pl->jobs_route = jr;
	return jr;
}

static void drop_locked(struct cr_jobs_route *jr)
{
	jr->gen++;
	__atomic_store_n(&jr->cancel, true, __ATOMIC_RELEASE);
	base_unref_locked(jr->base);
	jr->base = NULL;
	cr_routing_free(jr->tuned);
	jr->tuned = NULL;
	jr->carried = false;
	cr_routing_free(jr->kept);
	jr->kept = NULL;
	jr->installing = false;
	jr->fresh = false;
	jr->retune = false;
}

static void refine_clear_locked(struct jr_refine *rf)
{
	base_unref_locked(rf->b);
	cr_jobs_stage_free(rf->stage);
	cr_jobs_free(rf->jobs);
	cr_routing_free(rf->refined);
	memset(rf, 0, sizeof(*rf));
}

void cr_jobs_route_free(struct cr_jobs_route *jr)
{
	if (!jr)
		return;
	refine_clear_locked(&jr->rf);
	drop_locked(jr);
	pthread_mutex_destroy(&jr->lock);
	free(jr);
}

void cr_jobs_route_stopping(struct cr_jobs_route *jr, bool on)
{
	/*
	 * Under the lock: take_base() reads stopping and clears cancel
	 * under it, and a cancel raised between the two would be lost; the
	 * sweeper would then wait in the join for a whole tuning.
	 */
	pthread_mutex_lock(&jr->lock);
	__atomic_store_n(&jr->stopping, on, __ATOMIC_RELEASE);
	if (on)
		__atomic_store_n(&jr->cancel, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&jr->lock);
}

void cr_jobs_route_forget(struct cr_jobs_route *jr, const char *why)
{
	if (!jr)
		return;
	pthread_mutex_lock(&jr->lock);
	if (jr->base && why)
		cr_info("jobs: the tables tuned for the jobs are forgotten: %s",
			why);
	drop_locked(jr);
	pthread_mutex_unlock(&jr->lock);
}

/* Whether a and b, both for f, are the same tables and SLs. */
static bool same_tables(const struct cr_fabric *f, const struct cr_routing *a,
			const struct cr_routing *b)
{
	size_t row = (size_t)a->max_lid + 1;

	if (a->max_lid != b->max_lid || a->num_nodes != b->num_nodes ||
	    !a->sl != !b->sl || a->num_layers != b->num_layers)
		return false;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		if (memcmp(a->lft[n], b->lft[n], row) ||
		    (a->sl && memcmp(a->sl[n], b->sl[n], row)))
			return false;
	}
	return true;
}

/* Whether a and b give every (switch, LID) the same SL. */
static bool same_sls(const struct cr_fabric *f, const struct cr_routing *a,
		     const struct cr_routing *b)
{
	if (!a->sl || !b->sl)
		return !a->sl && !b->sl;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		if (memcmp(a->sl[n], b->sl[n], (size_t)a->max_lid + 1))
			return false;
	}
	return true;
}

static struct jr_base *base_new(const struct cr_plugin_engine *pe,
				const struct cr_fabric *f,
				const struct cr_options *o,
				const struct cr_routing *r,
				const struct cr_byproducts *by, uint64_t fd)
{
	struct jr_base *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->refs = 1;
	b->fabric_digest = fd;
	b->e = pe->e;
	snprintf(b->name, sizeof(b->name), "%s", pe->name);
	if (cr_bg_copy_options(&b->o, o) || !(b->f = cr_fabric_copy(f)) ||
	    !(b->r = cr_routing_copy(r)) || cr_byproducts_copy(&b->by, by)) {
		base_unref_locked(b);
		return NULL;
	}
	return b;
}

bool cr_jobs_route_sweep(struct cr_jobs_route *jr,
			 const struct cr_plugin_engine *pe,
			 const struct cr_fabric *f, const struct cr_options *o,
			 struct cr_routing **r, const struct cr_byproducts *by)
{
	uint64_t fd = cr_bg_fabric_digest(f);
	struct jr_base *b, *nb = NULL;
	const struct cr_routing *target;
	struct cr_routing *c = NULL, *carry = NULL;

	pthread_mutex_lock(&jr->lock);
	b = jr->base;
	if (b && b->e == pe->e && !strcmp(b->name, pe->name) &&
	    b->fabric_digest == fd && same_tables(f, b->r, *r)) {
		target = jr->kept ? jr->kept : jr->tuned;
		c = target ? cr_routing_copy(target) : NULL;
		if (target && !c) {
			pl_err("CR55",
			       "%s: out of memory: the tables tuned for the"
			       " jobs are dropped; the base tables are"
			       " installed",
			       pe->name);
			drop_locked(jr);
		} else if (c) {
			cr_info("%s: jobs: installing the tables %s for the"
				" running jobs",
				pe->name,
				jr->kept ? "just tuned" : "tuned before");
			jr->installing = jr->kept != NULL;
			cr_routing_free(*r);
			*r = c;
		}
		pthread_mutex_unlock(&jr->lock);
		return c != NULL;
	}
	/*
	 * New base tables on the same fabric (cr-auto's background
	 * improvement, a pass) while the jobs' are in the switches: those
	 * stay until the new base is tuned, so that the one change made is
	 * the tuning's, checked from them (worth_it()), not an unchecked
	 * step back to the engine's tables and forth again.
	 */
	if (b && b->e == pe->e && b->fabric_digest == fd && jr->tuned &&
	    !same_tables(f, b->r, jr->tuned) && same_sls(f, jr->tuned, *r)) {
		carry = jr->tuned;
		jr->tuned = NULL;
	}
	if (b)
		cr_info("%s: jobs: %s: %s, then tuned for the running jobs",
			pe->name,
			b->fabric_digest != fd ? "the fabric changed"
					       : "new base tables",
			carry ? "the jobs' tables stay installed until these"
				" are"
			      : "these tables are installed");
	drop_locked(jr);
	/* copies made under the lock: the watcher only reads the base */
	nb = base_new(pe, f, o, *r, by, fd);
	if (!nb) {
		pl_err("CR56",
		       "%s: out of memory keeping the tables for the jobs'"
		       " tuning; they are not tuned",
		       pe->name);
	} else {
		nb->gen = jr->gen;
		jr->base = nb;
		jr->fresh = true;
		if (carry && (c = cr_routing_copy(carry))) {
			jr->tuned = carry;
			jr->tuned_why = "tuned";
			jr->carried = true;
			carry = NULL;
			cr_routing_free(*r);
			*r = c;
		}
	}
	cr_routing_free(carry);
	pthread_mutex_unlock(&jr->lock);
	return c != NULL;
}

bool cr_jobs_route_installed(struct cr_jobs_route *jr)
{
	bool news;

	pthread_mutex_lock(&jr->lock);
	if (jr->installing) {
		cr_routing_free(jr->tuned);
		jr->tuned = jr->kept;
		jr->tuned_why = jr->kept_why;
		jr->carried = false;
		jr->kept = NULL;
		jr->installing = false;
		jr->news = true;
		jr->installed_token = jr->kept_token;
		jr->installed_why = jr->tuned_why;
	}
	if (jr->base && jr->fresh)
		jr->retune = true;
	jr->fresh = false;
	news = jr->news || jr->retune;
	pthread_mutex_unlock(&jr->lock);
	return news;
}

bool cr_jobs_route_take_installed(struct cr_jobs_route *jr, uint64_t *token,
				  const char **why)
{
	bool news;

	pthread_mutex_lock(&jr->lock);
	news = jr->news;
	jr->news = false;
	*token = jr->installed_token;
	*why = jr->installed_why;
	pthread_mutex_unlock(&jr->lock);
	return news;
}

bool cr_jobs_route_take_retune(struct cr_jobs_route *jr)
{
	bool retune;

	pthread_mutex_lock(&jr->lock);
	retune = jr->retune;
	jr->retune = false;
	pthread_mutex_unlock(&jr->lock);
	return retune;
}

/* ---- the watcher's thread --------------------------------------------- */

/* The jobs term (CR_JOBS_TERM) of r; -1 (logged) on error. */
static double jobs_term(const struct cr_fabric *f, const struct cr_routing *r,
			const struct cr_jobs *jobs)
{
	struct cr_hosts *hosts = cr_hosts_default(f);
	struct cr_objective obj;
	double s = -1;

	if (!hosts || cr_objective_parse(CR_JOBS_TERM, "jobs", &obj)) {
		cr_hosts_free(hosts);
		return -1;
	}
	obj.jobs = jobs;
	if (cr_objective_score(f, r, &obj, hosts, &s))
		s = -1;
	cr_objective_release(&obj);
	cr_hosts_free(hosts);
	return s;
}

static bool has_pair(const struct cr_jobs *jobs)
{
	for (uint32_t k = 0; k < jobs->num_jobs; k++)
		if (jobs->job[k].count > 1)
			return true;
	return false;
}

/* The gain a change must make: the key that sets it, for the log. */
struct jr_gate {
	const char *key;
	bool carried; /* from a carried older base: no gain asked */
};

/*
 * Whether to go from the installed tables (from) to the tuning's (to):
 * logs the reason when not. *why: what the tables are for the state.
 */
static bool worth_it(const struct jr_base *b, const struct cr_jobs_conf *jc,
		     const struct cr_jobs *jobs, const struct cr_routing *from,
		     const struct cr_routing *to, const struct cr_jobs_gain *g,
		     const struct jr_gate *gate, const char **why)
{
	bool carried = gate->carried;
	const struct cr_fabric *f = b->f;
	bool to_base = same_tables(f, b->r, to);
	uint64_t all = (uint64_t)f->num_switches * ((uint64_t)f->max_lid + 1);
	uint64_t churn = cr_routing_churn(f, from, f, to);
	bool pair = has_pair(jobs);
	double before = !pair			     ? 0
			: same_tables(f, b->r, from) ? g->jobs_before
						     : jobs_term(f, from, jobs);
	double after = g->jobs_after, gain, share;

	*why = to_base ? "base" : "tuned";
	if (before < 0)
		return false;
	gain = before > 0 ? after / before - 1 : 0;
	/* from a carried older base, the engine moved anyway: no gain asked */
	if (to_base && pair && !carried && after < before) {
		cr_info("%s: jobs: back to the engine's tables would lose"
			" %.2f%% on the running jobs; the installed tables"
			" stay",
			b->name, -100 * gain);
		return false;
	}
	if (!to_base && !carried && gain < jc->threshold) {
		cr_info("%s: jobs: predicted gain on the running jobs %+.2f%%"
			" (%.4f -> %.4f) is below %s (%.2f%%); the"
			" installed tables stay",
			b->name, 100 * gain, before, after, gate->key,
			100 * jc->threshold);
		return false;
	}
	share = all ? (double)churn / (double)all : 0;
	if (share > jc->max_churn) {
		cr_info("%s: jobs: the change of %" PRIu64 " LFT entries"
			" (%.2f%% of all) is above croute_auto_max_churn"
			" (%.2f%%); the installed tables stay",
			b->name, churn, 100 * share, 100 * jc->max_churn);
		return false;
	}
	if (!same_sls(f, from, to)) {
		cr_info("%s: jobs: the change would move path SLs, which"
			" running queue pairs keep; the installed tables stay",
			b->name);
		return false;
	}
	/* Always: the change is made by choice while jobs run. */
	if (!cr_plugin_transition_safe(b->name, f, from, to)) {
		cr_info("%s: jobs: the change is unsafe (above); the installed"
			" tables stay",
			b->name);
		return false;
	}
	cr_info("%s: jobs: predicted gain on the running jobs %+.2f%% (%.4f"
		" -> %.4f), %" PRIu64 " LFT entries change (%.2f%%): %s",
		b->name, 100 * gain, before, after, churn, 100 * share,
		to_base	  ? "back to the engine's tables"
		: carried ? "the new base tables, tuned for the jobs"
			  : "tuned for the jobs");
	return true;
}

/* The base to tune and a copy of the installed tables; NULL: none. */
static struct jr_base *take_base(struct cr_jobs_route *jr,
				 struct cr_routing **installed, bool *carried)
{
	struct jr_base *b;

	pthread_mutex_lock(&jr->lock);
	b = jr->base;
	if (b) {
		*installed = cr_routing_copy(jr->tuned ? jr->tuned : b->r);
		*carried = jr->carried;
		if (*installed)
			b->refs++;
		else
			b = NULL;
		/* the newest base: a cancel was for an older one */
		if (!__atomic_load_n(&jr->stopping, __ATOMIC_ACQUIRE))
			__atomic_store_n(&jr->cancel, false, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&jr->lock);
	return b;
}

static void put_base(struct cr_jobs_route *jr, struct jr_base *b)
{
	pthread_mutex_lock(&jr->lock);
	base_unref_locked(b);
	pthread_mutex_unlock(&jr->lock);
}

/* Kept for the next sweep: true when that sweep is to be asked for. */
static bool keep(struct cr_jobs_route *jr, const struct jr_base *b,
		 struct cr_routing **to, uint64_t token, const char *why)
{
	bool ok;

	pthread_mutex_lock(&jr->lock);
	ok = jr->base == b && b->gen == jr->gen;
	if (ok) {
		cr_routing_free(jr->kept);
		jr->kept = *to;
		jr->kept_why = why;
		jr->kept_token = token;
		/*
		 * An install the watcher has not taken yet is superseded:
		 * taken after it waits for these tables, it would pass for
		 * theirs (the same reading's token), and the state file
		 * would say so before they are in the switches.
		 */
		jr->news = false;
		*to = NULL;
	}
	pthread_mutex_unlock(&jr->lock);
	return ok;
}

/* The carried tables turned out to be b's own tuning: gains count again. */
static void uncarry(struct cr_jobs_route *jr, const struct jr_base *b)
{
	pthread_mutex_lock(&jr->lock);
	if (jr->base == b && b->gen == jr->gen)
		jr->carried = false;
	pthread_mutex_unlock(&jr->lock);
}

/* Seconds of CPU this thread used. */
static double thread_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The jobs term of the installed tables from, as worth_it() takes it;
 * -1 (logged) on error.
 */
static double term_of(const struct jr_base *b, const struct cr_jobs *jobs,
		      const struct cr_routing *from,
		      const struct cr_jobs_gain *g)
{
	return same_tables(b->f, b->r, from) ? g->jobs_before
					     : jobs_term(b->f, from, jobs);
}

/*
 * What the refine stage needs, kept (*jobs and *stage taken) for the
 * watcher's next cr_jobs_route_refine(); left (logged) when it cannot be.
 */
static void refine_keep(struct cr_jobs_route *jr, struct jr_base *b,
			struct cr_jobs **jobs, struct cr_jobs_stage **stage,
			uint64_t token, const struct cr_routing *installed,
			const struct cr_jobs_gain *g)
{
	struct jr_refine *rf = &jr->rf;
	double term = term_of(b, *jobs, installed, g);

	if (term < 0) {
		pl_err("CR5B",
		       "%s: the jobs term of the installed tables is"
		       " unknown; the tables are not refined",
		       b->name);
		return;
	}
	pthread_mutex_lock(&jr->lock);
	b->refs++;
	pthread_mutex_unlock(&jr->lock);
	rf->b = b;
	rf->jobs = *jobs;
	rf->stage = *stage;
	rf->token = token;
	rf->read_term = term;
	*jobs = NULL;
	*stage = NULL;
}

void cr_jobs_route_refine_drop(struct cr_jobs_route *jr)
{
	pthread_mutex_lock(&jr->lock);
	refine_clear_locked(&jr->rf);
	pthread_mutex_unlock(&jr->lock);
}

bool cr_jobs_route_refine_waits(const struct cr_jobs_route *jr)
{
	return jr->rf.stage != NULL;
}

/*
 * Whether the refine stage's tables (to, g) go in for the installed ones
 * (from): they gain croute_jobs_threshold over the tables installed when
 * the jobs were read, as the first stage would have had to, and
 * croute_jobs_refine_threshold over those installed now; then the first
 * stage's checks (worth_it()). So once the first stage's tables are in,
 * the refine stage's follow unless they add too little or move too much.
 */
static bool refine_worth_it(const struct jr_refine *rf,
			    const struct cr_jobs_conf *jc,
			    const struct cr_routing *from,
			    const struct cr_routing *to,
			    const struct cr_jobs_gain *g)
{
	struct cr_jobs_conf rc = *jc;
	const struct jr_gate gate = {"croute_jobs_refine_threshold", false};
	double gain = rf->read_term > 0 ? g->jobs_after / rf->read_term - 1 : 0;
	const char *why;

	if (gain < jc->threshold) {
		cr_info("%s: jobs: the refined tables gain %+.2f%% on the"
			" running jobs over the tables installed when they"
			" were read (%.4f -> %.4f), below croute_jobs_threshold"
			" (%.2f%%); the installed tables stay",
			rf->b->name, 100 * gain, rf->read_term, g->jobs_after,
			100 * jc->threshold);
		return false;
	}
	rc.threshold = jc->refine_threshold;
	return worth_it(rf->b, &rc, rf->jobs, from, to, g, &gate, &why);
}

int cr_jobs_route_refine(struct cr_jobs_route *jr,
			 const struct cr_jobs_conf *jc, bool (*asks)(void *arg),
			 void *arg)
{
	struct jr_refine *rf = &jr->rf;
	struct cr_routing *installed = NULL, *to = NULL;
	bool carried;
	struct jr_base *b = take_base(jr, &installed, &carried);
	struct cr_stop stop = {.cancel = &jr->cancel, .asks = asks, .arg = arg};
	/* as `croute route --jobs [--jobs-refine croute_jobs_refine]` */
	struct cr_jobs_tune_params tp = {.objective = jc->objective,
					 .budget = jc->budget,
					 .refine = jc->refine,
					 .stop = &stop};
	struct cr_jobs_gain g;
	double t0 = cr_now(), c0 = thread_cpu();
	int ret = -1, rc;

	if (!b || b != rf->b || !rf->stage) {
		if (rf->stage)
			cr_info("%s: jobs: the tables changed since the first"
				" stage; not refined",
				rf->b->name);
		goto out;
	}
	stop.deadline = cr_now() + JR_SLACK_S + CR_OPT_WALL_GUARD * jc->refine;
	cr_info("%s: jobs: refining the tables for %u jobs"
		" (croute_jobs_refine %g)",
		b->name, rf->jobs->num_jobs, jc->refine);
	rc = cr_jobs_refine(rf->stage, &tp, &to, &g);
	cr_info("%s: jobs: the refine stage took %.2f s, %.2f s of CPU",
		b->name, cr_now() - t0, thread_cpu() - c0);
	if (rc == -2) {
		cr_info("%s: jobs: the refine stage stopped: new jobs, new"
			" tables or opensm exits",
			b->name);
	} else if (rc) {
		pl_err("CR5C",
		       "%s: the tables could not be refined for the jobs of %s;"
		       " the installed tables stay",
		       b->name, jc->file);
	} else if (same_tables(b->f, installed, to)) {
		cr_info("%s: jobs: the installed tables are those refined for"
			" the %u jobs (jobs term %.4f)",
			b->name, rf->jobs->num_jobs, g.jobs_after);
		ret = 0;
	} else if (refine_worth_it(rf, jc, installed, to, &g)) {
		rf->refined = to;
		to = NULL;
		ret = 1;
	} else {
		ret = 0;
	}
out:
	/* the refined tables, if any, and the base: the rest is done */
	cr_jobs_stage_free(rf->stage);
	rf->stage = NULL;
	if (ret < 1)
		cr_jobs_route_refine_drop(jr);
	cr_routing_free(to);
	cr_routing_free(installed);
	if (b)
		put_base(jr, b);
	return ret;
}

enum cr_jobs_verdict cr_jobs_route_refine_install(struct cr_jobs_route *jr,
						  uint64_t *token)
{
	struct jr_refine *rf = &jr->rf;
	enum cr_jobs_verdict v = CR_JOBS_KEPT;

	*token = rf->token;
	if (!rf->refined) {
		v = CR_JOBS_KEPT;
	} else if (__atomic_load_n(&jr->stopping, __ATOMIC_ACQUIRE) ||
		   !keep(jr, rf->b, &rf->refined, rf->token, "refined")) {
		cr_info("%s: jobs: the tables changed since the refine stage;"
			" its tables are dropped",
			rf->b->name);
		v = CR_JOBS_STALE;
	} else {
		cr_info("%s: jobs: a heavy sweep requested to install the"
			" refined tables",
			rf->b->name);
		jr->osm->subn.force_heavy_sweep = TRUE;
		osm_opensm_sweep(jr->osm);
		v = CR_JOBS_SWEEP;
	}
	cr_jobs_route_refine_drop(jr);
	return v;
}

enum cr_jobs_verdict cr_jobs_route_tune(struct cr_jobs_route *jr,
					const struct cr_jobs_conf *jc,
					const char *text, size_t len,
					uint64_t token, const char **why)
{
	struct cr_routing *installed = NULL, *to = NULL;
	bool carried = false;
	struct jr_base *b = take_base(jr, &installed, &carried);
	struct cr_stop stop = {.cancel = &jr->cancel};
	/*
	 * as `croute route --jobs [--jobs-budget croute_jobs_budget]
	 * [--jobs-objective croute_jobs_objective]`
	 */
	struct cr_jobs_tune_params tp = {.objective = jc->objective,
					 .budget = jc->budget,
					 .stop = &stop};
	struct cr_jobs *jobs = NULL;
	struct cr_jobs_stage *stage = NULL;
	struct cr_jobs_gain g;
	struct cr_jobs_start st;
	enum cr_jobs_verdict v = CR_JOBS_FAILED;
	int rc;

	*why = "unchanged";
	cr_jobs_route_refine_drop(jr);
	if (!b)
		return CR_JOBS_NO_ROUTING;
	st = (struct cr_jobs_start){b->f, b->e, &b->o, b->r, &b->by};
	pl_core_code("CR57");
	stop.deadline =
		cr_now() + JR_SLACK_S +
		CR_OPT_WALL_GUARD *
			(jc->budget > 0 ? jc->budget : CR_JOBS_BUDGET_DEFAULT);
	jobs = cr_jobs_parse(b->f, NULL, text ? text : "", text ? len : 0,
			     jc->file);
	if (!jobs) {
		rc = -1;
	} else if (!has_pair(jobs)) {
		/* nothing to tune for: the base, as cr_jobs_tune() says */
		memset(&g, 0, sizeof(g));
		to = cr_routing_copy(b->r);
		rc = to ? 0 : -1;
	} else {
		double t0 = cr_now(), c0 = thread_cpu();

		cr_info("%s: jobs: tuning the tables for %u jobs", b->name,
			jobs->num_jobs);
		/* the first stage; the refine stage goes on from it later */
		rc = cr_jobs_tune_first(&st, jobs, &tp, &to, &g,
					jc->refine > 0 ? &stage : NULL);
		/* the CPU apart from the wall clock: how loaded the host was */
		cr_info("%s: jobs: the tuning took %.2f s, %.2f s of CPU",
			b->name, cr_now() - t0, thread_cpu() - c0);
	}
	if (rc && __atomic_load_n(&jr->cancel, __ATOMIC_ACQUIRE)) {
		v = CR_JOBS_STALE;
		cr_info("%s: jobs: the tuning stopped: the tables changed or"
			" opensm exits",
			b->name);
	} else if (rc) {
		pl_err("CR58",
		       "%s: the tables could not be tuned for the jobs of %s;"
		       " the installed tables stay",
		       b->name, jc->file);
	} else if (same_tables(b->f, installed, to)) {
		cr_info("%s: jobs: the installed tables are those tuned for"
			" the %u jobs (jobs term %.4f)",
			b->name, jobs->num_jobs, g.jobs_after);
		if (carried)
			uncarry(jr, b);
		v = CR_JOBS_KEPT;
	} else if (!worth_it(b, jc, jobs, installed, to, &g,
			     &(const struct jr_gate){"croute_jobs_threshold",
						     carried},
			     why)) {
		*why = "unchanged";
		v = CR_JOBS_KEPT;
	} else if (__atomic_load_n(&jr->stopping, __ATOMIC_ACQUIRE)) {
		v = CR_JOBS_STALE;
	} else if (!keep(jr, b, &to, token, *why)) {
		cr_info("%s: jobs: the tables changed while the tuning ran;"
			" tuned again once the new ones are installed",
			b->name);
		v = CR_JOBS_STALE;
	} else {
		cr_info("%s: jobs: a heavy sweep requested to install them",
			b->name);
		/* As OpenSM's console does "resweep heavy". */
		jr->osm->subn.force_heavy_sweep = TRUE;
		osm_opensm_sweep(jr->osm);
		v = CR_JOBS_SWEEP;
	}
	if (stage && (v == CR_JOBS_KEPT || v == CR_JOBS_SWEEP))
		refine_keep(jr, b, &jobs, &stage, token, installed, &g);
	cr_jobs_stage_free(stage);
	cr_jobs_free(jobs);
	cr_routing_free(to);
	cr_routing_free(installed);
	put_base(jr, b);
	return v;
}
