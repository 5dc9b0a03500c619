/*
 * source.h: one file's bytes, its line index and encoding facts, and the
 * atomic write-back.
 *
 * A source is validated on load: a file with NUL bytes (binary), a UTF-16
 * or UTF-32 byte-order mark, invalid UTF-8, a PEP 263 coding line declaring
 * another encoding than UTF-8 with non-ASCII text, or more than
 * MPSFIX_SOURCE_MAX bytes is refused with MPSFIX_ESKIP and a message naming
 * the file (and line:col where there is one); the run goes on with other
 * files.  Every byte is kept as read (BOM, CRLF, tabs).
 *
 * Writing back is guarded: read-only files and files with several hard
 * links are not replaced, and a file that changed since it was read is
 * left alone (the new text is abandoned).  Temporary files are named
 * ".NAME.mpsfix-XXXXXX" next to the file and locked while in use, so that
 * one left by a killed run can be told from one in use and removed.
 */
#ifndef MPSFIX_SOURCE_H
#define MPSFIX_SOURCE_H

#include "common.h"

/*
 * The largest file read.  tree-sitter needs about 40 times a file's size in
 * memory for its tree, and a fix holds two trees: 16 MiB keeps a run under
 * about 1.5 GB for ordinary code (a 100 MB file would need 9 GB and minutes).
 */
#define MPSFIX_SOURCE_MAX (16u * 1024u * 1024u)

/*
 * The largest notebook file read (notebook.h): mostly outputs (images,
 * tables), which are read as JSON and never parsed as Python; the Python of
 * its code cells is held to MPSFIX_SOURCE_MAX.
 */
#define MPSFIX_NOTEBOOK_MAX (256u * 1024u * 1024u)

/** Which version of a file was read: compared again before writing it back. */
typedef struct {
	bool known;
	uint64_t dev, ino;
	int64_t size;
	int64_t mtime_sec, ctime_sec;
	long mtime_nsec, ctime_nsec;
	unsigned uid, gid;
	unsigned long nlink;
} mpsfix_file_stamp;

/** The stamp of the file at `path` as it is now (stat() follows links); false if there is none. */
bool mpsfix_file_stamp_read(mpsfix_file_stamp *out, const char *path);

/** Are `a` and `b` known stamps of the same file, unchanged (device, inode, size, times)? */
bool mpsfix_file_stamp_same(const mpsfix_file_stamp *a, const mpsfix_file_stamp *b);

/** A cell of a notebook's Python text (notebook.h). */
typedef struct {
	uint32_t line;      /* its first line in the text (1-based) */
	uint32_t number;    /* its number in the notebook (1-based, every cell counted) */
	uint32_t file_line; /* the notebook file's line of its first source line */
	uint32_t file_step; /* 1: each source line on a file line of its own (a list
			       of lines); 0: all on file_line (one string) */
} mpsfix_source_cell;

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
	char encoding[32]; /* the encoding a PEP 263 coding line declares when it is
			      not UTF-8 ("latin-1"; the text is then ASCII), or "" */
	uint32_t encoding_line; /* the line of that declaration */
	mpsfix_file_stamp stamp; /* mpsfix_source_read: the file as read */
	mpsfix_source_cell *cells; /* a notebook's text: its cells, in order (owned) */
	uint32_t ncells;
} mpsfix_source;

#define MPSFIX_SOURCE_INIT {0}

/**
 * Read and validate the file at `path`.  Never blocks on a FIFO: anything
 * that is not a regular file is refused with MPSFIX_ESKIP.  Unreadable files
 * give MPSFIX_ERROR.  On failure `out` is left released.
 */
int mpsfix_source_read(mpsfix_source *out, const char *path);

/** mpsfix_source_read with another size limit than MPSFIX_SOURCE_MAX (at most 4 GiB - 1). */
int mpsfix_source_read_max(mpsfix_source *out, const char *path, size_t max);

/**
 * Make a source from bytes in memory (copied), validated as above.
 * `path` is the display name (for standard input, --stdin-filename).
 */
int mpsfix_source_from_buffer(mpsfix_source *out, const char *path,
			      const char *data, size_t len);

/** mpsfix_source_from_buffer with another size limit than MPSFIX_SOURCE_MAX. */
int mpsfix_source_from_buffer_max(mpsfix_source *out, const char *path,
				  const char *data, size_t len, size_t max);

void mpsfix_source_release(mpsfix_source *s);

/**
 * For a notebook's text (s->ncells > 0): the cell holding 1-based `line`,
 * the line's number in that cell, and its line in the notebook file.
 * Returns false (and sets nothing) for other sources.
 */
bool mpsfix_source_cell_of(const mpsfix_source *s, uint32_t line, uint32_t *cell,
			   uint32_t *cell_line, uint32_t *file_line);

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
 * The line ending of the line that holds byte `at` ("\r\n", "\n" or a lone
 * "\r"), else of the line before it (the text's last line has none), else
 * mpsfix_source_newline(): lines a fix writes there end as their
 * neighbours do, in a notebook's cell whose source has other line endings
 * than the rest, or a file with old Mac line endings.
 */
const char *mpsfix_source_newline_at(const mpsfix_source *s, uint32_t at);

/**
 * Replace the file at `path` with `data` atomically: a temporary file in the
 * same folder, fsync, rename over the original, fsync of the folder.  The
 * original's permission bits are kept (`mode`, when `have_mode`).  On any
 * failure the original is untouched and the temporary file removed.  A
 * symbolic link stays a link: the file it leads to is replaced.
 */
int mpsfix_source_write_atomic(const char *path, const char *data, size_t len,
			       bool have_mode, unsigned mode);

/**
 * May `fix` replace the file `s` was read from (at `path`)?  0 if so;
 * otherwise MPSFIX_ESKIP with "PATH: not fixed: REASON": the file is
 * read-only (no write permission for us, no write bit at all, or a
 * read-only file system), or it has several hard links (replacing it would
 * separate them).
 */
int mpsfix_source_check_writable(const mpsfix_source *s, const char *path);

/**
 * Write `data` over the file `s` was read from (at `path`), as
 * mpsfix_source_write_atomic() does, keeping its mode, and its owner and
 * group where the system lets us (root, or the owner), after
 * mpsfix_source_check_writable().  When `s` has a stamp, the file is
 * compared with it and with `s`'s bytes just before the rename: if it
 * changed meanwhile, nothing is written and the result is MPSFIX_ERROR with
 * "PATH: not fixed: the file changed while mpsfix was working on it".  A
 * file that declares another encoding than UTF-8 only gets ASCII text.
 */
int mpsfix_source_write_back(const mpsfix_source *s, const char *path,
			     const char *data, size_t len);

/**
 * Does text `data` (`len` bytes) declare (PEP 263, on its first or second
 * line) a source encoding other than UTF-8 or ASCII, in which Python may
 * read its bytes as other characters (`# coding: utf-7`: `+AG0-` is `m`)?
 */
bool mpsfix_source_declares_other(const char *data, size_t len);

/** Is `name` (no folder) one that write-back gives its temporary files? */
bool mpsfix_source_is_temp_name(const char *name);

/**
 * Remove from folder `dir` the temporary files of write-back that no process
 * is using any more (a run killed between creating and renaming one): regular
 * files named as mpsfix_source_is_temp_name() says, owned by us, whose lock
 * is free.  `removed` (when not NULL) is called with the path of each one
 * removed.  A folder without read permission has nothing removed (0); any
 * other failure to read it is MPSFIX_ERROR.
 */
int mpsfix_source_remove_stale_temps(const char *dir,
				     void (*removed)(void *payload, const char *path),
				     void *payload);

#endif
