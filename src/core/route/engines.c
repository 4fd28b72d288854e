// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The table of engines, shared by the plugin and the command. */
#include <string.h>

#include <croute/routing.h>

static const struct cr_engine minhop = {
	"minhop",
	"shortest paths, least-loaded port among equals",
	cr_minhop_route,
	false,
};
static const struct cr_engine updn = {
	"updn",
	"up*/down* shortest legal paths, credit-loop free",
	cr_updn_route,
	false,
};
static const struct cr_engine ftree = {
	"ftree",
	"fat-tree routing, congestion-free shift on full trees",
	cr_ftree_route,
	false,
};
static const struct cr_engine lash = {
	"lash",
	"shortest paths over deadlock-free virtual layers",
	cr_lash_route,
	true,
};

const struct cr_engine *const cr_engines[] = {
	&minhop, &updn, &ftree, &lash, NULL,
};

const struct cr_engine *cr_engine_find(const char *name)
{
	if (!name)
		return NULL;
	if (!strncmp(name, "cr-", 3))
		name += 3;
	for (unsigned i = 0; cr_engines[i]; i++)
		if (!strcmp(cr_engines[i]->name, name))
			return cr_engines[i];
	return NULL;
}
