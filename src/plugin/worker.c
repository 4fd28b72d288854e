// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The latest-request-wins thread (worker.h). The thread exists only while
 * there is work: it leaves its loop when nothing is queued, and the next
 * submit joins it (it has left, so that does not wait) and starts another,
 * so that an idle plugin holds no thread.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "worker.h"
#include "err.h"

#include <croute/model/log.h>

int cr_worker_init(struct cr_worker *w, const struct cr_worker_ops *ops,
		   void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->ops = ops;
	w->ctx = ctx;
	return pthread_mutex_init(&w->lock, NULL);
}

void cr_worker_lock(struct cr_worker *w)
{
	pthread_mutex_lock(&w->lock);
}

void cr_worker_unlock(struct cr_worker *w)
{
	pthread_mutex_unlock(&w->lock);
}

bool cr_worker_cancelled(const struct cr_worker *w)
{
	return __atomic_load_n(&w->cancel, __ATOMIC_ACQUIRE);
}

const bool *cr_worker_cancel_flag(const struct cr_worker *w)
{
	return &w->cancel;
}

void *cr_worker_drop_locked(struct cr_worker *w)
{
	if (w->running)
		__atomic_store_n(&w->cancel, true, __ATOMIC_RELEASE);
	w->ops->free_job(w->pending);
	w->pending = NULL;
	return w->running;
}

void *cr_worker_running_locked(const struct cr_worker *w)
{
	return w->running;
}

bool cr_worker_has_job_locked(const struct cr_worker *w)
{
	return w->running || w->pending;
}

static void *worker_main(void *arg)
{
	struct cr_worker *w = arg;
	const struct cr_worker_ops *ops = w->ops;

	/*
	 * Below OpenSM's own threads (SA queries, the next sweep): on Linux
	 * a thread's nice value is its own. Best effort.
	 */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) < 0)
		cr_debug("%s: setpriority: %s", ops->name, strerror(errno));
	for (;;) {
		void *j;
		int rc;

		pthread_mutex_lock(&w->lock);
		j = w->pending;
		w->pending = NULL;
		w->running = j;
		if (!j) {
			w->busy = false;
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		__atomic_store_n(&w->cancel, false, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&w->lock);
		if (ops->idle)
			ops->idle(w->ctx);
		rc = ops->run(w->ctx, j);
		pthread_mutex_lock(&w->lock);
		w->running = NULL;
		if (ops->settle)
			ops->settle(w->ctx, j, rc);
		pthread_mutex_unlock(&w->lock);
		ops->free_job(j);
		if (ops->idle)
			ops->idle(w->ctx);
	}
}

void cr_worker_submit(struct cr_worker *w, void *job)
{
	int err;

	pthread_mutex_lock(&w->lock);
	w->ops->free_job(w->pending);
	w->pending = job;
	if (w->busy) {
		/* The thread takes the new job when the old one stops. */
		__atomic_store_n(&w->cancel, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&w->lock);
		return;
	}
	w->busy = true;
	pthread_mutex_unlock(&w->lock);
	/* The previous thread has left its loop: this join does not wait. */
	if (w->thread_live)
		pthread_join(w->thread, NULL);
	w->thread_live = false;
	err = pthread_create(&w->thread, NULL, worker_main, w);
	if (err) {
		pl_err("CR32", "cannot start the %s: %s", w->ops->name,
		       strerror(err));
		pthread_mutex_lock(&w->lock);
		w->ops->free_job(w->pending);
		w->pending = NULL;
		w->busy = false;
		pthread_mutex_unlock(&w->lock);
		return;
	}
	w->thread_live = true;
}

void cr_worker_destroy(struct cr_worker *w)
{
	if (w->thread_live)
		pthread_join(w->thread, NULL);
	w->thread_live = false;
	/* none left, unless the thread never started */
	w->ops->free_job(w->pending);
	w->pending = NULL;
	pthread_mutex_destroy(&w->lock);
}
