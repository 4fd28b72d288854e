// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Options: OpenSM's own routing options from osm->subn.opt, and croute's
 * keys (remote_guid_sorting, croute_*) read from the same opensm.conf at
 * every routing run, so a SIGHUP re-sweep picks up an edit. OpenSM reports
 * croute's keys as unrecognized tokens and goes on; croute reports its own
 * mistakes (unknown croute_* key, malformed value) and uses the default.
 * The text itself is parsed in the core (src/core/io/conf_parse.c), and
 * mapped to the run's options there too (src/core/tune/conf_map.c), as for
 * the command's -F; this file finds and opens the files and hands
 * OpenSM's parsed options to that mapping.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "err.h"

#include <croute/tune/conf_check.h>
#include <croute/model/log.h>
#include <croute/tune/conf_map.h>

void cr_conf_read(struct cr_plugin *pl, struct cr_conf *c)
{
	const char *path = pl->osm->subn.opt.config_file;
	FILE *fp;

	cr_conf_defaults(c);
	/* The fail-engine test hook exists only for the test suite. */
	c->test_hooks = getenv(CR_TEST_HOOKS_ENV) &&
			!strcmp(getenv(CR_TEST_HOOKS_ENV), "1");
	/* Without a config file OpenSM runs on defaults, and so does croute. */
	if (!path)
		return;
	fp = fopen(path, "r");
	if (!fp) {
		if (errno != ENOENT)
			pl_err("CR0E",
			       "cannot read %s: %s; croute's keys take their"
			       " defaults",
			       path, strerror(errno));
		return;
	}
	cr_conf_parse_file(c, fp, path);
	fclose(fp);
	cr_conf_check(c);
}

/*
 * A file that cannot be read or parsed fails the run: routing around the
 * operator's roots or node roles silently would be worse.
 */
static int read_guid_file(const char *key, const char *path,
			  struct cr_guid_list *l)
{
	int ret;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp) {
		pl_err("CR0F", "cannot open %s '%s': %s", key, path,
		       strerror(errno));
		return -1;
	}
	ret = cr_guid_file_parse(fp, path, key, l);
	fclose(fp);
	return ret;
}

static int read_port_order(const char *path, struct cr_options *o)
{
	int ret;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp) {
		pl_err("CR10", "cannot open port_search_ordering_file '%s': %s",
		       path, strerror(errno));
		return -1;
	}
	ret = cr_port_order_parse(fp, path, "port_search_ordering_file", o);
	fclose(fp);
	return ret;
}

static bool opt_str_set(const char *s)
{
	return s && *s;
}

/* OpenSM routing options croute does not implement: said once, when set. */
static void log_ignored(struct cr_plugin *pl, const osm_subn_opt_t *opt)
{
	const struct {
		const char *name;
		bool set;
	} ignored[] = {
		{"hop_weights_file", opt_str_set(opt->hop_weights_file)},
		{"port_prof_ignore_file",
		 opt_str_set(opt->port_prof_ignore_file)},
		{"ids_guid_file", opt_str_set(opt->ids_guid_file)},
		{"connect_roots", opt->connect_roots},
		{"max_reverse_hops", opt->max_reverse_hops != 0},
		{"guid_routing_order_no_scatter",
		 opt->guid_routing_order_no_scatter},
		{"quasi_ftree_indexing", opt->quasi_ftree_indexing},
		{"do_mesh_analysis", opt->do_mesh_analysis},
	};

	for (unsigned i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++) {
		if (!ignored[i].set || (pl->ignored_logged & (1u << i)))
			continue;
		pl->ignored_logged |= 1u << i;
		cr_info("%s is set, but croute's engines do not implement it:"
			" ignored",
			ignored[i].name);
	}
}

bool cr_conf_background(const struct cr_conf *c, const struct cr_engine *e)
{
	return c->auto_background && (e == &cr_auto_engine || c->optimize);
}

/* OpenSM's keys that change a routing, as its parser left them. */
static void osm_keys(const osm_subn_opt_t *opt, struct cr_osm_keys *k)
{
	cr_osm_keys_init(k);
	k->lmc = opt->lmc;
	k->port_shifting = opt->port_shifting;
	k->scatter_ports = opt->scatter_ports;
	k->lash_start_vl = opt->lash_start_vl;
	k->qos = opt->qos;
}

int cr_conf_options(struct cr_plugin *pl, unsigned flags, struct cr_options *o)
{
	const osm_subn_opt_t *opt = &pl->osm->subn.opt;
	const struct {
		const char *key;
		const char *path;
		struct cr_guid_list *list;
	} files[] = {
		{"root_guid_file", opt->root_guid_file, &o->root_guids},
		{"cn_guid_file", opt->cn_guid_file, &o->cn_guids},
		{"io_guid_file", opt->io_guid_file, &o->io_guids},
		{"guid_routing_order_file", opt->guid_routing_order_file,
		 &o->guid_order},
	};
	struct cr_osm_keys k;

	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (opt_str_set(files[i].path) &&
		    read_guid_file(files[i].key, files[i].path, files[i].list) <
			    0)
			return -1;
	if (opt_str_set(opt->port_search_ordering_file) &&
	    read_port_order(opt->port_search_ordering_file, o) < 0)
		return -1;
	log_ignored(pl, opt);
	osm_keys(opt, &k);
	cr_conf_map(&k, &pl->conf, flags, o, &pl->auto_conf, &pl->opt_params);
	return 0;
}
