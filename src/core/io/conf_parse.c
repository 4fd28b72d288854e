// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Parsing croute's opensm.conf keys and GUID list files. The plugin owns
 * the I/O (which file, when); this owns the text, so that a malformed
 * opensm.conf can be fuzzed and unit-tested without OpenSM. OpenSM reports
 * croute's keys as unrecognized tokens and goes on; croute reports its own
 * mistakes (unknown croute_* key, malformed value) and keeps the previous
 * value.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <croute/io/conf.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

static int parse_bool(const char *val, bool *out)
{
	if (!strcasecmp(val, "TRUE")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(val, "FALSE")) {
		*out = false;
		return 0;
	}
	return -1;
}

static int set_remote_guid_sorting(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->remote_guid_sorting);
}

static int set_lash_balance(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->lash_balance);
}

static int set_lash_sl_dump(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->lash_sl_dump);
}

static int set_incremental(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->incremental);
}

static int set_mcast_trees(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->mcast_trees);
}

static int set_balance(struct cr_conf *c, const char *val)
{
	if (strcmp(val, "global") && strcmp(val, "local") &&
	    strcmp(val, "first"))
		return -1;
	c->balance_global = !strcmp(val, "global");
	c->balance_first = !strcmp(val, "first");
	return 0;
}

/* Copies val into a string key of size bytes; -1 when it does not fit. */
static int set_str(char *dst, size_t size, const char *val)
{
	if (strlen(val) >= size)
		return -1;
	strcpy(dst, val);
	return 0;
}

/* Checked by cr_conf_check (tune), as the ones that follow. */
static int set_auto_candidates(struct cr_conf *c, const char *val)
{
	return set_str(c->auto_candidates, sizeof(c->auto_candidates), val);
}

static int set_auto_objective(struct cr_conf *c, const char *val)
{
	return set_str(c->auto_objective, sizeof(c->auto_objective), val);
}

/*
 * A host list file, read again at every routing run (its hosts are
 * matched on the fabric then); here only whether it can be read. "none":
 * unset.
 */
static int set_auto_hosts(struct cr_conf *c, const char *val)
{
	FILE *fp;

	if (!*val || strlen(val) >= sizeof(c->auto_hosts))
		return -1;
	if (!strcmp(val, "none")) {
		c->auto_hosts[0] = '\0';
		return 0;
	}
	/* the caller's message names the file, the line and the key */
	fp = fopen(val, "r");
	if (!fp)
		return -1;
	fclose(fp);
	strcpy(c->auto_hosts, val);
	return 0;
}

static int set_auto_budget(struct cr_conf *c, const char *val)
{
	char *end;
	double b = strtod(val, &end);

	if (end == val || *end || !(b > 0) || b > 1e6)
		return -1;
	c->auto_budget = b;
	return 0;
}

static int set_auto_max_vls(struct cr_conf *c, const char *val)
{
	char *end;
	unsigned long n = strtoul(val, &end, 10);

	if (end == val || *end || *val == '-' || n > 15)
		return -1;
	c->auto_max_vls = (unsigned)n;
	return 0;
}

static int set_auto_allow_credit_loops(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->auto_allow_credit_loops);
}

static int set_auto_optimize(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->auto_optimize);
}

static int set_auto_background(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->auto_background);
}

static int set_auto_safe_transitions(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->auto_safe_transitions);
}

/* A fraction: 0 < x <= 1. */
static int parse_fraction(const char *val, double *out)
{
	char *end;
	double x = strtod(val, &end);

	if (end == val || *end || !(x > 0) || x > 1)
		return -1;
	*out = x;
	return 0;
}

static int set_auto_improve_threshold(struct cr_conf *c, const char *val)
{
	return parse_fraction(val, &c->auto_improve_threshold);
}

static int set_auto_max_churn(struct cr_conf *c, const char *val)
{
	return parse_fraction(val, &c->auto_max_churn);
}

