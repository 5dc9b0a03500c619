/*
 * fix_import.h: where a fix puts the `import ROOT` line it adds when a
 * template's dotted name is not reachable through the file's imports yet.
 */
#ifndef MPSFIX_FIX_IMPORT_H
#define MPSFIX_FIX_IMPORT_H

#include "common.h"
#include "names.h"

/**
 * Where an `import ROOT` line goes so that it runs before the top-level
 * statement holding byte `before`: at the start of the line after the last
 * top-level import (`import`, `from ... import`, `from __future__`) that
 * starts before it; else after the module docstring; else after the leading
 * comment lines (shebang, coding line, licence header) and blank lines;
 * else 0.  Returns the byte offset; *needs_newline is set when that offset
 * is the end of a file whose last line has no line ending (the caller then
 * writes a line ending first).
 */
uint32_t mpsfix_fix_import_point(mpsfix_names *names, uint32_t before, bool *needs_newline);

#endif
