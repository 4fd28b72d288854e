// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads the port listings of infiniband-diags: `ibnetdiscover -p` (a line
 * per port: type, LID, port, port GUID, width, speed, then the far end's
 * type, LID, port and GUID and both descriptions) and iblinkinfo's default
 * output (a header per node, "Switch: 0xGUID desc:" or "CA: desc:", then a
 * line per port naming the far end by LID and port). Both list every port
 * of every node they discovered, so a link appears from both ends, with
 * the same rate; a link listed from one end only is a cut or edited file,
 * an error naming the line.
 *
 * Neither gives a CA's node GUID, only its ports' GUIDs: a CA takes the
 * GUID of its lowest port listed, which a node-name map keyed by node GUID
 * may not name. -p lists the ports of a node together, highest first, so
 * a CA is the run of CA lines with one description and falling port
 * numbers. A node has as many ports as the highest one listed; a switch's
 * LID is its port 0's; the LMC is not given (cr_lids_widen widens it from
 * the LFTs, as for opensm-subnet.lst). iblinkinfo names far ends by LID,
 * so it needs the LIDs an SM gave. iblinkinfo -l names no node types, and
 * node lists (ibnetdiscover -l, -H, -S) no links: both are refused, with
 * what to give instead.
 *
 * Cost: one pass over the lines, one over the ports, hash maps by GUID and
 * by (node, port), an array by LID.
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

struct pl_port {
	uint32_t node; /* in rd->nodes */
	unsigned port;
	uint16_t lid;
	uint64_t guid; /* port GUID, 0 = none given */
	uint8_t width;
	enum cr_speed speed;
	bool cabled;
	uint64_t rguid; /* the far port's GUID, 0 = named by LID */
	uint16_t rlid;
	unsigned rport;
	unsigned line;
};

struct pl_node {
	enum cr_node_type type;
	uint64_t guid; /* switches; CAs take their lowest port's */
	char *desc;
	unsigned max_port, low_port;
	unsigned line;
	uint32_t fnode; /* in the fabric */
};

struct pl_reader {
	const char *name;
	unsigned line;
	enum cr_topo_ports format;
	struct pl_node *nodes;
	size_t num_nodes, nodes_alloc;
	struct pl_port *ports;
	size_t num_ports, ports_alloc;
	struct cr_guidmap switches; /* -p: switch GUID -> node */
	uint32_t cur; /* node whose port lines follow */
	unsigned last_port;
	struct cr_fabric *f;
	struct cr_guidmap by_guid; /* port GUID -> fabric node, port */
	struct cr_guidmap by_port; /* fabric node, port -> rd->ports */
	uint32_t *by_lid; /* LID -> fabric node, port */
};

#define pl_err(rd, fmt, ...) \
	cr_err("%s:%u: " fmt, (rd)->name, (rd)->line, ##__VA_ARGS__)

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A decimal number up to max at s (no sign, no base prefix). */
static int dec(const char **s, unsigned long max, unsigned *v)
{
	char *e;
	unsigned long x;

	*s = skip_ws(*s);
	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	x = strtoul(*s, &e, 10);
	if (errno || x > max)
		return -1;
	*v = (unsigned)x;
	*s = e;
	return 0;
}

/* "0x" and 1 to 16 hex digits at s. */
static int hex_guid(const char **s, uint64_t *v)
{
	const char *p = skip_ws(*s);
	char *e;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') ||
	    !isxdigit((unsigned char)p[2]))
		return -1;
	errno = 0;
	*v = strtoull(p + 2, &e, 16);
	if (errno || e - p > 18)
		return -1;
	*s = e;
	return 0;
}

/* "4x", "12X", ...; "??" (unknown) is 0. */
static int width_word(const char *w, size_t len, uint8_t *width)
{
	unsigned long x;
	char *e;

	if (len == 2 && !strncmp(w, "??", 2)) {
		*width = 0;
		return 0;
	}
	x = strtoul(w, &e, 10);
	if ((size_t)(e - w) + 1 != len || (*e != 'x' && *e != 'X') ||
	    (x != 1 && x != 2 && x != 4 && x != 8 && x != 12))
		return -1;
	*width = (uint8_t)x;
	return 0;
}

