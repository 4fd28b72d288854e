// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lines of a topology file: node headers ("Switch 8 \"sw1\" ..."),
 * port lines ("[1] \"h1\"[1] ..."), ibsim's settings (GUID counters,
 * default rates) and ibnetdiscover's comments. Each line adds to the
 * reader's tables; links are only recorded here, and cabled once the
 * whole file is read (topo_settle.c), since a link may name a node listed
 * further down.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/io/topo.h>

#include "topo_int.h"

/*
 * The description after '#': quoted up to the line's last quote, so that
 * a quote inside it does no harm; unquoted (ibsim) up to the keywords that
 * may follow it. Without '#', ibsim uses the node id.
 */
static int header_desc(struct reader *rd, const char *rest, const char *id,
		       char **desc, const char **tail)
{
	const char *h = strchr(rest, '#'), *e;

	*tail = rest;
	if (!h) {
		*desc = strdup(id);
		return *desc ? 0 : -1;
	}
	h = topo_skip_ws(h + 1);
	if (*h == '"') {
		e = strrchr(h, '"');
		if (e == h) {
			rd_err(rd, "unterminated node description");
			return -1;
		}
		h++;
		*tail = e + 1;
	} else {
		static const char *const stops[] = {
			" enhanced port ",
			" base port ",
			" lid ",
			" lmc ",
		};

		e = h + strlen(h);
		for (unsigned i = 0; i < sizeof(stops) / sizeof(stops[0]);
		     i++) {
			const char *x = strstr(h, stops[i]);

			if (x && x < e)
				e = x;
		}
		*tail = e;
	}
	/* ibsim names nodes with an empty description after their id. */
	*desc = e > h ? strndup(h, e - h) : strdup(id);
	return *desc ? 0 : -1;
}

/*
 * ibnetdiscover names a node "S-", "H-" or "R-" and its node GUID in 16
 * hex digits, and prints that GUID on the *guid= line before it. When
 * they differ (the line deleted or a digit changed), the GUID the
 * routing would use is not the node's: refuse the file.
 */
static int check_id_guid(struct reader *rd, const char *kw, const char *id,
			 uint64_t guid)
{
	uint64_t named;
	const char *end;

	if (strlen(id) != 18 || id[1] != '-' || id[0] != kw[0] ||
	    topo_parse_hex(id + 2, &end, &named) || *end || named == guid)
		return 0;
	rd_err(rd,
	       "node \"%s\" gets GUID 0x%016" PRIx64 " from the *guid= line"
	       " before it, not the GUID its id names (ibnetdiscover prints"
	       " both alike): a line deleted or edited?",
	       id, guid);
	return -1;
}

