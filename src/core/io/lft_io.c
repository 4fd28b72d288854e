// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Forwarding tables in OpenSM 3.3.23's opensm-lfts.dump format (what
 * osm_dump.c writes, and what OpenSM's own "file" routing engine reads),
 * and the output of infiniband-diags' ibroute, which a live fabric gives:
 *
 *   Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('sw1'):
 *   0x0001 000 # Switch portguid 0x0000000000200000: 'sw1'
 *   6 lids dumped
 *
 *   Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 (sw1):
 *     Lid  Out   Destination
 *          Port     Info
 *   0x0001 000 : (Switch portguid 0x0000000000200000: 'sw1')
 *   6 valid lids dumped
 *
 * dump_fts prints ibroute's format for every switch ("of switch DR path
 * ... guid 0x..."), and the deprecated dump_lfts script the same followed
 * by a warning that it was replaced. OpenSM's opensm.fdbs (also what
 * ibdmchk -u reads) has one table per switch with hops:
 *
 *   dump_ucast_routes: Switch 0x0000000000200000
 *   LID    : Port : Hops : Optimal
 *   0x0001 : 000  : 00   : yes
 *   0x0002 : UNREACHABLE
 *
 * Switches come in the order OpenSM walks its switch table, so that
 * croute's dump and OpenSM's compare line by line: that table is a
 * cl_qmap keyed by the node GUID as OpenSM holds it, in network byte
 * order, and a cl_qmap compares keys as host integers. On a little-endian
 * host the switches therefore come in the order of their byte-reversed
 * GUIDs (last byte first), on a big-endian one in GUID order. Every table
 * must end with its "lids dumped" line: a file cut short is an error, not
 * a routing with holes. So are tables made for other LIDs (headers and
 * port GUID comments name them) and edits: lines out of order, a wrong
 * count, a dump that stops at a table's end, a LID line deleted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf, fwrite_unlocked */
#endif
#include <ctype.h>
#include <endian.h>
#include <stdio.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/json.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include <croute/model/guidmap.h>

/* OpenSM prints node descriptions from the 64-byte NodeDescription. */
#define DESC_MAX 64

struct sw_key {
	uint64_t key; /* the GUID as OpenSM keys its switch table */
	uint32_t node;
};

