/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* croute doctor's judgement of whether opensm can load the plugin. */
#ifndef CROUTE_CLI_DOCTOR_LOAD_H
#define CROUTE_CLI_DOCTOR_LOAD_H

#include <stddef.h>

enum doctor_load_result {
	DOCTOR_LOADS, /* *found, *version set */
	DOCTOR_NO_LOAD, /* opensm's dlopen would fail: *why */
	DOCTOR_NO_OPENSM, /* opensm itself cannot be read: *why */
};

/*
 * Whether opensm (a path, or a name found in PATH) can dlopen plugin (a
 * path, or a name found as the dynamic loader finds it for opensm),
 * judged from the files without loading the plugin: design.md, "croute
 * doctor". On DOCTOR_LOADS, *found is the plugin's file and *version the
 * OpenSM version it was built for; else *why says why. Each string is
 * malloc'd (or NULL when out of memory); the caller frees them.
 */
enum doctor_load_result doctor_load(const char *plugin, const char *opensm,
				    char **found, char **version, char **why);

#endif
