/*
 * instance.h: which class a value is an instance of, read from the file's
 * own text, for a rule's `tensor:` (engine.c): a method called on an
 * instance of the project's own class is checked where it is written.
 */
#ifndef MPSFIX_INSTANCE_H
#define MPSFIX_INSTANCE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "names.h"

/*
 * What was found out about names, by name and the function (or module)
 * whose code uses them, for the text's next questions: a use after the
 * value is bound has the same value.  One per text; release it when the
 * text changes.
 */
typedef struct {
	struct mpsfix_instance_known {
		char *name;       /* owned */
		uint32_t scope;   /* where the function (or module) starts */
		bool ok;          /* it has a value: */
		TSNode value;
		uint32_t from;    /* for the uses from this byte on */
	} *items;
	size_t len, cap;
} mpsfix_instance_memo;

#define MPSFIX_INSTANCE_MEMO_INIT {0}

void mpsfix_instance_memo_release(mpsfix_instance_memo *m);

/**
 * The value that identifier `value` (in parentheses or not) has where it
 * stands, into `out`: its function binds it once, before it, by `NAME =
 * v` (or, for a name a nested function does not bind, the function around
 * it, past a class body, or the module does), or by assignments one right
 * after the other in one block outside a try, the last of them before it
 * (`ema = Model()` then `ema = EMAModel(ema.parameters())`).  False for
 * anything else, and inside a class body, a lambda or a comprehension,
 * which may bind the name themselves.
 * `memo` (may be NULL) keeps what is found out.
 */
bool mpsfix_instance_value(const char *src, TSNode value, TSNode *out, mpsfix_instance_memo *memo);

/**
 * The class whose instance expression `value` (in text `src`, whose imports
 * `names` may be NULL) is: a name whose value (mpsfix_instance_value(),
 * with `memo`) is a call of a capitalized name (`ema = EMAModel(...)`).
 * The name, qualified through the imports, goes into `cls`
 * (`diffusers.training_utils.EMAModel`), the call into `call`.  False for
 * anything else.
 */
bool mpsfix_instance_class(const char *src, mpsfix_names *names, TSNode value, mpsfix_buf *cls, TSNode *call,
			   mpsfix_instance_memo *memo);

/**
 * Does module `root` define class `name` at its top level, and bind the
 * name there alone, from nothing of torch's: its bases are none, `object`,
 * abc.ABC, or classes of the module that are such classes themselves
 * (`metaclass=` aside)?  A base from elsewhere (torch.Tensor, a TensorDict,
 * an alias of either) may make it a tensor, or pin tensors itself.
 */
bool mpsfix_instance_module_class(const char *src, mpsfix_names *names, TSNode root, const char *name);

#endif
