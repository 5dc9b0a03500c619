/*
 * prefilter.c: the words each rule needs, and one pass over a file's bytes
 * that says whether any rule can match it (see prefilter.h).
 */
#include "prefilter.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "pattern.h"
#include "rule.h"
#include "text.h"

/* [A-Za-z0-9_]: the bytes of a word. */
/* The matcher gives up after this many steps (match.c); a pattern this big
 * could reach it without its words. */
#define PATTERN_NODES_MAX 100000u

/* ---- requirements: formulas over words ------------------------------------ */

typedef enum { F_TRUE, F_FALSE, F_WORD, F_AND, F_OR } fkind;

typedef struct fnode {
	fkind kind;
	char *word;          /* F_WORD (owned) */
	uint32_t id;         /* F_WORD: index in the prefilter's words */
	struct fnode **kids; /* F_AND, F_OR (owned) */
	size_t n, cap;
} fnode;

static fnode *fnew(fkind kind)
{
	fnode *f = mpsfix_xcalloc(1, sizeof(*f));

	f->kind = kind;
	return f;
}

static void ffree(fnode *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		ffree(f->kids[i]);
	free(f->kids);
	free(f->word);
	free(f);
}

static void fpush(fnode *f, fnode *kid)
{
	mpsfix_grow((void **)&f->kids, &f->cap, f->n + 1, sizeof(*f->kids));
	f->kids[f->n++] = kid;
}

/* A word the scan can find: [A-Za-z_][A-Za-z0-9_]* (a non-ASCII name is not one). */
static bool scannable(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!mpsfix_text_word_byte[(unsigned char)s[i]])
			return false;
	return true;
}

static void fword(fnode *and, const char *s, size_t n)
{
	fnode *w;

	if (!scannable(s, n))
		return;
	w = fnew(F_WORD);
	w->word = mpsfix_xstrndup(s, n);
	fpush(and, w);
}

static void render(const fnode *f, mpsfix_buf *out, bool nested)
{
	switch (f->kind) {
	case F_TRUE:
		mpsfix_buf_adds(out, "*");
		return;
	case F_FALSE:
		mpsfix_buf_adds(out, "false");
		return;
	case F_WORD:
		mpsfix_buf_adds(out, f->word);
		return;
	case F_AND:
	case F_OR:
		if (nested)
			mpsfix_buf_addc(out, '(');
		for (size_t i = 0; i < f->n; i++) {
			if (i)
				mpsfix_buf_adds(out, f->kind == F_AND ? " & " : " | ");
			render(f->kids[i], out, true);
		}
		if (nested)
			mpsfix_buf_addc(out, ')');
		return;
	}
}

static char *rendered(const fnode *f)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;

	render(f, &b, false);
	return mpsfix_buf_detach(&b, NULL);
}

/* The operands of `f` seen as a `kind` (a lone formula is its only operand). */
static size_t operands(const fnode *f, fkind kind, fnode *const **out)
{
	static fnode *const none[1] = {NULL};

	if (f->kind == kind) {
		*out = f->kids;
		return f->n;
	}
	*out = none;
	return 1;
}

static fnode *operand(const fnode *f, fkind kind, fnode *const *ops, size_t i)
{
	return f->kind == kind ? ops[i] : (fnode *)f;
}

/* Every operand of `a` is an operand of `b` (compared as written). */
static bool subset(const fnode *a, const fnode *b, fkind kind)
{
	fnode *const *oa, *const *ob;
	size_t na = operands(a, kind, &oa), nb = operands(b, kind, &ob);
	bool all = true;

	for (size_t i = 0; i < na && all; i++) {
		char *ta = rendered(operand(a, kind, oa, i));
		bool found = false;

		for (size_t j = 0; j < nb && !found; j++) {
			char *tb = rendered(operand(b, kind, ob, j));

			found = !strcmp(ta, tb);
			free(tb);
		}
		free(ta);
		all = found;
	}
	return all;
}

/*
 * Flatten, drop neutral operands, and absorb: in an or, an operand that
 * needs all another one needs and more goes (x | x & y is x); in an and, an
 * operand that allows all another one allows and more goes.
 */
