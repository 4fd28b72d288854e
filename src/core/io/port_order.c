// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * OpenSM's port_search_ordering_file: for the switches it names, the order
 * in which equal ports are considered, instead of port number or remote
 * GUID order. Ports a line does not list follow in port order, as in
 * OpenSM. Read by the plugin and the command alike.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/conf.h>
#include <croute/model/fabric.h>
#include <croute/model/guidmap.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

static int parse_line(char *s, const char *path, unsigned lineno,
		      const char *key, struct cr_port_order *po)
{
	char *end;
	unsigned long long guid;
	bool seen[CR_MAX_PORTS + 1] = {false};

	errno = 0;
	guid = isxdigit((unsigned char)*s) ? strtoull(s, &end, 16) : 0;
	if (errno || !guid || (*end && !isspace((unsigned char)*end))) {
		const char *kind = cr_file_kind(s);

		if (kind)
			cr_err("%s:%u: this is %s (%s takes a switch GUID and"
			       " ports a line)",
			       path, lineno, kind, key);
		else
			cr_err("%s:%u: '%s' does not start with a switch GUID"
			       " (%s)",
			       path, lineno, s, key);
		return -1;
	}
	po->guid = guid;
	po->num = 0;
	for (s = end; *s;) {
		unsigned long port;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		errno = 0;
		port = isdigit((unsigned char)*s) ? strtoul(s, &end, 10) : 0;
		if (*s == '"') {
			cr_err("%s:%u: this is a node-name map (a GUID and a"
			       " name a line); give it to --node-name-map (%s"
			       " takes a switch GUID and ports a line)",
			       path, lineno, key);
			return -1;
		}
		if (errno || !port || port > CR_MAX_PORTS ||
		    (*end && !isspace((unsigned char)*end))) {
			cr_err("%s:%u: '%.*s' is not a port number 1..%u (%s)",
			       path, lineno, (int)strcspn(s, " \t\r\n"), s,
			       CR_MAX_PORTS, key);
			return -1;
		}
		if (seen[port]) {
			cr_err("%s:%u: port %lu is listed twice (%s)", path,
			       lineno, port, key);
			return -1;
		}
		seen[port] = true;
		po->ports[po->num++] = (uint8_t)port;
		s = end;
	}
	return 0;
}

/* OpenSM drops such a line without a word: say which. */
static void check_line(const struct cr_port_order *po, const char *path,
		       unsigned lineno, const char *key,
		       const struct cr_fabric *f, const struct cr_guidmap *sw)
{
	uint32_t n = cr_guidmap_get(sw, po->guid);

	if (n == CR_GUIDMAP_NONE) {
		cr_warn("%s:%u: 0x%016" PRIx64 " is no switch of the fabric,"
			" ignored (%s)",
			path, lineno, po->guid, key);
		return;
	}
	for (unsigned i = 0; i < po->num; i++)
		if (po->ports[i] > f->nodes[n].num_ports) {
			cr_warn("%s:%u: switch 0x%016" PRIx64 " has no port %u"
				" (ports 1..%u), ignored (%s)",
				path, lineno, po->guid, po->ports[i],
				f->nodes[n].num_ports, key);
			return;
		}
}

int cr_port_order_parse(FILE *fp, const char *path, const char *key,
			struct cr_options *o)
{
	return cr_port_order_parse_in(fp, path, key, NULL, o);
}

int cr_port_order_parse_in(FILE *fp, const char *path, const char *key,
			   const struct cr_fabric *f, struct cr_options *o)
{
	struct cr_guidmap sw = {0};
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	if (f && cr_guidmap_init(&sw, f->num_switches + 1))
		ret = -1;
	for (uint32_t i = 0; f && !ret && i < f->num_switches; i++)
		if (cr_guidmap_put(&sw, f->nodes[f->switches[i]].guid,
				   f->switches[i]) < 0)
			ret = -1;
	if (ret)
		cr_err("out of memory reading %s", path);
	while (ret == 0 &&
	       cr_getline(&line, &cap, fp, path, lineno + 1, &ret) >= 0) {
		char *hash = strchr(line, '#'), *s = line;
		struct cr_port_order *po;

		lineno++;
		if (hash)
			*hash = '\0';
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		po = realloc(o->port_orders,
			     (o->num_port_orders + 1) * sizeof(*po));
		if (!po) {
			cr_err("out of memory reading %s", path);
			ret = -1;
			break;
		}
		o->port_orders = po;
		ret = parse_line(s, path, lineno, key, &po[o->num_port_orders]);
		if (!ret && f)
			check_line(&po[o->num_port_orders], path, lineno, key,
				   f, &sw);
		if (!ret)
			o->num_port_orders++;
	}
	free(line);
	/* getline's -1 is also a read error (a directory gives EISDIR). */
	if (!ret && ferror(fp)) {
		cr_err("%s: read error: %s (%s)", path, strerror(errno), key);
		ret = -1;
	}
	if (f)
		cr_guidmap_release(&sw);
	return ret;
}
