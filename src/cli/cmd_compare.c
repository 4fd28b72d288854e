// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute compare: one fabric routed by several engines and port-selection
 * toggles, side by side: routing time, reachability, credit loops and the
 * estimated bandwidth of the patterns. The table an administrator reads to
 * choose an engine. An engine that refuses the fabric is a row saying why,
 * not a failure of the command.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/check.h>
#include <croute/model/buf.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "bound_cli.h"
#include "compare_cli.h"
#include "est_cli.h"
#include "progress.h"

enum {
	KEY_ENGINES = CLI_KEY_CMD,
	KEY_AUTO,
	KEY_BOUND,
	KEY_JSON,
	KEY_TIMES,
};

static const struct cli_opt compare_opts[] = {
	{"json", KEY_JSON, NULL, "write the table as JSON (croute(1))"},
	{"output", 'o', "FILE", "write the report to FILE (default: stdout)"},
	{"times", KEY_TIMES, NULL,
	 "text report: the routing time column (as -v)"},
	{"threads", CLI_KEY_THREADS, "N",
	 "threads (0: online CPUs up to 8); same tables for any N"},
	{"engines", KEY_ENGINES, "LIST",
	 "ENGINE[+ps][+rgs][+bal][+glob][+first][+rr][+roots=R],... (ps:"
	 " --port-shifting, rgs: --remote-guid-sorting, bal: --lash-balance,"
	 " glob: --balance global, first: --balance first, rr: lash's rip-up"
	 " and reroute, roots: updn's, as in --auto-candidates)"},
	{"auto", KEY_AUTO, NULL,
	 "also cr-auto: its row and its ranked candidates"},
	CLI_AUTO_OPTS,
	CLI_OPTIMIZE_OPTS,
	CLI_GUID_OPTS,
	{"bound", KEY_BOUND, NULL,
	 "also each average as a fraction of croute bound's"},
	CLI_OPT_END,
};

static const struct cli_opt *const compare_tables[] = {
	compare_opts, cli_topo_opts, cli_live_opts,
	est_cli_opts, est_more_opts, NULL,
};

/*
 * Each engine plain; minhop and updn also with each toggle and both, and
 * the variants cr-auto picks most (glob on trees, first on meshes, the
 * top roots and lash+first on tori, lash balanced globally on random
 * graphs).
 */
#define DEFAULT_ENGINES                                                       \
	"minhop,minhop+ps,minhop+rgs,minhop+ps+rgs,minhop+glob,minhop+first," \
	"updn,updn+ps,updn+rgs,updn+ps+rgs,updn+glob,updn+roots=ecc+glob,"    \
	"updn+roots=top+glob,ftree,lash,lash+glob,lash+bal+glob,lash+first"

struct compare_ctx {
	struct cli_setup setup;
	struct est_setup est;
	const char *engines;
	bool with_auto;
	char *auto_table; /* cr-auto's, printed after the table */
	struct cli_progress *prog; /* held while a row is printed */
	int optw; /* the options column's width */
	bool bound;
	struct bound_cache *bc;
	bool json, times;
	const char *output;
	unsigned rows; /* JSON rows written */
	struct compare_lmc lmc; /* --lmc: num_lmc > 0 */
};

static int compare_opt(void *arg, int key, const char *val)
{
	struct compare_ctx *c = arg;
	int ret;

	/* a list of LMCs, each assigned in turn: not the fabric's one */
	if (key == CLI_KEY_LMC)
		return compare_lmc_parse(&c->lmc, c->setup.cmd, val);
	if (key == EST_KEY_PATHS)
		c->lmc.paths_given = true;
	ret = est_cli_opt(&c->setup, &c->est, key, val);
	if (ret <= 0)
		return ret;
	if (key == KEY_AUTO)
		c->with_auto = true;
	else if (key == KEY_JSON)
		cli_json_on(&c->json);
	else if (key == KEY_BOUND)
		c->bound = true;
	else if (key == KEY_TIMES)
		c->times = true;
	else if (key == 'o')
		c->output = val;
	else
		c->engines = val; /* KEY_ENGINES */
	return 0;
}

