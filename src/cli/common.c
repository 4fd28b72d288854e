// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What every croute command shares: option parsing and help generated
 * from one table per option group, the topology/LID loading rules, the
 * engine and its options, and output files that appear only when whole.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/clock.h>
#include <croute/engine.h>
#include <croute/json.h>
#include <croute/lash.h>
#include <croute/log.h>
#include <croute/osm_conf.h>
#include <croute/parallel.h>
#include <croute/topo.h>
#include <croute/ibdm.h>

#include <croute/conf.h>
#include <croute/conf_check.h>

#include "cli.h"

static const struct cli_opt common_opts[] = {
	{"verbose", 'v', NULL, "what each step did, on stderr (twice: debug)"},
	{"quiet", 'q', NULL, "only errors on stderr"},
	{"help", 'h', NULL, "show this help"},
	CLI_OPT_END,
};

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

const char cli_live_lfts[] = "the switches";

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

int cli_verbosity = CR_LOG_NOTE;

double cli_now(void)
{
	return cr_now();
}

uint32_t cli_count_lids(const struct cr_fabric *f)
{
	uint32_t n = 0;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		n += f->lid_node[lid] != CR_NO_NODE;
	return n;
}

void cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "croute %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'croute help %s'.\n", cmd->name);
}

int cli_uint(const struct cli_cmd *cmd, const char *what, const char *arg,
	     unsigned long max, unsigned long *out)
{
	unsigned long long v;
	char *e;

	errno = 0;
	v = isdigit((unsigned char)*arg) ? strtoull(arg, &e, 0) : 0;
	if (!isdigit((unsigned char)*arg) || errno || *e || v > max) {
		cli_usage_error(cmd, "%s: '%s' is not a number from 0 to %lu",
				what, arg, max);
		return -1;
	}
	*out = (unsigned long)v;
	return 0;
}

static void help_table(const struct cli_opt *o, FILE *out)
{
	for (; o->name; o++) {
		char left[64];
		int n;

		n = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s",
			     o->key < CLI_KEY_LONG ? '-' : ' ',
			     o->key < CLI_KEY_LONG ? o->key : ' ',
			     o->key < CLI_KEY_LONG ? ", " : "  ", o->name,
			     o->arg ? " " : "", o->arg ? o->arg : "");
		if (n < 30)
			fprintf(out, "%-30s%s\n", left, o->help);
		else
			fprintf(out, "%s\n%30s%s\n", left, "", o->help);
	}
}

int cli_parse_options(const struct cli_cmd *cmd, int argc, char **argv,
		      int (*handle)(void *ctx, int key, const char *arg),
		      void *ctx)
{
	int first = cli_parse(cmd, argc, argv, handle, ctx);

	if (first < 0)
		return first == -2 ? CLI_OK : CLI_BAD;
	if (first < argc) {
		cli_usage_error(cmd, "unexpected argument '%s'", argv[first]);
		return CLI_BAD;
	}
	return CLI_GO;
}

void cli_help(const struct cli_cmd *cmd, FILE *out)
{
	fprintf(out, "Usage: croute %s %s\n\n%s\n", cmd->name, cmd->synopsis,
		cmd->summary);
	if (cmd->details)
		fprintf(out, "\n%s", cmd->details);
	fputs("\nOptions:\n", out);
	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		help_table(cmd->opts[i], out);
	help_table(common_opts, out);
}

static size_t count_opts(const struct cli_opt *o)
{
	size_t n = 0;

	while (o[n].name)
		n++;
	return n;
}

static int add_opts(const struct cli_opt *o, struct option *lo, size_t *nlo,
		    char *so, size_t *nso)
{
	for (; o->name; o++) {
		lo[*nlo] = (struct option){
			o->name, o->arg ? required_argument : no_argument, NULL,
			o->key};
		(*nlo)++;
		if (o->key < CLI_KEY_LONG) {
			so[(*nso)++] = (char)o->key;
			if (o->arg)
				so[(*nso)++] = ':';
		}
	}
	return 0;
}

