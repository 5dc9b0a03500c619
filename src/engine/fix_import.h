/*
 * fix_import.h: where a fix puts the `import ROOT` lines it adds when a
 * template's dotted names are not reachable through the file's imports yet:
 * where isort and ruff (rule I001, default settings) would sort them.
 */
#ifndef MPSFIX_FIX_IMPORT_H
#define MPSFIX_FIX_IMPORT_H

#include "common.h"
#include "names.h"

/** One edit that adds import lines: text replaces the bytes [start, end). */
typedef struct {
	uint32_t start, end;
	char *text; /* owned */
} mpsfix_import_edit;

/**
 * The edits that add `import MODULE` for each of the `n` top-level modules
 * (`torch`, `contextlib`) so that each runs before the top-level statement
 * holding byte `before`; lines end in `nl`.  Writes at most `n` edits to
 * `out` and returns their number.
 *
 * The file's top import block (after the docstring and leading comments,
 * up to the first top-level statement that is neither an import nor an `if
 * TYPE_CHECKING:` block nor a try block of imports, and never past the
 * statement holding `before`) is read as isort groups, separated by blank
 * lines: `from __future__`, standard library, relative (local), and the
 * others.  A module goes at its sorted place (`import x` lines before `from
 * x import y` lines, names compared case-insensitively in natural order)
 * into: the group of the first top-level import of the module or of one of
 * its submodules before `before`, wherever it is (so that nothing that used
 * to run before the module is imported runs after it now); else, for a
 * standard-library module, the standard-library group; else the first group
 * that is neither standard library, `__future__` nor local (third party, in
 * a sorted file).  With no such group, a new group starts, one blank line
 * away: the standard library's after `from __future__` and before all else,
 * the others' after the standard library's and before the local group.
 * With no import block at all, the block starts at the first statement
 * after the docstring and leading comments, followed by the blank lines
 * ruff asks for (two before a function or class, else one).
 *
 * An edit replaces the line ending before its lines (or the first byte of
 * the import after them), so that two fixes that add different imports at
 * one place overlap: the later one waits for the next pass, where it sees
 * the first one's import.  The modules of one call that go to one place
 * share one edit.  A file whose last line has no line ending gets one
 * before the import.
 *
 * `cells`: the text is a notebook's (notebook.h), whose cells isort sorts
 * one by one: a cell line ends a group, and the comments at a cell's start
 * stay below its cell line.  So the module goes into the group of a cell
 * that imports it (or one of its submodules), else into the first cell's
 * import block, else on a new line at the top of the first code cell.
 */
size_t mpsfix_fix_import_edits(mpsfix_names *names, uint32_t before, const char *const *modules, size_t n,
			       const char *nl, bool cells, mpsfix_import_edit *out);

/**
 * The first statement of the group of module-level imports holding `imp`:
 * the imports just above it with no blank line (or other line) between, not
 * `from __future__` (which must stay first).  isort sorts each group by itself.
 */
TSNode mpsfix_fix_import_group_start(TSNode imp, const char *src);

/** Is the line before byte `at` (a line start) blank, or is `at` the file's start? */
bool mpsfix_fix_after_blank_line(const char *src, uint32_t at);

#endif
