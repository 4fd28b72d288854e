// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute export: the fabric for other tools. --slurm writes a Slurm
 * topology.conf (include/croute/io/sched.h); no routing is needed, only the
 * topology.
 */
#include <croute/model/log.h>
#include <croute/io/sched.h>
#include <croute/io/topo.h>

#include "cli.h"

enum {
	KEY_SLURM = CLI_KEY_CMD,
};

static const struct cli_opt export_opts[] = {
	{"slurm", KEY_SLURM, NULL, "a Slurm topology.conf (topology/tree)"},
	{"output", 'o', "FILE", "write to FILE (default: stdout)"},
	CLI_OPT_END,
};

static const struct cli_opt *const export_tables[] = {
	export_opts,
	cli_topo_opts,
	cli_live_opts,
	NULL,
};

struct export_ctx {
	struct cli_setup setup;
	const char *output;
	bool slurm;
};

static int export_opt(void *arg, int key, const char *val)
{
	struct export_ctx *c = arg;
	int ret = cli_setup_opt(&c->setup, key, val);

	if (ret <= 0)
		return ret;
	if (key == KEY_SLURM)
		c->slurm = true;
	else
		c->output = val; /* 'o' */
	return 0;
}

static int export_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct export_ctx c = {0};
	struct cr_fabric *f = NULL;
	struct cr_names *nm = NULL;
	char comment[512];
	FILE *out;
	char *tmp;
	int ret;

	cli_setup_init(&c.setup, cmd);
	ret = cli_parse_options(cmd, argc, argv, export_opt, &c);
	if (ret != CLI_GO)
		goto out;
	ret = CLI_BAD;
	if (!c.slurm) {
		cli_usage_error(cmd, "say what to export: --slurm");
		goto out;
	}
	f = cli_load(&c.setup);
	if (!f)
		goto out;
	nm = cr_names_new(f, NULL);
	if (!nm || cli_names_usable(&c.setup, f, nm, NULL, "topology.conf"))
		goto out;
	snprintf(comment, sizeof(comment), "from %s",
		 c.setup.live ? "the live fabric" : c.setup.topo);
	out = cli_out_open(c.output, &tmp);
	if (!out)
		goto out;
	if (cli_out_close(out, tmp, c.output,
			  !cr_slurm_write(out, f, nm, comment)))
		goto out;
	ret = CLI_OK;
out:
	cr_names_free(nm);
	cr_fabric_free(f);
	cli_setup_release(&c.setup);
	return ret;
}

const struct cli_cmd cli_cmd_export = {
	.name = "export",
	.synopsis = "(--topo FILE | --dump-dir DIR | --live) --slurm [-o FILE]",
	.summary = "Export the fabric for other tools: a Slurm topology.conf.",
	.details =
		"--slurm: every switch with hosts lists them (Nodes=), every"
		" other switch the\nswitches one level below it that it is"
		" cabled to (Switches=); a level is the\ndistance to the"
		" nearest switch with hosts. Links within a level are listed"
		" in\ncomments; when no switch reaches every leaf (torus,"
		" mesh) a switch\n\"croute-fabric\" above the top ones lets"
		" jobs span the fabric. Host names\nare node descriptions' first"
		" words, switch names their descriptions, or their names in"
		" --node-name-map.\nNodes whose names are shared or empty"
		" have only GUIDs, which are not node\nnames: then no file is"
		" written (exit status 2) until a --node-name-map names\nthem."
		" Names are hostlist compressed.\n",
	.opts = export_tables,
	.run = export_run,
};
