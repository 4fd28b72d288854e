// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * -F opensm.conf: read as OpenSM reads it (cr_osm_conf_parse) and mapped
 * to the run's settings as the plugin maps it (cr_conf_map), so that the
 * command routes as the plugin does under that file. The command line
 * wins over the file, key by key.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <croute/tune/conf_check.h>
#include <croute/tune/conf_map.h>
#include <croute/model/log.h>

#include "cli.h"

static bool given(const struct cli_setup *s, int key)
{
	return s->given[key - CLI_KEY_LONG];
}

/* The file into s->conf, and its routing_engine's croute engine. */
static int read_config(struct cli_setup *s)
{
	FILE *fp = fopen(s->config, "r");
	int err;

	if (!fp) {
		cr_err("%s: %s", s->config, strerror(errno));
		return -1;
	}
	err = cr_osm_conf_parse(&s->conf, fp, s->config);
	fclose(fp);
	if (err || cr_conf_check(&s->conf.cr))
		return -1;
	if (s->conf.routing_engine && !s->engine) {
		s->conf_engine =
			cli_conf_engine(s->config, s->conf.routing_engine);
		if (!s->conf_engine)
			return -1;
	}
	return 0;
}

/* A file the configuration names (s->conf keeps it), unless given. */
static void take_file(struct cli_setup *s, int key, const char **dst,
		      const char *path)
{
	if (path && !given(s, key))
		*dst = path;
}

static void take_files(struct cli_setup *s)
{
	const struct cr_osm_conf *c = &s->conf;

	take_file(s, CLI_KEY_ROOT_GUIDS, &s->root_guids, c->root_guid_file);
	take_file(s, CLI_KEY_CN_GUIDS, &s->cn_guids, c->cn_guid_file);
	take_file(s, CLI_KEY_IO_GUIDS, &s->io_guids, c->io_guid_file);
	take_file(s, CLI_KEY_GUID_ORDER, &s->guid_order,
		  c->guid_routing_order_file);
	take_file(s, CLI_KEY_PORT_ORDER, &s->port_order,
		  c->port_search_ordering_file);
}

static void take_options(struct cli_setup *s, const struct cr_options *o)
{
	if (!given(s, CLI_KEY_PORT_SHIFTING))
		s->opts.port_shifting = o->port_shifting;
	if (!given(s, CLI_KEY_SCATTER_PORTS))
		s->opts.scatter_ports = o->scatter_ports;
	if (!given(s, CLI_KEY_LASH_START_VL))
		s->opts.lash_start_vl = o->lash_start_vl;
	if (!given(s, CLI_KEY_REMOTE_GUID_SORTING))
		s->opts.remote_guid_sorting = o->remote_guid_sorting;
	if (!given(s, CLI_KEY_LASH_BALANCE))
		s->opts.lash_balance = o->lash_balance;
	if (!given(s, CLI_KEY_BALANCE)) {
		s->opts.balance_global = o->balance_global;
		s->opts.balance_first = o->balance_first;
	}
}

/*
 * cr-auto's settings. Its improve step is not taken: cli_auto_setup()
 * derives it from --optimize and --no-auto-optimize, which the file's
 * croute_optimize and croute_auto_optimize set here, by the same rule.
 */
static void take_auto(struct cli_setup *s, const struct cr_auto_conf *ac)
{
	struct cr_auto_conf *sa = &s->auto_conf;

	if (!given(s, CLI_KEY_AUTO_CANDIDATES))
		sa->candidates = ac->candidates;
	if (!given(s, CLI_KEY_AUTO_OBJECTIVE))
		sa->objective = ac->objective;
	if (!given(s, CLI_KEY_AUTO_HOSTS))
		sa->hosts = ac->hosts;
	if (!given(s, CLI_KEY_AUTO_BUDGET))
		sa->budget = ac->budget;
	if (!given(s, CLI_KEY_QOS))
		sa->qos = ac->qos;
	if (!given(s, CLI_KEY_AUTO_MAX_VLS))
		sa->max_vls = ac->max_vls;
	if (!given(s, CLI_KEY_ALLOW_CREDIT_LOOPS))
		sa->allow_credit_loops = ac->allow_credit_loops;
	sa->threshold = ac->threshold; /* no option sets it */
	sa->paths = ac->paths; /* croute_paths: estimate's --paths is its own */
	sa->lanes = ac->lanes;
	if (!given(s, CLI_KEY_OPTIMIZE))
		s->optimize = s->conf.cr.optimize;
	if (!given(s, CLI_KEY_NO_AUTO_OPTIMIZE))
		s->no_auto_optimize = !s->conf.cr.auto_optimize;
}

static void take_pass(struct cli_setup *s, const struct cr_opt_params *par)
{
	if (!given(s, CLI_KEY_OPTIMIZE_BUDGET))
		s->opt_params.budget = par->budget;
	if (!given(s, CLI_KEY_OPTIMIZE_EXTRA_HOPS))
		s->opt_params.max_extra_hops = par->max_extra_hops;
	/* no option sets it; offline, too, it bounds the improve step */
	if (s->conf.cr.auto_give_up > 0)
		s->give_up = s->conf.cr.auto_give_up;
}

int cli_config_apply(struct cli_setup *s)
{
	struct cr_options o;
	struct cr_auto_conf ac = {0};
	struct cr_opt_params par;

	if (!s->config || s->config_read)
		return 0;
	s->config_read = true;
	if (read_config(s))
		return -1;
	take_files(s);
	/* The command is no sweep: CR_CONF_IN_SWEEP's short budget is not its. */
	cr_options_init(&o);
	cr_conf_map(&s->conf.k, &s->conf.cr, 0, &o, &ac, &par);
	take_options(s, &o);
	take_auto(s, &ac);
	take_pass(s, &par);
	return 0;
}

void cli_auto_setup(struct cli_setup *s)
{
	cr_auto_conf_use(&s->opts, &s->auto_conf);
	cr_conf_improve(&s->auto_conf, s->optimize, !s->no_auto_optimize,
			&s->opt_params);
}
