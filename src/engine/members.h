/*
 * members.h: the methods a `self.m()` call of a class's method reaches, as
 * far as the file says (cuda_code.h asks whether they fail on a Mac):
 *
 *   class Guidance:
 *       def ca_loss(self, maps): ...            # the one definition of ca_loss
 *       def guide(self):
 *           loss = self.ca_loss(maps)         # reaches it
 *
 * Each class's body is read once into a table of its members by name, and
 * the file once for the attribute names it binds or spells as strings.
 */
#ifndef MPSFIX_MEMBERS_H
#define MPSFIX_MEMBERS_H

#include <tree_sitter/api.h>

#include "common.h"

/* One member of a class: a plain method (def), with what cuda_code.c found of it. */
typedef struct {
	TSNode cls;        /* the class_definition */
	TSNode def;        /* the function_definition */
	signed char cuda;  /* -1 not asked yet; 0 no; 1 it fails on a Mac whenever it runs */
	mpsfix_span at;    /* where, when it does */
} mpsfix_member;

/* What one text's questions read (NULL: nothing yet); freed with mpsfix_members_free(). */
typedef struct mpsfix_members mpsfix_members;

void mpsfix_members_free(mpsfix_members *m);

/**
 * The method that call function `fn` (`self.m`, an attribute) reaches
 * when it stands directly in function `scope` (not in a nested function or
 * lambda: the caller knows), or NULL: `self` must be `scope`'s first
 * parameter, `scope` a method of a class's own body that needs an
 * instance (not a static or class method), and the class's body must
 * define `m` once, as a function with no decorator (not `m = f`, not a
 * property), and hold nothing but definitions, assignments, docstrings and
 * pass (an if, a loop or a try may define `m` again); and the file must
 * bind no attribute named `m` anywhere (`self.m = other`, `Class.m = ...`,
 * `for self.m in ...`, `with x as self.m`, `del self.m`) nor hold `m` as a
 * string (`setattr(self, "m", ...)`), nor name `__dict__` or `vars`, nor
 * call setattr() with a name that is no string, nor bind another name to
 * the class (`Base = A`, whose subclasses the file's bases do not name).
 * `*cache` keeps what is read, for the next questions about the same text.
 */
mpsfix_member *mpsfix_members_self_call(mpsfix_members **cache, const char *src, TSNode scope, TSNode fn);

/**
 * Does method definition `d` (decorated or not) run without an instance
 * made by `__init__`: a static or class method, `__new__`,
 * `__init_subclass__`, `__class_getitem__` (or no function at all)?
 */
bool mpsfix_members_instance_free(const char *src, TSNode d);

#endif
