// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads OpenSM's opensm-subnet.lst (osm_dump.c; ibdmchk and ibdiagnet read
 * and write the same format): one line per cabled port of every node,
 *
 *   { SW Ports:04 SystemGUID:... NodeGUID:... PortGUID:... VenID:...
 *     DevID:... Rev:... {leaf-0} LID:0004 PN:01 } { CA ... PN:01 }
 *     PHY=4x LOG=ACT SPD=10
 *
 * (one line in the file): this port, the port at its far end, then the
 * link's width, state and lane speed (Gb/s, or FDR10). A switch prints the
 * LID of its port 0, a CA or router the LID of the port itself; ports and
 * counts are hex. "-SM" after the type marks the master SM's node.
 *
 * Every link appears twice, once from each end; a link seen from one end
 * only means the file was cut short, and is an error. The LMC is not in
 * the file (LMC 0 is assumed; the LFTs can widen it, cr_lids_widen()).
 *
 * cr_topo_read_format() tells this format from ibnetdiscover's by the
 * first line that is not blank or a comment.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include <croute/model/guidmap.h>
#include <croute/io/ibdm.h>

struct end {
	enum cr_node_type type;
	unsigned num_ports;
	uint64_t node_guid, port_guid;
	char *desc;
	uint16_t lid;
	unsigned port;
};

struct lst_reader {
	const char *name;
	unsigned line;
	struct cr_fabric *f;
	struct cr_guidmap nodes;
	unsigned **port_line; /* per node, per port: the line listing it */
	size_t port_line_alloc, node_line_alloc;
	unsigned *node_line; /* per node: the line that added it */
};

#define lst_err(rd, fmt, ...) \
	cr_err("%s:%u: " fmt, (rd)->name, (rd)->line, ##__VA_ARGS__)

/* "KEY:hex" at *s (after blanks); moves *s past it. */
static int hex_field(const char **s, const char *key, uint64_t *v)
{
	const char *p = *s;
	size_t n = strlen(key);
	char *e;

	while (*p == ' ')
		p++;
	if (strncmp(p, key, n) || !isxdigit((unsigned char)p[n]))
		return -1;
	errno = 0;
	*v = strtoull(p + n, &e, 16);
	if (errno)
		return -1;
	*s = e;
	return 0;
}

/* One "{ TYPE ... PN:xx }" record at *s; moves *s past it. */
static int parse_end(struct lst_reader *rd, const char **s, struct end *end,
		     const char *which)
{
	static const struct {
		const char *name;
		enum cr_node_type type;
	} types[] = {
		{"SW", CR_NODE_SWITCH},
		{"CA", CR_NODE_CA},
		{"Rt", CR_NODE_ROUTER},
	};
	const char *p = *s, *d, *e;
	uint64_t v;
	unsigned i;

	while (*p == ' ')
		p++;
	if (*p != '{' || p[1] != ' ')
		goto bad;
	p += 2;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strncmp(p, types[i].name, 2) &&
		    (p[2] == ' ' || !strncmp(p + 2, "-SM ", 4)))
			break;
	if (i == sizeof(types) / sizeof(types[0])) {
		lst_err(rd, "%s: node type is not SW, CA or Rt", which);
		return -1;
	}
	end->type = types[i].type;
	p += p[2] == ' ' ? 2 : 5;
	if (hex_field(&p, "Ports:", &v) || !v || v > CR_MAX_PORTS)
		goto bad;
	end->num_ports = (unsigned)v;
	if (hex_field(&p, "SystemGUID:", &v) ||
	    hex_field(&p, "NodeGUID:", &end->node_guid) ||
	    hex_field(&p, "PortGUID:", &end->port_guid) ||
	    hex_field(&p, "VenID:", &v) || hex_field(&p, "DevID:", &v) ||
	    hex_field(&p, "Rev:", &v))
		goto bad;
	if (!end->node_guid || !end->port_guid) {
		lst_err(rd, "%s: GUID 0 is no node's or port's GUID", which);
		return -1;
	}
	while (*p == ' ')
		p++;
	if (*p != '{')
		goto bad;
	/* The description may hold anything but ends before "} LID:". */
	d = p + 1;
	e = strstr(d, "} LID:");
	if (!e)
		goto bad;
	p = e + 1;
	if (hex_field(&p, "LID:", &v) || v > CR_MAX_UCAST_LID)
		goto bad;
	end->lid = (uint16_t)v;
	if (hex_field(&p, "PN:", &v) || !v || v > end->num_ports)
		goto bad;
	end->port = (unsigned)v;
	while (*p == ' ')
		p++;
	if (*p != '}')
		goto bad;
	end->desc = strndup(d, e - d);
	if (!end->desc) {
		lst_err(rd, "out of memory");
		return -1;
	}
	*s = p + 1;
	return 0;
bad:
	lst_err(rd,
		"%s: expected \"{ TYPE Ports:N SystemGUID:G NodeGUID:G"
		" PortGUID:G VenID:V DevID:D Rev:R {DESC} LID:L PN:P }\""
		" (a truncated file?)",
		which);
	return -1;
}

