// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads topologies in the two dialects of one format: what ibnetdiscover
 * prints from a live fabric, and the plain net files ibsim reads
 * (`Switch 8 "sw1"` / `[1] "h1"[1]`, no GUIDs).
 *
 * GUIDs are assigned exactly as ibsim 0.10 does (sim_net.c): a counter per
 * node type, set by switchguid=/caguid=/rtguid= lines (or moved by
 * `switchguid+N`), starting at 0x200000 for switches, 0x100000 for CAs and
 * 0 for routers; a switch takes one GUID, a CA or router 1 + its port
 * count. ibnetdiscover prints such a line before every node, so both
 * dialects give the GUIDs ibsim would give for the same file. Node ids
 * ("S-0002c9...", "sw1") are plain strings: they only name link ends.
 *
 * Unlike ibsim, a link may be listed from one side only (both sides must
 * then agree), port lines may follow a header without a blank line, and a
 * port missing its rate takes the file's default (ibsim's: 4x SDR).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/buf.h>
#include <croute/log.h>
#include <croute/strindex.h>
#include <croute/topo.h>

#include <croute/guidmap.h>

/* ibsim's node type numbering, which indexes its GUID counters. */
enum { SIM_CA = 1, SIM_SWITCH = 2, SIM_ROUTER = 3, SIM_TYPES };

struct pending {
	uint32_t node;
	uint8_t port;
	uint8_t rport;
	size_t rid; /* offset of the remote id in the pool */
	unsigned line;
	uint64_t rguid; /* the far port's GUID the line gives, 0 = none */
};

struct node_info {
	char *id;
	unsigned line; /* of the header */
	size_t port_base; /* index of its port 0 in ports[] */
};

struct port_info {
	unsigned line; /* of the port's own port line, 0 = none */
	unsigned link_line; /* of the line that cabled it */
	uint16_t lid_hint; /* LID the far side's line gives for it */
	bool rate_word; /* its line ends with a rate ("4xQDR") */
	bool lid_hinted; /* its LID is the far side's word, without LMC */
	uint8_t def_width; /* the file's defaults when its line was read */
	enum cr_speed def_speed;
};

struct reader {
	FILE *in;
	const char *name;
	unsigned line;
	struct cr_fabric *f;

	struct node_info *nodes;
	size_t nodes_alloc;
	struct cr_strindex ids; /* id -> node */
	struct port_info *ports;
	size_t ports_used, ports_alloc;

	struct cr_guidmap guids; /* node GUIDs already taken */
	uint64_t guid_abs[SIM_TYPES];
	uint64_t guid_next[SIM_TYPES];
	uint64_t sysimg; /* for the next node only, 0 = none */
	uint8_t def_width;
	enum cr_speed def_speed;

	uint32_t cur; /* node whose port lines follow */
	/* "# Initiated from node G": ibnetdiscover lists that node, so a
	 * file without it was cut short. */
	uint64_t origin;
	unsigned origin_line;
	struct pending *links;
	size_t nlinks, links_alloc;
	char *pool;
	size_t pool_len, pool_alloc;
};

#define rd_err(rd, fmt, ...) \
	cr_err("%s:%u: " fmt, (rd)->name, (rd)->line, ##__VA_ARGS__)

static const char *node_id(const void *ctx, uint32_t i)
{
	const struct reader *rd = ctx;

	return rd->nodes[i].id;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* s starts with the word kw, followed by a blank or the end. */
static const char *word(const char *s, const char *kw)
{
	size_t n = strlen(kw);

	if (strncmp(s, kw, n) || (s[n] && s[n] != ' ' && s[n] != '\t'))
		return NULL;
	return s + n;
}

/* "kw=value" or "kw+value": returns the sign's position. */
static const char *assignment(const char *s, const char *kw)
{
	size_t n = strlen(kw);

	if (strncmp(s, kw, n))
		return NULL;
	s = skip_ws(s + n);
	return *s == '=' || *s == '+' ? s : NULL;
}

static int parse_u64(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 0);
	if (errno || e == s)
		return -1;
	*end = e;
	return 0;
}

/* ibnetdiscover prints port GUIDs in hex without 0x: "(2c90200000001)". */
static int parse_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 16);
	if (errno || e == s)
		return -1;
	*end = e;
	return 0;
}

