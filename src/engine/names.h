/*
 * names.h: a file's imports and local bindings, per scope, so that a dotted
 * name in a pattern (`torch.utils.data.DataLoader`) matches every spelling
 * the file's imports allow, and a template's dotted name is written with the
 * file's own alias.
 *
 * Scopes are Python's: the module, each function (def, lambda) and class
 * body, and comprehensions.  A name is looked up in the innermost scope of
 * the reference, then outward (class bodies are skipped for code nested in
 * their methods, as Python does; `global` / `nonlocal` declarations are
 * followed).  Within one scope a name counts as bound by an import only if
 * every binding of it in that scope is an import of the same thing: any
 * other binding (assignment, augmented assignment, for/with/except targets,
 * walrus, def/class name, parameter, comprehension variable, `del`, a
 * relative import, a `match` capture) makes it a local name that no
 * pattern matches — Python resolves names per scope, not per line.  One
 * exception keeps a common idiom working: `name = None` in an `except`
 * clause of a `try:` whose body imports `name`.
 *
 * The table is built lazily: creating it costs nothing; the first query
 * walks the tree once.
 */
#ifndef MPSFIX_NAMES_H
#define MPSFIX_NAMES_H

#include <tree_sitter/api.h>

#include "common.h"
#include "parse.h"

typedef struct mpsfix_names mpsfix_names;

/** A table for the tree `root` over `src` (both must outlive it). */
mpsfix_names *mpsfix_names_new(TSNode root, const char *src, uint32_t len);
void mpsfix_names_free(mpsfix_names *n);

typedef enum {
	MPSFIX_NAME_RESOLVED = 0, /* *out holds the qualified name */
	MPSFIX_NAME_NOT_NAME,     /* not an identifier or attribute chain of identifiers */
	MPSFIX_NAME_LOCAL,        /* its first name is a local binding (or a relative import): no qualified name */
	MPSFIX_NAME_STAR          /* its first name is bound nowhere and the module has `from X import *` */
} mpsfix_name_kind;

/**
 * The qualified name of expression `node` (an `identifier` or an
 * `attribute` whose object is, recursively, one of these; comments and line
 * breaks inside are ignored) into `out` (cleared first):
 *   import torch            torch.std_mean      -> torch.std_mean
 *   import torch as th      th.std_mean         -> torch.std_mean
 *   import torch.amp        torch.amp.GradScaler-> torch.amp.GradScaler
 *   from torch import amp   amp.GradScaler      -> torch.amp.GradScaler
 *   from torch.utils.data import DataLoader as DL   DL -> torch.utils.data.DataLoader
 * A first name bound nowhere resolves to itself (a builtin or a global
 * defined elsewhere: `torch.std_mean` with no import is `torch.std_mean`),
 * unless the module has a star import (MPSFIX_NAME_STAR).
 */
mpsfix_name_kind mpsfix_names_qualify(mpsfix_names *n, TSNode node, mpsfix_buf *out);

/**
 * The qualified name of `node` through the imports `n` (may be NULL), else
 * its dotted name as written, into `out`; false if it has neither.
 */
static inline bool mpsfix_names_name_of(mpsfix_names *n, TSNode node, const char *src, mpsfix_buf *out)
{
	mpsfix_buf_clear(out);
	if (ts_node_is_null(node))
		return false;
	if (n && mpsfix_names_qualify(n, node, out) == MPSFIX_NAME_RESOLVED)
		return true;
	mpsfix_buf_clear(out);
	return mpsfix_dotted_name(node, src, out);
}

typedef enum {
	MPSFIX_SPELL_OK = 0,      /* *out holds the spelling */
	MPSFIX_SPELL_NEED_IMPORT, /* nothing in scope reaches it; `import ROOT` at module level would */
	MPSFIX_SPELL_SHADOWED     /* the first name of the qualified name is bound to something else at `at` */
} mpsfix_spell_kind;

/**
 * How to write qualified name `qname` (`torch.cuda.is_available`) at the
 * place of node `at`, into `out` (cleared first): through a binding visible
 * there whose qualified name is `qname` itself or a prefix of it at a dot —
 * the binding of the root module first (`th.cuda.is_available` under
 * `import torch as th`), else the longest such prefix (`cuda.is_available`
 * under `from torch import cuda`).  When no binding reaches it: NEED_IMPORT
 * if the first name (`torch`) is bound nowhere visible from `at` (the caller
 * adds `import torch`, after which the bare qualified name works), else
 * SHADOWED (the first name means something else there).
 */
mpsfix_spell_kind mpsfix_names_spell(mpsfix_names *n, TSNode at, const char *qname, mpsfix_buf *out);

/** The first star import of the module (`from X import *`): its module text and byte offset. */
bool mpsfix_names_star_import(mpsfix_names *n, const char **module, size_t *module_len, uint32_t *byte);

/** The module's statements and its imports among them (borrowed from the table). */
typedef struct {
	const char *src;            /* the table's text */
	uint32_t len;
	const TSNode *top;          /* the module's statements, comments left out, in order */
	const uint32_t *top_import; /* for each: index + 1 in `top` of the last import statement
				       (`import`, `from ... import`, `from __future__`) among it
				       and those before it, 0 when none */
	uint32_t ntop;
} mpsfix_module_imports;

/**
 * The module's statements and where its imports are among them, for placing
 * an import a fix adds (fix_import.h).  Built once per table, with one
 * cursor walk; valid while the table lives.
 */
void mpsfix_names_module_imports(mpsfix_names *n, mpsfix_module_imports *out);

#endif
