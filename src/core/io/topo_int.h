/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The topology reader's state (topo_read.c), shared with the checks that
 * settle links, rates, port GUIDs and LIDs once every line is read
 * (topo_settle.c).
 */
#ifndef CROUTE_IO_TOPO_INT_H
#define CROUTE_IO_TOPO_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <croute/guidmap.h>
#include <croute/log.h>
#include <croute/strindex.h>
#include <croute/topo.h>

/* ibsim's node type numbering, which indexes its GUID counters. */
enum { SIM_CA = 1, SIM_SWITCH = 2, SIM_ROUTER = 3, SIM_TYPES };

struct pending {
	uint32_t node;
	uint8_t port;
	uint8_t rport;
	size_t rid; /* offset of the remote id in the pool */
	unsigned line;
	uint64_t rguid; /* the far port's GUID the line gives, 0 = none */
};

struct node_info {
	char *id;
	unsigned line; /* of the header */
	size_t port_base; /* index of its port 0 in ports[] */
};

struct port_info {
	unsigned line; /* of the port's own port line, 0 = none */
	unsigned link_line; /* of the line that cabled it */
	uint16_t lid_hint; /* LID the far side's line gives for it */
	bool rate_word; /* its line ends with a rate ("4xQDR") */
	bool lid_hinted; /* its LID is the far side's word, without LMC */
	uint8_t def_width; /* the file's defaults when its line was read */
	enum cr_speed def_speed;
};

struct topo_reader {
	FILE *in;
	const char *name;
	unsigned line;
	struct cr_fabric *f;

	struct node_info *nodes;
	size_t nodes_alloc;
	struct cr_strindex ids; /* id -> node */
	struct port_info *ports;
	size_t ports_used, ports_alloc;

	struct cr_guidmap guids; /* node GUIDs already taken */
	uint64_t guid_abs[SIM_TYPES];
	uint64_t guid_next[SIM_TYPES];
	uint64_t sysimg; /* for the next node only, 0 = none */
	uint8_t def_width;
	enum cr_speed def_speed;

	uint32_t cur; /* node whose port lines follow */
	/* "# Initiated from node G": ibnetdiscover lists that node, so a
	 * file without it was cut short. */
	uint64_t origin;
	unsigned origin_line;
	struct pending *links;
	size_t nlinks, links_alloc;
	char *pool;
	size_t pool_len, pool_alloc;
};

#define rd_err(rd, fmt, ...) \
	cr_err("%s:%u: " fmt, (rd)->name, (rd)->line, ##__VA_ARGS__)

/*
 * Links resolved (a link listed from one side only is taken, both sides
 * must agree), rates, port GUIDs and LIDs settled; *lids is set when the
 * file gave LIDs. -1 after logging the file and line.
 */
int topo_settle(struct topo_reader *rd, bool *lids);

#endif
