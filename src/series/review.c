/*
 * review.c: one question per fix, on a terminal.
 */
#include "review.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "edit.h"
#include "git.h"
#include "parse.h"
#include "source.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_CYAN "\033[36m"
#define C_BLUE "\033[1;34m"

static const char prompt_keys[] = "[y]es [n]o [a]ll for this rule [s]kip rule [q]uit [?]";

static const char help_text[] =
	"y - apply this fix\n"
	"n - do not apply this fix\n"
	"a - apply this fix and every later fix of this rule\n"
	"s - do not apply this fix, nor any later fix of this rule\n"
	"q - quit: keep the fixes accepted so far, ask nothing more\n"
	"? - print this help\n";

/* An answer given in an earlier round, at its place in the current text. */
typedef struct {
	uint32_t start, end;
	bool accept;
} answer;

typedef ARRAY(answer) answer_list;

typedef enum { ASK, ALL, NONE } rule_mode;

typedef struct {
	const mpsfix_review_opts *ro;
	mpsfix_review_result *res;
	bool raw;
	struct termios saved;
	bool stop;           /* q, end of input, or a signal: ask nothing more */
} session;

/* ---- the terminal ----------------------------------------------------------------- */

static void terminal_raw(session *ss)
{
	struct termios t;

	if (!isatty(ss->ro->in) || tcgetattr(ss->ro->in, &ss->saved) < 0)
		return;
	t = ss->saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(ss->ro->in, TCSANOW, &t) == 0)
		ss->raw = true;
}

static void terminal_restore(session *ss)
{
	if (ss->raw)
		tcsetattr(ss->ro->in, TCSANOW, &ss->saved);
	ss->raw = false;
}

static bool interrupted(const session *ss)
{
	return ss->ro->interrupted && *ss->ro->interrupted;
}

/* The next key: a letter (lower case), 'q' at the end of the input (or ^D). */
static int read_key(session *ss, char *key)
{
	for (;;) {
		unsigned char c;
		ssize_t n;

		if (interrupted(ss)) {
			ss->res->end = MPSFIX_REVIEW_INTERRUPTED;
			ss->stop = true;
			*key = 'q';
			return 0;
		}
		n = read(ss->ro->in, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return mpsfix_error_set(MPSFIX_ERROR, "cannot read the answer: %s", strerror(errno));
		if (n == 0 || c == 4) {
			*key = 'q';
			return 0;
		}
		if (c == '\n' || c == '\r' || c == ' ' || c == '\t')
			continue;
		*key = (char)tolower(c);
		return 0;
	}
}

/* ---- showing a fix ---------------------------------------------------------------- */

static void colored(const session *ss, const char *color, const char *s, size_t n)
{
	FILE *o = ss->ro->out;

	if (ss->ro->color && color)
		fputs(color, o);
	fwrite(s, 1, n, o);
	if (ss->ro->color && color)
		fputs(C_RESET, o);
}

/* The hunks of `diff` (its file header dropped), colored as git colors them. */
static void show_hunks(const session *ss, const char *diff, size_t len)
{
	const char *p = diff, *end = diff + len;
	bool in_hunk = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *color = NULL;

		if (!strncmp(p, "@@", 2))
			in_hunk = true;
		if (in_hunk) {
			if (*p == '@')
				color = C_CYAN;
			else if (*p == '-')
				color = C_RED;
			else if (*p == '+')
				color = C_GREEN;
			colored(ss, color, p, n);
			fputc('\n', ss->ro->out);
		}
		p += n + (nl != NULL);
	}
}

/* A diff to show: of the whole file, or of one cell of a notebook (cell > 0). */
typedef struct {
	uint32_t cell;
	mpsfix_buf diff;
} shown_diff;

typedef ARRAY(shown_diff) shown_diffs;

static void shown_release(shown_diffs *l)
{
	for (size_t i = 0; i < l->len; i++)
		mpsfix_buf_release(&l->items[i].diff);
	free(l->items);
	*l = (shown_diffs){0};
}

