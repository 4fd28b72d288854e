// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute hosts: the host order in which a routing is congestion free for
 * shift, as an MPI hostfile (one host name a line), for rank placement.
 * cr-ftree gives its CA order; other engines get the order they route
 * destinations in, which their port choice spreads, unless the default
 * order scores better (include/croute/estimate/host_order.h).
 * --score checks the result with the estimator instead of trusting it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/model/hosts.h>
#include <croute/model/log.h>
#include <croute/io/sched.h>
#include <croute/io/topo.h>
#include <croute/estimate/host_order.h>

#include "cli.h"

enum {
	KEY_ORDER = CLI_KEY_CMD,
	KEY_LFTS,
	KEY_SCORE,
	KEY_RAIL,
};

static const struct cli_opt hosts_opts[] = {
	{"order", KEY_ORDER, "ENGINE", "alias of --engine"},
	{"lfts", KEY_LFTS, "FILE", "or for these LFTs (leaf order)"},
	{"output", 'o', "FILE",
	 "write the host file to FILE (default: stdout)"},
	{"score", KEY_SCORE, NULL,
	 "estimate shift over the order (stderr); exit 1 if not 1.0"},
	{"rail", KEY_RAIL, NULL,
	 "the rail order instead: rank = server x rails + rail"},
	CLI_OPT_END,
};

static const struct cli_opt *const hosts_tables[] = {
	hosts_opts,
	cli_topo_opts,
	cli_engine_opts,
	NULL,
};

struct hosts_ctx {
	struct cli_setup setup;
	const char *output, *lfts;
	bool score, rail;
	/* --order and --engine (or -R) both name the engine: they must agree */
	const struct cr_engine *order, *engine;
	const char *order_name, *engine_name;
};

static int hosts_opt(void *arg, int key, const char *val)
{
	struct hosts_ctx *c = arg;
	bool order = key == KEY_ORDER;
	int ret;

	if (order)
		key = 'e';
	ret = cli_setup_opt(&c->setup, key, val);
	if (ret < 0)
		return ret;
	if (order) {
		c->order = cr_engine_find_any(val);
		c->order_name = val;
	} else if (key == 'e' || key == 'R') {
		c->engine = cr_engine_find_any(c->setup.engine);
		c->engine_name = val;
	}
	if (c->order && c->engine && c->order != c->engine) {
		cli_usage_error(c->setup.cmd,
				"--order %s and --engine %s name different"
				" engines: give one",
				c->order_name, c->engine_name);
		return -1;
	}
	if (!ret)
		return 0;
	switch (key) {
	case KEY_LFTS:
		c->lfts = val;
		break;
	case KEY_SCORE:
		c->score = true;
		break;
	case KEY_RAIL:
		c->rail = true;
		break;
	default:
		c->output = val; /* 'o', the only one left */
	}
	return 0;
}

/* 0: congestion free (min 1.0), 1: not, -1: error (reported). */
static int score(const struct cr_fabric *f, const struct cr_routing *r,
		 const struct cr_hosts *h)
{
	struct cr_est_result *res = cr_shift_score(f, r, h);
	int ret;

	if (!res)
		return -1;
	fprintf(stderr,
		"croute hosts: %s over this order (%u hosts): avg %.4f"
		" min %.4f of injection, %" PRIu64 " flows without path\n",
		res->name, res->hosts, res->avg_frac, res->min_frac,
		res->unrouted);
	ret = res->min_frac >= 1 - 1e-9 && !res->unrouted ? 0 : 1;
	cr_est_result_free(res);
	return ret;
}

/* Shift avg over h, or -1 (reported). */
static double shift_avg(const struct cr_fabric *f, const struct cr_routing *r,
			const struct cr_hosts *h)
{
	struct cr_est_result *res = h ? cr_shift_score(f, r, h) : NULL;
	double avg = res ? res->avg_frac : -1;

	cr_est_result_free(res);
	return avg;
}

/*
 * cr-auto tunes for one order: croute_auto_hosts (--auto-hosts) when
 * given, else the default order. That is the order it vouches for, and
 * the one exported, unless it scores below the default order on the
 * routing (never export worse than the default), or the leaf order
 * scores better than both. *h and *how are replaced when the leaf order
 * loses.
 */
