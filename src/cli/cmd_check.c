// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* croute check: verifies a routing, computed or read from a dump. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "check_cli.h"

enum {
	KEY_LFTS = CLI_KEY_CMD,
	KEY_NO_CREDIT,
	KEY_SWITCHES,
	KEY_REQUIRE_MINIMAL,
	KEY_MAX_REPORT,
	KEY_SL,
	KEY_SL2VL,
	KEY_JSON,
	KEY_TRANSITION,
};

static const struct cli_opt check_opts[] = {
	{"lfts", KEY_LFTS, "FILE", "LFTs to check (opensm-lfts.dump, ibroute)"},
	{"skip-credit-loops", KEY_NO_CREDIT, NULL,
	 "do not search for credit loops"},
	{"no-credit-loops", KEY_NO_CREDIT, NULL,
	 "old name of --skip-credit-loops"},
	{"sl", KEY_SL, "FILE",
	 "with --lfts: path SLs (croute-lash-sl.dump, ibdmchk -c)"},
	{"sl2vl", KEY_SL2VL, "FILE",
	 "with --sl: SL2VL tables (croute's or opensm-sl2vl.dump)"},
	{"transition", KEY_TRANSITION, "OLD NEW",
	 "is going from LFTs OLD to NEW safe? (--sl: OLD NEW too)"},
	{"switches", KEY_SWITCHES, NULL, "check paths from switches too"},
	{"json", KEY_JSON, NULL, "write the report as JSON (croute(1))"},
	{"output", 'o', "FILE", "write the report to FILE (default: stdout)"},
	{"require-minimal", KEY_REQUIRE_MINIMAL, NULL,
	 "count non-minimal paths as problems"},
	{"max-report", KEY_MAX_REPORT, "N",
	 "list N problems of each kind (10)"},
	CLI_OPT_END,
};

static const struct cli_opt *const check_tables[] = {
	check_opts, cli_topo_opts, cli_live_opts, cli_engine_opts, NULL};

struct check_ctx {
	struct cli_setup setup;
	const char *lfts, *output;
	unsigned flags;
	bool require_minimal;
	unsigned long max_report;
	bool json;
	/* --transition, --sl, --sl2vl: their second files, in this order */
	int pair_keys[3];
	unsigned npairs;
	struct check_pair pair;
};

/* With --transition, each of these options takes a second file. */
static int pair_opt(struct check_ctx *c, int key, const char *val)
{
	for (unsigned i = 0; i < c->npairs; i++)
		if (c->pair_keys[i] == key) {
			cli_usage_error(c->setup.cmd,
					"--transition, --sl and --sl2vl go"
					" once each");
			return -1;
		}
	c->pair_keys[c->npairs++] = key;
	if (key == KEY_TRANSITION)
		c->pair.lfts[0] = val;
	else if (key == KEY_SL)
		c->pair.sl[0] = val;
	else
		c->pair.sl2vl[0] = val;
	return 0;
}

static int check_opt(void *arg, int key, const char *val)
{
	struct check_ctx *c = arg;
	int ret = cli_setup_opt(&c->setup, key, val);

	if (ret <= 0)
		return ret;
	if ((key == KEY_TRANSITION || key == KEY_SL || key == KEY_SL2VL) &&
	    pair_opt(c, key, val))
		return -1;
	switch (key) {
	case KEY_LFTS:
		c->lfts = val;
		break;
	case KEY_NO_CREDIT:
		c->flags &= ~CR_CHECK_CREDIT;
		break;
	case KEY_SL:
		c->setup.sl = val;
		break;
	case KEY_SL2VL:
		c->setup.sl2vl = val;
		break;
	case KEY_JSON:
		cli_json_on(&c->json);
		break;
	case KEY_SWITCHES:
		c->flags |= CR_CHECK_SWITCHES;
		break;
	case KEY_REQUIRE_MINIMAL:
		c->require_minimal = true;
		break;
	case KEY_MAX_REPORT:
		return cli_uint(c->setup.cmd, "--max-report", val, 1000000,
				&c->max_report);
	case 'o':
		c->output = val;
		break;
	}
	return 0;
}

static bool report(const struct check_ctx *c, const struct cr_check_report *r,
		   bool one_vl)
{
	bool bad = r->unreachable || r->loops || r->credit_loops ||
		   (c->require_minimal && r->non_minimal);

	fprintf(cli_report, "pairs checked:      %" PRIu64 "\n", r->pairs);
	fprintf(cli_report, "unreachable:        %" PRIu64 "\n",
		r->unreachable);
	fprintf(cli_report, "forwarding loops:   %" PRIu64 "\n", r->loops);
	fprintf(cli_report, "non-minimal paths:  %" PRIu64 "\n",
		r->non_minimal);
	if (c->flags & CR_CHECK_CREDIT)
		fprintf(cli_report,
			"credit loops:       %" PRIu64 " virtual lane%s with a"
			" cycle%s\n",
			r->credit_loops, r->credit_loops == 1 ? "" : "s",
			!one_vl ? ""
			: c->setup.live
				? " (one VL assumed: no path SLs read; --live-sl"
				  " all asks the SA)"
				: " (one VL assumed: no path SLs given; a"
				  " layered routing needs --sl and --sl2vl)");
	else
		fprintf(cli_report, "credit loops:       not checked\n");
	fprintf(cli_report, "hops:               max %u, average %.2f\n",
		r->max_hops, r->avg_hops);
	fprintf(cli_report, "result:             %s\n",
		bad ? "PROBLEMS" : "OK");
	return bad;
}