/* The cells of notebook `nb` that `fixed` (its text after a fix) changes, each as a diff of its source. */
static int cell_diffs(shown_diffs *out, const mpsfix_series_file *file, const mpsfix_notebook *nb,
		      const char *data, size_t len, const char *fixed, size_t fixed_len)
{
	mpsfix_notebook after = MPSFIX_NOTEBOOK_INIT;
	mpsfix_buf rendered = MPSFIX_BUF_INIT;
	const char *name = file->name ? file->name : file->path;
	int error;

	if ((error = mpsfix_notebook_render(&rendered, &after, nb, file->path, data, len, fixed,
					    fixed_len)) < 0)
		goto done;
	for (size_t c = 0; c < nb->ncells && c < after.ncells && error == 0; c++) {
		const mpsfix_nb_cell *a = &nb->cells[c], *b = &after.cells[c];
		shown_diff d = {a->number, MPSFIX_BUF_INIT};

		if (a->code_len == b->code_len && !memcmp(a->code, b->code, a->code_len))
			continue;
		if ((error = mpsfix_git_diff(&d.diff, name, a->code, a->code_len, b->code, b->code_len)) == 0)
			ARRAY_PUSH(out, d);
		else
			mpsfix_buf_release(&d.diff);
	}
done:
	mpsfix_notebook_release(&after);
	mpsfix_buf_release(&rendered);
	return error;
}

/*
 * The text with only the edits of finding `f`, as diffs against the text
 * (`data`, the file's bytes; `text`, what the engine read: a notebook's
 * Python, `nb` set): one of the file, or one per notebook cell it changes.
 */
static int fix_diff(shown_diffs *out, const mpsfix_series_file *file, const mpsfix_notebook *nb,
		    const char *data, size_t len, const char *text, size_t text_len,
		    const mpsfix_finding *f)
{
	mpsfix_edits one = MPSFIX_EDITS_INIT;
	mpsfix_buf fixed = MPSFIX_BUF_INIT;
	shown_diff d = {0, MPSFIX_BUF_INIT};
	int error;

	for (size_t i = 0; i < f->nedits; i++) {
		const mpsfix_edit *e = &f->edits[i];

		if (e->shared)
			mpsfix_edits_add_shared(&one, e->start, e->end, e->text, e->len, 0);
		else
			mpsfix_edits_add(&one, e->start, e->end, e->text, e->len, 0);
	}
	if ((error = mpsfix_edits_apply(&fixed, &one, text, text_len, NULL, NULL)) < 0)
		goto done;
	if (nb->text) {
		error = cell_diffs(out, file, nb, data, len, fixed.data ? fixed.data : "", fixed.len);
	} else if ((error = mpsfix_git_diff(&d.diff, file->name ? file->name : file->path, text, text_len,
					    fixed.data ? fixed.data : "", fixed.len)) == 0) {
		ARRAY_PUSH(out, d);
		d.diff = (mpsfix_buf)MPSFIX_BUF_INIT;
	}
done:
	mpsfix_buf_release(&d.diff);
	mpsfix_buf_release(&fixed);
	mpsfix_edits_release(&one);
	return error;
}

/* The fix: where (a notebook's cell and line), its rule, and its diffs. */
static void show(const session *ss, const mpsfix_series_file *file, const mpsfix_source *src,
		 const mpsfix_finding *f, const shown_diffs *diffs)
{
	FILE *o = ss->ro->out;
	uint32_t cell, cell_line, file_line;
	char *head = mpsfix_source_cell_of(src, f->line, &cell, &cell_line, &file_line)
		? mpsfix_xasprintf("%s:cell %u:%u:%u:", file->path, cell, cell_line, f->col)
		: mpsfix_xasprintf("%s:%u:%u:", file->path, f->line, f->col);
	char *rule = mpsfix_xasprintf("%s %s", f->rule->code, f->rule->id);

	fputc('\n', o);
	colored(ss, C_BOLD, head, strlen(head));
	fputc(' ', o);
	colored(ss, C_BLUE, rule, strlen(rule));
	fprintf(o, ": %s\n", f->rule->message);
	for (size_t i = 0; i < diffs->len; i++) {
		const shown_diff *d = &diffs->items[i];

		if (d->cell && diffs->len > 1) {
			char *label = mpsfix_xasprintf("cell %u", d->cell);

			colored(ss, C_BOLD, label, strlen(label));
			fputc('\n', o);
			free(label);
		}
		show_hunks(ss, d->diff.data ? d->diff.data : "", d->diff.len);
	}
	free(head);
	free(rule);
}

