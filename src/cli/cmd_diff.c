// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute diff: an ibdm plan against the fabric as cabled, as a cabling
 * crew's punch list (the comparison: src/core/io/ibdm_diff.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/ibdm.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

static const struct cli_opt diff_opts[] = {
	{"topo", 't', "FILE", "the plan: an ibdm topology file"},
	{"ibnl-dir", CLI_KEY_IBNL_DIR, "DIR",
	 "system definitions searched before the installed"},
	{"dump-dir", CLI_KEY_DUMP_DIR, "DIR",
	 "the fabric: OpenSM's dump directory (opensm-subnet.lst)"},
	{"node-name-map", CLI_KEY_NODE_NAME_MAP, "FILE",
	 "names of the fabric's nodes by GUID"},
	{"json", CLI_KEY_CMD, NULL, "write the findings as JSON (croute(1))"},
	CLI_OPT_END,
};

static const struct cli_opt *const diff_tables[] = {
	diff_opts,
	cli_live_opts,
	NULL,
};

struct diff_ctx {
	struct cli_setup setup;
	const char *plan_path;
	bool json;
};

static int diff_opt(void *arg, int key, const char *val)
{
	struct diff_ctx *c = arg;

	if (key == 't') {
		c->plan_path = val;
		return 0;
	}
	if (key == CLI_KEY_IBNL_DIR)
		return cr_ibdm_add_dir(val);
	if (key == CLI_KEY_CMD) {
		cli_json_on(&c->json);
		return 0;
	}
	return cli_setup_opt(&c->setup, key, val) > 0 ? -1 : 0;
}

/*
 * croute(1) JSON OUTPUT, command "diff": the findings cr_ibdm_diff()
 * wrote as lines ("KIND: TEXT"), each as {"kind", "text"}, and the counts.
 */
static void diff_json(const struct diff_ctx *c, const struct cr_ibdm_diff *d,
		      char *lines)
{
	char *save = NULL, *line;
	unsigned n = 0;

	cli_json_begin(stdout, "diff");
	fputs("\"plan\": ", stdout);
	cli_json_str(stdout, c->plan_path);
	fputs(", \"fabric\": ", stdout);
	cli_json_str(stdout, c->setup.live ? "live" : c->setup.topo);
	printf(", \"result\": \"%s\", \"missing\": %u, \"miswired\": %u,"
	       " \"extra\": %u, \"wrong_rates\": %u, \"missing_nodes\": %u,"
	       " \"unplanned_nodes\": %u, \"findings\": [",
	       d->missing + d->miswired + d->extra + d->rates + d->lost +
			       d->unplanned
		       ? "DIFFERENT"
		       : "SAME",
	       d->missing, d->miswired, d->extra, d->rates, d->lost,
	       d->unplanned);
	/* A finding's continuation lines (indented) join it. */
	for (char *p = lines; p && (p = strstr(p, "\n ")); p++)
		*p = ' ';
	for (line = strtok_r(lines ? lines : (char *)"", "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *text = strstr(line, ": ");

		if (!text)
			continue;
		*text = '\0';
		fputs(n++ ? ",\n  {\"kind\": " : "\n  {\"kind\": ", stdout);
		cli_json_str(stdout, line);
		fputs(", \"text\": ", stdout);
		cli_json_str(stdout, text + 2);
		fputc('}', stdout);
	}
	fputc(']', stdout);
	cli_json_warnings(stdout);
	fputs("}\n", stdout);
}

static int diff_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct diff_ctx c = {0};
	struct cr_ibdm_diff d;
	struct cr_ibdm_plan *plan = NULL;
	struct cr_fabric *pf = NULL, *rf = NULL;
	int first, ret = CLI_BAD;
	char *lines = NULL;
	size_t len = 0;
	FILE *out = NULL;

	cli_setup_init(&c.setup, cmd);
	first = cli_parse(cmd, argc, argv, diff_opt, &c);
	if (first < 0) {
		ret = first == -2 ? CLI_OK : CLI_BAD;
		goto out;
	}
	if (!c.plan_path || argc - first > 1) {
		cli_usage_error(cmd, "give --topo PLAN and one fabric: FILE,"
				     " --dump-dir DIR or --live");
		goto out;
	}
	if (first < argc)
		c.setup.topo = argv[first];
	pf = cr_ibdm_read(c.plan_path, &plan);
	if (!pf)
		goto out;
	rf = cli_load(&c.setup);
	if (!rf)
		goto out;
	out = c.json ? open_memstream(&lines, &len) : stdout;
	if (!out) {
		cr_err("out of memory");
		goto out;
	}
	if (!c.json)
		printf("# croute diff: plan %s, fabric %s (%s)\n", c.plan_path,
		       c.setup.live ? "live" : c.setup.topo,
		       c.setup.live ? "discovered" : c.setup.topo_format);
	if (cr_ibdm_diff(out, pf, plan, rf, &d))
		goto out;
	if (c.json) {
		fclose(out);
		out = NULL;
		diff_json(&c, &d, lines);
	} else {
		printf("summary: %u missing, %u miswired, %u extra cables, %u"
		       " wrong rates, %u missing nodes, %u unplanned nodes\n",
		       d.missing, d.miswired, d.extra, d.rates, d.lost,
		       d.unplanned);
	}
	ret = d.missing + d.miswired + d.extra + d.rates + d.lost + d.unplanned
		      ? CLI_PROBLEMS
		      : CLI_OK;
	ret = cli_report_written(ret);
out:
	if (out && out != stdout)
		fclose(out);
	free(lines);
	cr_ibdm_plan_free(plan);
	cr_fabric_free(pf);
	cr_fabric_free(rf);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_diff = {
	.name = "diff",
	.synopsis = "--topo PLAN (FILE | --dump-dir DIR | --live)",
	.summary = "Compare an ibdm plan with the fabric as cabled.",
	.details =
		"Lines: missing cable, miswired (a planned cable whose ends"
		" lead elsewhere),\nextra cable, wrong rate (planned width or"
		" speed differs), missing node,\nunplanned node; then a"
		" summary. Nodes are matched by name: as the plan names\n"
		"them (\"SL1-1/L3/U1\", \"H-1\"), as ibdm names chassis chips"
		" (\"MF0;SL1-1:MTS14400/L3/U1\"),\nor a host by the first word"
		" of its description. Exit 1 when they differ.\n",
	.opts = diff_tables,
	.run = diff_run,
};