/* "PHY=4x LOG=ACT SPD=10": width and speed of the link. */
static int parse_link(struct lst_reader *rd, const char *s, uint8_t *width,
		      enum cr_speed *speed)
{
	static const struct {
		const char *spd;
		enum cr_speed speed;
	} speeds[] = {
		{"2.5", CR_SPEED_SDR}, {"5", CR_SPEED_DDR},
		{"10", CR_SPEED_QDR},  {"FDR10", CR_SPEED_FDR10},
		{"14", CR_SPEED_FDR},  {"25", CR_SPEED_EDR},
		{"50", CR_SPEED_HDR},  {"100", CR_SPEED_NDR},
		{"200", CR_SPEED_XDR}, {"??", CR_SPEED_UNKNOWN},
	};
	char phy[8], log[8], spd[8];
	unsigned long w = 0;
	int n = 0;

	if (sscanf(s, " PHY=%7s LOG=%7s SPD=%7s %n", phy, log, spd, &n) != 3 ||
	    s[n]) {
		lst_err(rd, "expected \"PHY=W LOG=S SPD=G\" after the two"
			    " ports (a truncated file?)");
		return -1;
	}
	if (strcmp(phy, "??")) {
		char *e;

		w = strtoul(phy, &e, 10);
		if (strcmp(e, "x") ||
		    (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)) {
			lst_err(rd, "bad link width PHY=%s", phy);
			return -1;
		}
	}
	*width = (uint8_t)w;
	for (unsigned i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		if (!strcmp(spd, speeds[i].spd)) {
			*speed = speeds[i].speed;
			return 0;
		}
	}
	lst_err(rd, "bad lane speed SPD=%s", spd);
	return -1;
}

static unsigned *port_lines(struct lst_reader *rd, uint32_t n)
{
	return rd->port_line[n];
}

/* The node of end, added on first sight; its record must not change. */
static uint32_t node_of(struct lst_reader *rd, struct end *end)
{
	struct cr_fabric *f = rd->f;
	uint32_t n = cr_guidmap_get(&rd->nodes, end->node_guid);
	struct cr_node *node;
	struct cr_port *port;

	if (n == CR_GUIDMAP_NONE) {
		n = f->num_nodes;
		if (cr_grow(&rd->port_line, &rd->port_line_alloc, n + 1,
			    sizeof(*rd->port_line)) ||
		    cr_grow(&rd->node_line, &rd->node_line_alloc, n + 1,
			    sizeof(*rd->node_line)))
			goto oom;
		rd->port_line[n] = calloc(end->num_ports + 1, sizeof(unsigned));
		if (!rd->port_line[n])
			goto oom;
		if (cr_fabric_add_node(f, end->type, end->node_guid,
				       end->num_ports, end->desc) != n) {
			free(rd->port_line[n]);
			lst_err(rd, "cannot add node 0x%016" PRIx64,
				end->node_guid);
			return CR_NO_NODE;
		}
		rd->node_line[n] = rd->line;
		if (cr_guidmap_put(&rd->nodes, end->node_guid, n) < 0)
			goto oom;
	}
	node = &f->nodes[n];
	if (node->type != end->type || node->num_ports != end->num_ports ||
	    strcmp(node->desc, end->desc)) {
		lst_err(rd,
			"node 0x%016" PRIx64 " differs from line %u (type,"
			" port count or description)",
			end->node_guid, rd->node_line[n]);
		return CR_NO_NODE;
	}
	port = &node->ports[node->type == CR_NODE_SWITCH ? 0 : end->port];
	if (node->type != CR_NODE_SWITCH)
		port->guid = end->port_guid;
	else if (end->port_guid != end->node_guid)
		cr_debug("%s:%u: switch port GUID differs from its node GUID",
			 rd->name, rd->line);
	if (port->lid && port->lid != end->lid) {
		lst_err(rd,
			"LID 0x%04x of 0x%016" PRIx64 " port %u contradicts"
			" LID 0x%04x of an earlier line",
			end->lid, end->node_guid, end->port, port->lid);
		return CR_NO_NODE;
	}
	port->lid = end->lid;
	return n;
oom:
	lst_err(rd, "out of memory");
	return CR_NO_NODE;
}

