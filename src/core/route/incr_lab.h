/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The labels of incremental re-routing (incremental.c, ftree_incr.c): a
 * switch's distance toward a destination switch over the steps the engine
 * allows, and whether from there the route only goes down (up*-down*
 * engines), in one byte.
 */
#ifndef CROUTE_INCR_LAB_H
#define CROUTE_INCR_LAB_H

/* distance << 1 | DOWN mode; LAB_NONE: no route */
#define LAB_NONE 0xFF
#define LAB_MAX_DIST 126
#define LAB(d, down) ((uint8_t)((unsigned)(d) << 1 | (down)))
#define LAB_DIST(l) ((unsigned)(l) >> 1)
#define LAB_DOWN(l) ((l)&1u)

#endif
