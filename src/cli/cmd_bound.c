// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute bound: how much any routing could give a traffic pattern on a
 * fabric, per sampled phase, from splittable multi-commodity flow solved
 * by GLPK (include/croute/bound/bound.h). The headroom an administrator cannot
 * see from the estimates of routings alone.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>

#include "bound_cli.h"
#include "est_cli.h"
#include "progress.h"

enum {
	KEY_WRITE_LP = CLI_KEY_CMD,
	KEY_PATHS,
	KEY_UNSPLIT,
	KEY_EXTRA_HOPS,
	KEY_MIP_SECONDS,
	KEY_ONE_ROUTING,
	KEY_JSON,
	KEY_LANES,
	KEY_STAT,
};

static const struct cli_opt bound_opts[] = {
	{"json", KEY_JSON, NULL, "write the bounds as JSON (croute(1))"},
	{"write-lp", KEY_WRITE_LP, "FILE",
	 "write the first phase's throughput LP, edge form (CPLEX LP)"},
	{"paths", KEY_PATHS, "all|minimal",
	 "paths flows may take: any (default), or fewest switch hops only"},
	{"unsplittable", KEY_UNSPLIT, NULL,
	 "each flow on one path (MIP; small fabrics only)"},
	{"one-routing", KEY_ONE_ROUTING, NULL,
	 "avg bound for one routing serving every phase (one LP; small "
	 "fabrics)"},
	{"max-extra-hops", KEY_EXTRA_HOPS, "N",
	 "--unsplittable --paths all: paths up to N hops above the fewest "
	 "(2)"},
	{"mip-seconds", KEY_MIP_SECONDS, "S",
	 "--unsplittable: stop a phase's MIP after S seconds, 0 never (60)"},
	{"stat", KEY_STAT, "avg|min|both",
	 "solve only the avg LPs or only the min (concurrent-flow) ones"
	 " (both)"},
	{"lanes", KEY_LANES, "N",
	 "with LMC > 0: flows striped over at most N of a port's LIDs"
	 " (default all 2^LMC; estimate's --lanes)"},
	{"jobs", EST_KEY_JOBS, "FILE",
	 "running jobs, \"JOBID NODELIST\" a line: pattern jobs, in Slurm's"
	 " order (--orders: random orders within each job)"},
	CLI_OPT_END,
};

static const struct cli_opt *const bound_tables[] = {
	bound_opts,
	cli_topo_opts,
	est_cli_opts,
	NULL,
};

struct bound_ctx {
	struct cli_setup setup;
	struct est_setup est;
	const char *write_lp;
	struct cr_bound_opts bo;
	bool extra_set, json;
	unsigned lmc; /* the hosts' largest */
	unsigned long lanes; /* --lanes; 0: not given */
};

/* --orders: a pattern's avg bound on random orders of its hosts */
struct bound_orders {
	double mean, worst;
};

/* A jobs pattern runs on its jobs' hosts: Slurm's order, as estimate's. */
static const struct cr_hosts *pattern_hosts(const struct cr_pattern *p,
					    const struct cr_hosts *h)
{
	return p->kind == CR_PAT_JOBS && p->jobs ? &p->jobs->hosts : h;
}

/*
 * The avg bound on the random host orders estimate --orders scores with
 * the same --seed (within each job for jobs): a routing's mean over those
 * orders is at most this mean, its worst order at most the worst. 0, -1.
 */
static int bound_orders(const struct bound_ctx *c, const struct cr_fabric *f,
			const struct cr_est *e, const struct cr_pattern *p,
			const struct cr_hosts *h, struct bound_orders *out)
{
	uint32_t n = c->est.par.orders;

	memset(out, 0, sizeof(*out));
	for (uint32_t j = 0; p->kind != CR_PAT_FLOWS && j < n; j++) {
		struct cr_hosts *o =
			cr_hosts_random_order(h, c->est.par.order_seed, j);
		struct cr_bound_result *b =
			o ? cr_bound_run(f, e, p, o, &c->bo) : NULL;

		cr_hosts_free(o);
		if (!b)
			return -1;
		if (!j || b->avg_frac < out->worst)
			out->worst = b->avg_frac;
		out->mean += b->avg_frac / n;
		cr_bound_result_free(b);
	}
	return 0;
}

