/*
 * rule.h: the rule model and its YAML loader.  One rule per file; the format
 * is documented in man/mpsfix-rules.5.  Any problem in a rule file is an
 * error naming file:line:col and what is wrong.
 */
#ifndef MPSFIX_RULE_H
#define MPSFIX_RULE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "signature.h"
#include "strvec.h"
#include "torchver.h"
#include "types.h"

typedef enum {
	MPSFIX_SEV_ERROR,
	MPSFIX_SEV_WARNING,
	MPSFIX_SEV_INFO
} mpsfix_severity;

const char *mpsfix_severity_name(mpsfix_severity s);

typedef enum {
	MPSFIX_FIX_REPLACE, /* replace the target by the rendered template */
	MPSFIX_FIX_REMOVE,  /* remove the target's list element with one comma, or
			       the statement (its whole lines) */
	MPSFIX_FIX_INSERT,  /* insert the rendered template as lines before the
			       first module-level import of `module` */
	MPSFIX_FIX_ADD_ARGUMENT /* add the rendered template as the last argument
				   of the target call */
} mpsfix_fix_op;

typedef struct {
	mpsfix_fix_op op;
	char *target;           /* metavariable name without '$', or NULL: the whole match */
	mpsfix_template *tmpl;  /* REPLACE and INSERT (owned) */
	char *module;           /* INSERT: `before-import:` module (owned) */
	uint32_t line, col;     /* where the edit is written in the rule file */
} mpsfix_fix_edit;

/** One form of the fix: used for a match when all of `when` hold. */
typedef struct {
	mpsfix_constraint *when; /* `when:` by metavariable or parameter (owned) */
	size_t nwhen;
	bool has_torch;         /* `when: {torch: SPEC}`: the case holds only when the
				   file's whole torch target lies inside `torch` */
	mpsfix_torch_range torch;
	char *manual;           /* `manual:` no fix for this form; the reason (owned) */
	mpsfix_fix_edit *edits; /* owned */
	size_t nedits;
	uint32_t line, col;     /* where the case is written in the rule file */
} mpsfix_fix_case;

typedef struct {
	bool present;           /* the rule has a `fix:` */
	bool unsafe;            /* `safety: unsafe` */
	bool exact_outside_range; /* `exact-outside-range: true`: the fix computes the
				     same on torch versions outside the rule's range too,
				     so it stays safe on a target reaching beyond it */
	mpsfix_fix_case *cases; /* `cases:`, the first that holds is used; a fix
				   without `cases:` has one case (owned) */
	size_t ncases;
} mpsfix_fix;

typedef struct {
	char *input;            /* owned */
	size_t input_len;
	char *output;           /* expected text after the fix, or NULL (owned) */
	size_t output_len;
	char *manual;           /* the fix must not apply; its reason contains this (owned) */
	uint32_t line;          /* line of the example in the rule file */
} mpsfix_example;

struct mpsfix_rule {
	char *path;             /* the rule file (owned) */
	char *id, *code, *message, *note, *url, *torch; /* owned; note/url may be NULL */
	mpsfix_torch_range range;       /* `torch:` read (all: MPSFIX_TORCH_RANGE_ALL) */
	mpsfix_severity severity;
	bool enabled;           /* `enabled: false` turns a rule off by default */
	mpsfix_pattern **patterns; /* `match:`, any of (owned) */
	size_t npatterns;
	mpsfix_constraint *constraints; /* `where:` (owned) */
	size_t nconstraints;
	mpsfix_pattern **inside; /* `inside:` an enclosing node matches one of these,
				    with $MATCH (if used) bound to the match (owned) */
	size_t ninside;
	mpsfix_pattern **not_inside; /* `not-inside:` no enclosing node matches any (owned) */
	size_t nnot_inside;
	bool reach_any;         /* `reachable: any`: code that cannot run on MPS (only
				   with CUDA) is matched too; by default it is not (reach.h) */
	mpsfix_strvec skip_paths; /* `skip-paths:` globs; a file with a folder or file
				     name that matches one is not checked by the rule */
	char *device;           /* `device:` the metavariable or parameter that holds
				   the device (type); a match where it cannot be "mps"
				   is not a finding (owned, may be NULL) */
	char *enabled_by;       /* `enabled-by:` the metavariable or parameter whose
				   truth turns the problem on (pin_memory=V); a match
				   where it is false wherever the program runs on MPS
				   is not a finding (owned, may be NULL) */
	char *tensor;           /* `tensor:` the metavariable that stands for a torch
				   tensor; a match where it is an object of
				   another library's class is not a finding (owned, may
				   be NULL) */
	char *after_import;     /* `after-import:` a module-level statement after the
				   first module-level import of this module (owned) */
	mpsfix_signature signature;     /* `signature:`, or none (len 0) */
	mpsfix_fix fix;
	mpsfix_example *invalid; /* must match (and fix to `output`) */
	size_t ninvalid;
	mpsfix_example *valid;   /* must not match */
	size_t nvalid;
};

/**
 * Load one rule from `len` bytes of YAML; `path` names it in messages.
 * `parser` parses the rule's Python snippets.
 */
int mpsfix_rule_load_buffer(mpsfix_rule **out, TSParser *parser, const char *path,
			    const char *data, size_t len);

/** Load one rule file. */
int mpsfix_rule_load_file(mpsfix_rule **out, TSParser *parser, const char *path);

void mpsfix_rule_free(mpsfix_rule *r);

/**
 * Does a folder or file name of `path` (its parts between slashes) match
 * one of the rule's `skip-paths` globs (fnmatch(3), no flags)?
 */
bool mpsfix_rule_skips_path(const mpsfix_rule *r, const char *path);

/**
 * True when `name` (of a `where`/`when` key, a template's $name or a
 * replace target) names a signature parameter: [a-z_][a-z0-9_]* with a
 * letter.  Metavariables are [A-Z_][A-Z0-9_]*; MATCH is the whole match.
 */
bool mpsfix_rule_is_param(const char *name);

typedef struct {
	mpsfix_rule **items;
	size_t len, cap;
} mpsfix_ruleset;

#define MPSFIX_RULESET_INIT {NULL, 0, 0}

/**
 * Add the rule files (`*.yml`, `*.yaml`, in name order) of folder `dir`, or
 * the one file `dir` names.  A rule whose id or code is already in the set
 * is an error.  On error nothing from this call stays in the set.
 */
int mpsfix_ruleset_load(mpsfix_ruleset *set, TSParser *parser, const char *dir);

void mpsfix_ruleset_release(mpsfix_ruleset *set);

#endif
