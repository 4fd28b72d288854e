// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute doctor: whether opensm will load libcroute.so and route with it
 * under a given opensm.conf, checked without touching the fabric. opensm
 * has no plugin directory: it dlopens lib<name>.so for each
 * event_plugin_name through the dynamic linker's search path, and skips
 * a plugin whose osm_event_plugin.osm_version differs from its own
 * version string. Either way it logs one line, goes on with minhop and
 * exits 0, so the mistakes this finds are otherwise silent. The
 * configuration goes through the plugin's own parsers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <croute/route/engine.h>
#include <croute/tune/auto.h>
#include <croute/io/conf.h>
#include <croute/tune/conf_check.h>
#include <croute/model/log.h>
#include <croute/io/osm_conf.h>

#include "cli.h"
#include "doctor_load.h"

enum {
	KEY_PLUGIN = CLI_KEY_CMD,
	KEY_OPENSM,
	KEY_JSON,
};

#define DEFAULT_CONFIG "/etc/opensm/opensm.conf"

static const struct cli_opt doctor_opts[] = {
	{"config", 'F', "FILE",
	 "the opensm.conf to check (" DEFAULT_CONFIG ")"},
	{"plugin", KEY_PLUGIN, "FILE",
	 "the plugin to check (libcroute.so, found as opensm does)"},
	{"opensm", KEY_OPENSM, "FILE",
	 "the opensm to match (opensm, found in PATH)"},
	{"json", KEY_JSON, NULL, "write the findings as JSON (croute(1))"},
	CLI_OPT_END,
};

static const struct cli_opt *const doctor_tables[] = {
	doctor_opts,
	NULL,
};

struct doctor {
	const char *config, *plugin, *opensm;
	bool config_given, json;
	unsigned problems, findings;
};

/* One finding: a text line "KIND: ...", or a JSON object {kind, text}. */
static void finding(struct doctor *d, const char *kind, const char *fmt,
		    va_list ap)
{
	char text[2048];

	vsnprintf(text, sizeof(text), fmt, ap);
	if (!d->json) {
		printf("%s: %s\n", kind, text);
		return;
	}
	printf("%s\n  {\"kind\": \"%s\", \"text\": ", d->findings++ ? "," : "",
	       kind);
	cli_json_str(stdout, text);
	putchar('}');
}

static void problem(struct doctor *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct doctor *d, const char *fmt, ...)
{
	va_list ap;

	d->problems++;
	va_start(ap, fmt);
	finding(d, "problem", fmt, ap);
	va_end(ap);
}

