/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Routing for the running jobs in the plugin (jobs_route.c): the sweep
 * routes with the engine as ever (the base tables) and keeps a private
 * copy of what it installed; the jobs file's watcher thread
 * (jobs_watch.c) tunes the base tables for the jobs it read, with
 * cr_jobs_tune() and the same parameters as `croute route --jobs`, and
 * when the change is worth it and safe, keeps the tuned tables and asks
 * OpenSM for a heavy sweep, which installs them when the fabric and the
 * base tables are still those they were tuned from.
 *
 * Threads: the cr_jobs_route_sweep/installed/forget calls from OpenSM's
 * sweeper; cr_jobs_route_tune and the take calls from the watcher's
 * thread; cr_jobs_route_cancel from either. State under its own mutex,
 * never held while tuning; OpenSM's lock is never taken.
 */
#ifndef CROUTE_PLUGIN_JOBS_ROUTE_H
#define CROUTE_PLUGIN_JOBS_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <croute/model/routing.h>
#include <croute/tune/conf_map.h>

struct cr_plugin;
struct cr_plugin_engine;
struct cr_options;
struct cr_jobs_route;

/* The plugin's, created on first use; NULL (logged) when out of memory. */
struct cr_jobs_route *cr_jobs_route_get(struct cr_plugin *pl);
/* At unload, once the watcher stopped. */
void cr_jobs_route_free(struct cr_jobs_route *jr);

/*
 * The sweeper, after routing f into *r (the base tables): when f and *r
 * are those the jobs' tables were tuned from, *r becomes those tables
 * (true); otherwise a copy of the base is kept for the next tuning, and
 * *r becomes the jobs' tables in the switches (true) when the fabric is
 * the same, until the new base is tuned.
 * False too when out of memory (logged; the base tables are installed).
 */
bool cr_jobs_route_sweep(struct cr_jobs_route *jr,
			 const struct cr_plugin_engine *pe,
			 const struct cr_fabric *f, const struct cr_options *o,
			 struct cr_routing **r, const struct cr_byproducts *by);
/*
 * The sweeper, once the run's tables are installed: true when the
 * watcher has news (cr_jobs_watch_kick()): the jobs' tables are now in
 * the switches, or new base tables wait for a tuning.
 */
bool cr_jobs_route_installed(struct cr_jobs_route *jr);
/* The sweeper: the run failed or another engine routes; why: the log. */
void cr_jobs_route_forget(struct cr_jobs_route *jr, const char *why);

/* What the watcher's thread decides for one reading of the jobs file. */
enum cr_jobs_verdict {
	CR_JOBS_NO_ROUTING, /* no base tables yet: tuned once installed */
	CR_JOBS_KEPT, /* the installed tables stay (why says why) */
	CR_JOBS_SWEEP, /* new tables kept, a heavy sweep asked for */
	CR_JOBS_STALE, /* the base changed while tuning: tuned again */
	CR_JOBS_FAILED, /* logged; the installed tables stay */
};

/*
 * On the watcher's thread: tunes the base tables for the jobs of text
 * (len bytes of the file path; NULL: no jobs) and decides. token names
 * the reading, given back by cr_jobs_route_take_installed() once its
 * tables are installed. why (a static text) says what the installed
 * tables are for the state file: "tuned", "base", "unchanged".
 */
enum cr_jobs_verdict cr_jobs_route_tune(struct cr_jobs_route *jr,
					const struct cr_jobs_conf *jc,
					const char *text, size_t len,
					uint64_t token, const char **why);
/*
 * On the watcher's thread, after a kick: whether the tables of reading
 * *token are now installed (*why as above), and whether new base tables
 * wait for a tuning.
 */
bool cr_jobs_route_take_installed(struct cr_jobs_route *jr, uint64_t *token,
				  const char **why);
bool cr_jobs_route_take_retune(struct cr_jobs_route *jr);
/*
 * The refine stage (croute_jobs_refine), on the watcher's thread: after
 * cr_jobs_route_tune() KEPT or SWEEP, cr_jobs_route_refine_waits() says
 * whether its first stage left something to refine. Once the first
 * stage's tables are in, cr_jobs_route_refine() goes on from them as
 * `croute route --jobs` does, gives up when asks(arg) says so (new jobs)
 * or as a tuning does, and decides: 1, refined tables wait for
 * cr_jobs_route_refine_install() (which requests the heavy sweep, *token
 * the reading's); 0, the installed tables stay (logged); -1, stopped or
 * failed (logged). cr_jobs_route_refine_drop() forgets them.
 */
bool cr_jobs_route_refine_waits(const struct cr_jobs_route *jr);
int cr_jobs_route_refine(struct cr_jobs_route *jr,
			 const struct cr_jobs_conf *jc, bool (*asks)(void *arg),
			 void *arg);
enum cr_jobs_verdict cr_jobs_route_refine_install(struct cr_jobs_route *jr,
						  uint64_t *token);
void cr_jobs_route_refine_drop(struct cr_jobs_route *jr);
/*
 * Any thread: on, a running tuning gives up and none starts (the watcher
 * stops); off once it stopped.
 */
void cr_jobs_route_stopping(struct cr_jobs_route *jr, bool on);

#endif
