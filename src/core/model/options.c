// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Routing options and GUID lists shared by the plugin and the command. */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/routing.h>

void cr_options_init(struct cr_options *o)
{
	memset(o, 0, sizeof(*o));
}

void cr_options_release(struct cr_options *o)
{
	cr_guid_list_release(&o->root_guids);
	cr_guid_list_release(&o->cn_guids);
	cr_guid_list_release(&o->io_guids);
	cr_guid_list_release(&o->guid_order);
	free(o->port_orders);
	o->port_orders = NULL;
	o->num_port_orders = 0;
}

int cr_guid_list_add(struct cr_guid_list *l, uint64_t guid)
{
	if (cr_grow(&l->guids, &l->cap, l->count + 1, sizeof(*l->guids)))
		return -1;
	l->guids[l->count++] = guid;
	return 0;
}

void cr_guid_list_release(struct cr_guid_list *l)
{
	free(l->guids);
	l->guids = NULL;
	l->count = 0;
	l->cap = 0;
}
