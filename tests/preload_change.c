/*
 * preload_change.c: an LD_PRELOAD library for tests/t0700-adversarial.sh that
 * plays a user saving a file while mpsfix works on it.  When mpsfix creates
 * the temporary file for DIR/NAME (mkstemp of "DIR/.NAME.mpsfix-XXXXXX"),
 * a line is first appended to DIR/NAME; mpsfix must then abandon its write.
 * Other calls of mkstemp are passed through untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int mkstemp(char *template);
int mkstemp64(char *template);

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

int mkstemp(char *template)
{
	return call_next("mkstemp", template);
}

int mkstemp64(char *template)
{
	return call_next("mkstemp64", template);
}