static size_t word_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != ' ' && s[n] != '\t')
		n++;
	return n;
}

enum cr_topo_ports cr_topo_ports_kind(const char *s)
{
	unsigned a, b;
	uint64_t g;

	s = skip_ws(s);
	if ((!strncmp(s, "SW ", 3) || !strncmp(s, "CA ", 3) ||
	     !strncmp(s, "RT ", 3)) &&
	    (s += 3, !dec(&s, 0xffff, &a)) && !dec(&s, 255, &b) &&
	    !hex_guid(&s, &g))
		return CR_TOPO_PORTS_P;
	if (!strncmp(s, "CA: ", 4) || !strncmp(s, "Switch: 0x", 10) ||
	    !strncmp(s, "Router: ", 8))
		return CR_TOPO_PORTS_LINKINFO;
	if (!hex_guid(&s, &g) && *s == ' ' && strstr(s, "==("))
		return CR_TOPO_PORTS_LINKINFO_L;
	if ((!strncmp(s, "Ca", 2) || !strncmp(s, "Switch", 6) ||
	     !strncmp(s, "Router", 6)) &&
	    strstr(s, ": 0x") && strstr(s, " ports "))
		return CR_TOPO_PORTS_NODE_LIST;
	return CR_TOPO_PORTS_NONE;
}

static uint32_t new_node(struct pl_reader *rd, enum cr_node_type type,
			 uint64_t guid, const char *desc, size_t len)
{
	struct pl_node *n;

	if (cr_grow(&rd->nodes, &rd->nodes_alloc, rd->num_nodes + 1,
		    sizeof(*rd->nodes)))
		return CR_NO_NODE;
	n = &rd->nodes[rd->num_nodes];
	memset(n, 0, sizeof(*n));
	n->desc = strndup(desc, len);
	if (!n->desc)
		return CR_NO_NODE;
	n->type = type;
	n->guid = guid;
	n->line = rd->line;
	n->low_port = CR_MAX_PORTS + 1;
	return (uint32_t)rd->num_nodes++;
}

/* Records what a port line says (v), numbered by the current line. */
static int add_port(struct pl_reader *rd, const struct pl_port *v)
{
	struct pl_node *n = &rd->nodes[v->node];
	struct pl_port *p;

	if (cr_grow(&rd->ports, &rd->ports_alloc, rd->num_ports + 1,
		    sizeof(*rd->ports))) {
		pl_err(rd, "out of memory");
		return -1;
	}
	p = &rd->ports[rd->num_ports++];
	*p = *v;
	p->line = rd->line;
	if (p->port > n->max_port)
		n->max_port = p->port;
	if (p->port < n->low_port)
		n->low_port = p->port;
	return 0;
}

static enum cr_node_type p_type(const char *t)
{
	return !strncmp(t, "SW", 2)   ? CR_NODE_SWITCH
	       : !strncmp(t, "CA", 2) ? CR_NODE_CA
				      : CR_NODE_ROUTER;
}

/*
 * The node of a -p line: a switch by its GUID; a CA or router continues
 * the previous line's when the description is the same and the port
 * number lower (ibnetdiscover lists a node's ports together, highest
 * first), else starts a new one.
 */
static uint32_t p_node(struct pl_reader *rd, enum cr_node_type type,
		       uint64_t guid, unsigned port, const char *desc,
		       size_t len)
{
	uint32_t n;

	if (type == CR_NODE_SWITCH) {
		n = cr_guidmap_get(&rd->switches, guid);
		if (n != CR_GUIDMAP_NONE)
			return n;
		n = new_node(rd, type, guid, desc, len);
		if (n != CR_NO_NODE &&
		    cr_guidmap_put(&rd->switches, guid, n) < 0)
			return CR_NO_NODE;
		return n;
	}
	n = rd->cur;
	if (n != CR_NO_NODE && rd->nodes[n].type == type &&
	    port < rd->last_port && strlen(rd->nodes[n].desc) == len &&
	    !strncmp(rd->nodes[n].desc, desc, len))
		return n;
	return new_node(rd, type, 0, desc, len);
}

