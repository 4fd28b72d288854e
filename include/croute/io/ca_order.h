/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * croute-ftree-ca-order.dump, cr-ftree's CA order as a file: its one
 * writer (the plugin, after every routing) and its one reader (croute
 * estimate --ca-order). doc/design.md, "File formats", gives the text.
 */
#ifndef CROUTE_CA_ORDER_H
#define CROUTE_CA_ORDER_H

#include <stdio.h>

#include <croute/model/hosts.h>
#include <croute/io/topo.h>

#define CR_CA_ORDER_DUMP "croute-ftree-ca-order.dump"

/*
 * Writes the CA order by->ca_order that engine left; LIDs that name no
 * port of f are left out. Write errors show in ferror(fp).
 */
void cr_ca_order_write(FILE *fp, const struct cr_fabric *f,
		       const struct cr_byproducts *by, const char *engine);

/*
 * The hosts of a CA order file, by port GUID. NULL (logged, naming
 * file:line) on error.
 */
struct cr_hosts *cr_ca_order_read(const struct cr_fabric *f, const char *path);

#endif
