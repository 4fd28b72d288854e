/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Topology and table files: ibnetdiscover-format topologies (as
 * ibnetdiscover prints them and as ibsim reads them), OpenSM's guid2lid
 * file, and LFTs in opensm-lfts.dump or ibroute format. Readers name the
 * file and line of the first error and return -1; writers go through a
 * temporary file and rename, so no half-written file is left behind.
 */
#ifndef CROUTE_TOPO_H
#define CROUTE_TOPO_H

#include <stdio.h>
#include <sys/types.h>
#include <croute/model/routing.h>

/* Reads a topology. The fabric is finalized when it carries LIDs. */
struct cr_fabric *cr_topo_read(const char *path);
struct cr_fabric *cr_topo_read_file(FILE *in, const char *name);
/*
 * Reads a topology in the format its content shows: ibnetdiscover's (and
 * ibsim's), OpenSM's opensm-subnet.lst, an ibdm plan, or a port listing
 * (ibnetdiscover -p, iblinkinfo). *format (when not NULL) gets
 * the format's name for reports. path "-" is stdin.
 */
struct cr_fabric *cr_topo_read_format(const char *path, const char **format);
/*
 * infiniband-diags' port listings (io/topo_ports.c): `ibnetdiscover -p`
 * and iblinkinfo are read; iblinkinfo -l (no node types) and node lists
 * (ibnetdiscover -l, -H, -S: no links) are recognised and refused.
 */
enum cr_topo_ports {
	CR_TOPO_PORTS_NONE,
	CR_TOPO_PORTS_P,
	CR_TOPO_PORTS_LINKINFO,
	CR_TOPO_PORTS_LINKINFO_L,
	CR_TOPO_PORTS_NODE_LIST,
};
/* Which of them a line starts, from its first line that says. */
enum cr_topo_ports cr_topo_ports_kind(const char *line);
/* The kind of in's first significant line, at *line (in is not rewound). */
enum cr_topo_ports cr_topo_ports_detect(FILE *in, unsigned *line);
/* Reads in as kind; refuses (error at line) the kinds it cannot read. */
struct cr_fabric *cr_topo_read_ports(FILE *in, const char *name,
				     enum cr_topo_ports kind, unsigned line);
const char *cr_topo_ports_name(enum cr_topo_ports kind);
/* Writes f in ibnetdiscover format, with LIDs when f has them. */
int cr_topo_write(FILE *out, const struct cr_fabric *f);

/*
 * How a node description is written in double quotes. Both keep it on
 * one line: control characters and bytes that are not UTF-8 become
 * spaces, as OpenSM and infiniband-diags clean descriptions. CR_DESC_ESCAPE, croute's
 * dump files: '"' and '\' escaped by a backslash. CR_DESC_BLANK,
 * topology files, read by tools that know no escapes: '"' becomes a
 * space, so that it cannot end the description early.
 */
enum cr_desc_style {
	CR_DESC_ESCAPE,
	CR_DESC_BLANK,
};
void cr_put_desc(FILE *fp, const char *desc, enum cr_desc_style style);

/* Sets LIDs from OpenSM's guid2lid file ("0xGUID base top" lines). */
int cr_lids_read_guid2lid(const char *path, struct cr_fabric *f);

/*
 * Widens the LMC of f's ports (base LIDs from opensm-subnet.lst, LMC 0) to
 * cover the LIDs the LFTs at path route; refinalizes f when it changed.
 */
int cr_lids_widen(const char *path, struct cr_fabric *f);

/*
 * Renames f's nodes from a node name map ("0xGUID name" or "0xGUID
 * \"name\"" lines, '#' comments), OpenSM's and infiniband-diags' format.
 * A malformed line is an error naming the file and line; -1.
 */
int cr_name_map_apply(const char *path, struct cr_fabric *f);

/* LFTs as OpenSM's opensm-lfts.dump writes them. */
int cr_lft_write_dump(FILE *out, const struct cr_fabric *f,
		      const struct cr_routing *r);
/*
 * Reads LFTs into r (sized for f): opensm-lfts.dump, ibroute, dump_fts or
 * dump_lfts output, or OpenSM's opensm.fdbs, told apart by their content.
 * cr_lft_read_format sets *format (when not NULL) to the format's name.
 */
int cr_lft_read(const char *path, const struct cr_fabric *f,
		struct cr_routing *r);
int cr_lft_read_format(const char *path, const struct cr_fabric *f,
		       struct cr_routing *r, const char **format);

/*
 * fopen(path, "r") for an input file, refusing a directory (which fopen
 * opens and getline then fails on); NULL with the reason logged. A gzip
 * file (magic bytes 1f 8b) is decompressed when gzip support is
 * registered, else refused with a message.
 */
FILE *cr_file_open_read(const char *path);
/*
 * in, a regular file at its start, rewound; or, gzip-compressed, its
 * decompressing reader (in is closed). NULL (logged) on failure.
 */
FILE *cr_file_read_gz(FILE *in, const char *path);
/*
 * getline for the readers: the length of the next line (line numbers it
 * in messages), -1 at the end of the file or on an error. Memory exhausted
 * or a line over CR_LINE_MAX bytes (a binary file) it logs and marks in
 * *err, never taken for the end of the file; a read error is left to
 * ferror(in).
 */
#define CR_LINE_MAX (1u << 20)
ssize_t cr_getline(char **buf, size_t *cap, FILE *in, const char *path,
		   unsigned line, int *err);
/*
 * What kind of file a line that does not belong comes from, as "an LFT
 * dump; give it to --lfts", so that a file given in the wrong place is
 * named; NULL when not known.
 */
const char *cr_file_kind(const char *line);
/*
 * A reader's checks once its lines are read: a read error on in, or a file
 * that gave none of what it must (count 0; none says what is missing and
 * what the file may be instead), logged; -1 for either, else 0.
 */
int cr_read_end(FILE *in, const char *path, size_t count, const char *none);

/* gzip support, registered by the command only (include/croute/report/gzfile.h). */
struct cr_gz_ops {
	FILE *(*open_read)(int fd, const char *path); /* takes fd */
	FILE *(*open_write)(int fd, const char *path); /* takes fd */
};
void cr_file_set_gz(const struct cr_gz_ops *ops);

/*
 * fopen(path.tmp) ... cr_file_commit renames it into place; a path that
 * exists and is no regular file (/dev/null, a FIFO) is written in place
 * (*tmp_path is then ""). With gzip support registered, a path ending in
 * ".gz" is written compressed.
 */
FILE *cr_file_create(const char *path, char **tmp_path);
/*
 * Removes the temporary files being written: for a signal handler
 * (async-signal-safe), before the signal ends the command.
 */
void cr_file_remove_pending(void);
int cr_file_commit(FILE *fp, char *tmp_path, const char *path);
void cr_file_abort(FILE *fp, char *tmp_path);

#endif
