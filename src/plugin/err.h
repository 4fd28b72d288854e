/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every error croute writes to OpenSM's log carries a code in OpenSM's own
 * style ("ERR CR1A:"), one per message site, so that an administrator can
 * grep for it and look it up in croute(8). The plugin's own messages name
 * their code at the call; the core's errors get the code of the step the
 * plugin was running on that thread (pl_core_code()), which the log sink
 * adds. tests/doc/err_codes.sh keeps the codes unique and documented.
 */
#ifndef CROUTE_PLUGIN_ERR_H
#define CROUTE_PLUGIN_ERR_H

#include <croute/model/log.h>

/* code: "CRnn", a string literal; the format must be a literal too. */
#define pl_err(code, ...) cr_err("ERR " code ": " __VA_ARGS__)

/*
 * The code the core's errors on this thread carry from now on, until the
 * next call; returns the one before. Defined in plugin.c.
 */
const char *pl_core_code(const char *code);

#endif
