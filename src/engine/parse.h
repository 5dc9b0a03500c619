/*
 * parse.h: the tree-sitter boundary for Python.  One TSParser per thread;
 * trees are owned by the caller and freed with ts_tree_delete().
 */
#ifndef MPSFIX_PARSE_H
#define MPSFIX_PARSE_H

#include <tree_sitter/api.h>

#include "common.h"

/** The pinned tree-sitter-python language. */
const TSLanguage *mpsfix_language(void);

/** Version of the pinned grammar, e.g. "0.23.6". */
const char *mpsfix_grammar_version(void);

/** A parser for Python; an error if the runtime cannot load the grammar's ABI. */
int mpsfix_parser_new(TSParser **out);

/*
 * tree-sitter's error recovery can take very long on pathological input:
 * a parse of `len` bytes may take 10 s plus 2 s per MB, then the file is
 * skipped.  A build with sanitizers runs several times slower: the Makefile
 * multiplies the limit there (MPSFIX_PARSE_TIMEOUT_SCALE=4).
 */
#ifndef MPSFIX_PARSE_TIMEOUT_SCALE
#define MPSFIX_PARSE_TIMEOUT_SCALE 1
#endif
#define MPSFIX_PARSE_TIMEOUT_US(len) \
	(MPSFIX_PARSE_TIMEOUT_SCALE * (10000000ull + 2ull * (uint64_t)(len)))

/**
 * Parse `len` bytes of `data` into a new tree (the caller frees it with
 * ts_tree_delete()), with no time limit (patterns, signatures: text mpsfix
 * writes itself).  Any nesting is handed to the runtime: tree-sitter 0.25
 * parses 1,000,000 brackets left open, where 0.20 corrupted its heap past
 * about 65,535 parse-stack entries.
 */
int mpsfix_parse(TSTree **out, TSParser *parser, const char *data, uint32_t len);

/**
 * Parse a file's text: mpsfix_parse() within MPSFIX_PARSE_TIMEOUT_US, else
 * MPSFIX_ESKIP and the parser reset for the next text; error messages start
 * with `name` ("NAME: skipped: ...").
 */
int mpsfix_parse_named(TSTree **out, TSParser *parser, const char *name,
		       const char *data, uint32_t len);

/**
 * mpsfix_parse_named() with a time limit of its own: `timeout_us`
 * microseconds (0: none), checked through the runtime's progress callback.
 */
int mpsfix_parse_timed(TSTree **out, TSParser *parser, const char *name,
		       const char *data, uint32_t len, uint64_t timeout_us);

/** Number of ERROR and MISSING nodes under `node` (iterative, any depth). */
uint32_t mpsfix_error_count(TSNode node);

typedef enum {
	MPSFIX_WALK_DESCEND, /* go on into this node's children */
	MPSFIX_WALK_SKIP,    /* go on, but not into this node's children */
	MPSFIX_WALK_STOP     /* end the walk */
} mpsfix_walk_action;

/**
 * Visit `root` and the nodes below it, depth first, in source order, with a
 * tree cursor (no recursion: any depth fits).  Returns false if `visit`
 * stopped the walk.
 */
bool mpsfix_walk(TSNode root, mpsfix_walk_action (*visit)(TSNode node, void *payload),
		 void *payload);

/* The ancestors of the node a walk is at (mpsfix_walk_parents()). */
typedef struct {
	TSNode *items; /* the walk's root first, the node's parent last */
	size_t len, cap;
	TSNode top;    /* where items start (the walk's root; the tree's root for
			  mpsfix_ancestors_of()): its own ancestors are asked for when needed */
} mpsfix_ancestors;

/** The node's `k`-th ancestor (1: its parent, 2: its grandparent); a null node above the tree's root. */
TSNode mpsfix_up(const mpsfix_ancestors *up, size_t k);

