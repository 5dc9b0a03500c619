/*
 * series.c: fixes rule by rule, as steps, and their commit messages.
 */
#include "series.h"

#include <stdlib.h>
#include <string.h>

#include "source.h"

void mpsfix_series_release(mpsfix_series *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].name);
		free(s->files[i].text);
	}
	free(s->files);
	for (size_t i = 0; i < s->nsteps; i++) {
		for (size_t k = 0; k < s->steps[i].nchanges; k++)
			free(s->steps[i].changes[k].text);
		free(s->steps[i].changes);
	}
	free(s->steps);
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	*s = (mpsfix_series)MPSFIX_SERIES_INIT;
}

size_t mpsfix_series_add_file(mpsfix_series *s, const char *path, const char *name,
			      const char *text, size_t len, bool have_mode, unsigned mode)
{
	mpsfix_series_file *f;

	mpsfix_grow((void **)&s->files, &s->files_cap, s->nfiles + 1, sizeof(*s->files));
	f = &s->files[s->nfiles];
	*f = (mpsfix_series_file){
		.path = mpsfix_xstrdup(path),
		.name = name ? mpsfix_xstrdup(name) : NULL,
		.text = mpsfix_xstrndup(text ? text : "", len),
		.len = len,
		.have_mode = have_mode,
		.mode = mode,
	};
	return s->nfiles++;
}

const char *mpsfix_series_text(const mpsfix_series *s, size_t file, size_t *len)
{
	for (size_t i = s->nsteps; i > 0; i--) {
		const mpsfix_series_step *st = &s->steps[i - 1];

		for (size_t k = 0; k < st->nchanges; k++)
			if (st->changes[k].file == file) {
				*len = st->changes[k].len;
				return st->changes[k].text;
			}
	}
	*len = s->files[file].len;
	return s->files[file].text;
}

void mpsfix_series_record(mpsfix_series *s, const mpsfix_rule *rule, size_t file,
			  const char *text, size_t len, size_t sites)
{
	mpsfix_series_step *st;
	mpsfix_series_change *c = NULL;
	size_t cur_len;
	const char *cur = mpsfix_series_text(s, file, &cur_len);

	if (cur_len == len && memcmp(cur, text, len) == 0)
		return;
	if (!s->nsteps || s->steps[s->nsteps - 1].rule != rule) {
		mpsfix_grow((void **)&s->steps, &s->steps_cap, s->nsteps + 1, sizeof(*s->steps));
		s->steps[s->nsteps++] = (mpsfix_series_step){.rule = rule};
	}
	st = &s->steps[s->nsteps - 1];
	for (size_t k = 0; k < st->nchanges; k++)
		if (st->changes[k].file == file)
			c = &st->changes[k];
	if (!c) {
		mpsfix_grow((void **)&st->changes, &st->cap, st->nchanges + 1, sizeof(*st->changes));
		c = &st->changes[st->nchanges++];
		*c = (mpsfix_series_change){.file = file};
	}
	free(c->text);
	c->text = mpsfix_xstrndup(text, len);
	c->len = len;
	c->sites += sites;
	st->sites += sites;
}

void mpsfix_series_warn(mpsfix_series *s, const char *message)
{
	for (size_t i = 0; i < s->nwarnings; i++)
		if (!strcmp(s->warnings[i], message))
			return;
	mpsfix_grow((void **)&s->warnings, &s->warnings_cap, s->nwarnings + 1, sizeof(*s->warnings));
	s->warnings[s->nwarnings++] = mpsfix_xstrdup(message);
}

static int by_code(const void *a, const void *b)
{
	const mpsfix_rule *x = *(const mpsfix_rule *const *)a, *y = *(const mpsfix_rule *const *)b;

	return strcmp(x->code, y->code);
}

void mpsfix_series_order(mpsfix_rule **rules, size_t n)
{
	if (n > 1)
		qsort(rules, n, sizeof(*rules), by_code);
}

int mpsfix_series_source(mpsfix_source *src, mpsfix_notebook *nb, const mpsfix_series *s, size_t i)
{
	size_t len;
	const char *text = mpsfix_series_text(s, i, &len);

	*nb = (mpsfix_notebook)MPSFIX_NOTEBOOK_INIT;
	if (mpsfix_is_notebook_path(s->files[i].path))
		return mpsfix_notebook_source(src, nb, s->files[i].path, text, len);
	return mpsfix_source_from_buffer(src, s->files[i].path, text, len);
}