/* "( 'A' - 'B' )" or, for a port without a cable, "'A'": A's span. */
static int p_desc(const char *s, bool cabled, const char **d, size_t *len)
{
	size_t n = strlen(s);
	const char *sep;

	if (cabled) {
		if (strncmp(s, "( '", 3) || n < 8 || strcmp(s + n - 3, "' )"))
			return -1;
		sep = strstr(s + 3, "' - '");
		if (!sep || sep > s + n - 3)
			return -1;
		*d = s + 3;
		*len = (size_t)(sep - *d);
		return 0;
	}
	if (n < 2 || s[0] != '\'' || s[n - 1] != '\'')
		return -1;
	*d = s + 1;
	*len = n - 2;
	return 0;
}

static int p_line(struct pl_reader *rd, const char *s)
{
	unsigned lid, port, rlid = 0, rport = 0;
	uint64_t guid, rguid = 0;
	uint8_t width;
	enum cr_speed speed = CR_SPEED_UNKNOWN;
	enum cr_node_type type;
	const char *d, *t = skip_ws(s);
	size_t len, n;
	bool cabled;
	uint32_t node;

	s = t + 2;
	if (cr_topo_ports_kind(t) != CR_TOPO_PORTS_P || dec(&s, 0xffff, &lid) ||
	    dec(&s, CR_MAX_PORTS, &port) || !port || hex_guid(&s, &guid))
		goto bad;
	type = p_type(t);
	s = skip_ws(s);
	n = word_len(s);
	if (width_word(s, n, &width))
		goto bad;
	s = skip_ws(s + n);
	n = word_len(s);
	if (!(n == 3 && !strncmp(s, "???", 3))) {
		speed = cr_speed_parse(s, n);
		if (speed == CR_SPEED_UNKNOWN)
			goto bad;
	}
	s = skip_ws(s + n);
	cabled = s[0] == '-' && s[1] == ' ';
	if (cabled) {
		s = skip_ws(s + 2);
		if ((strncmp(s, "SW ", 3) && strncmp(s, "CA ", 3) &&
		     strncmp(s, "RT ", 3)))
			goto bad;
		s += 3;
		if (dec(&s, 0xffff, &rlid) || dec(&s, CR_MAX_PORTS, &rport) ||
		    !rport || hex_guid(&s, &rguid) || !rguid)
			goto bad;
		s = skip_ws(s);
	}
	if (p_desc(s, cabled, &d, &len))
		goto bad;
	node = p_node(rd, type, guid, port, d, len);
	if (node == CR_NO_NODE) {
		pl_err(rd, "out of memory");
		return -1;
	}
	if (add_port(rd, &(struct pl_port){
				 .node = node,
				 .port = port,
				 .lid = (uint16_t)lid,
				 .guid = guid,
				 .width = width,
				 .speed = speed,
				 .cabled = cabled,
				 .rguid = rguid,
				 .rlid = (uint16_t)rlid,
				 .rport = rport,
			 }))
		return -1;
	rd->cur = node;
	rd->last_port = port;
	return 0;
bad:
	pl_err(rd, "expected \"TYPE LID PORT 0xGUID WIDTH SPEED - TYPE LID PORT"
		   " 0xGUID ( 'desc' - 'desc' )\" (ibnetdiscover -p)");
	return -1;
}

/*
 * iblinkinfo's "(4X 10.0 Gbps Active/ LinkUp)": a port that is down has
 * no width or speed.
 */