/**
 * Fill `out` (emptied first; free out->items) with the ancestors of
 * `node`, its tree's root first, its parent last, in one descent from the
 * root: ts_node_parent() descends from the root once per step up, so a
 * climb to the top costs the square of the depth.
 */
void mpsfix_ancestors_of(TSNode node, mpsfix_ancestors *out);

/**
 * mpsfix_walk(), with the node's ancestors handed to `visit`: ts_node_parent()
 * searches down from the tree's root, so asking it for every node of a deep
 * tree (a chain of 100,000 `.format()` calls, 30,000 nested calls) takes time
 * that grows with the square of the depth.  The ancestors are kept on a stack
 * as the cursor goes down; those above the walk's root are asked for.
 */
bool mpsfix_walk_parents(TSNode root,
			 mpsfix_walk_action (*visit)(TSNode node, const mpsfix_ancestors *up, void *payload),
			 void *payload);

/*
 * The named children of a node, comments aside, in order, through a tree
 * cursor: a module can hold thousands of statements, and
 * ts_node_named_child(n, i) walks i of them.  A null node has none.
 */
typedef struct {
	TSTreeCursor cur;
	bool live, more;
} mpsfix_kids;

void mpsfix_kids_start(mpsfix_kids *k, TSNode n);
bool mpsfix_kids_next(mpsfix_kids *k, TSNode *out);
void mpsfix_kids_end(mpsfix_kids *k);

/** The first ERROR or MISSING node under `node`, depth first; false if none. */
bool mpsfix_first_error(TSNode node, TSNode *out);

/** True if `node` is, or lies inside, an ERROR node (or is MISSING). */
bool mpsfix_node_in_error(TSNode node);

/** The next (or previous) sibling of `n` that is not a comment or other extra; null if none. */
TSNode mpsfix_next_token(TSNode n);
TSNode mpsfix_prev_token(TSNode n);

/** True when the source text of `n` is exactly the string `s`. */
bool mpsfix_node_text_is(TSNode n, const char *src, const char *s);

/** The source text of `n`, as a string of its own (owned by the caller). */
char *mpsfix_node_text(TSNode n, const char *src);

/** True when neither node is null and their source texts are the same. */
bool mpsfix_node_same_text(TSNode a, TSNode b, const char *src);

/** A hash (FNV-1a) of the source text of `n`: nodes of the same text have the same. */
uint64_t mpsfix_node_hash(TSNode n, const char *src);

/** The identifier parameter `p` binds (`x`, `x: T`, `x=1`, `*x`, `**x`); a null node if none. */
TSNode mpsfix_param_name(TSNode p);

/** The same hash of the `n` bytes at `p`. */
uint64_t mpsfix_hash_bytes(const char *p, size_t n);

/**
 * In call arguments `args`, the value of keyword argument `name=`, else the
 * first positional argument (comments aside), else a null node.
 */
TSNode mpsfix_call_argument(TSNode args, const char *src, const char *name);

/** The number of named children of `n` (0 for a null node, which tree-sitter does not check). */
uint32_t mpsfix_named_count(TSNode n);

/** The expression inside the parentheses (and comments) around `n`; `n` itself when there are none. */
TSNode mpsfix_unparenthesized(TSNode n);

/** Is `n` the child of `parent` under the field `field`? */
bool mpsfix_field_is(TSNode parent, const char *field, TSNode n);

/** The first named child of `n` that is not a comment, or a null node. */
TSNode mpsfix_first_named(TSNode n);

/**
 * The `if __name__ == "__main__":` statement at the top level of module
 * `root` (also `"__main__" == __name__`), the first if several, or a null
 * node: a module with one is a script.
 */
TSNode mpsfix_main_block(TSNode root, const char *src);

/** Symbol of a named node kind ("call", "identifier"...), 0 if unknown. */
TSSymbol mpsfix_symbol(const char *kind);

/**
 * If `node` is an identifier, or an attribute whose object is one of these,
 * append its names joined by dots to `out` ("torch.cuda.is_available",
 * whatever comments or line breaks stand between them) and return true;
 * otherwise return false (`out` may hold part of the name).
 */
