/*
 * parse.c: the tree-sitter boundary for Python: the pinned grammar, parser
 * creation with an ABI check, and error counting that works at any depth.
 */
#include "parse.h"

#include <string.h>

#ifndef MPSFIX_GRAMMAR_VERSION
#define MPSFIX_GRAMMAR_VERSION "0.23.6"
#endif

/* ts_builtin_sym_error of tree_sitter/parser.h, which is the grammar's header */
#define SYM_ERROR ((TSSymbol)-1)

const TSLanguage *tree_sitter_python(void);

const TSLanguage *mpsfix_language(void)
{
	return tree_sitter_python();
}

const char *mpsfix_grammar_version(void)
{
	return MPSFIX_GRAMMAR_VERSION;
}

int mpsfix_parser_new(TSParser **out)
{
	const TSLanguage *lang = mpsfix_language();
	uint32_t abi = ts_language_version(lang);
	TSParser *parser;

	*out = NULL;
	if (abi < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION ||
	    abi > TREE_SITTER_LANGUAGE_VERSION)
		return mpsfix_error_set(MPSFIX_ERROR,
					"grammar ABI %u is not supported by this tree-sitter runtime (%u..%u)",
					abi, (unsigned)TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
					(unsigned)TREE_SITTER_LANGUAGE_VERSION);
	parser = ts_parser_new();
	if (!ts_parser_set_language(parser, lang)) {
		ts_parser_delete(parser);
		return mpsfix_error_set(MPSFIX_ERROR,
					"tree-sitter cannot load the Python grammar (ABI %u)", abi);
	}
	*out = parser;
	return 0;
}

int mpsfix_parse(TSTree **out, TSParser *parser, const char *data, uint32_t len)
{
	*out = ts_parser_parse_string(parser, NULL, data, len);
	if (!*out)
		return mpsfix_error_set(MPSFIX_ERROR, "tree-sitter could not parse the text "
					"(no language, timeout or cancellation)");
	return 0;
}

static bool is_bad(TSNode node)
{
	return ts_node_symbol(node) == SYM_ERROR || ts_node_is_missing(node);
}

uint32_t mpsfix_error_count(TSNode node)
{
	uint32_t count = 0, depth = 0;

	if (ts_node_is_null(node) || !ts_node_has_error(node))
		return 0;
	/* a cursor walk, not recursion: any depth fits */
	TSTreeCursor cursor = ts_tree_cursor_new(node);
	for (;;) {
		TSNode cur = ts_tree_cursor_current_node(&cursor);

		if (is_bad(cur))
			count++;
		/* subtrees without errors are skipped */
		if (ts_node_has_error(cur) && ts_tree_cursor_goto_first_child(&cursor)) {
			depth++;
			continue;
		}
		while (depth > 0 && !ts_tree_cursor_goto_next_sibling(&cursor)) {
			ts_tree_cursor_goto_parent(&cursor);
			depth--;
		}
		if (depth == 0)
			break;
	}
	ts_tree_cursor_delete(&cursor);
	return count;
}

bool mpsfix_node_in_error(TSNode node)
{
	if (ts_node_is_null(node))
		return false;
	if (ts_node_is_missing(node))
		return true;
	/* no error anywhere in the tree: nothing to walk */
	if (!ts_node_has_error(ts_tree_root_node(node.tree)))
		return false;
	for (TSNode n = node; !ts_node_is_null(n); n = ts_node_parent(n))
		if (ts_node_symbol(n) == SYM_ERROR)
			return true;
	return false;
}

TSSymbol mpsfix_symbol(const char *kind)
{
	return ts_language_symbol_for_name(mpsfix_language(), kind,
					   (uint32_t)strlen(kind), true);
}
