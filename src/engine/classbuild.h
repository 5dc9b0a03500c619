/*
 * classbuild.h: where a class's instances are made.  defaults.h reads the
 * calls of a class's `__init__` as the calls of the class by its name; that
 * holds only for a class nothing builds another way.
 */
#ifndef MPSFIX_CLASSBUILD_H
#define MPSFIX_CLASSBUILD_H

#include <tree_sitter/api.h>

#include "common.h"

/**
 * Is name `n` the `cls` of a call `cls(...)` made right in a class method
 * whose first parameter is `cls` and which binds it nowhere else (not in a
 * def or lambda inside it)?  The call builds an instance of the class or of
 * a subclass: its arguments go to the class's `__init__` unless the
 * subclass has its own.
 */
bool mpsfix_class_cls_call(TSNode n, const char *src);

/**
 * Does class definition `cls` make its instances only where its name is
 * called: a class of the module's top level with no decorator (a registry
 * may build it from a configuration), bases that build no instance of it
 * unnamed (none, `object`, `ABC`, torch's `nn.Module` and `Dataset`, as the
 * module's imports say: any other base may have a class method that does,
 * such as transformers' `from_pretrained`), and a module whose code builds
 * none unnamed (`cls` handed on or called other than `cls(...)` in a class
 * method, `type(self)(...)`, `self.__class__(...)`, `self.__init__()`)?
 */
bool mpsfix_class_built_by_name(TSNode cls, const char *src);

#endif
