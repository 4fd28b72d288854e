/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * croute(1): one small file per command (cmd_<name>.c) over shared code,
 * the way infiniband-diags builds its tools: option parsing (options.c)
 * and help (help.c), the shared options and their setup (setup.c), -F
 * (config.c), loading the fabric (load.c), routing it (routing.c), and
 * reports and output files (output.c). A command is a struct cli_cmd
 * named cli_cmd_<name>; main.c lists the commands in CLI_COMMANDS, one
 * line each.
 */
#ifndef CROUTE_CLI_H
#define CROUTE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <croute/tune/auto.h>
#include <croute/model/clock.h>
#include <croute/route/engine.h>
#include <croute/tune/optimize.h>
#include <croute/io/osm_conf.h>
#include <croute/model/routing.h>

/* Exit statuses (doc/design.md). */
enum {
	CLI_OK = 0, /* done, nothing wrong */
	CLI_PROBLEMS = 1, /* problems found, or the engine refused */
	CLI_BAD = 2, /* bad input or usage */
};

/*
 * Option keys: a printable key is also the short option; keys from
 * CLI_KEY_LONG on are long-only. Shared options have fixed keys so that
 * commands can combine them; a command's own long-only keys start at
 * CLI_KEY_CMD.
 */
enum {
	CLI_KEY_LONG = 256,
	CLI_KEY_LIDS = CLI_KEY_LONG,
	CLI_KEY_LMC,
	CLI_KEY_PORT_SHIFTING,
	CLI_KEY_REMOTE_GUID_SORTING,
	CLI_KEY_SCATTER_PORTS,
	CLI_KEY_ROOT_GUIDS,
	CLI_KEY_CN_GUIDS,
	CLI_KEY_IO_GUIDS,
	CLI_KEY_GUID_ORDER,
	CLI_KEY_PORT_ORDER,
	CLI_KEY_LASH_START_VL,
	CLI_KEY_LASH_BALANCE,
	CLI_KEY_SM_PORT,
	CLI_KEY_DUMP_DIR,
	CLI_KEY_BALANCE,
	CLI_KEY_AUTO_CANDIDATES,
	CLI_KEY_AUTO_OBJECTIVE,
	CLI_KEY_AUTO_HOSTS,
	CLI_KEY_AUTO_BUDGET,
	CLI_KEY_QOS,
	CLI_KEY_AUTO_MAX_VLS,
	CLI_KEY_ALLOW_CREDIT_LOOPS,
	CLI_KEY_NODE_NAME_MAP,
	CLI_KEY_LIVE,
	CLI_KEY_OPTIMIZE,
	CLI_KEY_OPTIMIZE_BUDGET,
	CLI_KEY_OPTIMIZE_EXTRA_HOPS,
	CLI_KEY_NO_AUTO_OPTIMIZE,
	CLI_KEY_CONFIG_END, /* keys below are tracked in cli_setup.given */
	CLI_KEY_THREADS,
	CLI_KEY_LIVE_SL,
	CLI_KEY_IBNL_DIR,
	CLI_KEY_CMD = 512,
};

/* --live-sl: when --live asks the SA for path SLs (live_sl.c). */
enum cli_live_sl {
	CLI_LIVE_SL_AUTO, /* check, compare: when a path from here is not SL 0 */
	CLI_LIVE_SL_ALL, /* every source and destination LID */
	CLI_LIVE_SL_NONE,
};

struct cli_opt {
	const char *name; /* long name, without "--" */
	int key;
	const char *arg; /* the argument's name in help; NULL: none */
	const char *help;
};

/* clang-format off */
#define CLI_OPT_END { NULL, 0, NULL, NULL }
/*
 * The engines' GUID files, in cli_engine_opts and in compare's options
 * (which names engines its own way), so the two help texts agree.
 */
#define CLI_GUID_OPTS \
	{"root-guids", CLI_KEY_ROOT_GUIDS, "FILE", \
	 "root switch GUIDs, one a line (updn, ftree)"}, \
	{"cn-guids", CLI_KEY_CN_GUIDS, "FILE", \
	 "compute node port GUIDs, one a line (ftree)"}, \
	{"io-guids", CLI_KEY_IO_GUIDS, "FILE", \
	 "I/O node port GUIDs, one a line (ftree)"}
/* clang-format on */

struct cli_cmd {
	const char *name;
	const char *synopsis; /* what follows "croute NAME" */
	const char *summary; /* one line */
	const char *details; /* more help text, or NULL */
	/* option tables, NULL-terminated; -h and -v/-q are added to all */
	const struct cli_opt *const *opts;
	/* argv[0] is the command's name; returns an exit status */
	int (*run)(const struct cli_cmd *cmd, int argc, char **argv);
};

