/*
 * stdlib_names.h: is a module one of Python's standard library (the
 * top-level names of sys.stdlib_module_names)?
 */
#ifndef MPSFIX_STDLIB_NAMES_H
#define MPSFIX_STDLIB_NAMES_H

#include <stdbool.h>

/** True when top-level module `name` ("os", "contextlib", not "os.path") is in the standard library. */
bool mpsfix_stdlib_module(const char *name);

#endif
