/*
 * fuzz_rule.c: the rule loader on any bytes.  A rule file either loads or
 * gives an error message that names the file; nothing else may happen (no
 * crash, leak, undefined behaviour or unbounded time).
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fuzz.h"
#include "rule.h"

static mpsfix_ctx ctx; /* the fuzzer runs one input at a time */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (mpsfix_ctx_init(&ctx) < 0)
		fuzz_fail("no parser: %s", mpsfix_error_last()->message);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mpsfix_rule *r = NULL;
	int error = mpsfix_rule_load_buffer(&r, ctx.parser, "fuzz.yml", (const char *)data, size);

	if (error == 0) {
		if (!r || !r->id || !r->code || !r->npatterns)
			fuzz_fail("a rule loaded without id, code or pattern");
		/* a loaded rule can be indexed */
		mpsfix_index_free(mpsfix_index_new(&r, 1));
	} else if (r || strncmp(mpsfix_error_last()->message, "fuzz.yml", 8) != 0) {
		fuzz_fail("a failed load left a rule, or its message does not name the file: %s",
			  mpsfix_error_last()->message);
	}
	mpsfix_rule_free(r);
	return 0;
}
