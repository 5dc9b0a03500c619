/*
 * edit.c: a file's edit list, and its application in one forward pass.
 *
 * Groups (fixes) are considered in order of their first-added edit: by its
 * start, then the longer span first, then insertion order.  A group is
 * accepted only when none of its edits overlaps an edit accepted before;
 * [a,b) and [c,d) overlap when a < d && c < b, so insertions at the edge of
 * a replacement, and insertions at the same offset, do not overlap.
 */
#include "edit.h"

#include <stdlib.h>
#include <string.h>

void mpsfix_edits_add(mpsfix_edits *e, uint32_t start, uint32_t end,
		      const char *text, size_t len, uint32_t group)
{
	mpsfix_grow((void **)&e->items, &e->cap, e->len + 1, sizeof(*e->items));
	mpsfix_edit *ed = &e->items[e->len++];
	ed->start = start;
	ed->end = end;
	ed->text = mpsfix_xmalloc(len + 1);
	if (len)
		memcpy(ed->text, text, len);
	ed->text[len] = '\0';
	ed->len = len;
	ed->group = group;
	ed->shared = false;
	ed->applied = false;
}

void mpsfix_edits_add_shared(mpsfix_edits *e, uint32_t start, uint32_t end,
			     const char *text, size_t len, uint32_t group)
{
	mpsfix_edits_add(e, start, end, text, len, group);
	e->items[e->len - 1].shared = true;
}

void mpsfix_edits_clear(mpsfix_edits *e)
{
	for (size_t i = 0; i < e->len; i++)
		free(e->items[i].text);
	e->len = 0;
}

void mpsfix_edits_release(mpsfix_edits *e)
{
	if (!e)
		return;
	mpsfix_edits_clear(e);
	free(e->items);
	*e = (mpsfix_edits)MPSFIX_EDITS_INIT;
}

/* an edit's place in its group: sorted by (group, index) */
typedef struct {
	uint32_t group;
	size_t index;
} member;

/* a group: its first-added edit and its members ord[begin, begin + n) */
typedef struct {
	uint32_t start, span;
	size_t first, begin, n;
} group_info;

/* an accepted edit; kept sorted by (start, end, acceptance order) */
typedef struct {
	uint32_t start, end;
	size_t index;
} accepted;

/* Is an identical shared edit accepted already? */
static bool shared_done(const mpsfix_edits *e, const accepted *acc, size_t n, const mpsfix_edit *ed)
{
	if (!ed->shared)
		return false;
	for (size_t i = 0; i < n; i++) {
		const mpsfix_edit *o = &e->items[acc[i].index];

		if (o->shared && o->start == ed->start && o->end == ed->end && o->len == ed->len &&
		    !memcmp(o->text, ed->text, ed->len))
			return true;
	}
	return false;
}

static int cmp_member(const void *a, const void *b)
{
	const member *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_group(const void *a, const void *b)
{
	const group_info *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->span != y->span)
		return x->span > y->span ? -1 : 1; /* the longer (outer) first */
	return x->first < y->first ? -1 : x->first > y->first;
}

static bool overlap(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	return a < d && c < b;
}

/*
 * Accepted edits never overlap, so sorted by (start, end) their ends never
 * decrease: the first one ending after `a` is the only candidate to check.
 */
static bool overlaps_accepted(const accepted *acc, size_t n, uint32_t a, uint32_t b)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (acc[mid].end > a)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < n && overlap(a, b, acc[lo].start, acc[lo].end);
}

/* insert after every entry with the same (start, end): acceptance order */
static void insert_accepted(accepted *acc, size_t *n, accepted v)
{
	size_t lo = 0, hi = *n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (acc[mid].start < v.start ||
		    (acc[mid].start == v.start && acc[mid].end <= v.end))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(acc + lo + 1, acc + lo, (*n - lo) * sizeof(*acc));
	acc[lo] = v;
	(*n)++;
}

