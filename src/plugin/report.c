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
 * croute-hosts.dump (croute_dump_hosts)
 *	an MPI hostfile: the host order for shift (include/croute/io/sched.h)
 * croute-topology.conf (croute_dump_slurm)
 *	a Slurm topology.conf of the fabric (include/croute/io/sched.h)
 * croute-lash-sl.dump, croute-lash-sl2vl.dump
 *	cr-lash's path SLs and SL2VL tables as ibdmchk's -c and -d read
 *	them (include/croute/io/lash.h); the SL file only up to a size, or not
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
#include "err.h"

#include <complib/cl_nodenamemap.h>

#include <croute/estimate/host_order.h>
#include <croute/io/ca_order.h>
#include <croute/io/lash.h>
#include <croute/model/log.h>
#include <croute/io/sched.h>
#include <croute/io/topo.h>

#define ROOTS_DUMP "croute-updn-roots.dump"
#define LASH_SL_DUMP "croute-lash-sl.dump"
#define LASH_SL2VL_DUMP "croute-lash-sl2vl.dump"
#define AUTO_DUMP "croute-auto.dump"
#define HOSTS_DUMP "croute-hosts.dump"
#define SLURM_DUMP "croute-topology.conf"

/*
 * The SL file has a line per node and LID in use (25 MB for 1000 nodes,
 * 650 MB for 5000), written on OpenSM's sweeper thread: above this the
 * sweep would wait too long for a file only ibdmchk reads.
 */
#define LASH_SL_DUMP_MAX_LINES (4u << 20)

/* What a writer gets. */
struct dump {
	const char *engine;
	const struct cr_fabric *f;
	const struct cr_routing *r;
	const struct cr_byproducts *by; /* the engine's, with r */
	const struct cr_names *nm; /* export names (node name map) */
};

static int write_roots(FILE *fp, const struct dump *d)
{
	const char *engine = d->engine;
	const struct cr_fabric *f = d->f;
	const struct cr_byproducts *by = d->by;

	fprintf(fp, "# %s: the root switches %s routed from\n", ROOTS_DUMP,
		engine);
	fprintf(fp, "# node_guid lid \"node description\"\n");
	for (uint32_t i = 0; i < by->num_roots; i++) {
		const struct cr_node *n = &f->nodes[by->roots[i]];

		fprintf(fp, "0x%016" PRIx64 " 0x%04x ", n->guid,
			n->ports[0].lid);
		cr_put_desc(fp, n->desc, CR_DESC_ESCAPE);
		fputc('\n', fp);
	}
	return 0;
}

static int write_ca_order(FILE *fp, const struct dump *d)
{
	cr_ca_order_write(fp, d->f, d->by, d->engine);
	return 0;
}

static int write_auto(FILE *fp, const struct dump *d)
{
	fputs(d->by->auto_table, fp);
	return 0;
}

/* The writers log their failures; cr_file_commit then sees the error. */
static int write_lash_sl(FILE *fp, const struct dump *d)
{
	cr_lash_write_psl(fp, d->f, d->r);
	return 0;
}

static int write_lash_sl2vl(FILE *fp, const struct dump *d)
{
	cr_lash_write_sl2vl(fp, d->f, d->r);
	return 0;
}

/*
 * The exports for schedulers: the same core writers as croute hosts and
 * croute export --slurm, so the files match the command's byte for byte
 * apart from the comment lines that say where they come from.
 */
static int write_hosts(FILE *fp, const struct dump *d)
{
	const char *engine = d->engine;
	const struct cr_fabric *f = d->f;
	struct cr_hosts *h = NULL;
	struct cr_options o;
	char comment[512], how[256];
	int err = -1;

	/* The engine's order without guid_routing_order_file: scored
	 * against the default order all the same. */
	cr_options_init(&o);
	if (d->nm)
		h = cr_hosts_shift_export(f, d->r, &o, d->by, how, sizeof(how));
	cr_options_release(&o);
	if (h) {
		snprintf(comment, sizeof(comment),
			 "%s: MPI host order for shift, routed by %s; %s",
			 HOSTS_DUMP, engine, how);
		err = cr_hostfile_write(fp, d->nm, h, comment) < 0 ? -1 : 0;
	}
	cr_hosts_free(h);
	return err;
}

static int write_slurm(FILE *fp, const struct dump *d)
{
	if (!d->nm)
		return -1;
	return cr_slurm_write(fp, d->f, d->nm, "the fabric croute routed last");
}

/*
 * Export names, from OpenSM's node name map (node_name_map_name) where it
 * names a node, else from node descriptions (include/croute/io/sched.h).
 * NULL (logged) when memory runs out.
 */