/* Ask about the fix shown: *accept; `a` and `s` set *mode for the rest of the rule. */
static int ask(session *ss, rule_mode *mode, size_t nr, size_t total, const mpsfix_rule *rule,
	       bool *accept)
{
	FILE *o = ss->ro->out;
	char key = 0;
	int error;

	for (;;) {
		fprintf(o, "(%zu/%zu) %s: apply this fix? %s ", nr, total, rule->code, prompt_keys);
		fflush(o);
		if ((error = read_key(ss, &key)) < 0)
			return error;
		if (!ss->stop || key != 'q')
			fprintf(o, "%c\n", key);
		else
			fputc('\n', o);
		switch (key) {
		case 'y':
			*accept = true;
			return 0;
		case 'n':
			*accept = false;
			return 0;
		case 'a':
			*mode = ALL;
			*accept = true;
			return 0;
		case 's':
			*mode = NONE;
			*accept = false;
			return 0;
		case 'q':
			ss->stop = true;
			if (ss->res->end != MPSFIX_REVIEW_INTERRUPTED)
				ss->res->end = MPSFIX_REVIEW_QUIT;
			*accept = false;
			return 0;
		case '?':
			fputs(help_text, o);
			break;
		default:
			fprintf(o, "unknown answer '%c'\n", key);
			fputs(help_text, o);
			break;
		}
	}
}

/* ---- applying the answers ------------------------------------------------------------ */

/*
 * Where [start, end) of the text before `edits` lies after them, or false
 * when an applied edit touched it (overlaps it, or inserts inside it).
 */
static bool map_span(const mpsfix_edits *edits, uint32_t *start, uint32_t *end)
{
	int64_t shift = 0;

	for (size_t i = 0; i < edits->len; i++) {
		const mpsfix_edit *e = &edits->items[i];

		if (!e->applied)
			continue;
		if ((e->start < *end && *start < e->end) || (e->start == e->end && *start < e->start &&
							      e->start < *end))
			return false;
		if (e->end <= *start)
			shift += (int64_t)e->len - (int64_t)(e->end - e->start);
	}
	*start = (uint32_t)((int64_t)*start + shift);
	*end = (uint32_t)((int64_t)*end + shift);
	return true;
}

/* Does the text parse with no more errors after the fixes than before? */
static int parses_as_well(bool *ok, mpsfix_ctx *ctx, const char *name, const char *before, size_t blen,
			  const char *after, size_t alen)
{
	TSTree *a = NULL, *b = NULL;
	int error;

	*ok = false;
	if ((error = mpsfix_parse_named(&b, ctx->parser, name, before, (uint32_t)blen)) == 0 &&
	    (error = mpsfix_parse_named(&a, ctx->parser, name, after, (uint32_t)alen)) == 0)
		*ok = mpsfix_error_count(ts_tree_root_node(a)) <= mpsfix_error_count(ts_tree_root_node(b));
	ts_tree_delete(a);
	ts_tree_delete(b);
	return error;
}

/* What one file holds in one round of one rule. */
typedef struct {
	mpsfix_source src;      /* the current text, as the engine read it */
	mpsfix_notebook nb;     /* a notebook's cells, when it is one */
	mpsfix_result res;      /* its findings in the current text */
	answer_list answers;    /* answers given so far, in the current text */
	bool ran;
} file_round;

/* What a round read of the file (its answers stay). */
static void round_release(file_round *fr)
{
	mpsfix_result_release(&fr->res);
	mpsfix_source_release(&fr->src);
	mpsfix_notebook_release(&fr->nb);
	fr->ran = false;
}

static bool is_candidate(const mpsfix_finding *f)
{
	return f->fix == MPSFIX_FIX_AVAILABLE && f->nedits > 0;
}

