/* pathutil.c: paths: joining them, what a path is, how the current folder sees it (pathutil.h). */
#include "pathutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

bool mpsfix_is_python_path(const char *name)
{
	return ends_with(name, ".py") || ends_with(name, ".pyi") || ends_with(name, ".ipynb");
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

/*
 * `path` as seen from the current folder: relative ("requirements.txt",
 * "../../setup.py", "proj/pyproject.toml"), or as given when it cannot be
 * resolved.
 */
char *mpsfix_path_from_cwd(const char *path)
{
	char *real = realpath(path, NULL), *cwd = realpath(".", NULL);
	mpsfix_buf b = MPSFIX_BUF_INIT;
	const char *rp, *cp;

	if (!real || !cwd) {
		free(real);
		free(cwd);
		return mpsfix_xstrdup(path);
	}
	/* both are absolute: step over the folders they share */
	rp = real + 1;
	cp = cwd + 1;
	while (*rp && *cp) {
		size_t rn = strcspn(rp, "/"), cn = strcspn(cp, "/");

		if (rn != cn || strncmp(rp, cp, rn) != 0)
			break;
		rp += rn + (rp[rn] == '/');
		cp += cn + (cp[cn] == '/');
	}
	/* then up from the current folder, and down to the path */
	while (*cp) {
		size_t cn = strcspn(cp, "/");

		mpsfix_buf_adds(&b, "../");
		cp += cn + (cp[cn] == '/');
	}
	mpsfix_buf_adds(&b, rp);
	if (b.len && b.data[b.len - 1] == '/')
		b.data[--b.len] = '\0';
	if (!b.len)
		mpsfix_buf_adds(&b, ".");
	free(real);
	free(cwd);
	return mpsfix_buf_detach(&b, NULL);
}
