/*
 * dynamic.h: code that may bind any name, where the text does not say
 * which: exec(), eval(), globals(), locals(), vars().
 */
#ifndef MPSFIX_DYNAMIC_H
#define MPSFIX_DYNAMIC_H

#include <tree_sitter/api.h>

#include "common.h"

/** Is text [from, to) of `src` free of the words exec, eval, globals, locals, vars, import (a comment counts)? */
bool mpsfix_dynamic_free(const char *src, uint32_t from, uint32_t to);

/**
 * Does a function, lambda or class body of module `root` call exec(),
 * eval(), globals(), vars() or locals() by those names (not
 * `model.eval()`), or does any code of it reach exec() and the like
 * through the builtins module (`builtins.exec(`, `__builtins__.eval(`,
 * `from builtins import exec`, `getattr(builtins, name)`) or a namespace
 * through a frame or a function (`f_globals`, `f_locals`, `__globals__`)?  Called between an assignment at the top level
 * and a read there, it may bind any global.
 */
bool mpsfix_dynamic_calls(const char *src, TSNode root);

#endif
