// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The jobs file's watcher (jobs_watch.h). Event-driven: the thread sleeps
 * in poll() on an inotify descriptor for the file's directory (croute-slurm
 * renames a new file in: IN_MOVED_TO; an editor may write in place or
 * delete it) and an eventfd that stops it. Changes that come while a
 * reading is not yet due (croute_jobs_min_interval after the last) are
 * coalesced into one reading. The file is read only when it is a regular
 * file owned by root that neither group nor others can write: whoever
 * can write it steers the fabric.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jobs_watch.h"
#include "jobs_route.h"
#include "err.h"

#include <croute/model/buf.h>
#include <croute/model/log.h>

/* While the directory cannot be watched, how often to try again (ms). */
#define RETRY_MS 5000
/*
 * Seconds a new reading waits for the sweep that installs the tables of
 * the one before: its prolog returns at that install, not after the next
 * tuning.
 */
#define INSTALL_WAIT_S 10.0
/* Bad lines named one by one, then only counted. */
#define MAX_LINE_WARNINGS 10

/* What one reading of the file found. */
struct jobs_read {
	const char *status; /* "ok", "absent" or "refused" */
	char *ids; /* " ID ID ...", malloc'ed */
	size_t len, cap;
	unsigned jobs, bad;
	char *text; /* the file, for the tuning; malloc'ed */
	size_t tlen, tcap;
	unsigned long number; /* the reading's */
};

/* Where the refine stage of the latest reading is. */
enum refine_step {
	RF_NONE, /* nothing to refine */
	RF_AFTER_INSTALL, /* once the first stage's tables are installed */
	RF_DUE, /* to run */
	RF_HELD, /* refined tables wait for croute_jobs_min_interval */
};

