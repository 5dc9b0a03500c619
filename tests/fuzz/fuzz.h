/*
 * fuzz.h: what the fuzz targets of tests/fuzz/ share.  Each target defines
 * the two libFuzzer entry points; it is linked either with libFuzzer
 * (`make fuzz`, clang) or with replay.c, a main() that runs the inputs it is
 * given once each (`make check`: the seeds and every crash found so far).
 */
#ifndef MPSFIX_FUZZ_H
#define MPSFIX_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rule.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Report a broken property of input `data` and abort (the fuzzer keeps the input). */
void fuzz_fail(const char *what, ...) __attribute__((format(printf, 1, 2), noreturn));

/**
 * Start `ctx` and load every rule of $MPSFIX_RULES_DIR, else of the source
 * tree's rules/, into `rules`; their index.  Fails the run (fuzz_fail) when
 * that cannot be done or there is no rule.
 */
mpsfix_index *fuzz_load_rules(mpsfix_ctx *ctx, mpsfix_ruleset *rules);

#endif
