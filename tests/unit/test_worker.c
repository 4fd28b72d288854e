// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The plugin's latest-request-wins thread (src/plugin/worker.c), on real
 * threads, the running job held at a gate while the test submits: jobs
 * submitted meanwhile replace each other and cancel it, and only the
 * newest runs next, on the same thread; dropping frees the queued job and
 * cancels the running one; destroy lets both finish and joins; a thread
 * the kernel refuses to start (RLIMIT_NPROC, in a child process) costs
 * the job and an error line, and the worker starts the next one.
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "worker.h"

#define MAX_JOBS 8
/* An unprivileged user the kernel's RLIMIT_NPROC applies to. */
#define NOBODY 65534
#define LOG_LEN 1024

struct t_ctx {
	struct cr_worker w;
	pthread_mutex_t m; /* the fields below; taken inside w's lock */
	pthread_cond_t cv;
	bool open; /* the gate: running jobs may return */
	bool destroyed; /* cr_worker_destroy() has returned */
	int started;
	int ran[MAX_JOBS], nran; /* job ids in run order */
	pthread_t tid[MAX_JOBS];
	bool saw_cancel[MAX_JOBS];
	bool destroyed_in_run[MAX_JOBS];
	int settled[MAX_JOBS]; /* the run's result, 0: not settled */
	bool running_at_settle[MAX_JOBS];
	bool queued_at_settle[MAX_JOBS];
	int freed[MAX_JOBS];
	int idle;
};

struct t_job {
	struct t_ctx *c;
	int id;
};

static int t_run(void *ctx, void *job)
{
	struct t_ctx *c = ctx;
	struct t_job *j = job;

	pthread_mutex_lock(&c->m);
	c->ran[c->nran++] = j->id;
	c->tid[j->id] = pthread_self();
	c->started++;
	pthread_cond_broadcast(&c->cv);
	while (!c->open)
		pthread_cond_wait(&c->cv, &c->m);
	c->saw_cancel[j->id] = cr_worker_cancelled(&c->w);
	c->destroyed_in_run[j->id] = c->destroyed;
	pthread_mutex_unlock(&c->m);
	return 100 + j->id;
}

static void t_settle(void *ctx, void *job, int rc)
{
	struct t_ctx *c = ctx;
	struct t_job *j = job;

	pthread_mutex_lock(&c->m);
	c->settled[j->id] = rc;
	c->running_at_settle[j->id] = cr_worker_running_locked(&c->w);
	c->queued_at_settle[j->id] = cr_worker_has_job_locked(&c->w);
	pthread_mutex_unlock(&c->m);
}

static void t_idle(void *ctx)
{
	struct t_ctx *c = ctx;

	pthread_mutex_lock(&c->m);
	c->idle++;
	pthread_mutex_unlock(&c->m);
}

static void t_free(void *job)
{
	struct t_job *j = job;

	if (!j)
		return;
	pthread_mutex_lock(&j->c->m);
	j->c->freed[j->id]++;
	pthread_mutex_unlock(&j->c->m);
	free(j);
}

static const struct cr_worker_ops t_ops = {
	.name = "test thread",
	.run = t_run,
	.settle = t_settle,
	.idle = t_idle,
	.free_job = t_free,
};

static int t_init(struct t_ctx *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->m, NULL);
	pthread_cond_init(&c->cv, NULL);
	return cr_worker_init(&c->w, &t_ops, c);
}

static void t_fini(struct t_ctx *c)
{
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->m);
}

/* false: out of memory */
static bool t_submit(struct t_ctx *c, int id)
{
	struct t_job *j = malloc(sizeof(*j));

	if (!j)
		return false;
	j->c = c;
	j->id = id;
	cr_worker_submit(&c->w, j);
	return true;
}

static void t_wait_started(struct t_ctx *c, int n)
{
	pthread_mutex_lock(&c->m);
	while (c->started < n)
		pthread_cond_wait(&c->cv, &c->m);
	pthread_mutex_unlock(&c->m);
}

