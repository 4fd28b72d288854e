/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside the ibdm reader: the ibnl definitions (ibdm_ibnl.c), their
 * expansion into nodes (ibdm_expand.c) and the topology file that cables
 * the expanded systems (ibdm_topo.c).
 */
#ifndef CROUTE_IBDM_INT_H
#define CROUTE_IBDM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <croute/model/fabric.h>

/* One "PORT -attrs-> TARGET [TPORT]" line of an instance. */
struct ibnl_conn {
	char *port; /* the instance's: "13" on a node, "P13" on a board */
	char *rinst; /* NULL: rport is a port of the enclosing system */
	char *rport;
	uint8_t width; /* 0: not given */
	enum cr_speed speed;
	unsigned line;
};

/* A NODE (chip) or SUBSYSTEM (board) of a system definition. */
struct ibnl_inst {
	char *name; /* "U1", "leaf1" */
	char *type; /* a board's system name ("LEAF"); NULL for a chip */
	bool sw;
	unsigned nports; /* a chip's */
	unsigned line;
	struct ibnl_conn *conns;
	size_t nconns, conns_cap;
};

struct ibnl_file;

/* A SYSTEM or TOPSYSTEM section. */
struct ibnl_sys {
	char **names; /* "LEAF", "LEAF:4x", ...: the first is its own */
	size_t nnames;
	bool top;
	unsigned line;
	const struct ibnl_file *file;
	struct ibnl_inst *insts;
	size_t ninsts, insts_cap;
};

struct ibnl_file {
	char *path;
	char **tops; /* the TOPSYSTEM names, found before parsing */
	size_t ntops;
	bool parsed, broken;
	struct ibnl_sys **systems;
	size_t nsys, sys_cap;
};

/* The definitions found: files in search order, parsed when used. */
struct ibnl_lib {
	struct ibnl_file *files;
	size_t nfiles, files_cap;
};

/* Indexes the .ibnl files of the search path; -1 (logged) on failure. */
int ibnl_lib_open(struct ibnl_lib *lib);
void ibnl_lib_release(struct ibnl_lib *lib);
/*
 * The TOPSYSTEM named type (or an alias), parsing its file on first use.
 * NULL when unknown; *broken is set when its file could not be parsed
 * (reported).
 */
const struct ibnl_sys *ibnl_find_top(struct ibnl_lib *lib, const char *type,
				     bool *broken);
/* A SYSTEM of the same file, by any of its names. */
const struct ibnl_sys *ibnl_find_sys(const struct ibnl_file *file,
				     const char *name);
/* "-8X-5G->" and friends: 0, or -1 when it is not such an arrow. */
int ibnl_parse_arrow(const char *tok, uint8_t *width, enum cr_speed *speed);
/* FNV-1a 64. */
uint64_t ibdm_hash(const char *s);

/* A node being built, and its ports. */
struct ibdm_node {
	char *name;
	bool sw;
	unsigned nports;
	size_t port_base; /* its port 1 in ibdm_build.ports */
	uint64_t guid;
};

struct ibdm_port {
	uint32_t rnode; /* CR_NO_NODE: not cabled */
	uint8_t rport;
	uint8_t width;
	enum cr_speed speed;
	char *panel; /* "SL1-1 L1/P1" for a port of its system's panel */
	unsigned line; /* of the topology file, that cabled it */
	bool listed; /* that line is in its own system's block */
};

/* Where a system's port leads, with the rate the lowest level gives. */
struct ibdm_end {
	uint32_t node;
	uint8_t port;
	uint8_t width;
	enum cr_speed speed;
};

struct ibdm_portmap {
	const char *name; /* borrowed from the ibnl definitions */
	struct ibdm_end end;
};

struct ibdm_build {
	struct ibdm_node *nodes;
	size_t nnodes, nodes_cap;
	struct ibdm_port *ports;
	size_t nports, ports_cap;
};

/* CFG: board=modifier pairs of one system. */
struct ibdm_cfg {
	char **board, **mod;
	size_t n;
};

/* A system of the topology file. */
struct ibdm_sysrec {
	char *name;
	char *type; /* as first named */
	const struct ibnl_sys *def;
	unsigned line; /* first named */
	unsigned block; /* line of its own block, 0 none */
	struct ibdm_cfg cfg;
	struct ibdm_portmap *map; /* its ports, once expanded */
	size_t nmap;
};

/*
 * Adds the nodes of system r (r->def named r->name, with r->cfg) to b;
 * r->map gets the system's ports (the caller frees the array), r->nmap
 * their count. -1 on error, reported with where (the topology file's
 * "file:line") or the ibnl file's line.
 */
int ibdm_expand(struct ibdm_build *b, struct ibdm_sysrec *r, const char *where);

static inline struct ibdm_port *ibdm_port(struct ibdm_build *b, uint32_t n,
					  unsigned p)
{
	return &b->ports[b->nodes[n].port_base + p - 1];
}

static inline uint8_t ibdm_min_nonzero(uint8_t a, uint8_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

#endif
