// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Slurm's hostlist syntax, expanded (include/croute/io/jobs.h): the
 * plugin reads SLURM_JOB_NODELIST as Slurm wrote it, with no scontrol to
 * ask. Each bracket group multiplies the names, so the count is checked
 * name by name against the caller's limit: a hostile "[0-999999999]"
 * stops at the limit instead of running on.
 */
#include <stdint.h>
#include <string.h>

#include <croute/io/jobs.h>

/* Numbers in brackets: at most this many digits (no uint64 overflow). */
#define NUM_DIGITS_MAX 18

struct hl_exp {
	const char *s;
	size_t max, count;
	int (*fn)(void *arg, const char *name, size_t len);
	void *arg;
	const char **why;
	char buf[CR_HOSTLIST_NAME_MAX];
};

static int bad(struct hl_exp *x, const char *why)
{
	*x->why = why;
	return -1;
}

/* Digits from *pos up to a non-digit: their value and count. */
static size_t digits(const char *s, size_t *pos, size_t end, uint64_t *v)
{
	size_t n = 0;

	*v = 0;
	while (*pos < end && s[*pos] >= '0' && s[*pos] <= '9' &&
	       n < NUM_DIGITS_MAX + 1) {
		*v = *v * 10 + (uint64_t)(s[*pos] - '0');
		(*pos)++;
		n++;
	}
	return n;
}

static int expand_from(struct hl_exp *x, size_t pos, size_t end, size_t blen);

/* v written in width digits at least, then the rest of the name. */
static int put_num(struct hl_exp *x, uint64_t v, size_t width, size_t close,
		   size_t end, size_t blen)
{
	char num[NUM_DIGITS_MAX + 2];
	size_t n = 0;

	do {
		num[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		num[n++] = '0';
	if (blen + n >= sizeof(x->buf))
		return bad(x, "a name longer than 255 characters");
	for (size_t i = 0; i < n; i++)
		x->buf[blen + i] = num[n - 1 - i];
	return expand_from(x, close + 1, end, blen + n);
}

/* The bracket group s[open..close]: each number, then the rest. */
static int group(struct hl_exp *x, size_t open, size_t close, size_t end,
		 size_t blen)
{
	size_t pos = open + 1;

	for (;;) {
		uint64_t lo, hi;
		size_t w = digits(x->s, &pos, close, &lo);
		int rc;

		if (!w)
			return bad(x, "a bracket holds something other than"
				      " numbers and ranges");
		if (w > NUM_DIGITS_MAX)
			return bad(x, "a number in brackets is too long");
		hi = lo;
		if (pos < close && x->s[pos] == '-') {
			size_t hw;

			pos++;
			hw = digits(x->s, &pos, close, &hi);
			if (!hw || hw > NUM_DIGITS_MAX)
				return bad(x, "a range without its end");
			if (hi < lo)
				return bad(x, "a range that runs backwards");
		}
		if (pos < close && x->s[pos] != ',')
			return bad(x, "a bracket holds something other than"
				      " numbers and ranges");
		for (uint64_t v = lo;; v++) {
			rc = put_num(x, v, w, close, end, blen);
			if (rc || v == hi)
				break;
		}
		if (rc)
			return rc;
		if (pos == close)
			return 0;
		pos++; /* the comma */
	}
}

static int expand_from(struct hl_exp *x, size_t pos, size_t end, size_t blen)
{
	size_t close;

	while (pos < end && x->s[pos] != '[') {
		if (x->s[pos] == ']')
			return bad(x, "a ']' without its '['");
		if (blen + 1 >= sizeof(x->buf))
			return bad(x, "a name longer than 255 characters");
		x->buf[blen++] = x->s[pos++];
	}
	if (pos == end) {
		if (!blen)
			return bad(x, "an empty name");
		if (++x->count > x->max)
			return bad(x, "more names than the fabric has hosts");
		return x->fn(x->arg, x->buf, blen);
	}
	for (close = pos + 1; close < end && x->s[close] != ']'; close++)
		if (x->s[close] == '[')
			return bad(x, "brackets inside brackets");
	if (close == end)
		return bad(x, "a '[' without its ']'");
	return group(x, pos, close, end, blen);
}

int cr_hostlist_expand(const char *list, size_t len, size_t max,
		       int (*fn)(void *arg, const char *name, size_t len),
		       void *arg, const char **why)
{
	struct hl_exp x = {.s = list, .max = max, .fn = fn, .arg = arg};
	size_t start = 0;
	int depth = 0;

	x.why = why;
	*why = NULL;
	for (size_t i = 0; i <= len; i++) {
		int rc;

		if (i < len && list[i] == '[')
			depth++;
		else if (i < len && list[i] == ']')
			depth--;
		if (i < len && (list[i] != ',' || depth > 0))
			continue;
		if (i == start)
			return bad(&x, "an empty name between commas");
		rc = expand_from(&x, start, i, 0);
		if (rc)
			return rc;
		start = i + 1;
	}
	return 0;
}