/* An earlier answer for a fix at [start, end), if any. */
static const answer *earlier(const answer_list *l, const mpsfix_finding *f)
{
	for (size_t i = 0; i < l->len; i++)
		if (l->items[i].start == f->start && l->items[i].end == f->end)
			return &l->items[i];
	return NULL;
}

/*
 * Apply the accepted fixes of one file (accept[k] for its k-th finding),
 * record them as `rule`'s step, and carry the answers over to the new text.
 * Returns the number of fixes applied through *applied.
 */
static int apply_file(mpsfix_series *s, size_t i, mpsfix_ctx *ctx, const mpsfix_rule *rule,
		      file_round *fr, const bool *accept, size_t *applied)
{
	mpsfix_edits edits = MPSFIX_EDITS_INIT;
	mpsfix_buf out = MPSFIX_BUF_INIT;
	answer_list kept = {0};
	size_t len = fr->src.len, groups = 0;
	const char *text = fr->src.data;
	bool ok;
	int error = 0;

	*applied = 0;
	for (size_t k = 0; k < fr->res.len; k++) {
		const mpsfix_finding *f = &fr->res.items[k];

		if (!accept[k])
			continue;
		for (size_t e = 0; e < f->nedits; e++) {
			const mpsfix_edit *ed = &f->edits[e];

			if (ed->shared)
				mpsfix_edits_add_shared(&edits, ed->start, ed->end, ed->text, ed->len, (uint32_t)k);
			else
				mpsfix_edits_add(&edits, ed->start, ed->end, ed->text, ed->len, (uint32_t)k);
		}
	}
	if (!edits.len)
		goto done;
	if ((error = mpsfix_edits_apply(&out, &edits, text, len, &groups, NULL)) < 0 || !groups)
		goto done;
	if ((error = parses_as_well(&ok, ctx, s->files[i].path, text, len, out.data ? out.data : "",
				    out.len)) < 0)
		goto done;
	if (!ok) {
		char *w = mpsfix_xasprintf("%s: %s fixes not applied: the fixed code would not parse",
					   s->files[i].path, rule->code);

		mpsfix_series_warn(s, w);
		free(w);
		goto done;
	}
	error = mpsfix_series_record_fixed(s, rule, i, &fr->nb, out.data ? out.data : "", out.len, groups);
	if (error == MPSFIX_ESKIP) {
		/* a notebook that cannot take them: the fixes are not made */
		mpsfix_series_warn(s, mpsfix_error_last()->message);
		error = 0;
		goto done;
	}
	/* answers about code the fixes did not touch stay attached to it */
	for (size_t a = 0; a < fr->answers.len; a++) {
		answer an = fr->answers.items[a];

		if (map_span(&edits, &an.start, &an.end))
			ARRAY_PUSH(&kept, an);
	}
	free(fr->answers.items);
	fr->answers = (answer_list){kept.items, kept.len, kept.cap};
	kept.items = NULL;
	*applied = groups;
done:
	free(kept.items);
	mpsfix_buf_release(&out);
	mpsfix_edits_release(&edits);
	return error;
}

