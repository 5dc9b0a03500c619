/*
 * regex_check.c: keeping a rule's `regex:` and `not-regex:` within bounds
 * that glibc's regcomp() and regexec() handle in bounded time: the
 * expression's length, its repetition counts and the size its counted
 * repetitions multiply out to, and no backreferences; and a compiled
 * expression that worker threads share.
 */
#include "regex_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	uint64_t size; /* atoms in the group so far, all alternatives */
	uint64_t last; /* size of the last atom or group, 0 when none can repeat */
} regex_group;

/* The last atom of `g` repeated `times`: its size multiplied. */
static void repeat_last(regex_group *g, uint64_t times)
{
	if (times < 1)
		times = 1;
	g->size = g->size - g->last + g->last * times;
	g->last *= times;
}

/* Parse "{n}", "{n,}", "{n,m}" at p[0] == '{'; its length, or 0 if not one. */
static size_t interval(const char *p, unsigned long *lo, unsigned long *hi, bool *open_end)
{
	const char *q = p + 1;
	char *end;

	if (*q < '0' || *q > '9')
		return 0;
	*lo = strtoul(q, &end, 10);
	*hi = *lo;
	*open_end = false;
	q = end;
	if (*q == ',') {
		q++;
		if (*q >= '0' && *q <= '9') {
			*hi = strtoul(q, &end, 10);
			q = end;
		} else {
			*open_end = true;
		}
	}
	return *q == '}' ? (size_t)(q - p) + 1 : 0;
}

/* The length of the bracket expression at p[0] == '[', or 0 when unclosed. */
static size_t bracket(const char *p)
{
	const char *q = p + 1;

	if (*q == '^')
		q++;
	if (*q == ']')
		q++; /* a leading ']' is a member */
	while (*q && *q != ']') {
		if (*q == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
			char kind = q[1];
			const char *c = q + 2;

			while (*c && !(c[0] == kind && c[1] == ']'))
				c++;
			if (!*c)
				return 0;
			q = c + 2;
			continue;
		}
		q++;
	}
	return *q == ']' ? (size_t)(q - p) + 1 : 0;
}

int mpsfix_regex_check(const char *re, size_t *at)
{
	ARRAY(regex_group) stack = {0};
	size_t len = strlen(re), i = 0;
	int error = 0;

	*at = 0;
	if (len > MPSFIX_REGEX_MAX_LEN) {
		*at = MPSFIX_REGEX_MAX_LEN;
		return mpsfix_error_set(MPSFIX_ERROR, "the regex is %zu bytes long; the limit is %d",
					len, MPSFIX_REGEX_MAX_LEN);
	}
	ARRAY_PUSH(&stack, ((regex_group){0, 0}));
	while (i < len) {
		regex_group *g = &stack.items[stack.len - 1];
		size_t start = i;
		unsigned long lo, hi;
		bool open_end;
		size_t n;

		switch (re[i]) {
		case '\\':
			if (re[i + 1] >= '1' && re[i + 1] <= '9') {
				*at = i;
				error = mpsfix_error_set(MPSFIX_ERROR, "backreferences (\\%c) are not "
							 "allowed: they can take exponential time",
							 re[i + 1]);
				goto done;
			}
			g->size++;
			g->last = 1;
			i += re[i + 1] ? 2 : 1;
			break;
		case '[':
			n = bracket(re + i);
			g->size++;
			g->last = 1;
			i += n ? n : 1; /* regcomp reports an unclosed one */
			break;
		case '(':
			ARRAY_PUSH(&stack, ((regex_group){0, 0}));
			i++;
			break;
		case ')':
			if (stack.len > 1) {
				uint64_t size = g->size ? g->size : 1;

				stack.len--;
				g = &stack.items[stack.len - 1];
				g->size += size;
				g->last = size;
			}
			i++;
			break;
		case '|':
			g->last = 0;
			i++;
			break;
		case '^':
		case '$':
			g->last = 0;
			i++;
			break;
		case '*':
		case '?':
			i++;
			break;
		case '+':
			repeat_last(g, 2); /* x+ is xx* */
			i++;
			break;
		case '{':
			if ((n = interval(re + i, &lo, &hi, &open_end)) == 0) {
				g->size++; /* a literal brace */
				g->last = 1;
				i++;
				break;
			}
			if (lo > MPSFIX_REGEX_MAX_REPEAT || hi > MPSFIX_REGEX_MAX_REPEAT) {
				*at = i;
				error = mpsfix_error_set(MPSFIX_ERROR, "the repetition count %lu is over "
							 "the limit of %d", lo > hi ? lo : hi,
							 MPSFIX_REGEX_MAX_REPEAT);
				goto done;
			}
			repeat_last(g, open_end ? lo + 1 : hi);
			i += n;
			break;
		default:
			g->size++;
			g->last = 1;
			i++;
		}
		g = &stack.items[stack.len - 1]; /* '(' may have moved the stack */
		if (g->size > MPSFIX_REGEX_MAX_SIZE) {
			*at = start;
			error = mpsfix_error_set(MPSFIX_ERROR, "the regex is too large to match in "
						 "bounded time (its repetitions multiply out to more "
						 "than %d atoms)", MPSFIX_REGEX_MAX_SIZE);
			goto done;
		}
	}
done:
	free(stack.items);
	return error;
}

int mpsfix_regex_compile(mpsfix_regex *r, const char *src, char *msg, size_t msgsize)
{
	int rc;

	r->lock = NULL;
	if ((rc = regcomp(&r->re, src, REG_EXTENDED | REG_NOSUB)) != 0) {
		regerror(rc, &r->re, msg, msgsize);
		return MPSFIX_ERROR;
	}
	r->lock = mpsfix_xmalloc(sizeof(*r->lock));
	if ((rc = pthread_mutex_init(r->lock, NULL)) != 0) {
		snprintf(msg, msgsize, "cannot make its lock: %s", strerror(rc));
		free(r->lock);
		r->lock = NULL;
		regfree(&r->re);
		return MPSFIX_ERROR;
	}
	return 0;
}

bool mpsfix_regex_search(const mpsfix_regex *r, const char *text)
{
	int rc;

	pthread_mutex_lock(r->lock);
	rc = regexec(&r->re, text, 0, NULL, 0);
	pthread_mutex_unlock(r->lock);
	return rc == 0;
}

void mpsfix_regex_release(mpsfix_regex *r)
{
	if (!r->lock)
		return;
	regfree(&r->re);
	pthread_mutex_destroy(r->lock);
	free(r->lock);
	r->lock = NULL;
}
