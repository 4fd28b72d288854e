// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The opensm.conf values the parser stores as written, checked by the
 * layers that use them: the messages name the file and line the parser
 * recorded.
 */
#include <string.h>
#include <sys/stat.h>

#include <croute/tune/auto.h>
#include <croute/tune/conf_check.h>
#include <croute/estimate/est_setup.h>

static int check_objective(const char *val, const char *key)
{
	struct cr_objective obj;

	if (cr_objective_parse(val, key, &obj))
		return -1;
	cr_objective_release(&obj);
	return 0;
}

/* Every rule's engine, or -1 when one names none. */
static int find_fail_engines(struct cr_conf *c)
{
	for (unsigned i = 0; i < c->num_fail; i++) {
		struct cr_fail_rule *rule = &c->fail[i];

		rule->engine = NULL;
		if (!rule->name[0])
			continue;
		rule->engine = cr_engine_find_any(rule->name);
		if (!rule->engine)
			return -1;
	}
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/*
 * The jobs file's own name must not be one of the protocol's others
 * (PATH.state, PATH.lock, PATH.tmp.PID): the plugin and croute-slurm
 * would overwrite each other's. Its directory must exist: it is watched.
 */
static int check_jobs_file(const char *path)
{
	char dir[sizeof(((struct cr_conf *)0)->jobs_file)];
	char *slash;
	struct stat st;

	if (ends_with(path, ".state") || ends_with(path, ".lock") ||
	    strstr(path, ".tmp.") || ends_with(path, ".tmp") ||
	    ends_with(path, "/"))
		return -1;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return stat(dir, &st) || !S_ISDIR(st.st_mode) ? -1 : 0;
}

int cr_conf_check(struct cr_conf *c)
{
	int bad = 0;

	if (c->auto_candidates[0] &&
	    cr_auto_candidates_check(c->auto_candidates,
				     "croute_auto_candidates")) {
		cr_conf_report(c, CR_CHECK_AUTO_CANDIDATES, c->auto_candidates);
		c->auto_candidates[0] = '\0';
		bad++;
	}
	if (c->auto_objective[0] &&
	    check_objective(c->auto_objective, "croute_auto_objective")) {
		cr_conf_report(c, CR_CHECK_AUTO_OBJECTIVE, c->auto_objective);
		c->auto_objective[0] = '\0';
		bad++;
	}
	if (find_fail_engines(c)) {
		cr_conf_report(c, CR_CHECK_FAIL_ENGINE, c->fail_engine);
		c->num_fail = 0;
		bad++;
	}
	if (cr_est_conf_check_patterns(&c->est)) {
		cr_conf_report(c, CR_CHECK_PATTERNS, c->est.patterns);
		c->est.patterns[0] = '\0';
		bad++;
	}
	if (cr_est_conf_check_penalty(&c->est)) {
		cr_conf_report(c, CR_CHECK_PENALTY, c->est.penalty);
		c->est.penalty[0] = '\0';
		bad++;
	}
	if (cr_est_conf_check_paths(&c->est)) {
		cr_conf_report(c, CR_CHECK_PATHS, c->est.paths);
		c->est.paths[0] = '\0';
		bad++;
	}
	if (c->jobs_objective[0] &&
	    check_objective(c->jobs_objective, "croute_jobs_objective")) {
		cr_conf_report(c, CR_CHECK_JOBS_OBJECTIVE, c->jobs_objective);
		c->jobs_objective[0] = '\0';
		bad++;
	}
	if (c->jobs_file[0] && check_jobs_file(c->jobs_file)) {
		cr_conf_report(c, CR_CHECK_JOBS_FILE, c->jobs_file);
		c->jobs_file[0] = '\0';
		bad++;
	}
	return bad;
}
