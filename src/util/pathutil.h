/*
 * pathutil.h: questions about a file's name alone, asked by modules that
 * cannot include each other (discover.c, and git_*.c which discover.c uses).
 */
#ifndef MPSFIX_PATHUTIL_H
#define MPSFIX_PATHUTIL_H

#include "common.h"

/** Is `name` a Python source by its name: ending in `.py` or `.pyi`, with something before the dot? */
bool mpsfix_is_python_path(const char *name);

#endif
