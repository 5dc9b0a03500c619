/*
 * suppress.h: inline suppression comments.
 *
 *   x = torch.std_mean(a)  # noqa: MPS001          one code (or several: MPS001,MPS002)
 *   x = torch.std_mean(a)  # noqa                  every rule
 *   x = torch.std_mean(a)  # mpsfix: ignore[MPS001, std-mean]   codes or rule ids
 *   x = torch.std_mean(a)  # mpsfix: ignore        every rule
 *   # mpsfix: ignore-file                          (any comment line) the whole file
 *
 * A code names one rule exactly (MPS001) or, as in ruff, every code it is a
 * prefix of (`# noqa: MPS0`).  Only real comments count (tree-sitter
 * `comment` nodes), never text inside strings.  A comment suppresses findings
 * that start on its line, or whose enclosing simple statement (or the header
 * of a compound statement) starts on a line it ends: for a statement spanning
 * several lines, a comment on its first line covers it all.
 */
#ifndef MPSFIX_SUPPRESS_H
#define MPSFIX_SUPPRESS_H

#include <tree_sitter/api.h>

#include "common.h"
#include "source.h"
#include "types.h"

/** An inline suppression comment that suppressed nothing. */
typedef struct {
	uint32_t line, col;           /* 1-based, of the comment */
	char *codes;                  /* what it names ("MPS001, MPS002"), or NULL for all (owned) */
} mpsfix_unused_suppression;

typedef struct mpsfix_suppressions mpsfix_suppressions;

/**
 * Collect the suppression comments of the tree `root` over `src` (borrowed:
 * `src` must outlive the set; nodes given to mpsfix_suppressed() must come
 * from this tree).  Cheap: only lines with '#' and "noqa" or "mpsfix" are
 * looked at in the tree.  The exact comment grammar is in suppress.c.
 */
mpsfix_suppressions *mpsfix_suppressions_scan(TSNode root, const mpsfix_source *src);
void mpsfix_suppressions_free(mpsfix_suppressions *s);

/** True when the file carries `# mpsfix: ignore-file`. */
bool mpsfix_suppressions_file_ignored(const mpsfix_suppressions *s);

/**
 * True when a finding of `rule` for the matched node `node` is suppressed;
 * the suppression that applied is marked used.
 */
bool mpsfix_suppressed(mpsfix_suppressions *s, const mpsfix_rule *rule, TSNode node);

/**
 * The suppression comments that suppressed nothing, in line order, as a new
 * array (the caller frees each `codes` and the array); `*n` is their count.
 * A comment naming several codes of which some were used lists only the
 * unused ones.  The file-level comment is never "unused", nor is a blanket
 * `# noqa` (it may be meant for another linter), nor a code of another
 * linter in a `# noqa:` list (only codes starting with "MPS" are ours).
 */
mpsfix_unused_suppression *mpsfix_suppressions_unused(const mpsfix_suppressions *s, size_t *n);

#endif
