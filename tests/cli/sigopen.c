// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An LD_PRELOAD shim for tests/cli/exits.sh: SIGTERM the process the
 * moment open() has made a temporary output file (a name with ".tmp."),
 * before the caller has done anything else. A signal there is rare in a
 * real run, so a test that only sends signals from outside seldom hits
 * it; with the shim every run does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

typedef int (*open_fn)(const char *, int, ...);

static int opened(int fd, const char *path, int flags)
{
	if (fd >= 0 && (flags & O_CREAT) && strstr(path, ".tmp."))
		raise(SIGTERM);
	return fd;
}

static mode_t mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, "open");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return opened(real(path, flags, mode), path, flags);
}

int open64(const char *path, int flags, ...)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, "open64");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return opened(real(path, flags, mode), path, flags);
}
