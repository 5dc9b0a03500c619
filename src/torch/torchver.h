/*
 * torchver.h: PyTorch versions and version ranges, at (major, minor)
 * granularity.
 *
 * A range is a closed interval [lo, hi] of (major, minor) pairs: torch 2.1.0,
 * 2.1.2 and 2.1.0+cu118 are all "2.1".  A constraint maps to the minors that
 * hold at least one release satisfying it (as pip reads it, PEP 440):
 *
 *   ==2.1.0, ==2.1, ==2.1.*, 2.1    [2.1, 2.1]
 *   ==2, ==2.*                      [2.0, 2.last]
 *   >=2.4, >2.4 (2.4.1 is > 2.4)    [2.4, newest]
 *   <2.4, <2.4.0                    [oldest, 2.3]
 *   <2.4.1 (2.4.0 is < 2.4.1)       [oldest, 2.4]
 *   <2.0                            [oldest, 1.last]
 *   <=2.4, <=2.4.1                  [oldest, 2.4]
 *   ~=2.1 / ~=2.1.0                 [2.1, 2.last] / [2.1, 2.1]
 *
 * Constraints separated by commas all hold (the intersection).  Pre-release,
 * post-release, dev and local parts (2.4.0rc1, 2.1.0.post1, 2.1.0+cu118) are
 * read and then ignored: 2.4.0rc1 counts as 2.4.  `!=` never narrows a range
 * (a range with a hole is still the range around it), so in pins it is read
 * and ignored.  "2.last" is every minor of major 2 (MPSFIX_TORCH_ANY_MINOR).
 */
#ifndef MPSFIX_TORCHVER_H
#define MPSFIX_TORCHVER_H

#include "common.h"

/** A (major, minor) pair, ordered as a number: (major << 16) | minor. */
typedef uint32_t mpsfix_torch_ver;

/** The minor part of an upper bound that covers every minor of its major. */
#define MPSFIX_TORCH_ANY_MINOR 0xFFFFu
#define MPSFIX_TORCH_VER(major, minor) ((((uint32_t)(major)) << 16) | (uint32_t)(minor))
#define MPSFIX_TORCH_MAJOR(v) ((uint32_t)(v) >> 16)
#define MPSFIX_TORCH_MINOR(v) ((uint32_t)(v) & 0xFFFFu)
#define MPSFIX_TORCH_OLDEST ((mpsfix_torch_ver)0)
#define MPSFIX_TORCH_NEWEST ((mpsfix_torch_ver)UINT32_MAX)
/** The first release with the MPS backend. */
#define MPSFIX_TORCH_FIRST_MPS MPSFIX_TORCH_VER(1, 12)

/** Versions lo..hi, both included; never empty (lo <= hi). */
typedef struct {
	mpsfix_torch_ver lo, hi;
} mpsfix_torch_range;

#define MPSFIX_TORCH_RANGE_ALL ((mpsfix_torch_range){MPSFIX_TORCH_OLDEST, MPSFIX_TORCH_NEWEST})
/** Every version that has an MPS backend: >=1.12. */
#define MPSFIX_TORCH_RANGE_MPS ((mpsfix_torch_range){MPSFIX_TORCH_FIRST_MPS, MPSFIX_TORCH_NEWEST})

/** The ways a version range is written. */
typedef enum {
	/* a rule's `torch:`: "all", or comma-separated constraints with the
	 * operators < <= > >= == and versions of dot-separated numbers */
	MPSFIX_TORCH_SYNTAX_RULE,
	/* --target-torch and `target-torch:`: "all", a version ("2.1", "2.1.*":
	 * that minor; "2": every 2.x), or constraints with < <= > >= == === ~=
	 * and PEP 440 versions; `!=` is refused (it cannot narrow a target) */
	MPSFIX_TORCH_SYNTAX_SPEC,
	/* a pip requirement's version specifier (PEP 440): < <= > >= == ===
	 * ~= and != (read, ignored); optionally in parentheses */
	MPSFIX_TORCH_SYNTAX_PIP,
	/* a Poetry constraint: the pip operators plus ^V (>=V, below the next
	 * change of its leftmost non-zero part), ~V (>=V, below the next minor;
	 * ~2: below 3), a bare version (==), "*" (anything), alternatives
	 * joined with "||" (their hull) */
	MPSFIX_TORCH_SYNTAX_POETRY,
	/* a conda version spec: the pip operators, =V (V.*), a bare version
	 * (==), V* / V.*, "*", alternatives joined with "|" (their hull; ','
	 * binds tighter) */
	MPSFIX_TORCH_SYNTAX_CONDA
} mpsfix_torch_syntax;

/**
 * Parse the `len` bytes of `text` (surrounding blanks allowed) written in
 * `syntax` into *out.  Returns 0; MPSFIX_ENOMATCH when the text constrains
 * nothing ("*", only `!=`; never for RULE and SPEC); MPSFIX_ERROR with a
 * message that quotes the text and says what is wrong (no file position:
 * the caller adds it), including constraints no version satisfies
 * (">=2.5,<2.3").
 */
int mpsfix_torch_range_parse(mpsfix_torch_range *out, const char *text, size_t len,
			     mpsfix_torch_syntax syntax);

/** Do the two ranges share a version? */
static inline bool mpsfix_torch_range_meets(mpsfix_torch_range a, mpsfix_torch_range b)
{
	return a.lo <= b.hi && b.lo <= a.hi;
}

/** Does `outer` hold every version of `inner`? */
static inline bool mpsfix_torch_range_within(mpsfix_torch_range inner, mpsfix_torch_range outer)
{
	return inner.lo >= outer.lo && inner.hi <= outer.hi;
}

/** The smallest range that holds both. */
static inline mpsfix_torch_range mpsfix_torch_range_hull(mpsfix_torch_range a, mpsfix_torch_range b)
{
	return (mpsfix_torch_range){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

#define MPSFIX_TORCH_RANGE_STRMAX 48

/**
 * Write `r` for people into `buf` and return it: "all" (every version), "2.1"
 * (one minor), ">=2.4", "<2.4", ">=2.1,<2.6" (an upper bound is written as
 * the first minor it leaves out: [.., 1.last] is "<2.0").  The result parses
 * back (SPEC syntax) to the same range.
 */
const char *mpsfix_torch_range_format(char buf[MPSFIX_TORCH_RANGE_STRMAX], mpsfix_torch_range r);

#endif
