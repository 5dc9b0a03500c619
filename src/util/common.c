#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local mpsfix_error last_error;

int mpsfix_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error.message, sizeof(last_error.message), fmt, ap);
	va_end(ap);
	last_error.code = code;
	return code;
}

const mpsfix_error *mpsfix_error_last(void)
{
	return &last_error;
}

void mpsfix_error_clear(void)
{
	last_error.code = 0;
	last_error.message[0] = '\0';
}

static void oom(size_t n)
{
	fprintf(stderr, "mpsfix: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *mpsfix_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *mpsfix_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		oom(count * size);
	return p;
}

void *mpsfix_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	return q;
}

char *mpsfix_xstrndup(const char *s, size_t n)
{
	char *p = mpsfix_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *mpsfix_xstrdup(const char *s)
{
	return mpsfix_xstrndup(s, strlen(s));
}

char *mpsfix_xasprintf(const char *fmt, ...)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mpsfix_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return mpsfix_buf_detach(&b, NULL);
}

void mpsfix_grow(void **items, size_t *cap, size_t need, size_t size)
{
	size_t n;

	if (need <= *cap)
		return;
	n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	*items = mpsfix_xrealloc(*items, n * size);
	*cap = n;
}

void mpsfix_buf_add(mpsfix_buf *b, const void *data, size_t len)
{
	mpsfix_grow((void **)&b->data, &b->cap, b->len + len + 1, 1);
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void mpsfix_buf_adds(mpsfix_buf *b, const char *s)
{
	mpsfix_buf_add(b, s, strlen(s));
}

void mpsfix_buf_addc(mpsfix_buf *b, char c)
{
	mpsfix_buf_add(b, &c, 1);
}

void mpsfix_buf_vprintf(mpsfix_buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	mpsfix_grow((void **)&b->data, &b->cap, b->len + (size_t)n + 1, 1);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void mpsfix_buf_printf(mpsfix_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mpsfix_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *mpsfix_buf_detach(mpsfix_buf *b, size_t *len_out)
{
	char *p;

	if (!b->data)
		mpsfix_buf_add(b, "", 0);
	p = b->data;
	if (len_out)
		*len_out = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void mpsfix_buf_clear(mpsfix_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void mpsfix_buf_release(mpsfix_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* The binary search of both: a key of `width` bytes (4 or 8) at `offset`. */
static size_t lower_bound(const void *base, size_t n, size_t size, size_t offset, size_t width, uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		if (width == sizeof(uint32_t)) {
			uint32_t k32;

			memcpy(&k32, p + mid * size + offset, sizeof(k32));
			k = k32;
		} else {
			memcpy(&k, p + mid * size + offset, sizeof(k));
		}
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t mpsfix_lower_bound64(const void *base, size_t n, size_t size, size_t offset, uint64_t key)
{
	return lower_bound(base, n, size, offset, sizeof(uint64_t), key);
}

size_t mpsfix_lower_bound(const void *base, size_t n, size_t size, size_t offset, uint32_t key)
{
	return lower_bound(base, n, size, offset, sizeof(uint32_t), key);
}