/* One rule, over every file, in rounds until nothing more is applied. */
static int review_rule(session *ss, mpsfix_series *s, mpsfix_ctx *ctx, mpsfix_rule *rule,
		       const mpsfix_engine_opts *eo, mpsfix_series_file_cb on_file, void *payload)
{
	mpsfix_index *ix = mpsfix_index_new(&rule, 1);
	file_round *fr = mpsfix_xcalloc(s->nfiles + 1, sizeof(*fr));
	rule_mode mode = ASK;
	int error = 0;

	for (unsigned round = 0; round < MPSFIX_MAX_PASSES && !ss->stop; round++) {
		size_t total = 0, nr = 0, applied_round = 0;

		/* the fixes of every file, and how many will be asked */
		for (size_t i = 0; i < s->nfiles; i++) {
			mpsfix_engine_opts fo = *eo;

			round_release(&fr[i]);
			if (s->files[i].skipped)
				continue;
			if (on_file)
				on_file(payload, &s->files[i], &fo);
			if ((error = mpsfix_series_source(&fr[i].src, &fr[i].nb, s, i)) == 0)
				error = mpsfix_engine_run(&fr[i].res, ctx, ix, &fr[i].src, &fo);
			if (error == MPSFIX_ESKIP) {
				s->files[i].skipped = true;
				mpsfix_series_warn(s, mpsfix_error_last()->message);
				error = 0;
				continue;
			}
			if (error < 0)
				goto done;
			fr[i].ran = true;
			for (size_t w = 0; w < fr[i].res.nwarnings; w++)
				mpsfix_series_warn(s, fr[i].res.warnings[w]);
			for (size_t k = 0; k < fr[i].res.len; k++)
				total += is_candidate(&fr[i].res.items[k]) &&
					 !earlier(&fr[i].answers, &fr[i].res.items[k]);
		}

		for (size_t i = 0; i < s->nfiles; i++) {
			bool *accept;
			size_t applied = 0, len;
			const char *text;

			if (!fr[i].ran || !fr[i].res.len)
				continue;
			text = mpsfix_series_text(s, i, &len);
			accept = mpsfix_xcalloc(fr[i].res.len, sizeof(bool));
			for (size_t k = 0; k < fr[i].res.len; k++) {
				const mpsfix_finding *f = &fr[i].res.items[k];
				const answer *before = earlier(&fr[i].answers, f);
				shown_diffs diffs = {0};

				if (!is_candidate(f))
					continue;
				if (before) {
					accept[k] = before->accept;
					continue;
				}
				if (ss->stop)
					break;
				nr++;
				if (mode == ASK) {
					error = fix_diff(&diffs, &s->files[i], &fr[i].nb, text, len, fr[i].src.data,
							 fr[i].src.len, f);
					if (error == MPSFIX_ESKIP) {
						/* a notebook that cannot take this fix: not asked, not made */
						mpsfix_series_warn(s, mpsfix_error_last()->message);
						shown_release(&diffs);
						ARRAY_PUSH(&fr[i].answers, ((answer){f->start, f->end, false}));
						error = 0;
						continue;
					}
					if (error < 0) {
						shown_release(&diffs);
						free(accept);
						goto done;
					}
					show(ss, &s->files[i], &fr[i].src, f, &diffs);
					shown_release(&diffs);
					if ((error = ask(ss, &mode, nr, total, rule, &accept[k])) < 0) {
						free(accept);
						goto done;
					}
					if (ss->stop)
						break;
				} else {
					accept[k] = mode == ALL;
				}
				ss->res->accepted += accept[k];
				ss->res->declined += !accept[k];
				ARRAY_PUSH(&fr[i].answers, ((answer){f->start, f->end, accept[k]}));
			}
			if (ss->res->end != MPSFIX_REVIEW_INTERRUPTED)
				error = apply_file(s, i, ctx, rule, &fr[i], accept, &applied);
			free(accept);
			if (error < 0)
				goto done;
			applied_round += applied;
			if (ss->stop)
				break;
		}
		if (!applied_round)
			break;
	}
done:
	for (size_t i = 0; i < s->nfiles; i++) {
		round_release(&fr[i]);
		free(fr[i].answers.items);
	}
	free(fr);
	mpsfix_index_free(ix);
	return error;
}

int mpsfix_review_run(mpsfix_review_result *out, mpsfix_series *s, mpsfix_ctx *ctx,
		      mpsfix_rule *const *rules, size_t n, const mpsfix_engine_opts *eo,
		      const mpsfix_review_opts *ro, mpsfix_series_file_cb on_file, void *payload)
{
	session ss = {.ro = ro, .res = out};
	mpsfix_engine_opts co = *eo;
	int error = 0;

	*out = (mpsfix_review_result){.end = MPSFIX_REVIEW_DONE};
	co.fix = false;
	co.unused_suppressions = false;
	terminal_raw(&ss);
	for (size_t r = 0; r < n && !ss.stop && error == 0; r++)
		error = review_rule(&ss, s, ctx, rules[r], &co, on_file, payload);
	terminal_restore(&ss);
	if (interrupted(&ss))
		out->end = MPSFIX_REVIEW_INTERRUPTED;
	fflush(ro->out);
	return error;
}
