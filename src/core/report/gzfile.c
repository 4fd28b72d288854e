// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * gzip files for the command: registered with cr_file_set_gz(), after
 * which every reader that opens its input through cr_file_open_read()
 * (topologies, LFT dumps, guid2lid, subnet lists) takes gzip-compressed
 * files, and cr_file_create() compresses outputs whose name ends in .gz.
 * It lives in the report group, linked into croute(1) only, so that
 * libcroute.so does not depend on zlib (tests/layers.sh). zlib's stream is
 * wrapped in a stdio FILE (fopencookie), so the readers and writers stay
 * plain stdio. Level 1 because even the fastest level compresses an LFT
 * dump about 30-fold, and the dumps are large: 6 GB of text for 27,648
 * hosts (croute gen fat-tree 48 | croute route -t - | gzip -1 | wc -c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <croute/report/gzfile.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

static ssize_t gz_read(void *cookie, char *buf, size_t n)
{
	int got = gzread(cookie, buf, n > INT_MAX ? INT_MAX : (unsigned)n);

	if (got < 0) {
		errno = EIO;
		return -1;
	}
	return got;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		unsigned chunk =
			n - done > INT_MAX ? INT_MAX : (unsigned)(n - done);
		int put = gzwrite(cookie, buf + done, chunk);

		if (put <= 0) {
			errno = EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)put;
	}
	return (ssize_t)n;
}

/* Readers rewind to sniff formats: gzseek emulates it on input. */
static int gz_seek(void *cookie, off64_t *pos, int whence)
{
	z_off_t at;

	if (whence == SEEK_END) {
		errno = EINVAL;
		return -1;
	}
	at = gzseek(cookie, (z_off_t)*pos, whence);
	if (at < 0) {
		errno = EINVAL;
		return -1;
	}
	*pos = at;
	return 0;
}

static int gz_close(void *cookie)
{
	if (gzclose(cookie) != Z_OK) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static FILE *wrap(int fd, const char *path, bool write)
{
	gzFile g = gzdopen(fd, write ? "wb1" : "rb");
	cookie_io_functions_t io = {
		.read = write ? NULL : gz_read,
		.write = write ? gz_write : NULL,
		.seek = write ? NULL : gz_seek,
		.close = gz_close,
	};
	FILE *fp;

	if (!g) {
		cr_err("%s: cannot open as gzip", path);
		close(fd);
		return NULL;
	}
	gzbuffer(g, 1u << 17);
	fp = fopencookie(g, write ? "w" : "r", io);
	if (!fp) {
		cr_err("%s: %s", path, strerror(errno));
		gzclose(g);
		return NULL;
	}
	/* Large stdio buffers: fewer calls into zlib. */
	setvbuf(fp, NULL, _IOFBF, 1u << 16);
	return fp;
}

static FILE *gz_open_read(int fd, const char *path)
{
	return wrap(fd, path, false);
}

static FILE *gz_open_write(int fd, const char *path)
{
	return wrap(fd, path, true);
}

void cr_gz_register(void)
{
	static const struct cr_gz_ops ops = {
		.open_read = gz_open_read,
		.open_write = gz_open_write,
	};

	cr_file_set_gz(&ops);
}