static void print_orders(const struct bound_ctx *c,
			 struct cr_bound_result *const *res,
			 const struct bound_orders *ord, int n)
{
	printf("\n# on %u random host orders (seed %llu): mean and worst of"
	       " the avg bound;\n# own: the order above\n",
	       c->est.par.orders, (unsigned long long)c->est.par.order_seed);
	printf("%-16s %10s %10s %10s\n", "pattern", "own avg", "mean avg",
	       "worst avg");
	for (int i = 0; i < n; i++)
		printf("%-16s %10.4f %10.4f %10.4f\n", res[i]->name,
		       res[i]->avg_frac, ord[i].mean, ord[i].worst);
}

static int bound_opt(void *arg, int key, const char *val)
{
	struct bound_ctx *c = arg;
	unsigned long v;
	int ret = est_cli_opt(&c->setup, &c->est, key, val);

	if (ret <= 0)
		return ret;
	switch (key) {
	case KEY_JSON:
		cli_json_on(&c->json);
		return 0;
	case KEY_PATHS:
		if (!strcmp(val, "all") || !strcmp(val, "minimal")) {
			c->bo.minimal = val[0] == 'm';
			return 0;
		}
		cli_usage_error(c->setup.cmd,
				"--paths \"%s\": expected all or minimal", val);
		return -1;
	case KEY_STAT:
		if (!strcmp(val, "avg") || !strcmp(val, "min") ||
		    !strcmp(val, "both")) {
			c->bo.stats = val[0] == 'a'   ? CR_BOUND_STAT_AVG
				      : val[0] == 'm' ? CR_BOUND_STAT_MIN
						      : 0;
			return 0;
		}
		cli_usage_error(c->setup.cmd,
				"--stat \"%s\": expected avg, min or both",
				val);
		return -1;
	case KEY_UNSPLIT:
		c->bo.unsplittable = true;
		return 0;
	case KEY_ONE_ROUTING:
		c->bo.one_routing = true;
		return 0;
	case KEY_EXTRA_HOPS:
		if (cli_uint(c->setup.cmd, "--max-extra-hops", val, 16, &v))
			return -1;
		c->bo.max_extra_hops = (unsigned)v;
		c->extra_set = true;
		return 0;
	case KEY_LANES:
		if (cli_uint(c->setup.cmd, "--lanes", val, 1u << CR_MAX_LMC,
			     &c->lanes))
			return -1;
		if (c->lanes)
			return 0;
		cli_usage_error(c->setup.cmd, "--lanes: give at least 1");
		return -1;
	case KEY_MIP_SECONDS:
		if (cli_uint(c->setup.cmd, "--mip-seconds", val, 1000000, &v))
			return -1;
		c->bo.mip_seconds = (double)v;
		return 0;
	}
	c->write_lp = val; /* KEY_WRITE_LP, the only one left */
	return 0;
}

/* A bound in a column of the text tables: "-" when it was not solved. */
static void print_frac(double v)
{
	if (isnan(v))
		printf(" %10s", "-");
	else
		printf(" %10.4f", v);
}

/* The same in JSON: null when not solved. */
static void json_frac(const char *key, double v)
{
	if (isnan(v))
		printf("\"%s\": null", key);
	else
		printf("\"%s\": %.6g", key, v);
}

static void print_result(const struct cr_bound_result *b,
			 const struct cr_bound_opts *o)
{
	printf("%-16s %9u/%-5u %10" PRIu64, b->name, b->num_phases,
	       b->phases_total, b->flows);
	print_frac(b->avg_frac);
	print_frac(b->min_frac);
	printf(" %9.2f", b->seconds);
	if (o->unsplittable)
		printf(" %10.4f %8u", b->incumbent_frac, b->unproved);
	if (o->one_routing)
		printf(" %10.4f %10.4f", b->phase_avg_frac, b->joint_primal);
	printf("\n");
}

