// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The contention estimate's opensm.conf keys (include/croute/est_conf.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/conf.h>
#include <croute/est_conf.h>

int cr_est_conf_mode(struct cr_conf *c, const char *val)
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

int cr_est_conf_patterns(struct cr_conf *c, const char *val)
{
	struct cr_pattern *pats;
	int n;

	if (strlen(val) >= sizeof(c->est.patterns))
		return -1;
	/* Checked now, so that the mistake is reported with its line. */
	n = cr_pattern_list_parse(val, &pats);
	if (n < 0)
		return -1;
	cr_pattern_list_free(pats, n);
	strcpy(c->est.patterns, val);
	return 0;
}

/*
 * Not cr_penalty_parse: it logs a message of its own, and the key table
 * already reports file, line, key and value.
 */
int cr_est_conf_penalty(struct cr_conf *c, const char *val)
{
	const char *s = val;
	double v[3];
	char *end;

	for (int i = 0; i < 3; i++) {
		errno = 0;
		v[i] = strtod(s, &end);
		if (errno || end == s || !isfinite(v[i]) || v[i] <= 0)
			return -1;
		s = end;
		while (*s == ' ' || *s == '\t')
			s++;
		if (i < 2 && *s++ != ';')
			return -1;
		while (*s == ' ' || *s == '\t')
			s++;
	}
	if (*s)
		return -1;
	c->est.pen.be = v[0];
	c->est.pen.bs = v[1];
	c->est.pen.gr = v[2];
	c->est.pen_set = true;
	return 0;
}

int cr_est_conf_patterns_for(const struct cr_est_conf *c, uint32_t hosts,
			     struct cr_pattern **pats, bool *sampled)
{
	bool dflt = !c->patterns[0];
	int n = cr_pattern_list_parse(
		dflt ? CR_EST_PATTERNS_DEFAULT : c->patterns, pats);

	*sampled = false;
	if (n < 0 || !dflt || hosts <= CR_EST_LARGE_HOSTS)
		return n;
	/* All N - 1 phases of N hosts cost N^2 flows: sample instead. */
	for (int i = 0; i < n; i++) {
		struct cr_pattern *p = &(*pats)[i];

		if (p->kind == CR_PAT_SHIFT && !p->count) {
			p->count = CR_EST_LARGE_PHASES;
			*sampled = true;
		}
	}
	return n;
}
