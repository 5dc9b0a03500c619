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
#include "types.h"


/*
 * What was found out about names, by name and the function (or module)
 * whose code uses them, for the text's next questions: a use after the
 * value is bound has the same value.  One per text; release it when the
 * text changes.
 */
typedef struct {
	struct mpsfix_instance_known {
		char *name;       /* owned */
		const void *scope; /* the function (or module) node, by its id: a file
				      that starts with a def has both at byte 0 */
		bool outward;     /* the scope does not bind it: look around it */
		bool ok;          /* it has a value: */
		TSNode value;
		uint32_t from;    /* for the uses from this byte on */
	} *items;
	size_t len, cap;
	struct mpsfix_instance_scope {
		const void *scope; /* a function's (or the module's) node id */
		mpsfix_bindings_index *index; /* owned */
	} *scopes;          /* the names each scope binds, read once */
	size_t nscopes, capscopes;
} mpsfix_instance_memo;

#define MPSFIX_INSTANCE_MEMO_INIT {0}

void mpsfix_instance_memo_release(mpsfix_instance_memo *m);

/**
 * How many places bind `id`'s name in `scope` (bindings.h), and whether
 * the scope may bind any name (`*dynamic`), from the index of the scope
 * that `memo` keeps (built at the first question), or with a walk of the
 * scope when `memo` is NULL.
 */
uint32_t mpsfix_instance_count(mpsfix_instance_memo *memo, TSNode scope, const char *src, TSNode id,
			       bool *dynamic);

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
 * `names` may be NULL) is: a call of a capitalized name (`Batch()`), or a
 * name whose value (mpsfix_instance_value(), with `memo`) is one
 * (`ema = EMAModel(...)`).
 * The name, qualified through the imports, goes into `cls`
 * (`diffusers.training_utils.EMAModel`), the call into `call`.  False for
 * anything else.
 */
bool mpsfix_instance_class(const char *src, mpsfix_names *names, TSNode value, mpsfix_buf *cls, TSNode *call,
			   mpsfix_instance_memo *memo);

/**
 * Does module `root` define class `name` at its top level, undecorated,
 * and bind the name there alone, from nothing of torch's, with a method
 * `method` of its own: its bases are none, `object`, abc.ABC, or classes of
 * the module that are such classes themselves (`metaclass=` aside), and it
 * or one of those bases defines `method` with a def, with no `method = ...`
 * nor a `__getattr__` or `__getattribute__` in their bodies?  Then
 * `x.method()` on an instance runs that def.  A base from elsewhere
 * (torch.Tensor, a TensorDict, an alias of either) may make it a tensor, or
 * pin tensors itself.  `memo` (may be NULL) keeps the answer.
 */
bool mpsfix_instance_module_class(const char *src, mpsfix_names *names, TSNode root, const char *name,
				  const char *method, mpsfix_instance_memo *memo);

/**
 * Does identifier `id` stand for the module's binding of its name: does no
 * function around it bind the name (a parameter, a local, a nested def)?
 * `memo` (may be NULL) keeps what each function says.
 */
bool mpsfix_instance_global(const char *src, TSNode id, mpsfix_instance_memo *memo);

/** Is `match` a call of a method of `value` (`value.method(...)`)?  Its name goes into `method`. */
bool mpsfix_instance_method(const char *src, TSNode match, TSNode value, mpsfix_buf *method);

#endif
