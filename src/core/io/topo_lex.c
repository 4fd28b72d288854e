// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The words and numbers of topology lines, as ibnetdiscover and ibsim's
 * net files write them: keywords, assignments, GUIDs, decimal LIDs and
 * link rates. Each returns where the text it read ends, and refuses
 * rather than guesses.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo_lex.h"

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
int topo_parse_rate(const char *s, size_t len, uint8_t *width,
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
