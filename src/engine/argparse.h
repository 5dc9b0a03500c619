/*
 * argparse.h: the command-line switches a script declares with argparse,
 * read from its own text.  Used by cond.c for a constraint's `opt-in:`.
 */
#ifndef MPSFIX_ARGPARSE_H
#define MPSFIX_ARGPARSE_H

#include <tree_sitter/api.h>

#include "common.h"

/**
 * Is expression `value` (an attribute `E.NAME`, in parentheses or not) a
 * switch that is off unless the user turns it on: the text at `root`
 * declares NAME with `add_argument(..., action="store_true")`, with no
 * `default=` or `default=False`, and no `add_argument` or `set_defaults`
 * of the text gives NAME another value?  NAME is the argument's `dest=`, or
 * else its first long option without `--` and with `-` read as `_` (as
 * argparse derives it), or else its first short option without `-`.
 */
bool mpsfix_argparse_opt_in(const char *src, TSNode root, TSNode value);

#endif