static int add_node(struct reader *rd, int sim_type, const char *kw,
		    const char *s)
{
	static const enum cr_node_type types[SIM_TYPES] = {
		[SIM_CA] = CR_NODE_CA,
		[SIM_SWITCH] = CR_NODE_SWITCH,
		[SIM_ROUTER] = CR_NODE_ROUTER,
	};
	char *id = NULL, *desc = NULL;
	const char *tail;
	unsigned long nports;
	struct tail t = {0};
	uint64_t guid = rd->guid_next[sim_type];
	uint32_t n, other;
	int ret = -1;

	s = topo_skip_ws(s);
	if (topo_parse_uint(s, &s, 255, &nports) || nports < 1 ||
	    nports > CR_MAX_PORTS) {
		rd_err(rd, "'%s' needs a port count (1..%u) and a quoted id",
		       kw, CR_MAX_PORTS);
		return -1;
	}
	s = topo_quoted(rd, topo_skip_ws(s), &id, "the node id");
	if (!s || topo_check_id(rd, id))
		goto out;
	other = cr_strindex_find(&rd->ids, id);
	if (other != CR_NO_NODE) {
		rd_err(rd, "node id \"%s\" is already used on line %u", id,
		       rd->nodes[other].line);
		goto out;
	}
	if (header_desc(rd, s, id, &desc, &tail))
		goto out;
	if (sim_type == SIM_SWITCH &&
	    topo_scan_tail(rd, tail, tail + strlen(tail), &t))
		goto out;
	if (!guid) {
		/* ibsim numbers routers from 0: a file must set rtguid= */
		rd_err(rd,
		       "node \"%s\" gets GUID 0, which is no node's GUID"
		       " (check the *guid= lines)",
		       id);
		goto out;
	}
	if (check_id_guid(rd, kw, id, guid))
		goto out;
	n = rd->f->num_nodes;
	other = cr_guidmap_get(&rd->guids, guid);
	if (other != CR_GUIDMAP_NONE) {
		rd_err(rd,
		       "GUID 0x%016" PRIx64 " of \"%s\" is already taken"
		       " by the node on line %u (check the *guid= lines)",
		       guid, id, rd->nodes[other].line);
		goto out;
	}
	if (cr_strindex_reserve(&rd->ids, n) ||
	    cr_grow(&rd->nodes, &rd->nodes_alloc, n + 1, sizeof(*rd->nodes)) ||
	    cr_grow(&rd->ports, &rd->ports_alloc, rd->ports_used + nports + 1,
		    sizeof(*rd->ports)) ||
	    cr_guidmap_put(&rd->guids, guid, n) < 0)
		goto oom;
	if (cr_fabric_add_node(rd->f, types[sim_type], guid, nports, desc) !=
	    n) {
		rd_err(rd, "cannot add node \"%s\"", id);
		goto out;
	}
	rd->nodes[n] = (struct node_info){
		.id = id,
		.line = rd->line,
		.port_base = rd->ports_used,
	};
	id = NULL;
	cr_strindex_insert(&rd->ids, n);
	memset(rd->ports + rd->ports_used, 0,
	       (nports + 1) * sizeof(*rd->ports));
	rd->ports_used += nports + 1;

	if (rd->sysimg)
		rd->f->nodes[n].sysimg_guid = rd->sysimg;
	rd->sysimg = 0;
	rd->guid_next[sim_type] += sim_type == SIM_SWITCH ? 1 : nports + 1;
	if (t.nlids) {
		rd->f->nodes[n].ports[0].lid = t.lid[0];
		rd->f->nodes[n].ports[0].lmc = t.lmc;
	}
	rd->cur = n;
	ret = 0;
	goto out;
oom:
	rd_err(rd, "out of memory");
out:
	free(id);
	free(desc);
	return ret;
}

