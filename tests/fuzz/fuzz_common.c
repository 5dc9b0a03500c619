/* fuzz_common.c: what the targets of tests/fuzz/ share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "rule.h"

#ifndef MPSFIX_FUZZ_RULES
#define MPSFIX_FUZZ_RULES "rules"
#endif

void fuzz_fail(const char *what, ...)
{
	va_list ap;

	fputs("fuzz: property broken: ", stderr);
	va_start(ap, what);
	vfprintf(stderr, what, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

mpsfix_index *fuzz_load_rules(mpsfix_ctx *ctx, mpsfix_ruleset *rules)
{
	const char *dir = getenv("MPSFIX_RULES_DIR");

	if (!dir || !*dir)
		dir = MPSFIX_FUZZ_RULES;
	if (mpsfix_ctx_init(ctx) < 0 || mpsfix_ruleset_load(rules, ctx->parser, dir) < 0)
		fuzz_fail("cannot start: %s", mpsfix_error_last()->message);
	if (rules->len == 0)
		fuzz_fail("no rules in %s", dir);
	return mpsfix_index_new(rules->items, rules->len);
}