/*
 * ibnetdiscover prints LIDs, LMCs and port numbers in decimal: "0200" is
 * 200, not octal 128. Hand-written files may give them in hex, with 0x.
 */
static int parse_dec(const char *s, const char **end, unsigned long max,
		     unsigned long *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long x;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &e, hex ? 16 : 10);
	if (errno || x > max)
		return -1;
	*v = (unsigned long)x;
	*end = e;
	return 0;
}

static int parse_uint(const char *s, const char **end, unsigned long max,
		      unsigned long *v)
{
	uint64_t x;

	if (parse_u64(s, end, &x) || x > max)
		return -1;
	*v = (unsigned long)x;
	return 0;
}

/*
 * "4xQDR" and friends: 1 a rate (ibnetdiscover's "4x???" an unknown speed),
 * 0 not a rate ("0x1f", "2x"), -1 a rate word no link runs at ("4xQDX",
 * "3xQDR"), which must not pass for the file's default.
 */
static int parse_rate(const char *s, size_t len, uint8_t *width,
		      enum cr_speed *speed)
{
	size_t i = 0, q = 0;
	unsigned w = 0;
	enum cr_speed sp;

	while (i < len && isdigit((unsigned char)s[i]) && w < 100)
		w = w * 10 + (s[i++] - '0');
	if (!i || i + 1 >= len || (s[i] != 'x' && s[i] != 'X'))
		return 0;
	sp = cr_speed_parse(s + i + 1, len - i - 1);
	while (i + 1 + q < len && s[i + 1 + q] == '?')
		q++;
	if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
		return sp == CR_SPEED_UNKNOWN ? 0 : -1;
	if (sp == CR_SPEED_UNKNOWN && i + 1 + q < len)
		return -1;
	*width = w;
	*speed = sp;
	return 1;
}

/* What the words of a line's tail say: LIDs in order, LMC, rate. */
struct tail {
	unsigned nlids;
	unsigned long lid[2];
	bool has_lmc;
	unsigned long lmc;
	uint8_t width;
	enum cr_speed speed;
};

static int scan_tail(struct reader *rd, const char *s, const char *e,
		     struct tail *t)
{
	while (s < e) {
		const char *w, *end;
		unsigned long v;

		while (s < e && isspace((unsigned char)*s))
			s++;
		w = s;
		while (s < e && !isspace((unsigned char)*s))
			s++;
		if (s == w)
			break;
		if ((s - w == 3 && !strncmp(w, "lid", 3)) ||
		    (s - w == 3 && !strncmp(w, "lmc", 3))) {
			bool is_lid = w[1] == 'i';
			const char *num = skip_ws(s);

			if (num >= e ||
			    parse_dec(num, &end,
				      is_lid ? CR_MAX_UCAST_LID : CR_MAX_LMC,
				      &v)) {
				rd_err(rd, "bad %s value",
				       is_lid ? "LID" : "LMC");
				return -1;
			}
			s = end;
			if (!is_lid) {
				t->has_lmc = true;
				t->lmc = v;
			} else if (t->nlids < 2) {
				t->lid[t->nlids++] = v;
			}
			continue;
		}
		if (!t->width &&
		    parse_rate(w, s - w, &t->width, &t->speed) < 0) {
			rd_err(rd,
			       "unknown link rate \"%.*s\" (widths 1x, 2x,"
			       " 4x, 8x, 12x; speeds SDR, DDR, QDR, FDR10,"
			       " FDR, EDR, HDR, NDR, XDR)",
			       (int)(s - w), w);
			return -1;
		}
	}
	return 0;
}

