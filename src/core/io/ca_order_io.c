// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute-ftree-ca-order.dump: "# ..." comment lines, then one CA port a
 * line in cr-ftree's order: INDEX 0xLID 0xPORTGUID PORT "description".
 * The writer and the reader live together so that the format has one
 * definition (the plugin writes it, croute estimate --ca-order reads it).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/ca_order.h>
#include <croute/model/buf.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

void cr_ca_order_write(FILE *fp, const struct cr_fabric *f,
		       const struct cr_byproducts *by, const char *engine)
{
	fprintf(fp, "# %s: the CA ports in %s's order\n", CR_CA_ORDER_DUMP,
		engine);
	fprintf(fp, "# index lid port_guid port \"node description\"\n");
	for (uint32_t i = 0; i < by->num_ca_order; i++) {
		uint32_t lid = by->ca_order[i];
		const struct cr_node *n;
		unsigned p;

		if (!lid || lid > f->max_lid || f->lid_node[lid] == CR_NO_NODE)
			continue;
		n = &f->nodes[f->lid_node[lid]];
		p = f->lid_port[lid];
		fprintf(fp, "%" PRIu32 " 0x%04x 0x%016" PRIx64 " %u ", i, lid,
			n->ports[p].guid, p);
		cr_put_desc(fp, n->desc, CR_DESC_ESCAPE);
		fputc('\n', fp);
	}
}

/*
 * Only the port GUID names the host, not the LID: the order stays right
 * when the LIDs given with --lids are not the ones the dump was written
 * with.
 */
struct cr_hosts *cr_ca_order_read(const struct cr_fabric *f, const char *path)
{
	struct cr_ep_index *ix = cr_ep_index_new(f);
	struct cr_hosts *h = NULL;
	uint32_t *lids = NULL;
	/* a port listed twice would count its host twice */
	uint8_t *seen = calloc((size_t)f->max_lid + 1, 1);
	size_t n = 0, cap = 0, bufcap = 0;
	ssize_t got;
	unsigned line = 0;
	char *buf = NULL;
	FILE *in = NULL;

	if (!ix || !seen) {
		cr_err("out of memory reading %s", path);
		goto out;
	}
	in = cr_file_open_read(path);
	if (!in)
		goto out;
	while ((got = getline(&buf, &bufcap, in)) >= 0) {
		char guid[32];
		struct cr_endpoint ep;
		const char *why;
		unsigned idx, lid, base;

		line++;
		if (strlen(buf) != (size_t)got) {
			cr_err("%s:%u: a NUL byte (not a text file?)", path,
			       line);
			goto out;
		}
		if (buf[strspn(buf, " \t\r\n")] == '#' ||
		    !buf[strspn(buf, " \t\r\n")])
			continue;
		if (sscanf(buf, "%u %x %31s", &idx, &lid, guid) != 3) {
			cr_err("%s:%u: expected \"index 0xLID 0xPORT_GUID"
			       " port \\\"description\\\"\"",
			       path, line);
			goto out;
		}
		if (cr_endpoint_parse(ix, guid, false, &ep, &why)) {
			cr_err("%s:%u: port GUID %s: %s", path, line, guid,
			       why);
			goto out;
		}
		/* by the port's base LID: a LID of its LMC range is it too */
		base = f->nodes[ep.node].ports[ep.port].lid;
		if (base <= f->max_lid && seen[base]++) {
			cr_err("%s:%u: port GUID %s is listed twice", path,
			       line, guid);
			goto out;
		}
		if (cr_grow(&lids, &cap, n + 1, sizeof(*lids))) {
			cr_err("out of memory reading %s", path);
			goto out;
		}
		lids[n++] = ep.lid;
	}
	if (ferror(in))
		cr_err("%s: read error: %s", path, strerror(errno));
	else if (!n)
		cr_err("%s: no CA port in the file", path);
	else
		h = cr_hosts_from_lids(f, lids, n);
out:
	if (in)
		fclose(in);
	free(buf);
	free(lids);
	free(seen);
	cr_ep_index_free(ix);
	return h;
}
