// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Engine names on the command line. --engine takes one of croute's
 * engines, with or without "cr-". -R takes a list in OpenSM's syntax
 * (opensm -R, routing_engine): there an unprefixed name such as "updn"
 * is OpenSM's own engine, which croute does not run, so croute routes
 * with the first cr- engine of the list and says which.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/tune/auto.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>

#include "cli.h"

const char *cli_engine_names(char *buf, size_t len, const char *prefix)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; cr_engines[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s, ", prefix,
				      cr_engines[i]->name);
	if (n < len)
		snprintf(buf + n, len - n, "%sauto", prefix);
	return buf;
}

/*
 * opensm.conf's routing_engine, as -R reads it: the first croute engine
 * of the list, else (nothing croute runs) the first entry, which
 * cli_route refuses by name. NULL when memory runs out.
 */
char *cli_conf_engine(const char *file, const char *list)
{
	char *copy = strdup(list), *save = NULL, *name, *pick = NULL;
	const char *builtin = NULL;

	if (!copy)
		return NULL;
	for (name = strtok_r(copy, ", \t", &save); name;
	     name = strtok_r(NULL, ", \t", &save)) {
		if (!strncmp(name, "cr-", 3)) {
			pick = name;
			break;
		}
		builtin = builtin ? builtin : name;
	}
	if (pick && builtin)
		cr_note("%s: routing_engine %s: %s is OpenSM's engine, not one"
			" of croute's; routing with %s, the first croute"
			" engine of the list",
			file, list, builtin, pick);
	else if (pick && strcmp(pick, list))
		cr_note("%s: routing_engine %s: routing with %s, the first"
			" croute engine of the list",
			file, list, pick);
	pick = strdup(pick ? pick : builtin ? builtin : list);
	free(copy);
	return pick;
}

int cli_engine_list(struct cli_setup *s, const char *list)
{
	char *copy = strdup(list), *save = NULL, *name, *builtin = NULL;
	char known[128];

	if (!copy) {
		cr_err("out of memory");
		return -1;
	}
	cli_engine_names(known, sizeof(known), "cr-");
	for (name = strtok_r(copy, ", \t", &save); name;
	     name = strtok_r(NULL, ", \t", &save)) {
		if (strncmp(name, "cr-", 3)) {
			builtin = builtin ? builtin : name;
			continue;
		}
		if (!cr_engine_find_any(name)) {
			cli_usage_error(s->cmd,
					"-R %s: unknown croute engine '%s'"
					" (croute's: %s)",
					list, name, known);
			free(copy);
			return -1;
		}
		free(s->engine_pick);
		s->engine_pick = strdup(name);
		s->engine = s->engine_pick;
		if (builtin)
			cr_note("-R %s: %s is OpenSM's engine, not one of"
				" croute's; routing with %s, the first croute"
				" engine of the list",
				list, builtin, name);
		else if (strcmp(name, list))
			cr_note("-R %s: routing with %s, the first croute"
				" engine of the list",
				list, name);
		free(copy);
		return s->engine ? 0 : -1;
	}
	cli_usage_error(s->cmd,
			"-R %s: no croute engine in the list%s%s%s (croute's:"
			" %s)",
			list, builtin ? "; " : "", builtin ? builtin : "",
			builtin ? " is OpenSM's engine, not croute's" : "",
			known);
	free(copy);
	return -1;
}