static int add_port_line(struct reader *rd, const char *s)
{
	struct cr_fabric *f = rd->f;
	uint32_t n = rd->cur;
	struct cr_node *node;
	struct cr_port *port;
	unsigned long p, rp = 1, mask;
	unsigned long wmask = 0, smask = 0, emask = 0;
	char *rid = NULL;
	const char *c, *q1, *q2;
	struct tail t = {0};
	uint64_t guid, rguid = 0;
	struct port_info *info;
	size_t len;

	if (n == CR_NO_NODE) {
		rd_err(rd, "port line outside a node record");
		return -1;
	}
	node = &f->nodes[n];
	if (topo_parse_dec(s + 1, &s, 255, &p) || *s != ']') {
		rd_err(rd, "bad port number");
		return -1;
	}
	if (p < 1 || p > node->num_ports) {
		rd_err(rd, "port %lu of \"%s\" does not exist (ports 1..%u)", p,
		       rd->nodes[n].id, node->num_ports);
		return -1;
	}
	if (rd->ports[rd->nodes[n].port_base + p].line) {
		rd_err(rd, "port %lu of \"%s\" is already listed on line %u", p,
		       rd->nodes[n].id,
		       rd->ports[rd->nodes[n].port_base + p].line);
		return -1;
	}
	port = &node->ports[p];
	s++;
	if (!strncmp(s, "[ext", 4) && (c = strchr(s, ']')))
		s = c + 1;
	s = topo_skip_ws(s);
	if (*s == '(') {
		/* This CA port's own GUID (ibsim would use node GUID + p). */
		if (topo_parse_hex(s + 1, &s, &guid) || *s != ')' || !guid) {
			rd_err(rd, "bad port GUID");
			return -1;
		}
		if (node->type != CR_NODE_SWITCH)
			port->guid = guid;
		s = topo_skip_ws(s + 1);
	}
	s = topo_quoted(rd, s, &rid, "the remote node id");
	if (!s)
		return -1;
	if (topo_check_id(rd, rid))
		goto fail;
	if (*s == '[') {
		if (topo_parse_dec(s + 1, &s, 255, &rp) || *s != ']' || !rp) {
			rd_err(rd, "bad remote port number");
			goto fail;
		}
		s++;
	}
	if (*s == '(') {
		/* ibnetdiscover: the far port's GUID, checked when cabling. */
		if (topo_parse_hex(s + 1, &s, &rguid) || *s != ')' || !rguid) {
			rd_err(rd, "bad remote port GUID");
			goto fail;
		}
		s++;
	}
	/* ibsim's per-port options (w=, s=, e=) come before any comment. */
	c = strchr(s, '#');
	for (const char *o = s; (o = strchr(o, '=')) && (!c || o < c); o++) {
		const char *end;

		if (o == s || topo_parse_uint(o + 1, &end, 255, &mask)) {
			rd_err(rd, "bad port option");
			goto fail;
		}
		if (o[-1] == 'w')
			wmask = mask;
		else if (o[-1] == 's')
			smask = mask;
		else if (o[-1] == 'e')
			emask = mask;
	}
	if (c) {
		/* The remote description is quoted: only the rest counts. */
		q1 = strchr(c, '"');
		q2 = q1 ? strrchr(c, '"') : NULL;
		if (q1 && q2 > q1) {
			if (topo_scan_tail(rd, c + 1, q1, &t) ||
			    topo_scan_tail(rd, q2 + 1, q2 + strlen(q2), &t))
				goto fail;
		} else if (topo_scan_tail(rd, c + 1, c + strlen(c), &t)) {
			goto fail;
		}
	}
	if (node->type != CR_NODE_SWITCH && t.nlids) {
		/* "# lid L lmc M ... lid RL": own LID first on CA lines. */
		port->lid = t.lid[0];
		port->lmc = t.has_lmc ? t.lmc : 0;
		t.lid[0] = t.lid[1];
		t.nlids--;
	}
	/*
	 * Unset here stays unset until the link is settled: a line cut
	 * before its rate then takes the far end's, not the default.
	 */
	info = &rd->ports[rd->nodes[n].port_base + p];
	info->rate_word = t.width != 0;
	info->def_width = rd->def_width;
	info->def_speed = rd->def_speed;
	port->width = t.width ? t.width : topo_width_of_mask(wmask);
	port->speed = t.speed ? t.speed : topo_speed_of_mask(smask, emask);

	len = strlen(rid) + 1;
	if (cr_grow(&rd->links, &rd->links_alloc, rd->nlinks + 1,
		    sizeof(*rd->links)) ||
	    cr_grow(&rd->pool, &rd->pool_alloc, rd->pool_len + len, 1)) {
		rd_err(rd, "out of memory");
		goto fail;
	}
	memcpy(rd->pool + rd->pool_len, rid, len);
	rd->links[rd->nlinks++] = (struct pending){
		.node = n,
		.port = p,
		.rport = rp,
		.rid = rd->pool_len,
		.line = rd->line,
		.rguid = rguid,
	};
	rd->pool_len += len;
	rd->ports[rd->nodes[n].port_base + p].line = rd->line;
	if (t.nlids)
		rd->ports[rd->nodes[n].port_base + p].lid_hint = t.lid[0];
	free(rid);
	return 0;
fail:
	free(rid);
	return -1;
}

/* switchguid=G sets ibsim's counter, switchguid+N moves it from the last G. */
static int set_guid_base(struct reader *rd, int sim_type, const char *sign)
{
	uint64_t v;
	const char *end;

	if (topo_parse_u64(topo_skip_ws(sign + 1), &end, &v)) {
		rd_err(rd, "bad GUID");
		return -1;
	}
	if (*sign == '=')
		rd->guid_abs[sim_type] = v;
	rd->guid_next[sim_type] =
		rd->guid_abs[sim_type] + (*sign == '+' ? v : 0);
	return 0;
}

