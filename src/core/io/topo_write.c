// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes a fabric as ibnetdiscover prints one, so that ibsim 0.10, croute
 * and anything else that reads ibnetdiscover output take it as it is:
 *
 *  - a switchguid=/caguid=/rtguid= line before every node: ibsim has no
 *    other way to learn a GUID, and takes a CA's port GUIDs as node GUID +
 *    port number (ports whose GUIDs differ cannot be told to ibsim);
 *  - node ids "S-<guid>", "H-<guid>", "R-<guid>", as ibnetdiscover makes
 *    them, so GUIDs stay unique ids;
 *  - every link from both ends (ibsim insists) with "lid L 4xQDR" at the
 *    end of the line, where ibsim's scanner looks for the link rate;
 *  - one blank line after every record: ibsim eats the line that ends a
 *    record, so a header right after port lines would be lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <config.h>
#include <croute/model/json.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

static char type_letter(enum cr_node_type t)
{
	return t == CR_NODE_SWITCH ? 'S' : t == CR_NODE_ROUTER ? 'R' : 'H';
}

void cr_put_desc(FILE *fp, const char *desc, enum cr_desc_style style)
{
	fputc('"', fp);
	for (const unsigned char *s = (const unsigned char *)desc; *s;) {
		size_t n = cr_text_char_len(s);

		/* As OpenSM and infiniband-diags clean descriptions. */
		if (!n || (*s == '"' && style == CR_DESC_BLANK)) {
			fputc(' ', fp);
			s++;
			continue;
		}
		if (style == CR_DESC_ESCAPE && (*s == '"' || *s == '\\'))
			fputc('\\', fp);
		fwrite(s, 1, n, fp);
		s += n;
	}
	fputc('"', fp);
}

static void put_id(FILE *out, const struct cr_node *n)
{
	fprintf(out, "\"%c-%016" PRIx64 "\"", type_letter(n->type), n->guid);
}

/* The LID ibnetdiscover shows for the far end of a link. */
static unsigned remote_lid(const struct cr_fabric *f, const struct cr_port *x)
{
	const struct cr_node *r = &f->nodes[x->remote];

	return r->type == CR_NODE_SWITCH ? r->ports[0].lid
					 : r->ports[x->remote_port].lid;
}

static void put_rate(FILE *out, const struct cr_port *x)
{
	if (x->width && x->speed != CR_SPEED_UNKNOWN)
		fprintf(out, " %ux%s", x->width, cr_speed_name(x->speed));
}

static void write_switch(FILE *out, const struct cr_fabric *f,
			 const struct cr_node *n)
{
	fprintf(out, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", n->guid,
		n->ports[0].guid);
	fprintf(out, "Switch\t%u ", n->num_ports);
	put_id(out, n);
	fputs("\t\t# ", out);
	cr_put_desc(out, n->desc, CR_DESC_BLANK);
	fprintf(out, " base port 0 lid %u lmc %u\n", n->ports[0].lid,
		n->ports[0].lmc);
	for (unsigned p = 1; p <= n->num_ports; p++) {
		const struct cr_port *x = &n->ports[p];
		const struct cr_node *r;

		if (x->remote == CR_NO_NODE)
			continue;
		r = &f->nodes[x->remote];
		fprintf(out, "[%u]\t", p);
		put_id(out, r);
		fprintf(out, "[%u]", x->remote_port);
		if (r->type != CR_NODE_SWITCH)
			fprintf(out, "(%" PRIx64 ") ",
				r->ports[x->remote_port].guid);
		fputs("\t\t# ", out);
		cr_put_desc(out, r->desc, CR_DESC_BLANK);
		fprintf(out, " lid %u", remote_lid(f, x));
		put_rate(out, x);
		fputc('\n', out);
	}
}

static void write_ca(FILE *out, const struct cr_fabric *f,
		     const struct cr_node *n)
{
	bool router = n->type == CR_NODE_ROUTER;

	fprintf(out, "%s=0x%" PRIx64 "\n", router ? "rtguid" : "caguid",
		n->guid);
	fprintf(out, "%s\t%u ", router ? "Rt" : "Ca", n->num_ports);
	put_id(out, n);
	fputs("\t\t# ", out);
	cr_put_desc(out, n->desc, CR_DESC_BLANK);
	fputc('\n', out);
	for (unsigned p = 1; p <= n->num_ports; p++) {
		const struct cr_port *x = &n->ports[p];
		const struct cr_node *r;

		if (x->remote == CR_NO_NODE)
			continue;
		r = &f->nodes[x->remote];
		fprintf(out, "[%u](%" PRIx64 ") \t", p, x->guid);
		put_id(out, r);
		fprintf(out, "[%u]", x->remote_port);
		if (r->type != CR_NODE_SWITCH)
			fprintf(out, " (%" PRIx64 ") ",
				r->ports[x->remote_port].guid);
		fprintf(out, "\t\t# lid %u lmc %u ", x->lid, x->lmc);
		cr_put_desc(out, r->desc, CR_DESC_BLANK);
		fprintf(out, " lid %u", remote_lid(f, x));
		put_rate(out, x);
		fputc('\n', out);
	}
}

int cr_topo_write(FILE *out, const struct cr_fabric *f)
{
	fprintf(out, "#\n# Topology file: written by %s %s\n#\n", PACKAGE_NAME,
		PACKAGE_VERSION);
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct cr_node *n = &f->nodes[i];

		fputc('\n', out);
		fprintf(out, "sysimgguid=0x%" PRIx64 "\n",
			n->sysimg_guid ? n->sysimg_guid : n->guid);
		if (n->type == CR_NODE_SWITCH)
			write_switch(out, f, n);
		else
			write_ca(out, f, n);
	}
	if (fflush(out) || ferror(out)) {
		cr_err("cannot write the topology: %s", strerror(errno));
		return -1;
	}
	return 0;
}