/* The --engines list: cr_engine_set_parse()'s syntax, as cr-auto's. */
static int parse_sets(const struct cli_cmd *cmd, const char *list,
		      bool have_root_file, struct cr_engine_set **sets,
		      size_t *cap)
{
	char *copy = strdup(list), *save = NULL, *tok;
	struct cr_engine_set *out = NULL;
	int n = 0;

	*cap = 0;

	if (!copy)
		goto oom;
	for (tok = strtok_r(copy, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		if (cr_grow(&out, cap, (size_t)n + 1, sizeof(*out)))
			goto oom;
		if (cr_engine_set_parse(tok, &out[n], "--engines"))
			goto fail;
		if (out[n].roots_file && !have_root_file) {
			cli_usage_error(cmd, "--engines: %s needs --root-guids",
					out[n].name);
			goto fail;
		}
		n++;
	}
	if (!n) {
		cli_usage_error(cmd, "--engines: the list is empty");
		goto fail;
	}
	free(copy);
	*sets = out;
	return n;
oom:
	cr_err("out of memory");
fail:
	free(copy);
	free(out);
	return -1;
}

/*
 * While an engine runs, its errors are kept, not printed: the first is
 * the reason it gives for refusing the fabric, shown in the table.
 */
static char refusal[1024];

static void capture(void *arg, enum cr_log_level level, const char *msg)
{
	if (level == CR_LOG_ERROR && !refusal[0])
		snprintf(refusal, sizeof(refusal), "%s", msg);
	/* Ten engine runs' chatter would bury the table: -v shows it. */
	if (cli_verbosity >= CR_LOG_VERBOSE && (int)level < cli_verbosity)
		fprintf(stderr, "croute: %s\n", msg);
}

static void pattern_label(const struct cr_pattern *p, char *buf, size_t len)
{
	if (p->kind == CR_PAT_FLOWS)
		snprintf(buf, len, "flows");
	else if (p->count)
		snprintf(buf, len, "%s:%u", cr_pattern_kind_name(p->kind),
			 p->count);
	else
		snprintf(buf, len, "%s", cr_pattern_kind_name(p->kind));
}

static void print_header(const struct cr_pattern *pats, int npat, bool bound,
			 int optw, bool orders, bool times)
{
	fprintf(cli_report, "%-10s %-*s", "engine", optw, "options");
	if (times)
		fprintf(cli_report, " %8s", "time s");
	fprintf(cli_report, " %11s %6s", "unreachable", "c-loop");
	for (int i = 0; i < npat; i++) {
		char l[32], h[48];

		pattern_label(&pats[i], l, sizeof(l));
		snprintf(h, sizeof(h), "%s avg", l);
		fprintf(cli_report, " %11s %8s", h, "min");
		if (orders)
			fprintf(cli_report, " %9s %9s", "rnd mean",
				"rnd worst");
		if (bound)
			fprintf(cli_report, " %8s", "avg/bd");
	}
	fprintf(cli_report, "\n");
}

/*
 * One row: route, check, estimate. Returns 1 when the engine refused, 0
 * when it routed, -1 on an error that ends the command (bad input).
 */
/* The start of a row: text columns, or a JSON object left open. */
static void row_begin(struct compare_ctx *c, const char *engine,
		      const char *opts)
{
	if (!c->json) {
		fprintf(cli_report, "%-10s %-*s", engine, c->optw,
			opts[0] ? opts : "-");
		return;
	}
	fputs(c->rows++ ? ",\n  {\"engine\": " : "\n  {\"engine\": ",
	      cli_report);
	cli_json_str(cli_report, engine);
	fputs(", \"options\": ", cli_report);
	cli_json_str(cli_report, opts);
}

/* One row's estimates through cr_est_patterns(). */
struct compare_est {
	struct compare_ctx *c;
	const struct cr_fabric *f;
	const struct cr_routing *r;
	const struct cr_byproducts *by; /* its CA order */
	const struct cr_pattern *pats;
	struct cr_hosts *hosts;
	struct cr_bound_result *const *bres;
};

static const struct cr_hosts *row_hosts(void *arg)
{
	struct compare_est *row = arg;
	const char *how;

	row->hosts = est_setup_hosts(&row->c->est, row->f, row->by, &how);
	if (!row->hosts)
		return NULL;
	if (row->c->bc) {
		row->bres = bound_cache_get(row->c->bc, row->hosts);
		if (!row->bres)
			return NULL;
	}
	return row->hosts;
}

/* The row's columns for pattern i; the first that fails ends the row. */
static int row_result(void *arg, int i, struct cr_est_result *res)
{
	struct compare_est *row = arg;
	struct cr_bound_result *const *bres = row->bres;

	if (!res)
		return -1;
	if (row->c->json) {
		char l[32];

		pattern_label(&row->pats[i], l, sizeof(l));
		fprintf(cli_report, "%s{\"pattern\": ", i ? ", " : "");
		cli_json_str(cli_report, l);
		fprintf(cli_report, ", \"avg_frac\": %.6g, \"min_frac\": %.6g",
			res->avg_frac, res->min_frac);
		if (res->orders.count)
			fprintf(cli_report,
				", \"orders\": %u, \"orders_mean_avg\": %.6g,"
				" \"orders_worst_avg\": %.6g",
				res->orders.count, res->orders.mean_avg,
				res->orders.worst_avg);
		if (bres)
			fprintf(cli_report, ", \"avg_over_bound\": %.6g",
				bound_ratio(res->avg_frac, bres[i]->avg_frac));
		fputs("}", cli_report);
	} else {
		fprintf(cli_report, " %11.4f %8.4f", res->avg_frac,
			res->min_frac);
		if (res->orders.count)
			fprintf(cli_report, " %9.4f %9.4f",
				res->orders.mean_avg, res->orders.worst_avg);
		else if (row->c->est.orders)
			fprintf(cli_report, " %9s %9s", "-", "-");
		if (bres)
			fprintf(cli_report, " %8.3f",
				bound_ratio(res->avg_frac, bres[i]->avg_frac));
	}
	fflush(cli_report);
	cr_est_result_free(res);
	return 0;
}

static const struct cr_est_each row_each = {
	.hosts = row_hosts,
	.result = row_result,
};

void compare_set_opts(const struct cr_engine_set *s, char *buf, size_t len)
{
	const char *on[] = {
		s->ps ? "ps" : NULL,
		s->rgs ? "rgs" : NULL,
		s->bal ? "bal" : NULL,
		s->rr	  ? "rr"
		: s->glob ? "glob"
			  : NULL,
		s->first ? "first" : NULL,
		s->roots_file		   ? "roots=file"
		: s->roots == CR_ROOTS_ECC ? "roots=ecc"
		: s->roots == CR_ROOTS_TOP ? "roots=top"
					   : NULL,
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]) && n < len; i++)
		if (on[i])
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? "+" : "", on[i]);
}

