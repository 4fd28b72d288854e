// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute estimate: the bandwidth traffic patterns get on a routing, by the
 * InfiniBand penalty model. The routing comes from an engine or from LFTs
 * (opensm-lfts.dump of any engine, OpenSM's own included, or ibroute
 * output), so that OpenSM's routings are scored the same way as croute's.
 * The text report per pattern is the one the plugin writes to
 * croute-contention.dump, so the two compare line by line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/report/est_html.h>
#include <croute/estimate/est_report.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "bound_cli.h"
#include "est_cli.h"
#include "progress.h"

enum {
	KEY_LFTS = CLI_KEY_CMD,
	KEY_JSON,
	KEY_GBPS,
	KEY_HTML,
	KEY_MATRIX,
	KEY_BOUND,
	KEY_TIMES,
};

static const struct cli_opt estimate_opts[] = {
	{"lfts", KEY_LFTS, "FILE", "LFTs to score (opensm-lfts.dump, ibroute)"},
	{"json", KEY_JSON, NULL, "write the results as JSON"},
	{"matrix", KEY_MATRIX, NULL, "JSON: include shift's matrix"},
	{"gbps", KEY_GBPS, NULL, "summary in Gb/s, not fractions of injection"},
	{"html", KEY_HTML, "FILE", "also write an HTML report with pictures"},
	{"bound", KEY_BOUND, NULL,
	 "also each score as a fraction of croute bound's"},
	{"output", 'o', "FILE", "write the report to FILE (default: stdout)"},
	{"times", KEY_TIMES, NULL, "text report: run times too (as -v)"},
	CLI_OPT_END,
};

static const struct cli_opt *const estimate_tables[] = {
	estimate_opts, cli_topo_opts,	cli_live_opts, est_cli_opts,
	est_more_opts, cli_engine_opts, NULL,
};

struct estimate_ctx {
	struct cli_setup setup;
	struct est_setup est;
	const char *lfts;
	const char *html, *output;
	bool json, gbps, matrix, bound, times;
	/* The run through cr_est_patterns(). */
	const struct cr_fabric *f;
	const struct cr_routing *r;
	struct cr_hosts *hosts;
	const char *how;
	struct cr_est_result **res;
	uint64_t unrouted;
	struct cli_progress *prog;
	int done;
};

static int estimate_opt(void *arg, int key, const char *val)
{
	struct estimate_ctx *c = arg;
	int ret = est_cli_opt(&c->setup, &c->est, key, val);

	if (ret <= 0)
		return ret;
	switch (key) {
	case KEY_LFTS:
		c->lfts = val;
		break;
	case KEY_JSON:
		cli_json_on(&c->json);
		break;
	case KEY_GBPS:
		c->gbps = true;
		break;
	case KEY_HTML:
		c->html = val;
		break;
	case KEY_MATRIX:
		c->matrix = true;
		break;
	case KEY_BOUND:
		c->bound = true;
		break;
	case KEY_TIMES:
		c->times = true;
		break;
	case 'o':
		c->output = val;
		break;
	}
	return 0;
}

static void print_summary(const struct estimate_ctx *c,
			  struct cr_est_result *const *res, int n)
{
	const char *unit = c->gbps ? "Gb/s" : "of injection";

	fprintf(cli_report, "%-16s %11s %10s %10s %10s %8s  (rates %s)\n",
		"pattern", "phases", "flows", "avg", "min", "no path", unit);
	for (int i = 0; i < n; i++) {
		const struct cr_est_result *r = res[i];
		char ph[24];

		snprintf(ph, sizeof(ph), "%u/%u", r->num_phases,
			 r->phases_total);
		fprintf(cli_report,
			"%-16s %11s %10" PRIu64 " %10.4f %10.4f %8" PRIu64 "\n",
			r->name, ph, r->flows,
			c->gbps ? r->avg_gbps : r->avg_frac,
			c->gbps ? r->min_gbps : r->min_frac, r->unrouted);
	}
	fprintf(cli_report, "\n");
}

