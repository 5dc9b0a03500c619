/*
 * types.h: the types modules pass to each other by pointer, declared
 * without their fields (as libgit2's types.h).  A header that only hands
 * such a pointer on includes this, not the header that owns the type, so
 * that the model (rule.h) never includes the algorithms, and the project's
 * includes have no cycle (tests/t0010-layout.sh checks it).
 */
#ifndef MPSFIX_TYPES_H
#define MPSFIX_TYPES_H

typedef struct mpsfix_rule mpsfix_rule;                 /* rule.h: one rule file */
typedef struct mpsfix_pattern mpsfix_pattern;           /* pattern.h: a compiled `match:` snippet */
typedef struct mpsfix_constraint_s mpsfix_constraint;   /* pattern.h: a `where:` condition */
typedef struct mpsfix_template mpsfix_template;         /* template.h: a fix's text */
typedef struct mpsfix_index mpsfix_index;               /* engine.h: the rules of a run, indexed */
typedef struct mpsfix_bindings_index mpsfix_bindings_index; /* bindings.h: where a scope binds its names */

#endif
