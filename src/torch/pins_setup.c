/*
 * pins_setup.c: torch pins in setup.py.  No Python parser and nothing is
 * run: a tokenizer that knows comments, string literals, names, brackets
 * and the ends of statements, then three passes over its tokens, each
 * reading the strings of some expressions as requirements:
 *
 *   1. install_requires: its value (a keyword argument
 *      `install_requires=...`, an assignment `install_requires = ...`, a
 *      dict key "install_requires": ...), and the variables that value
 *      names, and the variables they name, and so on: `REQUIRED = [...]`,
 *      `REQUIRED += [...]`, `REQUIRED.append(...)` / extend / insert /
 *      update / add, `REQUIRED[key] = ...`, wherever they are written;
 *   2. extras_require, the same way: optional dependencies;
 *   3. every other list or tuple assigned to a variable at the top level of
 *      the module (`_deps = ["torch>=2.0", ...]`, a table of versions that
 *      helpers pick from): optional dependencies too.
 *
 * A string is read once, in the first pass that reaches it, and the
 * requirements are taken in the order they are written.  A string in a
 * subscript (`deps["torch"]`) is a key, not a requirement; a name followed
 * by '(' is a call and one followed by '=' a keyword, not variables.
 */
#include "pins.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pins_internal.h"
#include "text.h"

/* A setup.py with more tokens than this is not read (a real one has a few thousand). */
#define MAX_TOKENS (1u << 20)
/* The tokens the passes may step over, all told: a hostile file cannot take quadratic time. */
#define MAX_STEPS (1u << 24)

typedef enum {
	TOK_STRING,  /* a string literal; its value is in the string pool */
	TOK_NAME,    /* an identifier or keyword */
	TOK_NUMBER,
	TOK_OP,      /* an operator or a bracket, 1 or 2 characters */
	TOK_END      /* the end of a statement */
} tok_kind;

typedef struct {
	uint32_t start, len; /* STRING: in the pool; others: in the file */
	uint32_t line;
	uint32_t depth;      /* brackets around it (an opener or closer: outside it) */
	uint32_t match;      /* an opener: its closer's index (or the end); a closer: its opener's */
	uint8_t kind;
	bool first;          /* the first token of a statement */
	bool top;            /* ... and the statement starts at column 0 */
	uint8_t read;        /* STRING: READ_MAIN, READ_OPTIONAL, READ_KEY, or 0: not reached */
} tok;

enum { READ_MAIN = 1, READ_OPTIONAL, READ_KEY };

/* One assignment to a variable: the tokens of the value, [from, to). */
typedef struct {
	mpsfix_text_slice name;
	uint32_t from, to;
	bool module_list;    /* `NAME = [` or `NAME = (` at the top level */
	bool visited;        /* in the current pass */
} assign;

typedef struct {
	mpsfix_pins_scan *sc;
	const char *file, *data;
	mpsfix_buf pool;
	ARRAY(tok) toks;
	ARRAY(assign) vars;  /* sorted by name */
	ARRAY(uint32_t) work;  /* assignments to read, in the current pass */
	uint8_t pass;        /* READ_MAIN or READ_OPTIONAL */
	size_t steps;
	bool tired;          /* MAX_STEPS reached */
} setup_py;

/* --- tokens -------------------------------------------------------------------------- */

typedef struct {
	const char *p, *end;
	uint32_t line;
} cursor;

/*
 * Step over a string literal at c->p (after any prefix); its value (escapes
 * as written) into `value`.  False when it is not closed.
 */
static bool py_string(cursor *c, mpsfix_buf *value)
{
	char q = *c->p;
	bool triple = c->end - c->p >= 3 && c->p[1] == q && c->p[2] == q;

	c->p += triple ? 3 : 1;
	while (c->p < c->end) {
		if (*c->p == '\\' && c->p + 1 < c->end) {
			if (c->p[1] == '\n')
				c->line++;
			else
				mpsfix_buf_add(value, c->p, 2);
			c->p += 2;
			continue;
		}
		if (*c->p == q && (!triple || (c->end - c->p >= 3 && c->p[1] == q && c->p[2] == q))) {
			c->p += triple ? 3 : 1;
			return true;
		}
		if (*c->p == '\n') {
			if (!triple)
				return false;
			c->line++;
		}
		mpsfix_buf_addc(value, *c->p);
		c->p++;
	}
	return false;
}

