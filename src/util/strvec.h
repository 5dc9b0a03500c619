/*
 * strvec.h: a growable list of owned strings (git's strvec), the one
 * string list of mpsfix: paths found, selectors, messages, names.
 */
#ifndef MPSFIX_STRVEC_H
#define MPSFIX_STRVEC_H

#include "common.h"

typedef struct {
	char **items;   /* owned strings */
	size_t len, cap;
} mpsfix_strvec;

#define MPSFIX_STRVEC_INIT {NULL, 0, 0}

/** Append a copy of `s`. */
void mpsfix_strvec_push(mpsfix_strvec *v, const char *s);

/** Append `s` itself, which the list then owns (and frees). */
void mpsfix_strvec_push_owned(mpsfix_strvec *v, char *s);

/** Whether an item is equal to `s`. */
bool mpsfix_strvec_has(const mpsfix_strvec *v, const char *s);

/** Sort the items from index `from` on (strcmp order). */
void mpsfix_strvec_sort(mpsfix_strvec *v, size_t from);

/** Free the strings and the list; `v` is empty again. */
void mpsfix_strvec_release(mpsfix_strvec *v);

#endif
