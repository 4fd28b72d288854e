// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Options shared by `croute estimate` and `croute compare` (est_cli.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/ca_order.h>
#include <croute/model/buf.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>
#include <croute/estimate/host_order.h>

#include "est_cli.h"

const struct cli_opt est_cli_opts[] = {
	{"pattern", EST_KEY_PATTERN, "LIST",
	 "shift[:K], bisect[:R], alltoall[:K], fanin[:K], flows:FILE,"
	 " rail-ring, jobs (estimate, compare, bound: --jobs); comma list"
	 " (shift,bisect; with --jobs: jobs)"},
	{"phases", EST_KEY_PHASES, "K",
	 "shift: a seeded sample of K phases, not all N-1"},
	{"seed", EST_KEY_SEED, "S", "seed of sampled phases and matchings (1)"},
	{"penalty", EST_KEY_PENALTY, "\"be;bs;gr\"",
	 "penalty factors (" CR_PENALTY_DEFAULT ")"},
	{"hosts", EST_KEY_HOSTS, "FILE", "host order: one host a line"},
	{"ca-order", EST_KEY_CA_ORDER, "FILE",
	 "host order from croute-ftree-ca-order.dump"},
	{"default-rate", EST_KEY_DEFAULT_RATE, "GBPS",
	 "rate of links whose width or speed is unknown"},
	{"rail-order", EST_KEY_RAIL_ORDER, NULL,
	 "that host order by server and rail: rank = server x rails + rail"},
	{"orders", EST_KEY_ORDERS, "N",
	 "also each pattern on N random host orders of --seed: mean, worst"},
	CLI_OPT_END,
};

/* What only estimate and compare take: the jobs, the path models. */
const struct cli_opt est_more_opts[] = {
	{"jobs", EST_KEY_JOBS, "FILE",
	 "running jobs, \"JOBID NODELIST\" a line: pattern jobs runs"
	 " shift in each job, all at once"},
	{"paths", EST_KEY_PATHS, "MODEL[:N]",
	 "with LMC > 0: base (one LID), split (striped evenly over the"
	 " LIDs, as UCX), indep (each LID its own flow); :N as --lanes"},
	{"lanes", EST_KEY_LANES, "N",
	 "split, indep: use only the first N LIDs (UCX_MAX_RNDV_RAILS)"},
	CLI_OPT_END,
};

int est_setup_no_jobs(struct est_setup *s, const struct cr_pattern *pats, int n)
{
	for (int i = 0; i < n; i++)
		if (pats[i].kind == CR_PAT_JOBS) {
			cli_usage_error(s->cmd, "pattern jobs goes with"
						" estimate, compare and bound");
			return -1;
		}
	return 0;
}

void est_setup_init(struct est_setup *s, const struct cli_cmd *cmd)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->seed = 1;
	cr_est_params_init(&s->par);
}

void est_setup_release(struct est_setup *s)
{
	free(s->patterns);
	s->patterns = NULL;
	s->patterns_cap = 0;
	cr_jobs_free(s->jobs);
	s->jobs = NULL;
}

/* --pattern may be given more than once: the lists add up. */
static int add_patterns(struct est_setup *s, const char *arg)
{
	size_t old = s->patterns ? strlen(s->patterns) : 0;

	if (cr_grow(&s->patterns, &s->patterns_cap, old + strlen(arg) + 2, 1)) {
		cr_err("out of memory");
		return -1;
	}
	if (old)
		s->patterns[old++] = ',';
	strcpy(s->patterns + old, arg);
	return 0;
}

static int parse_rate(struct est_setup *s, const char *arg)
{
	char *end;
	double gbps;

	errno = 0;
	gbps = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(gbps) || gbps <= 0 ||
	    gbps > 4e6) {
		cli_usage_error(s->cmd,
				"--default-rate: '%s' is not a rate in Gb/s",
				arg);
		return -1;
	}
	s->par.default_rate_mbps = (uint32_t)lround(gbps * 1000);
	if (!s->par.default_rate_mbps)
		s->par.default_rate_mbps = 1;
	return 0;
}

static int parse_paths(struct est_setup *s, const char *arg)
{
	char name[16];
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	unsigned long lanes;

	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, arg, len);
	name[len] = 0;
	if (cr_est_paths_parse(name, &s->par.paths)) {
		cli_usage_error(s->cmd,
				"--paths: '%s' is not base, split or indep",
				name);
		return -1;
	}
	if (!colon)
		return 0;
	if (cli_uint(s->cmd, "--paths", colon + 1, 1u << CR_MAX_LMC, &lanes))
		return -1;
	if (!lanes) {
		cli_usage_error(s->cmd, "--paths: give at least 1 lane");
		return -1;
	}
	s->par.lanes = (uint32_t)lanes;
	return 0;
}

static int parse_lanes(struct est_setup *s, const char *arg)
{
	unsigned long v;

	if (cli_uint(s->cmd, "--lanes", arg, 1u << CR_MAX_LMC, &v))
		return -1;
	if (!v) {
		cli_usage_error(s->cmd, "--lanes: give at least 1");
		return -1;
	}
	s->par.lanes = (uint32_t)v;
	return 0;
}

