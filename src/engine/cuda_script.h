/*
 * cuda_script.h: scripts written to run on CUDA alone, whose every function
 * then runs where CUDA is.  Used by reach.c and sibling.c.
 */
#ifndef MPSFIX_CUDA_SCRIPT_H
#define MPSFIX_CUDA_SCRIPT_H

#include <tree_sitter/api.h>

#include "common.h"
#include "cuda_code.h"
#include "names.h"

/**
 * Does the script at `root` set CUDA up whenever it runs (`run`) or is
 * imported (not `run`): a statement of the module (or, when it runs, of its
 * `if __name__ == "__main__":` block) calls
 * `init_process_group("nccl")` or `torch.cuda.set_device(...)` or makes a
 * call of mpsfix_cuda_statement(), or calls a function of `defs` (or hands
 * one to a call, as `mp.spawn(main, ...)` does) one of whose statements
 * does, three calls deep at most (a call under an if, a loop or a try does
 * not count); or imports, at its top level and not in a try, a module of
 * mpsfix_cuda_module()?
 */
bool mpsfix_cuda_script(mpsfix_cuda_defs *defs, mpsfix_names *names, const char *src, TSNode root,
			bool run);

#endif