/* The JSON list of problems being written: each problem as fields. */
struct json_problems {
	FILE *out;
	const struct cr_fabric *f;
	unsigned n;
};

static const char *const kind_names[] = {
	[CR_CHECK_UNREACHABLE] = "unreachable",
	[CR_CHECK_LOOP] = "loop",
	[CR_CHECK_NON_MINIMAL] = "non_minimal",
	[CR_CHECK_CREDIT_LOOP] = "credit_loop",
};

static void json_problem(void *arg, const struct cr_check_problem *p)
{
	struct json_problems *j = arg;
	FILE *out = j->out;

	fprintf(out, "%s\n  {\"kind\": \"%s\"", j->n++ ? "," : "",
		kind_names[p->kind]);
	if (p->kind == CR_CHECK_CREDIT_LOOP) {
		fprintf(out, ", \"vl\": %u, \"cables\": [", p->vl);
		for (uint32_t i = 0; i < p->num_cables; i++) {
			const struct cr_check_cable *c = &p->cables[i];

			fputs(i ? ",\n   {\"from\": " : "\n   {\"from\": ",
			      out);
			cli_json_node(out, j->f, c->node, 0);
			fprintf(out, ", \"from_port\": %u, \"to\": ", c->port);
			cli_json_node(out, j->f, c->remote, c->remote_port);
			fprintf(out, ", \"to_port\": %u}", c->remote_port);
		}
		fputs("]}", out);
		return;
	}
	fputs(", \"from\": ", out);
	cli_json_node(out, j->f, p->from, 0);
	fprintf(out, ", \"lid\": %u, \"to\": ", p->lid);
	cli_json_node(out, j->f, p->to, p->to_port);
	if (p->kind == CR_CHECK_NON_MINIMAL)
		fprintf(out, ", \"hops\": %u", p->hops);
	fputc('}', out);
}

/* croute(1) JSON OUTPUT, command "check". */
static bool report_json(const struct check_ctx *c,
			const struct cr_check_report *r, bool one_vl,
			const char *src, char *problems)
{
	bool bad = r->unreachable || r->loops || r->credit_loops ||
		   (c->require_minimal && r->non_minimal);

	cli_json_begin(cli_report, "check");
	fputs("\"source\": ", cli_report);
	cli_json_str(cli_report, src);
	fprintf(cli_report,
		", \"result\": \"%s\", \"pairs\": %" PRIu64
		", \"unreachable\": %" PRIu64 ", \"forwarding_loops\": %" PRIu64
		", \"non_minimal\": %" PRIu64 ", \"require_minimal\": %s",
		bad ? "PROBLEMS" : "OK", r->pairs, r->unreachable, r->loops,
		r->non_minimal, c->require_minimal ? "true" : "false");
	if (c->flags & CR_CHECK_CREDIT)
		fprintf(cli_report, ", \"credit_loop_vls\": %" PRIu64,
			r->credit_loops);
	else
		fputs(", \"credit_loop_vls\": null", cli_report);
	fprintf(cli_report,
		", \"one_vl_assumed\": %s, \"max_hops\": %u, \"avg_hops\": "
		"%.4f,\n \"problems\": [",
		one_vl ? "true" : "false", r->max_hops, r->avg_hops);
	fputs(problems ? problems : "", cli_report);
	fputc(']', cli_report);
	cli_json_warnings(cli_report);
	fputs("}\n", cli_report);
	return bad;
}

/*
 * --transition OLD NEW [--sl OLD NEW [--sl2vl OLD NEW]]: the operands are
 * the second files, in the order of their options.
 */
