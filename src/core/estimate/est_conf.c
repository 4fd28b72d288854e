// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the contention estimate's opensm.conf keys mean
 * (include/croute/estimate/est_setup.h).
 */
#include <stdlib.h>
#include <string.h>

#include <croute/estimate/est_setup.h>

int cr_est_conf_check_patterns(const struct cr_est_conf *c)
{
	struct cr_pattern *pats;
	int n;

	if (!c->patterns[0])
		return 0;
	n = cr_pattern_list_parse(c->patterns, &pats);
	if (n < 0)
		return -1;
	cr_pattern_list_free(pats, n);
	return 0;
}

int cr_est_conf_check_penalty(const struct cr_est_conf *c)
{
	struct cr_penalty pen;

	return c->penalty[0] && cr_penalty_scan(c->penalty, &pen, NULL, 0) ? -1
									   : 0;
}

void cr_est_conf_penalty(const struct cr_est_conf *c, struct cr_penalty *p)
{
	if (!c->penalty[0] || cr_penalty_scan(c->penalty, p, NULL, 0))
		cr_penalty_default(p);
}

/* "MODEL[:LANES]", LANES 1 to 2^CR_MAX_LMC: 0, or -1. */
static int paths_scan(const char *s, enum cr_est_paths *paths, uint32_t *lanes)
{
	char name[16], *end;
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	unsigned long n;

	*paths = CR_PATHS_BASE;
	*lanes = 0;
	if (!s[0])
		return 0;
	if (len >= sizeof(name))
		return -1;
	memcpy(name, s, len);
	name[len] = '\0';
	if (cr_est_paths_parse(name, paths))
		return -1;
	if (!colon)
		return 0;
	if (colon[1] < '0' || colon[1] > '9')
		return -1;
	n = strtoul(colon + 1, &end, 10);
	if (*end || n < 1 || n > 1u << CR_MAX_LMC)
		return -1;
	*lanes = (uint32_t)n;
	return 0;
}

int cr_est_conf_check_paths(const struct cr_est_conf *c)
{
	enum cr_est_paths m;
	uint32_t lanes;

	return paths_scan(c->paths, &m, &lanes);
}

void cr_est_conf_paths(const struct cr_est_conf *c, enum cr_est_paths *paths,
		       uint32_t *lanes)
{
	if (paths_scan(c->paths, paths, lanes)) {
		*paths = CR_PATHS_BASE;
		*lanes = 0;
	}
}

int cr_est_conf_patterns_for(const struct cr_est_conf *c, uint32_t hosts,
			     struct cr_pattern **pats, bool *sampled)
{
	bool dflt = !c->patterns[0];
	int n = cr_pattern_list_parse(
		dflt ? CR_EST_PATTERNS_DEFAULT : c->patterns, pats);

	*sampled = false;
	if (n < 0 || !dflt || !cr_est_sample_phases(hosts))
		return n;
	/* All N - 1 phases of N hosts cost N^2 flows: sample instead. */
	for (int i = 0; i < n; i++) {
		struct cr_pattern *p = &(*pats)[i];

		if (p->kind == CR_PAT_SHIFT && !p->count) {
			p->count = cr_est_sample_phases(hosts);
			*sampled = true;
		}
	}
	return n;
}
