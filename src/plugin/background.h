/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-auto in the background (background.c): the sweep installs the fast
 * step's tables at once; a thread runs the improve step on private
 * copies and, when it finds better tables, keeps them and asks OpenSM for
 * a heavy sweep, in which they are installed if the fabric is still the
 * one they were made for. Key: croute_auto_background.
 */
#ifndef CROUTE_PLUGIN_BACKGROUND_H
#define CROUTE_PLUGIN_BACKGROUND_H

#include <croute/routing.h>

struct cr_plugin;
struct cr_plugin_engine;

/*
 * In build_lid_matrices, for cr-auto with croute_auto_background: routes
 * f into *r and by (replacing *r): the tables installed last, or an
 * improvement found for them, when f and the configuration are the ones
 * they were made for; else the fast step, with the improve step prepared
 * for cr_bg_installed(). 0, or -1 (logged).
 */
int cr_bg_route(struct cr_plugin *pl, struct cr_plugin_engine *pe,
		const struct cr_fabric *f, const struct cr_options *o,
		struct cr_routing **r, struct cr_byproducts *by);
/* Once OpenSM took the tables: starts the improve step prepared, if any. */
void cr_bg_installed(struct cr_plugin *pl);
/*
 * Forgets everything (why: for the log, NULL: silently): the run failed,
 * another engine routes, or croute_auto_background is off. A running
 * improve step is cancelled; its result will be dropped.
 */
void cr_bg_forget(struct cr_plugin *pl, const char *why);
/* From the plugin's delete: cancels the improve step and waits for it. */
void cr_bg_stop(struct cr_plugin *pl);

#endif