static void t_wait_settled(struct t_ctx *c, int id)
{
	struct timespec nap = {0, 1000000};

	for (;;) {
		bool done;

		pthread_mutex_lock(&c->m);
		done = c->settled[id] != 0;
		pthread_mutex_unlock(&c->m);
		if (done)
			return;
		nanosleep(&nap, NULL);
	}
}

static void t_open(struct t_ctx *c)
{
	pthread_mutex_lock(&c->m);
	c->open = true;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->m);
}

/* ---- the thread cannot start -------------------------------------------- */

static void capture(void *arg, enum cr_log_level level, const char *msg)
{
	char *buf = arg;
	size_t len = strlen(buf);

	(void)level;
	snprintf(buf + len, LOG_LEN - len, "%s\n", msg);
}

static void *nothing(void *arg)
{
	return arg;
}

/*
 * In a child process (it gives up root for good): 0 passed, 77 the
 * kernel cannot be made to refuse a thread here, else the failed check.
 */
static int create_fails_child(void)
{
	struct rlimit was, none;
	struct t_ctx c;
	pthread_t probe;
	char log[LOG_LEN] = "";

	if (getuid() == 0 && (setgid(NOBODY) || setuid(NOBODY)))
		return 77;
	if (getrlimit(RLIMIT_NPROC, &was))
		return 77;
	none = was;
	none.rlim_cur = 0;
	if (setrlimit(RLIMIT_NPROC, &none))
		return 77;
	if (!pthread_create(&probe, NULL, nothing, NULL)) {
		pthread_join(probe, NULL);
		return 77;
	}
	if (t_init(&c))
		return 1;
	c.open = true;
	cr_log_set_thread(capture, log);
	if (!t_submit(&c, 1))
		return 2;
	cr_log_set_thread(NULL, NULL);
	/* The job is freed unrun, and the error says which thread. */
	if (c.freed[1] != 1 || c.nran != 0)
		return 3;
	if (!strstr(log, "cannot start the test thread: "))
		return 4;
	/* Not left busy: the next submit starts the thread. */
	if (setrlimit(RLIMIT_NPROC, &was))
		return 5;
	if (!t_submit(&c, 2))
		return 6;
	cr_worker_destroy(&c.w);
	if (c.nran != 1 || c.ran[0] != 2 || c.settled[2] != 102 ||
	    c.freed[2] != 1 || c.freed[1] != 1)
		return 7;
	t_fini(&c);
	return 0;
}