/*
 * Parses the options of cmd. handle gets each option's key and argument
 * and returns 0, or -1 after reporting what is wrong. Returns the index of
 * the first operand, -1 for a usage error (reported), or -2 after --help
 * was printed.
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv,
	      int (*handle)(void *ctx, int key, const char *arg), void *ctx);
/*
 * cli_parse() for commands that take no operands: CLI_GO to go on, else
 * the exit status to return (CLI_OK after --help, CLI_BAD after an error).
 */
#define CLI_GO (-1)
#define CLI_GIVE_UP_S 3600.0
int cli_parse_options(const struct cli_cmd *cmd, int argc, char **argv,
		      int (*handle)(void *ctx, int key, const char *arg),
		      void *ctx);
void cli_help(const struct cli_cmd *cmd, FILE *out);
/*
 * The long name of key's option, without "--": the first in the command's
 * tables, so an alias listed after its option is never the one named.
 */
const char *cli_opt_name(const struct cli_cmd *cmd, int key);
/*
 * Reports a usage error, "croute: error: CMD: ...", in the format of the
 * file errors, and where to get help.
 */
void cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Strict numbers: the whole argument, in range, or a reported error. */
int cli_uint(const struct cli_cmd *cmd, const char *what, const char *arg,
	     unsigned long max, unsigned long *out);

/*
 * What most commands share: the topology and its LIDs, the engine and its
 * options. Fill it with cli_setup_opt() from the command's handler.
 */
struct cli_setup {
	const struct cli_cmd *cmd;
	const char *topo;
	const char *lids; /* guid2lid file */
	int lmc; /* -1: not given */
	bool refused; /* the engine refused the fabric (exit 1, not 2) */
	bool not_its_kind; /* nor is the fabric of the engine's kind (2) */
	const char *sl, *sl2vl; /* check --sl/--sl2vl: the LFTs' layers */
	uint64_t sm_port; /* --sm-port; 0: the file's first port */
	const char *engine; /* NULL: not given */
	char *engine_pick; /* -R: the croute engine picked from the list */
	struct cr_options opts;
	/* the last cli_route()'s by-products; empty for LFTs read */
	struct cr_byproducts by;
	const char *root_guids, *cn_guids, *io_guids;
	const char *guid_order, *port_order;
	const char *dump_dir; /* --dump-dir */
	const char *name_map; /* --node-name-map */
	const char *config; /* -F opensm.conf */
	/*
	 * -F's keys, parsed (cli_config_apply()): the files, auto_conf's
	 * strings and lmc point into it
	 */
	struct cr_osm_conf conf;
	char *conf_engine; /* its routing_engine's first cr- entry */
	bool config_read;
	bool given[CLI_KEY_CONFIG_END - CLI_KEY_LONG]; /* on the command line */
	bool live; /* --live: discover, read the switches' LFTs */
	const char *live_ca; /* -C */
	int live_port; /* -P, 0: the first active */
	enum cli_live_sl live_sl; /* --live-sl */
	bool live_sl_given;
	bool live_layers; /* the command judges credit loops: SLs matter */
	struct cr_routing *live_routing; /* installed, until taken */
	char live_name[96];
	char *dump_topo, *dump_lfts, *dump_sl; /* its files, when found */
	const char *topo_format, *lfts_format; /* what was read */
	const char *installed; /* cli_installed_lfts()'s answer */
	struct cr_auto_conf auto_conf; /* --engine auto */
	bool optimize; /* --optimize: the improvement pass after routing */
	bool no_auto_optimize; /* --no-auto-optimize, croute_auto_optimize */
	/*
	 * croute_auto_give_up: the improve step's deadline. Offline no one
	 * waits on a sweep, so by default the work alone decides the
	 * tables, whatever the load: CLI_GIVE_UP_S only bounds a runaway.
	 */
	double give_up;
	struct cr_stop stop;
	struct cr_opt_params opt_params;
};

/* -v, -q and -h: every command takes them (options.c). */
extern const struct cli_opt cli_common_opts[];
extern const struct cli_opt cli_topo_opts[]; /* --topo --lids --lmc */
extern const struct cli_opt cli_engine_opts[]; /* --engine and its options */
extern const struct cli_opt cli_live_opts[]; /* --live -C -P */

