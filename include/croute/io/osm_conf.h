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

#include <croute/io/conf.h>

/*
 * OpenSM's own keys that change a croute routing, as values: the command
 * reads them from the file, the plugin takes them from OpenSM's parsed
 * options. -1: not set, OpenSM's default applies.
 */
struct cr_osm_keys {
	long lmc;
	int port_shifting;
	long long scatter_ports;
	long lash_start_vl;
	int qos;
};

struct cr_osm_conf {
	char *routing_engine; /* the list, as written */
	char *root_guid_file, *cn_guid_file, *io_guid_file;
	char *guid_routing_order_file, *port_search_ordering_file;
	struct cr_osm_keys k;
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

/* Every key of k not set. */
void cr_osm_keys_init(struct cr_osm_keys *k);

#endif
