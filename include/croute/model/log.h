/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The core never prints: it reports through one sink that the plugin points
 * at OSM_LOG and the command at stderr. Errors always name what was wrong
 * (file and line, key and value, switch GUID).
 */
#ifndef CROUTE_LOG_H
#define CROUTE_LOG_H

#include <stdbool.h>

enum cr_log_level {
	CR_LOG_ERROR = 0,
	CR_LOG_WARN, /* the run goes on, but its answer may not be trusted */
	/*
	 * What an administrator needs from a run even when not asking for
	 * detail: the engine chosen, why a step was skipped. The command
	 * shows it by default; info and below only with -v.
	 */
	CR_LOG_NOTE,
	CR_LOG_INFO,
	CR_LOG_VERBOSE,
	CR_LOG_DEBUG,
};

typedef void (*cr_log_fn)(void *arg, enum cr_log_level level, const char *msg);

/*
 * Sets the sink (NULL: stderr); level: the most verbose level delivered.
 * Call it while no other thread logs (the plugin: in create and delete).
 */
void cr_log_set(cr_log_fn fn, void *arg, enum cr_log_level level);
/* Changes the level only; safe while other threads log. */
void cr_log_set_level(enum cr_log_level level);
/* The sink and level in use, to restore after a temporary cr_log_set(). */
void cr_log_get(cr_log_fn *fn, void **arg, enum cr_log_level *level);
/*
 * The calling thread's messages go to fn instead of the sink (NULL: the
 * sink again): a capture that other threads' messages never reach.
 */
void cr_log_set_thread(cr_log_fn fn, void *arg);
void cr_log(enum cr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Keeps (on) or stops keeping and forgets (off) the warnings logged, at any
 * level set, for a report that must carry them (--json); the plugin does
 * not keep them.
 */
void cr_log_keep_warnings(bool on);
/*
 * Errors the default sink (stderr) printed: a command that printed one
 * must not exit 0.
 */
unsigned cr_log_errors_printed(void);
/* The i-th warning kept (the first CR_LOG_KEPT), NULL past the last. */
const char *cr_log_warning(unsigned i);
#define CR_LOG_KEPT 100

#define cr_err(...) cr_log(CR_LOG_ERROR, __VA_ARGS__)
#define cr_warn(...) cr_log(CR_LOG_WARN, __VA_ARGS__)
#define cr_note(...) cr_log(CR_LOG_NOTE, __VA_ARGS__)
#define cr_info(...) cr_log(CR_LOG_INFO, __VA_ARGS__)
#define cr_verbose(...) cr_log(CR_LOG_VERBOSE, __VA_ARGS__)
#define cr_debug(...) cr_log(CR_LOG_DEBUG, __VA_ARGS__)

#endif
