// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute convert: a topology in any format croute reads (an ibdm plan,
 * opensm-subnet.lst, ibnetdiscover) written as ibnetdiscover output,
 * without LIDs, so that ibsim can simulate it and OpenSM route it.
 */
#include <croute/io/ibdm.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

static const struct cli_opt convert_opts[] = {
	{"topo", 't', "FILE", "the topology to convert ('-': stdin)"},
	{"ibnl-dir", CLI_KEY_IBNL_DIR, "DIR",
	 "ibdm plans: system definitions searched before the installed"},
	{"output", 'o', "FILE", "write to FILE (default: stdout)"},
	CLI_OPT_END,
};

static const struct cli_opt *const convert_tables[] = {
	convert_opts,
	NULL,
};

struct convert_ctx {
	const char *topo, *output;
};

static int convert_opt(void *arg, int key, const char *val)
{
	struct convert_ctx *c = arg;

	if (key == 't')
		c->topo = val;
	else if (key == 'o')
		c->output = val;
	else
		return cr_ibdm_add_dir(val); /* CLI_KEY_IBNL_DIR */
	return 0;
}

static int convert_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct convert_ctx c = {0};
	struct cr_fabric *f;
	const char *format;
	FILE *out;
	char *tmp;
	int ret = cli_parse_options(cmd, argc, argv, convert_opt, &c);
	bool ok;

	if (ret != CLI_GO)
		return ret;
	if (!c.topo) {
		cli_usage_error(cmd, "--topo FILE is required");
		return CLI_BAD;
	}
	f = cr_topo_read_format(c.topo, &format);
	if (!f)
		return CLI_BAD;
	/* LIDs a file gave would be stale for the simulated fabric. */
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++) {
			f->nodes[n].ports[p].lid = 0;
			f->nodes[n].ports[p].lmc = 0;
		}
	f->max_lid = 0;
	out = cli_out_open(c.output, &tmp);
	if (!out) {
		cr_fabric_free(f);
		return CLI_BAD;
	}
	ok = !cr_topo_write(out, f);
	cr_verbose("%s (%s): %u switches, %u other nodes", c.topo, format,
		   f->num_switches, f->num_nodes - f->num_switches);
	cr_fabric_free(f);
	return cli_out_close(out, tmp, c.output, ok) ? CLI_BAD : CLI_OK;
}

const struct cli_cmd cli_cmd_convert = {
	.name = "convert",
	.synopsis = "--topo FILE [--ibnl-dir DIR] [-o FILE]",
	.summary = "Write a topology (an ibdm plan, ...) in ibnetdiscover"
		   " format.",
	.details = "The output has no LIDs; ibsim reads it as it is"
		   " (ibsim -s FILE), with OpenSM\nattached to its first"
		   " node.\n",
	.opts = convert_tables,
	.run = convert_run,
};
