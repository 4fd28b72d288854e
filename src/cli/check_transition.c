// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute check --transition OLD NEW: whether the switches may go from one
 * set of LFTs to another while OpenSM rewrites them a block at a time
 * (include/croute/model/transition.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/model/transition.h>

#include "check_cli.h"

static void report_text(const struct cr_transition_report *rep, int rc)
{
	printf("LFT entries changed: %" PRIu64 "\n", rep->changed);
	printf("result:              %s", rc ? "UNSAFE" : "SAFE");
	if (rc)
		printf(" (%s)", cr_transition_fault_name(rep->fault));
	putchar('\n');
}

/* croute(1) JSON OUTPUT, command "check", with "transition". */
static void report_json(const struct cr_transition_report *rep, int rc,
			const char *const src[2], char *problems)
{
	char *save = NULL, *line;
	bool first = true;

	cli_json_begin(stdout, "check");
	fputs("\"transition\": {\"from\": ", stdout);
	cli_json_str(stdout, src[0]);
	fputs(", \"to\": ", stdout);
	cli_json_str(stdout, src[1]);
	printf("}, \"result\": \"%s\", \"fault\": \"%s\", \"lft_changes\": "
	       "%" PRIu64,
	       rc ? "UNSAFE" : "SAFE", cr_transition_fault_name(rep->fault),
	       rep->changed);
	if (rep->fault == CR_TRANSITION_LOOP || rep->fault == CR_TRANSITION_SL)
		printf(", \"lid\": %u", rep->lid);
	if (rep->fault == CR_TRANSITION_CREDIT)
		printf(", \"vl\": %u", rep->vl);
	if (rep->fault == CR_TRANSITION_SL2VL)
		printf(", \"sl\": %u", rep->sl);
	if (rep->cycle)
		printf(", \"cycle\": %u", rep->cycle);
	fputs(",\n \"problems\": [", stdout);
	for (line = strtok_r(problems ? problems : (char *)"", "\n", &save);
	     line; line = strtok_r(NULL, "\n", &save)) {
		fputs(first ? "\n  " : ",\n  ", stdout);
		cli_json_str(stdout, line);
		first = false;
	}
	fputc(']', stdout);
	cli_json_warnings(stdout);
	fputs("}\n", stdout);
}

int cli_check_transition(struct cli_setup *s, const struct check_pair *p,
			 bool json)
{
	struct cr_fabric *f = cli_load(s);
	struct cr_routing *r[2] = {NULL, NULL};
	struct cr_transition_report rep;
	char src[2][1024], *pbuf = NULL;
	const char *srcs[2] = {src[0], src[1]};
	size_t plen = 0;
	FILE *problems = NULL;
	int ret = CLI_BAD, rc;
	double t0;

	if (!f)
		return CLI_BAD;
	for (unsigned k = 0; k < 2; k++) {
		const struct cr_engine *e;
		double secs;

		s->sl = p->sl[k];
		s->sl2vl = p->sl2vl[k];
		r[k] = cli_routing(s, f, p->lfts[k], &e, &secs);
		if (!r[k])
			goto out;
		snprintf(src[k], sizeof(src[k]), "%s (%s)", p->lfts[k],
			 s->lfts_format ? s->lfts_format : "?");
	}
	if (json) {
		/* The problem lines become a list of strings. */
		problems = open_memstream(&pbuf, &plen);
		if (!problems) {
			cr_err("out of memory");
			goto out;
		}
	} else {
		printf("# croute check --transition: %s (%s), LFTs from %s to"
		       " %s\n",
		       s->topo, s->topo_format ? s->topo_format : "?", src[0],
		       src[1]);
	}
	t0 = cli_now();
	rc = cr_transition_check(f, r[0], r[1], json ? problems : stdout, &rep);
	cr_info("the tables read, the check took %.3f s", cli_now() - t0);
	if (rc < 0) {
		cr_err("the check could not run");
		goto out;
	}
	if (json) {
		fclose(problems);
		problems = NULL;
		report_json(&rep, rc, srcs, pbuf);
	} else {
		report_text(&rep, rc);
	}
	ret = cli_report_written(rc ? CLI_PROBLEMS : CLI_OK);
out:
	if (problems)
		fclose(problems);
	free(pbuf);
	cr_routing_free(r[0]);
	cr_routing_free(r[1]);
	cr_fabric_free(f);
	return ret;
}
