/*
 * ruletest.h: `mpsfix test` — every rule's embedded examples, run through the
 * engine: an invalid example must be found and (when it gives an output) fix
 * to exactly that text; a valid example must not be found.
 */
#ifndef MPSFIX_RULETEST_H
#define MPSFIX_RULETEST_H

#include <stdio.h>

#include "engine.h"
#include "types.h"

typedef struct {
	size_t passed, failed;
} mpsfix_ruletest_counts;

/** Run the examples of `n` rules, printing a line per failure to `out`. */
int mpsfix_ruletest_run(mpsfix_ruletest_counts *counts, FILE *out, mpsfix_ctx *ctx,
			mpsfix_rule *const *rules, size_t n);

#endif
