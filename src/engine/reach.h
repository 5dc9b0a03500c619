/*
 * reach.h: MPS reachability.  Can a match run on a Mac's GPU at all?  Code
 * that only runs with CUDA is not an MPS problem, however it is written (what
 * a test says on MPS is truth.h's):
 *
 *   the body of `if T:` (the true branch of `A if T else B`, the right of
 *   `T and ...`) where T is false on MPS: `torch.cuda.is_available()`,
 *   `x.is_cuda`, `x.type == "cuda"`, `device == "cuda"`,
 *   `str(device).startswith("cuda")`, `device != "mps"`, `args.cuda`,
 *   `use_cuda`, `torch.version.cuda`, `and` of such a test with anything,
 *   `or` of two, `not` of a test that holds on MPS;
 *   `hasattr(torch, "accelerator")` where the versions in question are all
 *   older than 2.6, which brought torch.accelerator;
 *   a device stream (`self.stream is not None`, `if copy_stream:`) in a
 *   text that makes its streams with CUDA's (XPU's, an NPU's) API alone;
 *   the `else` (or a later `elif`) of a test that holds on MPS:
 *   `torch.backends.mps.is_available()`, `x.type == "mps"`,
 *   `device == "mps"`, `not torch.cuda.is_available()`;
 *   code after an early exit in the same block or an enclosing one:
 *   `if not torch.cuda.is_available(): return` (raise, continue, break,
 *   sys.exit(), pytest.skip()), `assert torch.cuda.is_available()`;
 *   a function whose decorator skips it where CUDA is missing
 *   (`@unittest.skipIf(not torch.cuda.is_available(), ...)`,
 *   `@pytest.mark.skipif(...)`, `@pytest.mark.xfail(condition=...)`, a
 *   `@require_cuda`-style marker of a CUDA-only test, `@require_triton`,
 *   Lightning's `@RunIf(min_cuda_gpus=1)`);
 *   a function written for CUDA alone (cuda_code.h: it times with CUDA
 *   events, reads CUDA memory statistics, asks for "cuda" by name, calls
 *   `.cuda()`, wraps a model in DDP or FSDP, calls a helper of the module
 *   or, as `self.m()`, a method of its class that does), unless the only
 *   such calls overlap the match;
 *   a branch of an if that fails on a Mac whenever it runs (the calls that
 *   raise there, a helper or a method that does; not its own `.cuda()`
 *   calls, which MPS204 reports);
 *   the methods of a class whose `__init__` fails on a Mac (a call of
 *   cuda_code.h's MPSFIX_CUDA_FAILING, not its `.cuda()` calls), not its
 *   static and class methods, `__new__`, `__init_subclass__` nor its body's
 *   own statements, and not when a class of the file derives from it; a
 *   module whose own statements fail on a Mac (the same);
 *   the methods of a class named for another accelerator
 *   (`CUDA_Accelerator`, `HPUFusedAdam`: cuda_code.h), not the statements
 *   of its body, and not when a class of the file derives from it;
 *   a function that only such code calls (callers.h).
 *
 * And can an expression hold the MPS device?  Not a string literal other
 * than "mps...", `torch.device` of one, a conditional expression none of
 * whose reachable branches can (`a if cuda or a == "cpu" else "cpu"`
 * included), nor a name assigned one of these (in the same function,
 * before the use, or in the functions around a nested one: the last
 * assignment when its block holds the use, else every one before it), nor
 * `self.X` when every value its class gives it is one (selfattr.h), nor a
 * parameter nothing else binds whose default is one of these and is always
 * its value (defaults.h: `def _sample(x, device="cuda")` in a script that
 * only calls `_sample(img)`).
 */
#ifndef MPSFIX_REACH_H
#define MPSFIX_REACH_H

#include <tree_sitter/api.h>

#include "common.h"
#include "cuda_code.h"
#include "defaults.h"
#include "names.h"
#include "selfattr.h"
#include "torchver.h"
#include "truth.h"

/* the most assignments of one name that a read's values are taken from */
#define MPSFIX_REACH_MAX_VALUES 16

