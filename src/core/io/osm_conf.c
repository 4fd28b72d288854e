// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * OpenSM's own opensm.conf keys that decide a croute routing, parsed as
 * OpenSM parses them (include/croute/io/osm_conf.h), and croute's keys through
 * the plugin's own line parser, so that the command and the plugin read
 * one file identically.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/io/osm_conf.h>

void cr_osm_keys_init(struct cr_osm_keys *k)
{
	k->lmc = -1;
	k->port_shifting = -1;
	k->scatter_ports = -1;
	k->lash_start_vl = -1;
	k->qos = -1;
}

void cr_osm_conf_init(struct cr_osm_conf *c)
{
	memset(c, 0, sizeof(*c));
	cr_osm_keys_init(&c->k);
	cr_conf_defaults(&c->cr);
	c->cr.refuse = true; /* cr_osm_conf_parse stops at a bad line */
}

void cr_osm_conf_release(struct cr_osm_conf *c)
{
	free(c->routing_engine);
	free(c->root_guid_file);
	free(c->cn_guid_file);
	free(c->io_guid_file);
	free(c->guid_routing_order_file);
	free(c->port_search_ordering_file);
	memset(c, 0, sizeof(*c));
}

static int set_str(char **p, const char *val)
{
	char *s = strcmp(val, "(null)") ? strdup(val) : NULL;

	if (!s && strcmp(val, "(null)"))
		return -1;
	free(*p);
	*p = s;
	return 0;
}

static int set_num(long long *p, const char *val, long long max)
{
	unsigned long long v;
	char *e;

	errno = 0;
	v = isdigit((unsigned char)*val) ? strtoull(val, &e, 0) : 0;
	if (!isdigit((unsigned char)*val) || errno || *e ||
	    v > (unsigned long long)max)
		return -1;
	*p = (long long)v;
	return 0;
}

/*
 * OpenSM's booleans: "TRUE" is true and any other word false, as OpenSM
 * reads them; a word that is neither TRUE nor FALSE is likely a mistake,
 * so say how it is read.
 */
static bool osm_bool(const char *path, unsigned lineno, const char *key,
		     const char *val)
{
	if (strcmp(val, "TRUE") && strcmp(val, "FALSE"))
		cr_warn("%s:%u: %s '%s' is neither TRUE nor FALSE: read as"
			" FALSE, as OpenSM reads it",
			path, lineno, key, val);
	return !strcmp(val, "TRUE");
}

int cr_osm_conf_parse(struct cr_osm_conf *c, FILE *fp, const char *path)
{
	char *line = NULL, *copy = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int err = 0;

	while (!err && getline(&line, &cap, fp) >= 0) {
		char *save = NULL, *key, *val;
		long long v;

		lineno++;
		free(copy);
		copy = strdup(line);
		if (!copy) {
			cr_err("%s: out of memory", path);
			err = -1;
			break;
		}
		/* croute's keys: the plugin's parser, on the whole line */
		if (cr_conf_parse_line(&c->cr, path, lineno, copy)) {
			err = -1;
			break;
		}
		key = strtok_r(line, " \t\r\n", &save);
		if (!key || *key == '#')
			continue;
		val = strtok_r(NULL, " \t\r\n", &save);
		if (!val)
			continue; /* OpenSM, too, skips a key without value */
		if (!strcmp(key, "routing_engine"))
			err = set_str(&c->routing_engine, val);
		else if (!strcmp(key, "root_guid_file"))
			err = set_str(&c->root_guid_file, val);
		else if (!strcmp(key, "cn_guid_file"))
			err = set_str(&c->cn_guid_file, val);
		else if (!strcmp(key, "io_guid_file"))
			err = set_str(&c->io_guid_file, val);
		else if (!strcmp(key, "guid_routing_order_file"))
			err = set_str(&c->guid_routing_order_file, val);
		else if (!strcmp(key, "port_search_ordering_file"))
			err = set_str(&c->port_search_ordering_file, val);
		else if (!strcmp(key, "port_shifting"))
			c->k.port_shifting = osm_bool(path, lineno, key, val);
		else if (!strcmp(key, "qos"))
			c->k.qos = osm_bool(path, lineno, key, val);
		else if (!strcmp(key, "lmc")) {
			if (set_num(&v, val, 7))
				goto bad;
			c->k.lmc = (long)v;
		} else if (!strcmp(key, "scatter_ports")) {
			if (set_num(&v, val, UINT32_MAX))
				goto bad;
			c->k.scatter_ports = v;
		} else if (!strcmp(key, "lash_start_vl")) {
			if (set_num(&v, val, 14))
				goto bad;
			c->k.lash_start_vl = (long)v;
		}
		if (err)
			cr_err("%s: out of memory", path);
		continue;
	bad:
		cr_err("%s:%u: %s '%s' is not a valid number", path, lineno,
		       key, val);
		err = -1;
	}
	free(line);
	free(copy);
	if (!err && ferror(fp)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		err = -1;
	}
	return err;
}
