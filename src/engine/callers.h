/*
 * callers.h: functions of a text that only its unreachable code calls.
 * Reachability (reach.c) finds the code that cannot run on MPS; a function
 * whose every caller is such code cannot run there either, as far as the
 * text can tell, which it can for names no other module uses:
 *
 *   a function a script (a module with an `if __name__ == "__main__":`
 *   block, which other modules do not import) defines at its top level,
 *   whose name is private: `_load`, `__pin`, not a dunder such as `__init__`;
 *   or public, where no other file of the project names it (not a Python
 *   module, a notebook nor a configuration file: project.h), as
 *   `unnamed_elsewhere` tells;
 *   a private method of a class with no base (nothing else calls its
 *   methods by their names) that no class of the file derives from (a
 *   mixin's `_apply` is nn.Module's to call), called only as `self._pin()`,
 *   `cls._pin()` or `Class._pin()` inside that class;
 *   a function defined directly in another function's body (any name but a
 *   dunder);
 *
 * with no decorator that may hand it on unnamed (@atexit.register,
 * @app.command(); @staticmethod, @property, @contextmanager,
 * @torch.no_grad() and the like leave it where its name is), that the text
 * defines once, never names in a string (getattr(self, "_load"),
 * `__all__`), and names at least once outside its own body: its calls
 * (`_load(x)`, `self._pin()`), or the name handed on as a value.  Every one
 * of those references must lie in unreachable code.  A function found so
 * makes its own calls unreachable in turn: the functions are gone through
 * in rounds, MPSFIX_CALLERS_ROUNDS at most, so a chain of calls is followed
 * at least that many calls deep.
 *
 * A class with a base may have its private methods called by the base
 * (nn.Module calls `_apply`, `_load_from_state_dict`), so its methods are
 * not judged; nor are the private functions of a library module, which
 * other modules of its project import (`from .utils import _pin`).  That a
 * script is not imported, and that no other module calls a private method,
 * are the guesses made here.
 */
#ifndef MPSFIX_CALLERS_H
#define MPSFIX_CALLERS_H

#include <tree_sitter/api.h>

#include "common.h"

#define MPSFIX_CALLERS_ROUNDS 8

typedef struct {
	/* can the code at `at` not run on MPS? */
	bool (*unreachable)(void *payload, TSNode at);
	/* function definition `def` cannot run on MPS: keep its span */
	void (*found)(void *payload, TSNode def);
	/* may be NULL: does no other file of the project name `name` (`n`
	   bytes)?  Then a public function of a script is judged too. */
	bool (*unnamed_elsewhere)(void *payload, const char *name, size_t n);
	void *payload;
} mpsfix_callers_hooks;

/**
 * Ask `hooks` about the references to each function of module `root` above,
 * and tell it of the functions all of whose references are unreachable.
 * Two walks of the text (definitions, then references), then the
 * references only.
 */
void mpsfix_callers_unreached(TSNode root, const char *src, const mpsfix_callers_hooks *hooks);

/**
 * Do the decorators of decorated definition `dd` leave the function where
 * its name is: @staticmethod, @property, @contextmanager, @torch.no_grad(),
 * @functools.wraps(f)?  Others may hand it on unnamed (@atexit.register,
 * @app.command()), to be called from anywhere.
 */
bool mpsfix_callers_plain_decorators(TSNode dd, const char *src);

#endif
