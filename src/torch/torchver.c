/*
 * torchver.c: versions and ranges of torch (see torchver.h for what each
 * constraint means at minor granularity).
 */
#include "torchver.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text.h"

/* Version numbers above this are refused (torch is at 2.x). */
#define NUMBER_MAX 9999u

/* One version as written: its release numbers, as far as the range needs them. */
typedef struct {
	uint32_t major, minor;
	bool has_minor;     /* at least two numbers ("2.1") */
	bool later_nonzero; /* a third or later number is not 0 ("2.4.1") */
	size_t nparts;      /* how many numbers ("2.1.0": 3) */
	bool wildcard;      /* ends in ".*" (or "*" in conda) */
} version;

typedef struct {
	mpsfix_torch_syntax syntax;
	mpsfix_text_slice whole; /* the full text, for messages */
} parser;

static bool slice_is(mpsfix_text_slice t, const char *word)
{
	return t.n == strlen(word) && !strncmp(t.s, word, t.n);
}

static int bad(const parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record the reason (the caller quotes the text and says where it is). */
static int bad(const parser *p, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	(void)p;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return mpsfix_error_set(MPSFIX_ERROR, "%s", reason);
}

#define RULE_SYNTAX "expected 'all' or constraints like '>=2.3,<2.8' (operators < <= > >= ==)"

/* Case-insensitive: does `t` start with `word` at `*i`?  Then step over it. */
static bool eat_word(mpsfix_text_slice t, size_t *i, const char *word)
{
	size_t n = strlen(word);

	if (*i + n > t.n || strncasecmp(t.s + *i, word, n) != 0)
		return false;
	*i += n;
	return true;
}

static void eat_digits(mpsfix_text_slice t, size_t *i)
{
	while (*i < t.n && isdigit((unsigned char)t.s[*i]))
		(*i)++;
}

static bool eat_sep(mpsfix_text_slice t, size_t *i)
{
	if (*i < t.n && (t.s[*i] == '-' || t.s[*i] == '_' || t.s[*i] == '.')) {
		(*i)++;
		return true;
	}
	return false;
}

/*
 * The PEP 440 parts after the release numbers, from `*i`: pre-release
 * (a, b, rc, alpha, beta, c, pre, preview), post-release (post, rev, r, or
 * "-N"), dev release, local version ("+cu118").  Returns false, leaving *i,
 * when what follows is not one of them.
 */
/* [sep]WORD[sep][N] for one of `words` (tried in order) at *i: true and moved past it. */
static bool eat_tag(mpsfix_text_slice t, size_t *i, const char *const *words, size_t n)
{
	size_t k = *i;

	eat_sep(t, &k);
	for (size_t w = 0; w < n; w++) {
		size_t m = k;

		if (eat_word(t, &m, words[w])) {
			eat_sep(t, &m);
			eat_digits(t, &m);
			*i = m;
			return true;
		}
	}
	return false;
}

static bool eat_suffix(mpsfix_text_slice t, size_t *i)
{
	static const char *const pre[] = {"alpha", "beta", "preview", "pre", "rc", "a", "b", "c"};
	static const char *const post[] = {"post", "rev", "r"};
	static const char *const dev[] = {"dev"};
	size_t j = *i, k;
	bool any = false;

	/* pre-release */
	any |= eat_tag(t, &j, pre, MPSFIX_ARRAY_SIZE(pre));
	/* post-release: "-N" or [sep]post[sep][N] */
	k = j;
	if (k + 1 < t.n && t.s[k] == '-' && isdigit((unsigned char)t.s[k + 1])) {
		k++;
		eat_digits(t, &k);
		j = k;
		any = true;
	} else {
		any |= eat_tag(t, &j, post, MPSFIX_ARRAY_SIZE(post));
	}
	/* dev release */
	any |= eat_tag(t, &j, dev, 1);
	/* local version: +[a-z0-9]+([-_.][a-z0-9]+)* */
	if (j < t.n && t.s[j] == '+') {
		k = j + 1;
		for (;;) {
			size_t start = k;

			while (k < t.n && isalnum((unsigned char)t.s[k]))
				k++;
			if (k == start)
				return false;
			if (k < t.n && (t.s[k] == '-' || t.s[k] == '_' || t.s[k] == '.') && k + 1 < t.n &&
			    isalnum((unsigned char)t.s[k + 1]))
				k++;
			else
				break;
		}
		j = k;
		any = true;
	}
	if (any)
		*i = j;
	return any;
}

/*
 * Parse the version `t` (trimmed) into *v.  `strict`: only dot-separated
 * numbers (a rule's range); otherwise a leading "v", a trailing ".*" when
 * `wildcard_ok` (and "*" right after a number in conda), and the PEP 440
 * suffixes.
 */
static int parse_version(const parser *p, version *v, mpsfix_text_slice t, bool strict, bool wildcard_ok)
{
	size_t i = 0;
	uint32_t parts[3] = {0, 0, 0};

	memset(v, 0, sizeof(*v));
	if (!t.n)
		return bad(p, strict ? RULE_SYNTAX : "a version is missing");
	if (!strict && (t.s[0] == 'v' || t.s[0] == 'V'))
		i++;
	for (;;) {
		uint32_t num = 0;
		size_t start = i;

		while (i < t.n && isdigit((unsigned char)t.s[i])) {
			num = num * 10 + (uint32_t)(t.s[i] - '0');
			if (num > NUMBER_MAX)
				return bad(p, "'%.*s' is not a torch version (numbers above %u)",
					   (int)t.n, t.s, NUMBER_MAX);
			i++;
		}
		if (i == start)
			goto not_version;
		if (v->nparts < 3)
			parts[v->nparts] = num;
		if (v->nparts >= 2 && num != 0)
			v->later_nonzero = true;
		v->nparts++;
		if (i < t.n && t.s[i] == '.' && i + 1 < t.n && isdigit((unsigned char)t.s[i + 1])) {
			i++;
			continue;
		}
		break;
	}
	if (!strict && i < t.n) {
		if (wildcard_ok && ((t.s[i] == '.' && i + 2 == t.n && t.s[i + 1] == '*') ||
				    (p->syntax == MPSFIX_TORCH_SYNTAX_CONDA && t.s[i] == '*' && i + 1 == t.n))) {
			v->wildcard = true;
			i = t.n;
		} else {
			eat_suffix(t, &i);
		}
	}
	if (i != t.n)
		goto not_version;
	v->major = parts[0];
	v->minor = parts[1];
	v->has_minor = v->nparts >= 2;
	return 0;
not_version:
	if (strict)
		return bad(p, RULE_SYNTAX);
	return bad(p, "'%.*s' is not a version", (int)t.n, t.s);
}

/* The minor before `v` (a real minor, or a whole major): false when none. */
static bool prev_minor(mpsfix_torch_ver v, mpsfix_torch_ver *out)
{
	uint32_t major = MPSFIX_TORCH_MAJOR(v), minor = MPSFIX_TORCH_MINOR(v);

	if (minor > 0) {
		*out = MPSFIX_TORCH_VER(major, minor - 1);
		return true;
	}
	if (major > 0) {
		*out = MPSFIX_TORCH_VER(major - 1, MPSFIX_TORCH_ANY_MINOR);
		return true;
	}
	return false;
}

/* The lowest minor of `v`: itself, or x.0 when only the major is written. */
static mpsfix_torch_ver low_of(const version *v)
{
	return MPSFIX_TORCH_VER(v->major, v->has_minor ? v->minor : 0);
}

/* The highest: itself, or every minor of the major. */
static mpsfix_torch_ver high_of(const version *v)
{
	return MPSFIX_TORCH_VER(v->major, v->has_minor ? v->minor : MPSFIX_TORCH_ANY_MINOR);
}

typedef enum {
	OP_NONE, /* a bare version */
	OP_EQ, OP_ARBITRARY, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_COMPATIBLE,
	OP_CARET, OP_TILDE, OP_CONDA_FUZZY
} op_kind;

/* The operator at the start of `t`, its length in *len. */
static op_kind read_op(mpsfix_text_slice t, size_t *len)
{
	static const struct {
		const char *text;
		op_kind op;
	} ops[] = {
		{"===", OP_ARBITRARY}, {"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE},
		{"~=", OP_COMPATIBLE}, {"<", OP_LT}, {">", OP_GT}, {"^", OP_CARET}, {"~", OP_TILDE},
		{"=", OP_CONDA_FUZZY},
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(ops); i++) {
		size_t n = strlen(ops[i].text);

		if (t.n >= n && !strncmp(t.s, ops[i].text, n)) {
			*len = n;
			return ops[i].op;
		}
	}
	*len = 0;
	return OP_NONE;
}

/* The operators of each syntax, for messages (in mpsfix_torch_syntax order). */
static const char *const operators[] = {
	"operators < <= > >= ==",
	"operators < <= > >= == ~=, or a bare version",
	"operators < <= > >= == === ~= !=",
	"operators < <= > >= == ~= != ^ ~, or a bare version",
	"operators < <= > >= == != =, or a bare version",
};

/* How many operator characters `t` starts with. */
static size_t op_span(mpsfix_text_slice t)
{
	size_t n = 0;

	while (n < t.n && strchr("<>=!~^", t.s[n]))
		n++;
	return n;
}

static bool op_allowed(mpsfix_torch_syntax syntax, op_kind op)
{
	switch (op) {
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ:
		return true;
	case OP_NONE:
		return syntax != MPSFIX_TORCH_SYNTAX_RULE && syntax != MPSFIX_TORCH_SYNTAX_PIP;
	case OP_ARBITRARY: case OP_COMPATIBLE:
		return syntax != MPSFIX_TORCH_SYNTAX_RULE;
	case OP_NE:
		return syntax != MPSFIX_TORCH_SYNTAX_RULE && syntax != MPSFIX_TORCH_SYNTAX_SPEC;
	case OP_CARET: case OP_TILDE:
		return syntax == MPSFIX_TORCH_SYNTAX_POETRY;
	case OP_CONDA_FUZZY:
		return syntax == MPSFIX_TORCH_SYNTAX_CONDA;
	}
	return false;
}

/*
 * One constraint ("<2.4", "^2.1", "2.1.*").  Narrows *r; sets *constrains
 * when it says anything about the range (`!=` and "*" do not).
 */
static int parse_constraint(const parser *p, mpsfix_text_slice t, mpsfix_torch_range *r, bool *constrains)
{
	bool rule = p->syntax == MPSFIX_TORCH_SYNTAX_RULE;
	mpsfix_torch_ver lo = MPSFIX_TORCH_OLDEST, hi = MPSFIX_TORCH_NEWEST;
	size_t oplen;
	op_kind op;
	version v;
	int error;

	t = mpsfix_text_trim(t);
	if (!t.n)
		return bad(p, rule ? RULE_SYNTAX : "an empty constraint (a stray comma?)");
	if (slice_is(t, "*") && (p->syntax == MPSFIX_TORCH_SYNTAX_POETRY ||
				 p->syntax == MPSFIX_TORCH_SYNTAX_CONDA))
		return 0;
	op = read_op(t, &oplen);
	if (rule && (!op_allowed(p->syntax, op) || op_span(t) != oplen))
		return bad(p, RULE_SYNTAX);
	if (op_span(t) != oplen)
		return bad(p, "unknown operator '%.*s' (%s)", (int)op_span(t), t.s,
			   operators[p->syntax]);
	if (!op_allowed(p->syntax, op)) {
		if (op == OP_NE)
			return bad(p, "'!=' cannot narrow a target to a range of versions; "
				      "give the versions to target, like '>=2.1,<2.6'");
		if (op == OP_NONE)
			return bad(p, "'%.*s' has no operator (%s)", (int)t.n, t.s, operators[p->syntax]);
		return bad(p, "operator '%.*s' is not allowed here (%s)", (int)oplen, t.s,
			   operators[p->syntax]);
	}
	if ((error = parse_version(p, &v,
				   mpsfix_text_trim((mpsfix_text_slice){t.s + oplen, t.n - oplen}), rule,
				   op == OP_EQ || op == OP_NE || op == OP_NONE ||
				   op == OP_CONDA_FUZZY)) < 0)
		return error;
	switch (op) {
	case OP_NE:
		return 0;
	case OP_NONE: case OP_EQ: case OP_ARBITRARY: case OP_CONDA_FUZZY:
		lo = low_of(&v);
		hi = high_of(&v);
		break;
	case OP_GE: case OP_GT:
		/* > 2.4 still takes 2.4.1: the minor stays in */
		lo = low_of(&v);
		break;
	case OP_LE:
		hi = high_of(&v);
		break;
	case OP_LT:
		if (v.has_minor && v.later_nonzero) {
			hi = low_of(&v); /* < 2.4.1 takes 2.4.0 */
		} else if (!prev_minor(low_of(&v), &hi)) {
			return bad(p, "no torch version is below %.*s", (int)t.n - (int)oplen, t.s + oplen);
		}
		break;
	case OP_COMPATIBLE:
		if (v.nparts < 2)
			return bad(p, "'~=' needs a version of at least two numbers, like ~=2.1");
		lo = low_of(&v);
		hi = v.nparts == 2 ? MPSFIX_TORCH_VER(v.major, MPSFIX_TORCH_ANY_MINOR) : low_of(&v);
		break;
	case OP_CARET:
		/* below the next change of the leftmost non-zero number */
		lo = low_of(&v);
		if (v.major > 0 || !v.has_minor)
			hi = MPSFIX_TORCH_VER(v.major, MPSFIX_TORCH_ANY_MINOR);
		else
			hi = low_of(&v);
		break;
	case OP_TILDE:
		lo = low_of(&v);
		hi = high_of(&v);
		break;
	}
	*constrains = true;
	if (lo > r->lo)
		r->lo = lo;
	if (hi < r->hi)
		r->hi = hi;
	return 0;
}

/*
 * Constraints joined with ',' (all of them hold).  Poetry also takes a space
 * between a version and the next operator (">=2.0 <2.3").
 */
static int parse_all_of(const parser *p, mpsfix_text_slice t, mpsfix_torch_range *out, bool *constrains)
{
	mpsfix_torch_range r = MPSFIX_TORCH_RANGE_ALL;
	bool poetry = p->syntax == MPSFIX_TORCH_SYNTAX_POETRY;
	const char *end = t.s + t.n;
	int error;

	*constrains = false;
	for (const char *s = t.s;;) {
		const char *stop = s, *next = NULL;

		for (; stop < end; stop++) {
			if (*stop == ',') {
				next = stop + 1;
				break;
			}
			if (poetry && isspace((unsigned char)*stop) && stop > s &&
			    !isspace((unsigned char)stop[-1]) && !strchr("<>=!~^", stop[-1])) {
				const char *q = stop;

				while (q < end && isspace((unsigned char)*q))
					q++;
				if (q < end && strchr("<>=!~^", *q)) {
					next = q;
					break;
				}
			}
		}
		if ((error = parse_constraint(p, (mpsfix_text_slice){s, (size_t)(stop - s)}, &r,
					      constrains)) < 0)
			return error;
		if (!next)
			break;
		s = next;
	}
	if (r.lo > r.hi)
		return bad(p, "no version satisfies all of these constraints");
	*out = r;
	return 0;
}

int mpsfix_torch_range_parse(mpsfix_torch_range *out, const char *text, size_t len,
			     mpsfix_torch_syntax syntax)
{
	parser p = {.syntax = syntax, .whole = mpsfix_text_trim((mpsfix_text_slice){text, len})};
	mpsfix_text_slice t = p.whole;
	mpsfix_torch_range hull = {0, 0};
	bool any = false, constrains;
	const char *end;
	int error;

	if (memchr(t.s, '\0', t.n))
		return bad(&p, "a NUL byte");
	if ((syntax == MPSFIX_TORCH_SYNTAX_RULE || syntax == MPSFIX_TORCH_SYNTAX_SPEC) &&
	    slice_is(t, "all")) {
		*out = MPSFIX_TORCH_RANGE_ALL;
		return 0;
	}
	if (syntax == MPSFIX_TORCH_SYNTAX_PIP && t.n >= 2 && t.s[0] == '(' && t.s[t.n - 1] == ')')
		t = mpsfix_text_trim((mpsfix_text_slice){t.s + 1, t.n - 2});
	end = t.s + t.n;
	/* alternatives: their hull ("||" in Poetry, "|" in conda) */
	for (const char *s = t.s;;) {
		const char *bar = NULL;
		mpsfix_text_slice alt;
		mpsfix_torch_range r = MPSFIX_TORCH_RANGE_ALL;

		if (syntax == MPSFIX_TORCH_SYNTAX_POETRY || syntax == MPSFIX_TORCH_SYNTAX_CONDA)
			bar = memchr(s, '|', (size_t)(end - s));
		alt = (mpsfix_text_slice){s, (size_t)((bar ? bar : end) - s)};
		if ((error = parse_all_of(&p, alt, &r, &constrains)) < 0)
			return error;
		/* an alternative that allows anything: the whole constrains nothing */
		if (!constrains)
			return MPSFIX_ENOMATCH;
		hull = any ? mpsfix_torch_range_hull(hull, r) : r;
		any = true;
		if (!bar)
			break;
		s = bar + 1;
		if (syntax == MPSFIX_TORCH_SYNTAX_POETRY) {
			if (s < end && *s == '|')
				s++;
			else
				return bad(&p, "alternatives are joined with '||'");
		}
	}
	*out = hull;
	return 0;
}

static void put_ver(char *buf, size_t size, mpsfix_torch_ver v)
{
	snprintf(buf, size, "%u.%u", MPSFIX_TORCH_MAJOR(v), MPSFIX_TORCH_MINOR(v));
}

const char *mpsfix_torch_range_format(char buf[MPSFIX_TORCH_RANGE_STRMAX], mpsfix_torch_range r)
{
	char lo[16], hi[16];
	mpsfix_torch_ver next;

	if (r.lo == MPSFIX_TORCH_OLDEST && r.hi == MPSFIX_TORCH_NEWEST) {
		snprintf(buf, MPSFIX_TORCH_RANGE_STRMAX, "all");
		return buf;
	}
	if (r.lo == r.hi) {
		put_ver(buf, MPSFIX_TORCH_RANGE_STRMAX, r.lo);
		return buf;
	}
	put_ver(lo, sizeof(lo), r.lo);
	/* an upper bound is written as the first minor it leaves out */
	if (MPSFIX_TORCH_MINOR(r.hi) == MPSFIX_TORCH_ANY_MINOR)
		next = MPSFIX_TORCH_VER(MPSFIX_TORCH_MAJOR(r.hi) + 1, 0);
	else
		next = r.hi + 1;
	put_ver(hi, sizeof(hi), next);
	if (r.hi == MPSFIX_TORCH_NEWEST)
		snprintf(buf, MPSFIX_TORCH_RANGE_STRMAX, ">=%s", lo);
	else if (r.lo == MPSFIX_TORCH_OLDEST)
		snprintf(buf, MPSFIX_TORCH_RANGE_STRMAX, "<%s", hi);
	else
		snprintf(buf, MPSFIX_TORCH_RANGE_STRMAX, ">=%s,<%s", lo, hi);
	return buf;
}
