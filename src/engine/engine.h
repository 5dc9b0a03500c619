/*
 * engine.h: running rules over one source file — findings, fixes rendered
 * into an edit list, passes of edits until nothing changes, and the re-parse
 * check that guards every write.
 */
#ifndef MPSFIX_ENGINE_H
#define MPSFIX_ENGINE_H

#include <tree_sitter/api.h>

#include "common.h"
#include "edit.h"
#include "match.h"
#include "rule.h"
#include "source.h"
#include "suppress.h"

#define MPSFIX_MAX_PASSES 10

/** Rules prepared for matching: patterns indexed by the symbol of their root. */
typedef struct mpsfix_index mpsfix_index;

/** Index `n` rules (borrowed: they must outlive the index). */
mpsfix_index *mpsfix_index_new(mpsfix_rule *const *rules, size_t n);
void mpsfix_index_free(mpsfix_index *ix);

/** Per-thread state: a parser and matcher scratch, what is known of the modules files import. */
typedef struct {
	TSParser *parser;
	mpsfix_matcher *matcher;
	struct mpsfix_sibling_cache *siblings;
	struct mpsfix_project_cache *project; /* the calls other modules make (project.h) */
} mpsfix_ctx;

int mpsfix_ctx_init(mpsfix_ctx *ctx);
void mpsfix_ctx_release(mpsfix_ctx *ctx);

typedef enum {
	MPSFIX_FIX_NONE,      /* the rule has no fix */
	MPSFIX_FIX_AVAILABLE, /* a fix the run would apply */
	MPSFIX_FIX_UNSAFE,    /* an unsafe fix, not enabled */
	MPSFIX_FIX_MANUAL     /* a fix exists but may not be applied here: see reason */
} mpsfix_fix_status;

typedef struct {
	const mpsfix_rule *rule;
	uint32_t start, end;          /* bytes of the matched code */
	uint32_t line, col;           /* 1-based start (column in characters) */
	uint32_t end_line, end_col;   /* 1-based, exclusive end */
	mpsfix_fix_status fix;
	char *reason;                 /* MANUAL: why; UNSAFE: why a rule's safe fix is
					 unsafe here, or NULL (owned) */
	mpsfix_edit *edits;           /* AVAILABLE/UNSAFE: the fix's edits of the text
					 the finding is in, by start (owned) */
	size_t nedits;
	bool deferred;                /* fix mode: its fix overlapped another one and
					 waits (reported, never silently dropped) */
} mpsfix_finding;

typedef struct {
	mpsfix_finding *items;        /* sorted by position, then code */
	size_t len, cap;
	char *text;                   /* fix mode: the new text (owned), else NULL */
	size_t text_len;
	bool changed;                 /* text differs from the source */
	size_t fixed;                 /* fixes applied */
	unsigned passes;
	char **warnings;              /* per-file warnings (owned) */
	size_t nwarnings;
	bool file_ignored;            /* `# mpsfix: ignore-file` (known when the file
					 had a match, or with opts->unused_suppressions:
					 comments are read only then) */
	size_t suppressed;            /* findings hidden by suppression comments */
	mpsfix_unused_suppression *unused; /* with opts->unused_suppressions (owned) */
	size_t nunused;
} mpsfix_result;

#define MPSFIX_RESULT_INIT {0}

void mpsfix_result_release(mpsfix_result *r);

/**
 * Make every finding of `r` with a fix (available or unsafe) one that needs
 * a manual fix, for `reason`: what the fixed text cannot be written for
 * (a notebook's layout, a link out of the folder), which check learns too.
 */
void mpsfix_result_make_manual(mpsfix_result *r, const char *reason);

typedef struct {
	bool fix;           /* compute the fixed text (fix and diff) */
	bool unsafe_fixes;  /* unsafe fixes count as available and are applied */
	bool suppress;      /* honour `# noqa` / `# mpsfix: ignore[...]` comments */
	bool unused_suppressions; /* list suppression comments that hid nothing */
	bool no_prefilter;  /* parse every file, even one no rule can match (--no-prefilter) */
	unsigned max_passes; /* fix mode: stop after this many passes (0: until nothing
				changes; the fuzz target checks one pass at a time) */
	/* also the warnings that only inform (--verbose): the names a star
	   import brings in are not resolved, matching gave up on a pattern;
	   without it, only those of fixes not applied */
	bool verbose;
	/*
	 * When not NULL, a match is a finding (and its fix applies) only if
	 * keep(payload, rule, line) is true, `line` being the 1-based line where
	 * the match starts in the text being examined (--since, per-path ignores).
	 */
	bool (*keep)(void *payload, const mpsfix_rule *rule, uint32_t line);
	void *keep_payload;
	/*
	 * The torch versions this file targets, or NULL for every MPS-capable
	 * version.  A rule whose `torch:` range does not meet it is not run; a
	 * safe fix of a rule whose range does not hold all of it is unsafe
	 * (it changes behaviour on the versions outside), unless the rule says
	 * its fix is exact everywhere (`exact-outside-range: true`).
	 */
	const mpsfix_torch_range *target;
	/* The file's path inside the project, for the rules' `skip-paths`
	   (NULL: the source's path) */
	const char *rel_path;
	/* Where the file lies on disk: the modules it imports from its own
	   folder are read there, to see whether their import fails on a Mac
	   (sibling.h).  NULL: none are read. */
	const char *disk_path;
	/*
	 * The longest line, in columns, a fix may write: a line a fix made
	 * longer than this is broken inside its brackets (wrap.h).  0: the
	 * default, MPSFIX_LINE_LENGTH_DEFAULT (ruff's and black's 88).
	 */
	uint32_t line_length;
} mpsfix_engine_opts;

#define MPSFIX_LINE_LENGTH_DEFAULT 88

/**
 * Run the indexed rules over `src`.  Without opts->fix, the findings are
 * those of the source as it is.  With it, fixes are applied in passes (at
 * most MPSFIX_MAX_PASSES) and the findings are what remains in the new text;
 * if the new text would parse with more errors than the old, no fix is kept
 * and a warning says so.
 */
int mpsfix_engine_run(mpsfix_result *out, mpsfix_ctx *ctx, const mpsfix_index *ix,
		      const mpsfix_source *src, const mpsfix_engine_opts *opts);

#endif
