/*
 * cuda_code.h: code written for CUDA alone, which cannot run on a Mac
 * whatever its tests say.  Used by reach.c.
 */
#ifndef MPSFIX_CUDA_CODE_H
#define MPSFIX_CUDA_CODE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "names.h"

/**
 * Does function body `body` need CUDA whenever it runs: one of its own
 * statements, or of the loops and with blocks among them (not one under an
 * if, a try or a match, nor in a nested function), calls, outside a lambda,
 * a conditional expression, an and/or and a comprehension, an API that
 * exists for CUDA alone:
 * torch.cuda.Event, Stream, current_stream, default_stream, set_device,
 * current_device, get_device_properties, get_device_name,
 * get_device_capability, the CUDA memory statistics (memory_allocated,
 * max_memory_allocated, reset_peak_memory_stats, mem_get_info, ...),
 * CUDAGraph, graph, nvtx, torch.cuda.amp.autocast; or asks for a CUDA
 * device by name: torch.device("cuda..."), a `device="cuda..."` argument,
 * `x.cuda()`.  `names` (may be NULL) qualifies the calls through the file's
 * imports.  Calls with an MPS counterpart (synchronize, empty_cache) are not
 * counted: they are what rules fix.
 */
#define MPSFIX_CUDA_EVIDENCE 2

/*
 * Returns how many such calls it found, up to MPSFIX_CUDA_EVIDENCE, and
 * their spans in `seen`: code inside the function is written for CUDA when
 * one of them lies outside it (a `.cuda()` that a rule reports is not
 * evidence against itself).
 */
size_t mpsfix_cuda_function(mpsfix_names *names, const char *src, TSNode body,
			    mpsfix_span seen[MPSFIX_CUDA_EVIDENCE]);

/**
 * Does statement `s` (an expression or return statement) make such a call,
 * `.cuda()` aside (a script's own statement that MPS204 reports is not
 * evidence that the whole script is written for CUDA)?
 */
bool mpsfix_cuda_statement(mpsfix_names *names, const char *src, TSNode s);

/**
 * Is dotted module name [p, p+n) one that works only with CUDA (or a package
 * of one): triton, flash_attn, apex, transformer_engine, deepspeed,
 * torchao.float8, tensorrt, colossalai, megatron, msamp?
 */
bool mpsfix_cuda_module(const char *p, size_t n);

#endif
