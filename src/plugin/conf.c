// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Options: OpenSM's own routing options from osm->subn.opt, and croute's
 * keys (remote_guid_sorting, croute_*) read from the same opensm.conf at
 * every routing run, so a SIGHUP re-sweep picks up an edit. OpenSM reports
 * croute's keys as unrecognized tokens and goes on; croute reports its own
 * mistakes (unknown croute_* key, malformed value) and uses the default.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugin.h"

#include <croute/log.h>

static int parse_bool(const char *val, bool *out)
{
	if (!strcasecmp(val, "TRUE")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(val, "FALSE")) {
		*out = false;
		return 0;
	}
	return -1;
}

static int set_remote_guid_sorting(struct cr_plugin_conf *c, const char *val)
{
	return parse_bool(val, &c->remote_guid_sorting);
}

static enum cr_fail_stage parse_stage(const char *s)
{
	if (!strcmp(s, "import"))
		return CR_FAIL_IMPORT;
	if (!strcmp(s, "route"))
		return CR_FAIL_ROUTE;
	if (!strcmp(s, "export"))
		return CR_FAIL_EXPORT;
	return CR_FAIL_NONE;
}

/*
 * Test hook: "ENGINE[:STAGE][,ENGINE[:STAGE]...]" or "none". ENGINE is an
 * engine name (minhop or cr-minhop) or "all"; STAGE is import, route or
 * export (the default: the worst case, after the switches were written).
 * Lets the tests check that OpenSM's fall-through to the next engine finds
 * the switches exactly as it prepared them.
 */
static int set_fail_engine(struct cr_plugin_conf *c, const char *val)
{
	char buf[256], *save = NULL, *tok;
	struct cr_plugin_conf tmp = {0};

	if (strlen(val) >= sizeof(buf))
		return -1;
	strcpy(buf, val);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		struct cr_fail_rule *rule = &tmp.fail[tmp.num_fail];
		char *colon = strchr(tok, ':');

		if (!strcmp(tok, "none"))
			continue;
		if (tmp.num_fail == CR_PLUGIN_MAX_FAIL)
			return -1;
		rule->stage = CR_FAIL_EXPORT;
		if (colon) {
			*colon = '\0';
			rule->stage = parse_stage(colon + 1);
			if (rule->stage == CR_FAIL_NONE)
				return -1;
		}
		if (strcmp(tok, "all")) {
			rule->engine = cr_engine_find(tok);
			if (!rule->engine)
				return -1;
		}
		tmp.num_fail++;
	}
	memcpy(c->fail, tmp.fail, sizeof(c->fail));
	c->num_fail = tmp.num_fail;
	return 0;
}

struct conf_key {
	const char *name;
	int (*set)(struct cr_plugin_conf *c, const char *val);
	const char *expect; /* for the error message */
};

/* Every key croute reads from opensm.conf (conf/croute.conf documents them). */
static const struct conf_key conf_keys[] = {
	{"remote_guid_sorting", set_remote_guid_sorting, "TRUE or FALSE"},
	{"croute_fail_engine", set_fail_engine,
	 "ENGINE[:import|route|export][,...], all or none"},
};

