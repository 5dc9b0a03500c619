/*
 * preload_change.c: an LD_PRELOAD library for tests/t0700-adversarial.sh that
 * plays a user saving a file while mpsfix works on it.  When mpsfix creates
 * the temporary file for DIR/NAME (mkstemp of "DIR/.NAME.mpsfix-XXXXXX"),
 * a line is first appended to DIR/NAME; mpsfix must then abandon its write.
 * Other calls of mkstemp are passed through untouched.
 *
 * For tests/t0300-git.sh it also plays a file system that refuses to write a
 * file: with MPSFIX_TEST_FAIL_CREATE=NAME in the environment, open() and
 * openat() of a path whose last component is NAME (or starts with "NAME."),
 * for writing, fail with EACCES.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int mkstemp(char *template);
int mkstemp64(char *template);
int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);

static const char suffix[] = ".mpsfix-XXXXXX";
static const char line[] = "# changed meanwhile\n";

static void change_original(const char *template)
{
	size_t n = strlen(template), k = sizeof(suffix) - 1;
	const char *slash, *base;
	char path[4096];
	int fd;

	if (n <= k || strcmp(template + n - k, suffix) != 0)
		return;
	slash = strrchr(template, '/');
	base = slash ? slash + 1 : template;
	if (base[0] != '.')
		return;
	/* DIR/.NAME.mpsfix-XXXXXX -> DIR/NAME */
	snprintf(path, sizeof(path), "%.*s%.*s", (int)(base - template), template,
		 (int)(template + n - k - (base + 1)), base + 1);
	if ((fd = open(path, O_WRONLY | O_APPEND)) < 0)
		return;
	if (write(fd, line, sizeof(line) - 1) < 0)
		perror(path);
	close(fd);
}

static int call_next(const char *name, char *template)
{
	int (*next)(char *) = (int (*)(char *))dlsym(RTLD_NEXT, name);

	change_original(template);
	return next ? next(template) : -1;
}

/* Is `path` one that MPSFIX_TEST_FAIL_CREATE names, opened for writing? */
static bool refused(const char *path, int flags)
{
	const char *name = getenv("MPSFIX_TEST_FAIL_CREATE"), *slash, *base;
	size_t n;

	if (!name || !*name || !path || !(flags & (O_WRONLY | O_RDWR | O_CREAT)))
		return false;
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	n = strlen(name);
	return !strncmp(base, name, n) && (base[n] == '\0' || base[n] == '.');
}

/* The real open (at: openat, with `dirfd`), unless the path is refused. */
static int open_next(const char *name, bool at, int dirfd, const char *path, int flags, mode_t mode)
{
	if (refused(path, flags)) {
		errno = EACCES;
		return -1;
	}
	if (!at) {
		int (*next)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);

		return next ? next(path, flags, mode) : -1;
	} else {
		int (*next)(int, const char *, int, ...) = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, name);

		return next ? next(dirfd, path, flags, mode) : -1;
	}
}

static mode_t mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return open_next("open", false, -1, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return open_next("open64", false, -1, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return open_next("openat", true, dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return open_next("openat64", true, dirfd, path, flags, mode);
}

int mkstemp(char *template)
{
	return call_next("mkstemp", template);
}

int mkstemp64(char *template)
{
	return call_next("mkstemp64", template);
}