static const struct cli_opt *find_opt(const struct cli_cmd *cmd, int key)
{
	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		for (const struct cli_opt *o = cmd->opts[i]; o->name; o++)
			if (o->key == key)
				return o;
	return NULL;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv,
	      int (*handle)(void *ctx, int key, const char *arg), void *ctx)
{
	size_t total = count_opts(common_opts), nlo = 0, nso = 0;
	int verbosity = CR_LOG_NOTE, ret = -1, c;
	struct option *lo;
	char *so;

	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		total += count_opts(cmd->opts[i]);
	lo = calloc(total + 1, sizeof(*lo));
	so = calloc(3 * total + 2, 1);
	if (!lo || !so) {
		fprintf(stderr, "croute: out of memory\n");
		goto out;
	}
	so[nso++] = ':'; /* missing arguments reported here */
	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		add_opts(cmd->opts[i], lo, &nlo, so, &nso);
	add_opts(common_opts, lo, &nlo, so, &nso);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const char *bad = optopt >= CLI_KEY_LONG || !optopt
					  ? argv[optind - 1]
					  : NULL;

		switch (c) {
		case 'h':
			cli_help(cmd, stdout);
			ret = -2;
			goto out;
		case 'v':
			/* -v: info and verbose (what each step did), -vv: debug */
			verbosity = verbosity < CR_LOG_VERBOSE ? CR_LOG_VERBOSE
							       : CR_LOG_DEBUG;
			break;
		case 'q':
			verbosity = CR_LOG_WARN;
			break;
		case '?':
			if (bad)
				cli_usage_error(cmd, "unknown option '%s'",
						bad);
			else
				cli_usage_error(cmd, "unknown option '-%c'",
						optopt);
			goto out;
		case ':':
			if (bad)
				cli_usage_error(cmd, "'%s' needs an argument",
						bad);
			else
				cli_usage_error(cmd, "'-%c' needs an argument",
						optopt);
			goto out;
		default:
			if (!find_opt(cmd, c) || handle(ctx, c, optarg))
				goto out;
		}
	}
	cli_verbosity = verbosity;
	cr_log_set(NULL, NULL, (enum cr_log_level)verbosity);
	ret = optind;
out:
	free(lo);
	free(so);
	return ret;
}

void cli_setup_init(struct cli_setup *s, const struct cli_cmd *cmd)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->lmc = -1;
	s->give_up = CLI_GIVE_UP_S;
	cr_options_init(&s->opts);
	cr_opt_params_init(&s->opt_params);
}

void cli_setup_release(struct cli_setup *s)
{
	free(s->dump_topo);
	free(s->dump_lfts);
	free(s->dump_sl);
	free(s->conf_engine);
	free(s->engine_pick);
	free(s->conf_auto_candidates);
	free(s->conf_auto_objective);
	free(s->conf_auto_hosts);
	for (unsigned i = 0; i < 5; i++)
		free(s->conf_files[i]);
	cr_routing_free(s->live_routing);
	cr_options_release(&s->opts);
	cr_byproducts_release(&s->by);
}

