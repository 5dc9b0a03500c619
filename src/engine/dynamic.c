/*
 * dynamic.c: code that binds names where the text does not say which
 * (exec(), globals() and the like); see dynamic.h.  Used by reach.c.
 */
#include "dynamic.h"

#include <ctype.h>
#include <string.h>

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Is text [from, to) free of exec(), globals(), locals(), vars() (or of the words, in a comment)? */
bool mpsfix_dynamic_free(const char *src, uint32_t from, uint32_t to)
{
	static const char *const calls[] = {"exec", "globals", "locals", "vars"};

	for (uint32_t i = from; i < to; i++)
		for (size_t c = 0; c < MPSFIX_ARRAY_SIZE(calls); c++)
			if (src[i] == calls[c][0] && to - i >= strlen(calls[c]) &&
			    !memcmp(src + i, calls[c], strlen(calls[c])))
				return false;
	return true;
}

/*
 * Does a function (or class body) of module `root` call exec(), eval(),
 * globals(), vars() or locals() by those names (not `model.eval()`)?  Called
 * between an assignment at the top level and a read there, it may bind any
 * global (the top level's own calls are bindings.h's `dynamic`).
 */
bool mpsfix_dynamic_calls(const char *src, TSNode root)
{
	static const char *const calls[] = {"exec", "eval", "globals", "locals", "vars"};
	uint32_t len = ts_node_end_byte(root);

	for (uint32_t i = 0; i < len; i++) {
		if (i > 0 && (src[i - 1] == '.' || src[i - 1] == '_' || isalnum((unsigned char)src[i - 1])))
			continue;
		for (size_t c = 0; c < MPSFIX_ARRAY_SIZE(calls); c++) {
			size_t n = strlen(calls[c]), j = i + n;
			TSNode at;

			if (src[i] != calls[c][0] || len - i < n || memcmp(src + i, calls[c], n))
				continue;
			while (j < len && (src[j] == ' ' || src[j] == '\t'))
				j++;
			if (j >= len || src[j] != '(')
				continue;
			for (at = ts_node_descendant_for_byte_range(root, i, i); !ts_node_is_null(at); at = ts_node_parent(at))
				if (is(at, "function_definition") || is(at, "lambda") || is(at, "class_definition"))
					return true;
		}
	}
	return false;
}
