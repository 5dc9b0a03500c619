/*
 * classbody.h: what a class's bases and its own body say about the
 * attributes of its instances (selfattr.h asks).
 */
#ifndef MPSFIX_CLASSBODY_H
#define MPSFIX_CLASSBODY_H

#include <tree_sitter/api.h>

#include "common.h"
#include "names.h"

/**
 * Can a base (or the metaclass) of class definition `cls` set attributes:
 * any but `object`, `abc.ABC`, torch's `nn.Module` and `Dataset`,
 * `metaclass=abc.ABCMeta`?  `names` (may be NULL: every base is foreign)
 * resolves them through the file's imports.
 */
bool mpsfix_class_foreign_bases(TSNode cls, const char *src, mpsfix_names *names);

/**
 * Does the class's own body bind identifier `name`'s text, or take over how
 * attributes are found (`__getattr__`, `__getattribute__`, `__setattr__`,
 * `__slots__`), or run a statement that names it or calls locals(),
 * vars(), exec(), setattr()?
 */
bool mpsfix_class_body_binds(TSNode cls, TSNode name, const char *src);

#endif