static void print_phases(const struct cr_bound_result *b, bool unsplit)
{
	printf("\n## %s: per phase (phase: shift k or number)\n", b->name);
	printf("%8s %8s %10s %10s %9s %9s %7s %8s", "phase", "flows", "avg",
	       "min", "rows", unsplit ? "columns" : "paths",
	       unsplit ? "binary" : "rounds", "seconds");
	if (unsplit)
		printf(" %10s %8s %6s", "incumbent", "nodes", "proved");
	printf("\n");
	for (uint32_t i = 0; i < b->num_phases; i++) {
		const struct cr_bound_phase *p = &b->phase[i];

		printf("%8u %8u", p->label, p->flows);
		print_frac(p->avg_frac);
		print_frac(p->min_frac);
		printf(" %9u %9u %7u %8.3f", p->rows, p->cols,
		       unsplit ? p->binaries : p->rounds, p->seconds);
		if (unsplit)
			printf(" %10.4f %8u %6s", p->incumbent_frac, p->nodes,
			       p->proved ? "yes" : "no");
		printf("\n");
	}
}

/* croute(1) JSON OUTPUT, command "bound". */
static void bound_json(const struct bound_ctx *c, const struct cr_hosts *hosts,
		       const char *how, struct cr_bound_result *const *res,
		       const struct bound_orders *ord, int n)
{
	const struct cr_bound_opts *o = &c->bo;

	cli_json_begin(stdout, "bound");
	fputs("\"source\": ", stdout);
	cli_json_str(stdout, c->setup.topo);
	printf(", \"hosts\": %u, \"order\": ", hosts->count);
	cli_json_str(stdout, how);
	printf(", \"paths\": \"%s\", \"unsplittable\": %s,"
	       " \"one_routing\": %s, \"stat\": \"%s\", \"lmc\": %u,"
	       " \"lanes\": %u, \"patterns\": [",
	       o->minimal ? "minimal" : "all",
	       o->unsplittable ? "true" : "false",
	       o->one_routing ? "true" : "false",
	       o->stats == CR_BOUND_STAT_AVG   ? "avg"
	       : o->stats == CR_BOUND_STAT_MIN ? "min"
					       : "both",
	       c->lmc, o->lanes);
	for (int i = 0; i < n; i++) {
		const struct cr_bound_result *b = res[i];

		fputs(i ? ",\n  {\"pattern\": " : "\n  {\"pattern\": ", stdout);
		cli_json_str(stdout, b->name);
		printf(", \"phases\": %u, \"phases_total\": %u, \"flows\": %" PRIu64
		       ", ",
		       b->num_phases, b->phases_total, b->flows);
		json_frac("avg_frac", b->avg_frac);
		fputs(", ", stdout);
		json_frac("min_frac", b->min_frac);
		printf(", \"seconds\": %.3f", b->seconds);
		if (o->unsplittable)
			printf(", \"incumbent_frac\": %.6g, \"unproved\": %u",
			       b->incumbent_frac, b->unproved);
		if (o->one_routing)
			printf(", \"phase_avg_frac\": %.6g, \"lp_value\": %.6g",
			       b->phase_avg_frac, b->joint_primal);
		if (c->est.par.orders)
			printf(", \"orders\": %u, \"orders_mean_avg\": %.6g,"
			       " \"orders_worst_avg\": %.6g",
			       c->est.par.orders, ord[i].mean, ord[i].worst);
		fputs(", \"per_phase\": [", stdout);
		for (uint32_t k = 0; k < b->num_phases; k++) {
			const struct cr_bound_phase *p = &b->phase[k];

			printf("%s{\"phase\": %u, \"flows\": %u, ",
			       k ? ", " : "", p->label, p->flows);
			json_frac("avg_frac", p->avg_frac);
			fputs(", ", stdout);
			json_frac("min_frac", p->min_frac);
			printf(", \"seconds\": %.3f", p->seconds);
			if (o->unsplittable)
				printf(", \"incumbent_frac\": %.6g, \"proved\":"
				       " %s",
				       p->incumbent_frac,
				       p->proved ? "true" : "false");
			putchar('}');
		}
		fputs("]}", stdout);
	}
	fputs("\n ]", stdout);
	cli_json_warnings(stdout);
	fputs("}\n", stdout);
}