/* Each pattern on the hosts' own order and on random orders. */
static void print_orders(const struct estimate_ctx *c,
			 struct cr_est_result *const *res, int n)
{
	fprintf(cli_report,
		"# on %lu random host orders (seed %llu): mean and worst of"
		" the per-flow average\n# and of the slowest flow; own: the"
		" order above\n",
		c->est.orders, c->est.seed);
	fprintf(cli_report, "%-16s %10s %10s %10s %10s %10s %10s\n", "pattern",
		"own avg", "mean avg", "worst avg", "own min", "mean min",
		"worst min");
	for (int i = 0; i < n; i++) {
		const struct cr_est_result *r = res[i];
		const struct cr_est_orders *o = &r->orders;

		if (!o->count) {
			fprintf(cli_report,
				"%-16s %10.4f %10s %10s %10.4f %10s %10s\n",
				r->name, r->avg_frac, "-", "-", r->min_frac,
				"-", "-");
			continue;
		}
		fprintf(cli_report,
			"%-16s %10.4f %10.4f %10.4f %10.4f %10.4f %10.4f\n",
			r->name, r->avg_frac, o->mean_avg, o->worst_avg,
			r->min_frac, o->mean_min, o->worst_min);
	}
	fprintf(cli_report, "\n");
}

static void json_orders(const struct estimate_ctx *c,
			struct cr_est_result *const *res, int n)
{
	fprintf(cli_report,
		"\"orders\": {\"count\": %lu, \"seed\": %llu, \"patterns\": [",
		c->est.orders, c->est.seed);
	for (int i = 0; i < n; i++) {
		const struct cr_est_result *r = res[i];
		const struct cr_est_orders *o = &r->orders;

		fprintf(cli_report, "%s\n  {\"pattern\": ", i ? "," : "");
		cli_json_str(cli_report, r->name);
		fprintf(cli_report,
			", \"own\": {\"avg_frac\": %.6g, \"min_frac\": %.6g}",
			r->avg_frac, r->min_frac);
		if (o->count)
			fprintf(cli_report,
				", \"mean\": {\"avg_frac\": %.6g, \"min_frac\":"
				" %.6g}, \"worst\": {\"avg_frac\": %.6g,"
				" \"min_frac\": %.6g}",
				o->mean_avg, o->mean_min, o->worst_avg,
				o->worst_min);
		fputs("}", cli_report);
	}
	fputs("]}, ", cli_report);
}

/* The path model, when flows use more than the base LID. */
static void print_paths(const struct estimate_ctx *c)
{
	const struct cr_est_params *p = &c->est.par;

	if (p->paths == CR_PATHS_BASE)
		return;
	fprintf(cli_report,
		"# paths: %s over each destination port's 2^LMC LIDs",
		cr_est_paths_name(p->paths));
	if (p->lanes)
		fprintf(cli_report, ", at most %u of them", p->lanes);
	fprintf(cli_report, "\n\n");
}

/* Each pattern's score against the bound for the same phases. */
static void print_bound(struct cr_est_result *const *res,
			struct cr_bound_result *const *b, int n)
{
	fprintf(cli_report,
		"# against croute bound (same phases and hosts; 1 would be"
		" the best any\n# routing could do)\n");
	fprintf(cli_report, "%-16s %10s %10s %8s %10s %10s %8s\n", "pattern",
		"avg", "bound", "of bound", "min", "bound", "of bound");
	for (int i = 0; i < n; i++)
		fprintf(cli_report,
			"%-16s %10.4f %10.4f %8.3f %10.4f %10.4f %8.3f\n",
			res[i]->name, res[i]->avg_frac, b[i]->avg_frac,
			bound_ratio(res[i]->avg_frac, b[i]->avg_frac),
			res[i]->min_frac, b[i]->min_frac,
			bound_ratio(res[i]->min_frac, b[i]->min_frac));
	fprintf(cli_report, "\n");
}

