/*
 * modpath.h: the file of a project that an import names, found as Python
 * finds it: a package (`a/b/__init__.py`) before a module (`a/b.py`),
 * relative to the importing file's folder for `from ..a import b`, else
 * beside the importing file, in a folder above it up to the project's top,
 * or under the top's `src/`.  sys.path changes are not followed.
 */
#ifndef MPSFIX_MODPATH_H
#define MPSFIX_MODPATH_H

#include <stddef.h>

#include "common.h"

/** The folder of file `path` (a new string; "." for a bare name). */
char *mpsfix_modpath_dir(const char *path);

/**
 * The real path of the file that module `mod` (`len` bytes, dotted: "a.b";
 * empty for the package a relative import names alone) names when a file
 * of folder `dir` (a real path) imports it with `dots` leading dots, in
 * the project whose top is `root`; NULL when it is no file of the project.
 */
char *mpsfix_modpath_resolve(const char *dir, size_t dots, const char *mod, size_t len, const char *root);

/**
 * Is `file` the only module of the project that `mod` (no leading dots)
 * may name in a file of folder `dir`: the one found from `dir` and from
 * each folder above it up to `root` (`python -m pkg.run` from the top puts
 * the top first on sys.path, `python pkg/sub/run.py` its own folder)?
 */
bool mpsfix_modpath_only(const char *dir, const char *mod, size_t len, const char *root, const char *file);

#endif