static int set_auto_give_up(struct cr_conf *c, const char *val)
{
	char *end;
	double s = strtod(val, &end);

	if (end == val || *end || !(s >= 0) || s > 1e7)
		return -1;
	c->auto_give_up = s;
	return 0;
}

static int set_optimize(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->optimize);
}

static int set_optimize_budget(struct cr_conf *c, const char *val)
{
	char *end;
	double b = strtod(val, &end);

	if (end == val || *end || !(b > 0) || b > 1e6)
		return -1;
	c->optimize_budget = b;
	return 0;
}

static int set_optimize_extra_hops(struct cr_conf *c, const char *val)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	if (end == val || *end || *val == '-' || v > 16)
		return -1;
	c->optimize_max_extra_hops = (unsigned)v;
	return 0;
}

static int set_dump_hosts(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->dump_hosts);
}

static int set_dump_slurm(struct cr_conf *c, const char *val)
{
	return parse_bool(val, &c->dump_slurm);
}

/* 0 (the default: online CPUs up to 8) or 1..CR_MAX_THREADS. */
static int set_threads(struct cr_conf *c, const char *val)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(val, &end, 10);
	if (errno || end == val || *end || n > CR_MAX_THREADS || val[0] == '-')
		return -1;
	c->threads = (unsigned)n;
	return 0;
}

static enum cr_fail_stage parse_stage(const char *s)
{
	if (!strcmp(s, "import"))
		return CR_FAIL_IMPORT;
	if (!strcmp(s, "route"))
		return CR_FAIL_ROUTE;
	if (!strcmp(s, "export"))
		return CR_FAIL_EXPORT;
	return CR_FAIL_NONE;
}

/*
 * Test hook: "ENGINE[:STAGE][,ENGINE[:STAGE]...]" or "none". ENGINE is an
 * engine name (minhop or cr-minhop) or "all"; STAGE is import, route or
 * export (the default: the worst case, after the switches were written).
 * Lets the tests check that OpenSM's fall-through to the next engine finds
 * the switches exactly as it prepared them.
 */
static int set_fail_engine(struct cr_conf *c, const char *val)
{
	char buf[256], *save = NULL, *tok;
	struct cr_conf tmp = {0};

	if (strlen(val) >= sizeof(buf))
		return -1;
	strcpy(buf, val);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		struct cr_fail_rule *rule = &tmp.fail[tmp.num_fail];
		char *colon = strchr(tok, ':');

		if (!strcmp(tok, "none"))
			continue;
		if (tmp.num_fail == CR_CONF_MAX_FAIL)
			return -1;
		rule->stage = CR_FAIL_EXPORT;
		if (colon) {
			*colon = '\0';
			rule->stage = parse_stage(colon + 1);
			if (rule->stage == CR_FAIL_NONE)
				return -1;
		}
		/* the engine named, cr_conf_check finds */
		if (strcmp(tok, "all") &&
		    set_str(rule->name, sizeof(rule->name), tok))
			return -1;
		tmp.num_fail++;
	}
	strcpy(c->fail_engine, val);
	memcpy(c->fail, tmp.fail, sizeof(c->fail));
	c->num_fail = tmp.num_fail;
	return 0;
}

static int set_est_mode(struct cr_conf *c, const char *val)
{
	if (!strcmp(val, "none"))
		c->est.mode = CR_EST_MODE_NONE;
	else if (!strcmp(val, "summary"))
		c->est.mode = CR_EST_MODE_SUMMARY;
	else if (!strcmp(val, "full"))
		c->est.mode = CR_EST_MODE_FULL;
	else
		return -1;
	return 0;
}

static int set_est_patterns(struct cr_conf *c, const char *val)
{
	return set_str(c->est.patterns, sizeof(c->est.patterns), val);
}

static int set_est_penalty(struct cr_conf *c, const char *val)
{
	return set_str(c->est.penalty, sizeof(c->est.penalty), val);
}