/* cr-auto's row: its winner ("updn+glob"), from the ranked table. */
static void auto_winner(const char *table, char *buf, size_t len)
{
	const char *line = table;

	snprintf(buf, len, "-");
	for (; line && *line; line = strchr(line, '\n'), line += !!line) {
		const char *end = strchr(line, '\n');
		size_t l = end ? (size_t)(end - line) : strlen(line);
		int rank, num;
		char name[48];

		if (l < 7 || strncmp(line + l - 7, " WINNER", 7) ||
		    sscanf(line, "%d %d %47s", &rank, &num, name) != 3)
			continue;
		snprintf(buf, len, "=%s", name);
		return;
	}
}

struct cr_routing *compare_route_set(struct cli_setup *setup,
				     const struct cr_fabric *f,
				     const struct cr_engine_set *s,
				     double *secs, char *why, size_t len)
{
	const struct cr_engine *e;
	struct cr_routing *r;

	setup->engine = s->e->name;
	setup->opts.port_shifting = s->ps;
	setup->opts.remote_guid_sorting = s->rgs;
	setup->opts.lash_balance = s->bal;
	setup->opts.balance_global = s->glob;
	setup->opts.balance_first = s->first;
	setup->opts.balance_rounds = s->rr ? cr_rr_rounds(s->e) : 0;
	setup->opts.updn_roots = s->roots;
	refusal[0] = '\0';
	cr_log_set(capture, NULL, (enum cr_log_level)cli_verbosity);
	r = cli_route(setup, f, &e, secs);
	cr_log_set(NULL, NULL, (enum cr_log_level)cli_verbosity);
	if (why != refusal)
		snprintf(why, len, "%s", refusal);
	return r;
}