/* Is the identifier at [s, e) a string prefix (r, b, u, f, rb, br, fr...) before a quote? */
static bool string_prefix(const char *s, const char *e)
{
	if (e - s > 2)
		return false;
	for (const char *c = s; c < e; c++)
		if (!strchr("rRbBuUfF", *c))
			return false;
	return true;
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static bool op_is(const tok *t, const char *data, const char *op)
{
	return t->kind == TOK_OP && t->len == strlen(op) && !memcmp(data + t->start, op, t->len);
}

static bool name_is(const tok *t, const char *data, const char *name)
{
	return t->kind == TOK_NAME && t->len == strlen(name) && !memcmp(data + t->start, name, t->len);
}

/* The tokens of the file; false (with a warning) where reading stopped early. */
static bool tokenize(setup_py *sp)
{
	cursor c = {sp->data, sp->data + strlen(sp->data), 1};
	ARRAY(uint32_t) open = {0};
	const char *bol = sp->data; /* the start of the current line */
	bool first = true, ok = true;

	while (c.p < c.end) {
		const char *s = c.p;
		tok t = {.line = c.line, .depth = (uint32_t)open.len, .match = UINT32_MAX};

		if (sp->toks.len >= MAX_TOKENS) {
			mpsfix_pins__warn(sp->sc, "%s: not read for torch pins: too long", sp->file);
			ok = false;
			break;
		}
		if (*c.p == '#') {
			while (c.p < c.end && *c.p != '\n')
				c.p++;
			continue;
		}
		if (*c.p == '\n' || (*c.p == ';' && !open.len)) {
			if (!open.len && !first) {
				t.kind = TOK_END;
				ARRAY_PUSH(&sp->toks, t);
				first = true;
			}
			if (*c.p == '\n') {
				c.line++;
				bol = c.p + 1;
			}
			c.p++;
			continue;
		}
		if (*c.p == '\\' && c.p + 1 < c.end && c.p[1] == '\n') {
			c.line++;
			c.p += 2;
			continue;
		}
		if (isspace((unsigned char)*c.p)) {
			c.p++;
			continue;
		}
		if (*c.p == '"' || *c.p == '\'' || (is_ident_char(*c.p) && !isdigit((unsigned char)*c.p))) {
			while (c.p < c.end && is_ident_char(*c.p))
				c.p++;
			if (c.p < c.end && (*c.p == '"' || *c.p == '\'') && string_prefix(s, c.p)) {
				t.kind = TOK_STRING;
				t.start = (uint32_t)sp->pool.len;
				if (!py_string(&c, &sp->pool)) {
					mpsfix_pins__warn(sp->sc, "%s:%u: not read for torch pins: a string is "
							  "not closed", sp->file, t.line);
					ok = false;
					break;
				}
				t.len = (uint32_t)(sp->pool.len - t.start);
			} else {
				t.kind = TOK_NAME;
			}
		} else if (isdigit((unsigned char)*c.p)) {
			while (c.p < c.end && (is_ident_char(*c.p) || *c.p == '.'))
				c.p++;
			t.kind = TOK_NUMBER;
		} else {
			t.kind = TOK_OP;
			if (c.p + 1 < c.end && ((c.p[1] == '=' && strchr("=!<>+-*/%&|^:@", *c.p)) ||
						(c.p[0] == '-' && c.p[1] == '>')))
				c.p++;
			c.p++;
			if (strchr("([{", *s)) {
				ARRAY_PUSH(&open, (uint32_t)sp->toks.len);
			} else if (strchr(")]}", *s) && open.len) {
				uint32_t o = open.items[--open.len];

				sp->toks.items[o].match = (uint32_t)sp->toks.len;
				t.match = o;
				t.depth = (uint32_t)open.len;
			}
		}
		if (t.kind != TOK_STRING) {
			t.start = (uint32_t)(s - sp->data);
			t.len = (uint32_t)(c.p - s);
		}
		t.first = first;
		t.top = first && s == bol;
		first = false;
		ARRAY_PUSH(&sp->toks, t);
	}
	/* an opener never closed, and the last statement, end with the file */
	for (size_t i = 0; i < open.len; i++)
		sp->toks.items[open.items[i]].match = (uint32_t)sp->toks.len;
	ARRAY_PUSH(&sp->toks, ((tok){.kind = TOK_END, .line = c.line, .match = UINT32_MAX}));
	free(open.items);
	return ok;
}

/* --- expressions and variables --------------------------------------------------------- */

/* Count a step; false once the passes have taken too many. */
static bool step(setup_py *sp)
{
	if (sp->tired)
		return false;
	if (++sp->steps < MAX_STEPS)
		return true;
	sp->tired = true;
	mpsfix_pins__warn(sp->sc, "%s: not read to the end for torch pins: too complex", sp->file);
	return false;
}

/*
 * The end of the expression that starts at token `i`: the end of the
 * statement, a closer of the brackets around it, or (inside brackets) a
 * ',' beside it.  Brackets inside it are stepped over whole.
 */
static uint32_t expression_end(setup_py *sp, uint32_t i)
{
	const tok *toks = sp->toks.items;
	uint32_t depth = i < sp->toks.len ? toks[i].depth : 0;

	while (i < sp->toks.len && step(sp)) {
		const tok *t = &toks[i];

		if (t->kind == TOK_END || (t->kind == TOK_OP && strchr(")]}", sp->data[t->start]) &&
					    t->depth < depth))
			break;
		if (depth > 0 && op_is(t, sp->data, ","))
			break;
		if (t->kind == TOK_OP && strchr("([{", sp->data[t->start]) && t->match != UINT32_MAX)
			i = t->match < sp->toks.len ? t->match + 1 : t->match;
		else
			i++;
	}
	return i < sp->toks.len ? i : (uint32_t)sp->toks.len;
}

/* The end of the statement token `i` is in. */
static uint32_t statement_end(const setup_py *sp, uint32_t i)
{
	while (i < sp->toks.len && sp->toks.items[i].kind != TOK_END)
		i++;
	return i;
}

static int by_name(const void *a, const void *b)
{
	const assign *x = a, *y = b;
	size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
	int c = memcmp(x->name.s, y->name.s, n);

	if (c)
		return c;
	if (x->name.n != y->name.n)
		return x->name.n < y->name.n ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static void add_var(setup_py *sp, uint32_t name, uint32_t from, uint32_t to, bool module_list)
{
	const tok *t = &sp->toks.items[name];

	ARRAY_PUSH(&sp->vars, ((assign){{sp->data + t->start, t->len}, from, to, module_list, false}));
}

/* The statement that starts at token `i`: when it assigns to or extends a variable, note it. */
static void statement(setup_py *sp, uint32_t i)
{
	static const char *const growers[] = {"append", "extend", "insert", "update", "add"};
	const tok *toks = sp->toks.items;
	const char *d = sp->data;
	uint32_t end = statement_end(sp, i), k = i + 1;

	if (toks[i].kind != TOK_NAME || k >= end)
		return;
	if (op_is(&toks[k], d, "=")) {
		/* NAME = value; NAME = [...] at column 0 is one of the module's lists */
		add_var(sp, i, k + 1, end, toks[i].top && k + 1 < end &&
			(op_is(&toks[k + 1], d, "[") || op_is(&toks[k + 1], d, "(")));
	} else if (op_is(&toks[k], d, "+=") || op_is(&toks[k], d, "|=")) {
		add_var(sp, i, k + 1, end, false);
	} else if (op_is(&toks[k], d, ":") || op_is(&toks[k], d, "[")) {
		/* NAME: annotation = value; NAME[key] = value */
		if (op_is(&toks[k], d, "["))
			k = toks[k].match;
		while (k < end && !(toks[k].depth == toks[i].depth && op_is(&toks[k], d, "=")))
			k++;
		if (k < end)
			add_var(sp, i, k + 1, end, false);
	} else if (op_is(&toks[k], d, ".") && k + 2 < end && op_is(&toks[k + 2], d, "(")) {
		/* NAME.append(value) */
		for (size_t g = 0; g < MPSFIX_ARRAY_SIZE(growers); g++)
			if (name_is(&toks[k + 1], d, growers[g])) {
				uint32_t close = toks[k + 2].match;

				add_var(sp, i, k + 3, close < end ? close : end, false);
				break;
			}
	}
}

/* Is the string at token `i` a subscript (`deps["torch"]`), not an item of a list? */
static bool subscript_key(const setup_py *sp, uint32_t i)
{
	static const char *const keywords[] = {"in", "return", "and", "or", "not", "if", "else",
					       "yield", "is", "lambda", "await", "assert", "for"};
	const tok *toks = sp->toks.items, *before;

	if (i < 2 || !op_is(&toks[i - 1], sp->data, "["))
		return false;
	before = &toks[i - 2];
	if (before->kind == TOK_STRING || op_is(before, sp->data, ")") || op_is(before, sp->data, "]"))
		return true;
	if (before->kind != TOK_NAME)
		return false;
	for (size_t k = 0; k < MPSFIX_ARRAY_SIZE(keywords); k++)
		if (name_is(before, sp->data, keywords[k]))
			return false;
	return true;
}

/* Queue the assignments of the variable named by token `i` that this pass has not read. */
static void follow(setup_py *sp, uint32_t i)
{
	const tok *t = &sp->toks.items[i];
	assign key = {.name = {sp->data + t->start, t->len}, .from = 0};
	size_t lo = 0, hi = sp->vars.len;

	/* the first assignment of the name */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_name(&sp->vars.items[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < sp->vars.len && sp->vars.items[lo].name.n == key.name.n &&
	       !memcmp(sp->vars.items[lo].name.s, key.name.s, key.name.n); lo++)
		if (!sp->vars.items[lo].visited) {
			sp->vars.items[lo].visited = true;
			ARRAY_PUSH(&sp->work, (uint32_t)lo);
		}
}

/* Mark the strings of tokens [from, to) as requirements of this pass, and queue the variables they name. */
static void read_range(setup_py *sp, uint32_t from, uint32_t to)
{
	tok *toks = sp->toks.items;
	const char *d = sp->data;

	for (uint32_t i = from; i < to && step(sp); i++) {
		tok *t = &toks[i];

		if (t->kind == TOK_STRING) {
			if (!t->read && !subscript_key(sp, i))
				t->read = sp->pass;
		} else if (t->kind == TOK_NAME && !(i > 0 && op_is(&toks[i - 1], d, ".")) &&
			   !(i + 1 < sp->toks.len && (op_is(&toks[i + 1], d, "=") ||
						      op_is(&toks[i + 1], d, "(")))) {
			follow(sp, i);
		}
	}
}

/* Read the queued assignments, and those they lead to. */
static void drain(setup_py *sp)
{
	while (sp->work.len && !sp->tired) {
		const assign *a = &sp->vars.items[sp->work.items[--sp->work.len]];

		read_range(sp, a->from, a->to);
	}
	sp->work.len = 0;
}

/* A pass: the value of every `key=` / `key:` / "key": (install_requires, extras_require). */
static void read_key(setup_py *sp, const char *key, uint8_t pass)
{
	const tok *toks = sp->toks.items;
	size_t n = strlen(key);

	sp->pass = pass;
	for (size_t i = 0; i < sp->vars.len; i++)
		sp->vars.items[i].visited = false;
	for (uint32_t i = 0; i + 1 < sp->toks.len && !sp->tired; i++) {
		const tok *t = &toks[i];
		const char *text = t->kind == TOK_STRING ? sp->pool.data + t->start : sp->data + t->start;

		if ((t->kind != TOK_NAME && t->kind != TOK_STRING) || t->len != n || memcmp(text, key, n) != 0 ||
		    !(op_is(&toks[i + 1], sp->data, "=") || op_is(&toks[i + 1], sp->data, ":")))
			continue;
		if (t->kind == TOK_STRING)
			sp->toks.items[i].read = READ_KEY; /* not a requirement */
		read_range(sp, i + 2, expression_end(sp, i + 2));
		drain(sp);
	}
}

void mpsfix_pins__scan_setup_py(mpsfix_pins_scan *sc, const char *name, const char *data, size_t len)
{
	char *text = mpsfix_xstrndup(data, len); /* NUL-terminated, and no NUL before the end */
	setup_py sp = {.sc = sc, .file = name, .data = text};

	mpsfix_buf_addc(&sp.pool, '\0'); /* never NULL; offset 0 is an empty string */
	for (size_t i = 0; i < len; i++)
		if (!text[i])
			text[i] = ' ';
	tokenize(&sp);
	for (uint32_t i = 0; i < sp.toks.len; i++)
		if (sp.toks.items[i].first)
			statement(&sp, i);
	if (sp.vars.len > 1)
		qsort(sp.vars.items, sp.vars.len, sizeof(*sp.vars.items), by_name);
	read_key(&sp, "install_requires", READ_MAIN);
	read_key(&sp, "extras_require", READ_OPTIONAL);
	/* the module's lists of requirement strings */
	for (size_t i = 0; i < sp.vars.len && !sp.tired; i++)
		if (sp.vars.items[i].module_list) {
			read_range(&sp, sp.vars.items[i].from, sp.vars.items[i].to);
			drain(&sp);
		}
	/* the requirements, in the order they are written */
	for (size_t i = 0; i < sp.toks.len; i++) {
		const tok *t = &sp.toks.items[i];

		if (t->kind != TOK_STRING || (t->read != READ_MAIN && t->read != READ_OPTIONAL))
			continue;
		sc->optional = t->read == READ_OPTIONAL;
		sc->implies = t->read == READ_MAIN;
		mpsfix_pins__requirement(sc, name, t->line, (mpsfix_text_slice){sp.pool.data + t->start, t->len});
	}
	sc->optional = false;
	sc->implies = false;
	free(sp.vars.items);
	free(sp.work.items);
	free(sp.toks.items);
	mpsfix_buf_release(&sp.pool);
	free(text);
}