struct cr_jobs_watch {
	pthread_t thread;
	int ifd; /* inotify */
	int wd; /* the directory's watch, -1: none */
	int efd; /* written to stop the thread */
	int kfd; /* written by the sweeper: news of the routing */
	struct cr_jobs_route *jr; /* the tuning's state, not owned */
	struct jobs_read last; /* the latest reading, tuned for */
	struct jobs_read pending; /* its tables asked for, not installed */
	double pending_since; /* when they were asked for */
	char path[1024];
	char dir[1024];
	const char *base; /* the file's name in dir, into path */
	struct cr_jobs_conf conf; /* file points to path, objective to own */
	/*
	 * The sweeper rewrites its configuration at every run while this
	 * thread tunes: the objective's text is read from a copy of its own.
	 */
	char objective[512];
	unsigned long readings;
	bool warned_dir; /* the directory's watch failure is logged */
	enum refine_step refine;
	double installed_at; /* when tables were last asked for */
	bool news; /* the file changed while the refine stage ran */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void read_free(struct jobs_read *jr)
{
	free(jr->ids);
	free(jr->text);
	memset(jr, 0, sizeof(*jr));
}

/* The line as read, for the tuning's own parser; -1: out of memory. */
static int text_add(struct jobs_read *jr, const char *line, size_t n)
{
	if (cr_grow(&jr->text, &jr->tcap, jr->tlen + n + 1, 1))
		return -1;
	memcpy(jr->text + jr->tlen, line, n);
	jr->tlen += n;
	jr->text[jr->tlen] = '\0';
	return 0;
}

static int ids_add(struct jobs_read *jr, const char *id, size_t n)
{
	if (cr_grow(&jr->ids, &jr->cap, jr->len + n + 2, 1))
		return -1;
	jr->ids[jr->len++] = ' ';
	memcpy(jr->ids + jr->len, id, n);
	jr->len += n;
	jr->ids[jr->len] = '\0';
	jr->jobs++;
	return 0;
}

static void line_warn(struct cr_jobs_watch *w, struct jobs_read *jr,
		      unsigned lineno, const char *why)
{
	if (++jr->bad <= MAX_LINE_WARNINGS)
		cr_warn("%s:%u: %s; that job is left out", w->path, lineno,
			why);
}

/*
 * One line, "JOBID NODELIST [# comment]": only the ID is taken for now;
 * the node list must be one word. -1: out of memory.
 */
static int parse_line(struct cr_jobs_watch *w, struct jobs_read *jr,
		      unsigned lineno, char *line)
{
	char *hash = strchr(line, '#'), *id, *nodes, *rest;
	size_t n, len;

	if (hash)
		*hash = '\0';
	id = line + strspn(line, " \t\r\n");
	if (!*id)
		return 0;
	n = strspn(id, "0123456789");
	nodes = id + n + strspn(id + n, " \t");
	len = strcspn(nodes, " \t\r\n");
	rest = nodes + len + strspn(nodes + len, " \t\r\n");
	if (!n || n > 20 || (id[n] && !strchr(" \t\r\n", id[n]))) {
		line_warn(w, jr, lineno, "not a job number first");
		return 0;
	}
	if (!len || *rest) {
		line_warn(w, jr, lineno, "not 'JOBID NODELIST'");
		return 0;
	}
	return ids_add(jr, id, n);
}

/*
 * Whether the file may steer the fabric; the reason logged when not. Read
 * through the descriptor that was opened, so that a rename between the
 * check and the read cannot swap the file.
 */
static bool file_trusted(struct cr_jobs_watch *w, int fd)
{
	struct stat st;

	if (fstat(fd, &st)) {
		pl_err("CR33", "%s: %s; the jobs file is ignored", w->path,
		       strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		pl_err("CR34",
		       "%s is not a regular file; the jobs file is ignored",
		       w->path);
		return false;
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		pl_err("CR35",
		       "%s is owned by uid %u with mode %04o: only a file owned"
		       " by root that group and others cannot write may steer"
		       " the routing; the jobs file is ignored",
		       w->path, (unsigned)st.st_uid,
		       (unsigned)(st.st_mode & 07777));
		return false;
	}
	return true;
}

/* Reads the file into jr; -1 on out of memory (logged). */
static int jobs_read(struct cr_jobs_watch *w, struct jobs_read *jr)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned lineno = 0;
	int fd, ret = 0;
	FILE *fp;

	jr->status = "refused";
	/* No symbolic link: its target's owner is not checked. */
	fd = open(w->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			jr->status = "absent";
			return 0;
		}
		pl_err("CR36", "cannot open %s: %s; the jobs file is ignored",
		       w->path, strerror(errno));
		return 0;
	}
	if (!file_trusted(w, fd)) {
		close(fd);
		return 0;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		close(fd);
		pl_err("CR37", "%s: %s; the jobs file is ignored", w->path,
		       strerror(errno));
		return 0;
	}
	while ((n = getline(&line, &cap, fp)) >= 0)
		if (text_add(jr, line, (size_t)n) ||
		    parse_line(w, jr, ++lineno, line)) {
			pl_err("CR38", "out of memory reading %s", w->path);
			ret = -1;
			break;
		}
	if (!ret && ferror(fp)) {
		pl_err("CR39", "%s: read error; the jobs file is ignored",
		       w->path);
		jr->jobs = 0;
		jr->len = 0;
		jr->tlen = 0;
	} else if (!ret) {
		jr->status = "ok";
	}
	free(line);
	fclose(fp);
	if (jr->bad > MAX_LINE_WARNINGS)
		cr_warn("%s: %u bad lines in all, each job left out", w->path,
			jr->bad);
	return ret;
}

/*
 * PATH.state, atomically: a temporary file in the same directory, synced,
 * renamed over it. One "key value" a line; croute-slurm reads "jobs".
 */