int mpsfix_series_record_fixed(mpsfix_series *s, const mpsfix_rule *rule, size_t i,
			       const mpsfix_notebook *nb, const char *fixed, size_t len, size_t sites)
{
	mpsfix_buf out = MPSFIX_BUF_INIT;
	size_t cur_len;
	const char *cur;
	int error;

	if (!nb->text) {
		mpsfix_series_record(s, rule, i, fixed, len, sites);
		return 0;
	}
	cur = mpsfix_series_text(s, i, &cur_len);
	if ((error = mpsfix_notebook_render(&out, NULL, nb, s->files[i].path, cur, cur_len, fixed,
					    len)) == 0)
		mpsfix_series_record(s, rule, i, out.data ? out.data : "", out.len, sites);
	mpsfix_buf_release(&out);
	return error;
}

/* Run the engine over file `i`'s latest text (a notebook's into `nb`); MPSFIX_ESKIP marks it skipped. */
static int run_file(mpsfix_result *res, mpsfix_notebook *nb, mpsfix_series *s, size_t i, mpsfix_ctx *ctx,
		    const mpsfix_index *ix, const mpsfix_engine_opts *eo,
		    mpsfix_series_file_cb on_file, void *payload,
		    mpsfix_series_left_cb on_left, void *left_payload)
{
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_engine_opts fo = *eo;
	int error;

	if (on_file)
		on_file(payload, &s->files[i], &fo);
	if ((error = mpsfix_series_source(&src, nb, s, i)) == 0)
		error = mpsfix_engine_run(res, ctx, ix, &src, &fo);
	if (error == 0 && on_left && res->len)
		on_left(left_payload, &src, res);
	mpsfix_source_release(&src);
	if (error == MPSFIX_ESKIP) {
		s->files[i].skipped = true;
		mpsfix_series_warn(s, mpsfix_error_last()->message);
		return error;
	}
	if (error < 0)
		return error;
	for (size_t w = 0; w < res->nwarnings; w++)
		mpsfix_series_warn(s, res->warnings[w]);
	return 0;
}

int mpsfix_series_fix(mpsfix_series *s, mpsfix_ctx *ctx, mpsfix_rule *const *rules, size_t n,
		      const mpsfix_engine_opts *eo, mpsfix_series_file_cb on_file, void *payload)
{
	mpsfix_engine_opts fo = *eo;
	int error = 0;

	fo.fix = true;
	fo.unused_suppressions = false;
	for (size_t r = 0; r < n && error == 0; r++) {
		mpsfix_index *ix = mpsfix_index_new(&rules[r], 1);

		for (size_t i = 0; i < s->nfiles && error == 0; i++) {
			mpsfix_result res = MPSFIX_RESULT_INIT;
			mpsfix_notebook nb = MPSFIX_NOTEBOOK_INIT;

			if (s->files[i].skipped)
				continue;
			error = run_file(&res, &nb, s, i, ctx, ix, &fo, on_file, payload, NULL, NULL);
			if (error == 0 && res.changed &&
			    (error = mpsfix_series_record_fixed(s, rules[r], i, &nb, res.text, res.text_len,
								res.fixed)) == MPSFIX_ESKIP) {
				/* this rule's fixes are not made: its findings stay */
				mpsfix_series_warn(s, mpsfix_error_last()->message);
			}
			if (error == MPSFIX_ESKIP)
				error = 0;
			mpsfix_result_release(&res);
			mpsfix_notebook_release(&nb);
		}
		mpsfix_index_free(ix);
	}
	return error;
}

int mpsfix_series_remaining(mpsfix_series_left *out, mpsfix_series *s, mpsfix_ctx *ctx,
			    const mpsfix_index *ix, const mpsfix_engine_opts *eo,
			    mpsfix_series_file_cb on_file, void *payload,
			    mpsfix_series_left_cb on_left, void *left_payload)
{
	mpsfix_engine_opts co = *eo;
	int error = 0;

	co.fix = false;
	co.unused_suppressions = false;
	*out = (mpsfix_series_left){0};
	for (size_t i = 0; i < s->nfiles && error == 0; i++) {
		mpsfix_result res = MPSFIX_RESULT_INIT;
		mpsfix_notebook nb = MPSFIX_NOTEBOOK_INIT;

		if (s->files[i].skipped)
			continue;
		error = run_file(&res, &nb, s, i, ctx, ix, &co, on_file, payload, on_left, left_payload);
		mpsfix_notebook_release(&nb);
		if (error == MPSFIX_ESKIP)
			error = 0;
		for (size_t k = 0; k < res.len; k++) {
			out->findings++;
			out->unsafe_fixable += res.items[k].fix == MPSFIX_FIX_UNSAFE;
		}
		mpsfix_result_release(&res);
	}
	return error;
}