/*
 * With LMC > 0 a flow may be striped over its port's LIDs (estimate's
 * split and indep). A striped flow is a splittable one, and its lanes'
 * paths keep the same shares in every phase: the splittable and
 * one-routing bounds hold as they are (and do not move with LMC). The
 * one-path MIP does not: it becomes the k-lane MIP (mip.c).
 */
static void print_lanes(const struct bound_ctx *c)
{
	if (!c->lmc)
		return;
	printf("# LMC %u: the bounds also hold for flows striped over up to"
	       " %u LIDs of a port\n# (estimate --paths split and indep)%s\n",
	       c->lmc, c->bo.unsplittable ? c->bo.lanes : 1u << c->lmc,
	       c->bo.unsplittable ? "; --unsplittable: each flow on at most"
				    " that many paths,\n# each at most that"
				    " share of its injection"
				  : "");
}

/* The largest LMC of the fabric's CA ports: what a host can stripe over. */
static unsigned hosts_lmc(const struct cr_fabric *f)
{
	unsigned lmc = 0;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *x = &f->nodes[n];

		for (unsigned p = 1; !cr_is_switch(f, n) && p <= x->num_ports;
		     p++)
			if (x->ports[p].lid && x->ports[p].lmc > lmc)
				lmc = x->ports[p].lmc;
	}
	return lmc;
}

/* The header: what the bounds cover, in words. */
static void print_header(const struct bound_ctx *c, const struct cr_fabric *f,
			 const struct cr_hosts *hosts, const char *how)
{
	const struct cr_bound_opts *o = &c->bo;

	printf("# croute bound: %s, %u switches, %u hosts in the order of %s\n",
	       c->setup.topo, f->num_switches, hosts->count, how);
	if (c->est.jobs)
		printf("# jobs: %u hosts of %u jobs in Slurm's order (%s)\n",
		       c->est.jobs->hosts.count, c->est.jobs->num_jobs,
		       c->est.jobs_file);
	print_lanes(c);
	if (o->one_routing) {
		char paths[64];

		if (o->minimal)
			snprintf(paths, sizeof(paths), "minimal paths");
		else
			snprintf(paths, sizeof(paths),
				 "paths at most %u hops above the fewest",
				 o->max_extra_hops);
		printf("# upper bounds for one routing serving every phase, "
		       "on %s: avg bound:\n# one LP over all phases, each "
		       "(source switch, destination) in the same\n# shares "
		       "of its paths in every phase (its dual bound; LP "
		       "value: the\n# solver's objective; per phase: the "
		       "phases' own splittable bounds);\n# min bound and the"
		       " phase table: per phase, splittable, over %s\n",
		       paths, o->minimal ? "minimal paths" : "all paths");
	} else if (!o->unsplittable) {
		printf("# upper bounds for any routing%s: splittable "
		       "multi-commodity flow, link\n# data rates as "
		       "capacities; fractions of the injection rate\n",
		       o->minimal ? " on minimal paths" : "");
	} else {
		char paths[64];

		if (o->minimal)
			snprintf(paths, sizeof(paths), "minimal paths");
		else
			snprintf(
				paths, sizeof(paths),
				"simple paths at most %u hops above the fewest",
				o->max_extra_hops);
		printf("# upper bounds for any routing with one path a flow "
		       "(any LFT routing)\n# on %s: a MIP per phase, link "
		       "data rates as capacities;\n# fractions of the "
		       "injection rate. avg bound: the proved optimum, or the"
		       "\n# best open node's bound where the search stopped "
		       "(unproved phases);\n# incumbent: the best path choice "
		       "found (not a bound); min bound:\n# splittable over %s"
		       "\n",
		       paths, o->minimal ? "minimal paths" : "all paths");
	}
}

