/*
 * version.h: what `mpsfix --version` reports: the version of mpsfix, of the
 * pinned Python grammar (baked in at build time from
 * grammars/tree-sitter-python.pin) with its language ABI, the tree-sitter
 * runtime (pinned or the system's) with its ABI range, and the libgit2,
 * libyaml and jansson versions in use.
 */
#ifndef MPSFIX_VERSION_H
#define MPSFIX_VERSION_H

#include "common.h"

/** The version of mpsfix, e.g. "0.1.0". */
const char *mpsfix_version(void);

/**
 * The tree-sitter runtime built in, as the Makefile names it: "0.25.1
 * (pinned)" for grammars/tree-sitter.pin, or pkg-config's version and
 * "(system)" for TREE_SITTER=system.
 */
const char *mpsfix_tree_sitter_version(void);

/**
 * Append the --version text to `out`.  Its first line is
 * "mpsfix X.Y.Z (tree-sitter-python G, libgit2 L)"; the lines after it name
 * one component each ("grammar:", "tree-sitter:", "libgit2:", "libyaml:",
 * "jansson:") and, when `rules_dir` is not NULL, "rules:" with that folder
 * (followed by " (not found)" when it is not a folder).
 */
void mpsfix_version_text(mpsfix_buf *out, const char *rules_dir);

#endif
