// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads back what the plugin dumps for cr-lash (croute-lash-sl.dump and
 * croute-lash-sl2vl.dump, formats in include/croute/io/lash.h), so that the
 * command checks an installed layered routing for credit loops per layer
 * as it checks its own. A switch's SLs are those of its own lines; CAs'
 * lines repeat their switch's and only have to agree with it. SL2VL
 * tables are read in croute's (ibdmchk -d) format or OpenSM's
 * opensm-sl2vl.dump.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/lash.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include <croute/model/guidmap.h>

static int read_lines(const char *path, FILE *in,
		      int (*fn)(void *ctx, const char *path, unsigned line,
				const char *s),
		      void *ctx)
{
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	int err = 0;

	while (!err && cr_getline(&buf, &cap, in, path, line + 1, &err) >= 0) {
		const char *s = buf;

		line++;
		while (isspace((unsigned char)*s))
			s++;
		if (*s && *s != '#')
			err = fn(ctx, path, line, s);
	}
	if (!err && ferror(in)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		err = -1;
	}
	free(buf);
	return err;
}

struct psl_ctx {
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_guidmap nodes;
	uint8_t **seen; /* per switch node: SL set from a switch line */
	unsigned last; /* the last line read */
	/* compact lines: the LIDs behind each switch node, built once */
	uint32_t *behind_at; /* num_nodes + 1 starts into behind */
	uint16_t *behind;
};

/* The LIDs cr_lid_switch() puts behind each switch, as lists; 0 or -1. */
static int index_behind(struct psl_ctx *c)
{
	const struct cr_fabric *f = c->f;
	uint32_t *at = calloc((size_t)f->num_nodes + 2, sizeof(*at));
	uint16_t *lids = malloc(((size_t)f->max_lid + 1) * sizeof(*lids));

	if (!at || !lids) {
		free(at);
		free(lids);
		return -1;
	}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t d = cr_lid_switch(f, (uint16_t)lid, NULL);

		if (d != CR_NO_NODE)
			at[d + 2]++;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		at[n + 2] += at[n + 1];
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t d = cr_lid_switch(f, (uint16_t)lid, NULL);

		if (d != CR_NO_NODE)
			lids[at[d + 1]++] = (uint16_t)lid;
	}
	c->behind_at = at;
	c->behind = lids;
	return 0;
}

/* "0xSRC 0xDST SL": the compact form (include/croute/io/lash.h). */
static int psl_switch_line(struct psl_ctx *c, const char *path, unsigned line,
			   const char *s)
{
	unsigned long long src, dst;
	unsigned long sl;
	uint32_t sw, d;
	int pos = 0;

	if (sscanf(s, "0x%llx 0x%llx %lu %n", &src, &dst, &sl, &pos) != 3 ||
	    s[pos] || sl > 15) {
		cr_err("%s:%u: expected \"0xSWITCH 0xSWITCH SL\"", path, line);
		return -1;
	}
	sw = cr_guidmap_get(&c->nodes, src);
	d = cr_guidmap_get(&c->nodes, dst);
	if (sw == CR_GUIDMAP_NONE || !cr_is_switch(c->f, sw) ||
	    d == CR_GUIDMAP_NONE || !cr_is_switch(c->f, d)) {
		cr_err("%s:%u: switch 0x%016llx is not in the topology", path,
		       line,
		       sw == CR_GUIDMAP_NONE || !cr_is_switch(c->f, sw) ? src
									: dst);
		return -1;
	}
	if (!c->behind && index_behind(c)) {
		cr_err("%s: out of memory", path);
		return -1;
	}
	for (uint32_t i = c->behind_at[d]; i < c->behind_at[d + 1]; i++) {
		uint16_t lid = c->behind[i];

		if (lid > c->r->max_lid)
			continue;
		c->r->sl[sw][lid] = (uint8_t)sl;
		c->seen[sw][lid] = 1;
	}
	return 0;
}

