// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The order files an administrator hands the engines. First byte p:
 * port_search_ordering_file (cr_port_order_parse); c: the CA order
 * cr-ftree dumps and `croute estimate --ca-order` reads back
 * (cr_ca_order_read), against the fixed fabric. Accepted CA orders must
 * name each host port of that fabric at most once.
 */
#include "fuzz.h"

#include <croute/io/ca_order.h>
#include <croute/io/conf.h>
#include <croute/model/routing.h>

static void port_order(const uint8_t *data, size_t size)
{
	struct cr_options o;
	FILE *in;

	if (!size)
		return;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return;
	cr_options_init(&o);
	cr_port_order_parse(in, "fuzz", "port_search_ordering_file", &o);
	for (size_t i = 0; i < o.num_port_orders; i++)
		if (o.port_orders[i].num > CR_MAX_PORTS)
			abort();
	cr_options_release(&o);
	fclose(in);
}

static void ca_order(const struct cr_fabric *f, const uint8_t *data,
		     size_t size)
{
	const char *path = fuzz_memfd_path(data, size);
	struct cr_hosts *h;

	if (!path)
		return;
	h = cr_ca_order_read(f, path);
	if (!h)
		return;
	for (uint32_t i = 0; i < h->count; i++) {
		const struct cr_endpoint *e = &h->ep[i];

		if (e->node >= f->num_nodes ||
		    f->nodes[e->node].type == CR_NODE_SWITCH || !e->port ||
		    e->port > f->nodes[e->node].num_ports)
			abort();
		for (uint32_t j = 0; j < i; j++)
			if (h->ep[j].node == e->node &&
			    h->ep[j].port == e->port)
				abort();
	}
	cr_hosts_free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cr_fabric *f;

	fuzz_quiet();
	if (!f)
		f = fuzz_fabric();
	if (!size)
		return 0;
	if (data[0] == 'p')
		port_order(data + 1, size - 1);
	else if (data[0] == 'c')
		ca_order(f, data + 1, size - 1);
	return 0;
}
