// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute resilience: what each single failure (a switch cable, a switch)
 * does to the routing OpenSM would install afterwards: pairs left
 * unreachable, loops, credit loops, bandwidth, and the LFT blocks the SM
 * must send. --shard K/N runs one part, for a job array; `croute
 * resilience merge` joins the parts into the report one process writes
 * (resil_merge.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/topo.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include <croute/report/resil.h>

#include "est_cli.h"
#include "progress.h"
#include "resil_cli.h"

enum {
	KEY_FAULTS = CLI_KEY_CMD,
	KEY_SHARD,
	KEY_JSON,
	KEY_TIMES,
	KEY_HTML,
	KEY_INCREMENTAL,
	KEY_FULL_ESTIMATE,
};

static const struct cli_opt resil_opts[] = {
	{"faults", KEY_FAULTS, "WHICH",
	 "cables (switch cables, default), switches, all, or a FILE"},
	{"shard", KEY_SHARD, "K/N",
	 "run part K of N and write a shard for `resilience merge`"},
	{"output", 'o', "FILE", "the report (or shard) (default: stdout)"},
	{"json", KEY_JSON, NULL, "rows as JSON lines, then the summary"},
	{"html", KEY_HTML, "FILE", "also an HTML report with a histogram"},
	{"times", KEY_TIMES, NULL, "seconds per failure in the report"},
	{"incremental", KEY_INCREMENTAL, NULL,
	 "repair the intact tables as croute_incremental TRUE does"},
	{"full-estimate", KEY_FULL_ESTIMATE, NULL,
	 "check and score every failure afresh, not just what it changes"},
	CLI_OPT_END,
};

static const struct cli_opt *const resil_tables[] = {
	resil_opts, cli_topo_opts, est_cli_opts, cli_engine_opts, NULL,
};

struct resil_ctx {
	struct cli_setup setup;
	struct est_setup est;
	struct resil_out out;
	const char *faults;
	const char *list; /* -R as given */
	unsigned long shard_k, shard_n;
	bool incremental, full_estimate;
	struct cli_progress *prog;
};

static int parse_shard(struct resil_ctx *c, const char *val)
{
	char *end;
	unsigned long k = strtoul(val, &end, 10), n;

	if (*end == '/') {
		const char *ns = end + 1;

		n = strtoul(ns, &end, 10);
		if (!*end && end != ns && k >= 1 && n >= 1 && k <= n &&
		    n <= 1000000) {
			c->shard_k = k;
			c->shard_n = n;
			return 0;
		}
	}
	cli_usage_error(c->setup.cmd,
			"--shard: '%s' is not K/N with 1 <= K <= N", val);
	return -1;
}

static int resil_opt(void *arg, int key, const char *val)
{
	struct resil_ctx *c = arg;
	int ret;

	if (key == 'R')
		c->list = val;
	ret = est_cli_opt(&c->setup, &c->est, key, val);
	if (ret <= 0)
		return ret;
	switch (key) {
	case KEY_FAULTS:
		c->faults = val;
		break;
	case KEY_SHARD:
		return parse_shard(c, val);
	case 'o':
		c->out.output = val;
		break;
	case KEY_JSON:
		c->out.json = true;
		break;
	case KEY_HTML:
		c->out.html = val;
		break;
	case KEY_TIMES:
		c->out.times = true;
		break;
	case KEY_INCREMENTAL:
		c->incremental = true;
		break;
	case KEY_FULL_ESTIMATE:
		c->full_estimate = true;
		break;
	}
	return 0;
}

/*
 * The engines OpenSM runs in turn: the -R list (or -F's routing_engine)
 * up to its first engine of OpenSM's own, which croute cannot run; else
 * the one engine. 0, or -1 (reported).
 */
static int make_chain(struct resil_ctx *c, struct cr_resil_conf *rc)
{
	const char *list = c->list ? c->list : c->setup.conf.routing_engine;
	char *copy, *save = NULL, *name;

	rc->nchain = 0;
	if (!list || (c->setup.engine && !c->list &&
		      c->setup.engine != c->setup.conf_engine)) {
		const char *e = c->setup.engine	       ? c->setup.engine
				: c->setup.conf_engine ? c->setup.conf_engine
						       : "minhop";

		rc->chain[rc->nchain++] = cr_engine_find_any(e);
		return rc->chain[0] ? 0 : -1;
	}
	copy = strdup(list);
	if (!copy) {
		cr_err("out of memory");
		return -1;
	}
	for (name = strtok_r(copy, ", \t", &save); name;
	     name = strtok_r(NULL, ", \t", &save)) {
		const struct cr_engine *e;

		if (strncmp(name, "cr-", 3)) {
			if (rc->nchain)
				cr_note("the engine list %s: after %s,"
					" OpenSM's own %s, which croute does"
					" not run: a failure no croute engine"
					" routes counts as not routed",
					list, rc->chain[rc->nchain - 1]->name,
					name);
			if (rc->nchain)
				break;
			continue;
		}
		e = cr_engine_find_any(name);
		if (e && rc->nchain < CR_RESIL_MAX_CHAIN)
			rc->chain[rc->nchain++] = e;
	}
	free(copy);
	if (!rc->nchain) {
		cr_err("the engine list %s has no croute engine", list);
		return -1;
	}
	return 0;
}

static void progress(void *arg, uint64_t done)
{
	cli_progress_set(((struct resil_ctx *)arg)->prog, done);
}

/* The settings that decide the rows, as one line of the report. */
static void describe(const struct resil_ctx *c, const struct cr_resil_conf *rc,
		     struct cr_resil_report *rep)
{
	size_t n = 0, len = sizeof(rep->config);
	char *b = rep->config;

	for (unsigned i = 0; i < rc->nchain; i++)
		n += (size_t)snprintf(b + n, len - n, "%scr-%s",
				      i ? "," : "engines ", rc->chain[i]->name);
	n += (size_t)snprintf(
		b + n, n < len ? len - n : 0,
		"; incremental %s; patterns %s; phases %lu; seed %llu;"
		" orders %lu; penalty %s; default rate %u Mb/s%s%s%s%s",
		rc->incremental ? "on" : "off",
		c->est.patterns ? c->est.patterns : "shift,bisect",
		c->est.phases, c->est.seed, c->est.orders,
		c->est.penalty ? c->est.penalty : "default",
		rc->par->default_rate_mbps,
		c->est.rail_order ? "; rail order" : "",
		rc->opts->port_shifting ? "; port shifting" : "",
		rc->opts->remote_guid_sorting ? "; remote GUID sorting" : "",
		c->setup.config ? "; -F given" : "");
	(void)n;
}

static uint64_t digest(const struct cr_fabric *f, const struct cr_routing *r,
		       const struct cr_resil_report *rep,
		       const struct cr_fault *faults, uint32_t nf)
{
	uint64_t h = cr_resil_digest_fabric(f);
	uint64_t g = cr_resil_digest_routing(f, r);

	h = cr_fnv(h, &g, sizeof(g));
	h = cr_fnv(h, rep->config, strlen(rep->config));
	/* field by field: a struct's padding holds anything */
	for (uint32_t i = 0; i < nf; i++) {
		uint32_t v[5] = {faults[i].kind, faults[i].port,
				 faults[i].rport, faults[i].node,
				 faults[i].rnode};

		h = cr_fnv(h, v, sizeof(v));
	}
	return h;
}

static int load_faults(struct resil_ctx *c, const struct cr_fabric *f,
		       struct cr_fault **faults, uint32_t *nf)
{
	const char *w = c->faults ? c->faults : "cables";

	if (!strcmp(w, "cables"))
		return cr_faults_all(f, CR_FAULTS_CABLES, faults, nf);
	if (!strcmp(w, "switches"))
		return cr_faults_all(f, CR_FAULTS_SWITCHES, faults, nf);
	if (!strcmp(w, "all"))
		return cr_faults_all(f, CR_FAULTS_CABLES | CR_FAULTS_SWITCHES,
				     faults, nf);
	return cr_faults_read(f, w, faults, nf);
}

/* What the checks before any work refuse: a usage error (reported). */
static bool usable_options(struct resil_ctx *c)
{
	const struct cli_cmd *cmd = c->setup.cmd;

	if (c->est.hosts || c->est.ca_order) {
		cli_usage_error(cmd, "--hosts and --ca-order do not apply: each"
				     " failure's fabric has its own hosts");
		return false;
	}
	if (c->setup.live || c->setup.dump_dir) {
		cli_usage_error(cmd, "give --topo FILE");
		return false;
	}
	if (c->shard_n && (c->out.json || c->out.html)) {
		cli_usage_error(cmd, "--shard writes a shard: give --json and"
				     " --html to `resilience merge`");
		return false;
	}
	if (c->shard_n && (!c->out.output || !strcmp(c->out.output, "-"))) {
		cli_usage_error(cmd, "--shard needs -o FILE");
		return false;
	}
	if (!c->est.orders) {
		cli_usage_error(cmd, "--orders: give at least 1");
		return false;
	}
	return true;
}

static int resil_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct resil_ctx c = {0};
	struct cr_resil_conf rc = {0};
	struct cr_resil_report rep = {0};
	struct cr_fabric *f = NULL;
	struct cr_routing *r0 = NULL;
	struct cr_pattern *pats = NULL;
	struct cr_fault *faults = NULL;
	struct cr_resil *x = NULL;
	const struct cr_engine *e;
	uint32_t nf = 0, begin, end;
	double secs;
	int npat = 0, ret;

	if (argc > 1 && !strcmp(argv[1], "merge"))
		return resil_merge(argc - 1, argv + 1);
	cli_setup_init(&c.setup, cmd);
	est_setup_init(&c.est, cmd);
	c.est.orders = 4;
	ret = cli_parse_options(cmd, argc, argv, resil_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	if (!usable_options(&c))
		goto out;
	npat = est_setup_patterns(&c.est, &pats);
	if (npat < 0 || est_setup_no_jobs(&c.est, pats, npat))
		goto out;
	if (npat > CR_RESIL_MAX_PATS) {
		cli_usage_error(cmd, "--pattern: at most %d patterns",
				CR_RESIL_MAX_PATS);
		goto out;
	}
	f = cli_load(&c.setup);
	if (!f || make_chain(&c, &rc) || load_faults(&c, f, &faults, &nf))
		goto out;
	/* the engine's input files and settings, as cli_route reads them */
	r0 = cli_route(&c.setup, f, &e, &secs);
	/* a refusal leaves the fabric to the chain's next engines, as
	 * OpenSM does; none routing it is said below */
	if (!r0 && !c.setup.refused && !c.setup.not_its_kind)
		goto out;
	rc.opts = &c.setup.opts;
	rc.incremental = (c.incremental || c.setup.conf.cr.incremental) &&
			 !c.setup.optimize;
	rc.par = &c.est.par;
	rc.pats = pats;
	rc.npat = (unsigned)npat;
	rc.rail_order = c.est.rail_order;
	/* est_inc solves with the estimator's default parameters */
	rc.est_inc = !c.full_estimate && !c.est.penalty &&
		     !c.est.par.default_rate_mbps;
	for (int i = 0; i < npat; i++)
		rc.est_inc = rc.est_inc && pats[i].kind != CR_PAT_FLOWS;
	rc.threads = cr_threads_get();
	rc.progress = progress;
	rc.arg = &c;
	x = cr_resil_new(f, &rc);
	if (!x) {
		ret = c.setup.refused ? CLI_PROBLEMS : CLI_BAD;
		goto out;
	}
	cr_resil_intact(x, &rep);
	snprintf(rep.title, sizeof(rep.title), "%s (%s), failures: %s",
		 c.setup.topo, c.setup.topo_format,
		 c.faults ? c.faults : "cables");
	describe(&c, &rc, &rep);
	rep.digest = digest(f, cr_resil_routing(x), &rep, faults, nf);
	rep.total = nf;
	rep.rows = calloc((size_t)nf + 1, sizeof(*rep.rows));
	if (!rep.rows) {
		cr_err("out of memory");
		goto out;
	}
	begin = 0;
	end = nf;
	if (c.shard_n)
		cr_resil_shard_range(nf, (unsigned)c.shard_k,
				     (unsigned)c.shard_n, &begin, &end);
	c.prog = cli_progress_start("resilience: failures", end - begin);
	ret = cr_resil_run(x, faults, begin, end, rep.rows + begin);
	cli_progress_end(c.prog);
	if (ret) {
		ret = CLI_BAD;
		goto out;
	}
	ret = c.shard_n ? resil_write_shard(&c.out, &rep, begin, end,
					    (unsigned)c.shard_k,
					    (unsigned)c.shard_n)
			: resil_write(&c.out, &rep);
out:
	free(rep.rows);
	cr_resil_free(x);
	free(faults);
	if (npat > 0)
		cr_pattern_list_free(pats, npat);
	cr_routing_free(r0);
	cr_fabric_free(f);
	est_setup_release(&c.est);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_resilience = {
	.name = "resilience",
	.synopsis = "--topo FILE (-e ENGINE | -R LIST | -F opensm.conf)"
		    " [--faults WHICH]\n       [--orders N] [--seed S]"
		    " [--shard K/N] [--json] [--html FILE] [-o FILE]\n"
		    "       croute resilience merge SHARD... [--json] [--html"
		    " FILE] [-o FILE]",
	.summary = "What each single cable or switch failure does to the"
		   " routing.",
	.details =
		"Each failure of the list (every switch cable by default)"
		" is taken out of the\nfabric, which is then routed as OpenSM"
		" would (croute_incremental's repair\nwith --incremental or"
		" -F's croute_incremental TRUE, the -R list's fallbacks),\n"
		"checked as by croute check and scored as by croute estimate"
		" --orders N (the\nmean of each pattern's per-flow average,"
		" default 4 orders); the LFT blocks\nof 64 entries that"
		" change are what the SM sends. Rows worst first, then a\n"
		"summary. A faults FILE lists one failure a line: a switch"
		" (GUID or name) or a\ncable (NODE PORT [NODE PORT]). --shard"
		" K/N writes part K of N; `merge`\njoins the parts into the"
		" report one process writes, byte for byte.\n",
	.opts = resil_tables,
	.run = resil_run,
};
