// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute's dump files, written in OpenSM's dump directory after every
 * routing run by a croute engine, whatever the log flags. Each is written
 * to a temporary name and renamed, so a reader never sees half a file; a
 * file the latest run has nothing for is removed, so none is stale (also
 * when OpenSM fell back to an engine that is not croute's). A dump
 * that cannot be written is an error in the log, never a routing failure.
 *
 * croute-updn-roots.dump
 *	# comment lines, then one root switch a line:
 *	0x<node GUID> 0x<LID> "<node description>"
 * croute-ftree-ca-order.dump
 *	# comment lines, then the CA ports in cr-ftree's order:
 *	<index> 0x<LID> 0x<port GUID> <port> "<node description>"
 * croute-lash-sl.dump, croute-lash-sl2vl.dump
 *	cr-lash's path SLs and SL2VL tables as ibdmchk's -c and -d read
 *	them (include/croute/lash.h); the SL file only up to a size, or not
 *	at all with croute_lash_sl_dump FALSE.
 * croute-auto.dump
 *	cr-auto's ranked candidates: '#' comment lines, then one line a
 *	candidate, best first, as the log shows them (doc/design.md).
 * Descriptions escape '"' and '\' with a backslash.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

#include <croute/lash.h>
#include <croute/log.h>
#include <croute/topo.h>

#define ROOTS_DUMP "croute-updn-roots.dump"
#define CA_ORDER_DUMP "croute-ftree-ca-order.dump"
#define LASH_SL_DUMP "croute-lash-sl.dump"
#define LASH_SL2VL_DUMP "croute-lash-sl2vl.dump"
#define AUTO_DUMP "croute-auto.dump"

/*
 * The SL file has a line per node and LID in use (25 MB for 1000 nodes,
 * 650 MB for 5000), written on OpenSM's sweeper thread: above this the
 * sweep would wait too long for a file only ibdmchk reads.
 */
#define LASH_SL_DUMP_MAX_LINES (4u << 20)

static void put_desc(FILE *fp, const char *desc)
{
	fputc('"', fp);
	for (const char *s = desc; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void write_roots(FILE *fp, const char *engine, const struct cr_fabric *f,
			const struct cr_routing *r)
{
	fprintf(fp, "# %s: the root switches %s routed from\n", ROOTS_DUMP,
		engine);
	fprintf(fp, "# node_guid lid \"node description\"\n");
	for (uint32_t i = 0; i < r->num_roots; i++) {
		const struct cr_node *n = &f->nodes[r->roots[i]];

		fprintf(fp, "0x%016" PRIx64 " 0x%04x ", n->guid,
			n->ports[0].lid);
		put_desc(fp, n->desc);
		fputc('\n', fp);
	}
}

static void write_ca_order(FILE *fp, const char *engine,
			   const struct cr_fabric *f,
			   const struct cr_routing *r)
{
	fprintf(fp, "# %s: the CA ports in %s's order\n", CA_ORDER_DUMP,
		engine);
	fprintf(fp, "# index lid port_guid port \"node description\"\n");
	for (uint32_t i = 0; i < r->num_ca_order; i++) {
		uint32_t lid = r->ca_order[i];
		const struct cr_node *n;
		unsigned p;

		if (!lid || lid > f->max_lid || f->lid_node[lid] == CR_NO_NODE)
			continue;
		n = &f->nodes[f->lid_node[lid]];
		p = f->lid_port[lid];
		fprintf(fp, "%" PRIu32 " 0x%04x 0x%016" PRIx64 " %u ", i, lid,
			n->ports[p].guid, p);
		put_desc(fp, n->desc);
		fputc('\n', fp);
	}
}

static void write_auto(FILE *fp, const char *engine, const struct cr_fabric *f,
		       const struct cr_routing *r)
{
	(void)engine;
	(void)f;
	fputs(r->auto_table, fp);
}

/* The writers log their failures; cr_file_commit then sees the error. */
static void write_lash_sl(FILE *fp, const char *engine,
			  const struct cr_fabric *f, const struct cr_routing *r)
{
	(void)engine;
	cr_lash_write_psl(fp, f, r);
}

static void write_lash_sl2vl(FILE *fp, const char *engine,
			     const struct cr_fabric *f,
			     const struct cr_routing *r)
{
	(void)engine;
	cr_lash_write_sl2vl(fp, f, r);
}

/* Whether croute-lash-sl.dump is wanted, and small enough; says why not. */
static bool lash_sl_wanted(const struct cr_plugin *pl, const char *engine,
			   const struct cr_fabric *f)
{
	uint64_t lids = 0, lines;

	if (!pl->conf.lash_sl_dump) {
		cr_verbose("%s: croute_lash_sl_dump is FALSE: no %s", engine,
			   LASH_SL_DUMP);
		return false;
	}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		lids += f->lid_node[lid] != CR_NO_NODE;
	lines = lids * f->num_nodes;
	if (lines <= LASH_SL_DUMP_MAX_LINES)
		return true;
	cr_info("%s: %s not written: %" PRIu64 " nodes x %" PRIu64
		" LIDs is more than %u lines (croute route --lash-sl writes it"
		" offline; croute_lash_sl_dump FALSE silences this)",
		engine, LASH_SL_DUMP, (uint64_t)f->num_nodes, lids,
		LASH_SL_DUMP_MAX_LINES);
	return false;
}

typedef void (*dump_fn)(FILE *fp, const char *engine, const struct cr_fabric *f,
			const struct cr_routing *r);

static void dump_file(const char *dir, const char *name, dump_fn fn,
		      const char *engine, const struct cr_fabric *f,
		      const struct cr_routing *r)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *path, *tmp = NULL;
	FILE *fp;

	path = malloc(len);
	if (!path) {
		cr_err("out of memory writing %s", name);
		return;
	}
	snprintf(path, len, "%s/%s", dir, name);
	if (!fn) {
		if (unlink(path) < 0 && errno != ENOENT)
			cr_err("cannot remove the stale %s: %s", path,
			       strerror(errno));
		free(path);
		return;
	}
	/* cr_file_create and cr_file_commit log their failures. */
	fp = cr_file_create(path, &tmp);
	if (fp) {
		fn(fp, engine, f, r);
		if (!cr_file_commit(fp, tmp, path))
			cr_verbose("wrote %s", path);
	}
	free(path);
}

/*
 * ours: the tables in place are the ones croute installed last. When they
 * are not (OpenSM fell back to another engine), files from an earlier
 * croute run would describe a routing that is gone: they are removed.
 */
void cr_report_dumps(struct cr_plugin *pl, bool ours)
{
	const char *dir = pl->osm->subn.opt.dump_files_dir;
	const struct cr_routing *r = pl->routing;
	const struct cr_fabric *f = pl->fabric;
	const char *engine;

	if (!dir || !*dir) {
		cr_verbose("no dump directory: croute's dump files skipped");
		return;
	}
	pl->dumped = true;
	if (!ours || !pl->installed || !r || !f || !pl->run_engine) {
		r = NULL;
		engine = NULL;
	} else {
		engine = pl->run_engine->name;
	}
	dump_file(dir, ROOTS_DUMP, r && r->roots ? write_roots : NULL, engine,
		  f, r);
	dump_file(dir, CA_ORDER_DUMP, r && r->ca_order ? write_ca_order : NULL,
		  engine, f, r);
	dump_file(dir, LASH_SL_DUMP,
		  r && r->sl && lash_sl_wanted(pl, engine, f) ? write_lash_sl
							      : NULL,
		  engine, f, r);
	dump_file(dir, LASH_SL2VL_DUMP, r && r->sl ? write_lash_sl2vl : NULL,
		  engine, f, r);
	dump_file(dir, AUTO_DUMP, r && r->auto_table ? write_auto : NULL,
		  engine, f, r);
}
