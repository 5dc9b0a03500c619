/*
 * pins.h: the torch versions a project pins, read from its own files.
 *
 * In the project's root folder: requirements*.txt and the *.txt files of
 * the folder requirements (pip requirement files, following -r/-c includes that stay inside the
 * root, each file once a set: mpsfix_pin.set), pyproject.toml ([project] dependencies and
 * optional-dependencies, [dependency-groups], [tool.uv] constraint-,
 * override- and dev-dependencies, Poetry's [tool.poetry.dependencies],
 * dev-dependencies and group dependencies: `torch = "^2.1"`,
 * `torch = {version = "..."}`, a list of those, or a
 * [tool.poetry.dependencies.torch] table), setup.cfg (install_requires and
 * [options.extras_require]), setup.py (the strings of install_requires and
 * extras_require, written there or in variables, and the module's lists of
 * requirement strings: see pins_setup.c), environment.yml / environment.yaml
 * (conda `pytorch` specs, and the `pip:` list, read as requirement-file
 * lines).
 *
 * Pins installed together form a set (mpsfix_pin.set): a requirement file
 * with the files it includes and constrains with (-r, -c), [project]
 * dependencies with [tool.uv] constraint-dependencies; every other pin is a
 * set of its own (an alternative setup).  A requirement file may start
 * with a UTF-8 byte-order mark or be UTF-16 (pip decodes both); the other
 * files but pyproject.toml may start with a UTF-8 mark.
 *
 * Optional dependencies ([project.optional-dependencies], setup.cfg's
 * [options.extras_require], setup.py's extras_require and the lists of
 * requirement strings setup.py keeps in variables that install_requires
 * does not use) count only when no other requirement of the project names
 * torch, with a version or without: the main requirements win.  When they
 * do not count, their pins and their warnings are dropped.
 *
 * Only the package `torch` (pip; `pytorch` in conda) counts: names are
 * compared as pip compares them (case, and runs of - _ . alike), so
 * torchvision, pytorch-lightning and torch-geometric are other packages.
 * Extras (`torch[opt]`) and environment markers (`; sys_platform ==
 * "darwin"`) are read past; markers are not evaluated, so a pin for any
 * platform counts.  A torch without a version (or with only `!=`) says
 * nothing and is not a pin; a wheel URL or path (`torch @ .../torch-2.1.0-
 * cp311-...whl`) pins its version.  A torch pin that cannot be read is a
 * warning naming file:line, and is left out.
 * A requirement of another package can imply a torch floor: the releases
 * of accelerate from 1.3.0 on require torch>=2.0.0 (its setup.py since
 * huggingface/accelerate#3331), so `accelerate>=1.4.0` is an implied pin of
 * torch>=2.0 (mpsfix_pins_implied()).  Only what installing the project
 * installs implies a floor: a requirements.txt (not requirements-docs.txt,
 * nor a file it includes or constrains with), [project] dependencies,
 * install_requires; not optional ones.  Implied pins narrow the others (or
 * every MPS-capable version) instead of widening them.
 */
#ifndef MPSFIX_PINS_H
#define MPSFIX_PINS_H

#include "common.h"
#include "torchver.h"

typedef enum {
	MPSFIX_PINS_REQUIREMENTS, /* a pip requirements file */
	MPSFIX_PINS_PYPROJECT,    /* pyproject.toml */
	MPSFIX_PINS_SETUP_CFG,    /* setup.cfg */
	MPSFIX_PINS_SETUP_PY,     /* setup.py */
	MPSFIX_PINS_CONDA_ENV     /* environment.yml */
} mpsfix_pins_format;

typedef struct {
	char *file;               /* relative to the root, '/'-separated (owned) */
	uint32_t line;            /* 1-based */
	char *text;               /* the requirement or constraint as written (owned) */
	mpsfix_torch_range range;
	bool optional;            /* from optional dependencies (read as nothing else names torch) */
	bool implied;             /* a floor another package's requirement implies */
	uint32_t set;             /* the pins installed together: those of one set all
				     hold at once (a requirement file with the files it
				     includes and constrains with; [project] dependencies
				     with [tool.uv] constraint-dependencies); sets are
				     alternatives (requirements-cuda.txt, an extra) */
} mpsfix_pin;

typedef struct mpsfix_pins {
	mpsfix_pin *items;        /* in the order found (owned) */
	size_t len, cap;
	char **warnings;          /* "FILE:LINE: ..." (owned) */
	size_t nwarnings, wcap;
	bool names_torch;         /* a requirement read names torch (pinned, not, or unreadable) */
} mpsfix_pins;

#define MPSFIX_PINS_INIT {NULL, 0, 0, NULL, 0, 0, false}

/**
 * Add the torch pins of the project in folder `root` to `out`, files in the
 * order listed above (requirement files by name; an included file where it
 * is included).  A file that cannot be read, or is not in the format its
 * name says, is a warning.  MPSFIX_ERROR only when `root` cannot be read
 * as a folder.
 */
int mpsfix_pins_find(mpsfix_pins *out, const char *root);

/**
 * Add the torch pins of `len` bytes of `data`, in format `format`; `name`
 * names the file in pins and warnings.  Includes (-r, -c) are not followed.
 * The file's optional dependencies count when its other requirements do not
 * name torch.
 */
void mpsfix_pins_scan_buffer(mpsfix_pins *out, mpsfix_pins_format format, const char *name,
			     const char *data, size_t len);

/**
 * Read one PEP 508 requirement ("torch[opt]>=2.1,<2.4; sys_platform ==
 * 'darwin'").  0 with *out when it pins torch; MPSFIX_ENOMATCH when it is
 * another package or torch without a version; MPSFIX_ERROR (with the
 * reason) when it is torch and its version cannot be read.
 */
int mpsfix_pins_parse_requirement(mpsfix_torch_range *out, const char *req, size_t len);

/**
 * The torch floor that requirement `req` of another package implies, if
 * it is one that requires torch from some release on and `req` asks for
 * that release or a later one: 0 with *out (">=2.0" for
 * "accelerate>=1.4.0"); MPSFIX_ENOMATCH otherwise.
 */
int mpsfix_pins_implied(mpsfix_torch_range *out, const char *req, size_t len);

/** Likewise for a conda match spec ("pytorch=2.1", "pytorch::pytorch>=2.0,<2.3"). */
int mpsfix_pins_parse_conda(mpsfix_torch_range *out, const char *spec, size_t len);

/**
 * Does folder `dir` hold one of the files mpsfix_pins_find() reads (a
 * requirements*.txt, a requirements folder, pyproject.toml, setup.cfg,
 * setup.py, environment.yml or environment.yaml)?
 */
bool mpsfix_pins_present(const char *dir);

void mpsfix_pins_release(mpsfix_pins *p);

#endif