/* ibsim's enable masks: the fastest setting a mask allows. */
static uint8_t width_of_mask(unsigned long m)
{
	if (m & 8)
		return 12;
	if (m & 4)
		return 8;
	if (m & 2)
		return 4;
	if (m & 16)
		return 2;
	return m & 1 ? 1 : 0;
}

static enum cr_speed speed_of_mask(unsigned long m, unsigned long ext)
{
	if (ext & 4)
		return CR_SPEED_HDR;
	if (ext & 2)
		return CR_SPEED_EDR;
	if (ext & 1)
		return CR_SPEED_FDR;
	if (m & 4)
		return CR_SPEED_QDR;
	if (m & 2)
		return CR_SPEED_DDR;
	return m & 1 ? CR_SPEED_SDR : CR_SPEED_UNKNOWN;
}

/* The quoted string at s ("..."): copies it out, returns past the quote. */
static const char *quoted(struct reader *rd, const char *s, char **out,
			  const char *what)
{
	const char *e;

	if (*s != '"' || !(e = strchr(s + 1, '"'))) {
		rd_err(rd, "expected %s in double quotes", what);
		return NULL;
	}
	*out = strndup(s + 1, e - s - 1);
	if (!*out) {
		rd_err(rd, "out of memory");
		return NULL;
	}
	return e + 1;
}

