/*
 * selfattr.h: what an instance attribute can hold.  A read of `self.X` in a
 * method holds one of the values the methods of its class give `self.X`,
 * when nothing else can give it one:
 *
 *   every assignment to `self.X` is a plain one (`self.X = v`,
 *   `self.X: T = v`, `a = self.X = v`, also `self.__class__.X = v`) in a
 *   method of the class (or of a function nested in one, reading the
 *   method's own `self`);
 *   no other object's `X` is set in the file (`trainer.X = v`, also by a
 *   method that may be given another object as self: `Helper.use(t)`), nor
 *   is it unpacked into (`self.X, y = ...`), augmented, looped into, bound
 *   by `with ... as`, set as `type(self).X` (which the grammar reads as a
 *   type alias), through `setattr()`, `__dict__` or nn.Module's
 *   `register_buffer()` (`_buffers`, ...); no object is given another class
 *   (`o.__class__ = C`), and the file runs no exec() or eval() and reaches
 *   for no builtins or frames (`sys._getframe().f_locals`);
 *   the class neither defines `X` in its body (a default, a property, a
 *   dataclass field) nor derives from anything but `object`, `abc.ABC` or
 *   a class of torch's (a base of the project may set `X` too), no class
 *   of the file derives from it (nor from an expression: `type(t)`,
 *   `REGISTRY[0]`), uses it as a value (`Base = Trainer`) or decorates it
 *   with anything but the standard library's dataclass, total_ordering
 *   and final, its body binds no name of its methods again
 *   (`step = staticmethod(step)`), and no method of it that takes the
 *   instance is read from the class (`Trainer.step(other)`, `step =
 *   Trainer.step` in another class) or from an instance's class
 *   (`type(t).step`, `t.step.__func__`).  A file that binds `property`,
 *   `classmethod` or `staticmethod` itself has no plain methods.
 *
 * A class of another file may still derive from the class and set `X`:
 * that is not seen.  Names are compared as written, not NFKC-normalised
 * as Python does (`ｄｅｖｉｃｅ` is `device` to Python).
 */
#ifndef MPSFIX_SELFATTR_H
#define MPSFIX_SELFATTR_H

#include <tree_sitter/api.h>

#include "common.h"
#include "names.h"

typedef struct {
	TSNode *items;
	size_t len, cap;
} mpsfix_selfattr_values;

/* Every place of a file that can set an attribute, read in one walk. */
typedef struct mpsfix_selfattr_index mpsfix_selfattr_index;

/**
 * Read the file at `root` (its text `src`, its tree and its imports `names`,
 * which may be NULL, must outlive the index).
 */
mpsfix_selfattr_index *mpsfix_selfattr_index_new(TSNode root, const char *src, mpsfix_names *names);
void mpsfix_selfattr_index_free(mpsfix_selfattr_index *ix);

/**
 * Is `read` (an `attribute` node) `self.X` read in a method of a class,
 * `self` the method's first parameter (not a static method's), bound
 * nowhere else in it?  Into `*cls` the class definition.
 */
bool mpsfix_selfattr_owner(mpsfix_selfattr_index *ix, TSNode read, TSNode *cls);

/**
 * The values given the attribute named like `name` (an identifier) in the
 * instances of class `cls`, into `out` (emptied first; free out->items);
 * false when something else can set it (above), or nothing does.
 */
bool mpsfix_selfattr_values_of(mpsfix_selfattr_index *ix, TSNode cls, TSNode name, mpsfix_selfattr_values *out);

/**
 * May an object other than a method's own `self` get attribute `name` (an
 * identifier) set in the file: `o.name = v`, `setattr(o, "name", v)`, or
 * a setattr() of any name, `vars(o)`, `o.__dict__`?  A module's global of
 * that name may be set so (`sys.modules[__name__].name = v`).
 */
bool mpsfix_selfattr_foreign_set(mpsfix_selfattr_index *ix, TSNode name);

#endif
