/*
 * ini.h: a small reader of INI files as Python's configparser reads them
 * (setup.cfg, tox.ini, .flake8): `[section]` headers, `key = value` or
 * `key: value` lines, a value going on on the lines below its key that are
 * indented deeper than it, and whole-line comments starting with '#' or ';'
 * (also inside a value).  No inline comments, no interpolation: a value is
 * the text as written, trimmed.  A leaf module: it needs only text.h.
 */
#ifndef MPSFIX_INI_H
#define MPSFIX_INI_H

#include "common.h"
#include "text.h"

/** One line of a value: its key's line, or a continuation line below it. */
typedef struct {
	mpsfix_text_slice section;  /* the name between the brackets, trimmed ("" before any) */
	mpsfix_text_slice key;      /* as written, trimmed */
	mpsfix_text_slice value;    /* this line's part of the value, trimmed (may be empty) */
	uint32_t line;              /* 1-based */
	bool continued;             /* a continuation line, not the key's */
} mpsfix_ini_line;

/** Called for each line of each value, in file order. */
typedef void (*mpsfix_ini_cb)(void *payload, const mpsfix_ini_line *l);

/**
 * Read the `len` bytes at `data`.  Lines that are none of the above (a key
 * without '=' or ':', an unclosed header) are passed over, as are empty
 * keys.
 */
void mpsfix_ini_read(const char *data, size_t len, mpsfix_ini_cb on_line, void *payload);

/**
 * Is `name` (a key or a section) `want`, as configparser and setuptools
 * compare keys: ignoring case, with '-' and '_' the same?  `want` is lower
 * case.
 */
bool mpsfix_ini_name_is(mpsfix_text_slice name, const char *want);

#endif
