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

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Report a broken property of input `data` and abort (the fuzzer keeps the input). */
void fuzz_fail(const char *what, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
