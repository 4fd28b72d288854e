/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The gate before a change of tables the plugin makes by choice
 * (transition.c): safe in every mix of old and new entries while OpenSM
 * rewrites the switches (include/croute/model/transition.h).
 */
#ifndef CROUTE_PLUGIN_TRANSITION_H
#define CROUTE_PLUGIN_TRANSITION_H

#include <stdbool.h>
#include <croute/model/routing.h>

/*
 * Whether OpenSM may go from the installed tables (from) to the candidate
 * ones (to), both made for f. When not, logs why, as info lines under
 * name: the fault and its cycle (switches, GUIDs, ports, LID, VL); when
 * the check cannot run, an error, and false. Any thread: it reads its
 * arguments only.
 */
bool cr_plugin_transition_safe(const char *name, const struct cr_fabric *f,
			       const struct cr_routing *from,
			       const struct cr_routing *to);

#endif