static int by_key(const void *a, const void *b)
{
	const struct sw_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * An entry's text after its port depends on the LID only: built once per
 * LID, so that 88 million entries (27,648 hosts) cost a copy each rather
 * than a printf.
 */
struct lid_text {
	char **tail; /* per LID: " # CA portguid ...: 'desc'\n" */
	size_t *len;
};

static void lid_text_free(struct lid_text *t, size_t n)
{
	for (size_t i = 0; t->tail && i < n; i++)
		free(t->tail[i]);
	free(t->tail);
	free(t->len);
}

static int lid_text_build(struct lid_text *t, const struct cr_fabric *f)
{
	size_t n = (size_t)f->max_lid + 1;
	char desc[DESC_MAX + 1];

	t->tail = calloc(n, sizeof(*t->tail));
	t->len = calloc(n, sizeof(*t->len));
	if (!t->tail || !t->len)
		return -1;
	for (size_t lid = 0; lid < n; lid++) {
		uint32_t d = f->lid_node[lid];
		int len;

		if (d == CR_NO_NODE)
			len = asprintf(&t->tail[lid],
				       " # unknown node and type\n");
		else
			len = asprintf(&t->tail[lid],
				       " # %s portguid 0x%016" PRIx64
				       ": '%.*s'\n",
				       cr_node_type_name(f->nodes[d].type),
				       f->nodes[d].ports[f->lid_port[lid]].guid,
				       DESC_MAX,
				       cr_text_clean(f->nodes[d].desc, desc,
						     sizeof(desc)));
		if (len < 0) {
			t->tail[lid] = NULL;
			return -1;
		}
		t->len[lid] = (size_t)len;
	}
	return 0;
}

static void dump_switch(FILE *out, const struct cr_fabric *f,
			const struct cr_routing *r, uint32_t sw,
			const struct lid_text *t)
{
	static const char hex[] = "0123456789abcdef";
	const struct cr_node *n = &f->nodes[sw];
	uint32_t max = f->max_lid < r->max_lid ? f->max_lid : r->max_lid;
	char desc[DESC_MAX + 1];

	/* OpenSM's print_desc: what it cannot print is a space. */
	fprintf(out,
		"Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64
		" ('%.*s'):\n",
		f->max_lid, n->ports[0].lid, n->guid, DESC_MAX,
		cr_text_clean(n->desc, desc, sizeof(desc)));
	for (uint32_t lid = 0; lid <= max; lid++) {
		uint8_t port = r->lft[sw][lid];
		char head[16];

		/* OpenSM skips entries beyond the switch's ports (255). */
		if (port > n->num_ports)
			continue;
		/* "0x%04x %03u", LIDs below 0x10000 */
		head[0] = '0';
		head[1] = 'x';
		head[2] = hex[lid >> 12 & 15];
		head[3] = hex[lid >> 8 & 15];
		head[4] = hex[lid >> 4 & 15];
		head[5] = hex[lid & 15];
		head[6] = ' ';
		head[7] = (char)('0' + port / 100);
		head[8] = (char)('0' + port / 10 % 10);
		head[9] = (char)('0' + port % 10);
		fwrite_unlocked(head, 1, 10, out);
		fwrite_unlocked(t->tail[lid], 1, t->len[lid], out);
	}
	fprintf(out, "%u lids dumped\n", f->max_lid);
}

int cr_lft_write_dump(FILE *out, const struct cr_fabric *f,
		      const struct cr_routing *r)
{
	struct sw_key *order = malloc((f->num_switches + 1) * sizeof(*order));
	struct lid_text t = {0};

	if (!order || lid_text_build(&t, f)) {
		free(order);
		lid_text_free(&t, (size_t)f->max_lid + 1);
		cr_err("out of memory writing the LFTs");
		return -1;
	}
	for (uint32_t i = 0; i < f->num_switches; i++)
		order[i] = (struct sw_key){
			htobe64(f->nodes[f->switches[i]].guid), f->switches[i]};
	qsort(order, f->num_switches, sizeof(*order), by_key);
	for (uint32_t i = 0; i < f->num_switches; i++)
		if (r->lft[order[i].node])
			dump_switch(out, f, r, order[i].node, &t);
	free(order);
	lid_text_free(&t, (size_t)f->max_lid + 1);
	if (fflush(out) || ferror(out)) {
		cr_err("cannot write the LFTs: %s", strerror(errno));
		return -1;
	}
	return 0;
}

#define DUMP_LFTS_WARNING "*** WARNING ***: this command has been replaced by"

/* The dialects, named in reports (cr_lft_format_name). */
enum lft_format {
	LFT_UNKNOWN,
	LFT_DUMP, /* opensm-lfts.dump */
	LFT_IBROUTE,
	LFT_DUMP_FTS,
	LFT_DUMP_LFTS,
	LFT_FDBS,
};

static const char *const format_names[] = {
	[LFT_UNKNOWN] = "LFTs",	       [LFT_DUMP] = "opensm-lfts.dump",
	[LFT_IBROUTE] = "ibroute",     [LFT_DUMP_FTS] = "dump_fts",
	[LFT_DUMP_LFTS] = "dump_lfts", [LFT_FDBS] = "opensm.fdbs",
};

struct lft_reader {
	enum lft_format format;
	const char *path;
	unsigned line;
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_guidmap switches;
	uint32_t cur; /* switch whose entries follow */
	bool *seen; /* per node: a table was read */
	bool *lid_seen; /* per LID: its port GUID comment was compared */
	unsigned *table_line; /* per node: its table's header line */
	uint64_t last_guid; /* the switch of the last table */
	unsigned long top; /* the header's last LID ("[0-N]") */
	unsigned long entries; /* lines of the current table */
	long prev_lid; /* the current table's last LID, -1 none */
};

#define OTHER_LIDS "tables made for other LIDs; give --lids FILE or --dump-dir"
#define LMC_HINT_MAX 40

#define lr_err(lr, fmt, ...) \
	cr_err("%s:%u: " fmt, (lr)->path, (lr)->line, ##__VA_ARGS__)

/* The highest LMC of the topology's CA and router ports. */
static unsigned fabric_lmc(const struct cr_fabric *f)
{
	unsigned lmc = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 1; f->nodes[i].type != CR_NODE_SWITCH &&
				     p <= f->nodes[i].num_ports;
		     p++)
			if (f->nodes[i].ports[p].lmc > lmc)
				lmc = f->nodes[i].ports[p].lmc;
	return lmc;
}

/*
 * Tables routed with croute's or OpenSM's LIDs for another LMC are the
 * common case of other LIDs: when the port's LID and the table's last LID
 * are what assigning LIDs with LMC N gives, the error says to give
 * --lmc N. Only on that error, so one LID assignment per LMC is cheap.
 */
static const char *lmc_hint(const struct lft_reader *lr, uint64_t port_guid,
			    unsigned long lid, char *buf)
{
	unsigned cur = fabric_lmc(lr->f);

	buf[0] = 0;
	for (unsigned lmc = 0; lmc <= CR_MAX_LMC; lmc++) {
		uint32_t top, base;

		if (lmc == cur)
			continue;
		base = cr_fabric_lmc_lid(lr->f, lmc, port_guid, &top);
		if (!base || lid < base || lid >= base + (1u << lmc) ||
		    (lr->top && lr->top != top))
			continue;
		snprintf(buf, LMC_HINT_MAX,
			 "; looks like LMC %u: give --lmc %u", lmc, lmc);
		break;
	}
	return buf;
}

/* Tells the dialect from the first table header (fdbs: from its own). */
static void note_format(struct lft_reader *lr, const char *s)
{
	if (lr->format != LFT_UNKNOWN)
		return;
	if (strstr(s, "of switch DR path"))
		lr->format = LFT_DUMP_FTS;
	else if (strstr(s, "[0x"))
		lr->format = LFT_IBROUTE;
	else
		lr->format = LFT_DUMP;
}

/*
 * The dumps and ibroute name the LIDs they were made for: the switch's in
 * its header ("switch Lid 58 guid ..."). Read against other LIDs, every
 * entry would route some other port's LID.
 */
static int header_lid(struct lft_reader *lr, const char *s, uint32_t sw)
{
	const char *l = strstr(s, " switch Lid ");
	unsigned long lid;
	uint16_t own = lr->f->nodes[sw].ports[0].lid;
	char hint[LMC_HINT_MAX];
	char *e;

	if (!l)
		return 0; /* dump_fts names the switch by its path */
	l += 12;
	errno = 0;
	lid = strtoul(l, &e, 10);
	if (e == l || errno || !isspace((unsigned char)*e)) {
		lr_err(lr, "bad switch LID in the table header");
		return -1;
	}
	if (lid == own)
		return 0;
	lr_err(lr,
	       "switch 0x%016" PRIx64 " has LID %lu here, LID %u in the"
	       " topology: " OTHER_LIDS "%s",
	       lr->f->nodes[sw].guid, lid, own,
	       lmc_hint(lr, lr->f->nodes[sw].ports[0].guid, lid, hint));
	return -1;
}

/*
 * An entry's comment names the port that holds its LID ("# CA portguid
 * 0x...: 'desc'"); each LID is compared once, with the topology's port.
 */
static int entry_guid(struct lft_reader *lr, unsigned long lid, const char *s)
{
	const struct cr_fabric *f = lr->f;
	const char *g = strstr(s, "portguid 0x");
	uint64_t guid, own = 0;
	char hint[LMC_HINT_MAX];
	char *e;

	if (lid <= f->max_lid) {
		if (lr->lid_seen[lid])
			return 0;
		lr->lid_seen[lid] = true;
	}
	if (!g)
		return 0;
	g += 11;
	errno = 0;
	guid = strtoull(g, &e, 16);
	if (e == g || errno)
		return 0;
	if (lid <= f->max_lid && f->lid_node[lid] != CR_NO_NODE)
		own = f->nodes[f->lid_node[lid]].ports[f->lid_port[lid]].guid;
	if (guid == own)
		return 0;
	if (own)
		lr_err(lr,
		       "LID 0x%04lx is port 0x%016" PRIx64 "'s here, port"
		       " 0x%016" PRIx64 "'s in the topology: " OTHER_LIDS "%s",
		       lid, guid, own, lmc_hint(lr, guid, lid, hint));
	else
		lr_err(lr,
		       "LID 0x%04lx of port 0x%016" PRIx64 " is no port's LID"
		       " in the topology: " OTHER_LIDS "%s",
		       lid, guid, lmc_hint(lr, guid, lid, hint));
	return -1;
}

/* "Unicast lids [0-N]" (dumps), "[0x0-0xN]" (ibroute): N, checked later. */
static int header_top(struct lft_reader *lr, const char *s)
{
	const char *b = strstr(s, "[");
	const char *d = b ? strchr(b, '-') : NULL;
	char *e;

	if (!d) {
		lr_err(lr, "no LID range in the table header");
		return -1;
	}
	errno = 0;
	lr->top = strtoul(d + 1, &e, 0);
	if (e == d + 1 || errno || *e != ']') {
		lr_err(lr, "bad LID range in the table header");
		return -1;
	}
	return 0;
}

/*
 * A table's closing count: OpenSM's dump repeats its header's last LID
 * there (it skips unrouted LIDs, so it cannot count lines), ibroute counts
 * the lines it printed. Either disagreeing means an edited table.
 */
static int table_end(struct lft_reader *lr, unsigned long n)
{
	unsigned long want = lr->format == LFT_DUMP ? lr->top : lr->entries;

	if (lr->cur != CR_NO_NODE && n != want) {
		if (lr->format == LFT_DUMP)
			lr_err(lr,
			       "\"%lu lids dumped\" closes a table of LIDs"
			       " 0-%lu (an edited file?)",
			       n, want);
		else
			lr_err(lr,
			       "\"%lu lids dumped\" closes a table of %lu"
			       " entries (a line deleted or added?)",
			       n, want);
		return -1;
	}
	lr->cur = CR_NO_NODE;
	return 0;
}

/* "... guid 0xG ..." (dumps, ibroute) or "... Switch 0xG" (fdbs). */
static int parse_header(struct lft_reader *lr, const char *s, bool fdbs)
{
	const char *g = strstr(s, fdbs ? " Switch 0x" : " guid 0x");
	uint64_t guid;
	uint32_t sw;
	char *e;

	if (!g) {
		lr_err(lr, "no switch GUID in the table header");
		return -1;
	}
	g += fdbs ? 10 : 8;
	errno = 0;
	guid = strtoull(g, &e, 16);
	if (e == g || errno || (*e && !isspace((unsigned char)*e))) {
		lr_err(lr, "bad switch GUID in the table header");
		return -1;
	}
	/* opensm.fdbs alone has no count after its tables. */
	if (!fdbs && lr->cur != CR_NO_NODE) {
		char la[CR_NODE_LABEL_MAX];

		lr_err(lr,
		       "the table of switch %s has no \"N lids dumped\""
		       " line: truncated?",
		       cr_node_label(lr->f, lr->cur, 0, la, sizeof(la)));
		return -1;
	}
	sw = cr_guidmap_get(&lr->switches, guid);
	if (sw == CR_GUIDMAP_NONE) {
		lr_err(lr,
		       "switch 0x%016" PRIx64 " is not in the topology"
		       " (tables of another fabric?)",
		       guid);
		return -1;
	}
	if (lr->seen[sw]) {
		lr_err(lr, "a second table for switch 0x%016" PRIx64, guid);
		return -1;
	}
	/* The range first: a header of other LIDs is told by its last LID. */
	if (!fdbs && (header_top(lr, s) || header_lid(lr, s, sw)))
		return -1;
	lr->cur = sw;
	lr->seen[sw] = true;
	lr->table_line[sw] = lr->line;
	lr->last_guid = guid;
	lr->entries = 0;
	lr->prev_lid = -1;
	return 0;
}

static int parse_entry(struct lft_reader *lr, const char *s)
{
	const struct cr_node *n;
	unsigned long lid, port;
	char *e;

	if (lr->cur == CR_NO_NODE) {
		if (cr_file_kind(s))
			lr_err(lr, "this is %s (LFTs are expected)",
			       cr_file_kind(s));
		else
			lr_err(lr,
			       "LFT entry before any \"Unicast lids\" header");
		return -1;
	}
	n = &lr->f->nodes[lr->cur];
	errno = 0;
	lid = strtoul(s + 2, &e, 16);
	if (e == s + 2 || errno || !isspace((unsigned char)*e) ||
	    lid > 0xffff) {
		lr_err(lr, "bad LID");
		return -1;
	}
	s = e;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == ':') {
		/* opensm.fdbs: "0xLID : PORT : HOPS : ..." */
		if (lr->format != LFT_FDBS) {
			lr_err(lr, "an opensm.fdbs entry in another format");
			return -1;
		}
		s++;
		while (isspace((unsigned char)*s))
			s++;
		if (!strncmp(s, "UNREACHABLE", 11))
			return 0;
	} else if (lr->format == LFT_FDBS) {
		lr_err(lr, "expected \"0xLID : PORT : HOPS : OPTIMAL\"");
		return -1;
	}
	port = strtoul(s, &e, 10);
	if (e == s || errno || (*e && !isspace((unsigned char)*e)) ||
	    port > 255) {
		lr_err(lr, "bad port number");
		return -1;
	}
	if ((long)lid <= lr->prev_lid) {
		lr_err(lr, "LID 0x%04lx after LID 0x%04lx: lines out of order",
		       lid, (unsigned long)lr->prev_lid);
		return -1;
	}
	if (lr->format != LFT_FDBS && lid > lr->top) {
		lr_err(lr, "LID 0x%04lx beyond the header's LIDs 0-%lu", lid,
		       lr->top);
		return -1;
	}
	lr->prev_lid = (long)lid;
	lr->entries++;
	if (entry_guid(lr, lid, e))
		return -1;
	if (port > n->num_ports) {
		/* ibroute -a prints unrouted LIDs as "(illegal port)" */
		if (port != CR_NO_PATH && !strstr(e, "illegal port")) {
			char la[CR_NODE_LABEL_MAX];

			lr_err(lr, "switch %s has no port %lu",
			       cr_node_label(lr->f, lr->cur, 0, la, sizeof(la)),
			       port);
			return -1;
		}
		port = CR_NO_PATH;
	}
	if (lid <= lr->r->max_lid)
		lr->r->lft[lr->cur][lid] = (uint8_t)port;
	else if (port != CR_NO_PATH)
		cr_debug("%s:%u: LID 0x%lx is beyond the fabric's LIDs",
			 lr->path, lr->line, lid);
	return 0;
}

