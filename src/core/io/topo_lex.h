/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Words and numbers of topology lines (topo_lex.c). */
#ifndef CROUTE_IO_TOPO_LEX_H
#define CROUTE_IO_TOPO_LEX_H

#include <stddef.h>
#include <stdint.h>

#include <croute/fabric.h>

/* Past the blanks (spaces, tabs) at s. */
const char *topo_skip_ws(const char *s);
/* s starts with the word kw, followed by a blank or the end: past it. */
const char *topo_word(const char *s, const char *kw);
/* "kw=value" or "kw+value": the sign's position, else NULL. */
const char *topo_assignment(const char *s, const char *kw);
/* A number in C's bases (0x hex, 0 octal); -1 when none or too large. */
int topo_parse_u64(const char *s, const char **end, uint64_t *v);
/* Hex digits without 0x, as ibnetdiscover prints port GUIDs. */
int topo_parse_hex(const char *s, const char **end, uint64_t *v);
/* Decimal (or 0x hex) up to max: LIDs, LMCs and port numbers. */
int topo_parse_dec(const char *s, const char **end, unsigned long max,
		   unsigned long *v);
/* topo_parse_u64 up to max. */
int topo_parse_uint(const char *s, const char **end, unsigned long max,
		    unsigned long *v);
/*
 * A rate word ("4xQDR"): 1 a rate, 0 not a rate, -1 a rate word no link
 * runs at.
 */
int topo_parse_rate(const char *s, size_t len, uint8_t *width,
		    enum cr_speed *speed);

#endif
