/*
 * cmd_test.c: mpsfix test: the examples embedded in the rules (each rule's
 * `examples:`), run through the engine; "N passed, N failed".
 */
#include "cmd.h"

#include "ruletest.h"

int mpsfix_cmd_test(mpsfix_cmd *st)
{
	mpsfix_ruletest_counts counts;

	if (mpsfix_ruletest_run(&counts, stdout, &st->ctx, st->rules.items, st->rules.len) < 0) {
		mpsfix_cmd_error(mpsfix_error_last()->message);
		return MPSFIX_EXIT_ERROR;
	}
	printf("%zu passed, %zu failed\n", counts.passed, counts.failed);
	return counts.failed ? MPSFIX_EXIT_FINDINGS : MPSFIX_EXIT_OK;
}
