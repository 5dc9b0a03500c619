/* pathutil.c: paths: joining them, and what a name or a path is (see pathutil.h). */
#include "pathutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

bool mpsfix_is_python_path(const char *name)
{
	return ends_with(name, ".py") || ends_with(name, ".pyi");
}

char *mpsfix_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n > 0 && dir[n - 1] == '/')
		return mpsfix_xasprintf("%.*s%s", (int)n, dir, name);
	return mpsfix_xasprintf("%.*s/%s", (int)n, dir, name);
}

bool mpsfix_path_is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}
