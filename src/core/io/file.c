// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Output files appear whole or not at all: everything is written under a
 * temporary name beside the target and renamed over it at the end, so a
 * reader (OpenSM, a test, a second croute) never sees half a file and a
 * failure leaves the old file in place. A path that exists and is no
 * regular file (/dev/null, a FIFO, a terminal) is written in place: a
 * rename would replace the device with a regular file (as root, /dev/null
 * for everyone) and fill memory with a temporary copy beside it. A
 * symlink's target is written, not the link, and a file rewritten keeps
 * its mode. A signal that ends the command leaves no temporary behind
 * (cr_file_remove_pending). Input files are opened through
 * cr_file_open_read(), which refuses directories.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memrchr */
#endif
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <croute/model/log.h>
#include <croute/io/topo.h>

static const struct cr_gz_ops *gz_ops;

/*
 * Temporary files being written, for a signal handler to remove; slots
 * are claimed atomically, as the plugin's threads write files too.
 */
#define PENDING_MAX 16
static char *pending[PENDING_MAX];

static void pending_add(char *tmp)
{
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		char *none = NULL;

		if (__atomic_compare_exchange_n(&pending[i], &none, tmp, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

static void pending_del(char *tmp)
{
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		char *want = tmp;

		if (__atomic_compare_exchange_n(&pending[i], &want, NULL, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

void cr_file_remove_pending(void)
{
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		char *tmp = __atomic_load_n(&pending[i], __ATOMIC_SEQ_CST);

		if (tmp && *tmp)
			unlink(tmp);
	}
}

/* The file a temporary name stands for: up to its last ".tmp.". */
static char *target_of(const char *tmp)
{
	const char *dot = NULL;

	for (const char *p = strstr(tmp, ".tmp."); p;
	     p = strstr(p + 1, ".tmp."))
		dot = p;
	return dot ? strndup(tmp, dot - tmp) : strdup(tmp);
}

void cr_file_set_gz(const struct cr_gz_ops *ops)
{
	gz_ops = ops;
}

/* Whether path names a gzip output (ends in ".gz"). */
static bool is_gz_path(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && !strcmp(path + n - 3, ".gz");
}

FILE *cr_file_open_read(const char *path)
{
	struct stat st;
	FILE *in = fopen(path, "r");

	if (!in) {
		cr_err("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!fstat(fileno(in), &st) && S_ISDIR(st.st_mode)) {
		cr_err("%s: is a directory, not a file", path);
		fclose(in);
		return NULL;
	}
	if (!S_ISREG(st.st_mode))
		return in;
	return cr_file_read_gz(in, path);
}

FILE *cr_file_read_gz(FILE *in, const char *path)
{
	unsigned char magic[2];
	int fd;

	/* gzip by content, not by name: the magic bytes 1f 8b. */
	if (fread(magic, 1, 2, in) != 2 || magic[0] != 0x1f ||
	    magic[1] != 0x8b) {
		rewind(in);
		return in;
	}
	if (!gz_ops) {
		cr_err("%s: is gzip-compressed: only croute(1) reads those",
		       path);
		fclose(in);
		return NULL;
	}
	fd = dup(fileno(in));
	fclose(in);
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		cr_err("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return gz_ops->open_read(fd, path);
}

int cr_read_end(FILE *in, const char *path, size_t count, const char *none)
{
	if (ferror(in)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		return -1;
	}
	if (!count) {
		cr_err("%s: %s", path, none);
		return -1;
	}
	return 0;
}

ssize_t cr_getline(char **buf, size_t *cap, FILE *in, const char *path,
		   unsigned line, int *err)
{
	size_t len = 0;

	for (;;) {
		if (*cap - len < 2 || !*buf) {
			size_t want = *cap < 256 ? 256 : 2 * *cap;
			char *b;

			if (*cap >= CR_LINE_MAX) {
				cr_err("%s:%u: a line longer than %u bytes (not"
				       " a text file of croute's?)",
				       path, line, CR_LINE_MAX);
				*err = -1;
				return -1;
			}
			b = realloc(*buf, want);
			if (!b) {
				cr_err("%s:%u: out of memory", path, line);
				*err = -1;
				return -1;
			}
			*buf = b;
			*cap = want;
		}
		/*
		 * A read error is the caller's to report (ferror). The fill
		 * finds fgets' own terminator: a NUL byte inside the line
		 * would else hide the rest of it and join the next line.
		 */
		memset(*buf + len, 'x', *cap - len);
		if (!fgets(*buf + len, (int)(*cap - len), in)) {
			/* the fill above overwrote the last read's terminator */
			(*buf)[len] = '\0';
			return len && !ferror(in) ? (ssize_t)len : -1;
		}
		{
			size_t got = strlen(*buf + len);
			const char *term = memrchr(*buf + len, 0, *cap - len);

			if (term != *buf + len + got) {
				cr_err("%s:%u: a NUL byte (not a text file?)",
				       path, line);
				*err = -1;
				return -1;
			}
			len += got;
		}
		if ((len && (*buf)[len - 1] == '\n') || feof(in))
			return (ssize_t)len;
	}
}

FILE *cr_file_create(const char *path, char **tmp_path)
{
	/* Shared by the sweeper and the estimate thread: atomic. */
	static unsigned serial;
	struct stat st, lst;
	char *real = NULL;
	const char *target = path;
	size_t len;
	char *tmp;
	FILE *fp;
	int fd = -1;
	bool keep_mode;

	*tmp_path = NULL;
	/* A symlink's target is rewritten; the link stays. */
	if (!lstat(path, &lst) && S_ISLNK(lst.st_mode) &&
	    (real = realpath(path, NULL)))
		target = real;
	len = strlen(target) + 64;
	tmp = malloc(len);
	if (!tmp) {
		cr_err("%s: out of memory", path);
		free(real);
		return NULL;
	}
	/* "" as the temporary name: written in place, nothing to rename. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
	    !is_gz_path(path)) {
		fp = fopen(path, "w");
		if (!fp) {
			cr_err("%s: cannot write: %s", path, strerror(errno));
			free(tmp);
			return NULL;
		}
		tmp[0] = '\0';
		*tmp_path = tmp;
		free(real);
		return fp;
	}
	keep_mode = !stat(target, &st) && S_ISREG(st.st_mode);
	/*
	 * The pid and a counter keep concurrent writers of one path apart.
	 * The name is pending before the file exists: a signal between the
	 * two then removes it, where the other order would leave it behind.
	 */
	for (unsigned tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(tmp, len, "%s.tmp.%ld.%u", target, (long)getpid(),
			 __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
		pending_add(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0) {
			int e = errno;

			pending_del(tmp);
			errno = e;
			if (e != EEXIST)
				break;
		}
	}
	free(real);
	if (fd < 0) {
		cr_err("%s: cannot create: %s", path, strerror(errno));
		free(tmp);
		return NULL;
	}
	if (keep_mode && fchmod(fd, st.st_mode & 07777))
		cr_debug("%s: cannot keep its mode: %s", path, strerror(errno));
	if (is_gz_path(path) && !gz_ops) {
		cr_err("%s: gzip output needs croute(1)", path);
		fp = NULL;
	} else {
		fp = is_gz_path(path) ? gz_ops->open_write(fd, path)
				      : fdopen(fd, "w");
		if (!fp)
			cr_err("%s: %s", tmp, strerror(errno));
	}
	if (!fp) {
		close(fd);
		unlink(tmp);
		pending_del(tmp);
		free(tmp);
		return NULL;
	}
	*tmp_path = tmp;
	return fp;
}

int cr_file_commit(FILE *fp, char *tmp_path, const char *path)
{
	char *target = NULL;
	int err = 0;

	errno = 0;
	if (fflush(fp) || ferror(fp))
		err = errno ? errno : EIO;
	if (fclose(fp) && !err)
		err = errno ? errno : EIO;
	if (!err && *tmp_path && !(target = target_of(tmp_path)))
		err = ENOMEM;
	if (!err && *tmp_path && rename(tmp_path, target))
		err = errno;
	if (err) {
		cr_err("%s: cannot write: %s", path, strerror(err));
		if (*tmp_path)
			unlink(tmp_path);
	}
	pending_del(tmp_path);
	free(target);
	free(tmp_path);
	return err ? -1 : 0;
}

void cr_file_abort(FILE *fp, char *tmp_path)
{
	if (fp)
		fclose(fp);
	if (tmp_path) {
		if (*tmp_path)
			unlink(tmp_path);
		pending_del(tmp_path);
		free(tmp_path);
	}
}
