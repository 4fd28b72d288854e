/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The opensm.conf keys croute's engines depend on, read from the file the
 * way OpenSM 3.3.23 reads them (osm_subnet.c): "key value" with the value
 * its first blank-separated word, "TRUE" true and anything else false,
 * numbers in C notation, "(null)" for no file. croute's own keys go
 * through cr_conf_parse_line(), the plugin's parser. The command's
 * -F/--config uses this so that `croute route -F opensm.conf` routes as
 * the plugin does under that file.
 */
#ifndef CROUTE_OSM_CONF_H
#define CROUTE_OSM_CONF_H

#include <stdio.h>

#include <croute/conf.h>

struct cr_osm_conf {
	char *routing_engine; /* the list, as written */
	char *root_guid_file, *cn_guid_file, *io_guid_file;
	char *guid_routing_order_file, *port_search_ordering_file;
	long lmc; /* -1: not set (the same below) */
	int port_shifting;
	long long scatter_ports;
	long lash_start_vl;
	int qos;
	struct cr_conf cr; /* remote_guid_sorting, croute_* */
};

void cr_osm_conf_init(struct cr_osm_conf *c);
void cr_osm_conf_release(struct cr_osm_conf *c);
/*
 * Reads fp. Returns 0, or -1 after an error naming the file, line and key
 * (a malformed number or boolean for a key croute uses, a bad croute_*
 * line): the command refuses what OpenSM would log and ignore.
 */
int cr_osm_conf_parse(struct cr_osm_conf *c, FILE *fp, const char *path);

/* croute's keys into the engines' options, for the plugin and -F alike. */
void cr_osm_conf_apply(const struct cr_conf *c, struct cr_options *o);

#endif
