/*
 * instance.h: which class a value is an instance of, read from the file's
 * own text, for a rule's `tensor:` (engine.c): a method called on an
 * instance of the project's own class is checked where it is written.
 */
#ifndef MPSFIX_INSTANCE_H
#define MPSFIX_INSTANCE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "names.h"

/**
 * The class whose instance expression `value` (in text `src`, whose imports
 * `names` may be NULL) is: a name its function binds once, before it (or
 * for a name a nested function does not bind, the function around it, or
 * the module), to a call of a capitalized name (`ema = EMAModel(...)`), or
 * by assignments one right after the other in one block outside a try, the
 * last of them that call, before `value` (`ema = Model()` then `ema =
 * EMAModel(ema.parameters())`).  The name, qualified through the imports,
 * goes into `cls` (`diffusers.training_utils.EMAModel`), the call into
 * `call`.  False for anything else.
 */
bool mpsfix_instance_class(const char *src, mpsfix_names *names, TSNode value, mpsfix_buf *cls, TSNode *call);

/** Does module `root` define class `name` at its top level, from nothing of torch's? */
bool mpsfix_instance_module_class(const char *src, mpsfix_names *names, TSNode root, const char *name);

/**
 * Can expression `value` be a torch tensor?  Not an instance
 * (mpsfix_instance_class()) of a class the file defines at its top level
 * from nothing of torch's, and binds only there: that class's method of the
 * same name is right there, and the tensor calls inside it are reported
 * where they are.  A class imported from elsewhere may pin tensors in its
 * own method (diffusers' EMAModel, a TensorDict), so its instances can be,
 * unless it is the project's own (engine.c asks sibling.h).
 */
bool mpsfix_instance_may_be_tensor(const char *src, mpsfix_names *names, TSNode value);

#endif
