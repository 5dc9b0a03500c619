/*
 * defaults.h: is a parameter's default value ever used?  Not where every
 * call of its function passes the parameter: in
 *
 *   def format_conditioning(clip, cond_length=132300, device="cuda"): ...
 *   ...
 *   format_conditioning(ls[0], device=self.device)
 *
 * "cuda" is never the device.  The calls are those of the text: the
 * function's name is read nowhere else in it.  (Another module may call a
 * public function with the default; the guess made here is that a function
 * its own module always calls with the parameter keeps the default as a
 * convenience for no one, or for callers that rarely exist.)
 */
#ifndef MPSFIX_DEFAULTS_H
#define MPSFIX_DEFAULTS_H

#include <tree_sitter/api.h>

#include "common.h"

/* Every identifier and string of a text, by the hash of its text, read once. */
typedef struct {
	struct mpsfix_defaults_name {
		uint64_t hash;
		TSNode id;
	} *items;
	size_t len, cap;
	bool read;
} mpsfix_defaults_memo;

void mpsfix_defaults_memo_release(mpsfix_defaults_memo *m);

/**
 * Does every call of the function whose parameter is `param` (a
 * default_parameter or typed_default_parameter node of a function
 * definition in the text `src`) pass that parameter, so that its default
 * is never used?  All of these must hold:
 * - the function is defined once in the text under its name, with no
 *   decorator but those that leave it where its name is
 *   (mpsfix_callers_plain_decorators()), and is not a dunder nor a
 *   method named `forward` (nn.Module calls it through `module(x)`);
 * - no string of the text holds the name alone (getattr(self, "name"));
 * - every other identifier of that name is the function of a call: `f(...)`
 *   for a function of the module or of another function, `x.f(...)` (not
 *   `Class.f(...)` with the class's own name, which passes `self` itself,
 *   unless the method is a @staticmethod) for a method, whose `self` (or
 *   `cls`) is the call's object;
 * - there is at least one such call, and each passes the parameter: by its
 *   keyword, or by position (not a keyword-only one), with no `*args`
 *   before that position and no `**kwargs` standing in for it.
 * `memo` (may be NULL) keeps the text's names for its next questions.
 */
bool mpsfix_defaults_overridden(mpsfix_defaults_memo *memo, const char *src, TSNode param);

#endif
