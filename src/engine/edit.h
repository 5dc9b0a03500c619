/*
 * edit.h: a file's edit list.  Edits are replacements of byte ranges of the
 * original text.  Edits that belong to one fix share a `group` and are
 * applied all together or not at all.  Overlapping edits are never merged:
 * the outer (earlier, longer) one wins and the others wait for the next pass.
 */
#ifndef MPSFIX_EDIT_H
#define MPSFIX_EDIT_H

#include "common.h"

typedef struct {
	uint32_t start, end; /* [start, end) of the original text */
	char *text;          /* replacement (owned), NUL-terminated */
	size_t len;
	uint32_t group;      /* edits of one fix share a group */
	bool shared;         /* several fixes may add this very edit (an import):
				it is written once */
	bool applied;        /* set by mpsfix_edits_apply */
} mpsfix_edit;

typedef struct {
	mpsfix_edit *items;
	size_t len, cap;
} mpsfix_edits;

#define MPSFIX_EDITS_INIT {NULL, 0, 0}

/** Add a replacement of [start, end) by `text` (copied) in fix `group`. */
void mpsfix_edits_add(mpsfix_edits *e, uint32_t start, uint32_t end,
		      const char *text, size_t len, uint32_t group);

/** Add an edit that other fixes may add identically (written once). */
void mpsfix_edits_add_shared(mpsfix_edits *e, uint32_t start, uint32_t end,
			     const char *text, size_t len, uint32_t group);

/**
 * Build in `out` the text `src` with every edit applied that does not overlap
 * an edit accepted before it.  Groups are considered in order of their
 * first-added edit's start (ties: the longer span first, then the order of
 * adding), so an outer fix wins over fixes inside it; a group is applied
 * whole or not at all.  [a,b) and [c,d) overlap when a < d && c < b, so an
 * insertion at the edge of a replacement, or two insertions at one offset,
 * do not overlap (insertions at one offset come out in acceptance order,
 * before a replacement starting there).  `out` is emptied first and holds
 * exactly the new text.  Each edit's `applied` flag is set;
 * `*ngroups_applied` and `*ngroups_deferred` (either may be NULL) count fixes
 * applied and left for a later pass.  Returns 0, or MPSFIX_ERROR when an
 * edit lies outside `src` or two edits of one group overlap (then `out` is
 * untouched).
 */
int mpsfix_edits_apply(mpsfix_buf *out, mpsfix_edits *e, const char *src,
		       size_t len, size_t *ngroups_applied,
		       size_t *ngroups_deferred);

/** Empty the list (memory kept for reuse). */
void mpsfix_edits_clear(mpsfix_edits *e);
void mpsfix_edits_release(mpsfix_edits *e);

#endif
