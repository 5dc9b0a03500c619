/* fuzz_common.c: fuzz_fail() for the targets of tests/fuzz/. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

void fuzz_fail(const char *what, ...)
{
	va_list ap;

	fputs("fuzz: property broken: ", stderr);
	va_start(ap, what);
	vfprintf(stderr, what, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
