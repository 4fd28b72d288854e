// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-lash's path SLs and SL2VL tables in the line formats of ibdmchk's -c
 * and -d options (include/croute/io/lash.h), so that an independent tool can
 * check the layering for credit loops. ibdmchk matches these lines with
 * regular expressions that want lower-case hex and single spaces, and
 * takes any line starting "0x" for data: the headers are '#' comments
 * without a "0x" in them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/lash.h>
#include <croute/model/log.h>

/* The switch whose SLs a node's traffic uses, or CR_NO_NODE. */
uint32_t cr_lash_source_switch(const struct cr_fabric *f, uint32_t n)
{
	const struct cr_node *node = &f->nodes[n];

	if (node->type == CR_NODE_SWITCH)
		return n;
	for (unsigned p = 1; p <= node->num_ports; p++) {
		uint32_t m = node->ports[p].remote;

		if (m != CR_NO_NODE && cr_is_switch(f, m))
			return m;
	}
	return CR_NO_NODE;
}

int cr_lash_path_sl(const struct cr_fabric *f, const struct cr_routing *r,
		    uint16_t slid, uint16_t dlid)
{
	uint32_t sw;

	if (!r->sl || !slid || !dlid || slid > f->max_lid ||
	    dlid > f->max_lid || dlid > r->max_lid ||
	    f->lid_node[slid] == CR_NO_NODE || f->lid_node[dlid] == CR_NO_NODE)
		return -1;
	sw = cr_lid_switch(f, slid, NULL);
	if (sw == CR_NO_NODE || !r->sl[sw])
		return -1;
	return r->sl[sw][dlid];
}

int cr_lash_write_psl(FILE *out, const struct cr_fabric *f,
		      const struct cr_routing *r)
{
	if (!r->sl) {
		cr_err("no path SLs to write: the routing has no layers");
		return -1;
	}
	fprintf(out, "# croute path SLs: source node GUID, destination LID, "
		     "SL (ibdmchk -c)\n");
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		uint32_t sw = cr_lash_source_switch(f, n);

		if (sw == CR_NO_NODE || !r->sl[sw])
			continue;
		for (uint32_t lid = 1; lid <= f->max_lid && lid <= r->max_lid;
		     lid++)
			if (f->lid_node[lid] != CR_NO_NODE)
				fprintf(out,
					"0x%016" PRIx64 " %" PRIu32 " %u\n",
					f->nodes[n].guid, lid,
					(unsigned)r->sl[sw][lid]);
	}
	if (fflush(out) || ferror(out)) {
		cr_err("writing path SLs failed");
		return -1;
	}
	return 0;
}

int cr_lash_write_sl2vl(FILE *out, const struct cr_fabric *f,
			const struct cr_routing *r)
{
	char table[8 * 5 + 1];

	for (unsigned i = 0; i < 8; i++)
		snprintf(table + 5 * i, 6, " 0x%x%x", r->sl2vl[2 * i] & 15,
			 r->sl2vl[2 * i + 1] & 15);
	fprintf(out, "# croute SL2VL: switch GUID, in port, out port, VLs of "
		     "SL 0..15 (ibdmchk -d)\n");
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *sw = &f->nodes[f->switches[s]];

		/* Only the pairs a packet can use: port 0 and cabled ports. */
		for (unsigned ip = 0; ip <= sw->num_ports; ip++) {
			if (ip && sw->ports[ip].remote == CR_NO_NODE)
				continue;
			for (unsigned op = 0; op <= sw->num_ports; op++) {
				if (op && sw->ports[op].remote == CR_NO_NODE)
					continue;
				fprintf(out, "0x%016" PRIx64 " %u %u%s\n",
					sw->guid, ip, op, table);
			}
		}
	}
	if (fflush(out) || ferror(out)) {
		cr_err("writing SL2VL tables failed");
		return -1;
	}
	return 0;
}

/*
 * The SL of every destination switch from source switch s into dsl (0xff:
 * no LID behind it); -1 (logged) when two LIDs behind one switch take
 * different SLs, which the compact form cannot say.
 */
static int switch_sls(const struct cr_fabric *f, const struct cr_routing *r,
		      uint32_t s, uint8_t *dsl, uint16_t *first)
{
	memset(dsl, 0xff, f->num_nodes);
	for (uint32_t lid = 1; lid <= f->max_lid && lid <= r->max_lid; lid++) {
		uint32_t d = cr_lid_switch(f, (uint16_t)lid, NULL);
		uint8_t sl = r->sl[s][lid];

		if (d == CR_NO_NODE)
			continue;
		if (dsl[d] == 0xff) {
			dsl[d] = sl;
			first[d] = (uint16_t)lid;
		} else if (dsl[d] != sl) {
			cr_err("no compact path SLs: from switch 0x%016" PRIx64
			       " the LIDs behind switch 0x%016" PRIx64
			       " take different SLs (LID %u: SL %u, LID %u:"
			       " SL %u); write the SLs per LID instead",
			       f->nodes[s].guid, f->nodes[d].guid, first[d],
			       dsl[d], lid, sl);
			return -1;
		}
	}
	return 0;
}

int cr_lash_write_switch_psl(FILE *out, const struct cr_fabric *f,
			     const struct cr_routing *r)
{
	uint8_t *dsl = malloc(f->num_nodes + 1);
	uint16_t *first = malloc((f->num_nodes + 1) * sizeof(*first));
	int err = -1;

	if (!r->sl || !dsl || !first) {
		cr_err(r->sl ? "out of memory writing path SLs"
			     : "no path SLs to write: the routing has no"
			       " layers");
		goto out;
	}
	fprintf(out, "# croute path SLs per switch: source switch GUID,"
		     " destination switch GUID, SL\n");
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t s = f->switches[i];

		if (!r->sl[s])
			continue;
		if (switch_sls(f, r, s, dsl, first))
			goto out;
		for (uint32_t j = 0; j < f->num_switches; j++) {
			uint32_t d = f->switches[j];

			if (dsl[d] != 0xff)
				fprintf(out,
					"0x%016" PRIx64 " 0x%016" PRIx64
					" %u\n",
					f->nodes[s].guid, f->nodes[d].guid,
					(unsigned)dsl[d]);
		}
	}
	if (fflush(out) || ferror(out))
		cr_err("writing path SLs failed");
	else
		err = 0;
out:
	free(dsl);
	free(first);
	return err;
}
