// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* croute(1): finds the command and runs it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <config.h>
#include <cr_version.h>

#include <croute/report/gzfile.h>
#include <croute/io/topo.h>

#include "cli.h"

/* One line per command: cmd_<name>.c defines struct cli_cmd cli_cmd_<name>. */
#define CLI_COMMANDS(X) \
	X(gen)          \
	X(route)        \
	X(check)        \
	X(estimate)     \
	X(compare)      \
	X(hosts)        \
	X(export)       \
	X(bound)        \
	X(doctor)       \
	X(convert)      \
	X(diff)         \
	X(resilience)

#define CLI_DECLARE(name) extern const struct cli_cmd cli_cmd_##name;
#define CLI_ENTRY(name) &cli_cmd_##name,

CLI_COMMANDS(CLI_DECLARE)

static const struct cli_cmd *const commands[] = {
	CLI_COMMANDS(CLI_ENTRY) NULL,
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: croute COMMAND [options] [arguments]\n"
		     "       croute help COMMAND | --help | --version\n\n"
		     "Routes InfiniBand fabrics offline with the engines of"
		     " the OpenSM plugin\nlibcroute.so, from topology files."
		     "\n\nCommands:\n");
	for (unsigned i = 0; commands[i]; i++)
		fprintf(out, "  %-10s%s%s\n", commands[i]->name,
			strlen(commands[i]->name) < 10 ? "" : " ",
			commands[i]->summary);
	fprintf(out, "\nExit status: 0 done, 1 problems found, 2 bad input"
		     " or usage.\n");
}

/* An interrupted run leaves no FILE.tmp.PID.N; the signal then ends it. */
static void on_signal(int sig)
{
	cr_file_remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* An ignored signal (nohup, a shell's background job) stays so. */
		if (!sigaction(sigs[i], NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static const struct cli_cmd *find(const char *name)
{
	for (unsigned i = 0; commands[i]; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	fprintf(stderr,
		"croute: error: unknown command '%s'\nTry 'croute --help'.\n",
		name);
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cli_cmd *cmd;

	/* Every input may be gzip-compressed, every output "*.gz" is. */
	cr_gz_register();
	cli_report = stdout;
	if (argc < 2) {
		usage(stderr);
		return CLI_BAD;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("%s %s\n", PACKAGE_NAME, CR_VERSION);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return CLI_OK;
		}
		cmd = find(argv[2]);
		if (!cmd)
			return CLI_BAD;
		cli_help(cmd, stdout);
		return CLI_OK;
	}
	cmd = find(argv[1]);
	if (!cmd)
		return CLI_BAD;
	catch_signals();
	return cmd->run(cmd, argc - 1, argv + 1);
}
