/*
 * modpath.c: which file of a project an import names (see modpath.h).
 */
#include "modpath.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The folder of file `path` (a new string). */
char *mpsfix_modpath_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? mpsfix_xstrndup(path, (size_t)(slash - path)) : mpsfix_xstrdup(".");
}

/* The real path of dir/a/b.py or dir/a/b/__init__.py for module `mod` ("a.b"; "": the package dir). */
static char *module_file(const char *dir, const char *mod, size_t len)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *real = NULL;
	struct stat st;
	size_t base;

	mpsfix_buf_adds(&b, dir);
	if (len) {
		mpsfix_buf_addc(&b, '/');
		for (size_t i = 0; i < len; i++)
			mpsfix_buf_addc(&b, mod[i] == '.' ? '/' : mod[i]);
	}
	base = b.len;
	/* a package comes before a module of the same name, as Python finds them */
	mpsfix_buf_adds(&b, "/__init__.py");
	if (stat(b.data, &st) == 0 && S_ISREG(st.st_mode))
		real = realpath(b.data, NULL);
	if (!real && len) {
		b.len = base;
		mpsfix_buf_adds(&b, ".py");
		if (stat(b.data, &st) == 0 && S_ISREG(st.st_mode))
			real = realpath(b.data, NULL);
	}
	mpsfix_buf_release(&b);
	return real;
}

/*
 * The file of module `mod` imported with `dots` leading dots from a file of
 * folder `dir` (a real path) in the project at `root`: relative to the
 * folder, or (no dots) beside the file, in a folder above it up to the
 * project's top, or under the top's src/.  NULL: not a module of the
 * project.
 */
char *mpsfix_modpath_resolve(const char *dir, size_t dots, const char *mod, size_t len, const char *root)
{
	char *d = mpsfix_xstrdup(dir), *file = NULL, *slash;
	size_t rootlen = strlen(root);

	if (dots) {
		for (size_t i = 1; i < dots && (slash = strrchr(d, '/')) && slash != d; i++)
			*slash = '\0';
		file = module_file(d, mod, len);
	} else if (len) {
		for (;;) {
			if ((file = module_file(d, mod, len)) || strlen(d) <= rootlen || !(slash = strrchr(d, '/')))
				break;
			*slash = '\0';
		}
		if (!file) {
			char *src = mpsfix_xasprintf("%s/src", root);

			file = module_file(src, mod, len);
			free(src);
		}
	}
	free(d);
	if (file && (strncmp(file, root, rootlen) || file[rootlen] != '/')) {
		free(file);
		file = NULL;
	}
	return file;
}

bool mpsfix_modpath_only(const char *dir, const char *mod, size_t len, const char *root, const char *file)
{
	char *d = mpsfix_xstrdup(dir), *slash, *r;
	size_t rootlen = strlen(root);
	bool only = true;

	for (;;) {
		r = mpsfix_modpath_resolve(d, 0, mod, len, root);
		only = !r || !strcmp(r, file);
		free(r);
		if (!only || strlen(d) <= rootlen || !(slash = strrchr(d, '/')))
			break;
		*slash = '\0';
	}
	free(d);
	return only;
}
