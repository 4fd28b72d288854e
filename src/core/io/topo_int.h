/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside the topology reader (topo_read.c): the words and numbers of a
 * line (topo_words.c), the lines that make nodes, ports and settings
 * (topo_lines.c), and the fabric assembled once the file is read: links
 * cabled, rates and LIDs settled, port GUIDs checked (topo_settle.c).
 */
#ifndef CROUTE_TOPO_INT_H
#define CROUTE_TOPO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <croute/model/fabric.h>
#include <croute/model/guidmap.h>
#include <croute/model/log.h>
#include <croute/model/strindex.h>

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

struct reader {
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

/* What the words of a line's tail say: LIDs in order, LMC, rate. */
struct tail {
	unsigned nlids;
	unsigned long lid[2];
	bool has_lmc;
	unsigned long lmc;
	uint8_t width;
	enum cr_speed speed;
};

const char *topo_skip_ws(const char *s);
const char *topo_word(const char *s, const char *kw);
const char *topo_assignment(const char *s, const char *kw);
int topo_parse_u64(const char *s, const char **end, uint64_t *v);
int topo_parse_hex(const char *s, const char **end, uint64_t *v);
int topo_parse_dec(const char *s, const char **end, unsigned long max,
		   unsigned long *v);
int topo_parse_uint(const char *s, const char **end, unsigned long max,
		    unsigned long *v);
/* Adds the LIDs, LMC and rate the words from s to e give to t. */
int topo_scan_tail(struct reader *rd, const char *s, const char *e,
		   struct tail *t);
uint8_t topo_width_of_mask(unsigned long m);
enum cr_speed topo_speed_of_mask(unsigned long m, unsigned long ext);
const char *topo_quoted(struct reader *rd, const char *s, char **out,
			const char *what);
int topo_check_id(struct reader *rd, const char *id);

/* One line of the file, its end stripped. */
int topo_parse_line(struct reader *rd, char *line);

int topo_resolve_links(struct reader *rd);
int topo_settle_rates(struct reader *rd);
int topo_check_port_guids(struct reader *rd);
/* *any: whether the file gives LIDs at all. */
int topo_settle_lids(struct reader *rd, bool *any);

#endif