static int check_id(struct reader *rd, const char *id)
{
	if (!*id) {
		rd_err(rd, "empty node id");
		return -1;
	}
	if (strchr(id, '@') || strchr(id, '#')) {
		rd_err(rd,
		       "node id \"%s\": '@' (ibsim aliases) and '#' are"
		       " not supported in ids",
		       id);
		return -1;
	}
	return 0;
}

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
	h = skip_ws(h + 1);
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
	    parse_hex(id + 2, &end, &named) || *end || named == guid)
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

	s = skip_ws(s);
	if (parse_uint(s, &s, 255, &nports) || nports < 1 ||
	    nports > CR_MAX_PORTS) {
		rd_err(rd, "'%s' needs a port count (1..%u) and a quoted id",
		       kw, CR_MAX_PORTS);
		return -1;
	}
	s = quoted(rd, skip_ws(s), &id, "the node id");
	if (!s || check_id(rd, id))
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
	    scan_tail(rd, tail, tail + strlen(tail), &t))
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
	if (parse_dec(s + 1, &s, 255, &p) || *s != ']') {
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
	s = skip_ws(s);
	if (*s == '(') {
		/* This CA port's own GUID (ibsim would use node GUID + p). */
		if (parse_hex(s + 1, &s, &guid) || *s != ')' || !guid) {
			rd_err(rd, "bad port GUID");
			return -1;
		}
		if (node->type != CR_NODE_SWITCH)
			port->guid = guid;
		s = skip_ws(s + 1);
	}
	s = quoted(rd, s, &rid, "the remote node id");
	if (!s)
		return -1;
	if (check_id(rd, rid))
		goto fail;
	if (*s == '[') {
		if (parse_dec(s + 1, &s, 255, &rp) || *s != ']' || !rp) {
			rd_err(rd, "bad remote port number");
			goto fail;
		}
		s++;
	}
	if (*s == '(') {
		/* ibnetdiscover: the far port's GUID, checked when cabling. */
		if (parse_hex(s + 1, &s, &rguid) || *s != ')' || !rguid) {
			rd_err(rd, "bad remote port GUID");
			goto fail;
		}
		s++;
	}
	/* ibsim's per-port options (w=, s=, e=) come before any comment. */
	c = strchr(s, '#');
	for (const char *o = s; (o = strchr(o, '=')) && (!c || o < c); o++) {
		const char *end;

		if (o == s || parse_uint(o + 1, &end, 255, &mask)) {
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
			if (scan_tail(rd, c + 1, q1, &t) ||
			    scan_tail(rd, q2 + 1, q2 + strlen(q2), &t))
				goto fail;
		} else if (scan_tail(rd, c + 1, c + strlen(c), &t)) {
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
	port->width = t.width ? t.width : width_of_mask(wmask);
	port->speed = t.speed ? t.speed : speed_of_mask(smask, emask);

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

	if (parse_u64(skip_ws(sign + 1), &end, &v)) {
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

	if (*sign != '=' || parse_uint(skip_ws(sign + 1), &end, max, v)) {
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

	s = skip_ws(s + 1);
	if (strncmp(s, kw, sizeof(kw) - 1) || rd->origin_line)
		return 0;
	if (!parse_hex(skip_ws(s + sizeof(kw) - 1), &end, &g) && g &&
	    (!*end || *end == ' ')) {
		rd->origin = g;
		rd->origin_line = rd->line;
	}
	return 0;
}

static int parse_line(struct reader *rd, char *line)
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
	const char *s = skip_ws(line), *x;
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
		if ((x = word(s, headers[i].kw)))
			return add_node(rd, headers[i].type, headers[i].kw, x);
	for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if ((x = assignment(s, bases[i].kw)))
			return set_guid_base(rd, bases[i].type, x);
	if ((x = assignment(s, "sysimgguid"))) {
		if (*x != '=' || parse_u64(skip_ws(x + 1), &x, &rd->sysimg)) {
			rd_err(rd, "bad system image GUID");
			return -1;
		}
		return 0;
	}
	if ((x = assignment(s, "width"))) {
		if (set_value(rd, x, 31, &v))
			return -1;
		rd->def_width = width_of_mask(v);
		return 0;
	}
	if ((x = assignment(s, "speed"))) {
		if (set_value(rd, x, 7, &v))
			return -1;
		rd->def_speed = speed_of_mask(v, 0);
		return 0;
	}
	if ((x = assignment(s, "extspeed"))) {
		if (set_value(rd, x, 7, &v))
			return -1;
		if (v)
			rd->def_speed = speed_of_mask(0, v);
		return 0;
	}
	for (unsigned i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (!strncmp(s, ignored[i], strlen(ignored[i])))
			return 0;
	for (unsigned i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]);
	     i++) {
		if (word(s, unsupported[i]) || assignment(s, unsupported[i])) {
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

static struct port_info *port_info(struct reader *rd, uint32_t n, unsigned p)
{
	return &rd->ports[rd->nodes[n].port_base + p];
}

/* Cables the pending links; a link listed from both sides must agree. */
static int resolve_links(struct reader *rd)
{
	struct cr_fabric *f = rd->f;

	for (size_t i = 0; i < rd->nlinks; i++) {
		const struct pending *l = &rd->links[i];
		const char *rid = rd->pool + l->rid;
		uint32_t b = cr_strindex_find(&rd->ids, rid);
		struct cr_port *x, *y;

		rd->line = l->line;
		if (b == CR_NO_NODE) {
			rd_err(rd, "no node has the id \"%s\"", rid);
			return -1;
		}
		if (l->rport > f->nodes[b].num_ports) {
			rd_err(rd, "\"%s\" has no port %u (ports 1..%u)", rid,
			       l->rport, f->nodes[b].num_ports);
			return -1;
		}
		if (b == l->node && l->rport == l->port) {
			rd_err(rd, "port %u is cabled to itself", l->port);
			return -1;
		}
		if (b == l->node) {
			rd_err(rd,
			       "\"%s\" port %u is cabled to its own port %u",
			       rid, l->port, l->rport);
			return -1;
		}
		if (l->rguid) {
			const struct cr_node *rn = &f->nodes[b];
			uint64_t g =
				rn->ports[cr_is_switch(f, b) ? 0 : l->rport]
					.guid;

			if (g != l->rguid) {
				rd_err(rd,
				       "\"%s\"[%u] has port GUID 0x%" PRIx64
				       " here, 0x%" PRIx64 " in its own record"
				       " (line %u)",
				       rid, l->rport, l->rguid, g,
				       rd->nodes[b].line);
				return -1;
			}
		}
		x = &f->nodes[l->node].ports[l->port];
		y = &f->nodes[b].ports[l->rport];
		if (x->remote == b && x->remote_port == l->rport)
			continue; /* listed from the other side too */
		if (x->remote != CR_NO_NODE || y->remote != CR_NO_NODE) {
			uint32_t m = x->remote != CR_NO_NODE ? l->node : b;
			unsigned q =
				x->remote != CR_NO_NODE ? l->port : l->rport;
			const struct cr_port *z = &f->nodes[m].ports[q];

			rd_err(rd,
			       "\"%s\"[%u] - \"%s\"[%u] contradicts"
			       " line %u, which cables \"%s\"[%u] to"
			       " \"%s\"[%u]",
			       rd->nodes[l->node].id, l->port, rid, l->rport,
			       port_info(rd, m, q)->link_line, rd->nodes[m].id,
			       q, rd->nodes[z->remote].id, z->remote_port);
			return -1;
		}
		if (cr_fabric_link(f, l->node, l->port, b, l->rport))
			return -1;
		port_info(rd, l->node, l->port)->link_line = l->line;
		port_info(rd, b, l->rport)->link_line = l->line;
	}
	return 0;
}

static uint8_t min_nonzero(uint8_t a, uint8_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * A link runs at the lower of what its two ends say, as ibsim computes the
 * active width and speed from its enable masks; an end that says nothing
 * (no line, or a line cut before its rate) takes the other's, and a link
 * neither end rates takes the file's default. Two rates printed on the
 * link's two lines ("4xQDR", as ibnetdiscover prints the active rate)
 * must agree.
 */
static int settle_rates(struct reader *rd)
{
	struct cr_fabric *f = rd->f;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			struct cr_port *x = &f->nodes[n].ports[p], *y;
			const struct port_info *ix = port_info(rd, n, p), *iy;
			uint8_t dw;
			enum cr_speed ds;

			if (x->remote == CR_NO_NODE) {
				x->width = 0;
				x->speed = CR_SPEED_UNKNOWN;
				continue;
			}
			y = &f->nodes[x->remote].ports[x->remote_port];
			iy = port_info(rd, x->remote, x->remote_port);
			/* "4x???": ibnetdiscover could not name the speed */
			if (ix->rate_word && iy->rate_word &&
			    (x->width != y->width ||
			     (x->speed && y->speed && x->speed != y->speed))) {
				rd->line = ix->line;
				rd_err(rd,
				       "\"%s\"[%u] runs at %ux%s here, %ux%s on"
				       " line %u (the two ends of a link must"
				       " agree)",
				       rd->nodes[n].id, p, x->width,
				       cr_speed_name(x->speed), y->width,
				       cr_speed_name(y->speed), iy->line);
				return -1;
			}
			dw = min_nonzero(ix->line ? ix->def_width : 0,
					 iy->line ? iy->def_width : 0);
			ds = (enum cr_speed)min_nonzero(
				ix->line ? ix->def_speed : 0,
				iy->line ? iy->def_speed : 0);
			x->width = y->width = min_nonzero(x->width, y->width);
			x->speed = y->speed =
				(enum cr_speed)min_nonzero(x->speed, y->speed);
			if (!x->width)
				x->width = y->width = dw;
			if (!x->speed)
				x->speed = y->speed = ds;
		}
	}
	return 0;
}

/* Every port that gets a LID has a GUID of its own. */
static int check_port_guids(struct reader *rd)
{
	struct cr_fabric *f = rd->f;
	struct cr_guidmap m = {0};
	int ret = 0;

	if (cr_guidmap_init(&m, f->num_nodes * 2)) {
		cr_err("%s: out of memory", rd->name);
		return -1;
	}
	for (uint32_t n = 0; n < f->num_nodes && !ret; n++) {
		const struct cr_node *node = &f->nodes[n];
		bool sw = node->type == CR_NODE_SWITCH;

		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0 : node->num_ports);
		     p++) {
			uint64_t g = node->ports[p].guid;
			uint32_t other;

			if (!sw && node->ports[p].remote == CR_NO_NODE)
				continue;
			other = cr_guidmap_get(&m, g);
			if (other != CR_GUIDMAP_NONE) {
				rd->line = port_info(rd, n, p)->line
						   ? port_info(rd, n, p)->line
						   : rd->nodes[n].line;
				rd_err(rd,
				       "port GUID 0x%016" PRIx64 " of \"%s\""
				       " port %u is also that of \"%s\" port"
				       " %u (line %u)",
				       g, rd->nodes[n].id, p,
				       rd->nodes[other >> 8].id, other & 0xff,
				       rd->nodes[other >> 8].line);
				ret = -1;
				break;
			}
			if (cr_guidmap_put(&m, g, cr_guidmap_port(n, p)) < 0) {
				cr_err("%s: out of memory", rd->name);
				ret = -1;
				break;
			}
		}
	}
	cr_guidmap_release(&m);
	return ret;
}

/*
 * LIDs are all or nothing: a file with some must give one to every switch
 * and every cabled CA or router port (hints from the far side's lines fill
 * ports that have no line of their own).
 */
/*
 * A CA port whose own line is missing (a file cut before it) has only
 * the LID the switch's line gives, not its LMC. OpenSM gives every CA
 * port the same LMC: when the ports that state theirs agree, it is this
 * port's too, or the port would lose the LIDs of its range.
 */
static void adopt_lmc(struct reader *rd)
{
	struct cr_fabric *f = rd->f;
	int lmc = -1;

	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1;
		     !cr_is_switch(f, n) && p <= f->nodes[n].num_ports; p++) {
			const struct cr_port *x = &f->nodes[n].ports[p];

			if (!x->lid || port_info(rd, n, p)->lid_hinted)
				continue;
			if (lmc >= 0 && lmc != x->lmc)
				return;
			lmc = x->lmc;
		}
	for (uint32_t n = 0; lmc > 0 && n < f->num_nodes; n++)
		for (unsigned p = 1;
		     !cr_is_switch(f, n) && p <= f->nodes[n].num_ports; p++)
			if (port_info(rd, n, p)->lid_hinted)
				f->nodes[n].ports[p].lmc = (uint8_t)lmc;
}

static int settle_lids(struct reader *rd, bool *any)
{
	struct cr_fabric *f = rd->f;

	*any = false;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct cr_node *node = &f->nodes[n];

		for (unsigned p = 1; p <= node->num_ports; p++) {
			struct cr_port *x = &node->ports[p];
			struct cr_port *far;
			uint16_t hint;

			if (x->remote == CR_NO_NODE)
				continue;
			hint = port_info(rd, n, p)->lid_hint;
			if (!hint)
				continue;
			far = &f->nodes[x->remote]
				       .ports[cr_is_switch(f, x->remote)
						      ? 0
						      : x->remote_port];
			if (!far->lid) {
				far->lid = hint;
				if (!cr_is_switch(f, x->remote))
					port_info(rd, x->remote, x->remote_port)
						->lid_hinted = true;
			}
		}
	}
	adopt_lmc(rd);
	for (uint32_t n = 0; n < f->num_nodes && !*any; n++)
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
			if (f->nodes[n].ports[p].lid)
				*any = true;
	if (!*any)
		return 0;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];

		rd->line = rd->nodes[n].line;
		if (node->type == CR_NODE_SWITCH) {
			if (!node->ports[0].lid) {
				rd_err(rd,
				       "switch \"%s\" has no LID, other"
				       " nodes have",
				       rd->nodes[n].id);
				return -1;
			}
			continue;
		}
		for (unsigned p = 1; p <= node->num_ports; p++) {
			if (node->ports[p].remote == CR_NO_NODE ||
			    node->ports[p].lid)
				continue;
			if (port_info(rd, n, p)->line)
				rd->line = port_info(rd, n, p)->line;
			rd_err(rd,
			       "port %u of \"%s\" has no LID, other nodes"
			       " have",
			       p, rd->nodes[n].id);
			return -1;
		}
	}
	return 0;
}