static void state_write(struct cr_jobs_watch *w, const struct jobs_read *jr,
			const char *routing)
{
	char tmp[sizeof(w->path) + 32], state[sizeof(w->path) + 8];
	FILE *fp;
	int fd, bad;

	snprintf(state, sizeof(state), "%s.state", w->path);
	snprintf(tmp, sizeof(tmp), "%s.state.tmp.%ld", w->path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		pl_err("CR3A", "cannot write %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	fprintf(fp, "jobs%s\n", jr->ids ? jr->ids : "");
	fprintf(fp, "routing %s\n", routing);
	fprintf(fp, "file %s\n", jr->status);
	fprintf(fp, "count %u\n", jr->jobs);
	fprintf(fp, "bad_lines %u\n", jr->bad);
	fprintf(fp, "reading %lu\n", jr->number);
	fprintf(fp, "time %lld\n", (long long)time(NULL));
	bad = fflush(fp) || fsync(fd) || fchmod(fd, 0644);
	bad |= fclose(fp) != 0;
	if (bad || rename(tmp, state)) {
		pl_err("CR3B", "cannot write %s: %s", state, strerror(errno));
		unlink(tmp);
	}
}

/* The tables of the latest reading are asked for: the state waits. */
static void pend(struct cr_jobs_watch *w)
{
	struct jobs_read *jr = &w->last;

	read_free(&w->pending);
	w->pending_since = now_s();
	w->installed_at = w->pending_since;
	w->pending = *jr;
	w->pending.text = NULL;
	w->pending.ids = jr->ids ? strdup(jr->ids) : NULL;
	if (jr->ids && !w->pending.ids)
		pl_err("CR59", "out of memory: %s.state will list no job",
		       w->path);
}

/*
 * The one place where a reading of the jobs file leads to a decision on
 * the routing (jobs_route.c). The state file lists the jobs of a reading
 * once the tables in the switches are decided for them: the tables stay
 * (routing unchanged), or the tuned ones are installed (tuned, or base
 * when the engine's tables come back); while a heavy sweep installs
 * them, the state stays that of the reading before.
 */
static void decide(struct cr_jobs_watch *w)
{
	struct jobs_read *jr = &w->last;
	const char *why;
	enum cr_jobs_verdict v;

	v = cr_jobs_route_tune(w->jr, &w->conf,
			       strcmp(jr->status, "ok") ? NULL : jr->text,
			       jr->tlen, jr->number, &why);
	switch (v) {
	case CR_JOBS_NO_ROUTING:
		cr_verbose("%s: %s, %u jobs: no tables installed yet; tuned"
			   " for once they are",
			   w->path, jr->status, jr->jobs);
		break;
	case CR_JOBS_SWEEP:
		pend(w);
		break;
	case CR_JOBS_STALE:
		break; /* the next install tunes again */
	case CR_JOBS_KEPT:
	case CR_JOBS_FAILED:
		cr_verbose("%s: %s, %u jobs, %u bad lines; routing %s", w->path,
			   jr->status, jr->jobs, jr->bad, why);
		state_write(w, jr, why);
		break;
	}
	w->refine = !cr_jobs_route_refine_waits(w->jr) ? RF_NONE
		    : v == CR_JOBS_SWEEP	       ? RF_AFTER_INSTALL
						       : RF_DUE;
}

static void jobs_changed(struct cr_jobs_watch *w)
{
	struct jobs_read jr = {0};

	jr.number = ++w->readings;
	if (jobs_read(w, &jr) < 0) {
		read_free(&jr);
		return;
	}
	read_free(&w->last);
	w->last = jr;
	decide(w);
}

/* The sweeper's news: tables installed, or new ones to tune. */
static void kicked(struct cr_jobs_watch *w)
{
	uint64_t token, v;
	const char *why;

	if (read(w->kfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		cr_debug("jobs watcher: eventfd: %s", strerror(errno));
	if (cr_jobs_route_take_installed(w->jr, &token, &why) &&
	    w->pending.status && token == w->pending.number) {
		cr_info("%s: the tables for the jobs of reading %lu are"
			" installed",
			w->path, w->pending.number);
		state_write(w, &w->pending, why);
		read_free(&w->pending);
		if (w->refine == RF_AFTER_INSTALL)
			w->refine = RF_DUE;
	}
	if (cr_jobs_route_take_retune(w->jr) && w->last.status)
		decide(w);
}

static bool events_read(struct cr_jobs_watch *w);

/*
 * The refine stage's question, asked as it runs: whether the file
 * changed (or the watcher stops), so that it gives up for the new jobs.
 */
static bool refine_asks(void *arg)
{
	struct cr_jobs_watch *w = arg;
	struct pollfd pfd[2] = {{.fd = w->efd, .events = POLLIN},
				{.fd = w->ifd, .events = POLLIN}};

	if (w->news || poll(pfd, 2, 0) <= 0)
		return w->news;
	if (pfd[0].revents)
		return true;
	if ((pfd[1].revents & POLLIN) && events_read(w))
		w->news = true;
	return w->news;
}

/* The refine stage of the latest reading; true: the file changed. */
static bool refine_run(struct cr_jobs_watch *w)
{
	int rc = cr_jobs_route_refine(w->jr, &w->conf, refine_asks, w);
	bool news = w->news;

	w->refine = rc == 1 ? RF_HELD : RF_NONE;
	w->news = false;
	return news;
}

/* Milliseconds until the refined tables may go in, at least 0. */
static int refine_ms(const struct cr_jobs_watch *w)
{
	double wait = w->installed_at + w->conf.min_interval - now_s();

	return wait <= 0 ? 0 : (int)(wait * 1000) + 1;
}

static void refine_install(struct cr_jobs_watch *w)
{
	uint64_t token;

	w->refine = RF_NONE;
	if (cr_jobs_route_refine_install(w->jr, &token) == CR_JOBS_SWEEP &&
	    token == w->last.number)
		pend(w);
}

/* Watches the directory (again); false when it cannot (logged once). */
static bool watch_dir(struct cr_jobs_watch *w)
{
	w->wd = inotify_add_watch(w->ifd, w->dir,
				  IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
					  IN_CREATE | IN_DELETE | IN_ATTRIB |
					  IN_DELETE_SELF | IN_MOVE_SELF |
					  IN_ONLYDIR);
	if (w->wd < 0) {
		if (!w->warned_dir)
			pl_err("CR3C",
			       "cannot watch %s for %s: %s; trying again every"
			       " %d s",
			       w->dir, w->base, strerror(errno),
			       RETRY_MS / 1000);
		w->warned_dir = true;
		return false;
	}
	if (w->warned_dir)
		cr_info("watching %s for %s", w->dir, w->base);
	w->warned_dir = false;
	return true;
}

/*
 * The events read: true when one concerns the file. A directory that
 * went away loses its watch (wd -1).
 */
static bool events_read(struct cr_jobs_watch *w)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool ours = false;
	ssize_t n;

	while ((n = read(w->ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const void *)p;

			/* an old watch's last events are not the new's */
			if (ev->wd == w->wd &&
			    (ev->mask &
			     (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))) {
				if (w->wd >= 0 && (ev->mask & IN_MOVE_SELF))
					inotify_rm_watch(w->ifd, w->wd);
				w->wd = -1;
				ours = true;
			} else if (ev->len && !strcmp(ev->name, w->base)) {
				ours = true;
			}
			p += sizeof(*ev) + ev->len;
		}
	}
	return ours;
}

/* Milliseconds a reading still waits for an install, at least 0. */
static int install_ms(const struct cr_jobs_watch *w)
{
	double wait = w->pending_since + INSTALL_WAIT_S - now_s();

	return !w->pending.status || wait <= 0 ? 0 : (int)(wait * 1000) + 1;
}

/* Milliseconds until a pending reading is due, at least 0. */
static int due_ms(const struct cr_jobs_watch *w, double last)
{
	double wait = last + w->conf.min_interval - now_s();

	return wait <= 0 ? 0 : (int)(wait * 1000) + 1;
}

static void *watch_thread(void *arg)
{
	struct cr_jobs_watch *w = arg;
	bool pending = true; /* the file as it is now, first */
	double last = -1e9;

	/* As the improve step's thread: below the SM's own threads. */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) < 0)
		cr_debug("jobs watcher: setpriority: %s", strerror(errno));
	for (;;) {
		struct pollfd pfd[3] = {{.fd = w->efd, .events = POLLIN},
					{.fd = w->ifd, .events = POLLIN},
					{.fd = w->kfd, .events = POLLIN}};
		int timeout = -1;

		if (w->wd < 0 && watch_dir(w))
			pending = true; /* changes while unwatched */
		if (pending && !due_ms(w, last) && !install_ms(w)) {
			pending = false;
			last = now_s();
			jobs_changed(w);
			continue;
		}
		/* new jobs first: their first stage, then their refine */
		if (!pending && w->refine == RF_DUE) {
			pending = refine_run(w);
			continue;
		}
		if (!pending && w->refine == RF_HELD && !refine_ms(w)) {
			refine_install(w);
			continue;
		}
		if (pending) {
			timeout = due_ms(w, last);
			if (install_ms(w) > timeout)
				timeout = install_ms(w);
		} else if (w->refine == RF_HELD) {
			timeout = refine_ms(w);
		}
		if (w->wd < 0 && (timeout < 0 || timeout > RETRY_MS))
			timeout = RETRY_MS;
		if (poll(pfd, 3, timeout) < 0 && errno != EINTR) {
			pl_err("CR3D",
			       "jobs file watcher: poll: %s; %s is no longer"
			       " watched",
			       strerror(errno), w->path);
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[2].revents & POLLIN)
			kicked(w);
		if ((pfd[1].revents & POLLIN) && events_read(w))
			pending = true;
	}
	return NULL;
}

static bool conf_same(const struct cr_jobs_watch *w,
		      const struct cr_jobs_conf *jc)
{
	return !strcmp(w->path, jc->file) &&
	       !strcmp(w->objective, jc->objective ? jc->objective : "") &&
	       w->conf.threshold == jc->threshold &&
	       w->conf.max_churn == jc->max_churn &&
	       w->conf.min_interval == jc->min_interval &&
	       w->conf.wait == jc->wait && w->conf.budget == jc->budget &&
	       w->conf.refine == jc->refine &&
	       w->conf.refine_threshold == jc->refine_threshold;
}

static void watch_free(struct cr_jobs_watch *w)
{
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->efd >= 0)
		close(w->efd);
	if (w->kfd >= 0)
		close(w->kfd);
	read_free(&w->last);
	read_free(&w->pending);
	free(w);
}