static int set_est_paths(struct cr_conf *c, const char *val)
{
	return set_str(c->est.paths, sizeof(c->est.paths), val);
}

/*
 * An absolute path, "none": unset. Whether its name suits the protocol
 * and its directory exists, cr_conf_check checks.
 */
static int set_jobs_file(struct cr_conf *c, const char *val)
{
	if (!strcmp(val, "none")) {
		c->jobs_file[0] = '\0';
		return 0;
	}
	if (val[0] != '/' || strpbrk(val, " \t"))
		return -1;
	return set_str(c->jobs_file, sizeof(c->jobs_file), val);
}

static int set_jobs_threshold(struct cr_conf *c, const char *val)
{
	char *end;
	double x = strtod(val, &end);

	if (end == val || *end || !(x >= 0) || !(x < 1))
		return -1;
	c->jobs_threshold = x;
	return 0;
}

static int set_jobs_min_interval(struct cr_conf *c, const char *val)
{
	char *end;
	double s = strtod(val, &end);

	if (end == val || *end || !(s >= 0) || s > 86400)
		return -1;
	c->jobs_min_interval = s;
	return 0;
}

/* Whole seconds up to max: no sign, no fraction. */
static int whole_seconds(const char *val, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long n;

	if (!isdigit((unsigned char)val[0]))
		return -1;
	errno = 0;
	n = strtoul(val, &end, 10);
	if (errno || *end || n > max)
		return -1;
	*out = (unsigned)n;
	return 0;
}

/* As `croute route --jobs-budget` takes them; 0: the default. */
static int set_jobs_budget(struct cr_conf *c, const char *val)
{
	return whole_seconds(val, 100000, &c->jobs_budget);
}

/* As `croute route --jobs-refine` takes them; 0: no refine stage. */
static int set_jobs_refine(struct cr_conf *c, const char *val)
{
	unsigned s;

	if (whole_seconds(val, 100000, &s))
		return -1;
	c->jobs_refine = (int)s;
	return 0;
}

static int set_jobs_refine_threshold(struct cr_conf *c, const char *val)
{
	char *end;
	double x = strtod(val, &end);

	if (end == val || *end || !(x >= 0) || !(x < 1))
		return -1;
	c->jobs_refine_threshold = x;
	return 0;
}

/* As `croute route --jobs-objective` takes it; cr_conf_check checks it. */
static int set_jobs_objective(struct cr_conf *c, const char *val)
{
	return set_str(c->jobs_objective, sizeof(c->jobs_objective), val);
}

/* As croute-slurm reads them. */
static int set_jobs_wait(struct cr_conf *c, const char *val)
{
	return whole_seconds(val, 3600, &c->jobs_wait);
}

struct conf_key {
	const char *name;
	int (*set)(struct cr_conf *c, const char *val);
	const char *expect; /* for the error message */
};

/* The keys cr_conf_check checks after parsing (conf.h), by index. */
static const char *const checked_keys[CR_CHECK_NUM] = {
	[CR_CHECK_AUTO_CANDIDATES] = "croute_auto_candidates",
	[CR_CHECK_AUTO_OBJECTIVE] = "croute_auto_objective",
	[CR_CHECK_FAIL_ENGINE] = "croute_fail_engine",
	[CR_CHECK_PATTERNS] = "croute_patterns",
	[CR_CHECK_PENALTY] = "croute_penalty_factors",
	[CR_CHECK_JOBS_FILE] = "croute_jobs_file",
	[CR_CHECK_PATHS] = "croute_paths",
	[CR_CHECK_JOBS_OBJECTIVE] = "croute_jobs_objective",
};

