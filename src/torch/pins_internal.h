/*
 * pins_internal.h: what the pins files share and nothing else includes: the
 * state of one search for pins, the list's warnings and pins, package names
 * as pip compares them and reading each file once (pins.c), and the reader
 * of each file format (pins_python.c, pins_setup.c, pins_conda.c), which
 * pins.c calls.  Its functions are mpsfix_pins__*: shared by those files,
 * not part of pins.h.
 */
#ifndef MPSFIX_PINS_INTERNAL_H
#define MPSFIX_PINS_INTERNAL_H

#include "common.h"
#include "text.h"
#include "torchver.h"
#include "strvec.h"

struct mpsfix_pins; /* mpsfix_pins of pins.h, which is not included: pins.c includes this header */


typedef struct {
	struct mpsfix_pins *out;
	char *root;              /* the root, real and absolute; NULL: includes are not followed */
	mpsfix_strvec visited;    /* real paths of the files read for the current set
				     (a file included twice, or a loop, is read once) */
	mpsfix_strvec tops;       /* real paths of the files read as the root's own */
	bool optional;            /* the reader is in optional dependencies (extras) */
	uint32_t set;             /* the set of the pins read now (0: each pin its own) */
	uint32_t nsets;           /* the sets given out */
	struct mpsfix_pins *extra; /* their pins and warnings, until mpsfix_pins__finish */
	bool named;               /* a dependency that is not optional names torch */
	bool named_optional;      /* an optional one does */
	bool implies;             /* the reader is in what installing the project installs
				     (its requirements.txt, [project] dependencies,
				     install_requires): other packages' torch floors count */
} mpsfix_pins_scan;

/* pins.c: a warning about a file; the end of a search (the optional pins count or go) */
void mpsfix_pins__warn(mpsfix_pins_scan *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mpsfix_pins__finish(mpsfix_pins_scan *sc);

/*
 * pins.c: the result of parsing one dependency: a pin (rc 0), nothing
 * (MPSFIX_ENOMATCH) or a warning (MPSFIX_ERROR); `torch`: the dependency is
 * torch (with a version or not).  It goes with the optional ones when
 * sc->optional is set.
 */
void mpsfix_pins__take(mpsfix_pins_scan *sc, const char *file, uint32_t line, mpsfix_text_slice text,
		       int rc, mpsfix_torch_range r, bool torch);

/* pins.c: a torch floor implied by another package's requirement (pins.h) */
void mpsfix_pins__take_implied(mpsfix_pins_scan *sc, const char *file, uint32_t line, mpsfix_text_slice text,
			       mpsfix_torch_range r);

/* pins.c: is `name` the package `want`; can `c` be part of a package name */
bool mpsfix_pins__same_name(mpsfix_text_slice name, const char *want);
bool mpsfix_pins__is_name_char(char c);

/* pins.c: has a file (its real path) been read; has it, else remember it; read a file */
bool mpsfix_pins__visited(const mpsfix_pins_scan *sc, const char *real);
bool mpsfix_pins__seen(mpsfix_pins_scan *sc, const char *real);
bool mpsfix_pins__read_file(mpsfix_pins_scan *sc, mpsfix_buf *b, const char *path, const char *name);

/*
 * The readers of each format: `name` names the file in pins and warnings;
 * `dir` is its folder, where -r/-c includes are found (NULL: not followed).
 */
/* pins_python.c: one PEP 508 requirement string, then the formats */
void mpsfix_pins__requirement(mpsfix_pins_scan *sc, const char *name, uint32_t line, mpsfix_text_slice t);
void mpsfix_pins__requirement_line(mpsfix_pins_scan *sc, const char *name, uint32_t line,
				   const char *dir, mpsfix_text_slice t);
void mpsfix_pins__scan_requirements(mpsfix_pins_scan *sc, const char *name, const char *dir,
				    const char *data, size_t len);
void mpsfix_pins__scan_pyproject(mpsfix_pins_scan *sc, const char *name, const char *data, size_t len);
void mpsfix_pins__scan_setup_cfg(mpsfix_pins_scan *sc, const char *name, const char *data, size_t len);
/* pins_setup.c */
void mpsfix_pins__scan_setup_py(mpsfix_pins_scan *sc, const char *name, const char *data, size_t len);
/* pins_conda.c */
void mpsfix_pins__scan_conda_env(mpsfix_pins_scan *sc, const char *name, const char *dir,
				 const char *data, size_t len);

#endif
