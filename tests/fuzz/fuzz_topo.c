// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The topology readers (ibnetdiscover's format and opensm-subnet.lst, told
 * apart by their content) on arbitrary bytes. What it accepts must be a model
 * the rest of croute can use: LIDs are assigned when it has none, and the
 * fabric is written out and read back, which must give the same fabric.
 */
#include "fuzz.h"

#include <croute/model/json.h>

/*
 * What croute writes, croute must read back as the same fabric: a node
 * description or id that the writer cannot quote would break `croute
 * gen | croute route` and the dumps tests compare.
 */
static void differ(const char *what, const char *text, size_t len)
{
	fprintf(stderr, "fuzz_topo: %s reads back differently from:\n%.*s\n",
		what, (int)len, text);
	abort();
}

/*
 * The writer turns quotes, control characters and bytes that are not
 * UTF-8 into blanks, by design.
 */
static bool same_desc(const char *a, const char *b)
{
	while (*a && *b) {
		size_t n = cr_text_char_len((const unsigned char *)a);

		if (!n || *a == '"') {
			if (*b != ' ')
				return false;
			a++;
			b++;
			continue;
		}
		if (strncmp(a, b, n))
			return false;
		a += n;
		b += n;
	}
	return *a == *b;
}

static void round_trip(const struct cr_fabric *f)
{
	struct cr_fabric *g;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len), *in;

	if (!out)
		return;
	if (cr_topo_write(out, f)) {
		fclose(out);
		free(buf);
		return;
	}
	fclose(out);
	in = fmemopen(buf, len, "r");
	if (!in)
		abort();
	g = cr_topo_read_file(in, "round trip");
	fclose(in);
	if (!g || g->num_nodes != f->num_nodes ||
	    g->num_switches != f->num_switches)
		differ("the fabric", buf, len);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *a = &f->nodes[n], *b = &g->nodes[n];

		if (a->guid != b->guid || a->num_ports != b->num_ports ||
		    a->type != b->type ||
		    (a->sysimg_guid ? a->sysimg_guid : a->guid) !=
			    b->sysimg_guid ||
		    !same_desc(a->desc, b->desc))
			differ("a node", buf, len);
		for (unsigned p = 0; p <= a->num_ports; p++) {
			const struct cr_port *x = &a->ports[p],
					     *y = &b->ports[p];

			if (x->remote != y->remote ||
			    x->remote_port != y->remote_port)
				differ("a link", buf, len);
			/* The format has no place for an uncabled CA port's
			 * LID (nor do OpenSM's files). */
			if ((x->lid != y->lid || x->lmc != y->lmc) &&
			    (x->remote != CR_NO_NODE || !p))
				differ("a LID", buf, len);
			if (x->guid != y->guid)
				differ("a port GUID", buf, len);
		}
	}
	cr_fabric_free(g);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_fabric *f;

	const char *path;

	fuzz_quiet();
	/* Either format, told from the content (opensm-subnet.lst too). */
	path = fuzz_memfd_path(data, size);
	f = path && size ? cr_topo_read_format(path, NULL) : NULL;
	if (!f)
		return 0;
	if (!f->max_lid && f->num_nodes < 512)
		cr_fabric_assign_lids(f, 0);
	round_trip(f);
	cr_fabric_free(f);
	return 0;
}
