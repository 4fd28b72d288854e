// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute compare --lmc L,...: what LMC would give, before setting it.
 * Each engine at each LMC: the LIDs given as OpenSM gives them on a
 * first sweep, the LID space left, the LFT entries and blocks a sweep
 * uploads, the share of host pairs whose LIDs take distinct paths, and
 * the patterns' scores under each path model (base, split, indep). An
 * LMC the fabric has no LIDs for is refused before any row, with the
 * count it would need.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/lmc_paths.h>
#include <croute/model/log.h>

#include "compare_cli.h"

/* OpenSM uploads LFTs in blocks of 64 entries (LinearForwardingTable). */
#define LFT_BLOCK 64u
/* the unicast LIDs, 1 to 0xBFFF */
#define UNICAST_LIDS ((unsigned)CR_MAX_UCAST_LID)

static const enum cr_est_paths all_models[] = {
	CR_PATHS_BASE,
	CR_PATHS_SPLIT,
	CR_PATHS_INDEP,
};
#define NUM_MODELS 3
/* Columns enough: each pattern takes up to three */
#define LMC_MAX_PATTERNS 8

int compare_lmc_parse(struct compare_lmc *l, const struct cli_cmd *cmd,
		      const char *arg)
{
	const char *p = arg;

	l->num_lmc = 0;
	do {
		char tok[8];
		size_t len = strcspn(p, ",");
		unsigned long v;

		if (!len || len >= sizeof(tok)) {
			cli_usage_error(cmd,
					"--lmc: '%s' is not a list of"
					" LMCs (0..%u)",
					arg, CR_MAX_LMC);
			return -1;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (cli_uint(cmd, "--lmc", tok, CR_MAX_LMC, &v))
			return -1;
		for (unsigned i = 0; i < l->num_lmc; i++)
			if (l->lmc[i] == v) {
				cli_usage_error(cmd, "--lmc: %lu twice", v);
				return -1;
			}
		if (l->num_lmc > CR_MAX_LMC) {
			cli_usage_error(cmd, "--lmc: at most %u LMCs",
					CR_MAX_LMC + 1);
			return -1;
		}
		l->lmc[l->num_lmc++] = (unsigned)v;
		p += len;
	} while (*p++ == ',');
	return 0;
}

/* One (engine, LMC) row's figures. */
struct lmc_row {
	struct compare_lmc *l;
	const struct cr_fabric *f;
	struct cr_hosts *hosts;
	enum cr_est_paths model;
	/* per pattern and model: the score, and min and orders for JSON */
	double avg[NUM_MODELS][LMC_MAX_PATTERNS];
	double min[NUM_MODELS][LMC_MAX_PATTERNS];
	double rnd[NUM_MODELS][LMC_MAX_PATTERNS];
	double worst[NUM_MODELS][LMC_MAX_PATTERNS];
};

static const struct cr_hosts *row_hosts(void *arg)
{
	struct lmc_row *row = arg;
	const char *how;

	if (!row->hosts)
		row->hosts = est_setup_hosts(row->l->est, row->f,
					     &row->l->setup->by, &how);
	return row->hosts;
}

static int row_result(void *arg, int i, struct cr_est_result *res)
{
	struct lmc_row *row = arg;
	unsigned m = (unsigned)row->model;

	if (!res)
		return -1;
	if (i < LMC_MAX_PATTERNS) {
		row->avg[m][i] = res->avg_frac;
		row->min[m][i] = res->min_frac;
		row->rnd[m][i] = res->orders.mean_avg;
		row->worst[m][i] = res->orders.worst_avg;
	}
	cr_est_result_free(res);
	return 0;
}

static const struct cr_est_each row_each = {
	.hosts = row_hosts,
	.result = row_result,
};

/* The models the table shows: --paths's alone, else all three. */
static unsigned models(const struct compare_lmc *l, enum cr_est_paths *out)
{
	if (l->paths_given) {
		out[0] = l->est->par.paths;
		return 1;
	}
	memcpy(out, all_models, sizeof(all_models));
	return NUM_MODELS;
}

static void pattern_name(const struct cr_pattern *p, char *buf, size_t len)
{
	if (p->kind == CR_PAT_FLOWS)
		snprintf(buf, len, "flows");
	else if (p->count)
		snprintf(buf, len, "%s:%u", cr_pattern_kind_name(p->kind),
			 p->count);
	else
		snprintf(buf, len, "%s", cr_pattern_kind_name(p->kind));
}

static void print_legend(const struct compare_lmc *l, const struct cr_fabric *f)
{
	const struct est_setup *e = l->est;

	fprintf(cli_report,
		"# croute compare --lmc: %s, %u switches; LIDs as OpenSM"
		" gives them on a\n# first sweep at each LMC. top LID: the"
		" highest LID given (alignment gaps\n# count); left: of the"
		" %u unicast LIDs; LFT entries, blocks: what a sweep\n#"
		" uploads to all switches (%u entries a block); distinct:"
		" the share of\n# host pairs whose 2^LMC LIDs take pairwise"
		" distinct paths.\n",
		l->setup->topo, f->num_switches, UNICAST_LIDS, LFT_BLOCK);
	fprintf(cli_report,
		"# scores: each pattern's average flow rate (fraction of"
		" injection) under\n# each path model: base (the base LID"
		" only), split (striped evenly over\n# the LIDs, as UCX),"
		" indep (each LID its own flow: an upper reference)");
	if (e->par.lanes)
		fprintf(cli_report, "; at most %u lanes", e->par.lanes);
	if (e->orders)
		fprintf(cli_report,
			";\n# the mean over %lu random host orders (seed %llu)",
			e->orders, e->seed);
	fprintf(cli_report, "\n");
}

static void print_header(const struct compare_lmc *l, int optw)
{
	enum cr_est_paths m[NUM_MODELS];
	unsigned nm = models(l, m);

	fprintf(cli_report, "%-10s %-*s %3s %6s %6s %11s %8s %8s", "engine",
		optw, "options", "LMC", "topLID", "left", "LFT entries",
		"blocks", "distinct");
	for (int i = 0; i < l->npat; i++)
		for (unsigned k = 0; k < nm; k++) {
			char p[32], h[48];

			pattern_name(&l->pats[i], p, sizeof(p));
			snprintf(h, sizeof(h), "%s %s", p,
				 cr_est_paths_name(m[k]));
			fprintf(cli_report, " %12s", h);
		}
	fprintf(cli_report, "\n");
}

/* The figures that do not need the estimator. */
struct lmc_cost {
	uint32_t top; /* highest LID */
	uint64_t entries, blocks;
	struct cr_lmc_paths paths;
};

static void row_begin(struct compare_lmc *l, unsigned *rows,
		      const struct cr_engine_set *s, int optw, unsigned lmc)
{
	char opts[64];

	compare_set_opts(s, opts, sizeof(opts));
	if (!l->json) {
		fprintf(cli_report, "%-10s %-*s %3u", s->e->name, optw,
			opts[0] ? opts : "-", lmc);
		return;
	}
	fputs((*rows)++ ? ",\n  {\"engine\": " : "\n  {\"engine\": ",
	      cli_report);
	cli_json_str(cli_report, s->e->name);
	fputs(", \"options\": ", cli_report);
	cli_json_str(cli_report, opts);
	fprintf(cli_report, ", \"lmc\": %u", lmc);
}

static double share(const struct cr_lmc_paths *p)
{
	return p->pairs ? (double)p->distinct / (double)p->pairs : 0;
}

static void print_cost(const struct compare_lmc *l, const struct lmc_cost *c)
{
	if (l->json) {
		fprintf(cli_report,
			", \"top_lid\": %u, \"lids_left\": %u, \"lft_entries\":"
			" %" PRIu64 ", \"lft_blocks\": %" PRIu64
			", \"host_pairs\": %" PRIu64
			", \"distinct_pairs\": %" PRIu64
			", \"broken_pairs\": %" PRIu64 ", \"distinct_share\":"
			" %.6g",
			c->top, UNICAST_LIDS - c->top, c->entries, c->blocks,
			c->paths.pairs, c->paths.distinct, c->paths.broken,
			share(&c->paths));
		return;
	}
	fprintf(cli_report, " %6u %6u %11" PRIu64 " %8" PRIu64 " %8.4f", c->top,
		UNICAST_LIDS - c->top, c->entries, c->blocks, share(&c->paths));
}

static void print_scores(const struct compare_lmc *l, const struct lmc_row *row)
{
	enum cr_est_paths m[NUM_MODELS];
	unsigned nm = models(l, m);
	bool rnd = l->est->orders > 0;

	if (l->json)
		fputs(", \"patterns\": [", cli_report);
	for (int i = 0; i < l->npat && i < LMC_MAX_PATTERNS; i++) {
		char p[32];

		if (!l->json) {
			for (unsigned k = 0; k < nm; k++)
				fprintf(cli_report, " %12.4f",
					rnd ? row->rnd[m[k]][i]
					    : row->avg[m[k]][i]);
			continue;
		}
		pattern_name(&l->pats[i], p, sizeof(p));
		fprintf(cli_report, "%s{\"pattern\": ", i ? ", " : "");
		cli_json_str(cli_report, p);
		fputs(", \"paths\": {", cli_report);
		for (unsigned k = 0; k < nm; k++) {
			fprintf(cli_report,
				"%s\"%s\": {\"avg_frac\": %.6g,"
				" \"min_frac\": %.6g",
				k ? ", " : "", cr_est_paths_name(m[k]),
				row->avg[m[k]][i], row->min[m[k]][i]);
			if (rnd)
				fprintf(cli_report,
					", \"orders_mean_avg\": %.6g,"
					" \"orders_worst_avg\": %.6g",
					row->rnd[m[k]][i], row->worst[m[k]][i]);
			fputs("}", cli_report);
		}
		fputs("}}", cli_report);
	}
	fputs(l->json ? "]}" : "\n", cli_report);
}

/* The estimates of one routed row; at LMC 0 every model is base's. */
static int estimate_row(struct compare_lmc *l, const struct cr_fabric *f,
			const struct cr_routing *r, unsigned lmc,
			struct lmc_row *row)
{
	enum cr_est_paths m[NUM_MODELS];
	unsigned nm = models(l, m);
	struct cr_est_params par = l->est->par;
	int ret = 0;

	row->l = l;
	row->f = f;
	for (unsigned k = 0; k < nm && !ret; k++) {
		unsigned from = (unsigned)CR_PATHS_BASE;

		par.paths = m[k];
		row->model = m[k];
		if (lmc == 0 && k > 0) {
			/* the models agree bit for bit at LMC 0 */
			from = (unsigned)m[0];
			memcpy(row->avg[m[k]], row->avg[from],
			       sizeof(row->avg[0]));
			memcpy(row->min[m[k]], row->min[from],
			       sizeof(row->min[0]));
			memcpy(row->rnd[m[k]], row->rnd[from],
			       sizeof(row->rnd[0]));
			memcpy(row->worst[m[k]], row->worst[from],
			       sizeof(row->worst[0]));
			continue;
		}
		ret = cr_est_patterns(f, r, &par, l->pats, l->npat, &row_each,
				      row);
	}
	return ret;
}

/* One row; 1 when the engine refused, -1 on an error ending the table. */
static int lmc_row(struct compare_lmc *l, struct cr_fabric *f,
		   const struct cr_engine_set *s, unsigned lmc, int optw,
		   unsigned *rows)
{
	struct lmc_row *row = calloc(1, sizeof(*row));
	struct lmc_cost cost = {0};
	struct cr_routing *r = NULL;
	char why[1024];
	double secs = 0;
	int ret = -1;

	if (!row) {
		cr_err("out of memory");
		return -1;
	}
	if (cr_fabric_assign_lids(f, lmc))
		goto out;
	cost.top = f->max_lid;
	cost.entries = (uint64_t)f->num_switches * ((uint64_t)f->max_lid + 1);
	cost.blocks = (uint64_t)f->num_switches *
		      ((uint64_t)f->max_lid / LFT_BLOCK + 1);
	r = compare_route_set(l->setup, f, s, &secs, why, sizeof(why));
	row_begin(l, rows, s, optw, lmc);
	if (!r) {
		if (l->json) {
			fputs(", \"refused\": ", cli_report);
			cli_json_str(cli_report, why);
			fputs("}", cli_report);
		} else {
			fprintf(cli_report, " refused: %s\n",
				why[0] ? why : "(no reason)");
		}
		ret = 1;
		goto out;
	}
	if (cr_lmc_paths_count(f, r, &cost.paths))
		goto out;
	if (l->json)
		fprintf(cli_report, ", \"seconds\": %.3f", secs);
	print_cost(l, &cost);
	if (estimate_row(l, f, r, lmc, row)) {
		fputs(l->json ? "}" : "\n", cli_report);
		goto out;
	}
	print_scores(l, row);
	ret = 0;
out:
	fflush(cli_report);
	cr_hosts_free(row->hosts);
	cr_routing_free(r);
	free(row);
	return ret;
}

/* Every LMC's LIDs must fit: else a usage error with what it needs. */
static int check_fit(const struct compare_lmc *l, const struct cr_fabric *f)
{
	for (unsigned i = 0; i < l->num_lmc; i++) {
		uint32_t need = cr_fabric_lids_needed(f, l->lmc[i]);

		if (need <= UNICAST_LIDS)
			continue;
		cli_usage_error(l->setup->cmd,
				"--lmc %u: the fabric would need %u LIDs,"
				" more than the %u unicast LIDs",
				l->lmc[i], need, UNICAST_LIDS);
		return -1;
	}
	return 0;
}

int compare_lmc_table(struct compare_lmc *l, struct cr_fabric *f)
{
	unsigned rows = 0;
	int optw = 8, routed = 0, r = 0;

	if (check_fit(l, f))
		return CLI_BAD;
	if (l->npat > LMC_MAX_PATTERNS) {
		cli_usage_error(l->setup->cmd, "--lmc: at most %d patterns",
				LMC_MAX_PATTERNS);
		return CLI_BAD;
	}
	for (int i = 0; i < l->nsets; i++) {
		char o[64];

		compare_set_opts(&l->sets[i], o, sizeof(o));
		optw = (int)strlen(o) > optw ? (int)strlen(o) : optw;
	}
	if (l->json) {
		cli_json_begin(cli_report, "compare");
		fputs("\"source\": ", cli_report);
		cli_json_str(cli_report, l->setup->topo);
		fprintf(cli_report,
			", \"switches\": %u, \"max_unicast_lid\": %u,"
			" \"lanes\": %u, \"rows\": [",
			f->num_switches, UNICAST_LIDS, l->est->par.lanes);
	} else {
		print_legend(l, f);
		print_header(l, optw);
	}
	for (int i = 0; i < l->nsets && r >= 0; i++)
		for (unsigned k = 0; k < l->num_lmc && r >= 0; k++) {
			r = lmc_row(l, f, &l->sets[i], l->lmc[k], optw, &rows);
			routed += r == 0;
		}
	if (r < 0)
		return CLI_BAD;
	if (l->json) {
		fputs("\n ]", cli_report);
		cli_json_warnings(cli_report);
		fputs("}\n", cli_report);
	}
	return routed ? CLI_OK : CLI_PROBLEMS;
}
