// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads topologies in the two dialects of one format: what ibnetdiscover
 * prints from a live fabric, and the plain net files ibsim reads
 * (`Switch 8 "sw1"` / `[1] "h1"[1]`, no GUIDs).
 *
 * GUIDs are assigned exactly as ibsim 0.10 does (sim_net.c): a counter per
 * node type, set by switchguid=/caguid=/rtguid= lines (or moved by
 * `switchguid+N`), starting at 0x200000 for switches, 0x100000 for CAs and
 * 0 for routers; a switch takes one GUID, a CA or router 1 + its port
 * count. ibnetdiscover prints such a line before every node, so both
 * dialects give the GUIDs ibsim would give for the same file. Node ids
 * ("S-0002c9...", "sw1") are plain strings: they only name link ends.
 *
 * Unlike ibsim, a link may be listed from one side only (both sides must
 * then agree), port lines may follow a header without a blank line, and a
 * port missing its rate takes the file's default (ibsim's: 4x SDR).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/topo.h>

#include "topo_int.h"

static const char *node_id(const void *ctx, uint32_t i)
{
	const struct reader *rd = ctx;

	return rd->nodes[i].id;
}

static void reader_release(struct reader *rd)
{
	for (size_t i = 0; rd->f && i < rd->f->num_nodes; i++)
		free(rd->nodes[i].id);
	free(rd->nodes);
	cr_strindex_release(&rd->ids);
	free(rd->ports);
	free(rd->links);
	free(rd->pool);
	cr_guidmap_release(&rd->guids);
}

struct cr_fabric *cr_topo_read_file(FILE *in, const char *name)
{
	struct reader rd = {
		.in = in,
		.name = name,
		.cur = CR_NO_NODE,
		.guid_abs = {[SIM_CA] = 0x100000, [SIM_SWITCH] = 0x200000},
		.guid_next = {[SIM_CA] = 0x100000, [SIM_SWITCH] = 0x200000},
		.def_width = 4,
		.def_speed = CR_SPEED_SDR,
		.ids = {.key = node_id, .ctx = &rd},
	};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool lids = false, ended = true;
	int err = 0;

	rd.f = cr_fabric_new();
	if (!rd.f) {
		cr_err("%s: out of memory", name);
		return NULL;
	}
	while (!err && (len = cr_getline(&line, &cap, in, name, rd.line + 1,
					 &err)) >= 0) {
		rd.line++;
		ended = len && line[len - 1] == '\n';
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		err = topo_parse_line(&rd, line);
	}
	/* Every writer ends its lines: a file cut inside its last line may
	 * still parse (a header without its description and ports). */
	if (!err && rd.line && !ended)
		cr_warn("%s:%u: the last line has no line end: cut short?",
			name, rd.line);
	free(line);
	if (!err)
		err = cr_read_end(in, name, rd.f->num_nodes,
				  "no nodes (not a topology file?)");
	if (!err && rd.origin_line &&
	    cr_guidmap_get(&rd.guids, rd.origin) == CR_GUIDMAP_NONE) {
		cr_err("%s:%u: the file was discovered from node 0x%016" PRIx64
		       ", which it does not list (%u lines): cut short?",
		       name, rd.origin_line, rd.origin, rd.line);
		err = -1;
	}
	if (!err)
		err = topo_resolve_links(&rd);
	if (!err)
		err = topo_settle_rates(&rd);
	if (!err)
		err = topo_check_port_guids(&rd);
	if (!err)
		err = topo_settle_lids(&rd, &lids);
	if (!err) {
		/* ibsim attaches OpenSM to the file's first port. */
		const struct cr_node *first = &rd.f->nodes[0];

		rd.f->sm_port_guid =
			first->ports[first->type == CR_NODE_SWITCH ? 0 : 1]
				.guid;
	}
	if (!err && cr_fabric_sort_by_guid(rd.f)) {
		cr_err("%s: the topology is not consistent (see above)", name);
		err = -1;
	}
	reader_release(&rd);
	if (err) {
		cr_fabric_free(rd.f);
		return NULL;
	}
	cr_verbose("%s: %u nodes, %u switches%s", name, rd.f->num_nodes,
		   rd.f->num_switches, lids ? ", with LIDs" : "");
	return rd.f;
}

struct cr_fabric *cr_topo_read(const char *path)
{
	struct cr_fabric *f;
	FILE *in;

	if (!strcmp(path, "-"))
		return cr_topo_read_file(stdin, "<stdin>");
	in = cr_file_open_read(path);
	if (!in)
		return NULL;
	f = cr_topo_read_file(in, path);
	fclose(in);
	return f;
}