static int li_rate(const char *s, uint8_t *width, enum cr_speed *speed)
{
	static const struct {
		const char *gbps;
		enum cr_speed speed;
	} lanes[] = {
		{"2.5", CR_SPEED_SDR},	    {"5.0", CR_SPEED_DDR},
		{"10.0", CR_SPEED_QDR},	    {"14.0625", CR_SPEED_FDR},
		{"25.78125", CR_SPEED_EDR}, {"53.125", CR_SPEED_HDR},
		{"106.25", CR_SPEED_NDR},   {"212.5", CR_SPEED_XDR},
	};
	size_t n = word_len(s = skip_ws(s));

	*width = 0;
	*speed = CR_SPEED_UNKNOWN;
	if (!n || !isdigit((unsigned char)*s))
		return 0; /* down: "(   Down/ Polling)" */
	if (width_word(s, n, width))
		return -1;
	s = skip_ws(s + n);
	n = word_len(s);
	for (unsigned i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++)
		if (strlen(lanes[i].gbps) == n && !strncmp(s, lanes[i].gbps, n))
			*speed = lanes[i].speed;
	s = skip_ws(s + n);
	if (*speed == CR_SPEED_UNKNOWN || strncmp(s, "Gbps", 4))
		return -1;
	if (!strncmp(skip_ws(s + 4), "(FDR10)", 7))
		*speed = CR_SPEED_FDR10;
	return 0;
}

/* "LID PORT[EXT]" of iblinkinfo. */
static int li_lid_port(const char **s, unsigned *lid, unsigned *port)
{
	const char *e;

	if (dec(s, 0xffff, lid) || dec(s, CR_MAX_PORTS, port) || **s != '[')
		return -1;
	e = strchr(*s, ']');
	if (!e)
		return -1;
	*s = e + 1;
	return 0;
}

static int li_header(struct pl_reader *rd, const char *s)
{
	enum cr_node_type type = CR_NODE_CA;
	uint64_t guid = 0;
	const char *end = s + strlen(s);

	if (!strncmp(s, "Switch: ", 8)) {
		type = CR_NODE_SWITCH;
		s += 8;
		if (hex_guid(&s, &guid) || *s != ' ') {
			pl_err(rd, "expected \"Switch: 0xGUID desc:\"");
			return -1;
		}
		s++;
	} else {
		if (!strncmp(s, "Router: ", 8))
			type = CR_NODE_ROUTER;
		s = strchr(s, ':') + 2;
	}
	if (end == s || end[-1] != ':') {
		pl_err(rd, "a node header ends with ':'");
		return -1;
	}
	rd->cur = new_node(rd, type, guid, s, (size_t)(end - 1 - s));
	if (rd->cur == CR_NO_NODE) {
		pl_err(rd, "out of memory");
		return -1;
	}
	return 0;
}

static int li_line(struct pl_reader *rd, const char *s)
{
	unsigned lid, port, rlid = 0, rport = 0;
	uint64_t guid = 0;
	uint8_t width;
	enum cr_speed speed;
	const char *link, *far;
	bool cabled;

	if (cr_topo_ports_kind(s) == CR_TOPO_PORTS_LINKINFO)
		return li_header(rd, s);
	if (rd->cur == CR_NO_NODE) {
		pl_err(rd, "a port line before any node header");
		return -1;
	}
	if (rd->nodes[rd->cur].type != CR_NODE_SWITCH && hex_guid(&s, &guid))
		goto bad;
	if (li_lid_port(&s, &lid, &port) || !port ||
	    strncmp(skip_ws(s), "==(", 3))
		goto bad;
	link = skip_ws(s) + 3;
	far = strstr(link, "==>");
	if (!far || li_rate(link, &width, &speed))
		goto bad;
	far = skip_ws(far + 3);
	cabled = *far != '[' && *far != '"';
	if (cabled && (li_lid_port(&far, &rlid, &rport) || !rport))
		goto bad;
	return add_port(rd, &(struct pl_port){
				    .node = rd->cur,
				    .port = port,
				    .lid = (uint16_t)lid,
				    .guid = guid,
				    .width = width,
				    .speed = speed,
				    .cabled = cabled,
				    .rlid = (uint16_t)rlid,
				    .rport = rport,
			    });
bad:
	pl_err(rd,
	       "expected \"[0xGUID] LID PORT[ ] ==( WIDTH SPEED Gbps"
	       " STATE/PHYS)==> LID PORT[ ] \\\"desc\\\" ( )\" (iblinkinfo)");
	return -1;
}