static int write_lp(const struct cr_fabric *f, const struct cr_est *e,
		    const struct cr_pattern *p, const struct cr_hosts *h,
		    const struct cr_bound_opts *o, const char *path)
{
	struct cr_phases *ph = cr_phases_start(f, p, h);
	struct cr_flow *flows = NULL;
	struct cr_bound_phase out;
	uint32_t label;
	int ret = -1;

	if (!ph)
		return -1;
	flows = malloc((cr_phases_max_flows(ph) + 1) * sizeof(*flows));
	if (!flows) {
		cr_err("out of memory");
		goto out;
	}
	if (cr_phases_count(ph)) {
		/* the LP is written before anything is solved */
		struct cr_bound_opts lo = *o;

		lo.unsplittable = false;
		lo.lp_path = path;
		ret = cr_bound_phase(f, e, flows,
				     cr_phases_get(ph, 0, flows, &label), 0,
				     &lo, &out);
	}
out:
	free(flows);
	cr_phases_stop(ph);
	return ret;
}

/* A pattern's phases on the progress line: one pattern may take hours. */
static void bound_phase_done(void *arg, uint32_t done, uint32_t total)
{
	cli_progress_part(arg, "phases", done, total);
}

static int bound_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct bound_ctx c = {0};
	struct cr_fabric *f = NULL;
	struct cr_routing *r = NULL;
	struct cr_hosts *hosts = NULL;
	struct cr_pattern *pats = NULL;
	struct cr_est *est = NULL;
	struct cr_bound_result **res = NULL;
	struct bound_orders *ord = NULL;
	struct cli_progress *prog;
	const char *how = "";
	int npat = 0, done = 0, ret;

	cli_setup_init(&c.setup, cmd);
	est_setup_init(&c.est, cmd);
	cr_bound_opts_init(&c.bo);
	ret = cli_parse_options(cmd, argc, argv, bound_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	if (c.extra_set &&
	    (!(c.bo.unsplittable || c.bo.one_routing) || c.bo.minimal)) {
		cli_usage_error(cmd, "--max-extra-hops goes with "
				     "--unsplittable or --one-routing, and "
				     "--paths all");
		goto out;
	}
	if (c.bo.stats == CR_BOUND_STAT_MIN &&
	    (c.bo.unsplittable || c.bo.one_routing || c.est.orders)) {
		/* their figures are avg bounds only */
		cli_usage_error(cmd, "--stat min: not with --unsplittable, "
				     "--one-routing or --orders");
		goto out;
	}
	if (c.bo.unsplittable && c.bo.one_routing) {
		cli_usage_error(cmd, "--unsplittable and --one-routing: one "
				     "or the other");
		goto out;
	}
	npat = est_setup_patterns(&c.est, &pats);
	if (npat < 0)
		goto out;
	f = cli_load(&c.setup);
	if (!f || est_setup_jobs(&c.est, f, pats, npat))
		goto out;
	c.lmc = hosts_lmc(f);
	c.bo.lanes = 1u << c.lmc;
	if (c.lanes && c.lanes < c.bo.lanes)
		c.bo.lanes = (unsigned)c.lanes;
	/* no routing: the estimator is only asked for link rates */
	r = cr_routing_new(f);
	if (!r) {
		cr_err("out of memory");
		goto out;
	}
	est = cr_est_new(f, r, &c.est.par);
	if (!est)
		goto out;
	hosts = est_setup_hosts(&c.est, f, NULL, &how);
	if (!hosts)
		goto out;
	if (c.write_lp && write_lp(f, est, &pats[0], hosts, &c.bo, c.write_lp))
		goto out;
	res = calloc(npat, sizeof(*res));
	ord = calloc(npat, sizeof(*ord));
	if (!res || !ord) {
		cr_err("out of memory");
		goto out;
	}
	/* too big for the MIP: say so before any phase runs (exit 2) */
	for (int i = 0; (c.bo.unsplittable || c.bo.one_routing) && i < npat;
	     i++)
		if (cr_bound_mip_check(f, est, &pats[i],
				       pattern_hosts(&pats[i], hosts), &c.bo))
			goto out;
	if (!c.json) {
		print_header(&c, f, hosts, how);
		printf("%-16s %15s %10s %10s %10s %9s", "pattern", "phases",
		       "flows", "avg bound", "min bound", "seconds");
		if (c.bo.unsplittable)
			printf(" %10s %8s", "incumbent", "unproved");
		if (c.bo.one_routing)
			printf(" %10s %10s", "per phase", "LP value");
		printf("\n");
		fflush(stdout);
	}
	prog = cli_progress_start("bound: patterns", (uint64_t)npat);
	if (prog) {
		c.bo.on_phase = bound_phase_done;
		c.bo.on_phase_arg = prog;
	}
	for (done = 0; done < npat; done++) {
		const struct cr_hosts *h = pattern_hosts(&pats[done], hosts);

		res[done] = cr_bound_run(f, est, &pats[done], h, &c.bo);
		if (!res[done])
			break;
		if (bound_orders(&c, f, est, &pats[done], h, &ord[done])) {
			cr_bound_result_free(res[done]);
			break;
		}
		cli_progress_hold(prog, true);
		if (!c.json)
			print_result(res[done], &c.bo);
		fflush(stdout);
		cli_progress_set(prog, (uint64_t)done + 1);
		cli_progress_hold(prog, false);
	}
	cli_progress_end(prog);
	c.bo.on_phase = NULL;
	if (done < npat)
		goto out;
	for (int i = 0; !c.json && i < npat; i++)
		print_phases(res[i], c.bo.unsplittable);
	if (!c.json && c.est.par.orders)
		print_orders(&c, res, ord, npat);
	if (c.json)
		bound_json(&c, hosts, how, res, ord, npat);
	if (fflush(stdout) || ferror(stdout)) {
		cr_err("cannot write the report");
		goto out;
	}
	ret = CLI_OK;
out:
	for (int i = 0; res && i < done; i++)
		cr_bound_result_free(res[i]);
	free(res);
	free(ord);
	cr_est_free(est);
	cr_hosts_free(hosts);
	if (npat > 0)
		cr_pattern_list_free(pats, npat);
	cr_routing_free(r);
	cr_fabric_free(f);
	est_setup_release(&c.est);
	cli_setup_release(&c.setup);
	return ret;
}

