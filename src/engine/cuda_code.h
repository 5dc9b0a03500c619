/*
 * cuda_code.h: code written for CUDA alone, which cannot run on a Mac
 * whatever its tests say.  Used by reach.c.
 */
#ifndef MPSFIX_CUDA_CODE_H
#define MPSFIX_CUDA_CODE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "members.h"
#include "names.h"

/*
 * The functions defined at a module's top level, by name, and which of them
 * fail on a Mac whenever they are called (mpsfix_cuda_function() with
 * MPSFIX_CUDA_FAILING | MPSFIX_CUDA_MOVES on their own statements; not a
 * generator, whose call runs nothing; not a name the module binds
 * elsewhere too), with the first call that says so.  Read once per text.
 */
typedef struct {
	TSNode *names, *bodies;
	bool *cuda;
	mpsfix_span *at;
	size_t len, cap;
	bool read;                /* mpsfix_cuda_defs_read() has run */
	TSNode *bases;            /* the names the file's classes derive from, */
	size_t nbases, capbases;  /* read at the first mpsfix_cuda_subclassed() */
	bool bases_read;
	mpsfix_members *members;  /* the classes' methods, for self.m() (members.h) */
} mpsfix_cuda_defs;

void mpsfix_cuda_defs_read(mpsfix_cuda_defs *defs, mpsfix_names *names, const char *src, TSNode root);
void mpsfix_cuda_defs_release(mpsfix_cuda_defs *defs);

/**
 * Does function body `body` (or a module) need CUDA, or at least not MPS,
 * whenever it runs: one of its own statements, or of the loops, with
 * blocks and tries with no except clause (whose finally cannot return,
 * break or continue) among them (not one under a try that may catch what
 * fails or a match, nor in a nested function, nor one after a statement that may leave the block early: a
 * return, an if or a try that may return, raise, break or continue),
 * calls, outside a lambda, a conditional expression, an and/or and a
 * comprehension, an API that exists for CUDA alone:
 * torch.cuda.Event, Stream, current_stream, default_stream, set_device,
 * current_device, get_device_properties, get_device_name,
 * get_device_capability, mem_get_info, CUDAGraph (these raise on a Mac),
 * the CUDA memory statistics (memory_allocated, max_memory_allocated,
 * reset_peak_memory_stats, ...), torch.cuda.stream, graph, nvtx,
 * torch.cuda.amp.autocast (these measure or change nothing there), the
 * same under torch.xpu, anything under torch.npu; or a function of a
 * module that works only with CUDA (mpsfix_cuda_module(), through the
 * file's imports: not a parameter, nor a name two imports bind); or wraps
 * a model for
 * distributed training (DistributedDataParallel, FullyShardedDataParallel,
 * fully_shard: their collectives have no MPS backend); or asks for a CUDA
 * device by name: torch.device("cuda..."), a `device="cuda..."` argument,
 * `x.to("cuda")`, `x.to(device)` where the scope binds `device` only by
 * `device = "cuda"` before it; or calls `x.cuda()`; or calls a function
 * of `defs` (may be NULL) that needs CUDA, unless the scope binds its name
 * itself; or, with `defs`, calls `self.m()` in a method of a class that no
 * class of the file derives from, where `m` is the class's one plain
 * method of that name that nothing rebinds (members.h), and `m` needs CUDA
 * whenever it runs (its own statements, as a function of `defs`; a
 * subclass in another module may override it: the guess made here).  An if
 * statement counts as one such call when it has an else and
 * each of its branches needs CUDA or ends by raising, one of them the
 * former.  `names` (may be NULL) qualifies the calls through the file's
 * imports.  Calls with an MPS counterpart (synchronize, empty_cache) are
 * not counted: they are what rules fix.
 *
 * With MPSFIX_CUDA_FAILING only calls that fail on a Mac count: the APIs
 * that raise, the distributed wrappers, `.to("cuda")` (and `device=` in
 * it), `device="cuda"` in torch's tensor factories (torch.zeros, randn,
 * arange, tensor, zeros_like, ...), `.cuda()` and helpers; not the memory
 * statistics, torch.device, autocast or `device=` elsewhere
 * (GradScaler(device="cuda") only warns).
 * `x.cuda()` counts only with MPSFIX_CUDA_MOVES.
 */