static fnode *simplify(fnode *f)
{
	fkind unit, zero;
	fnode *flat;

	if (f->kind != F_AND && f->kind != F_OR)
		return f;
	unit = f->kind == F_AND ? F_TRUE : F_FALSE;
	zero = f->kind == F_AND ? F_FALSE : F_TRUE;
	flat = fnew(f->kind);
	for (size_t i = 0; i < f->n; i++) {
		fnode *k = simplify(f->kids[i]);

		f->kids[i] = NULL;
		if (k->kind == zero) {
			ffree(flat);
			for (size_t j = i + 1; j < f->n; j++)
				ffree(f->kids[j]);
			f->n = 0;
			ffree(f);
			return k;
		}
		if (k->kind == unit) {
			ffree(k);
		} else if (k->kind == f->kind) {
			for (size_t j = 0; j < k->n; j++)
				fpush(flat, k->kids[j]);
			k->n = 0;
			ffree(k);
		} else {
			fpush(flat, k);
		}
	}
	ffree(f);
	/* absorption (an and inside an or, an or inside an and) */
	for (size_t i = 0; i < flat->n; ) {
		fkind inner = flat->kind == F_OR ? F_AND : F_OR;
		bool absorbed = false;

		for (size_t j = 0; j < flat->n && !absorbed; j++)
			absorbed = j != i && subset(flat->kids[j], flat->kids[i], inner);
		if (absorbed) {
			ffree(flat->kids[i]);
			memmove(&flat->kids[i], &flat->kids[i + 1], (flat->n - i - 1) * sizeof(fnode *));
			flat->n--;
		} else {
			i++;
		}
	}
	if (flat->n == 0) {
		ffree(flat);
		return fnew(unit);
	}
	if (flat->n == 1) {
		fnode *only = flat->kids[0];

		flat->n = 0;
		ffree(flat);
		return only;
	}
	return flat;
}

/* ---- what rules need -------------------------------------------------------- */

/* The words every match of the pattern node spells, into `and`. */
static void pattern_words(fnode *and, const mpsfix_pnode *pn, TSSymbol ident)
{
	if (pn->kind == MPSFIX_PN_QNAME) {
		/* the last name is written in the code or in the import that binds it */
		const char *dot = strrchr(pn->text, '.');
		const char *tail = dot ? dot + 1 : pn->text;

		fword(and, tail, pn->text_len - (size_t)(tail - pn->text));
	} else if (pn->kind == MPSFIX_PN_LEAF && pn->symbol == ident) {
		fword(and, pn->text, pn->text_len);
	} else if (pn->kind == MPSFIX_PN_STRING) {
		/* the matcher takes a string only with its value's words spelled out */
		size_t at = 0, b, len;

		while (mpsfix_text_next_word(pn->text, pn->text_len, &at, &b, &len))
			fword(and, pn->text + b, len);
	}
	if (pn->kwname)
		fword(and, pn->kwname, strlen(pn->kwname));
	for (uint32_t i = 0; i < pn->nchildren; i++)
		pattern_words(and, pn->children[i], ident);
}

/*
 * Could matching this pattern backtrack (a $$$ followed by other items of
 * its list; keyword arguments named in the pattern are found by name
 * first)?  Then an attempt may hit the step limit, and the engine warns,
 * whatever words the file has.
 */
static bool backtracks(const mpsfix_pnode *pn, size_t *count)
{
	if (++*count > PATTERN_NODES_MAX)
		return true;
	if (pn->kind == MPSFIX_PN_NODE || pn->kind == MPSFIX_PN_ARGS) {
		bool args = pn->kind == MPSFIX_PN_ARGS;
		size_t last = 0;
		bool any = false;

		for (uint32_t i = 0; i < pn->nchildren; i++)
			if (!(args && pn->children[i]->kwname)) {
				last = i;
				any = true;
			}
		for (uint32_t i = 0; any && i < last; i++)
			if (pn->children[i]->kind == MPSFIX_PN_MULTI && !(args && pn->children[i]->kwname))
				return true;
	}
	for (uint32_t i = 0; i < pn->nchildren; i++)
		if (backtracks(pn->children[i], count))
			return true;
	return false;
}

static fnode *pattern_req(const mpsfix_pattern *p, TSSymbol ident)
{
	fnode *and = fnew(F_AND);

	pattern_words(and, p->root, ident);
	return and;
}