/* ---- --bound in estimate and compare ---------------------------------- */

struct bound_cache_entry {
	uint32_t *lids; /* the host order, by LID */
	uint32_t count;
	struct cr_bound_result **res; /* one per pattern */
};

struct bound_cache {
	const struct cr_fabric *f;
	const struct cr_est_params *par;
	const struct cr_pattern *pats;
	int npat;
	struct bound_cache_entry *e;
	unsigned n;
	size_t cap;
	bool progress; /* a line of its own: the caller shows none then */
};

void bound_cache_show_progress(struct bound_cache *bc)
{
	bc->progress = true;
}

struct bound_cache *bound_cache_new(const struct cr_fabric *f,
				    const struct cr_est_params *par,
				    const struct cr_pattern *pats, int npat)
{
	struct bound_cache *bc = calloc(1, sizeof(*bc));

	if (!bc) {
		cr_err("out of memory");
		return NULL;
	}
	bc->f = f;
	bc->par = par;
	bc->pats = pats;
	bc->npat = npat;
	return bc;
}

void bound_cache_free(struct bound_cache *bc)
{
	if (!bc)
		return;
	for (unsigned i = 0; i < bc->n; i++) {
		for (int p = 0; p < bc->npat; p++)
			cr_bound_result_free(bc->e[i].res[p]);
		free(bc->e[i].res);
		free(bc->e[i].lids);
	}
	free(bc->e);
	free(bc);
}

static bool same_hosts(const struct bound_cache_entry *e,
		       const struct cr_hosts *h)
{
	if (e->count != h->count)
		return false;
	for (uint32_t i = 0; i < h->count; i++)
		if (e->lids[i] != h->ep[i].lid)
			return false;
	return true;
}

