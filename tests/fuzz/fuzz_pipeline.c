/*
 * fuzz_pipeline.c: Python bytes in, every shipped rule applied (disabled
 * and unsafe ones too), as `fix` does.  Then:
 * - the output parses with no more errors than the input;
 * - a second pass over the output changes nothing;
 * - every byte outside the edits the findings report (as `check` reports
 *   them, before fixing) is unchanged and in order; where a fix makes
 *   another finding, for each pass on the text it starts from;
 * - the results are those a fresh parser and matcher give (nothing carries
 *   over from one input to the next, as nothing may from file to file).
 * The text is also judged as a module imported beside a file, and as the
 * module of a class the file imports (sibling.h).
 * The rules come from $MPSFIX_RULES_DIR, else the source tree's rules/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fuzz.h"
#include "parse.h"
#include "rule.h"
#include "sibling.h"
#include "source.h"

static mpsfix_ctx ctx;
static mpsfix_ruleset rules;
static mpsfix_index *ix;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ix = fuzz_load_rules(&ctx, &rules);
	return 0;
}

static uint32_t errors_of(const char *text, size_t len)
{
	TSTree *tree = NULL;
	uint32_t n;

	if (mpsfix_parse(&tree, ctx.parser, text, (uint32_t)len) < 0)
		fuzz_fail("a text that parsed once does not parse again: %s",
			  mpsfix_error_last()->message);
	n = mpsfix_error_count(ts_tree_root_node(tree));
	ts_tree_delete(tree);
	return n;
}

/* The first place of `needle` (n > 0 bytes) in `hay`, or NULL. */
static const char *find(const char *hay, size_t hlen, const char *needle, size_t n)
{
	for (size_t i = 0; i + n <= hlen; i++) {
		const char *p = memchr(hay + i, needle[0], hlen - n + 1 - i);

		if (!p)
			return NULL;
		i = (size_t)(p - hay);
		if (memcmp(p, needle, n) == 0)
			return p;
	}
	return NULL;
}

static int cmp_span(const void *a, const void *b)
{
	const mpsfix_span *x = a, *y = b;

	return x->start != y->start ? (x->start < y->start ? -1 : 1) :
				      (x->end < y->end ? -1 : x->end > y->end);
}

/*
 * Is `out` the text `in` with only the lines of the reported edit ranges
 * changed (the edits, and the line breaks of wrap.h)?  The ranges are merged; the bytes between them must come out whole and in
 * order, the first at the start and the last at the end.
 */
