/*
 * project.h: what the other modules of a project pass to one of its
 * functions or classes.  defaults.h knows the calls of a text; a public
 * function is called from other modules too:
 *
 *   # timm/data/loader.py
 *   class PrefetchLoader:
 *       def __init__(self, loader, device=torch.device("cuda")): ...
 *
 *   # timm/data/loader.py, train.py, validate.py
 *   loader = PrefetchLoader(loader, device=device)
 *
 * The project is the git work tree that holds the file (the folder with
 * `.git`), else the outermost of the file's folder and the
 * MPSFIX_PROJECT_LEVELS folders above it that holds a pyproject.toml,
 * setup.py, setup.cfg or requirements*.txt.  Its files are walked as the
 * command line's folders are (hidden folders, __pycache__, node_modules,
 * venv and site-packages skipped).
 */
#ifndef MPSFIX_PROJECT_H
#define MPSFIX_PROJECT_H

#include <stddef.h>

#include "common.h"

/* What one thread found out: each project's files, each question's answer. */
typedef struct mpsfix_project_cache mpsfix_project_cache;

mpsfix_project_cache *mpsfix_project_cache_new(void);
void mpsfix_project_cache_free(mpsfix_project_cache *c);

typedef struct {
	const char *name;    /* the function's name, or the class's for its __init__ */
	size_t name_len;
	bool is_class;       /* a call of the class is a call of its __init__ */
	const char *param;   /* the parameter's name */
	size_t param_len;
	long at;             /* where a call passes it by position (self not counted);
				-1: by keyword alone */
	bool posonly;        /* it is positional-only (before `/`) */
	bool given;          /* a call that passes None, False, 0 or "" leaves it
				out (mpsfix_defaults_given()) */
} mpsfix_project_question;

typedef enum {
	MPSFIX_PROJECT_UNKNOWN = 0, /* not known: see below */
	MPSFIX_PROJECT_PASSED,      /* every call of the other modules passes it */
	MPSFIX_PROJECT_DEFAULT_USED /* a call of another module leaves it out */
} mpsfix_project_verdict;

/**
 * Do the project's other modules pass parameter `q->param` wherever they
 * call function (or class) `q->name`, defined at the top level of the
 * module at `path`?  `*ncalls` gets how many calls they make.  A module
 * calls it when it imports the name from that module (`from pkg.loader
 * import PrefetchLoader`, a relative import, or through a package's
 * `__init__.py` that imports it from there) or imports the module itself
 * (`import pkg.loader as L`; `L.PrefetchLoader(...)`); the module is found
 * as Python would find it: beside the importing file, in a folder above it
 * up to the project's top, or under its `src/`.  A module that imports
 * some other `PrefetchLoader`, or defines its own, does not call this one.
 *
 * A module that names neither the module nor a package above it (nor the
 * project's top folder, nor a module found to import the name from it,
 * which hands it on: the modules are read in rounds), and has no
 * relative, star or dynamic import (importlib, __import__, sys.modules),
 * cannot reach it and is not parsed.
 *
 * Unknown when the name may reach the function unseen: an import under
 * another name (`as`), a star import of a project module in a module that
 * reads the name, or besides an import of the name, unless that module's
 * words say it cannot bind the name (mpsfix_project_file_may_bind()) and
 * it is the only module of its name the import may find
 * (mpsfix_modpath_only()); two imports that bind
 * one name to different modules (a try's and its except's); an import of
 * a module named as the one asked about that is not found (a package under
 * lib/ put on sys.path); `X.f` where X is no import (`self.mod.f`, `M =
 * loader; M.f`) in a module that imports the module; the module read other
 * than as `L.x` (`run(L)`); the name used other than as a call (`class D(C)`,
 * `partial(f, ...)`, handed on as a value; for a class, `C.method()` is
 * fine: defaults.c asks that the class build itself by name only); a call
 * through `*args` or `**kwargs` that may or may not pass the parameter (a
 * `**NAME` whose dictionary a function writes out passes its keys:
 * kwdict.h); a
 * string that is the name, holds it after `.` or `:`, or before `(` in a
 * string that is no docstring or is a doctest (`getattr(m, "f")`,
 * `"pkg.loader:f"`, `exec(code)`, `python -c`), but not in `__all__` nor
 * an annotation; a package `__init__.py` with a
 * `__getattr__` (PEP 562); a notebook (of any size) or a configuration
 * file (.yaml, .yml, .json, .toml, .cfg, .ini; one over 1 MiB is data, not
 * read) that names it (Hydra's `_target_`); a module that cannot be read
 * or does not parse, or says the name (or `import`) more than 1,024 times
 * (each is looked up in its tree: 30,000 nested calls would cost their
 * square); and when the file lies in no project, or in one that cannot be
 * walked.
 *
 * Not seen (known holes): the module handed on by a module that does not
 * name the function (`fire.Fire(loader)`), an instance's class called
 * (`type(obj)(...)`, `obj.__class__(...)`) in another module, Python in
 * files not named *.py, *.pyi or *.pyw (an extensionless script, Cython),
 * hidden folders and symbolic links to folders, and callers outside the
 * project (a library's users).
 */
mpsfix_project_verdict mpsfix_project_calls(mpsfix_project_cache *c, const char *path,
					    const mpsfix_project_question *q, size_t *ncalls);

/**
 * Does no other file of the project of the file at `path` (Python
 * modules, notebooks and configuration files, as above) hold `name` (`n`
 * bytes) as a word, a comment's or a string's included?  False when the
 * file lies in no project, or one that cannot be walked, or a module of it
 * cannot be read.
 */
bool mpsfix_project_unnamed(mpsfix_project_cache *c, const char *path, const char *name, size_t n);

#endif