static uint8_t min_nonzero(uint8_t a, uint8_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static int parse_line(struct lst_reader *rd, const char *s)
{
	struct end a = {0}, b = {0};
	struct cr_fabric *f = rd->f;
	struct cr_port *x, *y;
	enum cr_speed speed;
	uint8_t width;
	uint32_t na, nb;
	int ret = -1;

	if (parse_end(rd, &s, &a, "this port") ||
	    parse_end(rd, &s, &b, "the far port") ||
	    parse_link(rd, s, &width, &speed))
		goto out;
	na = node_of(rd, &a);
	nb = na == CR_NO_NODE ? CR_NO_NODE : node_of(rd, &b);
	if (nb == CR_NO_NODE)
		goto out;
	if (port_lines(rd, na)[a.port]) {
		lst_err(rd,
			"0x%016" PRIx64 " port %u is already listed on"
			" line %u",
			a.node_guid, a.port, port_lines(rd, na)[a.port]);
		goto out;
	}
	port_lines(rd, na)[a.port] = rd->line;
	if (na == nb && a.port == b.port) {
		lst_err(rd, "port %u is cabled to itself", a.port);
		goto out;
	}
	x = &f->nodes[na].ports[a.port];
	y = &f->nodes[nb].ports[b.port];
	if (x->remote == nb && x->remote_port == b.port) {
		/* The far end listed it first: both ends must tell one rate. */
		if ((width && x->width && width != x->width) ||
		    (speed && x->speed && speed != x->speed)) {
			lst_err(rd,
				"rate %ux%s contradicts %ux%s on the far end's"
				" line %u",
				width, cr_speed_name(speed), x->width,
				cr_speed_name(x->speed),
				port_lines(rd, nb)[b.port]);
			goto out;
		}
	} else if (x->remote != CR_NO_NODE || y->remote != CR_NO_NODE) {
		lst_err(rd,
			"0x%016" PRIx64 "[%u] - 0x%016" PRIx64 "[%u]"
			" contradicts an earlier line",
			a.node_guid, a.port, b.node_guid, b.port);
		goto out;
	} else if (cr_fabric_link(f, na, a.port, nb, b.port)) {
		goto out;
	}
	x->width = y->width = min_nonzero(x->width, width);
	x->speed = y->speed = (enum cr_speed)min_nonzero(x->speed, speed);
	ret = 0;
out:
	free(a.desc);
	free(b.desc);
	return ret;
}

/* Port GUIDs name one port each: the topology writer keys ports by them. */
static int unique_port_guids(struct lst_reader *rd)
{
	const struct cr_fabric *f = rd->f;
	uint32_t other, again, n, p;
	int rc = cr_guidmap_port_clash(f, &other, &again);

	if (rc < 0)
		cr_err("%s: out of memory", rd->name);
	if (rc <= 0)
		return rc;
	n = again >> 8;
	p = again & 0xff;
	cr_err("%s:%u: port GUID 0x%016" PRIx64 " of 0x%016" PRIx64
	       " port %u is also that of 0x%016" PRIx64 " port %u",
	       rd->name,
	       f->nodes[n].type == CR_NODE_SWITCH ? rd->node_line[n]
						  : port_lines(rd, n)[p],
	       f->nodes[n].ports[p].guid, f->nodes[n].guid, p,
	       f->nodes[other >> 8].guid, other & 0xff);
	return -1;
}

/* Both ends list every link; LIDs are all given or none. */
static int settle(struct lst_reader *rd)
{
	struct cr_fabric *f = rd->f;
	bool some = false, none = false;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct cr_node *node = &f->nodes[n];

		for (unsigned p = 1; p <= node->num_ports; p++) {
			const struct cr_port *x = &node->ports[p];
			unsigned other;

			if (x->remote == CR_NO_NODE)
				continue;
			if (port_lines(rd, n)[p])
				continue;
			other = port_lines(rd, x->remote)[x->remote_port];
			cr_err("%s:%u: the link to 0x%016" PRIx64 " ('%s')"
			       " port %u is not listed from that end (the"
			       " file is cut short?)",
			       rd->name, other, node->guid, node->desc, p);
			return -1;
		}
		for (unsigned p = 0; p <= node->num_ports; p++) {
			if (node->type == CR_NODE_SWITCH
				    ? p
				    : !p || node->ports[p].remote == CR_NO_NODE)
				continue;
			if (node->ports[p].lid)
				some = true;
			else
				none = true;
		}
	}
	if (some && none) {
		for (uint32_t n = 0; n < f->num_nodes; n++) {
			const struct cr_node *node = &f->nodes[n];

			for (unsigned p = 0; p <= node->num_ports; p++) {
				if (node->ports[p].lid ||
				    (node->type == CR_NODE_SWITCH
					     ? p
					     : !p || node->ports[p].remote ==
							       CR_NO_NODE))
					continue;
				cr_err("%s:%u: 0x%016" PRIx64 " ('%s') port %u"
				       " has no LID, other ports have",
				       rd->name, rd->node_line[n], node->guid,
				       node->desc, p);
				return -1;
			}
		}
	}
	return 0;
}

