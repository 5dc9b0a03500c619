/*
 * text.c: helpers on slices of text (see text.h).
 */
#include "text.h"

#include <ctype.h>

mpsfix_text_slice mpsfix_text_trim(mpsfix_text_slice t)
{
	while (t.n && isspace((unsigned char)t.s[0])) {
		t.s++;
		t.n--;
	}
	while (t.n && isspace((unsigned char)t.s[t.n - 1]))
		t.n--;
	return t;
}