/* What cli_installed_lfts() answers for --live: the switches' tables. */
extern const char cli_live_lfts[];
/* live.c: discovers the fabric, reads the LFTs into s->live_routing. */
struct cr_fabric *cli_live_load(struct cli_setup *s);
/* cr-auto's options (in cli_engine_opts, and in compare's --auto) */
#define CLI_AUTO_OPTS                                                          \
	{"auto-candidates", CLI_KEY_AUTO_CANDIDATES, "LIST",                   \
	 "auto: ENGINE[+ps][+rgs][+glob][+first][+bal][+rr]"                   \
	 "[+roots=R],... or all"},                                             \
		{"auto-objective", CLI_KEY_AUTO_OBJECTIVE, "SPEC",             \
		 "auto, optimize: PATTERN[:avg|min][@K[:worst]][~N%],..."},    \
		{"auto-hosts", CLI_KEY_AUTO_HOSTS, "FILE",                     \
		 "auto, optimize: tune for this host order (one a line)"},     \
		{"auto-budget", CLI_KEY_AUTO_BUDGET, "SECONDS",                \
		 "auto: seconds of work (default 5, 160 with --auto-hosts)"},  \
		{"qos", CLI_KEY_QOS, NULL,                                     \
		 "auto: layered candidates (lash) qualify, as with qos TRUE"}, \
		{"auto-max-vls", CLI_KEY_AUTO_MAX_VLS, "N",                    \
		 "auto: no candidate with more than N VLs (0: no cap)"},       \
		{"no-auto-optimize", CLI_KEY_NO_AUTO_OPTIMIZE, NULL,           \
		 "auto: no improvement pass on the winner"},                   \
	{                                                                      \
		"allow-credit-loops", CLI_KEY_ALLOW_CREDIT_LOOPS, NULL,        \
			"auto: candidates with credit loops qualify"           \
	}

/* The improvement pass (in cli_engine_opts and compare's options) */
#define CLI_OPTIMIZE_OPTS                                                \
	{"optimize", CLI_KEY_OPTIMIZE, NULL,                             \
	 "improve the routing on --auto-objective (croute_optimize)"},   \
		{"optimize-budget", CLI_KEY_OPTIMIZE_BUDGET, "SECONDS",  \
		 "optimize: time allowed (default 5)"},                  \
	{                                                                \
		"optimize-extra-hops", CLI_KEY_OPTIMIZE_EXTRA_HOPS, "N", \
			"optimize: minhop, updn paths N hops longer (0)" \
	}

void cli_setup_init(struct cli_setup *s, const struct cli_cmd *cmd);
void cli_setup_release(struct cli_setup *s);
/* 0 when taken, 1 when key is not a setup option, -1 on a bad value. */
int cli_setup_opt(struct cli_setup *s, int key, const char *arg);
struct cr_names;
struct cr_hosts;
/*
 * 0 when every node an export names (h's hosts, or every node when h is
 * NULL) has a name of its own; else -1 after an error that counts those
 * named by GUID and recommends --node-name-map. what: the file refused.
 */
int cli_names_usable(const struct cli_setup *s, const struct cr_fabric *f,
		     const struct cr_names *nm, const struct cr_hosts *h,
		     const char *what);
/* croute's engine names, "minhop, updn, ..., auto", each after prefix. */
const char *cli_engine_names(char *buf, size_t len, const char *prefix);
/*
 * -R LIST, OpenSM's syntax: s->engine becomes the first cr- engine of the
 * list (said at info level). 0, or -1 after a usage error.
 */
int cli_engine_list(struct cli_setup *s, const char *list);
/*
 * -F's routing_engine LIST, by the same rule: the first cr- engine, said
 * at info level; else the first entry. Allocated; NULL (memory).
 */
char *cli_conf_engine(const char *file, const char *list);
/*
 * -F, once: what the plugin takes from the file (cr_conf_map()), where
 * the command line did not say otherwise. 0, or -1 (logged).
 */
int cli_config_apply(struct cli_setup *s);
/*
 * cr-auto's settings into s->opts, its improve step from --optimize and
 * --no-auto-optimize (or -F's keys), as the plugin sets them.
 */
void cli_auto_setup(struct cli_setup *s);
/*
 * Reads the topology and gives it LIDs: from --lids, else assigned with
 * --lmc when given, else the file's own, else assigned with -F's lmc,
 * else with LMC 0. Applies -F first (cli_config_apply()).
 */
