// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * -F opensm.conf: what the plugin would take from the file, read as
 * OpenSM reads it, where the command line did not say otherwise.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/log.h>
#include <croute/osm_conf.h>

#include "cli.h"

/* A file the configuration names, unless the command line gave one. */
static void conf_file(struct cli_setup *s, int key, const char **dst,
		      char *path, char **keep, size_t *nkeep)
{
	if (!path || s->given[key - CLI_KEY_LONG])
		return;
	keep[(*nkeep)++] = path;
	*dst = path;
}

/*
 * -F: what the plugin would take from opensm.conf, where the command line
 * did not say otherwise (cr_osm_conf_parse reads it as OpenSM does).
 */
int cli_config_apply(struct cli_setup *s)
{
	struct cr_osm_conf c;
	FILE *fp;
	int err;

	s->conf_lmc = -1;
	if (!s->config || s->config_read)
		return 0;
	s->config_read = true;
	fp = fopen(s->config, "r");
	if (!fp) {
		cr_err("%s: %s", s->config, strerror(errno));
		return -1;
	}
	cr_osm_conf_init(&c);
	err = cr_osm_conf_parse(&c, fp, s->config);
	fclose(fp);
	if (err) {
		cr_osm_conf_release(&c);
		return -1;
	}
	if (c.routing_engine && !s->engine) {
		s->conf_engine = cli_conf_engine(s->config, c.routing_engine);
		if (!s->conf_engine) {
			cr_osm_conf_release(&c);
			return -1;
		}
	}
	s->conf_lmc = (int)c.lmc;
	{
		size_t nk = 0;

		conf_file(s, CLI_KEY_ROOT_GUIDS, &s->root_guids,
			  c.root_guid_file, s->conf_files, &nk);
		conf_file(s, CLI_KEY_CN_GUIDS, &s->cn_guids, c.cn_guid_file,
			  s->conf_files, &nk);
		conf_file(s, CLI_KEY_IO_GUIDS, &s->io_guids, c.io_guid_file,
			  s->conf_files, &nk);
		conf_file(s, CLI_KEY_GUID_ORDER, &s->guid_order,
			  c.guid_routing_order_file, s->conf_files, &nk);
		conf_file(s, CLI_KEY_PORT_ORDER, &s->port_order,
			  c.port_search_ordering_file, s->conf_files, &nk);
		/* the rest are not used: freed */
		for (char **p = &c.root_guid_file;
		     p <= &c.port_search_ordering_file; p++) {
			bool kept = false;

			for (size_t i = 0; i < nk; i++)
				kept |= s->conf_files[i] == *p;
			if (!kept)
				free(*p);
			*p = NULL;
		}
	}
	if (!s->given[CLI_KEY_PORT_SHIFTING - CLI_KEY_LONG] &&
	    c.port_shifting >= 0)
		s->opts.port_shifting = c.port_shifting;
	if (!s->given[CLI_KEY_SCATTER_PORTS - CLI_KEY_LONG] &&
	    c.scatter_ports >= 0)
		s->opts.scatter_ports = (uint32_t)c.scatter_ports;
	if (!s->given[CLI_KEY_LASH_START_VL - CLI_KEY_LONG] &&
	    c.lash_start_vl >= 0)
		s->opts.lash_start_vl = (uint8_t)c.lash_start_vl;
	{
		struct cr_options o = s->opts;

		/* croute's keys, as the plugin applies them */
		cr_osm_conf_apply(&c.cr, &o);
		if (!s->given[CLI_KEY_REMOTE_GUID_SORTING - CLI_KEY_LONG])
			s->opts.remote_guid_sorting = o.remote_guid_sorting;
		if (!s->given[CLI_KEY_LASH_BALANCE - CLI_KEY_LONG])
			s->opts.lash_balance = o.lash_balance;
		if (!s->given[CLI_KEY_BALANCE - CLI_KEY_LONG])
			s->opts.balance_global = o.balance_global;
	}
	/* cr-auto's keys and qos, unless the command line gave them. */
	if (!s->given[CLI_KEY_AUTO_CANDIDATES - CLI_KEY_LONG] &&
	    c.cr.auto_candidates[0]) {
		free(s->conf_auto_candidates);
		s->conf_auto_candidates = strdup(c.cr.auto_candidates);
		s->auto_conf.candidates = s->conf_auto_candidates;
	}
	if (!s->given[CLI_KEY_AUTO_OBJECTIVE - CLI_KEY_LONG] &&
	    c.cr.auto_objective[0]) {
		free(s->conf_auto_objective);
		s->conf_auto_objective = strdup(c.cr.auto_objective);
		s->auto_conf.objective = s->conf_auto_objective;
	}
	if (!s->given[CLI_KEY_AUTO_HOSTS - CLI_KEY_LONG] &&
	    c.cr.auto_hosts[0]) {
		free(s->conf_auto_hosts);
		s->conf_auto_hosts = strdup(c.cr.auto_hosts);
		s->auto_conf.hosts = s->conf_auto_hosts;
	}
	if (!s->given[CLI_KEY_AUTO_BUDGET - CLI_KEY_LONG] &&
	    c.cr.auto_budget > 0)
		s->auto_conf.budget = c.cr.auto_budget;
	/* the improve step's threshold, as the plugin applies it */
	s->auto_conf.threshold = c.cr.auto_improve_threshold;
	if (!s->given[CLI_KEY_ALLOW_CREDIT_LOOPS - CLI_KEY_LONG] &&
	    c.cr.auto_allow_credit_loops)
		s->auto_conf.allow_credit_loops = true;
	if (!s->given[CLI_KEY_QOS - CLI_KEY_LONG] && c.qos > 0)
		s->auto_conf.qos = true;
	/* the improvement pass, as the plugin runs it */
	if (c.cr.optimize)
		s->optimize = true;
	if (!c.cr.auto_optimize)
		s->no_auto_optimize = true;
	if (!s->given[CLI_KEY_OPTIMIZE_BUDGET - CLI_KEY_LONG] &&
	    c.cr.optimize_budget > 0)
		s->opt_params.budget = c.cr.optimize_budget;
	if (!s->given[CLI_KEY_OPTIMIZE_EXTRA_HOPS - CLI_KEY_LONG])
		s->opt_params.max_extra_hops = c.cr.optimize_max_extra_hops;
	if (c.cr.auto_give_up > 0)
		s->give_up = c.cr.auto_give_up;
	free(c.routing_engine);
	c.routing_engine = NULL;
	return 0;
}