static struct cr_jobs_watch *watch_start(const struct cr_jobs_conf *jc,
					 struct cr_jobs_route *jr)
{
	struct cr_jobs_watch *w = calloc(1, sizeof(*w));
	char *slash;
	int err;

	if (!w) {
		pl_err("CR3E", "out of memory: %s is not watched", jc->file);
		return NULL;
	}
	w->ifd = w->efd = w->kfd = w->wd = -1;
	w->installed_at = -1e9;
	w->jr = jr;
	/* conf_check made it absolute, and short enough */
	snprintf(w->path, sizeof(w->path), "%s", jc->file);
	snprintf(w->dir, sizeof(w->dir), "%s", jc->file);
	slash = strrchr(w->dir, '/');
	slash[slash == w->dir] = '\0';
	w->base = w->path + (strrchr(w->path, '/') - w->path) + 1;
	w->conf = *jc;
	w->conf.file = w->path;
	snprintf(w->objective, sizeof(w->objective), "%s",
		 jc->objective ? jc->objective : "");
	w->conf.objective = jc->objective ? w->objective : NULL;
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->kfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->ifd < 0 || w->efd < 0 || w->kfd < 0) {
		pl_err("CR3F", "cannot watch %s: %s", jc->file,
		       strerror(errno));
		watch_free(w);
		return NULL;
	}
	err = pthread_create(&w->thread, NULL, watch_thread, w);
	if (err) {
		pl_err("CR50", "cannot start the jobs file watcher: %s",
		       strerror(err));
		watch_free(w);
		return NULL;
	}
	cr_info("watching %s (croute_jobs_min_interval %g s)", w->path,
		w->conf.min_interval);
	return w;
}