static int parse_line(struct lft_reader *lr, const char *s)
{
	const char *e;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	if (!strncmp(s, "Unicast lids", 12)) {
		if (lr->format == LFT_FDBS) {
			lr_err(lr, "an ibroute table inside opensm.fdbs");
			return -1;
		}
		note_format(lr, s);
		return parse_header(lr, s, false);
	}
	if (!strncmp(s, "dump_ucast_routes:", 18)) {
		if (lr->format != LFT_UNKNOWN && lr->format != LFT_FDBS) {
			lr_err(lr, "an opensm.fdbs table in another format");
			return -1;
		}
		lr->format = LFT_FDBS;
		return parse_header(lr, s, true);
	}
	if (!strncmp(s, "0x", 2))
		return parse_entry(lr, s);
	if (!strncmp(s, "Multicast mlids", 15)) {
		lr_err(lr, "this is a multicast table: give unicast LFTs");
		return -1;
	}
	/* ibroute's and opensm.fdbs' column titles */
	if (!strncmp(s, "Lid ", 4) || !strncmp(s, "Port ", 5) ||
	    !strncmp(s, "LID ", 4))
		return 0;
	/* dump_lfts ends with this warning, on stdout */
	if (!strncmp(s, DUMP_LFTS_WARNING, strlen(DUMP_LFTS_WARNING)) &&
	    (lr->format == LFT_DUMP_FTS || lr->format == LFT_DUMP_LFTS)) {
		lr->format = LFT_DUMP_LFTS;
		return 0;
	}
	/* "N lids dumped", "N valid lids dumped": a table ends */
	e = s;
	while (isdigit((unsigned char)*e))
		e++;
	if (e > s && (!strncmp(e, " lids dumped", 12) ||
		      !strncmp(e, " valid lids dumped", 18)))
		return table_end(lr, strtoul(s, NULL, 10));
	if (cr_file_kind(s) && strncmp(cr_file_kind(s), "an LFT", 6))
		lr_err(lr, "this is %s (LFTs are expected)", cr_file_kind(s));
	else
		lr_err(lr, "unrecognized line: %.40s", s);
	return -1;
}

