/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the HTML report's files share (src/core/report/). */
#ifndef CROUTE_HTML_INT_H
#define CROUTE_HTML_INT_H

#include <stdio.h>

#include <croute/estimate/estimate.h>
#include <croute/model/json.h>

/*
 * Text with <, >, & and " escaped, and what a page must not hold as it is
 * (control characters, bytes that are not UTF-8) as \\xNN.
 */
static inline void cr_html_put(FILE *out, const char *s)
{
	while (*s) {
		size_t n = cr_text_char_len((const unsigned char *)s);

		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			/* Control characters and stray bytes, visibly. */
			if (!n)
				fprintf(out, "\\x%02x", (unsigned char)*s);
			else
				fwrite(s, 1, n, out);
		}
		s += n ? n : 1;
	}
}
/*
 * Node n as every cell and tooltip names it: its description, its node
 * GUID, and the LID of port (0 for a switch) when it has one, since
 * descriptions alone are often shared.
 */
void cr_html_node(FILE *out, const struct cr_fabric *f, uint32_t n,
		  unsigned port);
/*
 * The fabric's links coloured by their load on pattern r: a table of
 * directed links by level pair and load (any size), and a drawing of the
 * switches by level when the fabric is small enough to read.
 */
void cr_html_links(FILE *out, const struct cr_fabric *f,
		   const struct cr_est_result *r);

#endif