static int compare_row(struct compare_ctx *c, const struct cr_fabric *f,
		       const struct cr_engine_set *s,
		       const struct cr_pattern *pats, int npat)
{
	struct cr_check_report rep;
	const struct cr_engine *e;
	struct cr_routing *r;
	struct compare_est row = {0};
	char opts[64];
	double secs = 0;
	int ret = -1;

	if (!s->e) {
		/* The tables in place (--live, --dump-dir): read, not routed. */
		c->setup.engine = NULL;
		r = cli_routing(&c->setup, f, c->setup.installed, &e, &secs);
		row_begin(c, "installed", "");
		if (!r) {
			if (!c->json)
				fprintf(cli_report, " unreadable\n");
			return -1;
		}
		if (c->json)
			fputs(", \"seconds\": null", cli_report);
		else if (c->times)
			fprintf(cli_report, " %8s", "-");
		fflush(cli_report);
		goto score;
	}
	compare_set_opts(s, opts, sizeof(opts));
	r = compare_route_set(&c->setup, f, s, &secs, refusal, sizeof(refusal));
	if (c->setup.by.auto_table) {
		free(c->auto_table);
		c->auto_table = strdup(c->setup.by.auto_table);
		auto_winner(c->auto_table, opts, sizeof(opts));
	}
	cli_progress_hold(c->prog, true);
	row_begin(c, s->e->name, opts);
	if (!r) {
		if (c->json) {
			fputs(", \"refused\": ", cli_report);
			cli_json_str(cli_report, refusal[0] ? refusal : "");
			fputs("}", cli_report);
		} else {
			fprintf(cli_report, " refused: %s\n",
				refusal[0] ? refusal : "(no reason)");
		}
		fflush(cli_report);
		return 1;
	}
	if (c->json)
		fprintf(cli_report, ", \"seconds\": %.3f", secs);
	else if (c->times)
		fprintf(cli_report, " %8.3f", secs);
	fflush(cli_report);
score:
	if (cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep)) {
		fprintf(cli_report, "\n");
		cr_err("%s: the check could not run",
		       s->e ? s->e->name : "installed");
		goto out;
	}
	if (c->json)
		fprintf(cli_report,
			", \"unreachable\": %" PRIu64
			", \"credit_loop_vls\": %" PRIu64 ", \"patterns\": [",
			rep.unreachable + rep.loops, rep.credit_loops);
	else
		fprintf(cli_report, " %11" PRIu64 " %6" PRIu64,
			rep.unreachable + rep.loops, rep.credit_loops);
	row.c = c;
	row.f = f;
	row.r = r;
	row.by = &c->setup.by;
	row.pats = pats;
	if (cr_est_patterns(f, r, &c->est.par, pats, npat, &row_each, &row)) {
		fprintf(cli_report, "\n");
		goto out;
	}
	fputs(c->json ? "]}" : "\n", cli_report);
	ret = 0;
out:
	cr_hosts_free(row.hosts);
	cr_routing_free(r);
	return ret;
}