struct cr_fabric *cli_load(struct cli_setup *s);
/* DIR/NAME, malloc'ed; NULL when out of memory (reported). */
char *cli_dir_file(const char *dir, const char *name);
bool cli_readable(const char *path);
/*
 * Routes f with the chosen engine (default minhop) and its options, the
 * by-products into s->by. *seconds receives the engine's run time. NULL
 * on failure (reported).
 */
struct cr_routing *cli_route(struct cli_setup *s, const struct cr_fabric *f,
			     const struct cr_engine **engine, double *seconds);

/*
 * The routing to work on: read from lfts (opensm-lfts.dump or ibroute
 * output) when given (*engine NULL), else computed with cli_route().
 * NULL on failure (reported).
 */
struct cr_routing *cli_routing(struct cli_setup *s, const struct cr_fabric *f,
			       const char *lfts,
			       const struct cr_engine **engine,
			       double *seconds);
/*
 * cli_load() then cli_routing(), for the commands that report on one
 * routed fabric. On failure returns false and sets *status: CLI_PROBLEMS
 * when the engine refused the fabric (a finding about it), CLI_BAD
 * otherwise. *f is the caller's to free either way.
 */
bool cli_load_routed(struct cli_setup *s, const char *lfts,
		     struct cr_fabric **f, struct cr_routing **r,
		     const struct cr_engine **engine, double *seconds,
		     int *status);

/*
 * The installed LFTs to read: lfts when given, else (without --engine)
 * those of --dump-dir, else NULL (reported when --dump-dir has none).
 */
const char *cli_installed_lfts(struct cli_setup *s, const char *lfts);
/*
 * The routing check and estimate work on: *lfts (--lfts) or the tables in
 * place (--live, --dump-dir) into *lfts, else --engine. False after a
 * usage error (reported): --lfts with --engine, or neither.
 */
bool cli_lfts_or_engine(struct cli_setup *s, const char **lfts);
/* "TOPO (format), LFTs from FILE (format)" for report headers. */
const char *cli_sources(const struct cli_setup *s, const char *lfts, char *buf,
			size_t len);

/* -o FILE: stdout when path is NULL or "-", else a file renamed in place. */
FILE *cli_out_open(const char *path, char **tmp);
/* Commits (ok) or discards the output; returns 0 or -1 (reported). */
int cli_out_close(FILE *out, char *tmp, const char *path, bool ok);

/*
 * --json of check, compare and estimate: one object that starts with
 * "schema": CLI_JSON_SCHEMA, "version": CLI_JSON_VERSION and "command"
 * (croute(1) JSON OUTPUT documents every field).
 */
#define CLI_JSON_SCHEMA "croute-report"
#define CLI_JSON_VERSION 2
/* Opens the object and writes those three fields and a comma. */
void cli_json_begin(FILE *out, const char *command);
/* A JSON string, escaped. */
void cli_json_str(FILE *out, const char *s);
/* ret, or CLI_BAD (logged) when the report could not be written. */
int cli_report_written(int ret);
/*
 * Where check, compare and estimate write their report: stdout, or the
 * -o FILE cli_report_open() opened (renamed into place when whole by
 * cli_report_done(), which returns ret, or CLI_BAD when the file could
 * not be committed; with ret neither CLI_OK nor CLI_PROBLEMS the file is
 * discarded). -1 (reported) when FILE cannot be created.
 */
extern FILE *cli_report;
int cli_report_open(const char *path);
int cli_report_done(int ret);
/*
 * Run times in a text report: only with --times or -v, so that two runs
 * on one input give the same report.
 */
bool cli_report_times(bool times);
/*
 * A node as a JSON object: "name", "type" (switch, ca), "node_guid"; for
 * port p of a CA or router "port" and "port_guid" too (the GUID OpenSM's
 * files give its LID); "lid" (a switch's, or port p's) when it has one.
 */
void cli_json_node(FILE *out, const struct cr_fabric *f, uint32_t n,
		   unsigned p);
/* ', "warnings": [...]': those logged since --json turned keeping on. */
void cli_json_warnings(FILE *out);
/*
 * --json given: sets *json and keeps the warnings logged from here on,
 * which the report lists (cli_json_warnings) as stderr may not be read.
 */
void cli_json_on(bool *json);

/*
 * The log level the options asked for: CR_LOG_NOTE by default (warnings,
 * notes and each command's summary line), -q: CR_LOG_WARN, -v:
 * CR_LOG_VERBOSE, -vv: CR_LOG_DEBUG.
 */
extern int cli_verbosity;

double cli_now(void);
/* LIDs in use in a finalized fabric. */
uint32_t cli_count_lids(const struct cr_fabric *f);

#endif