/* A cabled switch that is not in the dump was cut off its end. */
static int check_tail(const struct lft_reader *lr)
{
	const struct cr_fabric *f = lr->f;

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t sw = f->switches[i];
		const struct cr_node *n = &f->nodes[sw];
		char la[CR_NODE_LABEL_MAX];
		bool cabled = false;

		if (lr->seen[sw] || n->guid < lr->last_guid)
			continue;
		for (unsigned p = 1; p <= n->num_ports; p++)
			cabled |= n->ports[p].remote != CR_NO_NODE;
		if (!cabled)
			continue;
		cr_err("%s:%u: the file ends after the table of switch"
		       " 0x%016" PRIx64 ", without the table of switch %s"
		       " (opensm-lfts.dump has every switch's): cut short?",
		       lr->path, lr->line, lr->last_guid,
		       cr_node_label(f, sw, 0, la, sizeof(la)));
		return -1;
	}
	return 0;
}

static bool beyond_cap(const struct cr_fabric *f, uint32_t sw, uint32_t lid)
{
	return f->nodes[sw].lft_cap && lid >= f->nodes[sw].lft_cap;
}

/* The port of LID is the switch's own, or cabled to the switch. */
static bool next_to(const struct cr_fabric *f, uint32_t sw, uint32_t lid)
{
	uint32_t d = f->lid_node[lid];
	const struct cr_node *n = &f->nodes[sw];

	if (d == sw)
		return true;
	if (f->nodes[d].type != CR_NODE_SWITCH)
		return f->nodes[d].ports[f->lid_port[lid]].remote == sw;
	for (unsigned p = 1; p <= n->num_ports; p++)
		if (n->ports[p].remote == d)
			return true;
	return false;
}