/* Computes the bounds for this host order once (cr-ftree has its own). */
struct cr_bound_result *const *bound_cache_get(struct bound_cache *bc,
					       const struct cr_hosts *h)
{
	struct bound_cache_entry *e;
	struct cr_routing *r = NULL;
	struct cr_est *est = NULL;
	struct cli_progress *prog = NULL;
	struct cr_bound_opts o;

	for (unsigned i = 0; i < bc->n; i++)
		if (same_hosts(&bc->e[i], h))
			return bc->e[i].res;
	if (cr_grow(&bc->e, &bc->cap, (size_t)bc->n + 1, sizeof(*bc->e)))
		goto oom;
	e = &bc->e[bc->n];
	memset(e, 0, sizeof(*e));
	e->lids = malloc((h->count + 1) * sizeof(*e->lids));
	e->res = calloc(bc->npat, sizeof(*e->res));
	if (!e->lids || !e->res) {
		free(e->lids);
		free(e->res);
		goto oom;
	}
	e->count = h->count;
	for (uint32_t i = 0; i < h->count; i++)
		e->lids[i] = h->ep[i].lid;
	bc->n++;
	r = cr_routing_new(bc->f);
	est = r ? cr_est_new(bc->f, r, bc->par) : NULL;
	if (!est)
		goto fail;
	if (bc->progress)
		prog = cli_progress_start("bound: patterns",
					  (uint64_t)bc->npat);
	cr_bound_opts_init(&o);
	o.on_phase = bound_phase_done;
	o.on_phase_arg = prog;
	for (int p = 0; p < bc->npat; p++) {
		e->res[p] = cr_bound_run(bc->f, est, &bc->pats[p],
					 pattern_hosts(&bc->pats[p], h),
					 prog ? &o : NULL);
		if (!e->res[p])
			goto fail;
		cli_progress_set(prog, (uint64_t)p + 1);
	}
	cli_progress_end(prog);
	cr_est_free(est);
	cr_routing_free(r);
	return e->res;
oom:
	cr_err("out of memory");
fail:
	cli_progress_end(prog);
	cr_est_free(est);
	cr_routing_free(r);
	return NULL;
}

double bound_ratio(double score, double bound)
{
	return bound > 0 ? score / bound : 0;
}

const struct cli_cmd cli_cmd_bound = {
	.name = "bound",
	.synopsis =
		"--topo FILE [--pattern LIST] [--phases K] [--paths all|minimal]"
		" [--unsplittable|--one-routing] [options]",
	.summary = "Upper bounds on what any routing could give a pattern.",
	.details =
		"For each phase of each pattern (default shift,bisect): the"
		" largest average\nand the largest common fraction of"
		" injection that splittable multi-commodity\nflow reaches"
		" with the links' data rates as capacities (GLPK's simplex)."
		" No\nrouting can do better, so `croute estimate --bound`"
		" divides a routing's\nscore by these. One LP per phase, solved"
		" in path form by column generation\n(columns are paths, not"
		" commodities x links): use --phases K on fabrics\nbeyond ~50"
		" switches (croute(1) gives times). Hosts are in the\norder of"
		" --hosts, else --ca-order, else node descriptions.\n\n--paths minimal bounds only"
		" routings on fewest-hop paths (cr-minhop, cr-lash,\nOpenSM"
		" minhop). --unsplittable puts each flow on one path, as"
		" LFTs do: a MIP\nper phase, for small fabrics (refused"
		" beyond 512 candidate paths between two\nswitches or 40,000"
		" in a phase, exit status 2); with --paths all its\ncandidates"
		" are the paths at most --max-extra-hops longer than the"
		" fewest, and\nthe bound holds only for routings within"
		" that limit. A phase stopped by\n--mip-seconds reports its"
		" search's best open bound (\"unproved\"), never the\nbest"
		" routing found (\"incumbent\").\n--one-routing: one LP"
		" over all phases in which each (source switch,\ndestination)"
		" keeps the same path shares in every phase, as one routing"
		" does.\n--stat avg|min: solve only that statistic's LPs (the other prints"
		" \"-\"); a\nscore that averages, such as the jobs term, needs"
		" only avg.\n--jobs FILE: the jobs pattern (the default pattern then) on"
		" the jobs' hosts in\nSlurm's order; with --orders N also on"
		" N random orders within each job, as\nestimate --orders"
		" draws them with the same --seed.\n",
	.opts = bound_tables,
	.run = bound_run,
};