static int write_html(const struct estimate_ctx *c, const struct cr_fabric *f,
		      const struct cr_hosts *hosts,
		      struct cr_est_result *const *res, int n,
		      const char *title)
{
	char *tmp = NULL;
	FILE *out = cr_file_create(c->html, &tmp);

	if (!out)
		return -1;
	if (cr_est_write_html(out, f, hosts, res, (unsigned)n, title)) {
		cr_file_abort(out, tmp);
		return -1;
	}
	return cr_file_commit(out, tmp, c->html);
}

static const struct cr_hosts *estimate_hosts(void *arg)
{
	struct estimate_ctx *c = arg;

	c->hosts = est_setup_hosts(&c->est, c->f, &c->setup.by, &c->how);
	return c->hosts;
}

/* The first pattern that cannot be estimated ends the command. */
static int estimate_result(void *arg, int i, struct cr_est_result *res)
{
	struct estimate_ctx *c = arg;

	c->res[i] = res;
	cli_progress_set(c->prog, (uint64_t)++c->done);
	if (!res)
		return -1;
	c->unrouted += res->unrouted;
	return 0;
}

static const struct cr_est_each estimate_each = {
	.hosts = estimate_hosts,
	.result = estimate_result,
};

/* The text report's head: what was estimated, and how. */
static void print_header(const struct estimate_ctx *c, const double *secs,
			 const char *title, const struct cr_hosts *hosts,
			 const char *how)
{
	fprintf(cli_report, "# croute estimate: %s\n", title);
	fprintf(cli_report,
		"# rates: fractions of the source's injection rate, and"
		" Gb/s of data rate\n# (4xQDR = 32 Gb/s, not the 40"
		" Gb/s signalling rate ibstat prints)\n");
	if (secs && cli_report_times(c->times))
		fprintf(cli_report, "# routing time %.3f s\n", *secs);
	fprintf(cli_report,
		"# %u hosts in the order of %s; penalty factors"
		" (be;bs;gr) %s\n\n",
		hosts->count, how,
		c->est.penalty ? c->est.penalty : CR_PENALTY_DEFAULT);
	print_paths(c);
}