/* Some table read routes lid: the SM knew it. */
static bool routed_somewhere(const struct lft_reader *lr, uint32_t lid)
{
	for (uint32_t i = 0; i < lr->f->num_switches; i++) {
		uint32_t t = lr->f->switches[i];

		if (lr->seen[t] && lr->r->lft[t][lid] != CR_NO_PATH)
			return true;
	}
	return false;
}

/*
 * Every engine routes a switch's own LID and the LIDs of ports cabled to
 * it (one hop is a legal path for all of them), so a table without one
 * of those lost a line, unless no table routes the LID (its port went
 * down after the topology was taken).
 */
static int check_next_hops(const struct lft_reader *lr)
{
	const struct cr_fabric *f = lr->f;
	const struct cr_routing *r = lr->r;
	uint32_t top = f->max_lid < r->max_lid ? f->max_lid : r->max_lid;

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t t = f->switches[i];
		char la[CR_NODE_LABEL_MAX];

		for (uint32_t lid = 1; lr->seen[t] && lid <= top; lid++) {
			if (f->lid_node[lid] == CR_NO_NODE ||
			    r->lft[t][lid] != CR_NO_PATH ||
			    beyond_cap(f, t, lid) || !next_to(f, t, lid) ||
			    !routed_somewhere(lr, lid))
				continue;
			cr_err("%s:%u: the table of switch %s has no entry for"
			       " LID 0x%04x, its own or a neighbour's, which"
			       " every engine routes: a line deleted?",
			       lr->path, lr->table_line[t],
			       cr_node_label(f, t, 0, la, sizeof(la)), lid);
			return -1;
		}
	}
	return 0;
}

