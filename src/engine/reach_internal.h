/*
 * reach_internal.h: what reach.c and reach_value.c share.
 */
#ifndef MPSFIX_REACH_INTERNAL_H
#define MPSFIX_REACH_INTERNAL_H

#include <tree_sitter/api.h>

#include "reach.h"
#include "truth.h"

/*
 * What test `e` says on MPS (truth.h), with what the text's spans know of
 * its streams and flags; by its values alone with `values_only`.
 */
mpsfix_truth mpsfix_reach__truth(const mpsfix_reach_ctx *cx, TSNode e, bool values_only);

#endif
