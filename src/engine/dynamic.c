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


/* The builtins that may bind any name of the scope they run in. */
static const char *const binding_calls[] = {"exec", "eval", "globals", "locals", "vars"};

static bool starts_with(const char *src, uint32_t i, uint32_t to, const char *w)
{
	return src[i] == w[0] && to - i >= strlen(w) && !memcmp(src + i, w, strlen(w));
}

/* Is text [from, to) free of exec(), eval(), globals(), locals(), vars() and import (or of the words, in a comment)? */
bool mpsfix_dynamic_free(const char *src, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		if (starts_with(src, i, to, "import"))
			return false;
		for (size_t c = 0; c < MPSFIX_ARRAY_SIZE(binding_calls); c++)
			if (starts_with(src, i, to, binding_calls[c]))
				return false;
	}
	return true;
}

static bool word_char(char c)
{
	return c == '_' || isalnum((unsigned char)c);
}

/* Does `src` hold word `w` at i (not inside a longer name)? */
static bool word_at(const char *src, uint32_t len, uint32_t i, const char *w)
{
	size_t n = strlen(w);

	return starts_with(src, i, len, w) && (i == 0 || !word_char(src[i - 1])) &&
	       (i + n == len || !word_char(src[i + n]));
}

/*
 * Does the line of `src` that holds the word `builtins` (`__builtins__`) at
 * i reach the namespace-binding builtins through it: exec and the like, or
 * `__dict__`, named after it (`builtins.exec(`, `from builtins import exec
 * as run`), or a getattr() before it (`getattr(builtins, name)`)?
 */
static bool builtins_reached(const char *src, uint32_t len, uint32_t i)
{
	uint32_t start = i, end = i;

	while (start > 0 && src[start - 1] != '\n')
		start--;
	while (end < len && src[end] != '\n')
		end++;
	for (uint32_t j = start; j < i; j++)
		if (word_at(src, len, j, "getattr"))
			return true;
	for (uint32_t j = i; j < end; j++) {
		if (word_at(src, len, j, "__dict__"))
			return true;
		for (size_t c = 0; c < MPSFIX_ARRAY_SIZE(binding_calls); c++)
			if (word_at(src, len, j, binding_calls[c]))
				return true;
	}
	return false;
}

/*
 * Does a function (or class body) of module `root` call exec(), eval(),
 * globals(), vars() or locals() by those names (not `model.eval()`)?  Called
 * between an assignment at the top level and a read there, it may bind any
 * global (the top level's own calls are bindings.h's `dynamic`).  Anywhere in
 * the module: those reached through the builtins module (builtins_reached()),
 * and a namespace reached through a frame or a function
 * (`sys._getframe().f_globals`, `fn.__globals__`).
 */
bool mpsfix_dynamic_calls(const char *src, TSNode root)
{
	static const char *const namespaces[] = {"f_globals", "f_locals", "__globals__"};
	uint32_t len = ts_node_end_byte(root);

	for (uint32_t i = 0; i < len; i++) {
		for (size_t c = 0; c < MPSFIX_ARRAY_SIZE(namespaces); c++)
			if (word_at(src, len, i, namespaces[c]))
				return true;
		if ((word_at(src, len, i, "builtins") || word_at(src, len, i, "__builtins__")) &&
		    builtins_reached(src, len, i))
			return true;
		if (i > 0 && src[i - 1] == '.')
			continue;
		for (size_t c = 0; c < MPSFIX_ARRAY_SIZE(binding_calls); c++) {
			size_t j = i + strlen(binding_calls[c]);
			TSNode at;

			if (!word_at(src, len, i, binding_calls[c]))
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
