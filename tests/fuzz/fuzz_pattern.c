/*
 * fuzz_pattern.c: the pattern compiler on any text, and the matcher with
 * what compiles.  The input is the pattern, then optionally a NUL byte and
 * Python code to match it in; without one, the pattern's own text with '$'
 * read as '_' is the code.  An error's offset must lie inside the pattern.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fuzz.h"
#include "parse.h"
#include "pattern.h"

static mpsfix_ctx ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (mpsfix_ctx_init(&ctx) < 0)
		fuzz_fail("no parser: %s", mpsfix_error_last()->message);
	return 0;
}

static mpsfix_walk_action match_here(TSNode n, void *payload)
{
	const void **args = payload;
	mpsfix_match m = MPSFIX_MATCH_INIT;

	if (mpsfix_match_node(&m, ctx.matcher, args[0], n, args[1]) == 0) {
		if (ts_node_start_byte(m.node) < ts_node_start_byte(n) ||
		    ts_node_end_byte(m.node) > ts_node_end_byte(n))
			fuzz_fail("a match outside the node it was tried at");
		mpsfix_match_release(&m);
	}
	return MPSFIX_WALK_DESCEND;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(text, '\0', size);
	size_t plen = nul ? (size_t)(nul - text) : size;
	mpsfix_pattern *p = NULL;
	TSTree *tree = NULL;
	uint32_t off = 0;
	char *code;
	size_t clen;

	if (mpsfix_pattern_compile(&p, ctx.parser, text, plen, &off) < 0) {
		if (off > plen)
			fuzz_fail("error offset %u past the pattern's %zu bytes", off, plen);
		return 0;
	}
	if (nul) {
		clen = size - plen - 1;
		code = malloc(clen + 1);
		memcpy(code, nul + 1, clen);
	} else {
		clen = plen;
		code = malloc(clen + 1);
		for (size_t i = 0; i < clen; i++)
			code[i] = text[i] == '$' ? '_' : text[i];
	}
	code[clen] = '\0';
	if (clen <= UINT32_MAX && mpsfix_parse(&tree, ctx.parser, code, (uint32_t)clen) == 0) {
		const void *args[] = {p, code};

		mpsfix_walk(ts_tree_root_node(tree), match_here, args);
		ts_tree_delete(tree);
	}
	free(code);
	mpsfix_pattern_free(p);
	return 0;
}
