// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Schedulers take node names only. A node the exports could not name
 * (its description shared with another node's, or empty) is named by
 * its GUID, which in a hostlist becomes "0x0002c[90200417670,...]": no
 * scheduler resolves that, so the command writes no such file and says
 * how to name the nodes instead.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <croute/model/hosts.h>
#include <croute/model/log.h>
#include <croute/io/sched.h>

#include "cli.h"

static bool guid_named(const struct cr_fabric *f, const struct cr_names *nm,
		       uint32_t node)
{
	char guid[19];

	snprintf(guid, sizeof(guid), "0x%016" PRIx64, f->nodes[node].guid);
	return !strcmp(cr_names_get(nm, node), guid);
}

struct unnamed {
	uint32_t hosts, switches;
	uint32_t example;
	bool any;
};

static void count(const struct cr_fabric *f, const struct cr_names *nm,
		  uint32_t node, struct unnamed *u)
{
	if (!guid_named(f, nm, node))
		return;
	if (f->nodes[node].type == CR_NODE_SWITCH)
		u->switches++;
	else
		u->hosts++;
	if (!u->any)
		u->example = node;
	u->any = true;
}

int cli_names_usable(const struct cli_setup *s, const struct cr_fabric *f,
		     const struct cr_names *nm, const struct cr_hosts *h,
		     const char *what)
{
	struct unnamed u = {0};

	if (h)
		for (uint32_t i = 0; i < h->count; i++)
			count(f, nm, h->ep[i].node, &u);
	else
		for (uint32_t i = 0; i < f->num_nodes; i++)
			count(f, nm, i, &u);
	if (!u.any)
		return 0;
	cr_err("%u host%s and %u switch%s have no name of their own (node"
	       " descriptions shared or empty, e.g. 0x%016" PRIx64 " '%s'%s):"
	       " GUIDs are not node names, so no %s is written; give"
	       " --node-name-map FILE naming them (OpenSM's node_name_map"
	       " format)",
	       u.hosts, u.hosts == 1 ? "" : "s", u.switches,
	       u.switches == 1 ? "" : "es", f->nodes[u.example].guid,
	       f->nodes[u.example].desc, s->name_map ? ", not in the map" : "",
	       what);
	return -1;
}
