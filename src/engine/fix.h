/*
 * fix.h: turning a rule's fix and one match into edits — templates
 * rendered, list elements removed with their commas — or into the reason
 * the fix may not be applied there ("needs a manual fix: ...").
 */
#ifndef MPSFIX_FIX_H
#define MPSFIX_FIX_H

#include <tree_sitter/api.h>

#include "common.h"
#include "edit.h"
#include "match.h"
#include "rule.h"
#include "source.h"

struct mpsfix_names;

/** What the fixes of one version of a file share. */
typedef struct {
	const mpsfix_source *src;
	TSNode root;                  /* the module */
	struct mpsfix_names *names;   /* its imports: spelling templates' dotted names */
	mpsfix_matcher *matcher;      /* for the `when` of fix cases (may be NULL: then
					 a case with sub-patterns in `when` never holds) */
	mpsfix_torch_range target;    /* the file's torch target, for `when: {torch: ...}` */
	signed char fstrings;         /* the text may hold f-strings (1), holds none (-1),
					 not looked at yet (0): fix_fstring.h */
} mpsfix_fix_ctx;

#define MPSFIX_FIX_CTX_INIT(src, root, names, matcher, target) \
	{(src), (root), (names), (matcher), (target), 0}

/**
 * Add the edits of `r`'s fix for match `m` to `edits`, all in `group`: the
 * edits of the first case whose `when` holds (a case with `manual:` gives
 * its reason).  When the rule has a signature and m->params is not set,
 * the call is bound here.
 * Returns NULL when they were added, or (adding nothing) the reason the fix
 * needs a manual fix, to be freed by the caller.
 */
char *mpsfix_fix_render(mpsfix_fix_ctx *fc, const mpsfix_rule *r, const mpsfix_match *m,
			mpsfix_edits *edits, uint32_t group);

#endif
