/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JSON strings from text the fabric supplies (node descriptions, file
 * names): any byte sequence, including invalid UTF-8 and control
 * characters, gives a valid JSON string.
 */
#ifndef CROUTE_JSON_H
#define CROUTE_JSON_H

#include <stdbool.h>
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

/*
 * Text the fabric supplies, for people (reports, logs, HTML): the length
 * of the character at s when it may be shown as it is (1..4), 0 for a
 * byte that must not be: a control character (C0, DEL, C1: a terminal
 * would act on it) or a byte that is not part of valid UTF-8.
 */
size_t cr_text_char_len(const unsigned char *s);
/*
 * s with each such byte as \xNN, into buf (truncated to fit; len > 0).
 * keep_nl keeps newlines and tabs (a log message's own layout). Returns
 * buf.
 */
const char *cr_text_safe(const char *s, char *buf, size_t len, bool keep_nl);
/*
 * The same bytes as spaces, as OpenSM and infiniband-diags clean node
 * descriptions: for files other tools read (topologies, LFT dumps). The
 * result is as long as s. Returns buf.
 */
const char *cr_text_clean(const char *s, char *buf, size_t len);

#endif