/* The spans of a text that cannot run on MPS, found in one walk (reach.c). */
typedef struct {
	mpsfix_span *items;
	size_t len, cap;
	/* functions (methods, the module) written for CUDA alone, each with the
	   spans of the calls that say so (cuda_code.h): a match inside one is
	   unreachable when one of those calls lies apart from the match */
	struct mpsfix_cuda_fn {
		mpsfix_span fn, seen[MPSFIX_CUDA_EVIDENCE];
		size_t nseen;
		bool moves;   /* the evidence moves to CUDA (x.cuda()): not against a match
				 that is such a move itself */
	} *fns;
	size_t nfns, capfns;
	/* for lookups in O(log n): items[0, nsorted) sorted by start, with the
	   largest end up to each (items added later are looked at one by one),
	   and the fns sorted by start once the walk has found them all, each
	   with the index of the innermost fn around it (-1: none) */
	mpsfix_span *sorted;
	uint32_t *maxend;
	size_t nsorted;
	long *fn_parent;
	mpsfix_cuda_defs defs; /* the module's functions */
	struct mpsfix_truth_flags *flags; /* the module's flags (truth.h), read when asked */
	TSNode root;
	mpsfix_truth_streams streams; /* where the text keeps its CUDA streams (truth.h) */
	mpsfix_selfattr_index *selfattrs; /* where the file sets attributes (selfattr.h), read when asked */
	uint8_t module_dynamic;    /* exec() and the like in a function (reach_value.c): 0 not asked, 1 no, 2 yes */
	uint64_t rebound_builtins; /* mpsfix_bindings_generator_consumed()'s cache */
	uint32_t steps;            /* values weighed for the current may-be-MPS question (reach_value.c) */
	struct mpsfix_reach_assigned { /* the last name asked about: its scope's assignments (reach_value.c) */
		bool valid;
		uint32_t scope, scope_end; /* the scope's first and last bytes (a module and its first def share one) */
		TSNode name;
		TSNode stmt[MPSFIX_REACH_MAX_VALUES]; /* its plain assignments, in order */
		uint32_t n, total, count; /* those kept, all of them, all its bindings */
		bool dynamic, param;
	} assigned;
	struct mpsfix_reach_attr {   /* can a class's `self.X` be the MPS device? */
		uint32_t cls;         /* the class definition's first byte */
		TSNode name;          /* the X of the first read asked about */
		bool may;
	} *attrs;
	size_t nattrs, capattrs;
	bool streams_read;
	bool built;
} mpsfix_reach_spans;

typedef struct {
	const char *src;
	mpsfix_names *names;   /* the file's imports, to qualify calls (may be NULL) */
	mpsfix_torch_range range; /* the torch versions in question: the rule's range
				     within the file's target */
	int cuda_file;         /* does the file set up CUDA unconditionally?  -1: not
				  known yet (mpsfix_reach_mps() finds out and keeps it) */
	mpsfix_reach_spans *spans; /* the text's unreachable spans for this range's
				      version facts, built at the first question */
	mpsfix_defaults_memo *defaults; /* the text's calls, for parameter defaults (may be NULL) */
} mpsfix_reach_ctx;

void mpsfix_reach_spans_release(mpsfix_reach_spans *s);

/**
 * Can the code at `node` run while the program uses MPS?  Not anywhere in a
 * script that sets CUDA up whenever it runs: a statement of the module or of
 * its `if __name__ == "__main__":` block calls `init_process_group("nccl")`
 * or `torch.cuda.set_device(...)` or makes a call of cuda_code.h other than
 * `.cuda()`, or calls a function of the module (or
 * hands one to a call, as `mp.spawn(main, ...)` does) one of whose
 * statements does, three calls deep at most; a call under an if, a loop or
 * a try does not count.  Nor in a module that imports (at its top level,
 * not in a try) a module that works only with CUDA: triton, flash_attn,
 * apex, transformer_engine, deepspeed, torchao.float8, torch_tensorrt,
 * tensorrt, colossalai, megatron, msamp, bitsandbytes' Triton kernels
 * (mpsfix_cuda_module()).  (Nor, engine.c asks first, in a file that
 * imports a module of its own folder whose import fails on a Mac: sibling.h.)
 */
bool mpsfix_reach_mps(mpsfix_reach_ctx *cx, TSNode node, TSNode root);

/**
 * Does a statement of module `root` end it where the program runs on MPS
 * (`if not torch.cuda.is_available(): raise ...`, `assert
 * torch.cuda.is_available()`, the early exits above)?
 */
bool mpsfix_reach_module_exits(const mpsfix_reach_ctx *cx, TSNode root);

/**
 * Is expression `e` a test false wherever the program runs on MPS (the
 * tests of truth.h: `torch.cuda.is_available()`, `device.type == "cuda"`,
 * `use_amp and x.is_cuda`)?
 */
bool mpsfix_reach_false_on_mps(const mpsfix_reach_ctx *cx, TSNode e);

/** Can expression `value`, evaluated where it stands, be the MPS device (type)? */
bool mpsfix_reach_may_be_mps(const mpsfix_reach_ctx *cx, TSNode value);

#endif
