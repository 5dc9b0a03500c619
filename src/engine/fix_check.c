/*
 * fix_check.c: does the fixed text parse as the original did, and which
 * fixes break it (see fix_check.h).
 */
#include "fix_check.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"

typedef ARRAY(mpsfix_span) span_list;

static mpsfix_walk_action collect_error(TSNode n, void *payload)
{
	if (ts_node_is_missing(n) || ts_node_symbol(n) == (TSSymbol)-1 /* ERROR */) {
		ARRAY_PUSH((span_list *)payload, ((mpsfix_span){ts_node_start_byte(n), ts_node_end_byte(n)}));
		return MPSFIX_WALK_SKIP;
	}
	return ts_node_has_error(n) ? MPSFIX_WALK_DESCEND : MPSFIX_WALK_SKIP;
}

static int compare_spans(const void *a, const void *b)
{
	const mpsfix_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

typedef struct {
	uint32_t start, end; /* in the text before */
	int64_t at;          /* where its text starts in the text after */
	size_t len;
} placed_edit;

static int compare_placed(const void *a, const void *b)
{
	const placed_edit *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

bool mpsfix_fix_errors_moved(TSNode old, TSNode now, const mpsfix_edits *edits)
{
	span_list before = {0}, after = {0};
	ARRAY(placed_edit) applied = {0};
	size_t kept = 0, nkept = 0, k = 0;
	int64_t delta = 0;
	bool moved;

	if (!ts_node_has_error(old) && !ts_node_has_error(now))
		return false;
	/* both come in document order, never nested (an ERROR's inside is skipped) */
	mpsfix_walk(old, collect_error, &before);
	mpsfix_walk(now, collect_error, &after);
	for (size_t i = 0; i < edits->len; i++)
		if (edits->items[i].applied)
			ARRAY_PUSH(&applied, ((placed_edit){edits->items[i].start, edits->items[i].end, 0,
							    edits->items[i].len}));
	if (applied.len > 1)
		qsort(applied.items, applied.len, sizeof(*applied.items), compare_placed);
	for (size_t i = 0; i < applied.len; i++) { /* applied edits never overlap */
		applied.items[i].at = (int64_t)applied.items[i].start + delta;
		delta += (int64_t)applied.items[i].len - (int64_t)(applied.items[i].end - applied.items[i].start);
	}
	/* the old spans that touch no edit, moved to where they are in the new text */
	delta = 0;
	for (size_t i = 0; i < before.len; i++) {
		mpsfix_span sp = before.items[i];
		bool touched = false;

		while (k < applied.len && applied.items[k].end < sp.start) {
			delta = applied.items[k].at + (int64_t)applied.items[k].len - applied.items[k].end;
			k++;
		}
		for (size_t j = k; j < applied.len && applied.items[j].start <= sp.end && !touched; j++)
			touched = sp.start <= applied.items[j].end;
		if (!touched)
			before.items[kept++] = (mpsfix_span){(uint32_t)(sp.start + delta),
							     (uint32_t)(sp.end + delta)};
	}
	/* the new spans that touch no edit's new text */
	k = 0;
	for (size_t i = 0; i < after.len; i++) {
		mpsfix_span sp = after.items[i];
		bool touched = false;

		while (k < applied.len && applied.items[k].at + (int64_t)applied.items[k].len < sp.start)
			k++;
		for (size_t j = k; j < applied.len && applied.items[j].at <= (int64_t)sp.end && !touched; j++)
			touched = (int64_t)sp.start <= applied.items[j].at + (int64_t)applied.items[j].len;
		if (!touched)
			after.items[nkept++] = sp;
	}
	moved = kept != nkept;
	for (size_t i = 0; i < kept && !moved; i++)
		moved = compare_spans(&before.items[i], &after.items[i]) != 0;
	free(before.items);
	free(after.items);
	free(applied.items);
	return moved;
}

int mpsfix_fix_bad_groups(TSParser *parser, const char *path, const char *text, size_t len, TSNode root,
			  uint32_t base_errors, const mpsfix_edits *edits, unsigned char *bad, size_t ngroups,
			  size_t *nbad)
{
	mpsfix_edits one = MPSFIX_EDITS_INIT;
	mpsfix_buf out = MPSFIX_BUF_INIT;
	TSTree *tree = NULL;
	bool *seen = mpsfix_xcalloc(ngroups + 1, sizeof(bool));
	int error = 0;

	*nbad = 0;
	for (size_t i = 0; i < edits->len && error >= 0; i++) {
		uint32_t g = edits->items[i].group;
		size_t applied = 0;

		if (!edits->items[i].applied || g >= ngroups || seen[g])
			continue;
		seen[g] = true;
		/* the group alone, on the text as it was */
		mpsfix_edits_clear(&one);
		for (size_t k = i; k < edits->len; k++)
			if (edits->items[k].group == g && edits->items[k].applied)
				mpsfix_edits_add(&one, edits->items[k].start, edits->items[k].end, edits->items[k].text,
						 edits->items[k].len, g);
		if ((error = mpsfix_edits_apply(&out, &one, text, len, &applied, NULL)) < 0 || !applied)
			continue;
		if ((error = mpsfix_parse_named(&tree, parser, path, out.data ? out.data : "", (uint32_t)out.len)) < 0)
			continue;
		if (mpsfix_error_count(ts_tree_root_node(tree)) > base_errors)
			bad[g] = MPSFIX_FIX_BREAKS_PARSE;
		else if (mpsfix_fix_errors_moved(root, ts_tree_root_node(tree), &one))
			bad[g] = MPSFIX_FIX_MOVES_ERRORS;
		*nbad += bad[g] != 0;
		ts_tree_delete(tree);
		tree = NULL;
	}
	mpsfix_edits_release(&one);
	mpsfix_buf_release(&out);
	free(seen);
	return error < 0 ? error : 0;
}
