/*
 * fix_floor.c: the oldest torch a fix can run on (see fix_floor.h).
 */
#include "fix_floor.h"

#include <string.h>

static const struct {
	const char *name, *shown;
	bool after_alias;       /* also after any module name: `th.backends.mps`, `backends.mps` */
	mpsfix_torch_ver first; /* the first release that has it */
} apis[] = {
	{"backends.mps", "torch.backends.mps", true, MPSFIX_TORCH_VER(1, 12)},
	/* `self.accelerator` of Accelerate is no torch API: this one only as torch's */
	{"torch.accelerator", "torch.accelerator", false, MPSFIX_TORCH_VER(2, 6)},
};

static bool word_byte(char c)
{
	return c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * How often does [s, s+n) name `name` as a whole dotted name (or its start:
 * `name.x`); with `after_alias` also after a module's name, whatever the
 * file calls torch (`th.backends.mps`, `backends.mps` after `from torch
 * import backends`)?
 */
static size_t count(const char *s, size_t n, const char *name, bool after_alias)
{
	size_t len = strlen(name), hits = 0;

	for (size_t i = 0; i + len <= n; i++) {
		if (memcmp(s + i, name, len))
			continue;
		if (i > 0 && word_byte(s[i - 1]) && !(after_alias && s[i - 1] == '.'))
			continue;
		if (i + len < n && word_byte(s[i + len]) && s[i + len] != '.')
			continue;
		hits++;
	}
	return hits;
}

mpsfix_torch_ver mpsfix_fix_floor(const mpsfix_edits *edits, uint32_t group, const char *src, const char **api)
{
	mpsfix_torch_ver floor = MPSFIX_TORCH_OLDEST;

	if (api)
		*api = NULL;
	for (size_t k = 0; k < MPSFIX_ARRAY_SIZE(apis); k++) {
		size_t added = 0, removed = 0;

		for (size_t i = 0; i < edits->len; i++) {
			const mpsfix_edit *e = &edits->items[i];

			if (e->group != group)
				continue;
			added += count(e->text, e->len, apis[k].name, apis[k].after_alias);
			removed += count(src + e->start, e->end - e->start, apis[k].name, apis[k].after_alias);
		}
		if (added > removed && apis[k].first > floor) {
			floor = apis[k].first;
			if (api)
				*api = apis[k].shown;
		}
	}
	return floor;
}

char *mpsfix_fix_floor_reason(const mpsfix_edits *edits, uint32_t group, const char *src, mpsfix_torch_range target)
{
	const char *api;
	mpsfix_torch_ver floor = mpsfix_fix_floor(edits, group, src, &api);
	char tb[MPSFIX_TORCH_RANGE_STRMAX];

	if (!api || target.lo >= floor)
		return NULL;
	return mpsfix_xasprintf("the fix calls %s, which torch has from %u.%u, and the target torch %s reaches below it",
				api, (unsigned)MPSFIX_TORCH_MAJOR(floor), (unsigned)MPSFIX_TORCH_MINOR(floor),
				mpsfix_torch_range_format(tb, target));
}
