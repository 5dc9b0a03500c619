/*
 * strvec.c: a growable list of owned strings.
 */
#include "strvec.h"

#include <stdlib.h>
#include <string.h>

void mpsfix_strvec_push_owned(mpsfix_strvec *v, char *s)
{
	mpsfix_grow((void **)&v->items, &v->cap, v->len + 1, sizeof(*v->items));
	v->items[v->len++] = s;
}

void mpsfix_strvec_push(mpsfix_strvec *v, const char *s)
{
	mpsfix_strvec_push_owned(v, mpsfix_xstrdup(s));
}

bool mpsfix_strvec_has(const mpsfix_strvec *v, const char *s)
{
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->items[i], s))
			return true;
	return false;
}

static int compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void mpsfix_strvec_sort(mpsfix_strvec *v, size_t from)
{
	if (v->len > from + 1)
		qsort(v->items + from, v->len - from, sizeof(*v->items), compare);
}

void mpsfix_strvec_release(mpsfix_strvec *v)
{
	for (size_t i = 0; i < v->len; i++)
		free(v->items[i]);
	free(v->items);
	v->items = NULL;
	v->len = v->cap = 0;
}
