// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The progress line: "bound: 1 of 3 done, 42 s, about 1 min 24 s left",
 * or, while a step reports its parts, "bound: patterns: 0 of 1 done (next:
 * 12 of 1023 phases), 42 s, about 58 min left",
 * redrawn by a thread of its own four times a second, so that the time
 * goes on while one long step runs; the time left is the time per step
 * so far times the steps left (parts of a step counting as fractions),
 * and is said only once a step, or a part of one, is done.
 * The line ends with the cursor at its start: the next output (a table
 * row, a log line) writes over it instead of after it. Only on a
 * terminal and without -q, so pipes and logs get no control characters.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <croute/model/log.h>

#include "cli.h"
#include "progress.h"

struct cli_progress {
	const char *what;
	uint64_t total, done;
	uint64_t part, parts; /* of step done + 1; parts 0: none said */
	const char *unit; /* of the parts */
	double start;
	bool hold, stop, drawn;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int span(char *buf, size_t len, double s)
{
	unsigned t = (unsigned)(s + 0.5);

	if (t < 60)
		return snprintf(buf, len, "%u s", t);
	if (t < 3600)
		return snprintf(buf, len, "%u min %u s", t / 60, t % 60);
	return snprintf(buf, len, "%u h %u min", t / 3600, t / 60 % 60);
}

/* Called with the lock held. */
static void draw(struct cli_progress *p)
{
	double el = now() - p->start;
	char line[160], t[32];
	int n;

	double done = (double)p->done;
	char sub[64] = "";

	/* A step's parts count toward the time left as its fractions. */
	if (p->parts && p->done < p->total) {
		done += (double)p->part / (double)p->parts;
		snprintf(sub, sizeof(sub), " (next: %llu of %llu %s)",
			 (unsigned long long)p->part,
			 (unsigned long long)p->parts, p->unit);
	}
	span(t, sizeof(t), el);
	n = snprintf(line, sizeof(line), "%s: %llu of %llu done%s, %s", p->what,
		     (unsigned long long)p->done, (unsigned long long)p->total,
		     sub, t);
	if (done > 0 && p->done < p->total && n > 0 &&
	    (size_t)n < sizeof(line)) {
		span(t, sizeof(t), el * ((double)p->total - done) / done);
		snprintf(line + n, sizeof(line) - (size_t)n, ", about %s left",
			 t);
	}
	fprintf(stderr, "%s\033[K\r", line);
	fflush(stderr);
	p->drawn = true;
}

static void *ticker(void *arg)
{
	struct cli_progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		if (!p->hold)
			draw(p);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void clear(struct cli_progress *p)
{
	if (!p->drawn)
		return;
	fputs("\033[K", stderr);
	fflush(stderr);
	p->drawn = false;
}

struct cli_progress *cli_progress_start(const char *what, uint64_t total)
{
	struct cli_progress *p;

	if (cli_verbosity < CR_LOG_NOTE || !isatty(STDERR_FILENO) || !total)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->what = what;
	p->total = total;
	p->start = now();
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	draw(p); /* at once: the work may end before the first tick */
	if (pthread_create(&p->thread, NULL, ticker, p)) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	return p;
}

void cli_progress_set(struct cli_progress *p, uint64_t done)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->done = done;
	p->part = p->parts = 0;
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_part(struct cli_progress *p, const char *unit, uint64_t part,
		       uint64_t parts)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->unit = unit;
	p->part = part;
	p->parts = parts;
	/* Once per step: the ticker draws the rest, four times a second. */
	if (part == 1 && !p->hold)
		draw(p);
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_hold(struct cli_progress *p, bool hold)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->hold = hold;
	if (hold)
		clear(p);
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_end(struct cli_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	clear(p);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
