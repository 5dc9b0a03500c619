/*
 * toml.h: a small TOML reader, enough to find the string and integer
 * values of a file like pyproject.toml; not a full TOML parser.  It knows
 * strings (all four kinds), integers (decimal with '_' between digits, 0x,
 * 0o, 0b), arrays, inline tables, table headers ([t] and [[t]]), dotted
 * keys and comments; other values (floats, booleans, dates) are reported as
 * written, unread.  Each value is reported with the keys that lead to it.
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

/** What a value is (an array or an inline table is none: its items are reported). */
typedef enum {
	MPSFIX_TOML_STRING,
	MPSFIX_TOML_INTEGER,
	MPSFIX_TOML_OTHER     /* a float, a boolean, a date, or an integer out of range */
} mpsfix_toml_kind;

typedef struct {
	mpsfix_toml_kind kind;
	const char *text;     /* a string's value; else the value as written ("1_000", "true") */
	int64_t integer;      /* MPSFIX_TOML_INTEGER: its value */
} mpsfix_toml_value;

/** Called with each value and the line (1-based) where it starts. */
typedef void (*mpsfix_toml_value_cb)(void *payload, const mpsfix_toml_path *path,
				     const mpsfix_toml_value *value, uint32_t line);

/** mpsfix_toml_read() for every value, strings, integers and the others. */
int mpsfix_toml_read_values(const char *data, size_t len, mpsfix_toml_value_cb on_value, void *payload,
			    uint32_t *line);

#endif