static void conf_defaults(struct cr_plugin_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->remote_guid_sorting = false;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static void conf_line(const char *path, unsigned lineno, char *line,
		      struct cr_plugin_conf *c)
{
	char *hash = strchr(line, '#');
	char *key, *val;
	size_t len;

	if (hash)
		*hash = '\0';
	key = trim(line);
	if (!*key)
		return;
	len = strcspn(key, " \t");
	val = key + len;
	if (*val)
		*val++ = '\0';
	val = trim(val);

	for (size_t i = 0; i < sizeof(conf_keys) / sizeof(conf_keys[0]); i++) {
		const struct conf_key *k = &conf_keys[i];

		if (strcmp(k->name, key))
			continue;
		if (k->set(c, val) < 0)
			cr_err("%s:%u: %s '%s' is not valid (expected %s);"
			       " using the default",
			       path, lineno, key, val, k->expect);
		return;
	}
	if (!strncmp(key, "croute_", 7))
		cr_err("%s:%u: unknown key %s (value '%s') ignored", path,
		       lineno, key, val);
}

void cr_conf_read(struct cr_plugin *pl, struct cr_plugin_conf *c)
{
	const char *path = pl->osm->subn.opt.config_file;
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *fp;

	conf_defaults(c);
	/* Without a config file OpenSM runs on defaults, and so does croute. */
	if (!path)
		return;
	fp = fopen(path, "r");
	if (!fp) {
		if (errno != ENOENT)
			cr_err("cannot read %s: %s; croute's keys take their"
			       " defaults",
			       path, strerror(errno));
		return;
	}
	while (getline(&line, &cap, fp) >= 0)
		conf_line(path, ++lineno, line, c);
	free(line);
	fclose(fp);
}

enum cr_fail_stage cr_conf_fail_stage(const struct cr_plugin_conf *c,
				      const struct cr_engine *e)
{
	for (unsigned i = 0; i < c->num_fail; i++)
		if (!c->fail[i].engine || c->fail[i].engine == e)
			return c->fail[i].stage;
	return CR_FAIL_NONE;
}

/*
 * A GUID list file: one GUID a line (0x optional), '#' starts a comment,
 * anything after the GUID and a blank is ignored as OpenSM's own parser
 * does. A file that cannot be read fails the run: routing around the
 * operator's roots or node roles silently would be worse.
 */
static int read_guid_file(const char *key, const char *path,
			  struct cr_guid_list *l)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp) {
		cr_err("cannot open %s '%s': %s", key, path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, fp) >= 0) {
		char *hash = strchr(line, '#'), *s, *end;
		unsigned long long guid;

		lineno++;
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		errno = 0;
		guid = strtoull(s, &end, 16);
		if (errno || end == s || !guid ||
		    (*end && !isspace((unsigned char)*end))) {
			cr_err("%s:%u: '%s' is not a GUID (%s)", path, lineno,
			       s, key);
			ret = -1;
			break;
		}
		if (cr_guid_list_add(l, guid) < 0) {
			cr_err("out of memory reading %s", path);
			ret = -1;
			break;
		}
	}
	free(line);
	fclose(fp);
	return ret;
}

static bool opt_str_set(const char *s)
{
	return s && *s;
}

/* OpenSM routing options croute does not implement: said once, when set. */
static void log_ignored(struct cr_plugin *pl, const osm_subn_opt_t *opt)
{
	const struct {
		const char *name;
		bool set;
	} ignored[] = {
		{"port_search_ordering_file",
		 opt_str_set(opt->port_search_ordering_file)},
		{"hop_weights_file", opt_str_set(opt->hop_weights_file)},
		{"port_prof_ignore_file",
		 opt_str_set(opt->port_prof_ignore_file)},
		{"ids_guid_file", opt_str_set(opt->ids_guid_file)},
		{"connect_roots", opt->connect_roots},
		{"max_reverse_hops", opt->max_reverse_hops != 0},
		{"guid_routing_order_no_scatter",
		 opt->guid_routing_order_no_scatter},
		{"quasi_ftree_indexing", opt->quasi_ftree_indexing},
		{"do_mesh_analysis", opt->do_mesh_analysis},
	};

	for (unsigned i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++) {
		if (!ignored[i].set || (pl->ignored_logged & (1u << i)))
			continue;
		pl->ignored_logged |= 1u << i;
		cr_info("%s is set, but croute's engines do not implement it:"
			" ignored",
			ignored[i].name);
	}
}

int cr_conf_options(struct cr_plugin *pl, const struct cr_plugin_conf *c,
		    struct cr_options *o)
{
	const osm_subn_opt_t *opt = &pl->osm->subn.opt;
	const struct {
		const char *key;
		const char *path;
		struct cr_guid_list *list;
	} files[] = {
		{"root_guid_file", opt->root_guid_file, &o->root_guids},
		{"cn_guid_file", opt->cn_guid_file, &o->cn_guids},
		{"io_guid_file", opt->io_guid_file, &o->io_guids},
		{"guid_routing_order_file", opt->guid_routing_order_file,
		 &o->guid_order},
	};

	o->port_shifting = opt->port_shifting;
	o->scatter_ports = opt->scatter_ports;
	o->lash_start_vl = opt->lash_start_vl;
	o->remote_guid_sorting = c->remote_guid_sorting;
	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (opt_str_set(files[i].path) &&
		    read_guid_file(files[i].key, files[i].path, files[i].list) <
			    0)
			return -1;
	log_ignored(pl, opt);
	return 0;
}