static void ok(struct doctor *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(struct doctor *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	finding(d, "ok", fmt, ap);
	va_end(ap);
}

/* The parsers' errors are findings: each a problem line of its own. */
static void sink(void *arg, enum cr_log_level level, const char *msg)
{
	if (level == CR_LOG_ERROR)
		problem(arg, "%s", msg);
}

static int doctor_opt(void *arg, int key, const char *val)
{
	struct doctor *d = arg;

	if (key == 'F') {
		d->config = val;
		d->config_given = true;
	} else if (key == KEY_JSON) {
		cli_json_on(&d->json);
	} else if (key == KEY_PLUGIN) {
		d->plugin = val;
	} else if (key == KEY_OPENSM) {
		d->opensm = val;
	}
	return 0;
}

/* "OpenSM 3.3.23" from `opensm --version`, which prints it and exits. */
static bool opensm_version(const char *opensm, char *buf, size_t len)
{
	int fd[2], status;
	bool found = false;
	char line[256];
	pid_t pid;
	FILE *in;

	if (pipe(fd))
		return false;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return false;
	}
	if (!pid) {
		dup2(fd[1], STDOUT_FILENO);
		dup2(fd[1], STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		execlp(opensm, opensm, "--version", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	in = fdopen(fd[0], "r");
	while (in && fgets(line, sizeof(line), in))
		if (!found && !strncmp(line, "OpenSM ", 7)) {
			line[strcspn(line, "\r\n")] = '\0';
			snprintf(buf, len, "%s", line);
			found = true;
		}
	if (in)
		fclose(in);
	else
		close(fd[0]);
	waitpid(pid, &status, 0);
	return found;
}

/*
 * Whether opensm can load the plugin, judged from the files as the loader
 * will see them in opensm's process (doctor_load.c); then the version
 * opensm compares, the first field of osm_event_plugin.
 */
static void check_plugin(struct doctor *d)
{
	const char *lib = d->plugin ? d->plugin : "libcroute.so";
	char *found, *built, *why, version[256];
	enum doctor_load_result r;

	r = doctor_load(lib, d->opensm, &found, &built, &why);
	if (r == DOCTOR_NO_OPENSM)
		problem(d,
			"cannot tell whether opensm can load %s: %s; is"
			" opensm installed (--opensm names it)?",
			lib, why ? why : "out of memory");
	else if (r == DOCTOR_NO_LOAD)
		problem(d,
			"opensm cannot load %s: %s; it would log \"Failed to"
			" open event plugin\" and route with minhop (install"
			" with make install, or set LD_LIBRARY_PATH: croute(8),"
			" INSTALLATION AND OPENSM VERSIONS)",
			lib, why ? why : "out of memory");
	else if (!found || !built)
		problem(d, "out of memory");
	else if (!opensm_version(d->opensm, version, sizeof(version)))
		problem(d, "cannot run '%s --version': is opensm installed?",
			d->opensm);
	else if (strcmp(built, version))
		problem(d,
			"%s was built for %s, but %s is %s: opensm would skip"
			" it (\"OpenSM version mismatch\") and route with"
			" minhop; rebuild croute against this opensm",
			found, built, d->opensm, version);
	else
		ok(d, "%s loads in %s, built for %s, its version", found,
		   d->opensm, built);
	free(found);
	free(built);
	free(why);
}

/* OpenSM's engines whose routes, when they succeed, are deadlock-free. */
static const char *const safe_builtins[] = {
	"updn", "dnup", "ftree", "lash", "dfsssp", "nue", "torus-2QoS", NULL,
};
static const char *const other_builtins[] = {
	"minhop", "file", "sssp", "dor", "none", NULL,
};

static bool in_list(const char *const *l, const char *name)
{
	for (; *l; l++)
		if (!strcmp(*l, name))
			return true;
	return false;
}

/*
 * OpenSM tries the engines of routing_engine in turn and, when all fail,
 * routes with minhop, which can deadlock: a croute engine needs a
 * deadlock-free built-in after it.
 */
static void check_engines(struct doctor *d, const char *list)
{
	char *copy, *save = NULL, *name;
	const char *croute = NULL, *safe = NULL;
	unsigned before = d->problems;
	bool no_fallback = false;

	if (!list) {
		problem(d,
			"%s: no routing_engine: opensm routes with minhop,"
			" not with croute",
			d->config);
		return;
	}
	copy = strdup(list);
	for (name = copy ? strtok_r(copy, ", \t", &save) : NULL; name;
	     name = strtok_r(NULL, ", \t", &save)) {
		if (!strncmp(name, "cr-", 3)) {
			if (!cr_engine_find_any(name))
				problem(d,
					"%s: routing_engine: no croute engine"
					" is named %s",
					d->config, name);
			croute = name;
			safe = NULL;
		} else if (!strcmp(name, "no_fallback")) {
			no_fallback = true; /* OpenSM's: no minhop at the end */
		} else if (in_list(safe_builtins, name)) {
			safe = safe ? safe : name;
		} else if (!in_list(other_builtins, name)) {
			problem(d,
				"%s: routing_engine: %s is neither a croute"
				" engine nor one of OpenSM's",
				d->config, name);
		}
	}
	if (!croute)
		problem(d, "%s: routing_engine %s names no croute engine (cr-)",
			d->config, list);
	else if (!safe && no_fallback && d->problems == before)
		ok(d,
		   "routing_engine %s: with no_fallback opensm does"
		   " not end in minhop",
		   list);
	else if (!safe && !no_fallback)
		problem(d,
			"%s: routing_engine %s has no deadlock-free fall-back"
			" after %s: if croute cannot route, opensm ends in"
			" minhop; add one, e.g. %s,updn",
			d->config, list, croute, list);
	else if (d->problems == before)
		ok(d, "routing_engine %s falls back on %s", list, safe);
	free(copy);
}

/*
 * A layered engine (its paths on several SLs) without QoS: OpenSM programs
 * no SL2VL tables then and the plugin refuses the engine at every sweep,
 * so the fabric is routed by whatever follows it in the list.
 */
static void check_qos(struct doctor *d, const char *list, int qos)
{
	char *copy, *save = NULL, *name;
	const struct cr_engine *e;

	if (!list || qos == 1)
		return;
	copy = strdup(list);
	for (name = copy ? strtok_r(copy, ", \t", &save) : NULL; name;
	     name = strtok_r(NULL, ", \t", &save)) {
		if (strncmp(name, "cr-", 3))
			continue;
		e = cr_engine_find_any(name);
		if (e && e->layered)
			problem(d,
				"%s: routing_engine lists %s, which needs"
				" qos TRUE, but qos is %s: the plugin refuses"
				" %s and opensm moves on to the next engine",
				d->config, name,
				qos == 0 ? "FALSE" : "not set (FALSE)", name);
	}
	free(copy);
}

/* A file a key names: it must exist and parse as opensm would read it. */
static void check_file(struct doctor *d, const char *key, const char *path,
		       bool ports)
{
	FILE *fp;
	int err;

	if (!path)
		return;
	fp = fopen(path, "r");
	if (!fp) {
		problem(d, "%s: %s %s: %s", d->config, key, path,
			strerror(errno));
		return;
	}
	if (ports) {
		struct cr_options o;

		cr_options_init(&o);
		err = cr_port_order_parse(fp, path, key, &o);
		cr_options_release(&o);
	} else {
		struct cr_guid_list l = {0};

		err = cr_guid_file_parse(fp, path, key, &l);
		free(l.guids);
	}
	fclose(fp);
	if (!err)
		ok(d, "%s %s parses", key, path);
}

/*
 * One line at a time, so that every bad line is a problem of its own:
 * croute's keys through the plugin's parser, then the line, at its own
 * line number, through the parser -F uses (which stops at its first
 * error).
 */
static int parse_line(struct doctor *d, struct cr_conf *scratch,
		      struct cr_osm_conf *c, const char *line, unsigned lineno)
{
	char *text = NULL, *copy = strdup(line);
	size_t len = 0;
	FILE *fp;
	int err;

	if (!copy)
		return -1;
	err = cr_conf_parse_line(scratch, d->config, lineno, copy);
	if (!err)
		err = cr_conf_check(scratch);
	free(copy);
	if (err)
		return 0; /* reported; the plugin ignores the line */
	fp = open_memstream(&text, &len);
	if (!fp)
		return -1;
	for (unsigned i = 1; i < lineno; i++)
		fputc('\n', fp);
	fputs(line, fp);
	if (fclose(fp))
		return -1;
	fp = fmemopen(text, len, "r");
	if (fp) {
		cr_osm_conf_parse(c, fp, d->config); /* errors reported */
		fclose(fp);
	}
	free(text);
	return fp ? 0 : -1;
}

static void read_config(struct doctor *d, FILE *fp, struct cr_osm_conf *c)
{
	unsigned lineno = 0, before = d->problems;
	struct cr_conf scratch;
	char *line = NULL;
	size_t cap = 0;

	cr_conf_defaults(&scratch);
	while (getline(&line, &cap, fp) >= 0)
		if (parse_line(d, &scratch, c, line, ++lineno)) {
			problem(d, "%s: out of memory", d->config);
			break;
		}
	free(line);
	if (d->problems == before)
		ok(d, "%s: croute's keys parse", d->config);
}

/* event_plugin_name, a list: croute must be in it. */
static void check_plugin_name(struct doctor *d, FILE *fp)
{
	char *line = NULL, *save, *w;
	size_t cap = 0;
	bool named = false, seen = false;

	while (getline(&line, &cap, fp) >= 0) {
		save = NULL;
		w = strtok_r(line, " \t\r\n", &save);
		if (!w || strcmp(w, "event_plugin_name"))
			continue;
		seen = true;
		named = false;
		while ((w = strtok_r(NULL, " \t\r\n", &save)) && *w != '#')
			named |= !strcmp(w, "croute");
	}
	free(line);
	rewind(fp);
	if (!named)
		problem(d,
			"%s: event_plugin_name %s: opensm does not load"
			" croute; add \"event_plugin_name croute\"",
			d->config,
			seen ? "does not name croute" : "is not set");
}

static void check_config(struct doctor *d)
{
	struct cr_osm_conf c;
	FILE *fp = fopen(d->config, "r");

	if (!fp) {
		if (d->config_given)
			problem(d, "%s: %s", d->config, strerror(errno));
		else
			ok(d,
			   "no %s: only the plugin was checked (-F"
			   " names the configuration)",
			   d->config);
		return;
	}
	cr_osm_conf_init(&c);
	check_plugin_name(d, fp);
	read_config(d, fp, &c);
	check_engines(d, c.routing_engine);
	check_qos(d, c.routing_engine, c.k.qos);
	check_file(d, "root_guid_file", c.root_guid_file, false);
	check_file(d, "cn_guid_file", c.cn_guid_file, false);
	check_file(d, "io_guid_file", c.io_guid_file, false);
	check_file(d, "guid_routing_order_file", c.guid_routing_order_file,
		   false);
	check_file(d, "port_search_ordering_file", c.port_search_ordering_file,
		   true);
	cr_osm_conf_release(&c);
	fclose(fp);
}

static int doctor_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct doctor d = {
		.config = DEFAULT_CONFIG,
		.opensm = "opensm",
	};
	cr_log_fn fn;
	void *arg;
	enum cr_log_level level;
	int ret;

	ret = cli_parse_options(cmd, argc, argv, doctor_opt, &d);
	if (ret != CLI_GO)
		return ret;
	if (d.json) {
		cli_json_begin(stdout, "doctor");
		fputs("\"findings\": [", stdout);
	}
	cr_log_get(&fn, &arg, &level);
	cr_log_set(sink, &d, level);
	check_plugin(&d);
	check_config(&d);
	cr_log_set(fn, arg, level);
	if (d.json) {
		printf("], \"problems\": %u, \"result\": \"%s\"", d.problems,
		       d.problems ? "PROBLEMS" : "OK");
		cli_json_warnings(stdout);
		fputs("}\n", stdout);
	} else if (d.problems)
		printf("%u problem%s found\n", d.problems,
		       d.problems == 1 ? "" : "s");
	else
		printf("no problems found\n");
	return cli_report_written(d.problems ? CLI_PROBLEMS : CLI_OK);
}

const struct cli_cmd cli_cmd_doctor = {
	.name = "doctor",
	.synopsis = "[-F opensm.conf] [--plugin FILE] [--opensm FILE]",
	.summary = "whether opensm can load the plugin and route with it",
	.details = "Checks, without touching the fabric: that opensm can load"
		   " the plugin\nand that it was built for this opensm; that"
		   " croute's keys parse; that\nrouting_engine has a"
		   " deadlock-free fall-back after croute's engines; that\na"
		   " layered engine has qos TRUE; that the files the keys"
		   " name exist and\nparse. One line a check; exit status 1"
		   " when a problem was found.\n",
	.opts = doctor_tables,
	.run = doctor_run,
};
