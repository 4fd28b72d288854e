// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How the HTML report names a node (src/core/report/html_int.h): shared by
 * the report's page and its link tables, so neither calls into the other.
 */
#include <inttypes.h>
#include <stdio.h>

#include <croute/model/fabric.h>

#include "html_int.h"

void cr_html_node(FILE *out, const struct cr_fabric *f, uint32_t n,
		  unsigned port)
{
	const struct cr_node *nd;

	if (n >= f->num_nodes) {
		fputc('?', out);
		return;
	}
	nd = &f->nodes[n];
	if (nd->type == CR_NODE_SWITCH)
		port = 0;
	cr_html_put(out, nd->desc);
	fprintf(out, " 0x%016" PRIx64, nd->guid);
	if (port <= nd->num_ports && nd->ports[port].lid)
		fprintf(out, " LID %u", nd->ports[port].lid);
}
