// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the plugin parses from operator-edited files, on arbitrary bytes.
 * The first byte picks the parser:
 *   c  opensm.conf (croute's keys among OpenSM's)
 *   g  a GUID list file (root_guid_file, cn_guid_file, ...)
 *   l  OpenSM's guid2lid cache, for the fixed fabric (croute --lids)
 *   o  opensm.conf as croute -F reads it (OpenSM's keys and croute's)
 *   n  a node name map, for the fixed fabric (--node-name-map)
 * anything else: the first two, on the whole input.
 */
#include "fuzz.h"

#include <croute/io/conf.h>
#include <croute/tune/conf_map.h>
#include <croute/tune/conf_check.h>
#include <croute/route/engine.h>
#include <croute/io/osm_conf.h>

static void conf(const uint8_t *data, size_t size)
{
	struct cr_conf c;
	FILE *in = fmemopen((void *)data, size, "r");

	if (!in)
		return;
	cr_conf_defaults(&c);
	c.test_hooks = true; /* the test hook's parser too */
	cr_conf_parse_file(&c, in, "fuzz");
	fclose(in);
	cr_conf_check(&c);
	/* The hook's rules must name real engines (or all). */
	if (c.num_fail > CR_CONF_MAX_FAIL)
		abort();
	for (unsigned i = 0; i < c.num_fail; i++)
		if (c.fail[i].name[0] && !c.fail[i].engine)
			abort();
	for (unsigned i = 0; cr_engines[i]; i++)
		cr_conf_fail_stage(&c, cr_engines[i]);
}

static void guids(const uint8_t *data, size_t size)
{
	struct cr_guid_list l = {0};
	FILE *in = fmemopen((void *)data, size, "r");

	if (!in)
		return;
	cr_guid_file_parse(in, "fuzz", "root_guid_file", &l);
	fclose(in);
	for (size_t i = 0; i < l.count; i++)
		if (!l.guids[i])
			abort(); /* 0 is never a GUID */
	cr_guid_list_release(&l);
}

static void guid2lid(const uint8_t *data, size_t size)
{
	/* The reader replaces every LID: a fresh fabric each time. */
	struct cr_fabric *f = fuzz_fabric();
	const char *path = fuzz_memfd_path(data, size);

	if (path && !cr_lids_read_guid2lid(path, f)) {
		/* Accepted LIDs must make a consistent fabric. */
		if (cr_fabric_finalize(f))
			abort();
	}
	cr_fabric_free(f);
}

static void osm_conf(const uint8_t *data, size_t size)
{
	struct cr_osm_conf c;
	struct cr_options o;
	struct cr_auto_conf ac = {0};
	struct cr_opt_params par;
	FILE *in = fmemopen((void *)data, size, "r");

	if (!in)
		return;
	cr_osm_conf_init(&c);
	if (!cr_osm_conf_parse(&c, in, "fuzz") && !cr_conf_check(&c.cr)) {
		/* What -F does with an accepted file. */
		if (c.k.lmc > 7 || c.k.lash_start_vl > 14)
			abort();
		cr_options_init(&o);
		cr_conf_map(&c.k, &c.cr, 0, &o, &ac, &par);
		cr_options_release(&o);
	}
	fclose(in);
	cr_osm_conf_release(&c);
}

static void name_map(const uint8_t *data, size_t size)
{
	struct cr_fabric *f = fuzz_fabric();
	const char *path = fuzz_memfd_path(data, size);
	char label[CR_NODE_LABEL_MAX];

	if (path && !cr_name_map_apply(path, f))
		for (uint32_t n = 0; n < f->num_nodes; n++)
			if (!f->nodes[n].desc ||
			    !cr_node_label(f, n, 0, label, sizeof(label)))
				abort();
	cr_fabric_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size < 2)
		return 0;
	switch (data[0]) {
	case 'c':
		conf(data + 1, size - 1);
		break;
	case 'g':
		guids(data + 1, size - 1);
		break;
	case 'l':
		guid2lid(data + 1, size - 1);
		break;
	case 'o':
		osm_conf(data + 1, size - 1);
		break;
	case 'n':
		name_map(data + 1, size - 1);
		break;
	default:
		conf(data, size);
		guids(data, size);
		break;
	}
	return 0;
}