static int estimate_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct estimate_ctx c = {0};
	struct cr_fabric *f = NULL;
	struct cr_routing *r = NULL;
	struct cr_hosts *hosts = NULL;
	struct cr_pattern *pats = NULL;
	struct cr_est_result **res = NULL;
	struct bound_cache *bc = NULL;
	struct cr_bound_result *const *bres = NULL;
	const struct cr_engine *e = NULL;
	const char *how = "";
	char title[512];
	uint64_t unrouted = 0;
	double secs = 0;
	int npat = 0, ret = CLI_BAD;
	bool html_err;

	cli_setup_init(&c.setup, cmd);
	est_setup_init(&c.est, cmd);
	ret = cli_parse_options(cmd, argc, argv, estimate_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	if (c.matrix && !c.json) {
		cli_usage_error(cmd, "--matrix goes with --json");
		goto out;
	}
	if (c.bound && c.est.par.paths != CR_PATHS_BASE) {
		cli_usage_error(cmd, "--bound bounds the base path model only");
		goto out;
	}
	if (!cli_lfts_or_engine(&c.setup, &c.lfts))
		goto out;
	npat = est_setup_patterns(&c.est, &pats);
	if (npat < 0)
		goto out;
	if (!cli_load_routed(&c.setup, c.lfts, &f, &r, &e, &secs, &ret))
		goto out;
	ret = CLI_BAD;
	if (est_setup_jobs(&c.est, f, pats, npat) || cli_report_open(c.output))
		goto out;
	res = calloc(npat, sizeof(*res));
	if (!res) {
		cr_err("out of memory");
		goto out;
	}
	c.f = f;
	c.r = r;
	c.res = res;
	c.prog = cli_progress_start("estimate: patterns", (uint64_t)npat);
	ret = cr_est_patterns(f, r, &c.est.par, pats, npat, &estimate_each, &c);
	cli_progress_end(c.prog);
	if (ret) {
		ret = CLI_BAD;
		goto out;
	}
	ret = CLI_BAD;
	hosts = c.hosts;
	how = c.how;
	unrouted = c.unrouted;
	if (c.bound) {
		bc = bound_cache_new(f, &c.est.par, pats, npat);
		if (bc)
			bound_cache_show_progress(bc);
		bres = bc ? bound_cache_get(bc, hosts) : NULL;
		if (!bres)
			goto out;
	}

	if (c.lfts)
		cli_sources(&c.setup, c.lfts, title, sizeof(title));
	else
		snprintf(title, sizeof(title), "%s (%s), routed by cr-%s%s%s",
			 c.setup.topo, c.setup.topo_format, e->name,
			 c.setup.opts.port_shifting ? " --port-shifting" : "",
			 c.setup.opts.remote_guid_sorting
				 ? " --remote-guid-sorting"
				 : "");
	/*
	 * The file first: a reader of cli_report that leaves early (| head)
	 * ends the command with SIGPIPE, and must not cut the file short.
	 */
	html_err = c.html && write_html(&c, f, hosts, res, npat, title);
	if (c.json) {
		cli_json_begin(cli_report, "estimate");
		fputs("\"source\": ", cli_report);
		cli_json_str(cli_report, title);
		if (c.est.par.paths != CR_PATHS_BASE)
			fprintf(cli_report,
				", \"paths\": \"%s\", \"lanes\": %u",
				cr_est_paths_name(c.est.par.paths),
				c.est.par.lanes);
		cli_json_warnings(cli_report);
		fputs(", ", cli_report);
		if (c.est.orders)
			json_orders(&c, res, npat);
		if (cr_est_write_json(
			    cli_report, f, res, (unsigned)npat,
			    CR_REPORT_PHASES |
				    (c.matrix ? CR_REPORT_MATRIX : 0)))
			goto out;
	} else {
		print_header(&c, e ? &secs : NULL, title, hosts, how);
		print_summary(&c, res, npat);
		if (c.est.orders)
			print_orders(&c, res, npat);
		if (bres)
			print_bound(res, bres, npat);
		for (int i = 0; i < npat; i++) {
			if (cr_est_write_text(cli_report, f, res[i],
					      CR_REPORT_PHASES |
						      (cli_report_times(c.times)
							       ? CR_REPORT_TIMES
							       : 0)))
				goto out;
			fprintf(cli_report, "\n");
		}
	}
	if (fflush(cli_report) || ferror(cli_report)) {
		cr_err("cannot write the report");
		goto out;
	}
	if (html_err)
		goto out;
	ret = unrouted ? CLI_PROBLEMS : CLI_OK;
out:
	ret = cli_report_done(ret);
	for (int i = 0; res && i < npat; i++)
		cr_est_result_free(res[i]);
	free(res);
	bound_cache_free(bc);
	cr_hosts_free(c.hosts);
	if (npat > 0)
		cr_pattern_list_free(pats, npat);
	cr_routing_free(r);
	cr_fabric_free(f);
	est_setup_release(&c.est);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_estimate = {
	.name = "estimate",
	.synopsis = "(--topo FILE (--lfts FILE | --engine NAME) | --dump-dir"
		    " DIR)\n       [--pattern LIST] [options]",
	.summary = "Estimate the bandwidth traffic patterns get on a routing.",
	.details =
		"The InfiniBand penalty model (as SimGrid's network/model:IB)"
		" on the routed paths:\nmax-min fair rates of concurrent"
		" flows, per pattern and phase. shift is mpiGraph's\npattern"
		" (phase k: host i sends to host i+k), bisect random perfect"
		" matchings both\nways, fanin K hosts to one and back, flows"
		" a file of \"source destination\"\nlines (node descriptions,"
		" GUIDs or LIDs), rail-ring each rail's ring all-reduce\n(a"
		" server's HCAs share a system image GUID). Hosts are in the"
		" order of --hosts,\nelse"
		" --ca-order, else cr-ftree's CA order, else node descriptions"
		" (natural sort).\nWith --lfts, give the LIDs the tables were"
		" made for (--lids).\nExit status 1 when flows have no path.\n",
	.opts = estimate_tables,
	.run = estimate_run,
};
