/*
 * target.c: the torch target of a run (see target.h for the order of the
 * sources).
 */
#include "target.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git.h"
#include "pathutil.h"
#include "rule.h"

/* What the summary says when nothing narrows the target (tests check it). */
#define DEFAULT_SUMMARY "target torch: every MPS-capable version"

static void set_summary(mpsfix_target *t)
{
	if (t->source == MPSFIX_TARGET_DEFAULT)
		t->summary = mpsfix_xstrdup(DEFAULT_SUMMARY);
	else
		t->summary = mpsfix_xasprintf("target torch %s (%s)", t->label, t->origin);
}

/* The range of the pins, and "FILE:LINE" / "FILE:LINE and N more". */
static void from_pins(mpsfix_target *t, const char *root)
{
	const mpsfix_pins *p = &t->pins;
	const mpsfix_pin *first = &p->items[0];
	char *abs = mpsfix_path_join(root, first->file), *shown = mpsfix_path_from_cwd(abs);

	bool direct = false;
	size_t more = 0;

	/* the pins of one set all hold (their intersection; pins that leave no
	   version, which pip would refuse, give their hull), and the sets are
	   alternatives (several files may pin several setups): their hull ... */
	for (size_t i = 0; i < p->len; i++) {
		mpsfix_torch_range r = p->items[i].range, all = r;
		bool met = true, done = p->items[i].implied;

		for (size_t k = 0; k < i && !done; k++)
			done = !p->items[k].implied && p->items[k].set == p->items[i].set;
		if (done)
			continue; /* an implied floor, or a set already taken */
		for (size_t k = i + 1; k < p->len; k++) {
			const mpsfix_torch_range *o = &p->items[k].range;

			if (p->items[k].implied || p->items[k].set != p->items[i].set)
				continue;
			met = met && mpsfix_torch_range_meets(r, *o);
			if (met)
				r = (mpsfix_torch_range){r.lo > o->lo ? r.lo : o->lo, r.hi < o->hi ? r.hi : o->hi};
			all = mpsfix_torch_range_hull(all, *o);
		}
		r = met ? r : all;
		t->range = direct ? mpsfix_torch_range_hull(t->range, r) : r;
		direct = true;
	}
	/* ... within every floor another requirement implies, when some version is left */
	for (size_t i = 0; i < p->len; i++)
		if (p->items[i].implied && mpsfix_torch_range_meets(t->range, p->items[i].range) &&
		    p->items[i].range.lo > t->range.lo)
			t->range.lo = p->items[i].range.lo;
	/* ... from 1.12 on, the first release with MPS, where the pins reach it
	   (`torch<2.3` says nothing of versions that have no MPS at all) */
	if (t->range.lo < MPSFIX_TORCH_FIRST_MPS && t->range.hi >= MPSFIX_TORCH_FIRST_MPS)
		t->range.lo = MPSFIX_TORCH_FIRST_MPS;
	t->source = MPSFIX_TARGET_PINS;
	/* (a pin of a file two sets include is in the list twice) */
	for (size_t i = 1; i < p->len; i++) {
		bool again = false;

		for (size_t k = 0; k < i && !again; k++)
			again = p->items[k].line == p->items[i].line && !strcmp(p->items[k].file, p->items[i].file);
		more += !again;
	}
	if (!more)
		t->origin = mpsfix_xasprintf("%s:%u", shown, first->line);
	else
		t->origin = mpsfix_xasprintf("%s:%u and %zu more", shown, first->line, more);
	free(shown);
	free(abs);
}

int mpsfix_target_resolve(mpsfix_target *out, const mpsfix_target_opts *o)
{
	char *saved = NULL;
	int error = 0;

	*out = (mpsfix_target)MPSFIX_TARGET_INIT;
	out->range = MPSFIX_TORCH_RANGE_MPS;
	if (o->option) {
		if (mpsfix_torch_range_parse(&out->range, o->option, strlen(o->option),
					     MPSFIX_TORCH_SYNTAX_SPEC) < 0)
			goto bad_value;
		out->source = MPSFIX_TARGET_OPTION;
		out->origin = mpsfix_xstrdup("--target-torch");
	} else if (o->config_value) {
		if (mpsfix_torch_range_parse(&out->range, o->config_value, strlen(o->config_value),
					     MPSFIX_TORCH_SYNTAX_SPEC) < 0)
			goto bad_value;
		out->source = MPSFIX_TARGET_CONFIG;
		out->origin = mpsfix_path_from_cwd(o->config_path ? o->config_path : ".mpsfix.yml");
	} else if (o->root) {
		if ((error = mpsfix_pins_find(&out->pins, o->root)) < 0)
			goto done;
		if (out->pins.len)
			from_pins(out, o->root);
	}
	mpsfix_torch_range_format(out->label, out->range);
	set_summary(out);
	goto done;
bad_value:
	saved = mpsfix_xstrdup(mpsfix_error_last()->message);
	if (o->option)
		error = mpsfix_error_set(MPSFIX_ERROR, "--target-torch '%s': %s", o->option, saved);
	else
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: target-torch '%s': %s",
					 o->config_path ? o->config_path : ".mpsfix.yml",
					 o->config_value, saved);
done:
	free(saved);
	if (error < 0)
		mpsfix_target_release(out);
	return error;
}

void mpsfix_target_release(mpsfix_target *t)
{
	free(t->origin);
	free(t->summary);
	mpsfix_pins_release(&t->pins);
	*t = (mpsfix_target)MPSFIX_TARGET_INIT;
}

const char *mpsfix_target_label(const mpsfix_target *t)
{
	return t->label;
}

bool mpsfix_target_runs(const mpsfix_target *t, const mpsfix_rule *r)
{
	return mpsfix_torch_range_meets(t->range, r->range);
}

char *mpsfix_target_root(const char *config_dir, const char *path)
{
	const char *start = path && *path && strcmp(path, "-") != 0 ? path : ".";
	char *top, *dir, *slash;

	if (config_dir)
		return mpsfix_xstrdup(config_dir);
	if ((top = mpsfix_git_worktree_top(start)) != NULL)
		return top;
	if (!(dir = realpath(start, NULL)))
		return mpsfix_xstrdup(".");
	if (!mpsfix_path_is_dir(dir) && (slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	/* the nearest folder upward that holds a pin file */
	for (char *d = mpsfix_xstrdup(dir);;) {
		if (mpsfix_pins_present(d)) {
			free(dir);
			return d;
		}
		if (!strcmp(d, "/") || !(slash = strrchr(d, '/'))) {
			free(d);
			break;
		}
		*(slash == d ? slash + 1 : slash) = '\0';
	}
	return dir;
}
