/*
 * texts.h: the modules a thread reads and parses for the project's
 * questions (project.h), kept for the next questions, which often read the
 * same modules: MPSFIX_TEXTS_KEPT of them, each of at most
 * MPSFIX_TEXTS_KEPT_MAX bytes, by path and file stamp.
 */
#ifndef MPSFIX_TEXTS_H
#define MPSFIX_TEXTS_H

#include <tree_sitter/api.h>

#include "common.h"
#include "source.h"

#define MPSFIX_TEXTS_KEPT 8
#define MPSFIX_TEXTS_KEPT_MAX (64u * 1024u)

typedef struct {
	char *path;
	char *data;              /* NUL-terminated */
	size_t len;
	TSTree *tree;            /* NULL: it does not parse */
	mpsfix_file_stamp stamp; /* the file as read */
	uint64_t used;           /* when it was last asked for */
	unsigned pins;           /* readers now */
} mpsfix_text;

typedef struct {
	TSParser *parser;
	mpsfix_text items[MPSFIX_TEXTS_KEPT];
	uint64_t clock;
} mpsfix_texts;

void mpsfix_texts_release(mpsfix_texts *c);

/**
 * The module at `path`, read and parsed: a kept one when the file is as it
 * was read, else read now and kept in place of the one used longest ago
 * that nobody reads now (a larger text, or one with no place free, is not
 * kept: `*owned`).  NULL when it cannot be read.  Hand it back with
 * mpsfix_texts_put().
 */
mpsfix_text *mpsfix_texts_get(mpsfix_texts *c, const char *path, bool *owned);

void mpsfix_texts_put(mpsfix_text *t, bool owned);

#endif
