// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * JSON string escaping, and text for people and for other tools
 * (include/croute/model/json.h). Node descriptions come
 * from the fabric's devices, 64 bytes with no encoding promised: a byte
 * that is not part of valid UTF-8 would make the whole report invalid
 * JSON, so it is written as the code point of its Latin-1 reading.
 */
#include <stdint.h>

#include <croute/model/json.h>

size_t cr_utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also stops at the terminating NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void cr_json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		size_t n = cr_utf8_len(p);

		if (*p == '"' || *p == '\\') {
			fputc('\\', out);
			fputc(*p, out);
		} else if (!n || *p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\u%04x", *p);
			n = 1;
		} else {
			fwrite(p, 1, n, out);
		}
		p += n ? n : 1;
	}
	fputc('"', out);
}

size_t cr_text_char_len(const unsigned char *s)
{
	size_t n = cr_utf8_len(s);

	if (!n || *s < 0x20 || *s == 0x7f)
		return 0;
	/* U+0080..U+009F, C1 controls (0x9b is CSI to some terminals). */
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	return n;
}

const char *cr_text_safe(const char *s, char *buf, size_t len, bool keep_nl)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p) {
		size_t n = cr_text_char_len(p);

		if (keep_nl && (*p == '\n' || *p == '\t'))
			n = 1;
		if (n) {
			if (o + n >= len)
				break;
			for (size_t i = 0; i < n; i++)
				buf[o++] = (char)p[i];
			p += n;
			continue;
		}
		if (o + 4 >= len)
			break;
		buf[o++] = '\\';
		buf[o++] = 'x';
		buf[o++] = hex[*p >> 4];
		buf[o++] = hex[*p & 15];
		p++;
	}
	buf[o] = '\0';
	return buf;
}

const char *cr_text_clean(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p && o + 1 < len) {
		size_t n = cr_text_char_len(p);

		if (!n || o + n >= len) {
			buf[o++] = ' ';
			p++;
			continue;
		}
		while (n--)
			buf[o++] = (char)*p++;
	}
	buf[o] = '\0';
	return buf;
}
