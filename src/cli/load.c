// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where the fabric comes from: a topology file or --dump-dir (with its
 * LFTs and lash SLs), or --live; its LIDs from --lids, --lmc, -F's lmc or
 * the file itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

const char cli_live_lfts[] = "the switches";

uint32_t cli_count_lids(const struct cr_fabric *f)
{
	uint32_t n = 0;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		n += f->lid_node[lid] != CR_NO_NODE;
	return n;
}

char *cli_dir_file(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (!p)
		cr_err("out of memory");
	else
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

bool cli_readable(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	fclose(f);
	return true;
}

/*
 * The files of --dump-dir: the topology, the LFTs (opensm-lfts.dump, else
 * opensm.fdbs) and cr-lash's path SLs when present.
 */
static int dump_dir_files(struct cli_setup *s)
{
	static const char *const lfts[] = {"opensm-lfts.dump", "opensm.fdbs"};

	if (!s->dump_dir || s->dump_topo)
		return 0;
	s->dump_topo = cli_dir_file(s->dump_dir, "opensm-subnet.lst");
	if (!s->dump_topo)
		return -1;
	if (!cli_readable(s->dump_topo)) {
		cr_err("%s: %s (OpenSM writes it at every sweep)", s->dump_topo,
		       strerror(errno));
		return -1;
	}
	for (unsigned i = 0; i < 2 && !s->dump_lfts; i++) {
		s->dump_lfts = cli_dir_file(s->dump_dir, lfts[i]);
		if (!s->dump_lfts)
			return -1;
		if (!cli_readable(s->dump_lfts)) {
			free(s->dump_lfts);
			s->dump_lfts = NULL;
		}
	}
	s->dump_sl = cli_dir_file(s->dump_dir, "croute-lash-sl.dump");
	if (!s->dump_sl)
		return -1;
	if (!cli_readable(s->dump_sl)) {
		free(s->dump_sl);
		s->dump_sl = NULL;
	}
	return 0;
}

bool cli_lfts_or_engine(struct cli_setup *s, const char **lfts)
{
	if (*lfts && s->engine) {
		cli_usage_error(s->cmd,
				"--lfts and --engine exclude each other");
		return false;
	}
	*lfts = cli_installed_lfts(s, *lfts);
	if (!*lfts && !s->engine) {
		if (!s->dump_dir)
			cli_usage_error(s->cmd,
					"give --lfts FILE, --dump-dir DIR"
					" or --engine NAME");
		return false;
	}
	return true;
}

const char *cli_installed_lfts(struct cli_setup *s, const char *lfts)
{
	if (s->live && !lfts && !s->engine)
		return s->installed = cli_live_lfts;
	if (lfts || s->engine || dump_dir_files(s))
		return s->installed = lfts;
	if (s->dump_dir && !s->dump_lfts)
		cr_err("%s: neither opensm-lfts.dump nor opensm.fdbs (opensm"
		       " writes them with -D 0x41)",
		       s->dump_dir);
	return s->installed = s->dump_lfts;
}

const char *cli_sources(const struct cli_setup *s, const char *lfts, char *buf,
			size_t len)
{
	int n = snprintf(buf, len, "%s (%s)", s->topo ? s->topo : "?",
			 s->topo_format ? s->topo_format : "?");

	if (lfts && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ", LFTs from %s (%s)", lfts,
			 s->lfts_format ? s->lfts_format : "?");
	return buf;
}

struct cr_fabric *cli_load(struct cli_setup *s)
{
	struct cr_fabric *f;
	int err = 0;

	if (cli_config_apply(s))
		return NULL;

	if (s->live) {
		if (s->topo || s->dump_dir || s->lids || s->lmc >= 0) {
			cli_usage_error(s->cmd,
					"--live excludes --topo,"
					" --dump-dir, --lids and --lmc");
			return NULL;
		}
		f = cli_live_load(s);
		if (f && s->name_map && cr_name_map_apply(s->name_map, f)) {
			cr_fabric_free(f);
			f = NULL;
		}
		return f;
	}
	if (dump_dir_files(s))
		return NULL;
	if (!s->topo)
		s->topo = s->dump_topo;
	if (!s->topo) {
		cli_usage_error(s->cmd, "--topo FILE or --dump-dir DIR is"
					" required");
		return NULL;
	}
	if (s->lids && s->lmc >= 0) {
		cli_usage_error(s->cmd, "--lids and --lmc exclude each other");
		return NULL;
	}
	f = cr_topo_read_format(s->topo, &s->topo_format);
	if (!f)
		return NULL;
	if (s->name_map && cr_name_map_apply(s->name_map, f)) {
		cr_fabric_free(f);
		return NULL;
	}
	if (s->sm_port) {
		uint8_t p;
		uint32_t n = cr_fabric_find_port_guid(f, s->sm_port, &p);

		if (n == CR_NO_NODE ||
		    (p && f->nodes[n].ports[p].remote == CR_NO_NODE)) {
			cr_err("--sm-port 0x%016llx: no cabled port of %s has"
			       " this GUID",
			       (unsigned long long)s->sm_port, s->topo);
			cr_fabric_free(f);
			return NULL;
		}
		f->sm_port_guid = s->sm_port;
	}
	/* As OpenSM would: what its port cannot reach gets no LID. */
	if (cr_fabric_keep_sm_part(f)) {
		cr_fabric_free(f);
		return NULL;
	}
	if (s->lids)
		err = cr_lids_read_guid2lid(s->lids, f);
	else if (s->lmc >= 0 || !f->max_lid)
		err = cr_fabric_assign_lids(f, s->lmc >= 0 ? s->lmc
					       : s->conf.k.lmc >= 0
						       ? (int)s->conf.k.lmc
						       : 0);
	else if (s->installed && !strcmp(s->topo_format, "opensm-subnet.lst"))
		/* base LIDs only: the LMC shows in the LFTs */
		err = cr_lids_widen(s->installed, f);
	if (err) {
		cr_fabric_free(f);
		return NULL;
	}
	return f;
}
