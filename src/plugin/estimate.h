/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contention estimate after each routing run by a croute engine
 * (estimate.c): a worker thread runs it on a private copy of the fabric
 * and the routing, so that neither the LFTs reaching the switches nor
 * OpenSM's structures wait on it. Its keys: include/croute/io/est_conf.h.
 */
#ifndef CROUTE_PLUGIN_ESTIMATE_H
#define CROUTE_PLUGIN_ESTIMATE_H

struct cr_plugin;

/*
 * At OSM_EVENT_ID_UCAST_ROUTING_DONE, after croute's other dumps: queues
 * an estimate of the routing just installed (when it is croute's), or
 * removes a croute-contention.dump that no longer describes the fabric.
 */
void cr_estimate_routing_done(struct cr_plugin *pl);
/*
 * From the plugin's delete: waits for a running estimate to finish (so
 * that opensm -o leaves a complete dump) and drops a queued one.
 */
void cr_estimate_stop(struct cr_plugin *pl);

#endif