static void print_legend(const struct compare_ctx *c, const struct cr_fabric *f)
{
	fprintf(cli_report,
		"# croute compare: %s, %u switches, %u LIDs\n"
		"# options: ps --port-shifting, rgs --remote-guid-sorting,"
		" bal --lash-balance,\n# glob --balance global, first"
		" --balance first, roots=R updn's roots (ecc, top, file);\n#"
		" auto: =the candidate cr-auto picked;\n# unreachable: (CA port, LID) pairs"
		" without a path, forwarding loops included;\n# c-loop:"
		" virtual lanes with a credit loop; rates: fractions of the"
		" injection rate\n# (Gb/s are data rates: 4xQDR = 32 Gb/s,"
		" not the 40 Gb/s signalling rate)\n",
		c->setup.topo, f->num_switches, cli_count_lids(f));
	if (c->est.orders)
		fprintf(cli_report,
			"# rnd mean, rnd worst: the avg on %lu random host"
			" orders (seed %llu)\n",
			c->est.orders, c->est.seed);
	/* "@K" terms average random orders: the rows have the own one */
	if (c->with_auto)
		fprintf(cli_report,
			"# the ranking after the table: cr-auto's objective,"
			" shift on the rows' phases\n# (its first line gives"
			" them); \"@K\" terms also on K random orders\n");
}

/* --lmc's table: every engine plain, unless --engines says otherwise. */
static const char *every_engine(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; cr_engines[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "",
				      cr_engines[i]->name);
	return buf;
}

/* What --lmc cannot go with: it assigns LIDs itself, row by row. */
static int lmc_usage(struct compare_ctx *c)
{
	const char *other = c->bound		? "--bound"
			    : c->setup.lids	? "--lids"
			    : c->setup.live	? "--live"
			    : c->setup.dump_dir ? "--dump-dir"
						: NULL;

	if (!other)
		return 0;
	cli_usage_error(c->setup.cmd,
			"--lmc assigns the LIDs at each LMC:"
			" not with %s",
			other);
	return -1;
}

