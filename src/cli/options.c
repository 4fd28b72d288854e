// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Option parsing for every command: getopt_long's tables built from the
 * command's option groups (struct cli_opt) plus -h, -v and -q, and the
 * strict number and usage-error helpers the handlers share.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>

#include "cli.h"

const struct cli_opt cli_common_opts[] = {
	{"verbose", 'v', NULL, "what each step did, on stderr (twice: debug)"},
	{"quiet", 'q', NULL, "only errors on stderr"},
	{"help", 'h', NULL, "show this help"},
	CLI_OPT_END,
};

int cli_verbosity = CR_LOG_NOTE;

/*
 * The format of every error the command prints, usage and files alike
 * (the core's log): "croute: error: SUBJECT: message", SUBJECT the file
 * (and line) or, for usage, the command.
 */
void cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "croute: error: %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'croute help %s'.\n", cmd->name);
}

int cli_uint(const struct cli_cmd *cmd, const char *what, const char *arg,
	     unsigned long max, unsigned long *out)
{
	unsigned long long v;
	char *e;

	errno = 0;
	v = isdigit((unsigned char)*arg) ? strtoull(arg, &e, 0) : 0;
	if (!isdigit((unsigned char)*arg) || errno || *e || v > max) {
		cli_usage_error(cmd, "%s: '%s' is not a number from 0 to %lu",
				what, arg, max);
		return -1;
	}
	*out = (unsigned long)v;
	return 0;
}

const char *cli_opt_name(const struct cli_cmd *cmd, int key)
{
	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		for (const struct cli_opt *o = cmd->opts[i]; o->name; o++)
			if (o->key == key)
				return o->name;
	return "option";
}

int cli_parse_options(const struct cli_cmd *cmd, int argc, char **argv,
		      int (*handle)(void *ctx, int key, const char *arg),
		      void *ctx)
{
	int first = cli_parse(cmd, argc, argv, handle, ctx);

	if (first < 0)
		return first == -2 ? CLI_OK : CLI_BAD;
	if (first < argc) {
		cli_usage_error(cmd, "unexpected argument '%s'", argv[first]);
		return CLI_BAD;
	}
	return CLI_GO;
}

static size_t count_opts(const struct cli_opt *o)
{
	size_t n = 0;

	while (o[n].name)
		n++;
	return n;
}

static int add_opts(const struct cli_opt *o, struct option *lo, size_t *nlo,
		    char *so, size_t *nso)
{
	for (; o->name; o++) {
		lo[*nlo] = (struct option){
			o->name, o->arg ? required_argument : no_argument, NULL,
			o->key};
		(*nlo)++;
		if (o->key < CLI_KEY_LONG) {
			so[(*nso)++] = (char)o->key;
			if (o->arg)
				so[(*nso)++] = ':';
		}
	}
	return 0;
}

static const struct cli_opt *find_opt(const struct cli_cmd *cmd, int key)
{
	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		for (const struct cli_opt *o = cmd->opts[i]; o->name; o++)
			if (o->key == key)
				return o;
	return NULL;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv,
	      int (*handle)(void *ctx, int key, const char *arg), void *ctx)
{
	size_t total = count_opts(cli_common_opts), nlo = 0, nso = 0;
	int verbosity = CR_LOG_NOTE, ret = -1, c;
	struct option *lo;
	char *so;

	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		total += count_opts(cmd->opts[i]);
	lo = calloc(total + 1, sizeof(*lo));
	so = calloc(3 * total + 2, 1);
	if (!lo || !so) {
		fprintf(stderr, "croute: error: out of memory\n");
		goto out;
	}
	so[nso++] = ':'; /* missing arguments reported here */
	for (unsigned i = 0; cmd->opts && cmd->opts[i]; i++)
		add_opts(cmd->opts[i], lo, &nlo, so, &nso);
	add_opts(cli_common_opts, lo, &nlo, so, &nso);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const char *bad = optopt >= CLI_KEY_LONG || !optopt
					  ? argv[optind - 1]
					  : NULL;

		switch (c) {
		case 'h':
			cli_help(cmd, stdout);
			ret = -2;
			goto out;
		case 'v':
			/* -v: info and verbose (what each step did), -vv: debug */
			verbosity = verbosity < CR_LOG_VERBOSE ? CR_LOG_VERBOSE
							       : CR_LOG_DEBUG;
			break;
		case 'q':
			verbosity = CR_LOG_WARN;
			break;
		case '?':
			if (bad)
				cli_usage_error(cmd, "unknown option '%s'",
						bad);
			else
				cli_usage_error(cmd, "unknown option '-%c'",
						optopt);
			goto out;
		case ':':
			if (bad)
				cli_usage_error(cmd, "'%s' needs an argument",
						bad);
			else
				cli_usage_error(cmd, "'-%c' needs an argument",
						optopt);
			goto out;
		default:
			if (!find_opt(cmd, c) || handle(ctx, c, optarg))
				goto out;
		}
	}
	cli_verbosity = verbosity;
	cr_log_set(NULL, NULL, (enum cr_log_level)verbosity);
	ret = optind;
out:
	free(lo);
	free(so);
	return ret;
}