static fnode *patterns_any(mpsfix_pattern *const *ps, size_t n, TSSymbol ident)
{
	fnode *or = fnew(F_OR);

	for (size_t i = 0; i < n; i++)
		fpush(or, pattern_req(ps[i], ident));
	return or;
}

/* cond.c's holds() on a parameter that was not passed: can it be true? */
static bool holds_unbound(const mpsfix_constraint *c)
{
	if (c->absent >= 0)
		return c->absent == 1;
	if (c->nvalues || c->nkinds || c->has_regex || c->nis || c->nhas || c->with_item == 1 ||
	    c->statement == 1 || c->opt_in == 1 || c->used == 1)
		return false;
	for (size_t i = 0; i < c->nany_of; i++)
		if (holds_unbound(&c->any_of[i]))
			return true;
	return c->nany_of == 0;
}

/* What a constraint needs of the code it is checked on (cond.c's holds()). */
static fnode *constraint_req(const mpsfix_constraint *c, bool may_be_unbound, TSSymbol ident)
{
	fnode *and;

	if ((may_be_unbound && holds_unbound(c)) || c->absent == 1)
		return fnew(F_TRUE);
	and = fnew(F_AND);
	if (c->nis)
		fpush(and, patterns_any(c->is, c->nis, ident));
	if (c->nhas)
		fpush(and, patterns_any(c->has, c->nhas, ident));
	if (c->nany_of) {
		fnode *or = fnew(F_OR);

		for (size_t i = 0; i < c->nany_of; i++)
			fpush(or, constraint_req(&c->any_of[i], false, ident));
		fpush(and, or);
	}
	return and;
}

static fnode *rule_req(const mpsfix_rule *r, TSSymbol ident)
{
	fnode *top = fnew(F_AND), *any = fnew(F_OR);

	for (size_t i = 0; i < r->npatterns; i++) {
		const mpsfix_pattern *p = r->patterns[i];
		size_t count = 0;
		fnode *all;

		if (backtracks(p->root, &count)) {
			fpush(any, fnew(F_TRUE));
			continue;
		}
		all = pattern_req(p, ident);
		for (size_t k = 0; k < r->nconstraints; k++) {
			const mpsfix_constraint *c = &r->constraints[k];
			int mv;

			if (!strcmp(c->metavar, "MATCH")) {
				fpush(all, constraint_req(c, false, ident));
			} else if (mpsfix_rule_is_param(c->metavar)) {
				fpush(all, constraint_req(c, true, ident));
			} else if ((mv = mpsfix_pattern_metavar_index(p, c->metavar)) >= 0 &&
				   !p->metavars[mv].multi) {
				/* a metavariable this pattern binds (to one node) */
				fpush(all, constraint_req(c, false, ident));
			}
		}
		fpush(any, all);
	}
	fpush(top, any);
	if (r->ninside)
		fpush(top, patterns_any(r->inside, r->ninside, ident));
	if (r->after_import)
		fword(top, r->after_import, strlen(r->after_import));
	return simplify(top);
}

char *mpsfix_prefilter_describe(const mpsfix_rule *r)
{
	fnode *f = rule_req(r, mpsfix_symbol("identifier"));
	char *s = rendered(f);

	ffree(f);
	return s;
}

/* ---- the compiled prefilter --------------------------------------------------- */

struct mpsfix_prefilter {
	fnode **rule_req;       /* each rule's requirement, in the order given,
				   words numbered (owned) */
	size_t nrules;
	bool selective;         /* no rule needs nothing */
	char **words;           /* by number (owned) */
	size_t *lens;           /* their lengths (owned) */
	size_t nwords, lens_cap;
	uint32_t *slots;        /* open addressing: word number + 1, 0 empty */
	uint32_t mask;
	uint64_t lengths;       /* bit n: some word has n bytes (n < 64) */
	bool long_words;        /* some word has 64 bytes or more */
	bool first[256];        /* some word starts with this byte */
	/* the same, with the words the scan looks for itself (import, noqa, mpsfix) */
	uint64_t scan_lengths;
	bool scan_first[256];
};

