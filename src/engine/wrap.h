/*
 * wrap.h: lines a fix made longer than the project's limit, broken inside
 * their brackets the way ruff's formatter and black break them.
 *
 * Only lines that hold bytes a fix wrote are looked at, and only those
 * longer than the limit are changed.  A statement that stands on one line
 * is split as the formatter would split it: at the last bracket pair (the
 * arguments on a line of their own, or one a line with a trailing comma
 * when they do not fit), or, for the value of an assignment, a `return` or
 * the test of an `if`/`while` holding an operator, inside parentheses
 * around it; then each new line the same way, a bracket's contents at its
 * commas, then at a conditional expression's `if`/`else`, then at `and`/`or`.
 * A line that holds more than one statement (a one-line suite, `;`) is
 * broken inside one bracket pair only, the last whose first and last lines
 * then fit.
 * A line of a statement that already spans several lines keeps the user's
 * layout: its elements are broken at their commas, as many a line as fit,
 * continuing at the indentation of the statement's next line.  Nothing but
 * line breaks, indentation, parentheses around a whole value and trailing
 * commas in brackets is written: the code means what it meant.
 */
#ifndef MPSFIX_WRAP_H
#define MPSFIX_WRAP_H

#include <tree_sitter/api.h>

#include "common.h"
#include "edit.h"
#include "source.h"

/**
 * Add to `edits` (in group `group`, one edit per line) the replacements that
 * break each line of `src` longer than `limit` columns and holding a byte of
 * one of `changed[0..n)` (ranges of `src`).  `root` is src's syntax tree.
 * Lines it cannot break (a long string, a comment, code outside brackets
 * with no value to parenthesize, a line of several statements with no
 * bracket pair) are left as they are.  Returns the number
 * of edits added.
 */
size_t mpsfix_wrap_lines(const mpsfix_source *src, TSNode root, const mpsfix_span *changed, size_t n,
			 uint32_t limit, mpsfix_edits *edits, uint32_t group);

/**
 * The width of `len` bytes of text in columns, as ruff counts them for
 * E501: a tab reaches the next multiple of 4, an East Asian wide character
 * takes 2 (mpsfix_text_char_width()).
 */
uint32_t mpsfix_wrap_width(const char *s, size_t len, uint32_t column);

#endif
