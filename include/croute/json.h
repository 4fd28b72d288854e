/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JSON strings from text the fabric supplies (node descriptions, file
 * names): any byte sequence, including invalid UTF-8 and control
 * characters, gives a valid JSON string.
 */
#ifndef CROUTE_JSON_H
#define CROUTE_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * The length of the valid UTF-8 character at s (1..4), 0 when s does not
 * start one (a stray byte, an overlong or truncated sequence).
 */
size_t cr_utf8_len(const unsigned char *s);
/*
 * Writes s quoted and escaped: '"' and '\', control characters and DEL as
 * \uXXXX, and each byte of invalid UTF-8 as \u00XX (its Latin-1 reading).
 */
void cr_json_str(FILE *out, const char *s);

#endif
