// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LIDs from OpenSM's guid2lid cache (OSM_CACHE_DIR/guid2lid): one
 * "0x<port GUID> 0x<base LID> 0x<top LID>" line per port, records apart by
 * blank lines. Reading it gives croute exactly the LIDs a running OpenSM
 * handed out, which is what makes offline and live LFTs comparable.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/io/topo.h>

#include <croute/model/guidmap.h>

static int index_ports(struct cr_fabric *f, struct cr_guidmap *m)
{
	if (cr_guidmap_init(m, f->num_nodes * 2))
		return -1;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct cr_node *node = &f->nodes[n];
		unsigned first = cr_is_switch(f, n) ? 0 : 1;
		unsigned last = cr_is_switch(f, n) ? 0 : node->num_ports;

		for (unsigned p = first; p <= last; p++) {
			node->ports[p].lid = 0;
			node->ports[p].lmc = 0;
			if (cr_guidmap_put(m, node->ports[p].guid,
					   cr_guidmap_port(n, p)) < 0)
				return -1;
		}
	}
	return 0;
}

static int parse_line(const char *path, unsigned line, char *s,
		      struct cr_fabric *f, const struct cr_guidmap *m)
{
	unsigned long long guid, base, top;
	const char *s0 = s;
	uint32_t v;
	struct cr_port *port;
	char *e;
	unsigned lmc = 0;

	errno = 0;
	guid = strtoull(s, &e, 0);
	if (e == s || errno || !isspace((unsigned char)*e))
		goto bad;
	s = e;
	base = strtoull(s, &e, 0);
	if (e == s || errno)
		goto bad;
	s = e;
	top = strtoull(s, &e, 0);
	if (e == s || errno)
		goto bad;
	while (isspace((unsigned char)*e))
		e++;
	if (*e)
		goto bad;
	while (lmc <= CR_MAX_LMC && base + (1ULL << lmc) - 1 < top)
		lmc++;
	if (!base || top < base || top > CR_MAX_UCAST_LID || lmc > CR_MAX_LMC ||
	    base + (1ULL << lmc) - 1 != top || (base & ((1ULL << lmc) - 1))) {
		cr_err("%s:%u: LIDs 0x%llx-0x%llx are not a valid LMC range",
		       path, line, base, top);
		return -1;
	}
	v = cr_guidmap_get(m, guid);
	if (v == CR_GUIDMAP_NONE) {
		/* OpenSM keeps ports that have left the fabric. */
		cr_debug("%s:%u: port 0x%016llx is not in the fabric", path,
			 line, guid);
		return 0;
	}
	port = &f->nodes[v >> 8].ports[v & 0xff];
	if (!cr_is_switch(f, v >> 8) && port->remote == CR_NO_NODE) {
		/*
		 * A CA port without a cable is not in OpenSM's subnet, though
		 * its cached LID stays: no table routes it.
		 */
		cr_debug("%s:%u: port 0x%016llx has no cable", path, line,
			 guid);
		return 0;
	}
	if (port->lid) {
		/* OpenSM, too, keeps the first and drops the rest. */
		cr_warn("%s:%u: port 0x%016llx listed again, ignored", path,
			line, guid);
		return 0;
	}
	port->lid = base;
	port->lmc = lmc;
	return 0;
bad:
	if (cr_file_kind(s0) && !strstr(cr_file_kind(s0), "guid2lid"))
		cr_err("%s:%u: this is %s (a guid2lid file is expected)", path,
		       line, cr_file_kind(s0));
	else
		cr_err("%s:%u: expected \"0xGUID base-LID top-LID\"", path,
		       line);
	return -1;
}

/* OpenSM gives LIDs to every switch and every port it discovered. */
static int check_complete(const char *path, const struct cr_fabric *f)
{
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];
		bool sw = cr_is_switch(f, n);

		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0 : node->num_ports);
		     p++) {
			if (node->ports[p].lid ||
			    (!sw && node->ports[p].remote == CR_NO_NODE))
				continue;
			cr_err("%s: no LID for port 0x%016" PRIx64 " ('%s'"
			       " port %u)",
			       path, node->ports[p].guid, node->desc, p);
			return -1;
		}
	}
	return 0;
}

/*
 * OpenSM gives every CA port the same LMC (one lmc option): a range of
 * another size is a digit changed or another SM's file.
 */
static int check_lmc(const char *path, const struct cr_fabric *f)
{
	const struct cr_port *first = NULL;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];

		for (unsigned p = 1;
		     !cr_is_switch(f, n) && p <= node->num_ports; p++) {
			const struct cr_port *x = &node->ports[p];

			if (!x->lid || x->remote == CR_NO_NODE)
				continue;
			if (!first)
				first = x;
			if (x->lmc == first->lmc)
				continue;
			cr_err("%s: port 0x%016" PRIx64 " has LIDs %u-%u (LMC"
			       " %u), port 0x%016" PRIx64 " LMC %u: OpenSM"
			       " gives every CA port one LMC",
			       path, x->guid, x->lid,
			       x->lid + (1u << x->lmc) - 1, x->lmc, first->guid,
			       first->lmc);
			return -1;
		}
	}
	return 0;
}

int cr_lids_read_guid2lid(const char *path, struct cr_fabric *f)
{
	struct cr_guidmap m = {0};
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	int err = 0;
	FILE *in = cr_file_open_read(path);

	if (!in)
		return -1;
	if (index_ports(f, &m)) {
		cr_err("%s: out of memory", path);
		err = -1;
	}
	while (!err && cr_getline(&buf, &cap, in, path, line + 1, &err) >= 0) {
		char *s = buf;

		line++;
		while (isspace((unsigned char)*s))
			s++;
		if (*s && *s != '#')
			err = parse_line(path, line, s, f, &m);
	}
	if (!err && ferror(in)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		err = -1;
	}
	free(buf);
	fclose(in);
	cr_guidmap_release(&m);
	if (!err)
		err = check_complete(path, f) ? -1 : check_lmc(path, f);
	if (!err && cr_fabric_finalize(f)) {
		cr_err("%s: the LIDs are not consistent (see above)", path);
		err = -1;
	}
	return err;
}
