/*
 * fix_floor.h: the oldest torch a fix can run on where MPS plays no part.
 * A fix that brings in `torch.backends.mps` (torch 1.12 has it first) or
 * `torch.accelerator` (2.6) evaluates it on every machine: on an older
 * torch the fixed line raises AttributeError on CUDA, XPU and the CPU,
 * where the original ran, whatever the file calls torch (`th.backends.mps`).
 * `torch.mps.*` is not counted: the fixes call it only where
 * `torch.backends.mps.is_available()` holds, on a Mac.
 */
#ifndef MPSFIX_FIX_FLOOR_H
#define MPSFIX_FIX_FLOOR_H

#include "common.h"
#include "edit.h"
#include "torchver.h"

/**
 * The newest first release among the APIs that fix `group` of `edits` (over
 * the original text `src`) names more often than the text it replaces;
 * MPSFIX_TORCH_OLDEST when it brings in none.  `*api`, when not NULL, is
 * set to that API's name (static text).
 */
mpsfix_torch_ver mpsfix_fix_floor(const mpsfix_edits *edits, uint32_t group, const char *src, const char **api);

/**
 * Why fix `group` is unsafe for a file whose torch target is `target`, or
 * NULL: the target reaches below the fix's floor ("the fix calls
 * torch.backends.mps, which torch has from 1.12, and the target torch >=1.7
 * reaches below it").  The caller frees the text.
 */
char *mpsfix_fix_floor_reason(const mpsfix_edits *edits, uint32_t group, const char *src, mpsfix_torch_range target);

#endif