static int psl_line(void *arg, const char *path, unsigned line, const char *s)
{
	struct psl_ctx *c = arg;
	unsigned long long guid;
	unsigned long lid, sl;
	uint32_t n, sw;
	int pos = 0;

	c->last = line;
	if (strchr(s, ' ') && !strncmp(strchr(s, ' ') + 1, "0x", 2))
		return psl_switch_line(c, path, line, s);
	if (sscanf(s, "0x%llx %lu %lu %n", &guid, &lid, &sl, &pos) != 3 ||
	    s[pos] || sl > 15 || !lid || lid > CR_MAX_UCAST_LID) {
		cr_err("%s:%u: expected \"0xGUID LID SL\"", path, line);
		return -1;
	}
	n = cr_guidmap_get(&c->nodes, guid);
	if (n == CR_GUIDMAP_NONE) {
		cr_err("%s:%u: node 0x%016llx is not in the topology", path,
		       line, guid);
		return -1;
	}
	sw = cr_lash_source_switch(c->f, n);
	if (sw == CR_NO_NODE || lid > c->r->max_lid)
		return 0;
	if (cr_is_switch(c->f, n)) {
		c->r->sl[sw][lid] = (uint8_t)sl;
		c->seen[sw][lid] = 1;
	} else if (c->seen[sw][lid] && c->r->sl[sw][lid] != sl) {
		cr_err("%s:%u: SL %lu differs from switch 0x%016" PRIx64 "'s"
		       " SL %u to LID %lu",
		       path, line, sl, c->f->nodes[sw].guid, c->r->sl[sw][lid],
		       lid);
		return -1;
	}
	return 0;
}

struct sl2vl_ctx {
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_lash_sl2vl t;
	uint32_t cur; /* OpenSM's format: the switch of the last header */
	bool header; /* OpenSM's format: a node header was seen */
};

/* The table applies to traffic from one switch to another. */
static bool between_switches(const struct cr_fabric *f, uint32_t n, unsigned in,
			     unsigned out)
{
	const struct cr_node *sw = &f->nodes[n];

	if (!cr_is_switch(f, n) || !in || !out || in > sw->num_ports ||
	    out > sw->num_ports)
		return false;
	return sw->ports[in].remote != CR_NO_NODE &&
	       sw->ports[out].remote != CR_NO_NODE &&
	       cr_is_switch(f, sw->ports[in].remote) &&
	       cr_is_switch(f, sw->ports[out].remote);
}

int cr_lash_sl2vl_add(struct cr_lash_sl2vl *t, const uint8_t vl[16])
{
	/* croute's model has one table for every switch and port pair. */
	if (t->have && memcmp(vl, t->vl, 16))
		return -1;
	memcpy(t->vl, vl, 16);
	t->have = true;
	return 0;
}

void cr_lash_layers_done(const struct cr_fabric *f, struct cr_routing *r,
			 const struct cr_lash_sl2vl *t)
{
	unsigned max_sl = 0;

	for (unsigned i = 0; i < 16; i++)
		r->sl2vl[i] = t && t->have ? t->vl[i] : (uint8_t)i;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		for (uint32_t lid = 1; lid <= r->max_lid; lid++) {
			uint16_t sls = cr_routing_sls(r, f->switches[s],
						      (uint16_t)lid);

			if (sls && 31u - (unsigned)__builtin_clz(sls) > max_sl)
				max_sl = 31u - (unsigned)__builtin_clz(sls);
		}
	}
	r->num_layers = (uint8_t)(max_sl + 1);
}

static int sl2vl_table(struct sl2vl_ctx *c, const char *path, unsigned line,
		       const uint8_t *vl)
{
	if (cr_lash_sl2vl_add(&c->t, vl)) {
		cr_err("%s:%u: this SL2VL table differs from the first one;"
		       " croute models one table",
		       path, line);
		return -1;
	}
	return 0;
}

/*
 * OpenSM's opensm-sl2vl.dump: a "Switch 0xGUID, base LID N, ..." header
 * per node ("Channel Adapter" and "Router" for the others, with the port
 * GUID), then "IN OUT : VL0 ... VL15" lines; only the tables between two
 * switch ports count (CA and port 0 tables may differ).
 */
static int osm_sl2vl_line(struct sl2vl_ctx *c, const char *path, unsigned line,
			  const char *s)
{
	unsigned long long guid;
	unsigned in, out, v[16];
	uint8_t vl[16];
	int pos = 0;

	if (!strncmp(s, "Switch 0x", 9)) {
		if (sscanf(s + 7, "0x%llx", &guid) != 1) {
			cr_err("%s:%u: bad node GUID", path, line);
			return -1;
		}
		c->cur = cr_fabric_find_guid(c->f, guid);
		if (c->cur == CR_NO_NODE || !cr_is_switch(c->f, c->cur)) {
			cr_err("%s:%u: switch 0x%016llx is not in the topology",
			       path, line, guid);
			return -1;
		}
		c->header = true;
		return 0;
	}
	/* No CA's or router's table is between two switches: skipped. */
	if (!strncmp(s, "Channel Adapter 0x", 18) || !strncmp(s, "CA 0x", 5) ||
	    !strncmp(s, "Router 0x", 9)) {
		c->cur = CR_NO_NODE;
		c->header = true;
		return 0;
	}
	if (sscanf(s,
		   "%u %u : %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u"
		   " %n",
		   &in, &out, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14],
		   &v[15], &pos) != 18 ||
	    s[pos] || !c->header) {
		cr_err("%s:%u: expected \"IN OUT : VL0 ... VL15\" after a node"
		       " header",
		       path, line);
		return -1;
	}
	for (unsigned i = 0; i < 16; i++) {
		if (v[i] > 15) {
			cr_err("%s:%u: bad VL %u", path, line, v[i]);
			return -1;
		}
		vl[i] = (uint8_t)v[i];
	}
	if (c->cur == CR_NO_NODE || !between_switches(c->f, c->cur, in, out))
		return 0;
	return sl2vl_table(c, path, line, vl);
}

