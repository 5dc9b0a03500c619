/*
 * fix_move.h: a fix that puts its code before the first module-level import
 * of a module (`before-import:` in a rule's fix, mpsfix-rules(5)), as
 * MPS203 moves `os.environ["PYTORCH_ENABLE_MPS_FALLBACK"] = "1"` above
 * `import torch`.
 */
#ifndef MPSFIX_FIX_MOVE_H
#define MPSFIX_FIX_MOVE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "edit.h"
#include "match.h"
#include "names.h"
#include "rule.h"
#include "source.h"

/**
 * Insert fix edit `fe`'s template, rendered for match `m` in the text `src`
 * (its tree's root `module`, its imports `names`, which may be NULL), as
 * lines before the first module-level import of fe->module (before that
 * import's group,
 * or just before it when the group imports what the code needs).  Dotted
 * names are written as spelled, with an `import ROOT` line first when no
 * plain import of ROOT comes before that place.  Returns why it cannot be
 * done (the caller frees it), or NULL with the edit added to `edits` in
 * fix `group`.
 */
char *mpsfix_fix_insert_before_import(const mpsfix_source *src, TSNode module, mpsfix_names *names,
				      const mpsfix_fix_edit *fe, const mpsfix_match *m, mpsfix_edits *edits,
				      uint32_t group);

#endif
