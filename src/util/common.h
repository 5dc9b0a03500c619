/*
 * common.h: error slot, allocation helpers and the growable byte buffer
 * shared by every mpsfix module.
 *
 * Errors follow libgit2: a function returns 0 on success and a negative
 * code on failure, after recording a message with mpsfix_error_set().  The
 * slot is thread-local, so worker threads never see each other's errors.
 * Only main() prints it.
 */
#ifndef MPSFIX_COMMON_H
#define MPSFIX_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum {
	MPSFIX_OK = 0,
	MPSFIX_ERROR = -1,     /* generic failure; the message says what */
	MPSFIX_ENOMATCH = -2,  /* expected: a pattern did not match */
	MPSFIX_ECONFLICT = -3, /* expected: overlapping edits */
	MPSFIX_ESKIP = -4      /* expected: a file is skipped (binary, not UTF-8, ...) */
};

#define MPSFIX_ERROR_MAX 1024

typedef struct {
	int code;
	char message[MPSFIX_ERROR_MAX];
} mpsfix_error;

/** Record an error for this thread and return `code` (so `return mpsfix_error_set(...)`). */
int mpsfix_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** The last error recorded on this thread; message is "" when none. */
const mpsfix_error *mpsfix_error_last(void);

/** Forget the last error. */
void mpsfix_error_clear(void);

/* Allocation: these abort with a message on out-of-memory (the one exception
 * to "errors are returned"). */
void *mpsfix_xmalloc(size_t n);
void *mpsfix_xcalloc(size_t count, size_t size);
void *mpsfix_xrealloc(void *p, size_t n);
char *mpsfix_xstrdup(const char *s);
char *mpsfix_xstrndup(const char *s, size_t n);
char *mpsfix_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Grow `*items` (of `*cap` elements of `size` bytes) to hold at least `need`. */
void mpsfix_grow(void **items, size_t *cap, size_t need, size_t size);

/* A growable array of T: `ARRAY(T) a = {0};`, `ARRAY_PUSH(&a, v)`, free(a.items). */
#define ARRAY(T)        \
	struct {        \
		T *items;   \
		size_t len; \
		size_t cap; \
	}
#define ARRAY_PUSH(a, v)                                                          \
	do {                                                                      \
		mpsfix_grow((void **)&(a)->items, &(a)->cap, (a)->len + 1,        \
			    sizeof(*(a)->items));                                 \
		(a)->items[(a)->len++] = (v);                                     \
	} while (0)

/*
 * A growable byte buffer.  `data` is always NUL-terminated once anything was
 * added (and may be NULL before), so it can be handed to C string functions;
 * the bytes themselves may contain NULs, `len` is authoritative.
 */
typedef struct {
	char *data;
	size_t len;
	size_t cap;
} mpsfix_buf;

#define MPSFIX_BUF_INIT {NULL, 0, 0}

void mpsfix_buf_add(mpsfix_buf *b, const void *data, size_t len);
void mpsfix_buf_adds(mpsfix_buf *b, const char *s);
void mpsfix_buf_addc(mpsfix_buf *b, char c);
void mpsfix_buf_printf(mpsfix_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mpsfix_buf_vprintf(mpsfix_buf *b, const char *fmt, va_list ap);
/** Hand the bytes to the caller (who frees them) and reset `b`; never NULL. */
char *mpsfix_buf_detach(mpsfix_buf *b, size_t *len_out);
void mpsfix_buf_clear(mpsfix_buf *b);   /* len = 0, memory kept */
void mpsfix_buf_release(mpsfix_buf *b); /* memory freed */

/** A byte range [start, end) into a source buffer. */
typedef struct {
	uint32_t start, end;
} mpsfix_span;


/**
 * Binary search in `n` elements of `size` bytes at `base`, sorted by the
 * uint32_t at byte `offset` of each: the index of the first whose key is at
 * least `key`, or `n` when none is.
 */
size_t mpsfix_lower_bound(const void *base, size_t n, size_t size, size_t offset, uint32_t key);

/** The same for a uint64_t key (a hash). */
size_t mpsfix_lower_bound64(const void *base, size_t n, size_t size, size_t offset, uint64_t key);

#define MPSFIX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
