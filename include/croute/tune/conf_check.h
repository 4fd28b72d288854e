/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The checks of croute's opensm.conf values that the parser (conf.h)
 * cannot make: engine names, cr-auto's candidates and objective, the
 * estimate's patterns and penalty factors belong to the layers above it.
 * Run after parsing, before the values are used.
 */
#ifndef CROUTE_CONF_CHECK_H
#define CROUTE_CONF_CHECK_H

#include <croute/io/conf.h>

/*
 * Checks every such value of c, logging a bad one as the parser logs a
 * bad line (file, line, key, value) and setting it back to its default;
 * finds the engines of the croute_fail_engine rules. Returns the number
 * of bad values.
 */
int cr_conf_check(struct cr_conf *c);

#endif
