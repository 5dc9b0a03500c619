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

/** Parse `len` bytes of `data`. */
int mpsfix_parse(TSTree **out, TSParser *parser, const char *data, uint32_t len);

/** Number of ERROR and MISSING nodes under `node` (iterative, any depth). */
uint32_t mpsfix_error_count(TSNode node);

/** True if `node` is, or lies inside, an ERROR node (or is MISSING). */
bool mpsfix_node_in_error(TSNode node);

/** Symbol of a named node kind ("call", "identifier"...), 0 if unknown. */
TSSymbol mpsfix_symbol(const char *kind);

#endif
