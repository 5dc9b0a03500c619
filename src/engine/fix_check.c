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

/* The fixes of one file, tried in sets. */
typedef struct {
	TSParser *parser;
	const char *path, *text;
	size_t len;
	TSNode root;
	uint32_t base_errors;
	const mpsfix_edits *edits;
	size_t ngroups;
	bool *in;             /* the groups of the set being tried */
	mpsfix_edits set;
	mpsfix_buf out;
	unsigned char *bad;
	size_t nbad;
} trial;

/* How groups g[0, n) applied together parse: 0 as the text did, else MPSFIX_FIX_*; below 0 an error. */
static int try_groups(trial *t, const uint32_t *g, size_t n)
{
	TSTree *tree = NULL;
	size_t applied = 0;
	int error, verdict = 0;

	for (size_t i = 0; i < n; i++)
		t->in[g[i]] = true;
	mpsfix_edits_clear(&t->set);
	for (size_t k = 0; k < t->edits->len; k++) {
		const mpsfix_edit *e = &t->edits->items[k];

		if (e->applied && e->group < t->ngroups && t->in[e->group])
			mpsfix_edits_add(&t->set, e->start, e->end, e->text, e->len, e->group);
	}
	for (size_t i = 0; i < n; i++)
		t->in[g[i]] = false;
	if ((error = mpsfix_edits_apply(&t->out, &t->set, t->text, t->len, &applied, NULL)) < 0)
		return error;
	if (!applied)
		return 0;
	if ((error = mpsfix_parse_named(&tree, t->parser, t->path, t->out.data ? t->out.data : "",
					(uint32_t)t->out.len)) < 0)
		return error;
	if (mpsfix_error_count(ts_tree_root_node(tree)) > t->base_errors)
		verdict = MPSFIX_FIX_BREAKS_PARSE;
	else if (mpsfix_fix_errors_moved(t->root, ts_tree_root_node(tree), &t->set))
		verdict = MPSFIX_FIX_MOVES_ERRORS;
	ts_tree_delete(tree);
	return verdict;
}

/*
 * Of groups g[0, n), which together parse worse (`verdict`), the ones that
 * do on their own: each half is tried, and a half that fails is split in
 * turn (some 2 log n parses a fix to blame, not one a fix).  When both
 * halves parse, the fixes fail only together: none is to blame alone.
 */
static int split(trial *t, const uint32_t *g, size_t n, int verdict)
{
	size_t h = n / 2;
	int v1, v2, error = 0;

	if (n == 1) {
		t->bad[g[0]] = (unsigned char)verdict;
		t->nbad++;
		return 0;
	}
	if ((v1 = try_groups(t, g, h)) < 0)
		return v1;
	if ((v2 = try_groups(t, g + h, n - h)) < 0)
		return v2;
	if (v1 > 0 && (error = split(t, g, h, v1)) < 0)
		return error;
	if (v2 > 0)
		error = split(t, g + h, n - h, v2);
	return error;
}

int mpsfix_fix_bad_groups(TSParser *parser, const char *path, const char *text, size_t len, TSNode root,
			  uint32_t base_errors, const mpsfix_edits *edits, unsigned char *bad, size_t ngroups,
			  size_t *nbad)
{
	trial t = {parser, path, text, len, root, base_errors, edits, ngroups,
		   mpsfix_xcalloc(ngroups + 1, sizeof(bool)), MPSFIX_EDITS_INIT, MPSFIX_BUF_INIT, bad, 0};
	uint32_t *g = mpsfix_xcalloc(ngroups + 1, sizeof(uint32_t));
	bool *seen = mpsfix_xcalloc(ngroups + 1, sizeof(bool));
	size_t n = 0;
	int error = 0, verdict;

	for (size_t i = 0; i < edits->len; i++) { /* the groups applied, in the order of their first edit */
		uint32_t gr = edits->items[i].group;

		if (edits->items[i].applied && gr < ngroups && !seen[gr]) {
			seen[gr] = true;
			g[n++] = gr;
		}
	}
	if (n && (verdict = try_groups(&t, g, n)) != 0)
		error = verdict < 0 ? verdict : split(&t, g, n, verdict);
	*nbad = t.nbad;
	mpsfix_edits_release(&t.set);
	mpsfix_buf_release(&t.out);
	free(t.in);
	free(g);
	free(seen);
	return error < 0 ? error : 0;
}
