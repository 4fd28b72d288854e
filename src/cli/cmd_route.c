// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute route: routes a topology offline, writes opensm-lfts.dump and,
 * for lash, the path-SL and SL2VL files the plugin dumps.
 */
#include <sys/resource.h>

#include <croute/lash.h>
#include <croute/log.h>
#include <croute/topo.h>

#include "cli.h"

enum {
	KEY_LASH_SL = CLI_KEY_CMD,
	KEY_LASH_SL2VL,
};

static const struct cli_opt route_opts[] = {
	{"output", 'o', "FILE", "write the LFTs to FILE (default: stdout)"},
	{"lash-sl", KEY_LASH_SL, "FILE",
	 "lash: write the path SLs (ibdmchk -c)"},
	{"lash-sl2vl", KEY_LASH_SL2VL, "FILE",
	 "lash: write the SL2VL tables (ibdmchk -d)"},
	CLI_OPT_END,
};

static const struct cli_opt *const route_tables[] = {
	cli_topo_opts,
	cli_engine_opts,
	route_opts,
	NULL,
};

struct route_ctx {
	struct cli_setup setup;
	const char *output;
	const char *lash_sl, *lash_sl2vl;
};

static int route_opt(void *arg, int key, const char *val)
{
	struct route_ctx *c = arg;
	int ret = cli_setup_opt(&c->setup, key, val);

	if (ret <= 0)
		return ret;
	switch (key) {
	case KEY_LASH_SL:
		c->lash_sl = val;
		break;
	case KEY_LASH_SL2VL:
		c->lash_sl2vl = val;
		break;
	default:
		c->output = val; /* 'o', the only one left */
	}
	return 0;
}

typedef int (*lash_writer)(FILE *out, const struct cr_fabric *f,
			   const struct cr_routing *r);

/* One of the layer files, whole or not at all; 0 or -1 (reported). */
static int write_lash_file(const char *path, lash_writer fn,
			   const struct cr_fabric *f,
			   const struct cr_routing *r)
{
	char *tmp;
	FILE *out;

	if (!path)
		return 0;
	out = cli_out_open(path, &tmp);
	if (!out)
		return -1;
	return cli_out_close(out, tmp, path, !fn(out, f, r));
}

static int route_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct route_ctx c = {0};
	struct cr_fabric *f = NULL;
	struct cr_routing *r = NULL;
	const struct cr_engine *e;
	FILE *out = NULL;
	char *tmp;
	double secs;
	int ret = CLI_BAD;

	cli_setup_init(&c.setup, cmd);
	ret = cli_parse_options(cmd, argc, argv, route_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	/* Only a layered engine has SLs to write: say so before routing. */
	e = cr_engine_find_any(c.setup.engine ? c.setup.engine : "minhop");
	if ((c.lash_sl || c.lash_sl2vl) && !e->layered &&
	    e != &cr_auto_engine) {
		cli_usage_error(cmd,
				"--lash-sl and --lash-sl2vl need a layered"
				" engine (--engine lash), not '%s'",
				c.setup.engine ? c.setup.engine : "minhop");
		goto out;
	}
	f = cli_load(&c.setup);
	if (!f)
		goto out;
	r = cli_route(&c.setup, f, &e, &secs);
	if (!r) {
		/* An engine's refusal is a finding about the fabric. */
		if (c.setup.refused)
			ret = CLI_PROBLEMS;
		goto out;
	}
	/* cr-auto: the layer files only when a layered candidate won. */
	if ((c.lash_sl || c.lash_sl2vl) && !r->sl) {
		cr_err("cr-auto chose an engine without layers: no --lash-sl or"
		       " --lash-sl2vl file written");
		c.lash_sl = c.lash_sl2vl = NULL;
	}
	out = cli_out_open(c.output, &tmp);
	if (!out)
		goto out;
	if (cli_out_close(out, tmp, c.output, !cr_lft_write_dump(out, f, r)))
		goto out;
	if (write_lash_file(c.lash_sl, cr_lash_write_psl, f, r) ||
	    write_lash_file(c.lash_sl2vl, cr_lash_write_sl2vl, f, r))
		goto out;
	if (cli_verbosity >= CR_LOG_INFO) {
		struct rusage ru;

		/* Peak memory: what sizing a large fabric's SM host needs. */
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr,
			"croute route: cr-%s routed %u switches, %u LIDs"
			" (max LID %u) in %.3f s, peak memory %ld MB\n",
			e->name, f->num_switches, cli_count_lids(f), f->max_lid,
			secs, ru.ru_maxrss / 1024);
	}
	ret = CLI_OK;
out:
	cr_routing_free(r);
	cr_fabric_free(f);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_route = {
	.name = "route",
	.synopsis = "--topo FILE [--engine NAME] [options]",
	.summary =
		"Route a topology offline; write its LFTs as opensm-lfts.dump.",
	.details = "LIDs come from --lids, else are assigned with --lmc, else"
		   " are the topology's,\nelse are assigned with LMC 0 in node"
		   " order. A one-line summary with the\nrouting time goes to"
		   " stderr. With lash, --lash-sl and --lash-sl2vl write the\n"
		   "files ibdmchk -c and -d read, as the plugin dumps them.\n",
	.opts = route_tables,
	.run = route_run,
};