static uint32_t hash_word(const unsigned char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

static int find_word(const mpsfix_prefilter *pf, const unsigned char *s, size_t n)
{
	uint32_t i;

	if (n < 64 ? !((pf->lengths >> n) & 1) : !pf->long_words)
		return -1;
	if (!pf->first[s[0]])
		return -1;
	for (i = hash_word(s, n) & pf->mask; pf->slots[i]; i = (i + 1) & pf->mask) {
		const char *w = pf->words[pf->slots[i] - 1];

		if (pf->lens[pf->slots[i] - 1] == n && !memcmp(w, s, n))
			return (int)(pf->slots[i] - 1);
	}
	return -1;
}

/* Number the words of `f`, adding new ones to the table. */
static void intern(mpsfix_prefilter *pf, fnode *f, size_t *cap)
{
	if (f->kind == F_WORD) {
		size_t n = strlen(f->word);

		for (size_t i = 0; i < pf->nwords; i++)
			if (!strcmp(pf->words[i], f->word)) {
				f->id = (uint32_t)i;
				return;
			}
		mpsfix_grow((void **)&pf->words, cap, pf->nwords + 1, sizeof(char *));
		mpsfix_grow((void **)&pf->lens, &pf->lens_cap, pf->nwords + 1, sizeof(size_t));
		f->id = (uint32_t)pf->nwords;
		pf->lens[pf->nwords] = n;
		pf->words[pf->nwords++] = mpsfix_xstrdup(f->word);
		if (n < 64)
			pf->lengths |= (uint64_t)1 << n;
		else
			pf->long_words = true;
		pf->first[(unsigned char)f->word[0]] = true;
		return;
	}
	for (size_t i = 0; i < f->n; i++)
		intern(pf, f->kids[i], cap);
}

mpsfix_prefilter *mpsfix_prefilter_new(mpsfix_rule *const *rules, size_t n)
{
	mpsfix_prefilter *pf = mpsfix_xcalloc(1, sizeof(*pf));
	TSSymbol ident = mpsfix_symbol("identifier");
	size_t cap = 0, size = 16;

	pf->nrules = n;
	pf->rule_req = mpsfix_xcalloc(n ? n : 1, sizeof(*pf->rule_req));
	pf->selective = true;
	for (size_t i = 0; i < n; i++) {
		pf->rule_req[i] = rule_req(rules[i], ident);
		pf->selective = pf->selective && pf->rule_req[i]->kind != F_TRUE;
		intern(pf, pf->rule_req[i], &cap);
	}
	while (size < 4 * pf->nwords)
		size *= 2;
	pf->mask = (uint32_t)size - 1;
	pf->scan_lengths = pf->lengths | (uint64_t)1 << 4 | (uint64_t)1 << 6;
	memcpy(pf->scan_first, pf->first, sizeof(pf->first));
	pf->scan_first['i'] = pf->scan_first['m'] = pf->scan_first['n'] = pf->scan_first['N'] = true;
	pf->slots = mpsfix_xcalloc(size, sizeof(uint32_t));
	for (size_t w = 0; w < pf->nwords; w++) {
		uint32_t i = hash_word((const unsigned char *)pf->words[w], pf->lens[w]) & pf->mask;

		while (pf->slots[i])
			i = (i + 1) & pf->mask;
		pf->slots[i] = (uint32_t)w + 1;
	}
	return pf;
}

void mpsfix_prefilter_free(mpsfix_prefilter *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < pf->nrules; i++)
		ffree(pf->rule_req[i]);
	free(pf->rule_req);
	for (size_t i = 0; i < pf->nwords; i++)
		free(pf->words[i]);
	free(pf->words);
	free(pf->lens);
	free(pf->slots);
	free(pf);
}

bool mpsfix_prefilter_selective(const mpsfix_prefilter *pf)
{
	return pf->selective;
}

/* ---- the scan ------------------------------------------------------------------ */

typedef struct {
	const mpsfix_prefilter *pf;
	uint64_t *seen;         /* bit per word number */
	bool suppressions;      /* look for noqa / mpsfix */
	const unsigned char *end;
	bool star, suppression; /* what was found */
} scan_state;

