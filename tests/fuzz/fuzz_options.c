// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The command's option parsing: the input, split at NUL bytes and
 * newlines, is an argument vector for a command taking the shared option
 * tables (topology and LIDs, engine and its options, --live, estimate's),
 * parsed as the commands parse them (cli_parse, cli_setup_opt,
 * est_cli_opt), then the pattern list parsed. Nothing is loaded or run.
 * Built with the shared code of src/cli (fuzz_cli_sources), no command.
 */
#include "fuzz.h"

#include "cli.h"
#include "est_cli.h"

#define MAX_ARGS 64

/* Parsing never loads a fabric; the live reader is not linked. */
struct cr_fabric *cli_live_load(struct cli_setup *s)
{
	(void)s;
	return NULL;
}

static const struct cli_opt *const fuzz_opts[] = {
	cli_topo_opts, cli_engine_opts, cli_live_opts, est_cli_opts, NULL};

static const struct cli_cmd fuzz_cmd = {
	.name = "fuzz",
	.synopsis = "[options]",
	.summary = "Option parsing under a fuzzer.",
	.opts = fuzz_opts,
};

struct both {
	struct cli_setup cs;
	struct est_setup es;
};

static int handle(void *ctx, int key, const char *arg)
{
	struct both *b = ctx;

	return est_cli_opt(&b->cs, &b->es, key, arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size);
	char *argv[MAX_ARGS + 2];
	struct cr_pattern *pats;
	struct both b;
	int argc = 1, n;

	if (!text)
		return 0;
	argv[0] = (char *)"fuzz";
	for (size_t i = 0; i < size && argc <= MAX_ARGS; i++) {
		if (!i || !text[i - 1] || text[i - 1] == '\n')
			argv[argc++] = text + i;
		if (text[i] == '\n')
			text[i] = '\0';
	}
	argv[argc] = NULL;
	cli_setup_init(&b.cs, &fuzz_cmd);
	est_setup_init(&b.es, &fuzz_cmd);
	/* after cli_setup_init, which may reset the sink */
	fuzz_quiet();
	if (cli_parse(&fuzz_cmd, argc, argv, handle, &b) >= 0) {
		n = est_setup_patterns(&b.es, &pats);
		if (n > 0)
			cr_pattern_list_free(pats, n);
	}
	est_setup_release(&b.es);
	cli_setup_release(&b.cs);
	free(text);
	return 0;
}
