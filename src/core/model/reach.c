// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The part of a fabric its subnet manager can see. OpenSM discovers the
 * subnet with directed-route MADs from its own port, so a node with no path
 * of cables to that port is never found: it gets no LID and no route. A
 * topology file can still list one (a cabling plan minus a failed switch).
 * Dropping such nodes before LIDs are given makes an offline run route what
 * OpenSM would, instead of failing on, or silently stranding, parts no
 * switch can reach. One breadth-first walk and one compaction: time and
 * memory linear in nodes plus ports.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/fabric.h>
#include <croute/model/log.h>

/* Names given in the warning; the count says how many more there are. */
#define REACH_NAMES 3

static bool cabled(const struct cr_node *n)
{
	for (unsigned p = 1; p <= n->num_ports; p++)
		if (n->ports[p].remote != CR_NO_NODE)
			return true;
	return false;
}

/*
 * The SM's node. A topology file's default SM port is its first port,
 * where ibsim attaches OpenSM; when that node lost every cable, a real SM
 * runs elsewhere, so take the first cabled CA (its first cabled port).
 */
static uint32_t sm_node(struct cr_fabric *f)
{
	uint32_t sm;

	/* Unknown: opensm-subnet.lst, which lists what the SM found. */
	if (!f->sm_port_guid)
		return CR_NO_NODE;
	sm = cr_fabric_find_port_guid(f, f->sm_port_guid, NULL);
	if (sm == CR_NO_NODE || cabled(&f->nodes[sm]))
		return sm;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct cr_node *n = &f->nodes[i];

		if (n->type != CR_NODE_CA)
			continue;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			if (n->ports[p].remote == CR_NO_NODE)
				continue;
			cr_warn("the SM's port 0x%016" PRIx64
				" has no cable; taking 0x%016" PRIx64
				" ('%.64s') as the SM's port",
				f->sm_port_guid, n->ports[p].guid, n->desc);
			f->sm_port_guid = n->ports[p].guid;
			return i;
		}
	}
	return sm;
}

/* Marks seen[] the nodes cabled to `from`, through any number of hops. */
static int walk(const struct cr_fabric *f, uint32_t from, bool *seen)
{
	uint32_t *queue = malloc(f->num_nodes * sizeof(*queue));
	uint32_t head = 0, tail = 0;

	if (!queue)
		return -1;
	seen[from] = true;
	queue[tail++] = from;
	while (head < tail) {
		const struct cr_node *n = &f->nodes[queue[head++]];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t r = n->ports[p].remote;

			if (r != CR_NO_NODE && !seen[r]) {
				seen[r] = true;
				queue[tail++] = r;
			}
		}
	}
	free(queue);
	return 0;
}

static void warn_left_out(const struct cr_fabric *f, const bool *seen,
			  uint32_t left)
{
	char names[REACH_NAMES * 96] = "";
	size_t len = 0;
	unsigned named = 0;

	for (uint32_t i = 0; i < f->num_nodes && named < REACH_NAMES; i++) {
		if (seen[i])
			continue;
		len += (size_t)snprintf(
			names + len, sizeof(names) - len,
			"%s'%.64s' (node GUID 0x%016" PRIx64 ")",
			named ? ", " : "", f->nodes[i].desc, f->nodes[i].guid);
		named++;
	}
	cr_warn("%u of %u nodes have no cabled path to the SM's"
		" port; left out, as OpenSM would not find them: %s%s",
		left, f->num_nodes, names, left > named ? ", ..." : "");
}

/* Moves the nodes kept to the front, in order, and renumbers the links. */
static int compact(struct cr_fabric *f, const bool *seen)
{
	uint32_t *where = malloc(f->num_nodes * sizeof(*where));
	uint32_t kept = 0;

	if (!where)
		return -1;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		if (!seen[i]) {
			free(f->nodes[i].desc);
			free(f->nodes[i].ports);
			continue;
		}
		where[i] = kept;
		f->nodes[kept++] = f->nodes[i];
	}
	for (uint32_t i = 0; i < kept; i++) {
		struct cr_node *n = &f->nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++)
			if (n->ports[p].remote != CR_NO_NODE)
				n->ports[p].remote = where[n->ports[p].remote];
	}
	memset(f->nodes + kept, 0, (f->num_nodes - kept) * sizeof(*f->nodes));
	f->num_nodes = kept;
	free(where);
	return 0;
}

int cr_fabric_keep_sm_part(struct cr_fabric *f)
{
	uint32_t sm, left = 0;
	bool *seen;
	int err;

	if (!f->num_nodes)
		return 0;
	sm = sm_node(f);
	if (sm == CR_NO_NODE)
		return 0;
	seen = calloc(f->num_nodes, sizeof(*seen));
	if (!seen || walk(f, sm, seen)) {
		free(seen);
		cr_err("out of memory finding the SM's part of the fabric");
		return -1;
	}
	for (uint32_t i = 0; i < f->num_nodes; i++)
		left += !seen[i];
	err = 0;
	if (left) {
		warn_left_out(f, seen, left);
		err = compact(f, seen);
		if (err)
			cr_err("out of memory leaving out unreachable nodes");
		else
			err = cr_fabric_finalize(f);
	}
	free(seen);
	return err;
}
