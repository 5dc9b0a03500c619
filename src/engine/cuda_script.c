/*
 * cuda_script.c: scripts that set CUDA up whenever they run or are imported
 * (see cuda_script.h).
 */
#include "cuda_script.h"

#include <string.h>

#include "literal.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* ---- scripts that set CUDA up --------------------------------------------- */

typedef struct {
	mpsfix_cuda_defs *defs;
	mpsfix_names *names;
	const char *src;
	TSNode root;
	bool run;          /* the file runs: its __main__ block too (else it is imported) */
	mpsfix_buf name;
} script;

/* Is call `n` one that sets CUDA up: init_process_group("nccl"), torch.cuda.set_device()? */
static bool sets_up_cuda(script *sc, TSNode n)
{
	const char *last, *dot;
	mpsfix_literal lit;
	const char *v;
	bool yes;

	if (!mpsfix_names_name_of(sc->names, ts_node_child_by_field_name(n, "function", 8), sc->src, &sc->name))
		return false;
	if (!strcmp(sc->name.data, "torch.cuda.set_device"))
		return true;
	dot = strrchr(sc->name.data, '.');
	last = dot ? dot + 1 : sc->name.data;
	if (strcmp(last, "init_process_group"))
		return false;
	v = mpsfix_literal_string(&lit, mpsfix_call_argument(ts_node_child_by_field_name(n, "arguments", 9), sc->src,
							     "backend"), sc->src);
	yes = v && !strcmp(v, "nccl");
	if (v)
		mpsfix_literal_release(&lit);
	return yes;
}

/* The body of the module-level function called `name`, or a null node. */
static TSNode module_function(const script *sc, TSNode name)
{
	for (size_t i = 0; i < sc->defs->len; i++)
		if (mpsfix_node_same_text(sc->defs->names[i], name, sc->src))
			return sc->defs->bodies[i];
	return (TSNode){0};
}

/* Does import statement `s` (of the module body) import a CUDA-only module? */
static bool imports_cuda_only(const script *sc, TSNode s)
{
	if (is(s, "import_from_statement")) {
		TSNode m = ts_node_child_by_field_name(s, "module_name", 11);

		return is(m, "dotted_name") &&
		       mpsfix_cuda_module(sc->src + ts_node_start_byte(m), ts_node_end_byte(m) - ts_node_start_byte(m));
	}
	if (!is(s, "import_statement"))
		return false;
	for (uint32_t i = 0; i < mpsfix_named_count(s); i++) {
		TSNode m = ts_node_named_child(s, i);

		if (is(m, "aliased_import"))
			m = ts_node_child_by_field_name(m, "name", 4);
		if (is(m, "dotted_name") &&
		    mpsfix_cuda_module(sc->src + ts_node_start_byte(m), ts_node_end_byte(m) - ts_node_start_byte(m)))
			return true;
	}
	return false;
}

/*
 * Does block `b` set CUDA up unconditionally: one of its statements is such
 * a call, or calls a function of the module (or hands one to a call, as
 * `mp.spawn(main, ...)` does) whose body does?
 */
static bool statement_sets_up_cuda(script *sc, TSNode b, TSNode s, int depth);

static bool block_sets_up_cuda(script *sc, TSNode b, int depth)
{
	mpsfix_kids k;
	TSNode s;
	bool yes = false;

	mpsfix_kids_start(&k, b);
	while (!yes && depth < 4 && mpsfix_kids_next(&k, &s))
		yes = statement_sets_up_cuda(sc, b, s, depth);
	mpsfix_kids_end(&k);
	return yes;
}

/* Does statement `s` of block `b` set CUDA up (block_sets_up_cuda)? */
static bool statement_sets_up_cuda(script *sc, TSNode b, TSNode s, int depth)
{
	TSNode cond = is(s, "if_statement") ? ts_node_child_by_field_name(s, "condition", 9) : (TSNode){0};
	TSNode e, fn, args;

	if (sc->run && is(cond, "comparison_operator") && ts_node_eq(b, sc->root) &&
	    mpsfix_node_text_is(mpsfix_first_named(cond), sc->src, "__name__"))
		/* if __name__ == "__main__": runs when the file is run */
		return block_sets_up_cuda(sc, ts_node_child_by_field_name(s, "consequence", 11), depth);
	if (ts_node_eq(b, sc->root) && imports_cuda_only(sc, s))
		return true;
	if (!is(s, "expression_statement"))
		return false;
	if (mpsfix_cuda_statement(sc->names, sc->src, s))
		return true; /* model.to(torch.device("cuda")), torch.cuda.Event() */
	e = mpsfix_first_named(s);
	if (is(e, "assignment"))
		e = ts_node_child_by_field_name(e, "right", 5);
	if (!is(e, "call"))
		return false;
	if (sets_up_cuda(sc, e))
		return true;
	fn = ts_node_child_by_field_name(e, "function", 8);
	if (is(fn, "identifier") && block_sets_up_cuda(sc, module_function(sc, fn), depth + 1))
		return true;
	args = ts_node_child_by_field_name(e, "arguments", 9);
	for (uint32_t k = 0; k < mpsfix_named_count(args); k++)
		if (is(ts_node_named_child(args, k), "identifier") &&
		    block_sets_up_cuda(sc, module_function(sc, ts_node_named_child(args, k)), depth + 1))
			return true;
	return false;
}

bool mpsfix_cuda_script(mpsfix_cuda_defs *defs, mpsfix_names *names, const char *src, TSNode root,
			bool run)
{
	script sc = {defs, names, src, root, run, MPSFIX_BUF_INIT};
	bool yes = block_sets_up_cuda(&sc, root, 0);

	mpsfix_buf_release(&sc.name);
	return yes;
}
