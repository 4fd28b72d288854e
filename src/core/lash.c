// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Placeholder until the cr-lash engine lands: refuses every fabric. */
#include <croute/log.h>
#include <croute/routing.h>

int cr_lash_route(const struct cr_fabric *f, const struct cr_options *o,
		  struct cr_routing *r)
{
	cr_err("cr-lash is not implemented yet");
	return -1;
}
