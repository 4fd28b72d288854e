// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The penalty factors' text form, "βe;βs;γr" (include/croute/estimate/penalty.h).
 * One parser for the command's --penalty and opensm.conf's
 * croute_penalty_factors, so that both accept exactly the same text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/estimate/penalty.h>

void cr_penalty_default(struct cr_penalty *p)
{
	p->be = 0.965;
	p->bs = 0.925;
	p->gr = 1.35;
}

int cr_penalty_scan(const char *s, struct cr_penalty *p, char *why, size_t len)
{
	static const char *const names[] = {"βe", "βs", "γr"};
	char dummy[1];
	double v[3];
	const char *c = s;

	if (!why) {
		why = dummy;
		len = sizeof(dummy);
	}
	for (int i = 0; i < 3; i++) {
		char *end;
		size_t n = strcspn(c, ";");

		errno = 0;
		v[i] = strtod(c, &end);
		while (end < c + n && (*end == ' ' || *end == '\t'))
			end++;
		if (errno || end == c || end != c + n || !isfinite(v[i]) ||
		    v[i] <= 0) {
			snprintf(why, len, "bad %s \"%.*s\"", names[i], (int)n,
				 c);
			return -1;
		}
		c += n;
		if (i < 2 && *c != ';') {
			snprintf(why, len, "%s missing", names[i + 1]);
			return -1;
		}
		if (i < 2)
			c++;
	}
	if (*c) {
		snprintf(why, len, "extra text \"%s\"", c);
		return -1;
	}
	p->be = v[0];
	p->bs = v[1];
	p->gr = v[2];
	return 0;
}

int cr_penalty_parse(const char *s, const char *what, struct cr_penalty *p)
{
	char why[128];

	if (!cr_penalty_scan(s, p, why, sizeof(why)))
		return 0;
	cr_err("%s \"%s\": %s (expected \"βe;βs;γr\", three positive "
	       "numbers, default \"%s\")",
	       what, s, why, CR_PENALTY_DEFAULT);
	return -1;
}
