// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The words of a topology file's lines: numbers in the bases ibsim and
 * ibnetdiscover print them in, rate words ("4xQDR"), ibsim's enable masks,
 * quoted ids and the LID/LMC/rate words that end a line. Each returns
 * where it stopped, so that the line parser (topo_lines.c) can go on.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

const char *topo_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* s starts with the word kw, followed by a blank or the end. */
const char *topo_word(const char *s, const char *kw)
{
	size_t n = strlen(kw);

	if (strncmp(s, kw, n) || (s[n] && s[n] != ' ' && s[n] != '\t'))
		return NULL;
	return s + n;
}

/* "kw=value" or "kw+value": returns the sign's position. */
const char *topo_assignment(const char *s, const char *kw)
{
	size_t n = strlen(kw);

	if (strncmp(s, kw, n))
		return NULL;
	s = topo_skip_ws(s + n);
	return *s == '=' || *s == '+' ? s : NULL;
}

int topo_parse_u64(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 0);
	if (errno || e == s)
		return -1;
	*end = e;
	return 0;
}

/* ibnetdiscover prints port GUIDs in hex without 0x: "(2c90200000001)". */
int topo_parse_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 16);
	if (errno || e == s)
		return -1;
	*end = e;
	return 0;
}

/*
 * ibnetdiscover prints LIDs, LMCs and port numbers in decimal: "0200" is
 * 200, not octal 128. Hand-written files may give them in hex, with 0x.
 */
int topo_parse_dec(const char *s, const char **end, unsigned long max,
		   unsigned long *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long x;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &e, hex ? 16 : 10);
	if (errno || x > max)
		return -1;
	*v = (unsigned long)x;
	*end = e;
	return 0;
}

int topo_parse_uint(const char *s, const char **end, unsigned long max,
		    unsigned long *v)
{
	uint64_t x;

	if (topo_parse_u64(s, end, &x) || x > max)
		return -1;
	*v = (unsigned long)x;
	return 0;
}

/*
 * "4xQDR" and friends: 1 a rate (ibnetdiscover's "4x???" an unknown speed),
 * 0 not a rate ("0x1f", "2x"), -1 a rate word no link runs at ("4xQDX",
 * "3xQDR"), which must not pass for the file's default.
 */
static int parse_rate(const char *s, size_t len, uint8_t *width,
		      enum cr_speed *speed)
{
	size_t i = 0, q = 0;
	unsigned w = 0;
	enum cr_speed sp;

	while (i < len && isdigit((unsigned char)s[i]) && w < 100)
		w = w * 10 + (s[i++] - '0');
	if (!i || i + 1 >= len || (s[i] != 'x' && s[i] != 'X'))
		return 0;
	sp = cr_speed_parse(s + i + 1, len - i - 1);
	while (i + 1 + q < len && s[i + 1 + q] == '?')
		q++;
	if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
		return sp == CR_SPEED_UNKNOWN ? 0 : -1;
	if (sp == CR_SPEED_UNKNOWN && i + 1 + q < len)
		return -1;
	*width = w;
	*speed = sp;
	return 1;
}

int topo_scan_tail(struct reader *rd, const char *s, const char *e,
		   struct tail *t)
{
	while (s < e) {
		const char *w, *end;
		unsigned long v;

		while (s < e && isspace((unsigned char)*s))
			s++;
		w = s;
		while (s < e && !isspace((unsigned char)*s))
			s++;
		if (s == w)
			break;
		if ((s - w == 3 && !strncmp(w, "lid", 3)) ||
		    (s - w == 3 && !strncmp(w, "lmc", 3))) {
			bool is_lid = w[1] == 'i';
			const char *num = topo_skip_ws(s);

			if (num >= e || topo_parse_dec(num, &end,
						       is_lid ? CR_MAX_UCAST_LID
							      : CR_MAX_LMC,
						       &v)) {
				rd_err(rd, "bad %s value",
				       is_lid ? "LID" : "LMC");
				return -1;
			}
			s = end;
			if (!is_lid) {
				t->has_lmc = true;
				t->lmc = v;
			} else if (t->nlids < 2) {
				t->lid[t->nlids++] = v;
			}
			continue;
		}
		if (!t->width &&
		    parse_rate(w, s - w, &t->width, &t->speed) < 0) {
			rd_err(rd,
			       "unknown link rate \"%.*s\" (widths 1x, 2x,"
			       " 4x, 8x, 12x; speeds SDR, DDR, QDR, FDR10,"
			       " FDR, EDR, HDR, NDR, XDR)",
			       (int)(s - w), w);
			return -1;
		}
	}
	return 0;
}

/* ibsim's enable masks: the fastest setting a mask allows. */
uint8_t topo_width_of_mask(unsigned long m)
{
	if (m & 8)
		return 12;
	if (m & 4)
		return 8;
	if (m & 2)
		return 4;
	if (m & 16)
		return 2;
	return m & 1 ? 1 : 0;
}

enum cr_speed topo_speed_of_mask(unsigned long m, unsigned long ext)
{
	if (ext & 4)
		return CR_SPEED_HDR;
	if (ext & 2)
		return CR_SPEED_EDR;
	if (ext & 1)
		return CR_SPEED_FDR;
	if (m & 4)
		return CR_SPEED_QDR;
	if (m & 2)
		return CR_SPEED_DDR;
	return m & 1 ? CR_SPEED_SDR : CR_SPEED_UNKNOWN;
}

/* The quoted string at s ("..."): copies it out, returns past the quote. */
const char *topo_quoted(struct reader *rd, const char *s, char **out,
			const char *what)
{
	const char *e;

	if (*s != '"' || !(e = strchr(s + 1, '"'))) {
		rd_err(rd, "expected %s in double quotes", what);
		return NULL;
	}
	*out = strndup(s + 1, e - s - 1);
	if (!*out) {
		rd_err(rd, "out of memory");
		return NULL;
	}
	return e + 1;
}

int topo_check_id(struct reader *rd, const char *id)
{
	if (!*id) {
		rd_err(rd, "empty node id");
		return -1;
	}
	if (strchr(id, '@') || strchr(id, '#')) {
		rd_err(rd,
		       "node id \"%s\": '@' (ibsim aliases) and '#' are"
		       " not supported in ids",
		       id);
		return -1;
	}
	return 0;
}