static void check_outside_edits(const mpsfix_result *reported, const char *in, size_t len,
				const char *out, size_t out_len)
{
	ARRAY(mpsfix_span) spans = {0};
	size_t at = 0, merged = 0;
	uint32_t from = 0;

	for (size_t i = 0; i < reported->len; i++)
		for (size_t k = 0; k < reported->items[i].nedits; k++) {
			const mpsfix_edit *e = &reported->items[i].edits[k];

			if (e->start > e->end || e->end > len)
				fuzz_fail("a reported edit [%u, %u) outside the %zu-byte text",
					  e->start, e->end, len);
			/* a line a fix made too long is broken (wrap.h): the lines
			 * holding an edit may change, nothing else */
			{
				uint32_t s = e->start, t = e->end;

				while (s > 0 && in[s - 1] != '\n' && in[s - 1] != '\r')
					s--;
				while (t < len && in[t] != '\n' && in[t] != '\r')
					t++;
				ARRAY_PUSH(&spans, ((mpsfix_span){s, t}));
			}
		}
	if (spans.len > 1)
		qsort(spans.items, spans.len, sizeof(*spans.items), cmp_span);
	if (getenv("FUZZ_DEBUG")) { /* what the check below compares */
		for (size_t i = 0; i < spans.len; i++)
			fprintf(stderr, "reported edit [%u, %u): '%.*s'\n", spans.items[i].start,
				spans.items[i].end, (int)(spans.items[i].end - spans.items[i].start),
				in + spans.items[i].start);
		fprintf(stderr, "fixed text:\n%.*s\n", (int)out_len, out);
	}
	for (size_t i = 0; i < spans.len; i++) {
		if (merged && spans.items[i].start <= spans.items[merged - 1].end) {
			if (spans.items[i].end > spans.items[merged - 1].end)
				spans.items[merged - 1].end = spans.items[i].end;
		} else {
			spans.items[merged++] = spans.items[i];
		}
	}
	/* the kept stretches: [from, span.start) before each span, then the tail */
	for (size_t i = 0; i <= merged; i++) {
		uint32_t to = i < merged ? spans.items[i].start : (uint32_t)len;
		size_t n = to - from;

		if (i == 0 && n) { /* the head stays at the head */
			if (out_len < n || memcmp(out, in, n) != 0)
				fuzz_fail("bytes [0, %u) before the first edit changed", to);
			at = n;
		} else if (i == merged && n) { /* the tail stays at the tail */
			if (out_len - at < n || memcmp(out + out_len - n, in + from, n) != 0)
				fuzz_fail("bytes [%u, %zu) after the last edit changed", from, len);
		} else if (n) {
			const char *hit = find(out + at, out_len - at, in + from, n);

			if (!hit)
				fuzz_fail("bytes [%u, %u) between edits are not in the output", from, to);
			at = (size_t)(hit - out) + n;
		}
		if (i < merged)
			from = spans.items[i].end;
	}
	free(spans.items);
}

/* What `res` found, one line a finding (malloc'd). */
static char *describe(const mpsfix_result *res)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;

	for (size_t i = 0; i < res->len; i++) {
		const mpsfix_finding *f = &res->items[i];

		mpsfix_buf_printf(&b, "%s [%u, %u) fix %d (%s), %zu edits:", f->rule->code, f->start,
				  f->end, (int)f->fix, f->reason ? f->reason : "-", f->nedits);
		for (size_t k = 0; k < f->nedits; k++)
			mpsfix_buf_printf(&b, " [%u, %u)", f->edits[k].start, f->edits[k].end);
		mpsfix_buf_addc(&b, '\n');
	}
	for (size_t i = 0; i < res->nwarnings; i++)
		mpsfix_buf_printf(&b, "warning: %s\n", res->warnings[i]);
	return mpsfix_buf_detach(&b, NULL);
}

/* The engine on `src` with context `c`: 0, or 1 when the file is skipped (too deep, too slow). */
static int run_in(mpsfix_ctx *c, mpsfix_result *res, const mpsfix_source *src, bool fix, unsigned passes)
{
	mpsfix_engine_opts opts = {.fix = fix, .unsafe_fixes = true, .suppress = true, .max_passes = passes};
	int error = mpsfix_engine_run(res, c, ix, src, &opts);

	if (error == MPSFIX_ESKIP)
		return 1;
	if (error < 0)
		fuzz_fail("the engine failed: %s", mpsfix_error_last()->message);
	return 0;
}

/*
 * With the context every input shares (as the files of one run share it),
 * checking that the result is the one a fresh context gives: nothing an
 * earlier file left in the parser or matcher may change a later file's result.
 */
static int run(mpsfix_result *res, const mpsfix_source *src, bool fix, unsigned passes)
{
	mpsfix_ctx fresh;
	mpsfix_result alone = MPSFIX_RESULT_INIT;
	int skipped = run_in(&ctx, res, src, fix, passes), skipped_alone;
	char *a, *b;

	if (mpsfix_ctx_init(&fresh) < 0)
		fuzz_fail("no parser: %s", mpsfix_error_last()->message);
	skipped_alone = run_in(&fresh, &alone, src, fix, passes);
	a = skipped ? mpsfix_xstrdup("skipped") : describe(res);
	b = skipped_alone ? mpsfix_xstrdup("skipped") : describe(&alone);
	if (strcmp(a, b) != 0 || (!skipped && fix && (res->text_len != alone.text_len ||
						       memcmp(res->text, alone.text, res->text_len))))
		fuzz_fail("the result depends on what ran before (%s mode):\n%s--- with a fresh "
			  "parser and matcher:\n%s", fix ? "fix" : "check", a, b);
	free(a);
	free(b);
	mpsfix_result_release(&alone);
	mpsfix_ctx_release(&fresh);
	return skipped;
}

