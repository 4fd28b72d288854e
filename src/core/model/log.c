// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The core's single log sink (see include/croute/log.h). */
#include <stdarg.h>
#include <stdio.h>

#include <croute/log.h>

static cr_log_fn log_fn;
static void *log_arg;
static enum cr_log_level log_level = CR_LOG_INFO;

void cr_log_set(cr_log_fn fn, void *arg, enum cr_log_level level)
{
	log_fn = fn;
	log_arg = arg;
	log_level = level;
}

void cr_log(enum cr_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = {"error", "info", "verbose",
					     "debug"};
	char msg[1024];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_fn)
		log_fn(log_arg, level, msg);
	else
		fprintf(stderr, "croute: %s: %s\n", prefix[level], msg);
}
