/*
 * sibling.h: the modules a file imports from its own folder.  `import utils`
 * (`from utils import x`) in a script, or `from .utils import x` (`from .
 * import utils`) in a package, runs DIR/utils.py before anything after it;
 * where that module cannot be imported on a Mac, the file cannot run there
 * either.
 */
#ifndef MPSFIX_SIBLING_H
#define MPSFIX_SIBLING_H

#include <tree_sitter/api.h>

#include "common.h"

/* Sibling modules larger than this are not read (generated code). */
#define MPSFIX_SIBLING_MAX (1024u * 1024u)

/* How many folders mpsfix_sibling_own_class() looks in, the file's and those above it. */
#define MPSFIX_SIBLING_LEVELS 8

/*
 * What was found out about the modules read, by path and file stamp (one
 * cache per thread: a module many files import is parsed once).
 */
typedef struct mpsfix_sibling_cache mpsfix_sibling_cache;

mpsfix_sibling_cache *mpsfix_sibling_cache_new(void);
void mpsfix_sibling_cache_free(mpsfix_sibling_cache *c);

/**
 * Does the module at `root` (text `src`, the file at `path`) import, at its
 * top level and not in a try, a module of its own folder whose import fails
 * on a Mac?  That module (a regular file NAME.py beside `path`, parsed
 * without errors, at most MPSFIX_SIBLING_MAX bytes) fails when its top level
 * sets CUDA up or imports a CUDA-only module (mpsfix_cuda_script() as
 * imported), makes a call that fails without CUDA (cuda_code.h's
 * MPSFIX_CUDA_FAILING), or exits where MPS is in use (reach.h:
 * `if device not in ("cuda", "xpu"): raise ...`, `assert
 * torch.cuda.is_available()`).  Its own imports are not followed, and a
 * module that cannot be read or parsed does not count.  `cache` keeps what
 * is found out about each module read.
 */
bool mpsfix_sibling_imports_fail(mpsfix_sibling_cache *cache, const char *path, const char *src,
				 TSNode root);

/**
 * Does the module whose text is `len` bytes at `data` (`name`, for
 * messages) fail when it is imported on a Mac, as mpsfix_sibling_imports_fail()
 * judges a module beside the file?  False for text that does not parse.
 */
bool mpsfix_sibling_module_fails(const char *name, const char *data, uint32_t len);

/**
 * Is `cls` (`a.b.C`, as the file's imports qualify a name) a class of the
 * project that the file at `path` lies in?  The module a.b is the first of
 * a/b/__init__.py, a/b.py, src/a/b/__init__.py, src/a/b.py found in the
 * file's folder or a folder above it (MPSFIX_SIBLING_LEVELS folders at most,
 * up to the one that holds .git); C is its class when that module (as
 * mpsfix_sibling_imports_fail() reads one) defines C at its top level from
 * nothing of torch's, with a method `method` of its own
 * (mpsfix_instance_module_class()).  That method is then checked where it
 * is written.
 */
bool mpsfix_sibling_own_class(mpsfix_sibling_cache *cache, const char *path, const char *cls, const char *method);

/**
 * Does the module whose text is `len` bytes at `data` (`name`, for
 * messages) define class `cls` at its top level from nothing of torch's,
 * with a method `method` of its own (mpsfix_instance_module_class())?
 * False for text that does not parse.
 */
bool mpsfix_sibling_defines_class(const char *name, const char *data, uint32_t len, const char *cls,
				  const char *method);

#endif