static int compare_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct compare_ctx c = {0};
	struct cr_engine_set *sets = NULL;
	struct cr_pattern *pats = NULL;
	struct cr_fabric *f = NULL;
	int nsets = 0, npat = 0, routed = 0, ret = CLI_BAD;
	bool failed = false;
	char all[128];
	size_t cap;

	cli_setup_init(&c.setup, cmd);
	c.setup.live_layers = true; /* its credit-loop column */
	est_setup_init(&c.est, cmd);
	ret = cli_parse_options(cmd, argc, argv, compare_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	if (c.lmc.num_lmc && lmc_usage(&c))
		goto out;
	nsets = parse_sets(cmd,
			   c.engines	   ? c.engines
			   : c.lmc.num_lmc ? every_engine(all, sizeof(all))
					   : DEFAULT_ENGINES,
			   c.setup.root_guids != NULL, &sets, &cap);
	if (nsets < 0)
		goto out;
	if (c.with_auto) {
		if (cr_grow(&sets, &cap, (size_t)nsets + 1, sizeof(*sets))) {
			cr_err("out of memory");
			goto out;
		}
		memset(&sets[nsets], 0, sizeof(*sets));
		sets[nsets++].e = &cr_auto_engine;
	}
	/* cr-auto's winner is known only once it ran: room for any */
	c.optw = c.with_auto ? 20 : 8;
	for (int i = 0; i < nsets; i++) {
		char o[64];

		compare_set_opts(&sets[i], o, sizeof(o));
		c.optw = (int)strlen(o) > c.optw ? (int)strlen(o) : c.optw;
	}
	npat = est_setup_patterns(&c.est, &pats);
	if (npat < 0)
		goto out;
	/*
	 * cr-auto would size shift's sample to its budget: the ranking's
	 * figures would then not be the table's, on the same routing.
	 */
	for (int i = 0; i < npat; i++) {
		if (pats[i].kind != CR_PAT_SHIFT)
			continue;
		c.setup.auto_conf.shift_phases =
			pats[i].count ? pats[i].count : UINT32_MAX;
		c.setup.auto_conf.shift_seed = pats[i].seed;
		break;
	}
	/* The tables in place get a row of their own, "installed". */
	if ((c.setup.live || c.setup.dump_dir) &&
	    !cli_installed_lfts(&c.setup, NULL))
		goto out;
	f = cli_load(&c.setup);
	if (!f || est_setup_jobs(&c.est, f, pats, npat) ||
	    cli_report_open(c.output))
		goto out;
	c.times = cli_report_times(c.times);
	if (c.lmc.num_lmc) {
		c.lmc.setup = &c.setup;
		c.lmc.est = &c.est;
		c.lmc.json = c.json;
		c.lmc.sets = sets;
		c.lmc.nsets = nsets;
		c.lmc.pats = pats;
		c.lmc.npat = npat;
		ret = compare_lmc_table(&c.lmc, f);
		if (ret == CLI_OK || ret == CLI_PROBLEMS)
			ret = cli_report_written(ret);
		goto out;
	}
	if (c.json) {
		cli_json_begin(cli_report, "compare");
		fputs("\"source\": ", cli_report);
		cli_json_str(cli_report, c.setup.topo);
		fprintf(cli_report,
			", \"switches\": %u, \"lids\": %u, \"rows\": [",
			f->num_switches, cli_count_lids(f));
	} else {
		print_legend(&c, f);
	}
	if (c.bound) {
		c.bc = bound_cache_new(f, &c.est.par, pats, npat);
		if (!c.bc)
			goto out;
	}
	if (!c.json)
		print_header(pats, npat, c.bound, c.optw, c.est.orders > 0,
			     c.times);
	if (c.setup.live || c.setup.dump_dir) {
		const struct cr_engine_set installed = {0};

		c.setup.engine = NULL;
		if (compare_row(&c, f, &installed, pats, npat) < 0)
			goto out;
	}
	c.prog = cli_progress_start("compare: engines", (uint64_t)nsets);
	for (int i = 0, r = 0; i < nsets && r >= 0; i++) {
		cli_progress_set(c.prog, (uint64_t)i);
		cli_progress_hold(c.prog, false);
		r = compare_row(&c, f, &sets[i], pats, npat);
		routed += r == 0;
		failed = r < 0;
	}
	cli_progress_end(c.prog);
	if (failed)
		goto out;
	if (c.json) {
		fputs("\n ]", cli_report);
		if (c.auto_table) {
			fputs(", \"auto_table\": ", cli_report);
			cli_json_str(cli_report, c.auto_table);
		}
		cli_json_warnings(cli_report);
		fputs("}\n", cli_report);
	} else if (c.auto_table) {
		fprintf(cli_report, "\n%s", c.auto_table);
	}
	/* Nothing could route the fabric: that is a problem to report. */
	ret = cli_report_written(routed ? CLI_OK : CLI_PROBLEMS);
out:
	ret = cli_report_done(ret);
	free(c.auto_table);
	free(sets);
	bound_cache_free(c.bc);
	if (npat > 0)
		cr_pattern_list_free(pats, npat);
	cr_fabric_free(f);
	est_setup_release(&c.est);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_compare = {
	.name = "compare",
	.synopsis = "--topo FILE [--engines LIST] [--pattern LIST] [options]",
	.summary = "Compare engines and port-selection toggles on one fabric.",
	.details =
		"Routes the fabric with each engine and toggle set of"
		" --engines (default:\n" DEFAULT_ENGINES ")\nand prints one"
		" table: routing time, unreachable (CA port, LID) pairs,"
		" virtual\nlanes with a credit loop, and each pattern's average"
		" and minimum flow rate\n(fraction of injection; default"
		" patterns shift,bisect). An engine that cannot\nroute the"
		" fabric shows \"refused\" and its reason. Use --phases K on"
		" large fabrics.\nWith --auto, a last row for cr-auto and its"
		" ranked candidates, as the\nplugin logs them. With --bound,"
		" avg/bd is each average over croute\nbound's for the same"
		" phases. With --lmc 0,1,2, each engine at each LMC: LIDs,"
		" LID\nspace left, LFT entries and blocks, the share of host"
		" pairs with distinct\npaths, and the scores under each path"
		" model (--paths: that one). Exit\nstatus 1 when no engine"
		" could route the fabric.\n",
	.opts = compare_tables,
	.run = compare_run,
};