/* Every switch cabled to sw routes lid, and not back through sw. */
static bool around(const struct lft_reader *lr, uint32_t sw, uint32_t lid)
{
	const struct cr_node *n = &lr->f->nodes[sw];
	unsigned peers = 0;
	bool hosts = lr->f->nodes[lr->f->lid_node[lid]].type != CR_NODE_SWITCH;

	/* OpenSM's dumps leave out switch-to-switch routes that no CA's
	 * path uses: look at the holes croute check counts. */
	for (unsigned p = 1; !hosts && p <= n->num_ports; p++)
		hosts = n->ports[p].remote != CR_NO_NODE &&
			lr->f->nodes[n->ports[p].remote].type != CR_NODE_SWITCH;
	if (!hosts)
		return false;

	for (unsigned p = 1; p <= n->num_ports; p++) {
		uint32_t s = n->ports[p].remote;
		unsigned q;

		if (s == CR_NO_NODE || lr->f->nodes[s].type != CR_NODE_SWITCH)
			continue;
		q = lr->r->lft[s][lid];
		if (!lr->seen[s] || q == CR_NO_PATH || !q ||
		    lr->f->nodes[s].ports[q].remote == sw)
			return false;
		peers++;
	}
	return peers > 0;
}

/*
 * A LID every neighbour routes, but not the switch: OpenSM's dump omits
 * unrouted LIDs, so this is either the engine's choice (up/down rules)
 * or a deleted line. Say so, naming the table, rather than report the
 * holes as the routing's alone.
 */
