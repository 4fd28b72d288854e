/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A thread of its own for work the sweeper must not wait for, where only
 * the latest request is worth doing (worker.c): the improve step of the
 * fabric routed last (background.c), the estimate of the routing
 * installed last (estimate.c).
 *
 * One job runs at a time, one more is queued. A job submitted while the
 * thread is busy replaces the queued one (freed unrun) and raises the
 * cancel flag, which the running job polls to stop early; the thread
 * takes the queued job when the running one returns, and leaves when none
 * is queued. The thread is started on demand and runs at nice 10, below
 * the process's other threads. No OpenSM header: any pthread user can
 * hold one.
 *
 * Threads: cr_worker_submit() and cr_worker_destroy() from one thread
 * (the owner's: OpenSM's sweeper); the *_locked calls, and the owner's
 * state that settle reads, under cr_worker_lock().
 */
#ifndef CROUTE_PLUGIN_WORKER_H
#define CROUTE_PLUGIN_WORKER_H

#include <pthread.h>
#include <stdbool.h>

struct cr_worker_ops {
	const char *name; /* the thread in the log: "improve step thread" */
	/* On the thread, off the lock; the result goes to settle. */
	int (*run)(void *ctx, void *job);
	/* NULL, or under the lock once the job no longer counts as running. */
	void (*settle)(void *ctx, void *job, int rc);
	/* NULL, or on the thread before each job and after each is freed. */
	void (*idle)(void *ctx);
	/* Any thread, the lock held or not; job may be NULL. */
	void (*free_job)(void *job);
};

/* Embedded in its owner's state; the fields are worker.c's. */
struct cr_worker {
	pthread_mutex_t lock;
	pthread_t thread;
	bool thread_live; /* created and not joined yet (the owner's) */
	bool busy; /* the thread is in its loop (under lock) */
	bool cancel; /* the running job is superseded (atomic) */
	void *pending; /* queued, not taken yet (under lock) */
	void *running; /* taken, not settled yet (under lock) */
	const struct cr_worker_ops *ops;
	void *ctx;
};

/* No thread yet. 0, or an errno value (nothing to destroy). */
int cr_worker_init(struct cr_worker *w, const struct cr_worker_ops *ops,
		   void *ctx);
/*
 * Lets the running and queued jobs finish (cr_worker_drop_locked() first
 * to stop sooner), joins the thread and releases w.
 */
void cr_worker_destroy(struct cr_worker *w);
/*
 * Queues job, taking it, and starts the thread when it is not busy. When
 * the thread cannot start (logged), the job is freed and w stays usable.
 */
void cr_worker_submit(struct cr_worker *w, void *job);

void cr_worker_lock(struct cr_worker *w);
void cr_worker_unlock(struct cr_worker *w);
/*
 * Frees the queued job and cancels the running one. Returns the running
 * job (valid while the lock is held), or NULL.
 */
void *cr_worker_drop_locked(struct cr_worker *w);
/* The job running (not yet settled), or NULL. */
void *cr_worker_running_locked(const struct cr_worker *w);
/* Whether a job is queued or running. */
bool cr_worker_has_job_locked(const struct cr_worker *w);

/*
 * Whether the running job is superseded or dropped; from the job itself,
 * or in settle. The flag (for struct cr_stop) is cleared as each job is
 * taken.
 */
bool cr_worker_cancelled(const struct cr_worker *w);
const bool *cr_worker_cancel_flag(const struct cr_worker *w);

#endif
