/*
 * texts.h: the modules a thread reads and parses for the project's
 * questions (project.h), kept for the next questions, which often read the
 * same modules: MPSFIX_TEXTS_KEPT of them, by path and file stamp, of at
 * most MPSFIX_TEXTS_KEPT_BYTES bytes of text together (a tree takes some
 * 30 times its text on real code, up to 220 times on code dense with
 * nodes).  A large module is kept too: each question that reads it would
 * otherwise parse it again (400 questions read one module of 590 KB in
 * 95 s).
 */
#ifndef MPSFIX_TEXTS_H
#define MPSFIX_TEXTS_H

#include <tree_sitter/api.h>

#include "common.h"
#include "source.h"

#define MPSFIX_TEXTS_KEPT 8
#define MPSFIX_TEXTS_KEPT_BYTES (1024u * 1024u)

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
	size_t bytes; /* the kept texts' lengths together */
	uint64_t clock;
} mpsfix_texts;

void mpsfix_texts_release(mpsfix_texts *c);

/**
 * The module at `path`, read and parsed: a kept one when the file is as it
 * was read, else read now and kept in place of the ones used longest ago
 * that nobody reads now (one that does not fit, when those are gone, or
 * whose parse ran out of time, is not kept: `*owned`).  NULL when it
 * cannot be read.  Hand it back with mpsfix_texts_put().
 */
mpsfix_text *mpsfix_texts_get(mpsfix_texts *c, const char *path, bool *owned);

void mpsfix_texts_put(mpsfix_text *t, bool owned);

#endif
