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
 * `nonlocal`, which count, and a walrus in its header, which runs in the
 * scope (`def g(x=(n := 1))`, `class C((n := B))`); its own name, a def's
 * or a class's, is bound in the scope.  The names of a tuple or list after
 * `with ... as`, a `type` statement's name and the type parameters of the
 * scope's own def count too.  One walk of the scope, whatever `n`.
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
 * Which of the (at most 32) `names` does the text at `root` bind anywhere,
 * in any scope (a def, a parameter, an assignment, an import, a `case`
 * pattern, `global`): bit i for names[i]; every bit where it may bind any
 * name (exec() and the like, `import *`).  Where no bit is set, those
 * names are Python's builtins everywhere in the text.  One walk.
 */
uint32_t mpsfix_bindings_rebound(TSNode root, const char *src, const char *const *names, size_t n);

/**
 * Is generator expression `g` run through where it is written, so that the
 * names it reads hold what they hold there: the sole argument of a builtin
 * that consumes it (all, any, bytearray, bytes, dict, frozenset, list, max,
 * min, next, set, sorted, sum, tuple) that the text binds nowhere
 * (mpsfix_bindings_rebound()), or of a method `.join`, `.extend` or
 * `.fromkeys` (known by name alone)?  Another call (`iter`, `enumerate`,
 * `zip`, the project's own) may keep it and run it later.  `cache` (may be
 * NULL; 0 at first) keeps the text's rebound builtins for its next
 * questions.
 */
bool mpsfix_bindings_generator_consumed(TSNode g, const char *src, uint64_t *cache);

#endif