/* Node GUIDs name one node each (a CA's taken from its port's too). */
static int unique_nodes(struct pl_reader *rd)
{
	struct cr_guidmap m = {0};
	int ret = 0;

	if (cr_guidmap_init(&m, rd->num_nodes)) {
		cr_err("%s: out of memory", rd->name);
		return -1;
	}
	for (size_t i = 0; i < rd->num_nodes && !ret; i++) {
		const struct pl_node *n = &rd->nodes[i];
		uint32_t was = cr_guidmap_get(&m, n->guid);

		if (was != CR_GUIDMAP_NONE) {
			cr_err("%s:%u: GUID 0x%016" PRIx64 " of '%s' is also"
			       " that of the node on line %u",
			       rd->name, n->line, n->guid, n->desc,
			       rd->nodes[was].line);
			ret = -1;
		} else if (cr_guidmap_put(&m, n->guid, (uint32_t)i) < 0) {
			cr_err("%s: out of memory", rd->name);
			ret = -1;
		}
	}
	cr_guidmap_release(&m);
	return ret;
}

/* The fabric's nodes, their port GUIDs and LIDs, and the maps to them. */
static int add_nodes(struct pl_reader *rd)
{
	struct cr_fabric *f = rd->f;

	for (size_t j = 0; j < rd->num_ports; j++) {
		struct pl_node *n = &rd->nodes[rd->ports[j].node];

		if (!n->guid && rd->ports[j].port == n->low_port)
			n->guid = rd->ports[j].guid;
	}
	for (size_t i = 0; i < rd->num_nodes; i++) {
		const struct pl_node *n = &rd->nodes[i];

		if (!n->guid || !n->max_port) {
			cr_err("%s:%u: '%s' has no GUID or no port", rd->name,
			       n->line, n->desc);
			return -1;
		}
	}
	if (unique_nodes(rd))
		return -1;
	for (size_t i = 0; i < rd->num_nodes; i++) {
		struct pl_node *n = &rd->nodes[i];

		n->fnode = cr_fabric_add_node(f, n->type, n->guid, n->max_port,
					      n->desc);
		if (n->fnode == CR_NO_NODE)
			return -1;
		if (n->type == CR_NODE_SWITCH &&
		    cr_guidmap_put(&rd->by_guid, n->guid,
				   cr_guidmap_port(n->fnode, 0))) {
			cr_err("%s:%u: GUID 0x%016" PRIx64 " names two nodes",
			       rd->name, n->line, n->guid);
			return -1;
		}
	}
	for (size_t j = 0; j < rd->num_ports; j++) {
		struct pl_port *p = &rd->ports[j];
		const struct pl_node *n = &rd->nodes[p->node];
		bool sw = n->type == CR_NODE_SWITCH;
		struct cr_port *fp =
			&f->nodes[n->fnode].ports[sw ? 0 : p->port];
		uint32_t at = cr_guidmap_port(n->fnode, p->port);
		uint32_t was = cr_guidmap_get(&rd->by_port, at);

		rd->line = p->line;
		if (was != CR_GUIDMAP_NONE) {
			pl_err(rd, "'%s' port %u is listed again (line %u)",
			       n->desc, p->port, rd->ports[was].line);
			return -1;
		}
		if (cr_guidmap_put(&rd->by_port, at, (uint32_t)j) < 0)
			goto oom;
		/* No file format carries an uncabled CA port's GUID. */
		if (!sw && p->guid && p->cabled) {
			fp->guid = p->guid;
			if (cr_guidmap_put(&rd->by_guid, p->guid, at)) {
				pl_err(rd,
				       "port GUID 0x%016" PRIx64 " is listed"
				       " twice",
				       p->guid);
				return -1;
			}
		}
		if (p->lid && (sw || p->cabled)) {
			uint32_t port0 =
				cr_guidmap_port(n->fnode, sw ? 0 : p->port);

			if ((fp->lid && fp->lid != p->lid) ||
			    (!fp->lid &&
			     rd->by_lid[p->lid] != CR_GUIDMAP_NONE)) {
				pl_err(rd,
				       "LID %u of '%s' contradicts another"
				       " line",
				       p->lid, n->desc);
				return -1;
			}
			fp->lid = p->lid;
			rd->by_lid[p->lid] = port0;
		}
	}
	return 0;
oom:
	pl_err(rd, "out of memory");
	return -1;
}