static void warn_holes(const struct lft_reader *lr)
{
	const struct cr_fabric *f = lr->f;
	const struct cr_routing *r = lr->r;
	uint32_t top = f->max_lid < r->max_lid ? f->max_lid : r->max_lid;
	uint32_t count = 0, first = CR_NO_NODE, first_lid = 0;
	char la[CR_NODE_LABEL_MAX];

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t t = f->switches[i];

		for (uint32_t lid = 1; lr->seen[t] && lid <= top; lid++) {
			if (f->lid_node[lid] == CR_NO_NODE ||
			    r->lft[t][lid] != CR_NO_PATH ||
			    beyond_cap(f, t, lid) || !around(lr, t, lid))
				continue;
			if (!count++) {
				first = t;
				first_lid = lid;
			}
		}
	}
	if (count)
		cr_warn("%s:%u: the table of switch %s has no entry for LID"
			" 0x%04x though every switch cabled to it routes that"
			" LID (%u such holes): a line deleted, or the engine's"
			" choice?",
			lr->path, lr->table_line[first],
			cr_node_label(f, first, 0, la, sizeof(la)), first_lid,
			count);
}

/*
 * OpenSM routes a LID through a neighbour only if the neighbour routes it
 * (short of the neighbour's LFT capacity): an entry that forwards a LID
 * to a switch whose table lacks it means a deleted line.
 */
