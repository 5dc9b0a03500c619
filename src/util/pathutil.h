/*
 * pathutil.h: paths: joining them, and what a name or a path is (a leaf
 * module, used from every part of mpsfix).
 */
#ifndef MPSFIX_PATHUTIL_H
#define MPSFIX_PATHUTIL_H

#include "common.h"

/** Is `name` a Python source by its name: ending in `.py`, `.pyi` or `.ipynb` (a notebook), with something before the dot? */
bool mpsfix_is_python_path(const char *name);

/** `dir/name`, with no doubled slash however many `dir` ends with (newly allocated). */
char *mpsfix_path_join(const char *dir, const char *name);

/** Whether `path` is a folder (symbolic links followed). */
bool mpsfix_path_is_dir(const char *path);

/**
 * `path` as seen from the current folder, newly allocated: relative
 * ("requirements.txt", "../../setup.py", "proj/pyproject.toml"), or as
 * given when it cannot be resolved.
 */
char *mpsfix_path_from_cwd(const char *path);

#endif
