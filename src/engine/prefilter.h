/*
 * prefilter.h: literal tokens every rule needs; skip files that cannot match
 * without parsing them.
 *
 * From each rule's compiled patterns and conditions comes a requirement: a
 * boolean formula over words (identifier-like tokens) that every file the
 * rule can report on satisfies.  A file whose words satisfy no enabled rule's
 * requirement, and that holds nothing else the engine reports without a
 * match (a star import, a suppression comment when unused ones are listed),
 * gives exactly the result of a parse with no match, so it is not parsed.
 *
 * What a requirement holds (each part is guaranteed in the text of a file
 * with a match; what is not guaranteed is left out, never guessed):
 *   - a pattern needs all its words: the identifiers it spells, the names of
 *     its keyword arguments, and the last name of each dotted name (however
 *     the file's imports spell `torch.std_mean`, the name `std_mean` is
 *     written in the call or in the import that binds it);
 *   - `match:` alternatives, a constraint's `pattern:` list, `has:`,
 *     `any-of:` and `inside:` entries are alternatives (or);
 *   - `where:` constraints that must hold on a metavariable the pattern
 *     binds (or on a signature parameter they need passed), `inside:` and
 *     `after-import:` add words (and);
 *   - a pattern's string literal needs the words of its value (the matcher
 *     takes only a literal that spells them out: mpsfix_text_spelled);
 *     `value:`, `kind:`, `regex:` and every `not-*` condition add nothing; a pattern with no word (`$X`) needs nothing, so its rule
 *     makes every file parse.
 * A pattern whose matching could hit the matcher's step limit without its
 * words (a `$$$` followed by more items in one list) needs nothing either:
 * the engine warns when it gives up, word or not.
 *
 * Words are runs of [A-Za-z0-9_]; any other byte (non-ASCII included)
 * separates them, and a run that starts with a digit also counts every
 * suffix that starts with a letter or '_' (tree-sitter lexes `1if` as a
 * number and a keyword).  So every identifier tree-sitter can see is found,
 * and perhaps more: extra words only make a file parse.
 *
 * A compiled prefilter is read-only: threads may share it.
 */
#ifndef MPSFIX_PREFILTER_H
#define MPSFIX_PREFILTER_H

#include "common.h"
#include "types.h"

typedef struct mpsfix_prefilter mpsfix_prefilter;

/** The prefilter of `n` enabled rules (read only while building; not kept). */
mpsfix_prefilter *mpsfix_prefilter_new(mpsfix_rule *const *rules, size_t n);
void mpsfix_prefilter_free(mpsfix_prefilter *pf);

/** False when some rule needs no word: then every file is parsed. */
bool mpsfix_prefilter_selective(const mpsfix_prefilter *pf);

typedef enum {
	MPSFIX_PREFILTER_SKIP = 0,    /* no rule can match: the file need not be parsed */
	MPSFIX_PREFILTER_WORDS,       /* some rule's words are there */
	MPSFIX_PREFILTER_ALL,         /* some rule needs no word */
	MPSFIX_PREFILTER_STAR,        /* maybe `from X import *` (the engine warns about it) */
	MPSFIX_PREFILTER_SUPPRESSION  /* only a `noqa` / `mpsfix` comment word (with `suppressions`) */
} mpsfix_prefilter_verdict;

/**
 * Scan `len` bytes of `data`: whether a rule can match them, and, when
 * `possible` is not NULL, which ones: possible[i] for the i-th rule given to
 * mpsfix_prefilter_new (a rule whose words are missing cannot match there,
 * so the engine need not try it; with a star import every rule is possible,
 * as the engine's warning about it needs every rule's attempts).
 * `suppressions`: suppression comments are reported even without a match
 * (--show-unused-suppressions), so a file with the word `noqa` (any case)
 * or `mpsfix` must be parsed.
 */
mpsfix_prefilter_verdict mpsfix_prefilter_scan(const mpsfix_prefilter *pf, const char *data,
					       size_t len, bool suppressions, bool *possible);


/**
 * The requirement derived for rule `r`, written as a formula:
 * `autocast & (float16 | half)`, `*` when the rule needs no word.  Newly
 * allocated.
 */
char *mpsfix_prefilter_describe(const mpsfix_rule *r);

#endif
