/*
 * notebook.h: a Jupyter notebook (nbformat 4) read as one Python text, and
 * written back by replacing only the `source` values of the cells a fix
 * changed.
 *
 * The text: the code cells in order, each ending with a newline, with a
 * line "#\x1fN" before every cell but the first (N: the next cell's number,
 * counting every cell from 1, as ruff numbers them).  The engine sees a
 * comment there, and a fix never edits one outside what it matched, so the
 * cells can be told apart again in a fixed text.  IPython lines are masked so
 * that the rest of a cell parses: a line magic, a shell escape or a help
 * request (`%matplotlib inline`, `!pip install x`, `x?`) becomes
 * "pass  #\x1fmK", an assignment from one (`files = !ls`) becomes
 * "files = 0  #\x1fmK" (K: the mask's number), and the original line comes back
 * when the notebook is written.  A cell whose cell magic's body is not
 * Python (`%%bash`, `%%html`, ...) is left out.
 *
 * Writing keeps every other byte: outputs, metadata, key order, indentation
 * and escaping.  A changed cell's `source` is written in the form it had (one
 * string, or a list of lines laid out as nbformat writes it), with the
 * escaping its original bytes show (non-ASCII as is, or as \uXXXX); when
 * encoding the original source does not give back its exact bytes, the
 * notebook is not written and the reason is given.
 */
#ifndef MPSFIX_NOTEBOOK_H
#define MPSFIX_NOTEBOOK_H

#include "common.h"
#include "source.h"

/** The byte that marks cell and mask lines in the text (ASCII unit separator). */
#define MPSFIX_NB_MARK '\x1f'
#define MPSFIX_NB_MARK_STR "\x1f"

typedef struct {
	uint32_t number;        /* 1-based, among every cell */
	uint32_t start, end;    /* the `source` value's bytes in the file */
	uint32_t file_line;     /* the file's line where the value starts (1-based) */
	bool listed;            /* written as a list of strings */
	bool python;            /* in the text (a code cell, not a non-Python cell magic) */
	char *code;             /* the source as decoded (owned; NUL-terminated) */
	size_t code_len;
	uint32_t first_mask;    /* its masked lines are masks[first_mask ..] */
	uint32_t nmasks;
} mpsfix_nb_cell;

typedef struct {
	mpsfix_nb_cell *cells;  /* every cell, in order (owned) */
	size_t ncells;
	char **masks;           /* masked line K: masks[2K] the line as written, masks[2K + 1]
				   the line in the text, both without the newline (owned) */
	size_t nmasks;
	char *text;             /* the Python text (owned) */
	size_t text_len;
	mpsfix_source_cell *map; /* where each Python cell starts in the text (owned) */
	size_t nmap;
} mpsfix_notebook;

#define MPSFIX_NOTEBOOK_INIT {0}

/** True when `name` ends in ".ipynb". */
bool mpsfix_is_notebook_path(const char *name);

/** The largest file read at `name`: MPSFIX_NOTEBOOK_MAX for a notebook, else MPSFIX_SOURCE_MAX. */
size_t mpsfix_notebook_size_limit(const char *name);

/**
 * Read the notebook in `data` (`len` bytes; `path` names it in messages).
 * Every byte must be JSON, but only nbformat and the cells' cell_type and
 * source are decoded: outputs and metadata are checked, not decoded.  A file
 * that is not nbformat 4 JSON, whose notebook or cell keys are written with
 * escapes or given twice, or whose code holds a NUL or the mark byte, is
 * refused with MPSFIX_ESKIP and a message naming the file (and line:col
 * where there is one).  On failure `nb` is left released.
 */
int mpsfix_notebook_read(mpsfix_notebook *nb, const char *path, const char *data, size_t len);

/**
 * Read the notebook in `data` into `nb`, and make `src` of its Python text
 * (named `path`), with the cell map attached.  On failure both are left
 * released.
 */
int mpsfix_notebook_source(mpsfix_source *src, mpsfix_notebook *nb, const char *path,
			   const char *data, size_t len);

/**
 * The notebook `data` (the bytes `nb` was read from) with its Python cells
 * replaced by those of `fixed` (a fixed Python text made from nb->text),
 * into `out`.  Only cells whose code changed are rewritten.  The result is
 * read back, into `back` when not NULL (else dropped), and must give `fixed`
 * exactly.  MPSFIX_ESKIP with a message when `fixed` lost a cell line or a
 * masked line, when a changed cell's JSON is not laid out in a way
 * reproduced exactly, or when the result would not read back as `fixed`;
 * `back` is then left released.
 */
int mpsfix_notebook_render(mpsfix_buf *out, mpsfix_notebook *back, const mpsfix_notebook *nb,
			   const char *path, const char *data, size_t len, const char *fixed,
			   size_t fixed_len);

/**
 * Give `s` (made from nb's text, or from a fixed text of it) the cell map,
 * so that positions are told as cell and line.  The file lines come from
 * `nb`: pass the notebook that text belongs to (for a fixed text, the
 * rendered notebook read again).
 */
void mpsfix_notebook_attach(mpsfix_source *s, const mpsfix_notebook *nb);

void mpsfix_notebook_release(mpsfix_notebook *nb);

#endif