static int check_dead_ends(const struct lft_reader *lr)
{
	const struct cr_fabric *f = lr->f;
	const struct cr_routing *r = lr->r;
	uint32_t top = f->max_lid < r->max_lid ? f->max_lid : r->max_lid;

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t t = f->switches[i];
		const struct cr_node *n = &f->nodes[t];

		for (uint32_t lid = 1; lr->seen[t] && lid <= top; lid++) {
			unsigned p = r->lft[t][lid];
			uint32_t s;
			char la[CR_NODE_LABEL_MAX], lb[CR_NODE_LABEL_MAX];

			if (!p || p > n->num_ports ||
			    f->lid_node[lid] == CR_NO_NODE)
				continue;
			s = n->ports[p].remote;
			if (s == CR_NO_NODE || !lr->seen[s] ||
			    r->lft[s][lid] != CR_NO_PATH ||
			    beyond_cap(f, s, lid))
				continue;
			cr_err("%s:%u: the table of switch %s has no entry for"
			       " LID 0x%04x, which switch %s forwards to it: a"
			       " line deleted?",
			       lr->path, lr->table_line[s],
			       cr_node_label(f, s, 0, la, sizeof(la)), lid,
			       cr_node_label(f, t, 0, lb, sizeof(lb)));
			return -1;
		}
	}
	return 0;
}

int cr_lft_read(const char *path, const struct cr_fabric *f,
		struct cr_routing *r)
{
	return cr_lft_read_format(path, f, r, NULL);
}

int cr_lft_read_format(const char *path, const struct cr_fabric *f,
		       struct cr_routing *r, const char **format)
{
	struct lft_reader lr = {
		.path = path,
		.f = f,
		.r = r,
		.cur = CR_NO_NODE,
	};
	char *buf = NULL;
	size_t cap = 0;
	uint32_t missing = 0, tables = 0;
	int err = 0;
	FILE *in = cr_file_open_read(path);

	if (!in)
		return -1;
	cr_routing_clear(r);
	lr.seen = calloc(f->num_nodes + 1, sizeof(*lr.seen));
	lr.lid_seen = calloc((size_t)f->max_lid + 1, sizeof(*lr.lid_seen));
	lr.table_line = calloc(f->num_nodes + 1, sizeof(*lr.table_line));
	if (!lr.seen || !lr.lid_seen || !lr.table_line ||
	    cr_guidmap_init(&lr.switches, f->num_switches)) {
		cr_err("%s: out of memory", path);
		err = -1;
	}
	for (uint32_t i = 0; !err && i < f->num_switches; i++)
		if (cr_guidmap_put(&lr.switches, f->nodes[f->switches[i]].guid,
				   f->switches[i]) < 0)
			err = -1;
	while (!err &&
	       cr_getline(&buf, &cap, in, path, lr.line + 1, &err) >= 0) {
		lr.line++;
		err = parse_line(&lr, buf);
	}
	if (!err && ferror(in)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		err = -1;
	}
	/* Tables but opensm.fdbs' end with a count: a cut file does not. */
	if (!err && lr.cur != CR_NO_NODE && lr.format != LFT_FDBS) {
		cr_err("%s:%u: the file ends inside the table of switch '%s'"
		       " (no \"N lids dumped\" line): truncated?",
		       path, lr.line, f->nodes[lr.cur].desc);
		err = -1;
	}
	if (!err && lr.format == LFT_DUMP &&
	    (check_tail(&lr) || check_dead_ends(&lr) || check_next_hops(&lr)))
		err = -1;
	if (!err && lr.format == LFT_DUMP)
		warn_holes(&lr);
	for (uint32_t i = 0; !err && i < f->num_switches; i++) {
		if (lr.seen[f->switches[i]])
			tables++;
		else
			missing++;
	}
	if (!err && !tables) {
		cr_err("%s: no unicast forwarding tables", path);
		err = -1;
	}
	if (!err && missing)
		cr_warn("%s: %u of %u switches have no table (no routes)", path,
			missing, f->num_switches);
	free(buf);
	free(lr.seen);
	free(lr.lid_seen);
	free(lr.table_line);
	fclose(in);
	cr_guidmap_release(&lr.switches);
	if (err)
		cr_routing_clear(r);
	if (format)
		*format = format_names[lr.format];
	return err;
}
