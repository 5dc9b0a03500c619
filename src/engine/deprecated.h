/*
 * deprecated.h: deprecated code.  A path its own authors have marked as on
 * its way out (a branch that warns "`torch_device` is deprecated ... will be
 * removed", a function that warns DeprecationWarning when called) is one
 * they remove rather than fix: a finding there asks them to change code
 * they mean to delete, and the fix belongs to what replaces it.  Whatever
 * the rule (`reachable: any` included), nothing in such code is reported.
 *
 * The notice is one of the block's own statements (a branch of an if, a
 * loop's or a with's body, a function body, the module), wherever it stands
 * in the block: a call `warnings.warn(...)`, `logger.warning(...)`
 * (`warn`, `warning`, `warning_once`, whatever object they are called on:
 * `logging.getLogger(__name__).warning(...)` too) whose message, a string
 * literal, also one formatted with `.format(...)` or `%`, says "deprecated"
 * (any case, "deprecation" too, a word of its own: not "deprecated_ok") in
 * its literal text (not in an f-string's interpolations), or whose category
 * is DeprecationWarning or PendingDeprecationWarning (or an instance of
 * one, `DeprecationWarning("...")`, or of another warning made with such a
 * message); or a call of a helper named `deprecate` or
 * `warn_deprecated` (diffusers' `deprecate(...)`).  The whole block is
 * deprecated, the nested blocks inside it included; a function's body, its
 * signature (defaults) and decorators too.
 */
#ifndef MPSFIX_DEPRECATED_H
#define MPSFIX_DEPRECATED_H

#include <tree_sitter/api.h>

#include "common.h"

/* The deprecated blocks of one text, found at the first question. */
typedef struct {
	mpsfix_span *items;
	size_t len, cap;
	bool built;
} mpsfix_deprecated;

void mpsfix_deprecated_release(mpsfix_deprecated *d);

/**
 * Does `node` lie in a deprecated block of the text `src` (`len` bytes)
 * whose tree is `root`?  A text that does not hold "deprecat" (any case)
 * has none and is not walked; otherwise one walk, at the first question.
 */
bool mpsfix_deprecated_at(mpsfix_deprecated *d, const char *src, size_t len, TSNode root, TSNode node);

#endif