static int set_value(struct reader *rd, const char *sign, unsigned long max,
		     unsigned long *v)
{
	const char *end;

	if (*sign != '=' ||
	    topo_parse_uint(topo_skip_ws(sign + 1), &end, max, v)) {
		rd_err(rd, "bad value");
		return -1;
	}
	return 0;
}

/* "# Initiated from node G port P", ibnetdiscover's header. */
static int note_origin(struct reader *rd, const char *s)
{
	static const char kw[] = "Initiated from node";
	const char *end;
	uint64_t g;

	s = topo_skip_ws(s + 1);
	if (strncmp(s, kw, sizeof(kw) - 1) || rd->origin_line)
		return 0;
	if (!topo_parse_hex(topo_skip_ws(s + sizeof(kw) - 1), &end, &g) && g &&
	    (!*end || *end == ' ')) {
		rd->origin = g;
		rd->origin_line = rd->line;
	}
	return 0;
}

int topo_parse_line(struct reader *rd, char *line)
{
	static const struct {
		const char *kw;
		int type;
	} headers[] = {
		{"Switch", SIM_SWITCH},
		{"Hca", SIM_CA},
		{"Ca", SIM_CA},
		{"Rt", SIM_ROUTER},
	};
	static const struct {
		const char *kw;
		int type;
	} bases[] = {
		{"switchguid", SIM_SWITCH},
		{"hcaguids", SIM_CA},
		{"caguid", SIM_CA},
		{"rtguid", SIM_ROUTER},
	};
	/* Lines of ibnetdiscover's grouped output (-g) and ibsim's knobs
	 * that change nothing croute models. */
	static const char *const ignored[] = {
		"Chassis", "Non-Chassis", "Hostname:",
		"vendid",  "devid",	  "pdebug",
	};
	static const char *const unsupported[] = {
		"module",
		"include",
		"do",
	};
	const char *s = topo_skip_ws(line), *x;
	unsigned long v;

	if (!*s) {
		rd->cur = CR_NO_NODE;
		return 0;
	}
	if (*s == '#')
		return note_origin(rd, s);
	if (*s == '[')
		return add_port_line(rd, s);
	if (*s == '@') {
		rd_err(rd, "ibsim aliases (@) are not supported");
		return -1;
	}
	rd->cur = CR_NO_NODE;
	for (unsigned i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		if ((x = topo_word(s, headers[i].kw)))
			return add_node(rd, headers[i].type, headers[i].kw, x);
	for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if ((x = topo_assignment(s, bases[i].kw)))
			return set_guid_base(rd, bases[i].type, x);
	if ((x = topo_assignment(s, "sysimgguid"))) {
		if (*x != '=' ||
		    topo_parse_u64(topo_skip_ws(x + 1), &x, &rd->sysimg)) {
			rd_err(rd, "bad system image GUID");
			return -1;
		}
		return 0;
	}
	if ((x = topo_assignment(s, "width"))) {
		if (set_value(rd, x, 31, &v))
			return -1;
		rd->def_width = topo_width_of_mask(v);
		return 0;
	}
	if ((x = topo_assignment(s, "speed"))) {
		if (set_value(rd, x, 7, &v))
			return -1;
		rd->def_speed = topo_speed_of_mask(v, 0);
		return 0;
	}
	if ((x = topo_assignment(s, "extspeed"))) {
		if (set_value(rd, x, 7, &v))
			return -1;
		if (v)
			rd->def_speed = topo_speed_of_mask(0, v);
		return 0;
	}
	for (unsigned i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (!strncmp(s, ignored[i], strlen(ignored[i])))
			return 0;
	for (unsigned i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]);
	     i++) {
		if (topo_word(s, unsupported[i]) ||
		    topo_assignment(s, unsupported[i])) {
			rd_err(rd, "ibsim's '%s' is not supported",
			       unsupported[i]);
			return -1;
		}
	}
	if (cr_file_kind(s) && strncmp(cr_file_kind(s), "a topology", 10))
		rd_err(rd, "this is %s (a topology is expected)",
		       cr_file_kind(s));
	else
		rd_err(rd, "unrecognized line: %.40s", s);
	return -1;
}
