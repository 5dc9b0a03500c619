/*
 * projfiles.h: the files of a project and the words they hold, for
 * questions about the whole project (src/engine/project.h): its Python
 * modules, notebooks and configuration files, listed once; each file's
 * words kept in a Bloom filter at the first question, so that the next
 * questions read only the files that may name what they ask about.
 */
#ifndef MPSFIX_PROJFILES_H
#define MPSFIX_PROJFILES_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

/* How many folders above a file may hold its project's top (no .git). */
#define MPSFIX_PROJECT_LEVELS 8

/* A project with more files than this is not read: nothing is known of it. */
#define MPSFIX_PROJECT_MAX_FILES 50000

/* A Python file larger than this cannot be read for a question. */
#define MPSFIX_PROJECT_MAX_BYTES (8u * 1024u * 1024u)

/* A notebook or configuration file larger than these is data: not read. */
#define MPSFIX_PROJECT_MAX_NOTEBOOK (256u * 1024u * 1024u)
#define MPSFIX_PROJECT_MAX_CONFIG (1024u * 1024u)

/* The most bits of one file's filter (2^N), and of all a project's filters, in bytes. */
#define MPSFIX_PROJECT_FILTER_LOG2 20
#define MPSFIX_PROJECT_FILTER_BUDGET (16u * 1024u * 1024u)

/*
 * Pseudo-words a file's filter holds when its text has `from .` or `import
 * *`, or a word with a byte past ASCII (or declares an encoding other than
 * UTF-8 or ASCII: mpsfix_source_declares_other())
 */
#define MPSFIX_PROJECT_WORD_RELATIVE "\x01from ."
#define MPSFIX_PROJECT_WORD_STAR "\x01import *"
#define MPSFIX_PROJECT_WORD_NONASCII "\x01non-ASCII"

struct mpsfix_project_files;

typedef struct {
	char *path;
	uint8_t kind;    /* 1: Python (.py, .pyi, .pyw); 2: a notebook (.ipynb); 3: a
			    configuration file (.yaml, .yml, .json, .toml, .cfg, .ini) */
	uint8_t state;   /* 0: not read yet; 1: its words are in `words`; 2: too
			    large, or it cannot be read; 3: over the project's
			    budget for filters (it may hold any word) */
	uint8_t log2;    /* `words` holds 2^log2 bits */
	uint64_t *words; /* a Bloom filter of its words, 3 bits each */
	struct mpsfix_project_files *project;
} mpsfix_project_file;

typedef struct mpsfix_project_files {
	char *root;
	mpsfix_project_file *files;
	size_t len, cap;
	size_t filter_bytes; /* what its files' filters take */
	bool ok; /* walked whole: every folder read, at most MPSFIX_PROJECT_MAX_FILES files */
} mpsfix_project_files;

/**
 * The top of the project that file `file` (a real path) lies in, a new
 * string: the nearest folder above it that holds `.git`, else the
 * outermost of its folder and the MPSFIX_PROJECT_LEVELS folders above that
 * holds a pyproject.toml, setup.py, setup.cfg or requirements*.txt; NULL
 * when there is none.
 */
char *mpsfix_project_root(const char *file);

/**
 * List into `p` the files under folder `root` whose kind a question reads,
 * walking folders as the command line's walk does (discover.h: hidden
 * folders, __pycache__, node_modules, venv, site-packages skipped) and
 * not following symbolic links to folders.
 */
void mpsfix_project_files_walk(mpsfix_project_files *p, const char *root);

void mpsfix_project_files_release(mpsfix_project_files *p);

/**
 * May file `f` hold `w` (`n` bytes) as a word?  Its words are read at the
 * first question; a file that cannot be read, or is too large, may.
 */
bool mpsfix_project_file_may_hold(mpsfix_project_file *f, const char *w, size_t n);

/**
 * May module `f` bind `name` (`n` bytes) at its top level, so that `from
 * it import *` binds it too?  Only where its words may hold the name (a
 * def, an assignment, an import, `__all__`), `import *` itself, or a way to
 * write its globals without naming them: globals(), vars(), locals(),
 * exec(), eval(), setattr(), `__dict__`, `sys.modules`, a frame's
 * `f_globals` or `f_locals`, or a `__getattr__` (a star import asks it
 * for the names of an `__all__` the module does not bind); or a word past
 * ASCII, which Python may read as the name (`ｌonely` is `lonely`), or a
 * declared source encoding that may spell it in other bytes (UTF-7).
 * (`object.__setattr__(mod, ...)` and the like are not seen.)
 */
bool mpsfix_project_file_may_bind(mpsfix_project_file *f, const char *name, size_t n);

/** mpsfix_read_whole() for `f`, with its kind's size limit; -1 for a file already found unreadable. */
int mpsfix_project_file_read(const mpsfix_project_file *f, char **data, size_t *len);

/**
 * Read the file at `path` whole into `*data` (NUL-terminated, `*len`
 * bytes): 0; 1 when it is larger than `max`; -1 when it cannot be read or
 * is not a regular file.  `*data` is the caller's to free in every case.
 */
int mpsfix_read_whole(const char *path, size_t max, char **data, size_t *len);

/** Is `ch` a byte of a Python identifier (ASCII letters, digits, `_`, and any non-ASCII byte)? */
bool mpsfix_word_char(char ch);

/**
 * The first place at or after `from` in `data` (`len` bytes) where `w` (`n`
 * bytes, n > 0) stands as a whole word (one right after a JSON escape's
 * letter, `\nf`, counts); NULL if none.
 */
const char *mpsfix_next_word(const char *data, size_t len, const char *from, const char *w, size_t n);

/** Does `data` (`len` bytes) hold `w` (`n` bytes, n > 0) as a whole word? */
bool mpsfix_has_word(const char *data, size_t len, const char *w, size_t n);

#endif
