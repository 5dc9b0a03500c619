/* pathutil.c: questions about a file's name alone (see pathutil.h). */
#include "pathutil.h"

#include <string.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

bool mpsfix_is_python_path(const char *name)
{
	return ends_with(name, ".py") || ends_with(name, ".pyi");
}
