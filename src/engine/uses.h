/*
 * uses.h: what a function does with the value of one of its names, for a
 * constraint's `used:` (cond.c).  A device chosen only to be printed places
 * nothing: after `device = torch.device("cuda" if torch.cuda.is_available()
 * else "cpu")`, a function that only says `print(f"Device: {device}")` runs
 * where its other code decides.
 */
#ifndef MPSFIX_USES_H
#define MPSFIX_USES_H

#include <tree_sitter/api.h>

#include "common.h"
#include "defaults.h"
#include "names.h"
#include "types.h"


/*
 * What was read of the functions asked about, by function, for the text's
 * next questions.  One per text; release it when the text changes.
 */
typedef struct {
	struct mpsfix_uses_scope {
		const void *scope;             /* the function's node, by its id */
		mpsfix_bindings_index *bindings; /* the names it binds (owned) */
		struct mpsfix_uses_name {
			uint64_t hash;         /* of its text (mpsfix_node_hash) */
			TSNode id;
		} *ids;                        /* the names its body reads or binds: its
						  identifiers but attribute and keyword
						  names, nested code's too, by hash (owned) */
		size_t nids;
		bool dynamic;                  /* its body calls eval(), exec(), locals(),
						  globals() or vars(): any name may be read */
	} *items;
	size_t len, cap;
	/* the module, read at the first question about a module-level name */
	struct mpsfix_uses_module {
		bool read;
		TSNode block;                  /* the __main__ block (null: none) */
		struct mpsfix_uses_name *prefix; /* the names the module's statements before
						  the block read, by hash (owned) */
		size_t nprefix;
		bool prefix_calls;             /* they name a function or class of the
						  module, or call eval() or its kind */
		struct mpsfix_uses_main_name {
			uint64_t hash;
			TSNode id;
			uint32_t index;        /* of the block's statement */
			uint32_t binds;        /* 1: the name that statement binds alone */
		} *main;                       /* the names the block's statements read or
						  bind, by hash, then statement (owned) */
		size_t nmain;
		uint32_t main_calls;           /* the first of its statements that names a
						  function or class of the module (or calls
						  eval()...); UINT32_MAX: none */
	} module;
	mpsfix_defaults_memo defaults;         /* the text's names, for parameter defaults */
} mpsfix_uses_memo;

#define MPSFIX_USES_MEMO_INIT {0}

void mpsfix_uses_memo_release(mpsfix_uses_memo *m);

/**
 * Is the value of expression `node` (in text `src`, whose imports `names`
 * may be NULL) used for more than being shown?  False only when all of
 * these hold:
 * - `node`, in parentheses or not, is the whole value of `NAME = node`, or
 *   the one argument of `torch.device(node)` that is (an assignment
 *   statement of its own, not `a = b = node`, not `self.NAME = node`);
 * - the assignment is in a function, not directly in a class body or the
 *   module (whose names other code may read: an importer, a method); but
 *   see the script's case below;
 * - the function binds NAME there alone (no other assignment, parameter,
 *   loop or `with` target, import, `global` or `nonlocal`, in it or in a
 *   function inside it) and never calls eval(), exec(), locals(), globals()
 *   or vars();
 * - every read of NAME in the function is an argument of print(), of
 *   warnings.warn(), or of a logging call (`logging.info`, `logger.debug`,
 *   `log.warning`, `self.logger.error`, `logging.getLogger(...).info`...),
 *   directly or as an interpolation of an f-string, an argument of
 *   `"...".format()` or an operand of `"..." % ...` that is such an
 *   argument; or an argument of a call into a library whose devices are the
 *   CPU and CUDA alone, which refuses "mps" (faster_whisper's WhisperModel,
 *   ctranslate2); or an operand of `==` or `!=` whose other operand is a
 *   string naming a CUDA device (`NAME == "cuda"`: it reads the same
 *   whether the other choice is the CPU or MPS); a read in a nested
 *   function, lambda, class or
 *   comprehension counts as a use.  No read at all is fine too.
 * A script's module-level `NAME = node` (a statement of the module, which
 * has an `if __name__ == "__main__":` block after it) is not used either
 * when that block binds NAME again (`NAME = value`, at the block's own top
 * level) before anything can read it: no other statement of the module
 * before the block (a function's decorators, defaults and annotations
 * included, not its body), no statement of the block before that one and
 * not the value reads NAME (binding it, `NAME = value` at the module's top
 * level, is no read) or names a function or class the module defines
 * (called or handed on), eval(), exec(), locals(), globals(), vars() or
 * __import__().  pytorch/examples' language_translation/main.py chooses its
 * device again from --backend there.  (A module that imports the script
 * would read the first value: scripts are seldom imported.)
 * Nor is the default value of a parameter (`def f(x, device=node)`,
 * `torch.device(node)` as one) used when its function never reads the
 * parameter (names it nowhere in its body but as an attribute, `x.device`,
 * or a keyword, `f(device=...)`; says no exec, eval, locals, vars,
 * globals, import, save_hyperparameters, currentframe, _getframe,
 * getcallargs, signature nor getfullargspec there, and has no decorator,
 * which may read the arguments), or when every call of the function passes
 * the parameter (defaults.h: in the text and the project's other modules);
 * nor a fallback taken only when parameter P (default None, bound nowhere
 * else in its function but by the fallback's own `P = ...`) is None or
 * false: `P or node`, `node if P is None else P`, `P if P is not None else
 * node`, `P if P else node`, or the value of an assignment directly in the
 * body of `if P is None:` or `if not P:`, when every call passes P a value
 * other than the literal None, False, 0 or "" (mpsfix_defaults_given()).
 * `memo` (may be NULL) keeps what is read of each function.
 */
bool mpsfix_uses_used(mpsfix_uses_memo *memo, mpsfix_names *names, const char *src, TSNode node);

#endif