static void test_create_fails(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(create_fails_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- latest request wins ------------------------------------------------ */

static void test_latest_wins(void **state)
{
	struct t_ctx c;

	(void)state;
	assert_int_equal(t_init(&c), 0);
	assert_true(t_submit(&c, 1));
	t_wait_started(&c, 1);
	assert_true(t_submit(&c, 2));
	assert_true(t_submit(&c, 3));
	assert_true(t_submit(&c, 4));
	/* Each replaced the one queued before it, unrun. */
	pthread_mutex_lock(&c.m);
	assert_int_equal(c.freed[2], 1);
	assert_int_equal(c.freed[3], 1);
	assert_int_equal(c.freed[4], 0);
	assert_int_equal(c.nran, 1);
	pthread_mutex_unlock(&c.m);
	t_open(&c);
	cr_worker_destroy(&c.w);
	assert_int_equal(c.nran, 2);
	assert_int_equal(c.ran[0], 1);
	assert_int_equal(c.ran[1], 4);
	assert_int_equal(c.settled[1], 101);
	assert_int_equal(c.settled[4], 104);
	for (int id = 1; id <= 4; id++)
		assert_int_equal(c.freed[id], 1);
	assert_int_equal(c.idle, 4); /* before and after each job run */
	t_fini(&c);
}

/* ---- coalescing while busy ---------------------------------------------- */

static void test_coalesce_busy(void **state)
{
	struct t_ctx c;

	(void)state;
	assert_int_equal(t_init(&c), 0);
	assert_true(t_submit(&c, 1));
	t_wait_started(&c, 1);
	assert_true(t_submit(&c, 2));
	t_open(&c);
	t_wait_settled(&c, 2);
	/* Once the thread may have left its loop, or not: either way it runs. */
	assert_true(t_submit(&c, 3));
	cr_worker_destroy(&c.w);

	assert_int_equal(c.nran, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(c.ran[i], i + 1);
	/* The busy thread took the queued job itself: no second thread. */
	assert_true(pthread_equal(c.tid[1], c.tid[2]));
	/* The superseded job saw the cancel; the next one starts clear. */
	assert_true(c.saw_cancel[1]);
	assert_false(c.saw_cancel[2]);
	assert_false(c.saw_cancel[3]);
	/* Settled as no longer running; job 2 was queued at job 1's. */
	assert_false(c.running_at_settle[1]);
	assert_true(c.queued_at_settle[1]);
	assert_false(c.running_at_settle[2]);
	for (int id = 1; id <= 3; id++) {
		assert_int_equal(c.settled[id], 100 + id);
		assert_int_equal(c.freed[id], 1);
	}
	t_fini(&c);
}

/* ---- stop: drop, destroy -------------------------------------------------- */

static void test_drop(void **state)
{
	struct t_ctx c;
	struct t_job *running;

	(void)state;
	assert_int_equal(t_init(&c), 0);
	cr_worker_lock(&c.w);
	assert_null(cr_worker_drop_locked(&c.w));
	assert_false(cr_worker_has_job_locked(&c.w));
	cr_worker_unlock(&c.w);

	assert_true(t_submit(&c, 1));
	t_wait_started(&c, 1);
	assert_true(t_submit(&c, 2));
	cr_worker_lock(&c.w);
	assert_true(cr_worker_has_job_locked(&c.w));
	running = cr_worker_drop_locked(&c.w);
	assert_non_null(running);
	assert_int_equal(running->id, 1);
	assert_ptr_equal(cr_worker_running_locked(&c.w), running);
	cr_worker_unlock(&c.w);
	pthread_mutex_lock(&c.m);
	assert_int_equal(c.freed[2], 1);
	pthread_mutex_unlock(&c.m);

	t_open(&c);
	cr_worker_destroy(&c.w);
	assert_int_equal(c.nran, 1);
	assert_true(c.saw_cancel[1]);
	assert_int_equal(c.settled[1], 101);
	assert_int_equal(c.freed[1], 1);
	assert_int_equal(c.freed[2], 1);
	t_fini(&c);
}

static void *destroy_thread(void *arg)
{
	struct t_ctx *c = arg;

	cr_worker_destroy(&c->w);
	pthread_mutex_lock(&c->m);
	c->destroyed = true;
	pthread_mutex_unlock(&c->m);
	return NULL;
}

static void test_destroy_waits(void **state)
{
	struct timespec nap = {0, 20000000};
	struct t_ctx c;
	pthread_t t;

	(void)state;
	assert_int_equal(t_init(&c), 0);
	assert_true(t_submit(&c, 1));
	t_wait_started(&c, 1);
	assert_true(t_submit(&c, 2));
	assert_int_equal(pthread_create(&t, NULL, destroy_thread, &c), 0);
	/* Time for a destroy that did not wait to return. */
	nanosleep(&nap, NULL);
	t_open(&c);
	assert_int_equal(pthread_join(t, NULL), 0);

	/* The queued job ran too, both before destroy returned. */
	assert_true(c.destroyed);
	assert_int_equal(c.nran, 2);
	assert_int_equal(c.ran[0], 1);
	assert_int_equal(c.ran[1], 2);
	assert_false(c.destroyed_in_run[1]);
	assert_false(c.destroyed_in_run[2]);
	assert_int_equal(c.freed[1], 1);
	assert_int_equal(c.freed[2], 1);
	t_fini(&c);
}

int main(void)
{
	/* The fork first, while this process has no other thread. */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_fails),
		cmocka_unit_test(test_latest_wins),
		cmocka_unit_test(test_coalesce_busy),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_destroy_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
