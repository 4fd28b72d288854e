// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reports and output files: the --json envelope every report shares, and
 * -o files that appear only when whole (renamed into place).
 */
#include <errno.h>
#include <string.h>

#include <croute/model/json.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

void cli_json_str(FILE *out, const char *s)
{
	cr_json_str(out, s);
}

int cli_report_written(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		cr_err("cannot write the report: %s", strerror(errno));
		return CLI_BAD;
	}
	return ret;
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