static bool eval(const fnode *f, const uint64_t *seen)
{
	switch (f->kind) {
	case F_TRUE:
		return true;
	case F_FALSE:
		return false;
	case F_WORD:
		return (seen[f->id / 64] >> (f->id % 64)) & 1;
	case F_AND:
		for (size_t i = 0; i < f->n; i++)
			if (!eval(f->kids[i], seen))
				return false;
		return true;
	case F_OR:
		for (size_t i = 0; i < f->n; i++)
			if (eval(f->kids[i], seen))
				return true;
		return false;
	}
	return true;
}

/*
 * After the word `import`: is the next thing a `*`?  Everything but words
 * (spaces, line breaks and continuations, brackets, comments, stray
 * punctuation error recovery may skip) is passed over, so that no
 * `from X import *` tree-sitter could see is missed.
 */
static bool star_follows(const unsigned char *p, const unsigned char *end)
{
	while (p < end) {
		if (*p == '*')
			return true;
		if (mpsfix_text_word_byte[*p])
			return false;
		if (*p == '#')
			while (p < end && *p != '\n')
				p++;
		else
			p++;
	}
	return false;
}

/* One word: note it; true to stop (a star import: every rule is tried anyway). */
static bool token(scan_state *st, const unsigned char *s, size_t n)
{
	int w;

	if (n == 6 && s[0] == 'i' && !memcmp(s, "import", 6) && star_follows(s + 6, st->end))
		return st->star = true;
	if (st->suppressions &&
	    ((n == 4 && (s[0] | 0x20) == 'n' && (s[1] | 0x20) == 'o' && (s[2] | 0x20) == 'q' &&
	      (s[3] | 0x20) == 'a') ||
	     (n == 6 && !memcmp(s, "mpsfix", 6))))
		st->suppression = true;
	if ((w = find_word(st->pf, s, n)) >= 0)
		st->seen[w / 64] |= (uint64_t)1 << (w % 64);
	return false;
}

/* Hand every word from p to st->end a rule may need (or the scan looks for itself) to token(). */
static void walk(scan_state *st, const unsigned char *p)
{
	const mpsfix_prefilter *pf = st->pf;
	bool stop = false;

	while (p < st->end && !stop) {
		const unsigned char *s;
		size_t n;

		if (!mpsfix_text_word_byte[*p]) {
			p++;
			continue;
		}
		s = p;
		do
			p++;
		while (p < st->end && mpsfix_text_word_byte[*p]);
		n = (size_t)(p - s);
		if (*s >= '0' && *s <= '9') {
			/* a number may end where a name starts (`1if`, `0x1else`) */
			for (size_t i = 1; i < n && !stop; i++)
				if (!(s[i] >= '0' && s[i] <= '9'))
					stop = token(st, s + i, n - i);
			continue;
		}
		/* most words are neither a rule's nor import/noqa/mpsfix */
		if ((n < 64 ? (pf->scan_lengths >> n) & 1 : pf->long_words) && pf->scan_first[*s])
			stop = token(st, s, n);
	}
}

mpsfix_prefilter_verdict mpsfix_prefilter_scan(const mpsfix_prefilter *pf, const char *data,
					       size_t len, bool suppressions, bool *possible)
{
	uint64_t small[4] = {0};
	scan_state st = {pf, small, suppressions, (const unsigned char *)data + len, false, false};
	bool any = false;

	if (!pf->selective && !possible)
		return MPSFIX_PREFILTER_ALL;
	if (pf->nwords > 64 * MPSFIX_ARRAY_SIZE(small))
		st.seen = mpsfix_xcalloc((pf->nwords + 63) / 64, sizeof(uint64_t));
	walk(&st, (const unsigned char *)data);
	for (size_t i = 0; i < pf->nrules; i++) {
		/* with a star import, every rule is tried: the engine's warning needs their attempts */
		bool p = st.star || eval(pf->rule_req[i], st.seen);

		if (possible)
			possible[i] = p;
		any = any || p;
	}
	if (st.seen != small)
		free(st.seen);
	if (!pf->selective)
		return MPSFIX_PREFILTER_ALL;
	if (st.star)
		return MPSFIX_PREFILTER_STAR;
	if (any)
		return MPSFIX_PREFILTER_WORDS;
	return st.suppression ? MPSFIX_PREFILTER_SUPPRESSION : MPSFIX_PREFILTER_SKIP;
}
