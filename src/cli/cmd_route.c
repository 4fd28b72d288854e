// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute route: routes a topology offline, writes opensm-lfts.dump and,
 * for lash, the path-SL and SL2VL files the plugin dumps.
 */
#include <sys/resource.h>

#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/route/incremental.h>
#include <croute/io/lash.h>
#include <croute/model/log.h>
#include <croute/model/node_match.h>
#include <croute/io/topo.h>
#include <croute/tune/jobs_tune.h>

#include "cli.h"

enum {
	KEY_LASH_SL = CLI_KEY_CMD,
	KEY_LASH_SL2VL,
	KEY_SWITCH_SL,
	KEY_INCR_FROM,
	KEY_COMPARE_FULL,
	KEY_JOBS,
	KEY_JOBS_OBJECTIVE,
	KEY_JOBS_BUDGET,
	KEY_JOBS_REFINE,
};

static const struct cli_opt route_opts[] = {
	{"output", 'o', "FILE", "write the LFTs to FILE (default: stdout)"},
	{"sl", KEY_LASH_SL, "FILE",
	 "layered engines: write the path SLs (ibdmchk -c, check --sl)"},
	{"sl2vl", KEY_LASH_SL2VL, "FILE",
	 "layered engines: write the SL2VL tables (ibdmchk -d)"},
	{"lash-sl", KEY_LASH_SL, "FILE", "alias of --sl"},
	{"lash-sl2vl", KEY_LASH_SL2VL, "FILE", "alias of --sl2vl"},
	{"switch-sl", KEY_SWITCH_SL, "FILE",
	 "layered engines: write the path SLs per source and destination"
	 " switch (compact; croute check --sl)"},
	{"incremental-from", KEY_INCR_FROM, "PREV",
	 "route PREV (a topology) in full, then this one by repairing"
	 " PREV's tables (croute_incremental); LIDs are PREV's"},
	{"compare-full", KEY_COMPARE_FULL, NULL,
	 "with --incremental-from: also route in full, report time and"
	 " churn"},
	{"jobs", KEY_JOBS, "FILE",
	 "tune the tables for the running jobs of FILE (JOBID NODELIST a"
	 " line), as the plugin's croute_jobs_file does"},
	{"jobs-objective", KEY_JOBS_OBJECTIVE, "SPEC",
	 "with --jobs: the objective (" CR_JOBS_OBJECTIVE_DEFAULT ")"},
	{"jobs-budget", KEY_JOBS_BUDGET, "S",
	 "with --jobs: seconds of the pass's work, about seconds of CPU on"
	 " 256 hosts (1)"},
	{"jobs-refine", KEY_JOBS_REFINE, "S",
	 "with --jobs: the refine stage's budget, in the same unit, after"
	 " the first stage's (10); 0: the first stage's tables, those the"
	 " plugin installs first"},
	CLI_OPT_END,
};

static const struct cli_opt *const route_tables[] = {
	route_opts,
	cli_topo_opts,
	cli_engine_opts,
	NULL,
};

