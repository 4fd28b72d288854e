// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reports and output files: the --json envelope every report shares, and
 * -o files that appear only when whole (renamed into place).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <croute/model/json.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

FILE *cli_report;
static char *report_tmp;
static const char *report_path;

int cli_report_open(const char *path)
{
	report_path = path;
	cli_report = cli_out_open(path, &report_tmp);
	if (!cli_report) {
		cli_report = stdout;
		return -1;
	}
	return 0;
}

int cli_report_done(int ret)
{
	FILE *out = cli_report;
	bool ok = ret == CLI_OK || ret == CLI_PROBLEMS;

	cli_report = stdout;
	if (out == stdout)
		return ret;
	/* A report cut short by an error is not left as if whole. */
	return cli_out_close(out, report_tmp, report_path, ok) ? CLI_BAD : ret;
}

void cli_json_str(FILE *out, const char *s)
{
	cr_json_str(out, s);
}

int cli_report_written(int ret)
{
	if (fflush(cli_report) || ferror(cli_report)) {
		cr_err("cannot write the report: %s", strerror(errno));
		return CLI_BAD;
	}
	return ret;
}

bool cli_report_times(bool times)
{
	return times || cli_verbosity >= CR_LOG_VERBOSE;
}

void cli_json_node(FILE *out, const struct cr_fabric *f, uint32_t n, unsigned p)
{
	const struct cr_node *nd;
	const struct cr_port *port;

	if (n >= f->num_nodes) {
		fputs("null", out);
		return;
	}
	nd = &f->nodes[n];
	if (nd->type == CR_NODE_SWITCH || p > nd->num_ports)
		p = 0;
	port = &nd->ports[nd->type == CR_NODE_SWITCH ? 0 : p];
	fputs("{\"name\": ", out);
	cli_json_str(out, nd->desc);
	fprintf(out, ", \"type\": \"%s\", \"node_guid\": \"0x%016" PRIx64 "\"",
		nd->type == CR_NODE_SWITCH ? "switch" : "ca", nd->guid);
	if (p)
		fprintf(out,
			", \"port\": %u, \"port_guid\": \"0x%016" PRIx64 "\"",
			p, port->guid);
	if ((p || nd->type == CR_NODE_SWITCH) && port->lid)
		fprintf(out, ", \"lid\": %u", port->lid);
	fputc('}', out);
}

void cli_json_warnings(FILE *out)
{
	const char *w;

	fputs(", \"warnings\": [", out);
	for (unsigned i = 0; (w = cr_log_warning(i)); i++) {
		if (i)
			fputs(", ", out);
		cli_json_str(out, w);
	}
	fputc(']', out);
}

void cli_json_on(bool *json)
{
	*json = true;
	cr_log_keep_warnings(true);
}

void cli_json_begin(FILE *out, const char *command)
{
	fprintf(out, "{\"schema\": \"%s\", \"version\": %d, \"command\": ",
		CLI_JSON_SCHEMA, CLI_JSON_VERSION);
	cli_json_str(out, command);
	fputs(", ", out);
}

FILE *cli_out_open(const char *path, char **tmp)
{
	*tmp = NULL;
	if (!path || !strcmp(path, "-"))
		return stdout;
	return cr_file_create(path, tmp);
}

int cli_out_close(FILE *out, char *tmp, const char *path, bool ok)
{
	if (!tmp) {
		if (fflush(out) || ferror(out)) {
			cr_err("cannot write the output: %s", strerror(errno));
			return -1;
		}
		return ok ? 0 : -1;
	}
	if (!ok) {
		cr_file_abort(out, tmp);
		return -1;
	}
	return cr_file_commit(out, tmp, path);
}
