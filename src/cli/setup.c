// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the commands share of the engine and its options: the option
 * groups' tables, their handler (cli_setup_opt) and the setup they fill.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/ibdm.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

#include "cli.h"

const struct cli_opt cli_topo_opts[] = {
	{"topo", 't', "FILE",
	 "topology: ibnetdiscover, opensm-subnet.lst, ibdm plan ('-': stdin)"},
	{"ibnl-dir", CLI_KEY_IBNL_DIR, "DIR",
	 "ibdm plans: system definitions searched before the installed"},
	{"config", 'F', "FILE",
	 "opensm.conf: the engine and the keys the plugin reads"},
	{"node-name-map", CLI_KEY_NODE_NAME_MAP, "FILE",
	 "names of nodes by GUID (OpenSM's node_name_map format)"},
	{"dump-dir", CLI_KEY_DUMP_DIR, "DIR",
	 "OpenSM's dump directory: opensm-subnet.lst, its LFTs, lash SLs"},
	{"lids", CLI_KEY_LIDS, "FILE", "LIDs from OpenSM's guid2lid file"},
	{"lmc", CLI_KEY_LMC, "N", "assign LIDs with LMC N, not the file's"},
	{"sm-port", CLI_KEY_SM_PORT, "GUID",
	 "port OpenSM runs on, given LIDs first (default: the first)"},
	CLI_OPT_END,
};

const struct cli_opt cli_live_opts[] = {
	{"live", CLI_KEY_LIVE, NULL,
	 "the fabric now: discover it and read the switches' LFTs"},
	{"Ca", 'C', "CA", "--live through this CA (default: the first)"},
	{"Port", 'P', "PORT",
	 "--live through this port (default: first active)"},
	{"live-sl", CLI_KEY_LIVE_SL, "WHEN",
	 "--live path SLs from the SA: auto, all or none (check, compare)"},
	CLI_OPT_END,
};

const struct cli_opt cli_engine_opts[] = {
	{"engine", 'e', "NAME",
	 "minhop, updn, ftree, lash, dfp, hyperx or auto"},
	{"routing-engine", 'R', "LIST",
	 "OpenSM's list (opensm -R): routes with its first cr- engine"},
	{"balance", CLI_KEY_BALANCE, "MODE",
	 "local (default), global (path-load balancing) or first (the"
	 " first equal port: dimension order on meshes; minhop, updn, lash)"},
	{"port-shifting", CLI_KEY_PORT_SHIFTING, NULL,
	 "spread destinations over equal ports (port_shifting, croute(8))"},
	{"remote-guid-sorting", CLI_KEY_REMOTE_GUID_SORTING, NULL,
	 "order equal ports by the GUID at their far end"},
	{"scatter-ports", CLI_KEY_SCATTER_PORTS, "SEED",
	 "pick randomly among the least loaded ports (0: off)"},
	CLI_GUID_OPTS,
	CLI_OPTIMIZE_OPTS,
	{"guid-order", CLI_KEY_GUID_ORDER, "FILE",
	 "port GUIDs to route first, in order (guid_routing_order_file)"},
	{"port-order", CLI_KEY_PORT_ORDER, "FILE",
	 "switch port search orders (port_search_ordering_file)"},
	{"lash-start-vl", CLI_KEY_LASH_START_VL, "VL",
	 "first virtual lane lash uses (0..14)"},
	{"lash-balance", CLI_KEY_LASH_BALANCE, NULL,
	 "lash: balance load first, fewest layers next"},
	CLI_AUTO_OPTS,
	{"threads", CLI_KEY_THREADS, "N",
	 "threads (0: online CPUs up to 8); same tables for any N"},
	CLI_OPT_END,
};

void cli_setup_init(struct cli_setup *s, const struct cli_cmd *cmd)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->lmc = -1;
	s->give_up = CLI_GIVE_UP_S;
	cr_options_init(&s->opts);
	cr_opt_params_init(&s->opt_params);
	cr_osm_conf_init(&s->conf);
}

