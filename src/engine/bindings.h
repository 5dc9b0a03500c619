/*
 * bindings.h: where a Python scope binds a name.  Reachability (cuda_code.c)
 * trusts `device = "cuda"` or a module's helper function only when nothing
 * else in the scope can rebind that name: another assignment, a parameter, a
 * loop or `with` target, a name of a `case` pattern, an import, a def, a
 * class, `global`/`nonlocal` in a function inside the scope, or exec().
 */
#ifndef MPSFIX_BINDINGS_H
#define MPSFIX_BINDINGS_H

#include <tree_sitter/api.h>

#include "common.h"
#include "types.h"

typedef struct {
	uint32_t count;  /* how many places bind the name in the scope */
	bool dynamic;    /* the scope's own code (not a function inside it) calls
			    exec(), eval(), globals(), locals() or vars() (not vars(obj)): any
			    name may be bound (the same for every name); or it imports
			    `*` after the name's first binding (anywhere, for a name it
			    binds nowhere else), which may bind it again */
	TSNode value;    /* the right side of the first `NAME = value`, or null */
	uint32_t at;     /* where that assignment starts */
	uint32_t first;  /* where the first binding of any kind stands */
} mpsfix_binding;

/**
 * Count the bindings of each of the `n` names `ids` (identifier nodes,
 * compared by their text in `src`) in `scope`: a function definition (its
 * parameters and body) or a module.  A function, class or lambda inside the
 * scope binds its own names, not the scope's, except through `global` and
 * `nonlocal`, which count; its own name, a def's or a class's, is bound in
 * the scope.  One walk of the scope, whatever `n`.
 */
void mpsfix_bindings_count(TSNode scope, const char *src, const TSNode *ids, size_t n, mpsfix_binding *out);

/*
 * Every name a scope binds, read in one walk, for a scope asked about many
 * names one at a time: mpsfix_bindings_index_get() answers as
 * mpsfix_bindings_count() does, without walking the scope again.  `src`
 * and the scope's tree must outlive it.
 */

mpsfix_bindings_index *mpsfix_bindings_index_new(TSNode scope, const char *src);
void mpsfix_bindings_index_free(mpsfix_bindings_index *ix);
void mpsfix_bindings_index_get(const mpsfix_bindings_index *ix, TSNode id, mpsfix_binding *out);

/**
 * Is identifier `id` the builtin of its name where it stands: does no
 * scope around it bind the name (its functions and lambdas, the body of a
 * class it stands in directly, the module), nor may (exec(), `import *`)?
 * One walk of each scope.
 */
bool mpsfix_bindings_builtin(TSNode id, const char *src);

#endif
