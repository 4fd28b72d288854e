// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The plugin's gate on changes it makes by choice (transition.h): the
 * core's check, its reason written into the log line by line, so that
 * each line of a cycle carries the engine's name like every other line
 * of croute's in OpenSM's log.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/model/transition.h>

#include "transition.h"
#include "err.h"

bool cr_plugin_transition_safe(const char *name, const struct cr_fabric *f,
			       const struct cr_routing *from,
			       const struct cr_routing *to)
{
	struct cr_transition_report rep;
	char *why = NULL, *save = NULL, *line;
	size_t len = 0;
	FILE *out = open_memstream(&why, &len);
	int rc;

	if (!out) {
		pl_err("CR52",
		       "%s: out of memory checking the change of tables;"
		       " it is not made",
		       name);
		return false;
	}
	rc = cr_transition_check(f, from, to, out, &rep);
	fclose(out);
	if (rc < 0) {
		pl_err("CR53",
		       "%s: the change of tables could not be checked; it is"
		       " not made",
		       name);
	} else if (rc == 0) {
		cr_info("%s: the change of %" PRIu64 " LFT entries is safe in"
			" every mix of old and new entries",
			name, rep.changed);
	} else {
		cr_info("%s: the change of %" PRIu64 " LFT entries is unsafe"
			" while OpenSM rewrites the switches (%s); it is not"
			" made:",
			name, rep.changed, cr_transition_fault_name(rep.fault));
		for (line = strtok_r(why ? why : (char *)"", "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			cr_info("%s: %s", name, line);
	}
	free(why);
	return rc == 0;
}
