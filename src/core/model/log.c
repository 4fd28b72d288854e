// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The core's single log sink (see include/croute/log.h). The plugin's
 * estimate thread logs while the sweeper changes the level at every
 * routing run, so every access is atomic; the sink itself is set while
 * no other thread logs, and read as a pair under the same rule.
 */
#include <stdarg.h>
#include <stdio.h>

#include <croute/log.h>

static cr_log_fn log_fn;
static void *log_arg;
static enum cr_log_level log_level = CR_LOG_INFO;

void cr_log_set(cr_log_fn fn, void *arg, enum cr_log_level level)
{
	__atomic_store_n(&log_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&log_fn, fn, __ATOMIC_RELEASE);
	cr_log_set_level(level);
}

void cr_log_set_level(enum cr_log_level level)
{
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

void cr_log_get(cr_log_fn *fn, void **arg, enum cr_log_level *level)
{
	*fn = log_fn;
	*arg = log_arg;
	*level = log_level;
}

void cr_log(enum cr_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = {"error", "info", "verbose",
					     "debug"};
	char msg[1024];
	va_list ap;
	cr_log_fn fn;

	if (level > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	if (fn)
		fn(__atomic_load_n(&log_arg, __ATOMIC_RELAXED), level, msg);
	else
		fprintf(stderr, "croute: %s: %s\n", prefix[level], msg);
}