/* 0 when taken, 1 when key is not an estimate option, -1 on a bad value. */
static int est_setup_opt(struct est_setup *s, int key, const char *arg)
{
	unsigned long long v;
	char *end;

	switch (key) {
	case EST_KEY_PATTERN:
		return add_patterns(s, arg);
	case EST_KEY_PHASES:
		if (cli_uint(s->cmd, "--phases", arg, UINT32_MAX, &s->phases))
			return -1;
		if (!s->phases) {
			cli_usage_error(s->cmd, "--phases: give at least 1");
			return -1;
		}
		return 0;
	case EST_KEY_SEED:
		errno = 0;
		v = isdigit((unsigned char)*arg) ? strtoull(arg, &end, 0) : 0;
		if (!isdigit((unsigned char)*arg) || errno || *end) {
			cli_usage_error(s->cmd, "--seed: '%s' is not a number",
					arg);
			return -1;
		}
		s->seed = v;
		s->seed_set = true;
		return 0;
	case EST_KEY_PENALTY:
		/* cr_penalty_parse names the option and the value. */
		if (cr_penalty_parse(arg, "--penalty", &s->par.pen))
			return -1;
		s->penalty = arg;
		return 0;
	case EST_KEY_HOSTS:
		s->hosts = arg;
		return 0;
	case EST_KEY_CA_ORDER:
		s->ca_order = arg;
		return 0;
	case EST_KEY_RAIL_ORDER:
		s->rail_order = true;
		return 0;
	case EST_KEY_JOBS:
		s->jobs_file = arg;
		return 0;
	case EST_KEY_DEFAULT_RATE:
		return parse_rate(s, arg);
	case EST_KEY_ORDERS:
		return cli_uint(s->cmd, "--orders", arg, 10000, &s->orders) ? -1
									    : 0;
	case EST_KEY_PATHS:
		return parse_paths(s, arg);
	case EST_KEY_LANES:
		return parse_lanes(s, arg);
	}
	return 1;
}

int est_cli_opt(struct cli_setup *cs, struct est_setup *es, int key,
		const char *arg)
{
	int ret = cli_setup_opt(cs, key, arg);

	return ret <= 0 ? ret : est_setup_opt(es, key, arg);
}

int est_setup_patterns(struct est_setup *s, struct cr_pattern **pats)
{
	int n = cr_pattern_list_parse(s->patterns    ? s->patterns
				      : s->jobs_file ? "jobs"
						     : "shift,bisect",
				      pats);

	for (int i = 0; i < n; i++) {
		struct cr_pattern *p = &(*pats)[i];

		if (s->phases && p->kind == CR_PAT_SHIFT && !p->count)
			p->count = (uint32_t)s->phases;
		if (s->seed_set)
			p->seed = s->seed;
	}
	s->par.orders = (uint32_t)s->orders;
	s->par.order_seed = s->seed;
	return n;
}

int est_setup_jobs(struct est_setup *s, const struct cr_fabric *f,
		   struct cr_pattern *pats, int n)
{
	for (int i = 0; i < n; i++) {
		if (pats[i].kind != CR_PAT_JOBS)
			continue;
		if (!s->jobs_file) {
			cli_usage_error(s->cmd,
					"pattern jobs needs --jobs FILE");
			return -1;
		}
		if (!s->jobs)
			s->jobs = cr_jobs_read(f, NULL, s->jobs_file);
		if (!s->jobs)
			return -1;
		pats[i].jobs = s->jobs;
	}
	return 0;
}

static struct cr_hosts *base_hosts(struct est_setup *s,
				   const struct cr_fabric *f,
				   const struct cr_byproducts *by,
				   const char **how)
{
	struct cr_hosts *h;

	if (s->hosts && s->ca_order) {
		cli_usage_error(s->cmd, "--hosts and --ca-order exclude each"
					" other");
		return NULL;
	}
	if (s->hosts) {
		*how = "host list";
		return cr_hosts_read(f, s->hosts);
	}
	if (s->ca_order) {
		*how = "CA order file";
		return cr_ca_order_read(f, s->ca_order);
	}
	if (by && by->ca_order && by->num_ca_order) {
		*how = "the engine's CA order";
		return cr_hosts_for(f, by, NULL);
	}
	h = cr_hosts_for(f, by, NULL);
	*how = "node descriptions, natural sort";
	/* sorted: hosts that share a description are neighbours */
	for (uint32_t i = 1; h && i < h->count; i++)
		if (!strcmp(f->nodes[h->ep[i].node].desc,
			    f->nodes[h->ep[i - 1].node].desc)) {
			*how = "node descriptions, natural sort; hosts that"
			       " share one by node GUID";
			break;
		}
	return h;
}

struct cr_hosts *est_setup_hosts(struct est_setup *s, const struct cr_fabric *f,
				 const struct cr_byproducts *by,
				 const char **how)
{
	struct cr_hosts *h = base_hosts(s, f, by, how), *rail;

	if (!h || !s->rail_order)
		return h;
	rail = cr_hosts_rail(f, h);
	cr_hosts_free(h);
	*how = "servers by system image GUID, their HCAs by rail"
	       " (rank = server x rails + rail)";
	return rail;
}