static int sl2vl_line(void *arg, const char *path, unsigned line, const char *s)
{
	struct sl2vl_ctx *c = arg;
	unsigned long long guid;
	unsigned in, out, b[8];
	uint8_t vl[16];
	int pos = 0;

	if (strncmp(s, "0x", 2))
		return osm_sl2vl_line(c, path, line, s);
	if (sscanf(s, "0x%llx %u %u 0x%x 0x%x 0x%x 0x%x 0x%x 0x%x 0x%x 0x%x %n",
		   &guid, &in, &out, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &b[6], &b[7], &pos) != 11 ||
	    s[pos]) {
		cr_err("%s:%u: expected \"0xGUID IN OUT\" and eight 0xVV", path,
		       line);
		return -1;
	}
	for (unsigned i = 0; i < 8; i++) {
		if (b[i] > 0xff) {
			cr_err("%s:%u: bad VL pair 0x%x", path, line, b[i]);
			return -1;
		}
		vl[2 * i] = b[i] >> 4;
		vl[2 * i + 1] = b[i] & 15;
	}
	return sl2vl_table(c, path, line, vl);
}

/*
 * The plugin writes every switch's SL to every LID: one missing is a file
 * cut short or edited, which would otherwise read as SL 0.
 */
static int psl_complete(const struct psl_ctx *c, const char *path)
{
	const struct cr_fabric *f = c->f;

	if (!c->last) {
		cr_err("%s:1: no path SLs, only a header (an empty or cut"
		       " file?)",
		       path);
		return -1;
	}
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t sw = f->switches[i];

		for (uint32_t lid = 1;
		     c->r->sl[sw] && lid <= f->max_lid && lid <= c->r->max_lid;
		     lid++) {
			if (f->lid_node[lid] == CR_NO_NODE || c->seen[sw][lid])
				continue;
			cr_err("%s:%u: no SL for switch 0x%016" PRIx64
			       " to LID %u before the end of the file (cut"
			       " short?)",
			       path, c->last, f->nodes[sw].guid, lid);
			return -1;
		}
	}
	return 0;
}

static FILE *open_in(const char *path)
{
	return cr_file_open_read(path);
}

int cr_lash_read(const char *psl, const char *sl2vl, const struct cr_fabric *f,
		 struct cr_routing *r)
{
	struct psl_ctx pc = {.f = f, .r = r};
	struct sl2vl_ctx vc = {.f = f, .r = r, .cur = CR_NO_NODE};
	FILE *in = NULL;
	int err = -1;

	if (!r->sl && cr_routing_alloc_sl(f, r)) {
		cr_err("%s: out of memory", psl);
		return -1;
	}
	pc.seen = calloc(f->num_nodes + 1, sizeof(*pc.seen));
	if (!pc.seen || cr_guidmap_init(&pc.nodes, f->num_nodes))
		goto oom;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (cr_guidmap_put(&pc.nodes, f->nodes[n].guid, n) < 0)
			goto oom;
		if (cr_is_switch(f, n) &&
		    !(pc.seen[n] = calloc((size_t)r->max_lid + 1, 1)))
			goto oom;
	}
	in = open_in(psl);
	if (!in || read_lines(psl, in, psl_line, &pc) || psl_complete(&pc, psl))
		goto out;
	fclose(in);
	in = NULL;
	if (sl2vl) {
		in = open_in(sl2vl);
		if (!in || read_lines(sl2vl, in, sl2vl_line, &vc))
			goto out;
		if (!vc.t.have) {
			cr_err("%s: no SL2VL table between two switches",
			       sl2vl);
			goto out;
		}
	}
	cr_lash_layers_done(f, r, &vc.t);
	err = 0;
	goto out;
oom:
	cr_err("%s: out of memory", psl);
out:
	if (in)
		fclose(in);
	for (uint32_t n = 0; pc.seen && n < f->num_nodes; n++)
		free(pc.seen[n]);
	free(pc.seen);
	free(pc.behind_at);
	free(pc.behind);
	cr_guidmap_release(&pc.nodes);
	return err;
}