int mpsfix_edits_apply(mpsfix_buf *out, mpsfix_edits *e, const char *src,
		       size_t len, size_t *ngroups_applied,
		       size_t *ngroups_deferred)
{
	member *ord = NULL;
	group_info *groups = NULL;
	accepted *acc = NULL;
	size_t ngroups = 0, nacc = 0, napplied = 0;
	int error = 0;

	for (size_t i = 0; i < e->len; i++) {
		const mpsfix_edit *ed = &e->items[i];

		e->items[i].applied = false;
		if (ed->start > ed->end || ed->end > len)
			return mpsfix_error_set(MPSFIX_ERROR,
						"edit [%u, %u) lies outside the text (%zu bytes)",
						ed->start, ed->end, len);
	}

	ord = mpsfix_xmalloc(e->len * sizeof(*ord));
	groups = mpsfix_xmalloc(e->len * sizeof(*groups));
	acc = mpsfix_xmalloc(e->len * sizeof(*acc));
	for (size_t i = 0; i < e->len; i++)
		ord[i] = (member){e->items[i].group, i};
	qsort(ord, e->len, sizeof(*ord), cmp_member);
	for (size_t i = 0; i < e->len; i++) {
		if (i > 0 && ord[i].group == ord[i - 1].group) {
			groups[ngroups - 1].n++;
			continue;
		}
		const mpsfix_edit *first = &e->items[ord[i].index];
		groups[ngroups++] = (group_info){
			.start = first->start,
			.span = first->end - first->start,
			.first = ord[i].index,
			.begin = i,
			.n = 1,
		};
	}
	qsort(groups, ngroups, sizeof(*groups), cmp_group);

	/* the edits of one fix must not overlap each other */
	for (size_t g = 0; g < ngroups; g++) {
		const member *m = ord + groups[g].begin;

		for (size_t k = 1; k < groups[g].n; k++) {
			const mpsfix_edit *ed = &e->items[m[k].index];

			for (size_t j = 0; j < k; j++) {
				const mpsfix_edit *other = &e->items[m[j].index];

				if (overlap(ed->start, ed->end, other->start, other->end)) {
					error = mpsfix_error_set(MPSFIX_ERROR,
								 "edits [%u, %u) and [%u, %u) of one fix overlap",
								 other->start, other->end,
								 ed->start, ed->end);
					goto done;
				}
			}
		}
	}

	for (size_t g = 0; g < ngroups; g++) {
		const member *m = ord + groups[g].begin;
		bool ok = true;

		for (size_t k = 0; k < groups[g].n && ok; k++) {
			const mpsfix_edit *ed = &e->items[m[k].index];

			ok = shared_done(e, acc, nacc, ed) || !overlaps_accepted(acc, nacc, ed->start, ed->end);
		}
		if (!ok)
			continue;
		for (size_t k = 0; k < groups[g].n; k++) {
			mpsfix_edit *ed = &e->items[m[k].index];

			ed->applied = true;
			if (!shared_done(e, acc, nacc, ed))
				insert_accepted(acc, &nacc, (accepted){ed->start, ed->end, m[k].index});
		}
		napplied++;
	}

	/* one forward pass over the accepted edits */
	mpsfix_buf_clear(out);
	mpsfix_buf_add(out, "", 0);
	size_t pos = 0;
	for (size_t i = 0; i < nacc; i++) {
		const mpsfix_edit *ed = &e->items[acc[i].index];

		if (ed->start > pos)
			mpsfix_buf_add(out, src + pos, ed->start - pos);
		mpsfix_buf_add(out, ed->text, ed->len);
		pos = ed->end;
	}
	if (len > pos)
		mpsfix_buf_add(out, src + pos, len - pos);

	if (ngroups_applied)
		*ngroups_applied = napplied;
	if (ngroups_deferred)
		*ngroups_deferred = ngroups - napplied;
done:
	if (error < 0)
		for (size_t i = 0; i < e->len; i++)
			e->items[i].applied = false;
	free(ord);
	free(groups);
	free(acc);
	return error;
}
