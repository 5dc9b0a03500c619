/*
 * signature.h: a rule's `signature:` — the parameters of the function its
 * pattern calls, with overloads — and binding a call's arguments to them.
 *
 *   signature:
 *     - 'std_mean(input: Tensor, unbiased: bool)'
 *     - 'std_mean(input: Tensor, dim: int | tuple | list | None, unbiased: bool = True, keepdim: bool = False)'
 *     - 'std_mean(input: Tensor, dim: int | tuple | list | None = None, *, correction: int | float | None = None, keepdim: bool = False)'
 *
 * Each overload is a Python parameter list (`/`, `*`, `*args`, `**kwargs`
 * allowed).  Annotations are optional; when present they are `|`-unions of
 * bool, int, float, str, None, tuple, list, Tensor and any, and they decide
 * which overload a literal argument can go to (`True` is a bool, not an
 * int; `Tensor` takes no literal).  An argument that is not a literal fits
 * any annotation.  Defaults only say that a parameter is optional.
 */
#ifndef MPSFIX_SIGNATURE_H
#define MPSFIX_SIGNATURE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "match.h"

typedef enum {
	MPSFIX_PARAM_POSONLY,   /* before `/` */
	MPSFIX_PARAM_NORMAL,
	MPSFIX_PARAM_KWONLY,    /* after `*` or `*args` */
	MPSFIX_PARAM_VARARGS,   /* *args */
	MPSFIX_PARAM_VARKW      /* **kwargs */
} mpsfix_param_kind;

typedef struct {
	char *name;             /* owned */
	mpsfix_param_kind kind;
	bool optional;          /* has a default */
	unsigned types;         /* MPSFIX_TYPE_* mask; 0: any */
} mpsfix_param;

typedef struct {
	char *text;             /* as written (owned) */
	char *name;             /* the function's name (owned) */
	mpsfix_param *params;   /* owned */
	size_t nparams;
} mpsfix_overload;

typedef struct {
	mpsfix_overload *items; /* owned */
	size_t len;
} mpsfix_signature;

/**
 * Parse one overload, `name(params)`.  On error returns MPSFIX_ERROR with a
 * message and `*err_offset` at the problem in `text`.
 */
int mpsfix_overload_parse(mpsfix_overload *out, TSParser *parser, const char *text, size_t len,
			  uint32_t *err_offset);
void mpsfix_overload_release(mpsfix_overload *o);
void mpsfix_signature_release(mpsfix_signature *s);

/** Is `name` a parameter of some overload? */
bool mpsfix_signature_has_param(const mpsfix_signature *s, const char *name);

/** The arguments of one call, bound to the parameters of the overload they fit. */
typedef struct {
	size_t n;               /* every distinct parameter name of the signature */
	char **names;           /* borrowed from the signature */
	mpsfix_binding *bindings; /* bound: the argument's value node (owned array) */
	const mpsfix_overload *overload; /* the overload used */
} mpsfix_call_binding;

void mpsfix_call_binding_release(mpsfix_call_binding *b);

/**
 * Bind the arguments of `call` (a `call` node) to `sig`.  Returns NULL and
 * fills `out`, or the reason the call cannot be bound (owned by the caller):
 * `*args`/`**kwargs` in the call, no overload fits, or the overloads that
 * fit give some argument different parameters ("ambiguous call: ...").
 */
char *mpsfix_signature_bind(mpsfix_call_binding *out, const mpsfix_signature *sig, TSNode call,
			    const char *src);

#endif
