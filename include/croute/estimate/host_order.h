/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The host orders patterns run over (include/croute/model/hosts.h holds
 * the lists themselves): host list files, the order doc/design.md
 * prescribes, and the rail order of AI jobs.
 */
#ifndef CROUTE_HOST_ORDER_H
#define CROUTE_HOST_ORDER_H

#include <stddef.h>

#include <croute/model/hosts.h>

struct cr_est_result;

/*
 * A host list file: one host a line, as in flows files (see
 * cr_endpoint_parse); '#' starts a comment. Errors name file:line.
 */
struct cr_hosts *cr_hosts_read(const struct cr_fabric *f, const char *path);
/*
 * The order doc/design.md prescribes: the host list file when path is not
 * NULL; else the routing's CA order (cr-ftree's by-product; by may be
 * NULL) when it has one; else cr_hosts_default().
 */
struct cr_hosts *cr_hosts_for(const struct cr_fabric *f,
			      const struct cr_byproducts *by, const char *path);
/*
 * The rail order of AI jobs, rank = server x rails + rail: base's hosts
 * grouped by server (the CAs of one system image GUID), servers in the
 * order their first host has in base, each server's hosts by rail (node
 * GUID, then port: rail 0 the lowest, as rail-ring numbers them). NULL
 * (logged) out of memory.
 */
struct cr_hosts *cr_hosts_rail(const struct cr_fabric *f,
			       const struct cr_hosts *base);
/*
 * Whether h's hosts include servers of several HCAs (two CA nodes of one
 * system image GUID): a fabric whose jobs run in the rail order.
 */
bool cr_hosts_have_rails(const struct cr_fabric *f, const struct cr_hosts *h);

/*
 * The host order to export for shift (croute hosts, croute-hosts.dump):
 * the routing's CA order (by, may be NULL) when it has one; else, when r
 * was routed by an engine with options o, the CA ports in the order it
 * routes their LIDs (cr_lid_order()); o NULL (tables read from a file):
 * that order without options, OpenSM's. That candidate is scored for shift on r
 * (cr_shift_score()) against cr_hosts_default() and replaced by the
 * default order when it scores below it (a note says so). how gets the
 * order's description. NULL (logged) on error.
 */
struct cr_hosts *cr_hosts_shift_export(const struct cr_fabric *f,
				       const struct cr_routing *r,
				       const struct cr_options *o,
				       const struct cr_byproducts *by,
				       char *how, size_t len);
/* Shift over h on r: every phase up to 512 hosts, 64 sampled beyond. */
struct cr_est_result *cr_shift_score(const struct cr_fabric *f,
				     const struct cr_routing *r,
				     const struct cr_hosts *h);

#endif