void cli_setup_release(struct cli_setup *s)
{
	free(s->dump_topo);
	free(s->dump_lfts);
	free(s->dump_sl);
	free(s->conf_engine);
	free(s->engine_pick);
	cr_osm_conf_release(&s->conf);
	cr_routing_free(s->live_routing);
	cr_options_release(&s->opts);
	cr_byproducts_release(&s->by);
}

/* Where the fabric and its routing come from. */
static int input_opt(struct cli_setup *s, int key, const char *arg)
{
	unsigned long v;

	switch (key) {
	case 't':
		s->topo = arg;
		return 0;
	case 'F':
		s->config = arg;
		return 0;
	case CLI_KEY_LIDS:
		s->lids = arg;
		return 0;
	case CLI_KEY_DUMP_DIR:
		s->dump_dir = arg;
		return 0;
	case CLI_KEY_IBNL_DIR:
		return cr_ibdm_add_dir(arg);
	case CLI_KEY_NODE_NAME_MAP:
		s->name_map = arg;
		return 0;
	case CLI_KEY_LIVE:
		s->live = true;
		return 0;
	case 'C':
		s->live_ca = arg;
		return 0;
	case 'P':
		if (cli_uint(s->cmd, "--Port", arg, 254, &v))
			return -1;
		s->live_port = (int)v;
		return 0;
	case CLI_KEY_LIVE_SL:
		if (!strcmp(arg, "auto"))
			s->live_sl = CLI_LIVE_SL_AUTO;
		else if (!strcmp(arg, "all"))
			s->live_sl = CLI_LIVE_SL_ALL;
		else if (!strcmp(arg, "none"))
			s->live_sl = CLI_LIVE_SL_NONE;
		else {
			cli_usage_error(
				s->cmd,
				"--live-sl: auto, all or none, not '%s'", arg);
			return -1;
		}
		s->live_sl_given = true;
		return 0;
	case CLI_KEY_LMC:
		if (cli_uint(s->cmd, "--lmc", arg, CR_MAX_LMC, &v))
			return -1;
		s->lmc = (int)v;
		return 0;
	case CLI_KEY_SM_PORT: {
		char *e;

		errno = 0;
		s->sm_port = isxdigit((unsigned char)*arg)
				     ? strtoull(arg, &e, 16)
				     : 0;
		if (!s->sm_port || errno || *e) {
			cli_usage_error(s->cmd, "--sm-port: '%s' is not a GUID",
					arg);
			return -1;
		}
		return 0;
	}
	}
	return 1;
}