void cr_jobs_watch_stop(struct cr_jobs_watch **wp)
{
	struct cr_jobs_watch *w = *wp;
	uint64_t one = 1;

	if (!w)
		return;
	*wp = NULL;
	/* A thread that cannot be told to stop keeps its state: leaked. */
	if (write(w->efd, &one, sizeof(one)) != sizeof(one)) {
		pl_err("CR51", "cannot stop the jobs file watcher: %s",
		       strerror(errno));
		return;
	}
	/* a tuning under way gives up rather than hold the unload */
	cr_jobs_route_stopping(w->jr, true);
	pthread_join(w->thread, NULL);
	cr_jobs_route_stopping(w->jr, false);
	watch_free(w);
}

void cr_jobs_watch_kick(struct cr_jobs_watch *w)
{
	uint64_t one = 1;

	if (w && write(w->kfd, &one, sizeof(one)) != sizeof(one))
		pl_err("CR5A", "cannot tell the jobs file watcher: %s",
		       strerror(errno));
}

void cr_jobs_watch_update(struct cr_jobs_watch **wp,
			  const struct cr_jobs_conf *jc,
			  struct cr_jobs_route *jr)
{
	if (*wp && jc->file && conf_same(*wp, jc))
		return;
	if (*wp)
		cr_info("%s: no longer watched%s", (*wp)->path,
			jc->file ? " (croute_jobs_* changed)" : "");
	cr_jobs_watch_stop(wp);
	if (jc->file && jr)
		*wp = watch_start(jc, jr);
}
