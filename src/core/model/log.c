// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The core's single log sink (see include/croute/model/log.h). The plugin's
 * estimate thread logs while the sweeper changes the level at every
 * routing run, so every access is atomic; the sink itself is set while
 * no other thread logs, and read as a pair under the same rule.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/json.h>
#include <croute/model/log.h>

static bool keep;
static char *kept[CR_LOG_KEPT];
static unsigned num_kept;

static unsigned errors_printed;

static cr_log_fn log_fn;
static void *log_arg;
static enum cr_log_level log_level = CR_LOG_INFO;
/*
 * initial-exec: the plugin is dlopen'ed by opensm, and the default model
 * would call ld.so's __tls_get_addr; two pointers fit the static TLS that
 * glibc keeps for such libraries.
 */
#define THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))
static THREAD_LOCAL cr_log_fn thread_fn;
static THREAD_LOCAL void *thread_arg;

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
	*fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	*arg = __atomic_load_n(&log_arg, __ATOMIC_RELAXED);
	*level = __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

void cr_log_set_thread(cr_log_fn fn, void *arg)
{
	thread_fn = fn;
	thread_arg = arg;
}

void cr_log_keep_warnings(bool on)
{
	for (unsigned i = 0; i < num_kept; i++)
		free(kept[i]);
	num_kept = 0;
	keep = on;
}

unsigned cr_log_errors_printed(void)
{
	return __atomic_load_n(&errors_printed, __ATOMIC_RELAXED);
}

const char *cr_log_warning(unsigned i)
{
	return i < num_kept ? kept[i] : NULL;
}

/* Only the command keeps warnings, from one thread at a time. */
static void keep_warning(const char *msg)
{
	if (num_kept < CR_LOG_KEPT) {
		kept[num_kept] = strdup(msg);
		if (kept[num_kept])
			num_kept++;
	}
}

void cr_log(enum cr_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = {"error", "warning", "note",
					     "info",  "verbose", "debug"};
	bool keep_it = level == CR_LOG_WARN && keep;
	char raw[1024], msg[2048];
	va_list ap;
	cr_log_fn fn;

	/*
	 * UBSan checks vsnprintf's non-null format and continues after its
	 * report, so GCC sees a path with a null format and warns
	 * (-Wformat-truncation); no caller passes one, and none ever should.
	 */
	if (!fmt ||
	    (level > __atomic_load_n(&log_level, __ATOMIC_RELAXED) && !keep_it))
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Node descriptions and file names come from the fabric and files. */
	cr_text_safe(raw, msg, sizeof(msg), true);
	if (keep_it)
		keep_warning(msg);
	if (level > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	if (thread_fn)
		thread_fn(thread_arg, level, msg);
	else if (fn)
		fn(__atomic_load_n(&log_arg, __ATOMIC_RELAXED), level, msg);
	else
		fprintf(stderr, "croute: %s: %s\n", prefix[level], msg);
	if (!thread_fn && !fn && level == CR_LOG_ERROR)
		__atomic_add_fetch(&errors_printed, 1, __ATOMIC_RELAXED);
}