/*
 * A fix can make another finding (MPS104 lets a device be MPS, and the
 * non_blocking copy to it becomes MPS006's): each pass changes only the
 * lines of the edits that `check` reports on the text the pass starts from.
 */
static void check_each_pass(const mpsfix_source *src, unsigned passes)
{
	mpsfix_source prev = MPSFIX_SOURCE_INIT;

	if (mpsfix_source_from_buffer(&prev, "fuzz.py", src->data, src->len) < 0)
		fuzz_fail("the input is no longer a valid source");
	for (unsigned p = 1; p <= passes; p++) {
		mpsfix_result reported = MPSFIX_RESULT_INIT, step = MPSFIX_RESULT_INIT;

		if (run(&reported, &prev, false, 0) || run(&step, src, true, p))
			fuzz_fail("pass %u: the engine skipped a text it fixed", p);
		check_outside_edits(&reported, prev.data, prev.len, step.text, step.text_len);
		mpsfix_source_release(&prev);
		if (mpsfix_source_from_buffer(&prev, "fuzz.py", step.text, step.text_len) < 0)
			fuzz_fail("pass %u gave an invalid source", p);
		mpsfix_result_release(&reported);
		mpsfix_result_release(&step);
	}
	mpsfix_source_release(&prev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mpsfix_source src = MPSFIX_SOURCE_INIT, fixed = MPSFIX_SOURCE_INIT;
	mpsfix_result reported = MPSFIX_RESULT_INIT, res = MPSFIX_RESULT_INIT,
		      again = MPSFIX_RESULT_INIT;

	if (mpsfix_source_from_buffer(&src, "fuzz.py", (const char *)data, size) < 0)
		return 0; /* binary, not UTF-8, too large: skipped before any rule runs */
	/* the same text, as a module imported beside a file (sibling.h) */
	(void)mpsfix_sibling_module_fails("fuzz.py", src.data, src.len);
	(void)mpsfix_sibling_defines_class("fuzz.py", src.data, src.len, "EMAModel", "pin_memory");
	if (run(&reported, &src, false, 0) || run(&res, &src, true, 0))
		goto done;
	if (!res.text)
		fuzz_fail("fix mode gave no text");
	if (res.changed != (res.text_len != src.len || memcmp(res.text, src.data, src.len) != 0))
		fuzz_fail("'changed' is %d for a text that %s", res.changed,
			  res.changed ? "is the same" : "differs");
	if (!res.changed)
		goto done;
	if (errors_of(res.text, res.text_len) > errors_of(src.data, src.len))
		fuzz_fail("the fixed text parses with more errors than the input");
	if (res.passes <= 1)
		check_outside_edits(&reported, src.data, src.len, res.text, res.text_len);
	else
		check_each_pass(&src, res.passes);
	if (mpsfix_source_from_buffer(&fixed, "fuzz.py", res.text, res.text_len) < 0)
		fuzz_fail("the fixed text is not a valid source: %s", mpsfix_error_last()->message);
	if (run(&again, &fixed, true, 0) == 0 && again.changed)
		fuzz_fail("a second pass changed the fixed text again (%zu more fixes)", again.fixed);
done:
	mpsfix_result_release(&again);
	mpsfix_result_release(&res);
	mpsfix_result_release(&reported);
	mpsfix_source_release(&fixed);
	mpsfix_source_release(&src);
	return 0;
}