struct route_ctx {
	struct cli_setup setup;
	const char *output;
	const char *lash_sl, *lash_sl2vl, *switch_sl;
	const char *incr_from;
	bool compare_full;
	const char *jobs;
	struct cr_jobs_tune_params jp;
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
	case KEY_SWITCH_SL:
		c->switch_sl = val;
		break;
	case KEY_INCR_FROM:
		c->incr_from = val;
		break;
	case KEY_COMPARE_FULL:
		c->compare_full = true;
		break;
	case KEY_JOBS:
		c->jobs = val;
		break;
	case KEY_JOBS_OBJECTIVE:
		c->jp.objective = val;
		break;
	case KEY_JOBS_BUDGET: {
		unsigned long v;

		if (cli_uint(c->setup.cmd, "--jobs-budget", val, 100000, &v))
			return -1;
		c->jp.budget = (double)v;
		break;
	}
	case KEY_JOBS_REFINE: {
		unsigned long v;

		if (cli_uint(c->setup.cmd, "--jobs-refine", val, 100000, &v))
			return -1;
		c->jp.refine = (double)v;
		break;
	}
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

/*
 * r, routed without layers, as the one layer it is: SL 0 on every path,
 * every SL on VL 0. -1 (reported) out of memory.
 */
static int one_layer(const struct cr_fabric *f, struct cr_routing *r,
		     const char *engine)
{
	if (cr_routing_alloc_sl(f, r)) {
		cr_err("out of memory for the path SLs");
		return -1;
	}
	memset(r->sl2vl, 0, sizeof(r->sl2vl));
	r->num_layers = 1;
	cr_note("the routing of cr-%s has no layers: the SL files say SL 0"
		" for every path and VL 0 for every SL",
		engine);
	return 0;
}

struct guid_node {
	uint64_t guid;
	uint32_t n;
};

static int cmp_guid_node(const void *a, const void *b)
{
	const struct guid_node *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * f takes from's LIDs, port by port (matched by node GUID), as OpenSM
 * keeps them in its guid2lid cache across sweeps. -1 (reported) when a
 * node of f is not in from.
 */
static int take_lids(struct cr_fabric *f, const struct cr_fabric *from,
		     const char *path)
{
	struct guid_node *v = malloc((from->num_nodes + 1) * sizeof(*v));
	int ret = -1;

	if (!v) {
		cr_err("out of memory");
		return -1;
	}
	for (uint32_t n = 0; n < from->num_nodes; n++)
		v[n] = (struct guid_node){from->nodes[n].guid, n};
	qsort(v, from->num_nodes, sizeof(*v), cmp_guid_node);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct guid_node key = {f->nodes[n].guid, 0};
		const struct guid_node *hit = bsearch(
			&key, v, from->num_nodes, sizeof(*v), cmp_guid_node);
		const struct cr_node *o;

		if (!hit ||
		    from->nodes[hit->n].num_ports != f->nodes[n].num_ports) {
			cr_err("%s: node 0x%016llx is not in the previous"
			       " fabric (--incremental-from): it must only"
			       " lose links or nodes",
			       path, (unsigned long long)f->nodes[n].guid);
			goto out;
		}
		o = &from->nodes[hit->n];
		for (unsigned p = 0; p <= o->num_ports; p++) {
			f->nodes[n].ports[p].lid = o->ports[p].lid;
			f->nodes[n].ports[p].lmc = o->ports[p].lmc;
		}
	}
	ret = cr_fabric_finalize(f);
out:
	free(v);
	return ret;
}

/*
 * --jobs: the tables tuned for the running jobs (jobs_tune.h), in place
 * of r. CLI_OK, or CLI_BAD (reported).
 */
static int route_jobs(struct route_ctx *c, const struct cr_fabric *f,
		      const struct cr_engine *e, struct cr_routing **r)
{
	struct cr_jobs *jobs = cr_jobs_read(f, NULL, c->jobs);
	const struct cr_jobs_start st = {f, e, &c->setup.opts, *r,
					 &c->setup.by};
	struct cr_routing *tuned = NULL;
	struct cr_jobs_gain g;
	struct cr_stop stop = {.deadline = cr_now() + CLI_GIVE_UP_S};

	/* Offline no one waits: the work alone decides, as for cr-auto. */
	c->jp.stop = &stop;
	if (!jobs || cr_jobs_tune(&st, jobs, &c->jp, &tuned, &g)) {
		if (jobs)
			cr_err("%s: the tables could not be tuned for the jobs",
			       c->jobs);
		cr_jobs_free(jobs);
		return CLI_BAD;
	}
	if (cli_verbosity >= CR_LOG_NOTE)
		fprintf(stderr,
			"croute route: %u jobs on %u hosts: jobs term %.4f ->"
			" %.4f (%+.2f%%), shift %.4f -> %.4f, %u moves, churn"
			" %llu entries\n",
			jobs->num_jobs, jobs->hosts.count, g.jobs_before,
			g.jobs_after, 100 * g.gain, g.shift_before,
			g.shift_after, g.moves, (unsigned long long)g.churn);
	cr_jobs_free(jobs);
	cr_routing_free(*r);
	*r = tuned;
	return CLI_OK;
}

/*
 * --incremental-from: the previous topology routed in full (the base),
 * then this one repaired from it, as the plugin does with
 * croute_incremental; a full run when the repair does not apply.
 */
static int route_incremental(struct route_ctx *c, struct cr_fabric **fp,
			     struct cr_routing **rp, const struct cr_engine **e,
			     double *secs)
{
	struct cli_setup *s = &c->setup;
	const char *topo = s->topo;
	struct cr_fabric *pf = NULL, *f = NULL;
	struct cr_routing *pr = NULL, *r = NULL, *fr = NULL;
	struct cr_incr_base *base = NULL;
	struct cr_byproducts iby = {0}; /* the incremental run's */
	struct cr_incr_stats st;
	double t0, base_secs, keep_secs, full_secs = 0;
	int ret = CLI_BAD, rc;

	if (!topo) {
		cli_usage_error(s->cmd, "--incremental-from needs --topo");
		return CLI_BAD;
	}
	s->topo = c->incr_from;
	pf = cli_load(s);
	if (pf)
		pr = cli_route(s, pf, e, &base_secs);
	s->topo = topo;
	if (!pr) {
		if (s->refused)
			ret = CLI_PROBLEMS;
		goto out;
	}
	f = cli_load(s);
	if (!f || take_lids(f, pf, topo))
		goto out;
	t0 = cli_now();
	base = cr_incr_base_new(*e, pf, &s->opts, pr, &s->by);
	keep_secs = cli_now() - t0;
	r = cr_routing_new(f);
	if (!r)
		goto out;
	t0 = cli_now();
	rc = base ? cr_route_incremental(base, *e, f, &s->opts, r, &iby, &st)
		  : 1;
	*secs = cli_now() - t0;
	if (rc) {
		cr_note("croute route: a full run: %s",
			base ? st.reason : "no incremental base");
		cr_routing_free(r);
		r = cli_route(s, f, e, secs);
		if (!r) {
			if (s->refused)
				ret = CLI_PROBLEMS;
			goto out;
		}
	} else if (cli_verbosity >= CR_LOG_NOTE) {
		fprintf(stderr,
			"croute route: incremental from %s: %u switch links"
			" and %u host links down, %u nodes (%u switches)"
			" gone; labels changed toward %u switches; %llu"
			" entries of %u LIDs chosen again; %llu (CA switch,"
			" LID of a switch without CAs) pairs without a legal"
			" path; churn %llu entries; %.3f s (the full run of"
			" %s: %.3f s,"
			" keeping it: %.3f s)\n",
			c->incr_from, st.links_down, st.host_links_down,
			st.nodes_gone, st.switches_gone, st.dests,
			(unsigned long long)st.entries, st.lids,
			(unsigned long long)st.lost_pairs,
			(unsigned long long)cr_routing_churn(pf, pr, f, r),
			*secs, c->incr_from, base_secs, keep_secs);
	}
	if (c->compare_full) {
		fr = cli_route(s, f, e, &full_secs);
		if (!fr)
			goto out;
		fprintf(stderr,
			"croute route: full run: %.3f s, churn %llu entries;"
			" %s run: %.3f s (%.1f%% of the full run), churn %llu"
			" entries; the tables differ in %llu entries\n",
			full_secs,
			(unsigned long long)cr_routing_churn(pf, pr, f, fr),
			rc ? "second full" : "incremental", *secs,
			full_secs > 0 ? 100 * *secs / full_secs : 0,
			(unsigned long long)cr_routing_churn(pf, pr, f, r),
			(unsigned long long)cr_routing_churn(f, fr, f, r));
	}
	if (!rc)
		cr_byproducts_move(&s->by, &iby);
	*fp = f;
	*rp = r;
	f = NULL;
	r = NULL;
	ret = CLI_OK;
out:
	cr_byproducts_release(&iby);
	cr_incr_base_free(base);
	cr_routing_free(fr);
	cr_routing_free(r);
	cr_routing_free(pr);
	cr_fabric_free(f);
	cr_fabric_free(pf);
	return ret;
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
	bool sl_files;
	int ret = CLI_BAD;

	cli_setup_init(&c.setup, cmd);
	c.jp.refine = CR_JOBS_REFINE_DEFAULT;
	ret = cli_parse_options(cmd, argc, argv, route_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	/* Only a layered engine has SLs to write: say so before routing. */
	e = cr_engine_find_any(c.setup.engine ? c.setup.engine : "minhop");
	sl_files = c.lash_sl || c.lash_sl2vl || c.switch_sl;
	if (sl_files && !e->layered && e != &cr_auto_engine) {
		cli_usage_error(cmd,
				"--sl, --sl2vl and --switch-sl need a layered"
				" engine (lash, dfp, hyperx) or auto, not '%s'",
				c.setup.engine ? c.setup.engine : "minhop");
		goto out;
	}
	if (c.compare_full && !c.incr_from) {
		cli_usage_error(cmd, "--compare-full needs --incremental-from");
		goto out;
	}
	if (c.incr_from) {
		ret = route_incremental(&c, &f, &r, &e, &secs);
		if (ret != CLI_OK)
			goto out;
		ret = CLI_BAD;
	} else {
		f = cli_load(&c.setup);
		if (f)
			r = cli_route(&c.setup, f, &e, &secs);
	}
	if (!f)
		goto out;
	if (!r) {
		/* An engine's refusal is a finding about the fabric. */
		if (c.setup.refused)
			ret = CLI_PROBLEMS;
		goto out;
	}
	if (c.jobs && route_jobs(&c, f, e, &r) != CLI_OK)
		goto out;
	/* cr-auto chose an engine without layers: a script asked for the
	 * files before it could know, so they say what holds: one VL. */
	if (sl_files && !r->sl && one_layer(f, r, e->name))
		goto out;
	out = cli_out_open(c.output, &tmp);
	if (!out)
		goto out;
	if (cli_out_close(out, tmp, c.output, !cr_lft_write_dump(out, f, r)))
		goto out;
	if (write_lash_file(c.lash_sl, cr_lash_write_psl, f, r) ||
	    write_lash_file(c.lash_sl2vl, cr_lash_write_sl2vl, f, r) ||
	    write_lash_file(c.switch_sl, cr_lash_write_switch_psl, f, r))
		goto out;
	if (cli_verbosity >= CR_LOG_NOTE) {
		struct rusage ru;

		/* Peak memory: what sizing a large fabric's SM host needs. */
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr,
			"croute route: cr-%s routed %u switches, %u LIDs"
			" (max LID %u) in %.3f s, peak memory %ld MB\n",
			e->name, f->num_switches, cli_count_lids(f), f->max_lid,
			secs, ru.ru_maxrss / 1024);
	}
	/* Tables written, but an "error:" said they fall short (cr-updn's
	 * roots strand CAs): a problem found, not a clean run. */
	ret = cr_log_errors_printed() ? CLI_PROBLEMS : CLI_OK;
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
	.details =
		"LIDs come from --lids, else are assigned with --lmc, else"
		" are the topology's,\nelse are assigned with LMC 0 in node"
		" order. A one-line summary with the\nrouting time goes to"
		" stderr. With a layered engine (lash, dfp, hyperx),"
		" --sl and\n--sl2vl write the files ibdmchk -c and -d and croute"
		" check --sl and --sl2vl\nread, as the plugin dumps them;"
		" --lash-sl and --lash-sl2vl are their aliases.\n"
		"With --jobs, the tables are then tuned for the running"
		" jobs (a jobs file,\ncroute(8)) by the improvement pass,"
		" as the plugin would install them.\n",
	.opts = route_tables,
	.run = route_run,
};
