/*
 * regex_check.h: the bounds on a rule's `regex:` and `not-regex:` (POSIX
 * extended regular expressions, matched against a node's text), and the
 * check that an expression keeps to them.
 */
#ifndef MPSFIX_REGEX_CHECK_H
#define MPSFIX_REGEX_CHECK_H

#include <pthread.h>
#include <regex.h>

#include "common.h"

/*
 * Bounds on `regex` and `not-regex`.  glibc's regexec() takes exponential
 * time with backreferences, and about (text length)^2 x (automaton size)
 * without; regcomp() builds an automaton as large as the nested repetition
 * counts multiply out to.  Rules stay within these.
 */
#define MPSFIX_REGEX_MAX_LEN 1024     /* bytes of one expression */
#define MPSFIX_REGEX_MAX_REPEAT 255   /* n and m of {n,m} (POSIX's RE_DUP_MAX) */
#define MPSFIX_REGEX_MAX_SIZE 10000   /* estimated automaton size */
#define MPSFIX_REGEX_MAX_TEXT 4096    /* bytes of node text matched */

/**
 * Check that the POSIX extended regular expression `re` keeps to the bounds
 * above: no backreference (\1..\9), at most MPSFIX_REGEX_MAX_LEN bytes,
 * repetition counts of at most MPSFIX_REGEX_MAX_REPEAT, and at most
 * MPSFIX_REGEX_MAX_SIZE atoms once counted repetitions are multiplied out
 * ("(ab){3}" is 6).  Returns 0, or MPSFIX_ERROR with a message and `*at`
 * set to the byte offset of the problem in `re`.
 */
int mpsfix_regex_check(const char *re, size_t *at);

/*
 * A compiled expression, searched by every worker thread.  POSIX makes
 * regexec() thread-safe, and glibc keeps it so with a lock of its own around
 * the automaton states it builds lazily; ThreadSanitizer cannot see that lock
 * and reports those states as a data race.  Searches take `lock` as well, so
 * that the serialization is one every tool sees and no libc is trusted for it.
 */
typedef struct {
	regex_t re;
	pthread_mutex_t *lock; /* owned */
} mpsfix_regex;

/**
 * Compile `src` (POSIX extended, no submatches) into `*r`.  Returns 0, or
 * MPSFIX_ERROR with regerror()'s message in `msg` (`*r` then holds nothing).
 */
int mpsfix_regex_compile(mpsfix_regex *r, const char *src, char *msg, size_t msgsize);

/** True when `r` matches somewhere in the NUL-terminated `text`. */
bool mpsfix_regex_search(const mpsfix_regex *r, const char *text);

/** Free what `r` holds (not `r` itself). */
void mpsfix_regex_release(mpsfix_regex *r);

#endif