/* The fabric node and port the far end of p names, or CR_GUIDMAP_NONE. */
static uint32_t far_end(const struct pl_reader *rd, const struct pl_port *p)
{
	uint32_t at = p->rguid ? cr_guidmap_get(&rd->by_guid, p->rguid)
			       : rd->by_lid[p->rlid];

	if (at == CR_GUIDMAP_NONE || !p->rport)
		return CR_GUIDMAP_NONE;
	if (cr_is_switch(rd->f, at >> 8))
		return p->rport <= rd->f->nodes[at >> 8].num_ports
			       ? cr_guidmap_port(at >> 8, p->rport)
			       : CR_GUIDMAP_NONE;
	return (at & 0xff) == p->rport ? at : CR_GUIDMAP_NONE;
}

/* The LID of a port: a switch's is its port 0's. */
static unsigned far_lid(const struct cr_fabric *f, uint32_t at)
{
	const struct cr_node *n = &f->nodes[at >> 8];

	return n->ports[n->type == CR_NODE_SWITCH ? 0 : at & 0xff].lid;
}

static int add_links(struct pl_reader *rd)
{
	struct cr_fabric *f = rd->f;

	for (size_t j = 0; j < rd->num_ports; j++) {
		const struct pl_port *p = &rd->ports[j], *q;
		uint32_t a = rd->nodes[p->node].fnode, at = far_end(rd, p), qi;
		struct cr_port *x, *y;

		rd->line = p->line;
		if (!p->cabled)
			continue;
		if (!p->rguid && !p->rlid) {
			pl_err(rd, "iblinkinfo names far ends by LID, and no SM"
				   " has given LIDs: give ibnetdiscover's"
				   " output");
			return -1;
		}
		qi = at == CR_GUIDMAP_NONE ? at
					   : cr_guidmap_get(&rd->by_port, at);
		if (qi == CR_GUIDMAP_NONE || !rd->ports[qi].cabled) {
			pl_err(rd,
			       "the far end (LID %u port %u) does not list"
			       " this link (the file is cut short?)",
			       p->rlid, p->rport);
			return -1;
		}
		q = &rd->ports[qi];
		if (p->rlid && p->rlid != far_lid(f, at)) {
			pl_err(rd,
			       "the far end has LID %u here, %u on its own"
			       " line %u",
			       p->rlid, far_lid(f, at), q->line);
			return -1;
		}
		x = &f->nodes[a].ports[p->port];
		y = &f->nodes[at >> 8].ports[at & 0xff];
		if (x->remote == CR_NO_NODE && y->remote == CR_NO_NODE) {
			if (cr_fabric_link(f, a, p->port, at >> 8, at & 0xff))
				return -1;
		} else if (x->remote != at >> 8 ||
			   x->remote_port != (at & 0xff)) {
			pl_err(rd, "this link contradicts line %u", q->line);
			return -1;
		}
		if (p->width != q->width || p->speed != q->speed) {
			pl_err(rd,
			       "rate %ux%s contradicts %ux%s of the far end's"
			       " line %u",
			       p->width, cr_speed_name(p->speed), q->width,
			       cr_speed_name(q->speed), q->line);
			return -1;
		}
		x->width = y->width = p->width;
		x->speed = y->speed = p->speed;
	}
	return 0;
}