static struct cr_names *export_names(const struct cr_plugin *pl,
				     const struct cr_fabric *f)
{
	const char *path = pl->osm->subn.opt.node_name_map_name;
	const char **names = NULL;
	struct cr_names *nm;
	nn_map_t *map = NULL;

	if (path && *path)
		map = open_node_name_map(path);
	if (map)
		names = calloc(f->num_nodes + 1, sizeof(*names));
	for (uint32_t n = 0; names && n < f->num_nodes; n++) {
		cl_map_item_t *it = cl_qmap_get(map, f->nodes[n].guid);

		if (it != cl_qmap_end(map))
			names[n] = ((name_map_item_t *)it)->name;
	}
	nm = cr_names_new(f, names);
	free(names);
	close_node_name_map(map);
	return nm;
}

/*
 * Schedulers take node names only: a node whose description is shared or
 * empty is named by its GUID, which no scheduler resolves, so a file that
 * would list one is not written (the stale one is removed) and the log
 * says how to name the nodes. Routing goes on: the tables do not depend
 * on names. CAs only for the hostfile, every node for topology.conf.
 */
static bool names_usable(const struct dump *d, const char *file, bool cas)
{
	const struct cr_fabric *f = d->f;
	uint32_t hosts = 0, switches = 0, example = 0;
	char guid[19];

	for (uint32_t n = f->num_nodes; n-- > 0;) {
		bool sw = f->nodes[n].type == CR_NODE_SWITCH;

		if (cas && sw)
			continue;
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, f->nodes[n].guid);
		if (strcmp(cr_names_get(d->nm, n), guid))
			continue;
		hosts += !sw;
		switches += sw;
		example = n;
	}
	if (!hosts && !switches)
		return true;
	pl_err("CR27",
	       "%s not written: %u host%s and %u switch%s have no name of"
	       " their own (node descriptions shared or empty, e.g. 0x%016" PRIx64
	       " '%s'): GUIDs are not node names; name them in the"
	       " node name map (node_name_map_name)",
	       file, hosts, hosts == 1 ? "" : "s", switches,
	       switches == 1 ? "" : "es", f->nodes[example].guid,
	       f->nodes[example].desc);
	return false;
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

/* A writer: 0, or -1 (logged) and the file is not put in place. */
typedef int (*dump_fn)(FILE *fp, const struct dump *d);

static void dump_file(const char *dir, const char *name, dump_fn fn,
		      const struct dump *d)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *path, *tmp = NULL;
	FILE *fp;

	path = malloc(len);
	if (!path) {
		pl_err("CR28", "out of memory writing %s", name);
		return;
	}
	snprintf(path, len, "%s/%s", dir, name);
	if (!fn) {
		if (unlink(path) < 0 && errno != ENOENT)
			pl_err("CR29", "cannot remove the stale %s: %s", path,
			       strerror(errno));
		free(path);
		return;
	}
	/* cr_file_create and cr_file_commit log their failures. */
	fp = cr_file_create(path, &tmp);
	if (fp) {
		if (fn(fp, d))
			cr_file_abort(fp, tmp);
		else if (!cr_file_commit(fp, tmp, path))
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
	struct dump d = {NULL, pl->fabric, pl->routing, &pl->by, NULL};
	const struct cr_byproducts *by = &pl->by;
	const struct cr_routing *r;
	bool hosts, slurm;

	if (!dir || !*dir) {
		cr_verbose("no dump directory: croute's dump files skipped");
		return;
	}
	pl_core_code("CR46");
	pl->dumped = true;
	if (!ours || !pl->installed || !d.r || !d.f || !pl->run_engine)
		d.r = NULL;
	else
		d.engine = pl->run_engine->name;
	r = d.r;
	hosts = r && pl->conf.dump_hosts;
	slurm = r && pl->conf.dump_slurm;
	if (hosts || slurm)
		d.nm = export_names(pl, d.f);
	hosts = hosts && d.nm && names_usable(&d, HOSTS_DUMP, true);
	slurm = slurm && d.nm && names_usable(&d, SLURM_DUMP, false);
	dump_file(dir, ROOTS_DUMP, r && by->roots ? write_roots : NULL, &d);
	dump_file(dir, CR_CA_ORDER_DUMP,
		  r && by->ca_order ? write_ca_order : NULL, &d);
	dump_file(dir, LASH_SL_DUMP,
		  r && r->sl && lash_sl_wanted(pl, d.engine, d.f)
			  ? write_lash_sl
			  : NULL,
		  &d);
	dump_file(dir, LASH_SL2VL_DUMP, r && r->sl ? write_lash_sl2vl : NULL,
		  &d);
	dump_file(dir, AUTO_DUMP, r && by->auto_table ? write_auto : NULL, &d);
	dump_file(dir, HOSTS_DUMP, hosts ? write_hosts : NULL, &d);
	dump_file(dir, SLURM_DUMP, slurm ? write_slurm : NULL, &d);
	cr_names_free((struct cr_names *)d.nm);
}
