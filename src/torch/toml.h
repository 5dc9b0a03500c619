/*
 * toml.h: a small TOML reader, enough to find the string values of a file
 * like pyproject.toml; not a full TOML parser.  It knows strings (all four
 * kinds), arrays, inline tables, table headers ([t] and [[t]]), dotted
 * keys and comments; other values (numbers, booleans, dates) are stepped
 * over unread.  Each string value is reported with the keys that lead to it.
 */
#ifndef MPSFIX_TOML_H
#define MPSFIX_TOML_H

#include "common.h"

/**
 * The keys that lead to a value: those of its table header, then its own
 * dotted keys and those of the inline tables it is in; an array adds none.
 */
typedef struct {
	char *const *keys;
	size_t len;
} mpsfix_toml_path;

/** Is key `i` of `path` `key`?  False when the path is shorter. */
bool mpsfix_toml_path_is(const mpsfix_toml_path *path, size_t i, const char *key);

/** Called with each string value and the line (1-based) where the string starts. */
typedef void (*mpsfix_toml_string_cb)(void *payload, const mpsfix_toml_path *path,
				      const char *value, uint32_t line);

/**
 * Read `len` bytes of TOML, calling `on_string` for each string value in
 * the order they are written.  0 at the end; at the first thing it cannot
 * read, MPSFIX_ERROR saying what is wrong, with its line in *line (the
 * strings before it have been reported).
 */
int mpsfix_toml_read(const char *data, size_t len, mpsfix_toml_string_cb on_string, void *payload,
		     uint32_t *line);

#endif