#define MPSFIX_CUDA_EVIDENCE 2
#define MPSFIX_CUDA_FAILING 1u
#define MPSFIX_CUDA_MOVES 2u

/*
 * Returns how many such calls it found, up to MPSFIX_CUDA_EVIDENCE, and
 * their spans in `seen`: code inside the function is written for CUDA when
 * one of them lies apart from it (a `.cuda()` that a rule reports is not
 * evidence against itself).
 */
size_t mpsfix_cuda_function(mpsfix_cuda_defs *defs, mpsfix_names *names, const char *src, TSNode body,
			    unsigned flags, mpsfix_span seen[MPSFIX_CUDA_EVIDENCE]);

/**
 * The same for block `body` (a branch of an if) of function (or module)
 * `scope`, whose names and `self` it reads.
 */
size_t mpsfix_cuda_block(mpsfix_cuda_defs *defs, mpsfix_names *names, const char *src, TSNode body, TSNode scope,
			 unsigned flags, mpsfix_span seen[MPSFIX_CUDA_EVIDENCE]);

/**
 * Does statement `s` (an expression or return statement) make such a call
 * that fails on a Mac (MPSFIX_CUDA_FAILING), `.cuda()` and the module's
 * functions aside?
 */
bool mpsfix_cuda_statement(mpsfix_names *names, const char *src, TSNode s);

/**
 * Does a class of the file derive from class definition `cls` (whose
 * methods then run on instances made another way)?  The bases are read
 * once, into `defs`.
 */
bool mpsfix_cuda_subclassed(mpsfix_cuda_defs *defs, const char *src, TSNode cls);

/**
 * Is class name [p, p+n) named for an accelerator other than MPS: one of
 * its words (split at underscores and where the case changes:
 * `CUDA_Accelerator`, `HPUFusedAdam`, `CudaRNGTracker`) is CUDA, NPU, MLU,
 * HPU, XPU, SDAA, XLA, TPU, NCCL, ROCM, Habana, Gaudi or Ascend (or one of
 * them capitalized: `Cuda`)?  Projects that serve several accelerators keep
 * each one's code in a class of its own, chosen where that accelerator is
 * present.
 */
bool mpsfix_cuda_class_name(const char *p, size_t n);

/**
 * Is `path` a module named for an accelerator other than MPS (a word of its
 * name, split at '_' and '-': cuda.py, cuda_accelerator.py, npu_utils.py;
 * the words of mpsfix_cuda_class_name(), in any case) in a folder that
 * holds one named for MPS (mps.py, mps_accelerator.py)?  Projects that
 * serve several accelerators so keep each one's code in a module of its
 * own, whose functions and classes run where that one is chosen (the
 * statements of its top level run wherever it is imported).
 */
bool mpsfix_cuda_module_file(const char *path);

/** Does `n` lie inside a function or class defined at the top level of module `root`? */
bool mpsfix_cuda_in_definition(TSNode root, TSNode n);

/**
 * Is dotted module name [p, p+n) one that works only with CUDA (or a package
 * of one): triton, flash_attn, apex, transformer_engine, deepspeed (not
 * deepspeed.accelerator, which picks MPS on a Mac), torchao.float8,
 * torch_tensorrt, tensorrt, colossalai, megatron, msamp, ONNX Runtime's
 * ORTModule training (onnxruntime.training.ortmodule and .optim, torch_ort:
 * CUDA and ROCm; not the on-device onnxruntime.training.api), bitsandbytes's
 * Triton kernels (bitsandbytes.triton, bitsandbytes.nn.triton_based_modules
 * and the layers bitsandbytes.nn re-exports from it: SwitchBackLinear,
 * SwitchBackLinearGlobal, SwitchBackLinearVectorwise, StandardLinear)?
 */
bool mpsfix_cuda_module(const char *p, size_t n);

#endif
