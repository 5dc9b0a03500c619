/*
 * source.h: one file's bytes, its line index and encoding facts, and the
 * atomic write-back.
 *
 * A source is validated on load: a file with NUL bytes (binary), invalid
 * UTF-8, or more than MPSFIX_SOURCE_MAX bytes is refused with MPSFIX_ESKIP
 * and a message naming the file (and line:col for bad UTF-8); the run goes on
 * with other files.  Every byte is kept as read (BOM, CRLF, tabs).
 */
#ifndef MPSFIX_SOURCE_H
#define MPSFIX_SOURCE_H

#include "common.h"

#define MPSFIX_SOURCE_MAX (256u * 1024u * 1024u)

typedef struct {
	char *path;        /* the name used in messages and diffs (owned) */
	char *data;        /* the bytes, NUL-terminated after len (owned) */
	uint32_t len;
	uint32_t *lines;   /* byte offset where each line starts (owned) */
	uint32_t nlines;   /* at least 1 */
	bool has_bom;      /* starts with EF BB BF */
	bool crlf;         /* most line endings are \r\n */
	bool have_mode;    /* `mode` was read from the file system */
	unsigned mode;     /* permission bits of the file read */
} mpsfix_source;

#define MPSFIX_SOURCE_INIT {NULL, NULL, 0, NULL, 0, false, false, false, 0}

/**
 * Read and validate the file at `path`.  Never blocks on a FIFO: anything
 * that is not a regular file is refused with MPSFIX_ESKIP.  Unreadable files
 * give MPSFIX_ERROR.  On failure `out` is left released.
 */
int mpsfix_source_read(mpsfix_source *out, const char *path);

/**
 * Make a source from bytes in memory (copied), validated as above.
 * `path` is the display name (for standard input, --stdin-filename).
 */
int mpsfix_source_from_buffer(mpsfix_source *out, const char *path,
			      const char *data, size_t len);

void mpsfix_source_release(mpsfix_source *s);

/**
 * 1-based line and column of byte offset `byte`.  The column counts
 * characters (UTF-8 code points), not bytes; a BOM does not count.
 */
void mpsfix_source_position(const mpsfix_source *s, uint32_t byte,
			    uint32_t *line, uint32_t *col);

/** The 1-based line that holds byte offset `byte` (a binary search). */
uint32_t mpsfix_source_line_of(const mpsfix_source *s, uint32_t byte);

/** The bytes of 1-based `line`, without its line ending. */
mpsfix_span mpsfix_source_line(const mpsfix_source *s, uint32_t line);

/** "\r\n" when the file mostly uses CRLF, else "\n". */
const char *mpsfix_source_newline(const mpsfix_source *s);

/**
 * Replace the file at `path` with `data` atomically: a temporary file in the
 * same folder, fsync, rename over the original, fsync of the folder.  The
 * original's permission bits are kept (`mode`, when `have_mode`).  On any
 * failure the original is untouched and the temporary file removed.
 */
int mpsfix_source_write_atomic(const char *path, const char *data, size_t len,
			       bool have_mode, unsigned mode);

#endif