static int transition_run(struct check_ctx *c, int argc, char **argv)
{
	const struct cli_cmd *cmd = c->setup.cmd;

	if ((unsigned)argc != c->npairs) {
		cli_usage_error(cmd, "--transition, --sl and --sl2vl each take"
				     " two files (OLD NEW)");
		return CLI_BAD;
	}
	for (unsigned i = 0; i < c->npairs; i++) {
		if (c->pair_keys[i] == KEY_TRANSITION)
			c->pair.lfts[1] = argv[i];
		else if (c->pair_keys[i] == KEY_SL)
			c->pair.sl[1] = argv[i];
		else
			c->pair.sl2vl[1] = argv[i];
	}
	if (c->lfts || c->setup.engine || c->setup.dump_dir || c->setup.live) {
		cli_usage_error(cmd, "--transition reads both tables from"
				     " files: no --lfts, --engine,"
				     " --dump-dir or --live");
		return CLI_BAD;
	}
	if (c->pair.sl2vl[0] && !c->pair.sl[0]) {
		cli_usage_error(cmd, "--sl2vl needs --sl");
		return CLI_BAD;
	}
	if (!c->setup.topo) {
		cli_usage_error(cmd, "--transition needs --topo");
		return CLI_BAD;
	}
	return cli_check_transition(&c->setup, &c->pair, c->json);
}

static int check_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct check_ctx c = {
		.flags = CR_CHECK_MINIMAL | CR_CHECK_CREDIT,
		.max_report = 10,
	};
	struct cr_fabric *f = NULL;
	struct cr_routing *r = NULL;
	struct cr_check_report rep;
	const struct cr_engine *e;
	double secs;
	int ret = CLI_BAD;
	char src[1024], *pbuf = NULL;
	size_t plen = 0;
	FILE *problems = NULL;
	int first;
	struct json_problems jp = {0};
	const struct cr_check_sink sink = {json_problem, &jp};

	cli_setup_init(&c.setup, cmd);
	c.setup.live_layers = true; /* credit loops per VL */
	first = cli_parse(cmd, argc, argv, check_opt, &c);
	if (first < 0) {
		ret = first == -2 ? CLI_OK : CLI_BAD;
		goto out;
	}
	if (c.pair.lfts[0]) {
		ret = transition_run(&c, argc - first, argv + first);
		goto out;
	}
	if (first < argc) {
		cli_usage_error(cmd, "unexpected argument '%s'", argv[first]);
		goto out;
	}
	if (!cli_lfts_or_engine(&c.setup, &c.lfts))
		goto out;
	if ((c.setup.sl || c.setup.sl2vl) && !c.lfts) {
		cli_usage_error(cmd, "--sl and --sl2vl go with --lfts");
		goto out;
	}
	if (c.setup.sl2vl && !c.setup.sl) {
		cli_usage_error(cmd, "--sl2vl needs --sl");
		goto out;
	}
	if (!cli_load_routed(&c.setup, c.lfts, &f, &r, &e, &secs, &ret))
		goto out;
	if (cli_report_open(c.output))
		goto out;
	if (c.lfts)
		cli_sources(&c.setup, c.lfts, src, sizeof(src));
	else
		snprintf(src, sizeof(src), "%s (%s), routed by cr-%s",
			 c.setup.topo, c.setup.topo_format, e->name);
	if (c.json) {
		/* The problem lines become a list of strings. */
		problems = open_memstream(&pbuf, &plen);
		if (!problems) {
			cr_err("out of memory");
			goto out;
		}
	} else {
		fprintf(cli_report, "# croute check: %s\n", src);
	}
	jp.out = problems;
	jp.f = f;
	if (c.json ? cr_check_each(f, r, c.flags, &sink, c.max_report, &rep)
		   : cr_check(f, r, c.flags, cli_report, c.max_report, &rep)) {
		cr_err("the check could not run");
		goto out;
	}
	if (c.json) {
		fclose(problems);
		problems = NULL;
		ret = report_json(&c, &rep, c.lfts && !r->sl, src, pbuf)
			      ? CLI_PROBLEMS
			      : CLI_OK;
	} else {
		ret = report(&c, &rep, c.lfts && !r->sl) ? CLI_PROBLEMS
							 : CLI_OK;
	}
	ret = cli_report_written(ret);
out:
	ret = cli_report_done(ret);
	if (problems)
		fclose(problems);
	free(pbuf);
	cr_routing_free(r);
	cr_fabric_free(f);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_check = {
	.name = "check",
	.synopsis =
		"(--topo FILE (--lfts FILE | --engine NAME) | --dump-dir"
		" DIR) [options]\n   or: croute check --topo FILE --transition"
		" OLD NEW\n       [--sl OLD NEW [--sl2vl OLD NEW]]"
		" [options]",
	.summary = "Check a routing: reachability, loops, hop counts, credit"
		   " loops.",
	.details = "Every CA port must reach every LID of the other CA ports"
		   " and every switch LID.\nExit status 1 when LIDs are"
		   " unreachable, paths loop or a virtual lane has a\ncredit"
		   " loop. With --lfts, give the LIDs the tables were made for"
		   " (--lids).\n--transition: exit status 0 when every mix of"
		   " the old and new entries is safe\n(no forwarding loop, no"
		   " credit loop in the union of dependencies, no path\nSL"
		   " changed), 1 with the first fault when not, 2 on bad"
		   " input.\n",
	.opts = check_tables,
	.run = check_run,
};