static struct cr_fabric *read_subnet_lst(FILE *in, const char *name)
{
	struct lst_reader rd = {.name = name};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	rd.f = cr_fabric_new();
	if (!rd.f || cr_guidmap_init(&rd.nodes, 1024)) {
		cr_err("%s: out of memory", name);
		cr_fabric_free(rd.f);
		return NULL;
	}
	while (!err && (len = cr_getline(&line, &cap, in, name, rd.line + 1,
					 &err)) >= 0) {
		const char *s = line;

		rd.line++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		while (isspace((unsigned char)*s))
			s++;
		if (*s && *s != '#')
			err = parse_line(&rd, s);
	}
	free(line);
	if (!err)
		err = cr_read_end(in, name, rd.f->num_nodes,
				  "no links (not an opensm-subnet.lst?)");
	if (!err)
		err = settle(&rd);
	if (!err)
		err = unique_port_guids(&rd);
	if (!err && cr_fabric_sort_by_guid(rd.f)) {
		cr_err("%s: the topology is not consistent (see above)", name);
		err = -1;
	}
	for (uint32_t n = 0; n < rd.f->num_nodes && rd.port_line; n++)
		free(rd.port_line[n]);
	free(rd.port_line);
	free(rd.node_line);
	cr_guidmap_release(&rd.nodes);
	if (err) {
		cr_fabric_free(rd.f);
		return NULL;
	}
	cr_verbose("%s: %u nodes, %u switches (opensm-subnet.lst)", name,
		   rd.f->num_nodes, rd.f->num_switches);
	return rd.f;
}

/* The first line that is not blank or a comment starts "{ ". */
static bool is_subnet_lst(FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	bool yes = false;

	while (getline(&line, &cap, in) >= 0) {
		const char *s = line;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		yes = s[0] == '{' && s[1] == ' ' && strstr(s, "NodeGUID:");
		break;
	}
	free(line);
	return yes;
}

struct cr_fabric *cr_topo_read_format(const char *path, const char **format)
{
	struct cr_fabric *f;
	const char *name = path;
	FILE *in, *src;
	bool lst, ibdm = false;
	enum cr_topo_ports ports = CR_TOPO_PORTS_NONE;
	unsigned line = 0;

	if (!strcmp(path, "-")) {
		/* stdin cannot be rewound: a copy can. */
		char buf[65536];
		size_t n;

		name = "<stdin>";
		src = stdin;
		in = tmpfile();
		if (!in) {
			cr_err("%s: %s", name, strerror(errno));
			return NULL;
		}
		while ((n = fread(buf, 1, sizeof(buf), src)) > 0)
			if (fwrite(buf, 1, n, in) != n)
				break;
		if (ferror(src) || ferror(in)) {
			cr_err("%s: cannot copy: %s", name, strerror(errno));
			fclose(in);
			return NULL;
		}
		rewind(in);
		in = cr_file_read_gz(in, name);
		if (!in)
			return NULL;
	} else {
		in = cr_file_open_read(path);
		if (!in)
			return NULL;
	}
	rewind(in);
	lst = is_subnet_lst(in);
	rewind(in);
	if (!lst) {
		ibdm = cr_ibdm_is_topo(in);
		rewind(in);
	}
	if (!lst && !ibdm) {
		ports = cr_topo_ports_detect(in, &line);
		rewind(in);
	}
	if (lst)
		f = read_subnet_lst(in, name);
	else if (ibdm)
		f = cr_ibdm_read_file(in, name, NULL);
	else if (ports)
		f = cr_topo_read_ports(in, name, ports, line);
	else
		f = cr_topo_read_file(in, name);
	fclose(in);
	if (format)
		*format = lst	  ? "opensm-subnet.lst"
			  : ibdm  ? "ibdm"
			  : ports ? cr_topo_ports_name(ports)
				  : "ibnetdiscover";
	return f;
}
