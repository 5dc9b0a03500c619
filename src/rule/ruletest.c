#include "ruletest.h"

#include <stdlib.h>
#include <string.h>

static size_t count_rule(const mpsfix_result *r, const mpsfix_rule *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < r->len; i++)
		n += r->items[i].rule == rule;
	return n;
}

/* Print text with a visible end, so trailing blanks and line ends show. */
static void show(FILE *out, const char *label, const char *text, size_t len)
{
	fprintf(out, "  %s:\n", label);
	fputs("    | ", out);
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			fputs(i + 1 < len ? "\n    | " : "\n", out);
		else if (text[i] == '\r')
			fputs("\\r", out);
		else
			fputc(text[i], out);
	}
	if (!len || text[len - 1] != '\n')
		fputs("(no newline at end)\n", out);
}

static int run_example(bool *ok, FILE *out, mpsfix_ctx *ctx, const mpsfix_index *ix,
		       const mpsfix_rule *rule, const mpsfix_example *ex, bool invalid, size_t k)
{
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_result found = MPSFIX_RESULT_INIT, fixed = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts check = {.fix = false, .unsafe_fixes = true};
	mpsfix_engine_opts fix = {.fix = true, .unsafe_fixes = true};
	char *name = mpsfix_xasprintf("%s:%u", rule->path, ex->line);
	int error;

	*ok = true;
	if ((error = mpsfix_source_from_buffer(&src, name, ex->input, ex->input_len)) < 0 ||
	    (error = mpsfix_engine_run(&found, ctx, ix, &src, &check)) < 0)
		goto done;
	if (!invalid) {
		if (count_rule(&found, rule)) {
			*ok = false;
			fprintf(out, "FAIL %s: valid example %zu: %s matched at %u:%u, but must not\n",
				name, k + 1, rule->code, found.items[0].line, found.items[0].col);
		}
		goto done;
	}
	if (!count_rule(&found, rule)) {
		*ok = false;
		fprintf(out, "FAIL %s: invalid example %zu: %s did not match\n", name, k + 1, rule->code);
		show(out, "input", ex->input, ex->input_len);
		goto done;
	}
	if (ex->manual) {
		const mpsfix_finding *f = NULL;

		for (size_t i = 0; i < found.len && !f; i++)
			if (found.items[i].rule == rule)
				f = &found.items[i];
		if (f->fix != MPSFIX_FIX_MANUAL || !strstr(f->reason, ex->manual)) {
			*ok = false;
			fprintf(out, "FAIL %s: invalid example %zu: expected a manual fix (\"%s\"), got %s%s%s\n",
				name, k + 1, ex->manual,
				f->fix == MPSFIX_FIX_MANUAL ? "\"" : "a fix",
				f->fix == MPSFIX_FIX_MANUAL ? f->reason : "", f->fix == MPSFIX_FIX_MANUAL ? "\"" : "");
			show(out, "input", ex->input, ex->input_len);
		}
		goto done;
	}
	if (!ex->output)
		goto done;
	if ((error = mpsfix_engine_run(&fixed, ctx, ix, &src, &fix)) < 0)
		goto done;
	if (fixed.text_len != ex->output_len || memcmp(fixed.text, ex->output, ex->output_len)) {
		*ok = false;
		fprintf(out, "FAIL %s: invalid example %zu: the fix gives another text\n", name, k + 1);
		show(out, "expected", ex->output, ex->output_len);
		show(out, "got", fixed.text, fixed.text_len);
		for (size_t i = 0; i < fixed.len; i++)
			if (fixed.items[i].reason)
				fprintf(out, "  (%s at %u:%u needs a manual fix: %s)\n", fixed.items[i].rule->code,
					fixed.items[i].line, fixed.items[i].col, fixed.items[i].reason);
	}
done:
	if (error < 0) {
		*ok = false;
		fprintf(out, "FAIL %s: %s\n", name, mpsfix_error_last()->message);
		error = 0;
	}
	free(name);
	mpsfix_result_release(&found);
	mpsfix_result_release(&fixed);
	mpsfix_source_release(&src);
	return error;
}

int mpsfix_ruletest_run(mpsfix_ruletest_counts *counts, FILE *out, mpsfix_ctx *ctx,
			mpsfix_rule *const *rules, size_t n)
{
	int error = 0;

	counts->passed = counts->failed = 0;
	for (size_t r = 0; r < n && !error; r++) {
		mpsfix_index *ix = mpsfix_index_new(&rules[r], 1);

		for (size_t k = 0; k < rules[r]->ninvalid + rules[r]->nvalid && !error; k++) {
			bool invalid = k < rules[r]->ninvalid;
			const mpsfix_example *ex = invalid ? &rules[r]->invalid[k]
							   : &rules[r]->valid[k - rules[r]->ninvalid];
			bool ok;

			error = run_example(&ok, out, ctx, ix, rules[r], ex, invalid,
					    invalid ? k : k - rules[r]->ninvalid);
			if (ok)
				counts->passed++;
			else
				counts->failed++;
		}
		mpsfix_index_free(ix);
	}
	return error;
}