/* DIR/NAME, malloc'ed; NULL when out of memory (reported). */
static char *dir_file(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (!p)
		cr_err("out of memory");
	else
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static bool readable(const char *path)
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
	s->dump_topo = dir_file(s->dump_dir, "opensm-subnet.lst");
	if (!s->dump_topo)
		return -1;
	if (!readable(s->dump_topo)) {
		cr_err("%s: %s (OpenSM writes it at every sweep)", s->dump_topo,
		       strerror(errno));
		return -1;
	}
	for (unsigned i = 0; i < 2 && !s->dump_lfts; i++) {
		s->dump_lfts = dir_file(s->dump_dir, lfts[i]);
		if (!s->dump_lfts)
			return -1;
		if (!readable(s->dump_lfts)) {
			free(s->dump_lfts);
			s->dump_lfts = NULL;
		}
	}
	s->dump_sl = dir_file(s->dump_dir, "croute-lash-sl.dump");
	if (!s->dump_sl)
		return -1;
	if (!readable(s->dump_sl)) {
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
static int apply_config(struct cli_setup *s)
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
	if (err || cr_conf_check(&c.cr)) {
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

struct cr_fabric *cli_load(struct cli_setup *s)
{
	struct cr_fabric *f;
	int err = 0;

	if (apply_config(s))
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
		err = cr_fabric_assign_lids(f, s->lmc >= 0	  ? s->lmc
					       : s->conf_lmc >= 0 ? s->conf_lmc
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

/* OpenSM's GUID files: one GUID a line; '#' starts a comment. */
/* One of the engine's input files; NULL: not given. */
static int read_input(const char *path, const char *what,
		      const struct cr_fabric *f, struct cr_guid_list *l,
		      struct cr_options *o)
{
	FILE *in;
	int err;

	if (!path)
		return 0;
	in = cr_file_open_read(path);
	if (!in)
		return -1;
	err = l ? cr_guid_file_parse_in(in, path, what, f, l)
		: cr_port_order_parse_in(in, path, what, f, o);
	fclose(in);
	return err;
}

struct cr_routing *cli_routing(struct cli_setup *s, const struct cr_fabric *f,
			       const char *lfts,
			       const struct cr_engine **engine, double *seconds)
{
	struct cr_routing *r;

	*engine = NULL;
	*seconds = 0;
	if (!lfts)
		return cli_route(s, f, engine, seconds);
	cr_byproducts_release(&s->by);
	if (lfts == cli_live_lfts) {
		r = s->live_routing;
		s->live_routing = NULL;
		s->lfts_format = "libibmad";
		if (!r)
			cr_err("--live: no LFTs were read");
		return r;
	}
	r = cr_routing_new(f);
	if (r && cr_lft_read_format(lfts, f, r, &s->lfts_format)) {
		cr_routing_free(r);
		return NULL;
	}
	/* Layers given with the LFTs (check --sl, --sl2vl). */
	if (r && s->sl && cr_lash_read(s->sl, s->sl2vl, f, r)) {
		cr_routing_free(r);
		return NULL;
	}
	/* The dump directory of a cr-lash run: its layers too. */
	if (r && !s->sl && s->dump_sl && lfts == s->dump_lfts) {
		char *sl2vl = dir_file(s->dump_dir, "croute-lash-sl2vl.dump");

		if (!sl2vl ||
		    cr_lash_read(s->dump_sl, readable(sl2vl) ? sl2vl : NULL, f,
				 r)) {
			cr_routing_free(r);
			r = NULL;
		}
		free(sl2vl);
	}
	return r;
}

struct cr_routing *cli_route(struct cli_setup *s, const struct cr_fabric *f,
			     const struct cr_engine **engine, double *seconds)
{
	const char *name = s->engine	    ? s->engine
			   : s->conf_engine ? s->conf_engine
					    : "minhop";
	const struct cr_engine *e = cr_engine_find_any(name);
	struct cr_routing *r;
	double t0;

	/* In opensm.conf, "updn" is OpenSM's own updn, not cr-updn. */
	if (!s->engine && s->conf_engine && strncmp(name, "cr-", 3))
		e = NULL;
	if (!e) {
		cr_err("%s: routing_engine %s is not one of croute's engines"
		       " (give --engine)",
		       s->config, name);
		return NULL;
	}

	/* Routed again (croute compare): the files are read afresh. */
	cr_guid_list_release(&s->opts.root_guids);
	cr_guid_list_release(&s->opts.cn_guids);
	cr_guid_list_release(&s->opts.io_guids);
	cr_guid_list_release(&s->opts.guid_order);
	free(s->opts.port_orders);
	s->opts.port_orders = NULL;
	s->opts.num_port_orders = 0;
	if (read_input(s->root_guids, "--root-guids", f, &s->opts.root_guids,
		       NULL) ||
	    read_input(s->cn_guids, "--cn-guids", f, &s->opts.cn_guids, NULL) ||
	    read_input(s->io_guids, "--io-guids", f, &s->opts.io_guids, NULL) ||
	    read_input(s->guid_order, "--guid-order", f, &s->opts.guid_order,
		       NULL) ||
	    read_input(s->port_order, "--port-order", f, NULL, &s->opts))
		return NULL;
	cr_auto_conf_use(&s->opts, &s->auto_conf);
	/* cr-auto runs the pass on its winner, before installing it */
	s->auto_conf.improve =
		s->optimize || !s->no_auto_optimize ? cr_optimize_hook : NULL;
	s->auto_conf.improve_arg = &s->opt_params;
	/* Without --optimize, the pass takes the rest of cr-auto's budget. */
	s->auto_conf.improve_rest = !s->optimize && !s->no_auto_optimize;
	/* As on the plugin's thread: a deadline replaces the pass's guard. */
	if (s->give_up > 0) {
		s->stop.deadline = cr_now() + s->give_up;
		s->opts.stop = &s->stop;
		s->opt_params.stop = &s->stop;
	}
	r = cr_routing_new(f);
	if (!r)
		return NULL;
	t0 = cli_now();
	s->refused = false;
	if (cr_route_by(e, f, &s->opts, r, &s->by)) {
		cr_err("cr-%s cannot route %s", e->name, s->topo);
		s->refused = true;
		cr_routing_free(r);
		return NULL;
	}
	*seconds = cli_now() - t0;
	if (s->optimize && e != &cr_auto_engine) {
		struct cr_objective obj;
		int bad;

		if (cr_objective_parse(s->auto_conf.objective,
				       "--auto-objective", &obj)) {
			cr_routing_free(r);
			return NULL;
		}
		obj.max_flows = CR_AUTO_MAX_FLOWS;
		obj.hosts_file = s->auto_conf.hosts;
		bad = cr_optimize(f, e, &obj, &s->opt_params, r, &s->by, NULL);
		cr_objective_release(&obj);
		/* a pass that gave up (logged) leaves the tables as routed */
		if (bad == -1) {
			cr_routing_free(r);
			return NULL;
		}
		*seconds = cli_now() - t0;
	}
	*engine = e;
	return r;
}

void cli_json_str(FILE *out, const char *s)
{
	cr_json_str(out, s);
}

int cli_report_written(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		cr_err("cannot write the report: %s", strerror(errno));
		return CLI_BAD;
	}
	return ret;
}

void cli_json_warnings(FILE *out)
{
	const char *w;

	fputs(", \"warnings\": [", out);
	for (unsigned i = 0; (w = cr_log_warning(i)); i++) {
		if (i)
			fputs(", ", out);
		cli_json_str(out, w);
	}
	fputc(']', out);
}

void cli_json_on(bool *json)
{
	*json = true;
	cr_log_keep_warnings(true);
}

void cli_json_begin(FILE *out, const char *command)
{
	fprintf(out, "{\"schema\": \"%s\", \"version\": %d, \"command\": ",
		CLI_JSON_SCHEMA, CLI_JSON_VERSION);
	cli_json_str(out, command);
	fputs(", ", out);
}

FILE *cli_out_open(const char *path, char **tmp)
{
	*tmp = NULL;
	if (!path || !strcmp(path, "-"))
		return stdout;
	return cr_file_create(path, tmp);
}

int cli_out_close(FILE *out, char *tmp, const char *path, bool ok)
{
	if (!tmp) {
		if (fflush(out) || ferror(out)) {
			cr_err("cannot write the output: %s", strerror(errno));
			return -1;
		}
		return ok ? 0 : -1;
	}
	if (!ok) {
		cr_file_abort(out, tmp);
		return -1;
	}
	return cr_file_commit(out, tmp, path);
}

bool cli_load_routed(struct cli_setup *s, const char *lfts,
		     struct cr_fabric **f, struct cr_routing **r,
		     const struct cr_engine **engine, double *seconds,
		     int *status)
{
	*r = NULL;
	*f = cli_load(s);
	if (!*f) {
		*status = CLI_BAD;
		return false;
	}
	*r = cli_routing(s, *f, lfts, engine, seconds);
	if (!*r) {
		*status = s->refused ? CLI_PROBLEMS : CLI_BAD;
		return false;
	}
	return true;
}
