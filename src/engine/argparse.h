/*
 * argparse.h: the command-line switches a script declares with argparse,
 * read from its own text.  Used by cond.c for a constraint's `opt-in:`, and
 * by uses.c for `used:` (an option's default that the script replaces).
 */
#ifndef MPSFIX_ARGPARSE_H
#define MPSFIX_ARGPARSE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "instance.h"
#include "names.h"
#include "strvec.h"

/*
 * What one text declares, read once (at the first question) and kept for
 * the text's other questions; release it when the text changes.
 */
typedef struct {
	bool read;
	bool any;             /* the text may give any option a value (below) */
	mpsfix_strvec off;    /* dests of store_true switches off by default */
	mpsfix_strvec set;    /* dests given a value another way */
	mpsfix_instance_memo memo; /* the values of the names asked about */
} mpsfix_argparse;

#define MPSFIX_ARGPARSE_INIT {0}

void mpsfix_argparse_release(mpsfix_argparse *a);

/**
 * Is expression `value` (in parentheses or not) `ARGS.NAME`, a switch that
 * is off unless the user turns it on?
 * - The text at `root` declares NAME with `add_argument(..., action=
 *   "store_true")` and no `default=` (or False or None), as an option (a
 *   positional store_true is always True); NAME is its `dest=`, else its
 *   first long option without `--` and with `-` read as `_`, else its first
 *   option without `-` (as argparse derives it).
 * - Nothing else in the text gives NAME a value: another add_argument,
 *   `set_defaults(NAME=...)`, `setattr(x, "NAME", ...)`, an assignment to
 *   any `x.NAME`.
 * - Nothing in the text may give any option a value: an add_argument whose
 *   options or dest are not literals, `set_defaults(**d)`, `setattr()` of a
 *   name that is not a literal, an ArgumentParser with `argument_default=`,
 *   `parents=` or `prefix_chars=`, a `parse_args(...)` or
 *   `parse_known_args(...)` given arguments or a namespace, an
 *   `argparse.Namespace(...)`, a change to `sys.argv`, `vars(x)` used other
 *   than as an argument, `x.__dict__`.
 * - ARGS is a name whose value (instance.h) is `parser.parse_args()`, or a
 *   call of a function of the module all of whose returns are that (or a
 *   name bound to it there): not a parameter, nor a configuration object.
 * `a` keeps what the text declares, for the text's next questions.
 */
bool mpsfix_argparse_opt_in(mpsfix_argparse *a, const char *src, TSNode root, TSNode value);

/**
 * Does the script replace the value of a command-line option where CUDA is
 * missing, so that its default ("cuda") never reaches torch there?
 * `deflt` is the value of `default=` in an `add_argument(...)` call of
 * the text `src`, a string S, whose option's dest is NAME (derived as
 * above).  `x.NAME` below is read from the parsed options (x's value is
 * `parse_args()`, as for mpsfix_argparse_opt_in()); `names` resolves
 * torch's spelling.  True when the text either
 * - has an `if` whose test holds without CUDA while the option is S:
 *   `not torch.cuda.is_available()`, alone or in an `and` whose other
 *   terms are `x.NAME == S`; and whose body assigns `x.NAME` in a
 *   statement of its own: `if args.device == "cuda" and not
 *   torch.cuda.is_available(): args.device = "cpu"`; or
 * - has a conditional expression whose test is false without CUDA while
 *   the option is S: `torch.cuda.is_available()`, alone or in an `or`
 *   whose other terms are `x.NAME == T` (T another string), and whose
 *   value is `x.NAME`: `torch.device(args.device if
 *   torch.cuda.is_available() else "cpu")`.
 * A guess: the script's other reads of `x.NAME` are taken to come after
 * the replacement.
 */
bool mpsfix_argparse_falls_back(mpsfix_names *names, const char *src, TSNode deflt);

#endif