static void reader_release(struct reader *rd)
{
	for (size_t i = 0; rd->f && i < rd->f->num_nodes; i++)
		free(rd->nodes[i].id);
	free(rd->nodes);
	cr_strindex_release(&rd->ids);
	free(rd->ports);
	free(rd->links);
	free(rd->pool);
	cr_guidmap_release(&rd->guids);
}

struct cr_fabric *cr_topo_read_file(FILE *in, const char *name)
{
	struct reader rd = {
		.in = in,
		.name = name,
		.cur = CR_NO_NODE,
		.guid_abs = {[SIM_CA] = 0x100000, [SIM_SWITCH] = 0x200000},
		.guid_next = {[SIM_CA] = 0x100000, [SIM_SWITCH] = 0x200000},
		.def_width = 4,
		.def_speed = CR_SPEED_SDR,
		.ids = {.key = node_id, .ctx = &rd},
	};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool lids = false, ended = true;
	int err = 0;

	rd.f = cr_fabric_new();
	if (!rd.f) {
		cr_err("%s: out of memory", name);
		return NULL;
	}
	while (!err && (len = cr_getline(&line, &cap, in, name, rd.line + 1,
					 &err)) >= 0) {
		rd.line++;
		ended = len && line[len - 1] == '\n';
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		err = parse_line(&rd, line);
	}
	/* Every writer ends its lines: a file cut inside its last line may
	 * still parse (a header without its description and ports). */
	if (!err && rd.line && !ended)
		cr_warn("%s:%u: the last line has no line end: cut short?",
			name, rd.line);
	free(line);
	if (!err && ferror(in)) {
		cr_err("%s: read error: %s", name, strerror(errno));
		err = -1;
	}
	if (!err && !rd.f->num_nodes) {
		cr_err("%s: no nodes (not a topology file?)", name);
		err = -1;
	}
	if (!err && rd.origin_line &&
	    cr_guidmap_get(&rd.guids, rd.origin) == CR_GUIDMAP_NONE) {
		cr_err("%s:%u: the file was discovered from node 0x%016" PRIx64
		       ", which it does not list (%u lines): cut short?",
		       name, rd.origin_line, rd.origin, rd.line);
		err = -1;
	}
	if (!err)
		err = resolve_links(&rd);
	if (!err)
		err = settle_rates(&rd);
	if (!err)
		err = check_port_guids(&rd);
	if (!err)
		err = settle_lids(&rd, &lids);
	if (!err) {
		/* ibsim attaches OpenSM to the file's first port. */
		const struct cr_node *first = &rd.f->nodes[0];

		rd.f->sm_port_guid =
			first->ports[first->type == CR_NODE_SWITCH ? 0 : 1]
				.guid;
	}
	if (!err && cr_fabric_sort_by_guid(rd.f)) {
		cr_err("%s: the topology is not consistent (see above)", name);
		err = -1;
	}
	reader_release(&rd);
	if (err) {
		cr_fabric_free(rd.f);
		return NULL;
	}
	cr_verbose("%s: %u nodes, %u switches%s", name, rd.f->num_nodes,
		   rd.f->num_switches, lids ? ", with LIDs" : "");
	return rd.f;
}

struct cr_fabric *cr_topo_read(const char *path)
{
	struct cr_fabric *f;
	FILE *in;

	if (!strcmp(path, "-"))
		return cr_topo_read_file(stdin, "<stdin>");
	in = cr_file_open_read(path);
	if (!in)
		return NULL;
	f = cr_topo_read_file(in, path);
	fclose(in);
	return f;
}
