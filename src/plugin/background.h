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

#include <croute/model/routing.h>

struct cr_plugin;
struct cr_plugin_engine;

/*
 * In build_lid_matrices, for cr-auto with croute_auto_background: routes
 * f into *r and by (replacing *r): the tables installed last, or an
 * improvement found for them, when f and the configuration are the ones
 * they were made for; else the fast step, with the improve step prepared
 * for cr_bg_installed(). 0, or -1 (logged).
 */
enum cr_bg_how {
	CR_BG_FAST, /* the fast step's tables */
	CR_BG_REPAIRED, /* croute_incremental repaired them */
	CR_BG_AGAIN, /* installed before, or the improvement kept */
};
int cr_bg_route(struct cr_plugin_engine *pe, const struct cr_fabric *f,
		const struct cr_options *o, struct cr_routing **r,
		struct cr_byproducts *by, enum cr_bg_how *how);
/*
 * plugin.c, croute_incremental for cr-auto: after a fast step, keeps its
 * winner's tables for repairs when its engine allows them (cr-minhop,
 * cr-updn, cr-ftree), else says why; cr_auto_repair() repairs them into
 * r (fresh) for a changed fabric: true when it did; cr_auto_drop_base()
 * forgets them (the installed tables are no longer theirs).
 */
void cr_auto_keep_base(struct cr_plugin *pl, const struct cr_plugin_engine *pe,
		       const struct cr_fabric *f, const struct cr_options *o,
		       const struct cr_routing *r,
		       const struct cr_byproducts *by);
bool cr_auto_repair(struct cr_plugin *pl, struct cr_plugin_engine *pe,
		    const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by);
void cr_auto_drop_base(struct cr_plugin *pl, const char *why);
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
/*
 * What routing reads of f (nodes, ports, links, LIDs, rates), hashed: the
 * same digest, the same fabric to route. Also jobs_route.c's.
 */
uint64_t cr_bg_fabric_digest(const struct cr_fabric *f);
/* A deep copy of src, without its engine's configuration; 0 or -1. */
int cr_bg_copy_options(struct cr_options *dst, const struct cr_options *src);

#endif