/* Every key croute reads from opensm.conf (conf/croute.conf documents them). */
static const struct conf_key conf_keys[] = {
	{"remote_guid_sorting", set_remote_guid_sorting, "TRUE or FALSE"},
	{"croute_lash_balance", set_lash_balance, "TRUE or FALSE"},
	{"croute_lash_sl_dump", set_lash_sl_dump, "TRUE or FALSE"},
	{"croute_balance", set_balance, "local, global or first"},
	{"croute_auto_candidates", set_auto_candidates,
	 "all, or ENGINE[+ps][+rgs][+glob][+bal][+roots=auto|ecc|top|file],..."},
	{"croute_auto_objective", set_auto_objective,
	 "PATTERN[:avg|min][@K[:worst]][~N%][,...], e.g. " CR_OBJECTIVE_DEFAULT},
	{"croute_auto_hosts", set_auto_hosts,
	 "a readable host list file, one host a line, or none"},
	{"croute_auto_budget", set_auto_budget, "seconds above 0"},
	{"croute_auto_allow_credit_loops", set_auto_allow_credit_loops,
	 "TRUE or FALSE"},
	{"croute_auto_optimize", set_auto_optimize, "TRUE or FALSE"},
	{"croute_auto_background", set_auto_background, "TRUE or FALSE"},
	{"croute_auto_improve_threshold", set_auto_improve_threshold,
	 "a fraction above 0, at most 1"},
	{"croute_auto_max_vls", set_auto_max_vls, "0 (no cap) to 15"},
	{"croute_auto_max_churn", set_auto_max_churn,
	 "a fraction of all LFT entries above 0, at most 1"},
	{"croute_auto_safe_transitions", set_auto_safe_transitions,
	 "TRUE or FALSE"},
	{"croute_auto_give_up", set_auto_give_up,
	 "seconds, 0: 4 x the budget + 30"},
	{"croute_optimize", set_optimize, "TRUE or FALSE"},
	{"croute_optimize_budget", set_optimize_budget, "seconds above 0"},
	{"croute_optimize_max_extra_hops", set_optimize_extra_hops, "0 to 16"},
	{"croute_dump_hosts", set_dump_hosts, "TRUE or FALSE"},
	{"croute_dump_slurm", set_dump_slurm, "TRUE or FALSE"},
	{"croute_threads", set_threads, "0 (online CPUs, up to 8) to 64"},
	{"croute_incremental", set_incremental, "TRUE or FALSE"},
	{"croute_mcast_trees", set_mcast_trees, "TRUE or FALSE"},
	{"croute_fail_engine", set_fail_engine,
	 "ENGINE[:import|route|export][,...], all or none"},
	/* The contention estimate: src/core/estimate/est_conf.c. */
	{"croute_estimate", set_est_mode, "none, summary or full"},
	{"croute_patterns", set_est_patterns,
	 "a list like shift,bisect (shift[:K], bisect[:R], alltoall[:K],"
	 " fanin[:K], flows:FILE, rail-ring)"},
	{"croute_penalty_factors", set_est_penalty,
	 "\"be;bs;gr\", three positive numbers, e.g. " CR_PENALTY_DEFAULT},
	{"croute_paths", set_est_paths,
	 "base, split or indep, then :LANES (1 to 128) or nothing"},
	/* Running jobs: the plugin's jobs_watch.c, croute-slurm(8). */
	{"croute_jobs_file", set_jobs_file,
	 "an absolute path whose directory exists, not ending in .state,"
	 " .lock or .tmp, or none"},
	{"croute_jobs_threshold", set_jobs_threshold,
	 "a fraction, at least 0, below 1"},
	{"croute_jobs_min_interval", set_jobs_min_interval,
	 "seconds, 0 to 86400"},
	{"croute_jobs_wait", set_jobs_wait, "whole seconds, 0 to 3600"},
	{"croute_jobs_budget", set_jobs_budget,
	 "whole seconds of work, 0 (the default) to 100000"},
	{"croute_jobs_objective", set_jobs_objective,
	 "PATTERN[:avg|min][@K[:worst]][*W][~N%][,...],"
	 " e.g. jobs:avg@4*0.8,shift:avg*0.2"},
	{"croute_jobs_refine", set_jobs_refine,
	 "whole seconds of work, 0 (no refine stage) to 100000"},
	{"croute_jobs_refine_threshold", set_jobs_refine_threshold,
	 "a fraction, at least 0, below 1"},
};

