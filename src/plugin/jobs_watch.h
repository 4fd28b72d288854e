/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The jobs file (croute_jobs_file; croute(8), croute-slurm(8)), watched on
 * a thread of its own (jobs_watch.c): inotify on the file's directory
 * tells it that croute-slurm renamed a new file in; changes are coalesced
 * and read at most once per croute_jobs_min_interval, and each reading
 * ends in jobs_changed(), which decides and writes PATH.state. The thread
 * never takes OpenSM's lock: the sweep never waits for it. No OpenSM
 * header.
 *
 * Threads: cr_jobs_watch_update() and cr_jobs_watch_stop() from one thread
 * (OpenSM's sweeper, at each routing run and at unload).
 */
#ifndef CROUTE_PLUGIN_JOBS_WATCH_H
#define CROUTE_PLUGIN_JOBS_WATCH_H

#include <croute/tune/conf_map.h>

struct cr_jobs_watch;
struct cr_jobs_route;

/*
 * Starts, restarts or stops the watcher so that it follows jc (a NULL
 * file or jr: stopped); *w is NULL when none runs. Its thread tunes the
 * routing for the jobs through jr (jobs_route.h). Failures are logged;
 * the routing goes on without the jobs.
 */
void cr_jobs_watch_update(struct cr_jobs_watch **w,
			  const struct cr_jobs_conf *jc,
			  struct cr_jobs_route *jr);
/* From the sweeper: the routing has news for the watcher (jobs_route.h). */
void cr_jobs_watch_kick(struct cr_jobs_watch *w);
/* Stops the watcher, if any, and waits for it. */
void cr_jobs_watch_stop(struct cr_jobs_watch **w);

#endif
