// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute resilience's outputs, and `croute resilience merge`: the shards
 * of one run (one fabric, configuration and failure list, every part
 * once) joined into the report the single process writes. Anything else
 * writes nothing: a report missing failures would read as a clean one.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/io/topo.h>
#include <croute/model/log.h>

#include "resil_cli.h"

static int write_html(const char *path, const struct cr_resil_report *rep)
{
	char *tmp = NULL;
	FILE *out = cr_file_create(path, &tmp);

	if (!out)
		return -1;
	if (cr_resil_write_html(out, rep)) {
		cr_file_abort(out, tmp);
		return -1;
	}
	return cr_file_commit(out, tmp, path);
}

int resil_write(const struct resil_out *o, struct cr_resil_report *rep)
{
	char *tmp = NULL;
	FILE *out;
	int err;

	rep->times = o->times;
	if (o->html && write_html(o->html, rep))
		return CLI_BAD;
	out = cli_out_open(o->output, &tmp);
	if (!out)
		return CLI_BAD;
	err = o->json ? cr_resil_write_json(out, rep)
		      : cr_resil_write_text(out, rep);
	if (cli_out_close(out, tmp, o->output, !err) || err)
		return CLI_BAD;
	return CLI_OK;
}

int resil_write_shard(const struct resil_out *o,
		      const struct cr_resil_report *rep, uint32_t begin,
		      uint32_t end, unsigned k, unsigned n)
{
	char *tmp = NULL;
	FILE *out = cli_out_open(o->output, &tmp);
	int err;

	if (!out)
		return CLI_BAD;
	err = cr_resil_write_shard(out, rep, begin, end, k, n);
	if (cli_out_close(out, tmp, o->output, !err) || err)
		return CLI_BAD;
	return CLI_OK;
}

enum {
	KEY_JSON = CLI_KEY_CMD,
	KEY_TIMES,
	KEY_HTML,
};

static const struct cli_opt merge_opts[] = {
	{"output", 'o', "FILE", "the report (default: stdout)"},
	{"json", KEY_JSON, NULL, "rows as JSON lines, then the summary"},
	{"html", KEY_HTML, "FILE", "also an HTML report with a histogram"},
	{"times", KEY_TIMES, NULL, "seconds per failure in the report"},
	CLI_OPT_END,
};

static const struct cli_opt *const merge_tables[] = {merge_opts, NULL};

static int merge_opt(void *arg, int key, const char *val)
{
	struct resil_out *o = arg;

	switch (key) {
	case 'o':
		o->output = val;
		break;
	case KEY_JSON:
		o->json = true;
		break;
	case KEY_HTML:
		o->html = val;
		break;
	case KEY_TIMES:
		o->times = true;
		break;
	}
	return 0;
}

static const struct cli_cmd merge_cmd = {
	.name = "resilience merge",
	.synopsis = "SHARD... [--json] [--html FILE] [--times] [-o FILE]",
	.summary = "Join the shards of croute resilience --shard into its"
		   " report.",
	.opts = merge_tables,
};

/* Every part of the run once: else the parts missing, named. */
static bool complete(const struct cr_resil_report *rep, const bool *have)
{
	bool ok = true;

	for (unsigned k = 1; k <= rep->shards; k++) {
		uint32_t b, e;

		cr_resil_shard_range(rep->total, k, rep->shards, &b, &e);
		for (uint32_t i = b; i < e; i++) {
			if (have[i])
				continue;
			cr_err("part %u of %u (failures %u to %u) is missing:"
			       " give every shard of the run",
			       k, rep->shards, b, e - 1);
			ok = false;
			break;
		}
	}
	return ok;
}

int resil_merge(int argc, char **argv)
{
	struct resil_out o = {0};
	struct cr_resil_report rep = {0};
	bool *have = NULL;
	int first, ret = CLI_BAD;

	first = cli_parse(&merge_cmd, argc, argv, merge_opt, &o);
	if (first == -2)
		return CLI_OK;
	if (first < 0)
		return CLI_BAD;
	if (first >= argc) {
		cli_usage_error(&merge_cmd, "give the shards to merge");
		return CLI_BAD;
	}
	for (int i = first; i < argc; i++)
		if (cr_resil_read_shard(argv[i], &rep, &have))
			goto out;
	if (!complete(&rep, have))
		goto out;
	ret = resil_write(&o, &rep);
out:
	free(rep.rows);
	free(have);
	return ret;
}