void cr_conf_defaults(struct cr_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->remote_guid_sorting = false;
	c->lash_sl_dump = true;
	c->dump_hosts = true;
	c->dump_slurm = true;
	c->auto_optimize = true;
	c->auto_background = true;
	c->auto_improve_threshold = CR_AUTO_THRESHOLD_DEFAULT;
	c->auto_max_churn = 1;
	c->mcast_trees = true;
	c->jobs_threshold = CR_JOBS_THRESHOLD_DEFAULT;
	c->jobs_min_interval = CR_JOBS_MIN_INTERVAL_DEFAULT;
	c->jobs_wait = CR_JOBS_WAIT_DEFAULT;
	c->jobs_refine = -1;
	c->jobs_refine_threshold = CR_JOBS_REFINE_THRESHOLD_DEFAULT;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static void report(const struct cr_conf *c, const struct conf_key *k,
		   const char *path, unsigned lineno, const char *val)
{
	cr_err("%s:%u: %s '%s' is not valid (expected %s)%s", path, lineno,
	       k->name, val, k->expect, c->refuse ? "" : "; using the default");
}

void cr_conf_report(const struct cr_conf *c, enum cr_conf_checked k,
		    const char *val)
{
	for (size_t i = 0; i < sizeof(conf_keys) / sizeof(conf_keys[0]); i++)
		if (!strcmp(conf_keys[i].name, checked_keys[k]))
			report(c, &conf_keys[i], c->at[k].path, c->at[k].line,
			       val);
}

/* Records where a checked key was set, for cr_conf_report. */
static void note_origin(struct cr_conf *c, const char *key, const char *path,
			unsigned lineno)
{
	for (int k = CR_CHECK_NONE + 1; k < CR_CHECK_NUM; k++)
		if (!strcmp(key, checked_keys[k]))
			c->at[k] = (struct cr_conf_at){path, lineno};
}

int cr_conf_parse_line(struct cr_conf *c, const char *path, unsigned lineno,
		       char *line)
{
	char *hash = strchr(line, '#');
	char *key, *val;
	size_t len;

	if (hash)
		*hash = '\0';
	key = trim(line);
	if (!*key)
		return 0;
	len = strcspn(key, " \t");
	val = key + len;
	if (*val)
		*val++ = '\0';
	val = trim(val);

	for (size_t i = 0; i < sizeof(conf_keys) / sizeof(conf_keys[0]); i++) {
		const struct conf_key *k = &conf_keys[i];

		if (strcmp(k->name, key))
			continue;
		if (k->set == set_fail_engine && !c->test_hooks)
			break; /* unknown outside tests */
		if (k->set(c, val) < 0) {
			report(c, k, path, lineno, val);
			return -1;
		}
		note_origin(c, key, path, lineno);
		return 0;
	}
	if (!strncmp(key, "croute_", 7)) {
		cr_err("%s:%u: unknown key %s (value '%s')%s", path, lineno,
		       key, val, c->refuse ? "" : " ignored");
		return -1;
	}
	return 0;
}

int cr_conf_parse_file(struct cr_conf *c, FILE *fp, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int errors = 0;

	while (getline(&line, &cap, fp) >= 0)
		if (cr_conf_parse_line(c, path, ++lineno, line))
			errors++;
	free(line);
	if (ferror(fp)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		errors++;
	}
	return errors;
}

enum cr_fail_stage cr_conf_fail_stage(const struct cr_conf *c,
				      const struct cr_engine *e)
{
	for (unsigned i = 0; i < c->num_fail; i++)
		if (!c->fail[i].name[0] ||
		    (c->fail[i].engine && c->fail[i].engine == e))
			return c->fail[i].stage;
	return CR_FAIL_NONE;
}
