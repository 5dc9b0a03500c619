/*
 * defaults.h: is a parameter's default value ever used?  Not where every
 * call of its function passes the parameter: in
 *
 *   def format_conditioning(clip, cond_length=132300, device="cuda"): ...
 *   ...
 *   format_conditioning(ls[0], device=self.device)
 *
 * "cuda" is never the device.  The calls are those of the text (the
 * function's name is read nowhere else in it) and, for a function of the
 * module's top level or a class's __init__, those of the project's other
 * modules (project.h).  Where those are not known, the guess made here is
 * that a function its own module always calls with the parameter keeps the
 * default as a convenience for no one, or for callers that rarely exist; a
 * class needs its other modules' calls known.
 */
#ifndef MPSFIX_DEFAULTS_H
#define MPSFIX_DEFAULTS_H

#include <tree_sitter/api.h>

#include "common.h"

/*
 * What the questions about one text read, kept for the next ones: every
 * identifier and string by the hash of its text, and for each function
 * asked about, whether its calls are all known and, for each call, what it
 * passes (so a question costs the calls' number, not their arguments').
 */
typedef struct {
	struct mpsfix_defaults_name {
		uint64_t hash;
		TSNode id, parent;
		TSNode call;      /* the call whose function the name is (f(...),
				     x.f(...)), or that hands it on as a gradio
				     event's function (`handed`), else null;
				     names only */
		bool in_def;      /* a function_definition's child (its name) */
		bool handed;      /* btn.click(fn=f, ...), gr.Interface(f, ...) */
		bool annotation;  /* in an annotation: x: f, -> "f" (names only) */
	} *items, *kws;           /* the text's names; the calls' keywords, each
				     call's sorted by hash, with the keys of a
				     dictionary a `**NAME` passes whose keys are
				     known (kwdict.h); a keyword's `parent` is the
				     value passed */
	size_t len, cap, nkws, capkws;
	bool read;
	bool gradio;              /* the text imports gradio */
	bool torch;               /* it binds `torch` by `import torch` (torch.X) */
	signed char script;       /* it has an `if __name__ == "__main__":` block
				     (0: not looked for yet, 1 yes, -1 no) */
	struct mpsfix_defaults_fn {
		const void *def;  /* the function_definition, by its id */
		bool ok;          /* every reference is a call read here */
		bool known;       /* and there is one at least */
		bool handed;      /* one of them hands it to a gradio event */
		size_t first, n;  /* its calls, in calls[] */
	} *fns;
	size_t nfns, capfns;
	struct mpsfix_defaults_call {
		uint32_t positional; /* its positional arguments */
		uint32_t splat_at;   /* how many stand before its first *args (UINT32_MAX: none) */
		size_t kw, nkw;      /* its keywords, in kws[] */
		bool kwsplat;        /* it passes a **kwargs */
		TSNode args;         /* its argument list (null: a gradio event's inputs) */
	} *calls;
	size_t ncalls, capcalls;
	struct mpsfix_kwdict_cache *kwdicts; /* what the text's `**NAME` pass */
	/* not the text's, kept by mpsfix_defaults_memo_release(): where the
	   calls of the project's other modules are read (project.h), and the
	   text's file (NULL: they are not read) */
	struct mpsfix_project_cache *project;
	const char *path;
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
 *   method named `forward` (nn.Module calls it through `module(x)`); or
 *   it is the `__init__` of a class of the module's top level with no
 *   decorator whose code does not build it unnamed (`cls(...)`,
 *   `type(self)(...)`, `self.__class__(...)`), called as `Class(...)`
 *   (`Class.method(...)` builds nothing);
 * - no string of the text holds the name alone (getattr(self, "name"); an
 *   annotation's "Loader" names a type);
 * - every other identifier of that name is the function of a call: `f(...)`
 *   for a function of the module or of another function (`torch.f` and
 *   `torch.x.f`, in a text that imports torch, are torch's, not a mention);
 *   for a method,
 *   `self.f(...)` or `cls.f(...)` inside its class (the call's object is
 *   then `self`: `x.f(...)` elsewhere may be another class's method, as
 *   `torch.load(...)` is not `Checkpoint.load`), and for a @staticmethod
 *   also `Class.f(...)` with the class's own name;
 *   a function of a text that imports gradio may also be handed to one of
 *   gradio's events, `btn.click(fn=f, inputs=[a, b], ...)` (`.change`,
 *   `.submit`, ... or `gr.Interface(f, inputs, ...)`), which calls it with
 *   one positional argument per input: a list written out, or none, and
 *   one per `additional_inputs=[...]`;
 * - there is at least one such call, and each passes the parameter: by its
 *   keyword (not a positional-only one, before `/`), or by position (not a
 *   keyword-only one), with no `*args` before that position and no
 *   `**kwargs` standing in for it (a `**NAME` whose dictionary a function
 *   writes out passes its keys: kwdict.h), or is a wrapper's forwarding
 *   call, `f(*args, **kwargs)` in a function of the module (or of another
 *   function) whose parameters are just `*args, **kwargs`, every call of
 *   which passes it so (through up to 4 wrappers, with the project's other
 *   modules' calls of one at the top level);
 * - for a function of the top level or a class, when `memo` knows the
 *   text's file and project: the project's other modules call it only so
 *   (project.h: one call there is enough when the text makes none), or
 *   nothing is known of them and it is a function.
 * `memo` (may be NULL) keeps the text's names for its next questions.
 */
bool mpsfix_defaults_overridden(mpsfix_defaults_memo *memo, const char *src, TSNode param);

/**
 * mpsfix_defaults_overridden(), and each call (in the text and in the
 * project's other modules) passes a value that is not the literal None,
 * False, 0 or "": a fallback taken when the parameter is None or false
 * (`device = device or torch.device(...)`, `if device is None: device =
 * ...`) is then never taken.  (A call that passes a name may still pass
 * None at run time; that is the guess made here.)
 */
bool mpsfix_defaults_given(mpsfix_defaults_memo *memo, const char *src, TSNode param);

/**
 * Is the default of `param` always its value: do the calls above, known
 * as mpsfix_defaults_overridden() knows them, never pass it?  Only for a
 * function no other module calls as far as the text can tell: one defined
 * inside another function, or at the top level of a script (a module with
 * an `if __name__ == "__main__":` block, which other modules do not
 * import) when its name is private (`_sample`) or the script hands it to a
 * gradio event (a UI callback); not a method.  A public function of a
 * script may still be imported (a module with a self-test in its
 * `__main__` block), and a function nothing names is not known to keep
 * the default (Fire or Typer may call it).
 */
bool mpsfix_defaults_kept(mpsfix_defaults_memo *memo, const char *src, TSNode param);


#endif