static int auto_order(const struct cr_fabric *f, const struct cr_routing *r,
		      const char *tuned_file, struct cr_hosts **h,
		      const char **how)
{
	struct cr_hosts *d = cr_hosts_default(f);
	struct cr_hosts *t =
		d && tuned_file ? cr_hosts_read(f, tuned_file) : NULL;
	double sd = shift_avg(f, r, d), st = t ? shift_avg(f, r, t) : -1;
	double sl = sd >= 0 ? shift_avg(f, r, *h) : -1;
	struct cr_hosts *best = d;
	double sb = sd;
	char tuned[80] = "";

	if (sd < 0 || sl < 0 || (tuned_file && st < 0)) {
		cr_hosts_free(d);
		cr_hosts_free(t);
		return -1;
	}
	*how = "the default order (node descriptions, natural sort),"
	       " which cr-auto tuned on";
	if (t && st >= sd - 1e-9) {
		best = t;
		sb = st;
		*how = "the order of croute_auto_hosts, which cr-auto tuned"
		       " for";
	}
	if (t)
		snprintf(tuned, sizeof(tuned),
			 " %.4f over the order of croute_auto_hosts,", st);
	cr_note("cr-auto: shift avg %.4f over the default order (node"
		" descriptions),%s %.4f over the leaf order: exporting %s",
		sd, tuned, sl,
		sl > sb + 1e-9 ? "the leaf order, which scores best"
		: best == t    ? "the order of croute_auto_hosts"
			       : "the default order");
	if (sl > sb + 1e-9) {
		*how = "the leaf order, which scores better for cr-auto's"
		       " routing than the order it tuned for";
		best = NULL; /* *h stays */
	} else {
		cr_hosts_free(*h);
		*h = best;
	}
	if (d != best)
		cr_hosts_free(d);
	if (t != best)
		cr_hosts_free(t);
	return 0;
}

static int hosts_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct hosts_ctx c = {0};
	struct cr_fabric *f = NULL;
	struct cr_routing *r = NULL;
	struct cr_hosts *h = NULL;
	struct cr_names *nm = NULL;
	const struct cr_engine *e;
	const char *how;
	char comment[512], howbuf[256];
	FILE *out;
	char *tmp;
	double secs;
	long n;
	int ret;

	cli_setup_init(&c.setup, cmd);
	ret = cli_parse_options(cmd, argc, argv, hosts_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	if (c.lfts && c.setup.engine) {
		cli_usage_error(cmd,
				"give either --engine NAME or --lfts FILE");
		goto out;
	}
	/* --dump-dir, --live: the tables in place, as check and estimate */
	c.lfts = cli_installed_lfts(&c.setup, c.lfts);
	if (!c.lfts && !c.setup.engine) {
		if (!c.setup.dump_dir)
			cli_usage_error(cmd, "give --engine NAME, --lfts FILE"
					     " or --dump-dir DIR");
		goto out;
	}
	if (!cli_load_routed(&c.setup, c.lfts, &f, &r, &e, &secs, &ret))
		goto out;
	how = howbuf;
	if (e && !c.rail && !strcmp(e->name, "auto")) {
		h = cr_hosts_shift_order(f, &c.setup.by, &how);
		if (h && auto_order(f, r, c.setup.auto_conf.hosts, &h, &how))
			goto out;
	} else {
		h = cr_hosts_shift_export(f, r, e ? &c.setup.opts : NULL,
					  &c.setup.by, howbuf, sizeof(howbuf));
	}
	if (h && c.rail) {
		struct cr_hosts *rail = cr_hosts_rail(f, h);

		cr_hosts_free(h);
		h = rail;
		how = "the rail order: rank = server x rails + rail (servers"
		      " by system image GUID, rails by HCA)";
	}
	nm = cr_names_new(f, NULL);
	if (!h || !nm || cli_names_usable(&c.setup, f, nm, h, "hostfile"))
		goto out;
	if (e)
		snprintf(comment, sizeof(comment),
			 "croute hosts: %s, routed by cr-%s; %s", c.setup.topo,
			 e->name, how);
	else
		snprintf(comment, sizeof(comment),
			 "croute hosts: %s, LFTs from %s; %s", c.setup.topo,
			 c.lfts, how);
	out = cli_out_open(c.output, &tmp);
	if (!out)
		goto out;
	n = cr_hostfile_write(out, nm, h, comment);
	if (cli_out_close(out, tmp, c.output, n >= 0))
		goto out;
	ret = CLI_OK;
	if (cli_verbosity >= CR_LOG_VERBOSE)
		fprintf(stderr, "croute hosts: %ld hosts, %s\n", n, how);
	if (c.score) {
		int s = score(f, r, h);

		ret = s < 0 ? CLI_BAD : s ? CLI_PROBLEMS : CLI_OK;
	}
out:
	cr_names_free(nm);
	cr_hosts_free(h);
	cr_routing_free(r);
	cr_fabric_free(f);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_hosts = {
	.name = "hosts",
	.synopsis = "(--topo FILE (--engine NAME | --lfts FILE) | --dump-dir"
		    " DIR) [options]",
	.summary = "Write the host order that is congestion free for shift,"
		   " as an MPI hostfile.",
	.details =
		"One host name a line, each host once, in the order in which"
		" MPI ranks should\nbe placed: cr-ftree's CA order for ftree,"
		" else the order the engine routes\ndestinations in (leaf"
		" switch by leaf switch, hosts in port order), unless\nshift"
		" scores better over the default order (node descriptions):"
		" then that one,\nwith a note. On a full fat tree shift is"
		" congestion free in the exported order\nwith ftree, minhop"
		" and updn, and with lash when --port-shifting is given\n"
		"(croute(1)); --score checks it with the estimator. Host names"
		" come from node\ndescriptions (first word). With --engine"
		" auto: the node-description order\ncr-auto tuned on, unless"
		" shift scores better over the leaf order (both scores\nat info"
		" level). --order ENGINE is an alias of --engine.\n",
	.opts = hosts_tables,
	.run = hosts_run,
};