/* Which engine routes, and how cr-auto and the improvement pass choose. */
static int engine_opt(struct cli_setup *s, int key, const char *arg)
{
	unsigned long v;

	switch (key) {
	case 'e':
		if (!cr_engine_find_any(arg)) {
			char known[128];

			cli_usage_error(
				s->cmd, "unknown engine '%s' (known: %s)", arg,
				cli_engine_names(known, sizeof(known), ""));
			return -1;
		}
		s->engine = arg;
		return 0;
	case 'R':
		return cli_engine_list(s, arg);
	case CLI_KEY_BALANCE:
		if (strcmp(arg, "global") && strcmp(arg, "local") &&
		    strcmp(arg, "first")) {
			cli_usage_error(s->cmd,
					"--balance: '%s' is not local, global"
					" or first",
					arg);
			return -1;
		}
		s->opts.balance_global = !strcmp(arg, "global");
		s->opts.balance_first = !strcmp(arg, "first");
		return 0;
	case CLI_KEY_AUTO_CANDIDATES:
		if (cr_auto_candidates_check(arg, "--auto-candidates"))
			return -1;
		s->auto_conf.candidates = arg;
		return 0;
	case CLI_KEY_AUTO_OBJECTIVE: {
		struct cr_objective obj;

		if (cr_objective_parse(arg, "--auto-objective", &obj))
			return -1;
		cr_objective_release(&obj);
		s->auto_conf.objective = arg;
		return 0;
	}
	case CLI_KEY_AUTO_HOSTS: {
		FILE *fp = fopen(arg, "r");

		if (!fp) {
			cli_usage_error(s->cmd,
					"--auto-hosts: cannot read %s: %s", arg,
					strerror(errno));
			return -1;
		}
		fclose(fp);
		s->auto_conf.hosts = arg;
		return 0;
	}
	case CLI_KEY_AUTO_BUDGET: {
		char *end;
		double b = strtod(arg, &end);

		if (end == arg || *end || !(b > 0) || b > 1e6) {
			cli_usage_error(s->cmd,
					"--auto-budget: '%s' is not a number"
					" of seconds above 0",
					arg);
			return -1;
		}
		s->auto_conf.budget = b;
		return 0;
	}
	case CLI_KEY_AUTO_MAX_VLS: {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);

		if (end == arg || *end || *arg == '-' || n > 15) {
			cli_usage_error(s->cmd,
					"--auto-max-vls: '%s' is not a number"
					" of VLs from 0 to 15",
					arg);
			return -1;
		}
		s->auto_conf.max_vls = (unsigned)n;
		return 0;
	}
	case CLI_KEY_QOS:
		s->auto_conf.qos = true;
		return 0;
	case CLI_KEY_ALLOW_CREDIT_LOOPS:
		s->auto_conf.allow_credit_loops = true;
		return 0;
	case CLI_KEY_OPTIMIZE:
		s->optimize = true;
		return 0;
	case CLI_KEY_NO_AUTO_OPTIMIZE:
		s->no_auto_optimize = true;
		return 0;
	case CLI_KEY_OPTIMIZE_BUDGET: {
		char *end;
		double b = strtod(arg, &end);

		if (end == arg || *end || !(b > 0) || b > 1e6) {
			cli_usage_error(s->cmd,
					"--optimize-budget: '%s' is not a"
					" number of seconds above 0",
					arg);
			return -1;
		}
		s->opt_params.budget = b;
		return 0;
	}
	case CLI_KEY_OPTIMIZE_EXTRA_HOPS:
		if (cli_uint(s->cmd, "--optimize-extra-hops", arg, 16, &v))
			return -1;
		s->opt_params.max_extra_hops = (unsigned)v;
		return 0;
	}
	return 1;
}

/* The port-choice toggles and engine parameters every engine shares. */
static int toggle_opt(struct cli_setup *s, int key, const char *arg)
{
	unsigned long v;

	switch (key) {
	case CLI_KEY_PORT_SHIFTING:
		s->opts.port_shifting = true;
		return 0;
	case CLI_KEY_REMOTE_GUID_SORTING:
		s->opts.remote_guid_sorting = true;
		return 0;
	case CLI_KEY_SCATTER_PORTS:
		if (cli_uint(s->cmd, "--scatter-ports", arg, UINT32_MAX, &v))
			return -1;
		s->opts.scatter_ports = (uint32_t)v;
		return 0;
	case CLI_KEY_ROOT_GUIDS:
		s->root_guids = arg;
		return 0;
	case CLI_KEY_CN_GUIDS:
		s->cn_guids = arg;
		return 0;
	case CLI_KEY_IO_GUIDS:
		s->io_guids = arg;
		return 0;
	case CLI_KEY_GUID_ORDER:
		s->guid_order = arg;
		return 0;
	case CLI_KEY_PORT_ORDER:
		s->port_order = arg;
		return 0;
	case CLI_KEY_LASH_START_VL:
		if (cli_uint(s->cmd, "--lash-start-vl", arg, 14, &v))
			return -1;
		s->opts.lash_start_vl = (uint8_t)v;
		return 0;
	case CLI_KEY_LASH_BALANCE:
		s->opts.lash_balance = true;
		return 0;
	case CLI_KEY_THREADS:
		if (cli_uint(s->cmd, "--threads", arg, CR_MAX_THREADS, &v))
			return -1;
		cr_threads_set((unsigned)v);
		return 0;
	}
	return 1;
}

int cli_setup_opt(struct cli_setup *s, int key, const char *arg)
{
	int ret;

	if (key >= CLI_KEY_LONG && key < CLI_KEY_CONFIG_END)
		s->given[key - CLI_KEY_LONG] = true;
	ret = input_opt(s, key, arg);
	if (ret <= 0)
		return ret;
	ret = engine_opt(s, key, arg);
	if (ret <= 0)
		return ret;
	return toggle_opt(s, key, arg);
}
