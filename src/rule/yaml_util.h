/*
 * yaml_util.h: a small YAML document tree for rule (and configuration)
 * files, built from libyaml events, with the position of every node.
 *
 * Only what rule files need is accepted: one document; mappings with scalar,
 * unique keys; no aliases (which also defeats "billion laughs" documents);
 * no tags; at most MPSFIX_YAML_MAX_DEPTH levels of nesting.  Any problem is
 * an error "PATH:LINE:COL: message".  libyaml stays inside yaml_util.c.
 */
#ifndef MPSFIX_YAML_UTIL_H
#define MPSFIX_YAML_UTIL_H

#include "common.h"

#define MPSFIX_YAML_MAX_DEPTH 32

typedef enum {
	MPSFIX_YAML_SCALAR,
	MPSFIX_YAML_SEQ,
	MPSFIX_YAML_MAP
} mpsfix_yaml_type;

/** How a scalar was written. */
typedef enum {
	MPSFIX_YAML_PLAIN,
	MPSFIX_YAML_SINGLE_QUOTED,
	MPSFIX_YAML_DOUBLE_QUOTED,
	MPSFIX_YAML_LITERAL, /* | */
	MPSFIX_YAML_FOLDED   /* > */
} mpsfix_yaml_style;

typedef struct mpsfix_yaml_node {
	mpsfix_yaml_type type;
	mpsfix_yaml_style style;       /* SCALAR */
	char *value;                   /* SCALAR: the value, NUL-terminated (owned) */
	size_t len;
	uint32_t line, col;            /* 1-based start; col counts characters */
	size_t start, end;             /* byte range of the node in the document */
	struct mpsfix_yaml_node **items; /* SEQ: the items; MAP: key, value, key, value... */
	size_t nitems;                 /* SEQ: items; MAP: twice the number of pairs */
	size_t cap;
} mpsfix_yaml_node;

typedef struct {
	const char *path;              /* borrowed */
	const char *data;              /* borrowed: must outlive the document */
	size_t len;
	mpsfix_yaml_node *root;        /* NULL for an empty stream (owned) */
} mpsfix_yaml_doc;

#define MPSFIX_YAML_DOC_INIT {NULL, NULL, 0, NULL}

/**
 * Parse `len` bytes of `data` (UTF-8) into `out`; `path` names the document in
 * messages.  `data` and `path` are borrowed and must outlive `out`.  On error
 * `out` is left released.
 */
int mpsfix_yaml_load(mpsfix_yaml_doc *out, const char *path, const char *data, size_t len);

void mpsfix_yaml_release(mpsfix_yaml_doc *doc);

/** Number of key/value pairs of a MAP. */
static inline size_t mpsfix_yaml_npairs(const mpsfix_yaml_node *map)
{
	return map->nitems / 2;
}

static inline const mpsfix_yaml_node *mpsfix_yaml_key(const mpsfix_yaml_node *map, size_t i)
{
	return map->items[2 * i];
}

static inline const mpsfix_yaml_node *mpsfix_yaml_value(const mpsfix_yaml_node *map, size_t i)
{
	return map->items[2 * i + 1];
}

/** True for a plain scalar that YAML reads as null: empty, "~", "null". */
bool mpsfix_yaml_is_null(const mpsfix_yaml_node *n);

/** True for a scalar that is not null. */
bool mpsfix_yaml_is_string(const mpsfix_yaml_node *n);

/**
 * Read the regular file `path` into `out` (appended).  Anything that is not a
 * regular file (a FIFO never blocks), and files over `max` bytes, are errors.
 */
int mpsfix_yaml_read_file(mpsfix_buf *out, const char *path, size_t max);

/** A plain scalar that reads as a number ("1", "-2.5", "1e3", "1_000"). */
bool mpsfix_yaml_number(const mpsfix_yaml_node *n, double *out);

/** A plain true/True/TRUE or false/False/FALSE: returns true and sets *out. */
bool mpsfix_yaml_bool(const mpsfix_yaml_node *n, bool *out);

/** Record the error "PATH:LINE:COL: message" at node `n`; returns MPSFIX_ERROR. */
int mpsfix_yaml_fail(const mpsfix_yaml_doc *doc, const mpsfix_yaml_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** The same at an explicit 1-based position. */
int mpsfix_yaml_fail_at(const mpsfix_yaml_doc *doc, uint32_t line, uint32_t col,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int mpsfix_yaml_vfail_at(const mpsfix_yaml_doc *doc, uint32_t line, uint32_t col,
			 const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

#define MPSFIX_YAML_MAX_FIELDS 32 /* a key table longer than this fails to compile (_Static_assert at the table) */

/** The keys of one mapping (and their values), by index in a table of names. */
typedef struct {
	const mpsfix_yaml_node *key[MPSFIX_YAML_MAX_FIELDS];
	const mpsfix_yaml_node *val[MPSFIX_YAML_MAX_FIELDS];
} mpsfix_yaml_fields;

/** Index of `name` in `names[0, n)`, or n. */
size_t mpsfix_yaml_field_index(const char *const *names, size_t n, const char *name);

/**
 * Sort the keys of mapping `map` into `out` by `names` (n <= 16).  A key not
 * in `names` is an error "unknown key 'x' in 'ctx' (did you mean 'y'?)"; a
 * name whose bit is set in `required` but is absent is "missing required
 * key".  `ctx` names the mapping in messages (NULL: the top level).
 */
int mpsfix_yaml_collect(mpsfix_yaml_fields *out, const mpsfix_yaml_doc *doc,
			const mpsfix_yaml_node *map, const char *ctx,
			const char *const *names, size_t n, unsigned required);

/** Just the "missing required key" part of mpsfix_yaml_collect(). */
int mpsfix_yaml_require(const mpsfix_yaml_fields *f, const mpsfix_yaml_doc *doc,
			const mpsfix_yaml_node *map, const char *ctx,
			const char *const *names, size_t n, unsigned required);

/**
 * Where byte `offset` of a scalar's value was written in the document: a
 * 1-based line and column (in characters).  Exact for single-line scalars
 * and literal blocks (`|`); a close estimate for folded and multi-line
 * flow scalars.
 */
void mpsfix_yaml_position(const mpsfix_yaml_doc *doc, const mpsfix_yaml_node *scalar,
			  size_t offset, uint32_t *line, uint32_t *col);

#endif