bool mpsfix_dotted_name(TSNode node, const char *src, mpsfix_buf *out);

/**
 * Is `node` safe to evaluate twice: a name, an attribute chain, a literal,
 * a subscript of those with literal or name keys, a tuple (or parentheses)
 * of those?  Calls, await, walrus, lambdas, comprehensions and operators
 * (but unary minus on a number) are not.  A fix that would evaluate code
 * twice asks it, and so does a constraint's `pure: true`.
 */
bool mpsfix_node_pure(TSNode node, const char *src);

/**
 * The first statement among the children of `root` (a module) that imports
 * `module` or one of its submodules (`import torch.nn`, `from torch import
 * x`), or a null node.
 */
TSNode mpsfix_first_import_of(TSNode root, const char *src, const char *module);

/** The start of the line holding byte `at` (after a `\n` or `\r`). */
uint32_t mpsfix_line_start(const char *src, uint32_t at);

/** The end of the spaces and tabs that start the line at `line_start`. */
uint32_t mpsfix_indent_end(const char *src, uint32_t len, uint32_t line_start);

/**
 * The step by which the file of `node` (`len` bytes of `src`) indents a
 * block: how much deeper a block's first statement, on a line of its own,
 * is indented than the line its compound statement starts on (four spaces,
 * a tab).  The blocks around `node` are asked first, from the innermost,
 * then the file's blocks in order.  Sets `*step` to those bytes of `src` and
 * returns true; false when no block says (the caller picks a step).
 */
bool mpsfix_indent_step(TSNode node, const char *src, uint32_t len, mpsfix_span *step);

/** Is `n` (a name, a string) in an annotation: `x: C`, `-> Optional["C"]`? */
bool mpsfix_in_annotation(TSNode n);

/**
 * Does name `id` only say what a value is: in an annotation (`x: C`,
 * `-> Optional[C]`), or as the class of isinstance() or issubclass()?
 */
bool mpsfix_typing_only(TSNode id, const char *src);

/**
 * Does string content `n` name something without reaching it: the name of
 * an attribute that a call rebinds, the second of a three-argument
 * setattr (`setattr(m, "f", g)`, pytest's `monkeypatch.setattr(m, "f",
 * g)`, the fixture also named `mp`), the target of
 * `monkeypatch.setattr("pkg.m.f", g)`, `monkeypatch.delattr(m, "f")`,
 * `patch("pkg.m.f", ...)` (also `mock.patch`, `mocker.patch`) or
 * `mock.patch.object(m, "f", ...)`?
 */
bool mpsfix_string_inert(TSNode n, const char *src);

/** Is identifier `n` a name of an import statement (its module or what it binds)? */
bool mpsfix_in_import(TSNode n);

/**
 * Is `obj` (an attribute's object) a chain of identifiers and dots alone
 * (`L`, `pkg.data`)?  `*root` gets its first identifier.
 */
bool mpsfix_attribute_root(TSNode obj, TSNode *root);

/**
 * The same for the node whose ancestors a walk holds in `up` (the node
 * itself when `k` is 1; its parent when 2): no climb from the root.
 */
bool mpsfix_in_annotation_up(const mpsfix_ancestors *up, size_t k);

/**
 * Is class name `id`, whose parent is `parent`, the object of an attribute
 * other than `__init__`, `__new__` or `__call__` (`C.from_file(...)`,
 * `C.VERSION`)?  Such a use builds no instance of a class whose own code
 * builds none unnamed (no `cls(...)`, `self.__class__(...)`,
 * `type(self)(...)`).
 */
bool mpsfix_class_attribute(TSNode id, TSNode parent, const char *src);

/** Is `n` (parentheses aside) the literal None, False, 0 or an empty string? */
bool mpsfix_falsy_literal(TSNode n, const char *src);

#endif
