// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --help: generated from the same option tables the parser uses. */
#include <stdio.h>

#include "cli.h"

static void help_table(const struct cli_opt *o, FILE *out)
{
	for (; o->name; o++) {
		char left[64];
		int n;

		n = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s",
			     o->key < CLI_KEY_LONG ? '-' : ' ',
			     o->key < CLI_KEY_LONG ? o->key : ' ',
			     o->key < CLI_KEY_LONG ? ", " : "  ", o->name,
			     o->arg ? " " : "", o->arg ? o->arg : "");
		if (n < 30)
			fprintf(out, "%-30s%s\n", left, o->help);
		else
			fprintf(out, "%s\n%30s%s\n", left, "", o->help);
	}
}

void cli_help(const struct cli_cmd *cmd, FILE *out)
{
	fprintf(out, "Usage: croute %s %s\n\n%s\n", cmd->name, cmd->synopsis,
		cmd->summary);
	if (cmd->details)
		fprintf(out, "\n%s", cmd->details);
	fputs("\nOptions:\n", out);
	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		help_table(cmd->opts[i], out);
	help_table(cli_common_opts, out);
}