size_t *mpsfix_series_changed(const mpsfix_series *s, size_t *n)
{
	size_t *out = mpsfix_xcalloc(s->nfiles + 1, sizeof(*out));

	*n = 0;
	for (size_t i = 0; i < s->nfiles; i++) {
		size_t len;
		const char *text = mpsfix_series_text(s, i, &len);

		if (len != s->files[i].len || memcmp(text, s->files[i].text, len) != 0)
			out[(*n)++] = i;
	}
	return out;
}

/* ---- commit messages -------------------------------------------------------------- */

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* `text` on one line: line breaks become spaces. */
static void add_oneline(mpsfix_buf *b, const char *text)
{
	for (const char *p = text; *p; p++)
		mpsfix_buf_addc(b, *p == '\n' || *p == '\r' ? ' ' : *p);
}

/* Append `text` wrapped at 72 columns (words are never split), then a newline. */
static void add_wrapped(mpsfix_buf *b, const char *text)
{
	size_t col = 0;
	const char *p = text;

	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " \n");
		if (col && col + 1 + n > 72) {
			mpsfix_buf_addc(b, '\n');
			col = 0;
		} else if (col) {
			mpsfix_buf_addc(b, ' ');
			col++;
		}
		mpsfix_buf_add(b, p, n);
		col += n;
		p += n;
	}
	mpsfix_buf_addc(b, '\n');
}

/* The file's name in messages: in the repository, else as shown. */
static const char *file_name(const mpsfix_series *s, size_t file)
{
	return s->files[file].name ? s->files[file].name : s->files[file].path;
}

char *mpsfix_series_message(const mpsfix_series *s, size_t first, size_t n, const mpsfix_message_opts *o)
{
	mpsfix_buf b = MPSFIX_BUF_INIT, para = MPSFIX_BUF_INIT;
	size_t sites = 0, *per_file = mpsfix_xcalloc(s->nfiles + 1, sizeof(size_t));

	for (size_t i = first; i < first + n; i++) {
		sites += s->steps[i].sites;
		for (size_t k = 0; k < s->steps[i].nchanges; k++)
			per_file[s->steps[i].changes[k].file] += s->steps[i].changes[k].sites;
	}

	/* the subject */
	if (n == 1) {
		const mpsfix_rule *r = s->steps[first].rule;

		mpsfix_buf_printf(&b, "mpsfix: %s %s: ", r->code, r->id);
		add_oneline(&b, r->message);
	} else {
		mpsfix_buf_adds(&b, "mpsfix: fix ");
		for (size_t i = first; i < first + n; i++)
			mpsfix_buf_printf(&b, "%s%s", i > first ? ", " : "", s->steps[i].rule->code);
	}
	mpsfix_buf_printf(&b, " (%zu site%s)\n", sites, plural(sites));

	/* each rule: what it fixes, and where it comes from */
	for (size_t i = first; i < first + n; i++) {
		const mpsfix_rule *r = s->steps[i].rule;

		mpsfix_buf_clear(&para);
		mpsfix_buf_printf(&para, "%s %s (%zu site%s): ", r->code, r->id, s->steps[i].sites,
				  plural(s->steps[i].sites));
		add_oneline(&para, r->message);
		mpsfix_buf_adds(&b, "\n");
		add_wrapped(&b, para.data);
		if (r->url)
			mpsfix_buf_printf(&b, "See %s\n", r->url);
	}

	mpsfix_buf_adds(&b, "\nFiles:\n");
	for (size_t f = 0; f < s->nfiles; f++)
		if (per_file[f])
			mpsfix_buf_printf(&b, "    %s (%zu site%s)\n", file_name(s, f), per_file[f],
					  plural(per_file[f]));

	mpsfix_buf_adds(&b, "\n");
	for (size_t i = first; i < first + n; i++)
		mpsfix_buf_printf(&b, "Mpsfix-Rule: %s\n", s->steps[i].rule->code);
	if (o && o->target_torch) {
		mpsfix_buf_adds(&b, "Mpsfix-Target-Torch: ");
		add_oneline(&b, o->target_torch);
		mpsfix_buf_addc(&b, '\n');
	}
	if (o && o->signoff)
		mpsfix_buf_printf(&b, "Signed-off-by: %s\n", o->signoff);
	free(per_file);
	mpsfix_buf_release(&para);
	return mpsfix_buf_detach(&b, NULL);
}