static int parse_lines(struct pl_reader *rd, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = cr_getline(&line, &cap, in, rd->name,
					 rd->line + 1, &err)) >= 0) {
		const char *s;

		rd->line++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		s = skip_ws(line);
		if (!*s || *s == '#')
			continue;
		err = rd->format == CR_TOPO_PORTS_P ? p_line(rd, line)
						    : li_line(rd, s);
	}
	free(line);
	if (!err && ferror(in)) {
		cr_err("%s: read error: %s", rd->name, strerror(errno));
		err = -1;
	}
	return err;
}

static int refuse(const char *name, unsigned line, enum cr_topo_ports kind)
{
	if (kind == CR_TOPO_PORTS_LINKINFO_L)
		cr_err("%s:%u: this is iblinkinfo -l output, which does not say"
		       " which nodes are switches; give iblinkinfo's output"
		       " without -l, ibnetdiscover -p's or ibnetdiscover's",
		       name, line);
	else
		cr_err("%s:%u: this is a node list (ibnetdiscover -l, -H or"
		       " -S): it has no links; give ibnetdiscover's output"
		       " without those options",
		       name, line);
	return -1;
}

struct cr_fabric *cr_topo_read_ports(FILE *in, const char *name,
				     enum cr_topo_ports kind, unsigned line)
{
	struct pl_reader rd = {
		.name = name,
		.format = kind,
		.cur = CR_NO_NODE,
	};
	int err = 0;

	if (kind != CR_TOPO_PORTS_P && kind != CR_TOPO_PORTS_LINKINFO) {
		refuse(name, line, kind);
		return NULL;
	}
	rd.f = cr_fabric_new();
	rd.by_lid = malloc(0x10000 * sizeof(*rd.by_lid));
	if (!rd.f || !rd.by_lid || cr_guidmap_init(&rd.switches, 1024) ||
	    cr_guidmap_init(&rd.by_guid, 1024) ||
	    cr_guidmap_init(&rd.by_port, 4096)) {
		cr_err("%s: out of memory", name);
		err = -1;
	} else {
		memset(rd.by_lid, 0xff, 0x10000 * sizeof(*rd.by_lid));
		err = parse_lines(&rd, in);
	}
	if (!err && !rd.num_nodes) {
		cr_err("%s: no nodes", name);
		err = -1;
	}
	if (!err)
		err = add_nodes(&rd);
	if (!err)
		err = add_links(&rd);
	if (!err && cr_fabric_sort_by_guid(rd.f)) {
		cr_err("%s: the topology is not consistent (see above)", name);
		err = -1;
	}
	for (size_t i = 0; i < rd.num_nodes; i++)
		free(rd.nodes[i].desc);
	free(rd.nodes);
	free(rd.ports);
	free(rd.by_lid);
	cr_guidmap_release(&rd.switches);
	cr_guidmap_release(&rd.by_guid);
	cr_guidmap_release(&rd.by_port);
	if (err) {
		cr_fabric_free(rd.f);
		return NULL;
	}
	cr_verbose("%s: %u nodes, %u switches (%s)", name, rd.f->num_nodes,
		   rd.f->num_switches, cr_topo_ports_name(kind));
	return rd.f;
}

enum cr_topo_ports cr_topo_ports_detect(FILE *in, unsigned *line)
{
	enum cr_topo_ports kind = CR_TOPO_PORTS_NONE;
	char *buf = NULL;
	size_t cap = 0;

	*line = 0;
	while (getline(&buf, &cap, in) >= 0) {
		const char *s = skip_ws(buf);

		++*line;
		if (*s == '\n' || *s == '\r' || !*s || *s == '#')
			continue;
		kind = cr_topo_ports_kind(s);
		break;
	}
	free(buf);
	return kind;
}

const char *cr_topo_ports_name(enum cr_topo_ports kind)
{
	return kind == CR_TOPO_PORTS_P ? "ibnetdiscover -p" : "iblinkinfo";
}
