/*
 * cuda_code.c: code written for CUDA alone (see cuda_code.h).  The evidence
 * is a call that fails, or measures nothing, without CUDA and that a program
 * meant to run on a Mac would not make unconditionally: CUDA events and
 * streams, CUDA memory statistics, a device asked for as "cuda" by name.
 */
#include "cuda_code.h"

#include <string.h>

#include "literal.h"
#include "parse.h"

/* torch.cuda APIs that exist for CUDA alone (no MPS counterpart is called the same) */
static const char *const cuda_apis[] = {
	"torch.cuda.Event", "torch.cuda.Stream", "torch.cuda.current_stream", "torch.cuda.default_stream",
	"torch.cuda.stream", "torch.cuda.set_device", "torch.cuda.current_device",
	"torch.cuda.get_device_properties", "torch.cuda.get_device_name", "torch.cuda.get_device_capability",
	"torch.cuda.memory_allocated", "torch.cuda.max_memory_allocated", "torch.cuda.memory_reserved",
	"torch.cuda.max_memory_reserved", "torch.cuda.memory_stats", "torch.cuda.memory_summary",
	"torch.cuda.reset_peak_memory_stats", "torch.cuda.reset_max_memory_allocated",
	"torch.cuda.reset_max_memory_cached", "torch.cuda.mem_get_info", "torch.cuda.CUDAGraph",
	"torch.cuda.graph", "torch.cuda.nvtx.range_push", "torch.cuda.nvtx.range_pop",
	"torch.cuda.nvtx.range", "torch.cuda.amp.autocast",
};

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Is `n` a string literal that names a CUDA device ("cuda", "cuda:1", f"cuda:{i}")? */
static bool cuda_string(TSNode n, const char *src)
{
	mpsfix_literal lit;
	bool yes;

	if (!is(n, "string"))
		return false;
	if (!mpsfix_literal_from_node(&lit, n, src)) {
		/* an f-string: its text after the prefix and the quote */
		const char *p = src + ts_node_start_byte(n), *end = src + ts_node_end_byte(n);

		while (p < end && (*p == 'f' || *p == 'F' || *p == 'r' || *p == 'R'))
			p++;
		if (p < end && (*p == '"' || *p == '\''))
			p++;
		return end - p > 5 && !strncmp(p, "cuda", 4) && (p[4] == ':' || p[4] == p[-1]);
	}
	yes = lit.type == MPSFIX_LIT_STRING && !strncmp(lit.s, "cuda", 4) && (lit.s[4] == '\0' || lit.s[4] == ':');
	mpsfix_literal_release(&lit);
	return yes;
}

typedef struct {
	mpsfix_names *names;
	const char *src;
	mpsfix_buf name;
	bool found;        /* enough evidence: stop */
	mpsfix_span *seen; /* where the calls are (NULL: the first is enough) */
	size_t nseen;
	bool methods;      /* x.cuda() counts */
} evidence;

static bool call_needs_cuda(evidence *ev, TSNode call)
{
	TSNode fn = ts_node_child_by_field_name(call, "function", 8);
	TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
	bool named = mpsfix_names_name_of(ev->names, fn, ev->src, &ev->name);

	if (ev->methods && is(fn, "attribute") && mpsfix_node_text_is(ts_node_child_by_field_name(fn, "attribute", 9), ev->src, "cuda") &&
	    !(named && !strcmp(ev->name.data, "torch.cuda")))
		return true; /* x.cuda(): a tensor or module moved to CUDA by name */
	if (named) {
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cuda_apis); i++)
			if (!strcmp(ev->name.data, cuda_apis[i]))
				return true;
		if (!strcmp(ev->name.data, "torch.device") && is(args, "argument_list") &&
		    ts_node_named_child_count(args) > 0 && cuda_string(ts_node_named_child(args, 0), ev->src))
			return true;
	}
	for (uint32_t i = 0; is(args, "argument_list") && i < ts_node_named_child_count(args); i++) {
		TSNode a = ts_node_named_child(args, i);

		if (is(a, "keyword_argument") &&
		    mpsfix_node_text_is(ts_node_child_by_field_name(a, "name", 4), ev->src, "device") &&
		    cuda_string(ts_node_child_by_field_name(a, "value", 5), ev->src))
			return true;
	}
	return false;
}

/* What runs whenever the statement runs: not what a condition or a lambda holds back. */
static mpsfix_walk_action find_evidence(TSNode n, void *payload)
{
	static const char *const held_back[] = {
		"lambda", "conditional_expression", "boolean_operator", "list_comprehension",
		"set_comprehension", "dictionary_comprehension", "generator_expression",
		"function_definition", "class_definition", "block",
	};
	evidence *ev = payload;
	const char *type = ts_node_type(n);

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(held_back); i++)
		if (!strcmp(type, held_back[i]))
			return MPSFIX_WALK_SKIP;
	if (!strcmp(type, "call") && call_needs_cuda(ev, n)) {
		if (ev->seen)
			ev->seen[ev->nseen] = (mpsfix_span){ts_node_start_byte(n), ts_node_end_byte(n)};
		ev->found = !ev->seen || ++ev->nseen == MPSFIX_CUDA_EVIDENCE;
		return ev->found ? MPSFIX_WALK_STOP : MPSFIX_WALK_SKIP;
	}
	return MPSFIX_WALK_DESCEND;
}

/*
 * The statements of block `b` that run whenever it runs, and those of the
 * loops and with blocks among them (a loop over a program's data runs);
 * not those under an if, a try or a match.
 */
static void block_evidence(evidence *ev, TSNode b, int depth)
{
	for (uint32_t i = 0; !ev->found && is(b, "block") && i < ts_node_named_child_count(b); i++) {
		TSNode s = ts_node_named_child(b, i);

		if (is(s, "expression_statement") || is(s, "return_statement"))
			mpsfix_walk(s, find_evidence, ev);
		if (is(s, "with_statement"))
			mpsfix_walk(s, find_evidence, ev); /* its items; the block is held back */
		if ((is(s, "for_statement") || is(s, "while_statement") || is(s, "with_statement")) && depth < 8)
			block_evidence(ev, ts_node_child_by_field_name(s, "body", 4), depth + 1);
	}
}

bool mpsfix_cuda_statement(mpsfix_names *names, const char *src, TSNode s)
{
	evidence ev = {names, src, MPSFIX_BUF_INIT, false, NULL, 0, false};

	if (is(s, "expression_statement") || is(s, "return_statement"))
		mpsfix_walk(s, find_evidence, &ev);
	mpsfix_buf_release(&ev.name);
	return ev.found;
}

size_t mpsfix_cuda_function(mpsfix_names *names, const char *src, TSNode body,
			    mpsfix_span seen[MPSFIX_CUDA_EVIDENCE])
{
	evidence ev = {names, src, MPSFIX_BUF_INIT, false, seen, 0, true};

	block_evidence(&ev, body, 0);
	mpsfix_buf_release(&ev.name);
	return ev.nseen;
}

bool mpsfix_cuda_module(const char *p, size_t n)
{
	static const char *const mods[] = {
		"triton", "flash_attn", "apex", "transformer_engine", "deepspeed", "torchao.float8",
		"tensorrt", "colossalai", "megatron", "msamp",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(mods); i++) {
		size_t k = strlen(mods[i]);

		if (n >= k && !memcmp(p, mods[i], k) && (n == k || p[k] == '.'))
			return true;
	}
	return false;
}
