/*
 * ruleset.c: a set of loaded rules — folders of rule files read in name
 * order, ids and codes unique across the set, and all-or-nothing loading.
 */
#include "rule.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strvec.h"

/* --- rule sets ------------------------------------------------------------------- */

/* Add `r` (taken over) unless its id or code is already used. */
static int ruleset_add(mpsfix_ruleset *set, mpsfix_rule *r)
{
	for (size_t i = 0; i < set->len; i++) {
		const mpsfix_rule *o = set->items[i];
		int error = 0;

		if (strcmp(o->id, r->id) == 0)
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: rule id '%s' is already "
						 "used by %s", r->path, r->id, o->path);
		else if (strcmp(o->code, r->code) == 0)
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: rule code '%s' is already "
						 "used by %s", r->path, r->code, o->path);
		if (error < 0) {
			mpsfix_rule_free(r);
			return error;
		}
	}
	mpsfix_grow((void **)&set->items, &set->cap, set->len + 1, sizeof(*set->items));
	set->items[set->len++] = r;
	return 0;
}

static int load_one(mpsfix_ruleset *set, TSParser *parser, const char *path)
{
	mpsfix_rule *r;
	int error;

	if ((error = mpsfix_rule_load_file(&r, parser, path)) < 0)
		return error;
	return ruleset_add(set, r);
}

static bool is_rule_name(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.')
		return false;
	return (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".yaml") == 0);
}

/* The rule file names of folder `dir`, sorted. */
static int list_rule_files(mpsfix_strvec *names, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return mpsfix_error_set(MPSFIX_ERROR, "cannot open rule folder '%s': %s", dir,
					strerror(errno));
	for (;;) {
		errno = 0;
		if (!(de = readdir(d)))
			break;
		if (is_rule_name(de->d_name))
			mpsfix_strvec_push(names, de->d_name);
	}
	if (errno) {
		int error = mpsfix_error_set(MPSFIX_ERROR, "cannot read rule folder '%s': %s", dir,
					     strerror(errno));

		closedir(d);
		return error;
	}
	closedir(d);
	mpsfix_strvec_sort(names, 0);
	return 0;
}

int mpsfix_ruleset_load(mpsfix_ruleset *set, TSParser *parser, const char *dir)
{
	mpsfix_strvec names = MPSFIX_STRVEC_INIT;
	size_t start = set->len;
	struct stat st;
	int error = 0;

	if (stat(dir, &st) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "cannot open rules '%s': %s", dir,
					 strerror(errno));
		goto done;
	}
	if (!S_ISDIR(st.st_mode)) {
		error = load_one(set, parser, dir);
		goto done;
	}
	if ((error = list_rule_files(&names, dir)) < 0)
		goto done;
	for (size_t i = 0; i < names.len && error == 0; i++) {
		size_t n = strlen(dir);
		char *file = mpsfix_xasprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
					      names.items[i]);

		/* a folder that happens to be called x.yml is not a rule */
		if (stat(file, &st) < 0 || !S_ISDIR(st.st_mode))
			error = load_one(set, parser, file);
		free(file);
	}
done:
	mpsfix_strvec_release(&names);
	if (error < 0) {
		for (size_t i = start; i < set->len; i++)
			mpsfix_rule_free(set->items[i]);
		set->len = start;
	}
	return error;
}

void mpsfix_ruleset_release(mpsfix_ruleset *set)
{
	for (size_t i = 0; i < set->len; i++)
		mpsfix_rule_free(set->items[i]);
	free(set->items);
	*set = (mpsfix_ruleset)MPSFIX_RULESET_INIT;
}
