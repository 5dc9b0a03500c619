/*
 * wrap.c: breaking the lines a fix made too long (see wrap.h).
 *
 * A line is taken apart into its tokens (the syntax tree's leaves, a string
 * as one), each with its bracket depth on the line and its priority as a
 * place to break; then split as ruff's formatter splits a line ("right hand
 * split" at the last bracket pair, "delimiter split" inside brackets), each
 * new line again while it is too long.  The result is the bytes of the
 * tokens, a line at a time, with new indentation: nothing else is copied
 * or invented but parentheses around a whole value and trailing commas.
 */
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "text.h"

/* where a line may break, the strongest first (ruff's and black's order) */
enum {
	PRIO_NONE = 0,
	PRIO_LOGIC = 14,         /* before `and`, `or` */
	PRIO_TERNARY = 16,       /* before a conditional expression's `if`, `else` */
	PRIO_COMMA = 18,         /* after `,` */
	PRIO_COMPREHENSION = 20  /* before a comprehension's `for`, `if` */
};

typedef enum {
	TOK_OTHER,
	TOK_OPEN,
	TOK_CLOSE,
	TOK_COMMA,
	TOK_COMMENT,
	TOK_ASSIGN,   /* `=`, `+=` ... of an assignment: a value follows */
	TOK_KEYWORD,  /* `return`, or the `if`/`elif`/`while` of a statement: a value follows */
	TOK_COLON     /* the `:` that ends a compound statement's header */
} tok_kind;

typedef struct {
	uint32_t s, e;
	int depth;          /* brackets open before it on the line */
	int pair;           /* a bracket's partner on the line, or -1 */
	tok_kind kind;
	int prio;           /* priority as a place to break at its depth */
	bool op;            /* an operator of the expression at its depth */
	TSNode node;
	TSNode parent;      /* the node's parent */
} tok;

/* A line to write: tokens [a, b), and where and how. */
typedef struct {
	uint32_t a, b;
	const char *base;   /* indentation: these bytes, then `steps` steps */
	size_t base_len;
	unsigned steps;
	int d0;             /* the depth of its own top-level tokens */
	bool inside;        /* inside brackets: it may break at its delimiters */
	bool body;          /* all that is between a bracket pair */
	bool comma_ok;      /* a trailing comma may follow its last element */
	const char *pre;    /* written before the tokens ("(" or ")"), or "" */
	const char *post;   /* written after the last token before a comment, or "" */
} wline;

typedef struct {
	const char *s;
	uint32_t limit;
	const char *step;
	size_t step_len;
	ARRAY(tok) toks;
	ARRAY(wline) out;
	ARRAY(TSNode) path;  /* collect(): the nodes from the root down to the cursor's
				(ts_node_parent() walks down from the root: slow in long files) */
	TSNode stmt;         /* the statement of the line's first token */
} wctx;

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

uint32_t mpsfix_wrap_width(const char *s, size_t len, uint32_t column)
{
	uint32_t start = column;

	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp = c;
		size_t n = c < 0x80 ? 1 : mpsfix_text_utf8_char((const unsigned char *)s + i, len - i, &cp);

		if (c == '\t')
			column += 4 - column % 4;
		else
			column += n ? mpsfix_text_char_width(cp) : 1; /* CJK: 2, as ruff's E501 counts */
		i += n ? n : 1;
	}
	return column - start;
}

/* ---- tokens -------------------------------------------------------------------- */

static void classify(tok *t, const char *type, TSNode parent)
{
	const char *pt = ts_node_is_null(parent) ? "" : ts_node_type(parent);

	if (!strcmp(type, "(") || !strcmp(type, "[") || !strcmp(type, "{")) {
		t->kind = TOK_OPEN;
	} else if (!strcmp(type, ")") || !strcmp(type, "]") || !strcmp(type, "}")) {
		t->kind = TOK_CLOSE;
	} else if (!strcmp(type, ",")) {
		t->kind = TOK_COMMA;
		if (strcmp(pt, "lambda_parameters") != 0)
			t->prio = PRIO_COMMA;
		t->op = !strcmp(pt, "expression_list");
	} else if (!strcmp(type, "comment")) {
		t->kind = TOK_COMMENT;
	} else if ((!strcmp(type, "if") || !strcmp(type, "else")) && !strcmp(pt, "conditional_expression")) {
		t->prio = PRIO_TERNARY;
		t->op = true;
	} else if ((!strcmp(type, "and") || !strcmp(type, "or")) && !strcmp(pt, "boolean_operator")) {
		t->prio = PRIO_LOGIC;
		t->op = true;
	} else if ((!strcmp(type, "for") || !strcmp(type, "async")) && !strcmp(pt, "for_in_clause")) {
		t->prio = PRIO_COMPREHENSION;
	} else if (!strcmp(type, "if") && !strcmp(pt, "if_clause")) {
		t->prio = PRIO_COMPREHENSION;
	} else if ((!strcmp(pt, "assignment") && !strcmp(type, "=")) || !strcmp(pt, "augmented_assignment")) {
		t->kind = TOK_ASSIGN;
	} else if ((!strcmp(type, "return") && !strcmp(pt, "return_statement")) ||
		   (!strcmp(type, "if") && !strcmp(pt, "if_statement")) ||
		   (!strcmp(type, "elif") && !strcmp(pt, "elif_clause")) ||
		   (!strcmp(type, "while") && !strcmp(pt, "while_statement"))) {
		t->kind = TOK_KEYWORD;
	} else if (!strcmp(type, ":") && !ts_node_is_null(parent) &&
		   (!ts_node_is_null(ts_node_child_by_field_name(parent, "body", 4)) ||
		    !ts_node_is_null(ts_node_child_by_field_name(parent, "consequence", 11)))) {
		t->kind = TOK_COLON;
	} else if (!strcmp(pt, "binary_operator") || !strcmp(pt, "comparison_operator") ||
		   !strcmp(pt, "not_operator")) {
		t->op = true; /* the operator: the leaves of its operands have other parents */
	}
}

/*
 * The leaves of `root` in [from, to), a string as one token.  False when a
 * leaf crosses the range's edges (a string of several lines), or the range
 * holds a syntax error.
 */
static bool is_statement_parent(TSNode n)
{
	return is(n, "module") || is(n, "block");
}

static bool collect(wctx *w, TSNode root, uint32_t from, uint32_t to)
{
	TSTreeCursor c = ts_tree_cursor_new(root);
	bool ok = true;

	w->path.len = 0;
	w->stmt = (TSNode){0};
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
		bool descend = false;

		if (s >= to && ts_node_end_byte(n) > s) {
			/* this node and its later siblings come after the line */
			if (!ts_tree_cursor_goto_parent(&c))
				goto out;
			w->path.len--;
		} else if (e <= from) {
			/* before the line */
		} else if (ts_node_is_error(n) || ts_node_is_missing(n)) {
			ok = false;
			break;
		} else if (ts_node_child_count(n) == 0 || is(n, "string")) {
			tok t = {.s = s, .e = e, .pair = -1, .kind = TOK_OTHER, .node = n};

			if (w->path.len)
				t.parent = w->path.items[w->path.len - 1];

			if (s < from || e > to) {
				ok = false;
				break;
			}
			classify(&t, ts_node_type(n), t.parent);
			if (!w->toks.len)
				for (size_t k = 1; k <= w->path.len; k++) {
					TSNode st = k < w->path.len ? w->path.items[k] : n;

					if (is_statement_parent(w->path.items[k - 1]) && !is_statement_parent(st)) {
						w->stmt = st; /* the innermost statement around it */
					}
				}
			ARRAY_PUSH(&w->toks, t);
		} else {
			descend = true;
		}
		/* (straight to the first child that reaches the line: lines
		 * deep in a long file cost no walk over what comes before) */
		if (descend && ts_tree_cursor_goto_first_child_for_byte(&c, from) >= 0) {
			ARRAY_PUSH(&w->path, n);
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c))
				goto out;
			w->path.len--;
		}
	}
out:
	ts_tree_cursor_delete(&c);
	return ok;
}

/* Depths and bracket pairs; `async for` breaks before `async` only. */
static void settle(wctx *w)
{
	ARRAY(int) stack = {0};
	int depth = 0;

	for (size_t i = 0; i < w->toks.len; i++) {
		tok *t = &w->toks.items[i];

		if (t->kind == TOK_OPEN) {
			t->depth = depth++;
			ARRAY_PUSH(&stack, (int)i);
		} else if (t->kind == TOK_CLOSE) {
			t->depth = --depth;
			if (stack.len && w->toks.items[stack.items[stack.len - 1]].depth == depth) {
				int o = stack.items[--stack.len];

				t->pair = o;
				w->toks.items[o].pair = (int)i;
			}
		} else {
			t->depth = depth;
		}
		if (i > 0 && t->prio == PRIO_COMPREHENSION && !strcmp(ts_node_type(t->node), "for") &&
		    !strcmp(ts_node_type(w->toks.items[i - 1].node), "async"))
			t->prio = PRIO_NONE;
	}
	free(stack.items);
}

/* ---- lines --------------------------------------------------------------------- */

static const tok *T(const wctx *w, uint32_t i)
{
	return &w->toks.items[i];
}

static uint32_t indent_width(const wctx *w, const wline *ln)
{
	uint32_t col = mpsfix_wrap_width(ln->base, ln->base_len, 0);

	for (unsigned k = 0; k < ln->steps; k++)
		col += mpsfix_wrap_width(w->step, w->step_len, col);
	return col;
}

static uint32_t width(const wctx *w, const wline *ln)
{
	uint32_t col = indent_width(w, ln);

	col += mpsfix_wrap_width(ln->pre, strlen(ln->pre), col);
	if (ln->a < ln->b)
		col += mpsfix_wrap_width(w->s + T(w, ln->a)->s, T(w, ln->b - 1)->e - T(w, ln->a)->s, col);
	col += mpsfix_wrap_width(ln->post, strlen(ln->post), col);
	return col;
}

static bool fits(const wctx *w, const wline *ln)
{
	return width(w, ln) <= w->limit;
}

static wline part(const wline *ln, uint32_t a, uint32_t b)
{
	wline p = *ln;

	p.a = a;
	p.b = b;
	p.pre = "";
	p.post = "";
	p.body = false;
	return p;
}

/* Can a trailing comma follow the last element of the brackets whose opening bracket's parent this is? */
static bool comma_may_follow(TSNode parent)
{
	static const char *const kinds[] = {
		"argument_list", "list", "set", "dictionary", "tuple", "parameters",
		"import_from_statement",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(kinds); i++)
		if (is(parent, kinds[i]))
			return true;
	return false;
}

/* The last token before a trailing comment. */
static uint32_t code_end(const wctx *w, const wline *ln)
{
	uint32_t b = ln->b;

	if (b > ln->a && T(w, b - 1)->kind == TOK_COMMENT)
		b--;
	return b;
}

/*
 * The value a statement line may put in parentheses to break it: after the
 * last `=` of an assignment, after `return`, the test of `if`/`elif`/
 * `while`.  Sets [*v0, *v1) and returns true when there is one worth it.
 */
static bool value_of(const wctx *w, const wline *ln, uint32_t *v0, uint32_t *v1)
{
	uint32_t end = code_end(w, ln), start = 0;
	bool found = false;

	if (ln->inside || end <= ln->a)
		return false;
	if (T(w, ln->a)->kind == TOK_KEYWORD) {
		start = ln->a + 1;
		found = true;
	}
	for (uint32_t i = ln->a; i < end; i++)
		if (T(w, i)->kind == TOK_ASSIGN && T(w, i)->depth == ln->d0) {
			start = i + 1;
			found = true;
		}
	if (found && end > start && T(w, end - 1)->kind == TOK_COLON)
		end--;
	/* a line of several statements: the value ends at the next `;` */
	for (uint32_t i = start; found && i < end; i++)
		if (T(w, i)->depth == ln->d0 && !strcmp(ts_node_type(T(w, i)->node), ";"))
			end = i;
	if (!found || end < start + 2)
		return false;
	if (T(w, start)->kind == TOK_OPEN && T(w, start)->pair == (int)end - 1)
		return false; /* in parentheses already */
	*v0 = start;
	*v1 = end;
	return true;
}

static bool has_operator(const wctx *w, uint32_t a, uint32_t b, int depth)
{
	for (uint32_t i = a; i < b; i++)
		if (T(w, i)->op && T(w, i)->depth == depth)
			return true;
	return false;
}

static void transform(wctx *w, wline ln, unsigned level);

/*
 * The closing bracket of the line's last pair at its own depth (with
 * something inside) whose line before and line after then fit, or -1;
 * `*fallback`: the last such pair whatever fits, or -1.
 */
static int bracket_pair(const wctx *w, const wline *ln, int *fallback)
{
	*fallback = -1;
	for (uint32_t i = code_end(w, ln); i-- > ln->a;) {
		const tok *c = T(w, i);
		wline h, t;

		if (c->kind != TOK_CLOSE || c->depth != ln->d0 || c->pair < (int)ln->a ||
		    (uint32_t)c->pair + 1 == i)
			continue;
		if (*fallback < 0)
			*fallback = (int)i;
		h = part(ln, ln->a, (uint32_t)c->pair + 1);
		h.pre = ln->pre;
		t = part(ln, i, ln->b);
		t.post = ln->post;
		if (fits(w, &h) && fits(w, &t))
			return (int)i;
	}
	return -1;
}

/*
 * Break the line at its last bracket pair (or at parentheses put around its
 * value): the part before with the opening bracket, the contents one step
 * deeper, the closing bracket and what follows.  False when it has none.
 */
static bool right_hand_split(wctx *w, const wline *ln, unsigned level)
{
	uint32_t v0 = 0, v1 = 0;
	bool value = value_of(w, ln, &v0, &v1);
	int best = -1, fallback = -1;
	wline head, body, tail;

	if (!(value && has_operator(w, v0, v1, ln->d0))) {
		best = bracket_pair(w, ln, &fallback);
		if (best < 0 && !value)
			best = fallback;
	}
	if (best < 0 && !value)
		return false;
	if (best >= 0) {
		uint32_t c = (uint32_t)best, o = (uint32_t)T(w, c)->pair;

		head = part(ln, ln->a, o + 1);
		body = part(ln, o + 1, c);
		tail = part(ln, c, ln->b);
		body.comma_ok = comma_may_follow(T(w, o)->parent);
	} else {
		bool space = T(w, v0)->s > T(w, v0 - 1)->e;

		head = part(ln, ln->a, v0);
		head.post = space ? " (" : "(";
		body = part(ln, v0, v1);
		tail = part(ln, v1, ln->b);
		tail.pre = ")";
		body.comma_ok = true; /* a comma is added only after a tuple's elements */
	}
	head.pre = ln->pre;
	tail.post = ln->post;
	body.steps++;
	body.d0 = ln->d0 + 1;
	if (best < 0)
		body.d0 = ln->d0;
	body.inside = true;
	body.body = true;
	transform(w, head, level + 1);
	transform(w, body, level + 1);
	if (tail.a < tail.b || tail.pre[0])
		transform(w, tail, level + 1);
	return true;
}

/* The first token of the line at a depth below its own (a bracket it does not open). */
static uint32_t elements_end(const wctx *w, const wline *ln)
{
	for (uint32_t i = ln->a; i < ln->b; i++)
		if (T(w, i)->depth < ln->d0)
			return i;
	return ln->b;
}

/*
 * The pieces of a line inside brackets, broken at its strongest delimiter;
 * the priority used, or PRIO_NONE (then *n is 0).
 */
static int pieces_of(const wctx *w, const wline *ln, wline **out, size_t *n)
{
	uint32_t end = elements_end(w, ln), start = ln->a;
	int top = PRIO_NONE;
	ARRAY(wline) v = {0};

	uint32_t last = end;

	*n = 0;
	*out = NULL;
	while (last > ln->a && T(w, last - 1)->kind == TOK_COMMENT)
		last--;
	if (last > ln->a && T(w, last - 1)->kind == TOK_COMMA)
		last--; /* an element's own trailing comma is no place to break */
	for (uint32_t i = ln->a; i < last; i++)
		if (T(w, i)->depth == ln->d0 && T(w, i)->prio > top)
			top = T(w, i)->prio;
	if (top == PRIO_NONE)
		return PRIO_NONE;
	for (uint32_t i = ln->a; i < last; i++) {
		if (T(w, i)->depth != ln->d0 || T(w, i)->prio != top)
			continue;
		if (top == PRIO_COMMA) {
			ARRAY_PUSH(&v, part(ln, start, i + 1));
			start = i + 1;
		} else if (i > start) {
			ARRAY_PUSH(&v, part(ln, start, i));
			start = i;
		}
	}
	if (start < ln->b) {
		if (start + 1 == ln->b && T(w, start)->kind == TOK_COMMENT && v.len)
			v.items[v.len - 1].b = ln->b; /* a comment stays with the code before it */
		else
			ARRAY_PUSH(&v, part(ln, start, ln->b));
	}
	if (v.len < 2) {
		free(v.items);
		return PRIO_NONE;
	}
	v.items[0].pre = ln->pre;
	v.items[v.len - 1].post = ln->post;
	*out = v.items;
	*n = v.len;
	return top;
}

/* Break a line inside brackets at its strongest delimiter; false when it has none. */
static bool delimiter_split(wctx *w, const wline *ln, unsigned level)
{
	wline *v;
	size_t n;
	int top = pieces_of(w, ln, &v, &n);

	if (top == PRIO_NONE)
		return false;
	if (top == PRIO_COMMA && ln->body && ln->comma_ok && !ln->post[0]) {
		wline *last = &v[n - 1];
		uint32_t end = code_end(w, last);

		if (end > last->a && T(w, end - 1)->kind != TOK_COMMA &&
		    !is(T(w, end - 1)->parent, "dictionary_splat") &&
		    !is(T(w, end - 1)->parent, "list_splat"))
			last->post = ",";
	}
	for (size_t i = 0; i < n; i++)
		transform(w, v[i], level + 1);
	free(v);
	return true;
}

static void transform(wctx *w, wline ln, unsigned level)
{
	if (level < 48 && !fits(w, &ln)) {
		if (ln.inside && delimiter_split(w, &ln, level))
			return;
		if (right_hand_split(w, &ln, level))
			return;
	}
	ARRAY_PUSH(&w->out, ln);
}

/*
 * A line of a statement that spans several: its elements broken at their
 * commas, as many a line as fit.  After an opening bracket the line leaves
 * open, they go on at `cont` (the indentation of the statement's next
 * line); else at the line's own.
 */
static void pack(wctx *w, const wline *ln, const char *cont, size_t cont_len)
{
	uint32_t open = ln->b;
	int depth = 0;
	wline elems = *ln, *v, cur;
	size_t n;

	for (uint32_t i = ln->a; i < ln->b; i++)
		if (T(w, i)->kind == TOK_OPEN && T(w, i)->pair < 0)
			open = i, depth = T(w, i)->depth + 1;
	elems.inside = true;
	if (open < ln->b) {
		elems.a = open + 1;
		elems.d0 = depth;
	}
	v = NULL;
	if (elems.a >= elems.b || pieces_of(w, &elems, &v, &n) != PRIO_COMMA) {
		free(v); /* (pieces at another delimiter: the line is split below instead) */
		if (open >= ln->b) {
			wline whole = *ln;

			whole.inside = true;
			transform(w, whole, 0);
		} else {
			ARRAY_PUSH(&w->out, *ln);
		}
		return;
	}
	cur = part(ln, ln->a, v[0].b);
	if (open < ln->b && !fits(w, &cur)) {
		/* the opening bracket ends the first line, the elements go on below */
		ARRAY_PUSH(&w->out, part(ln, ln->a, open + 1));
		cur = part(&v[0], v[0].a, v[0].b);
		cur.base = cont;
		cur.base_len = cont_len;
		cur.steps = 0;
	}
	for (size_t i = 1; i <= n; i++) {
		wline more = cur;

		if (i < n) {
			more.b = v[i].b;
			if (fits(w, &more)) {
				cur = more;
				continue;
			}
		}
		if (!fits(w, &cur) && cur.a >= elems.a)
			transform(w, cur, 0);
		else
			ARRAY_PUSH(&w->out, cur);
		if (i < n) {
			cur = part(&v[i], v[i].a, v[i].b);
			if (open < ln->b) {
				cur.base = cont;
				cur.base_len = cont_len;
				cur.steps = 0;
			}
		}
	}
	free(v);
}

/* ---- one line ------------------------------------------------------------------- */

/* Where a compound statement's header ends (the end of its `:`), else its end. */
static uint32_t header_end(TSNode stmt)
{
	TSNode body = ts_node_child_by_field_name(stmt, "body", 4);

	if (ts_node_is_null(body))
		body = ts_node_child_by_field_name(stmt, "consequence", 11);
	if (!ts_node_is_null(body)) {
		TSNode colon = ts_node_prev_sibling(body);

		while (!ts_node_is_null(colon) && ts_node_is_extra(colon))
			colon = ts_node_prev_sibling(colon);
		if (is(colon, ":"))
			return ts_node_end_byte(colon);
	}
	return ts_node_end_byte(stmt);
}

static void render(const wctx *w, const char *nl, mpsfix_buf *b)
{
	for (size_t k = 0; k < w->out.len; k++) {
		const wline *ln = &w->out.items[k];
		uint32_t end = code_end(w, ln);

		if (k > 0) {
			mpsfix_buf_adds(b, nl);
			mpsfix_buf_add(b, ln->base, ln->base_len);
			for (unsigned i = 0; i < ln->steps; i++)
				mpsfix_buf_add(b, w->step, w->step_len);
		}
		mpsfix_buf_adds(b, ln->pre);
		if (end > ln->a)
			mpsfix_buf_add(b, w->s + T(w, ln->a)->s, T(w, end - 1)->e - T(w, ln->a)->s);
		mpsfix_buf_adds(b, ln->post);
		if (end < ln->b) {
			uint32_t from = end > ln->a ? T(w, end - 1)->e : T(w, end)->s;

			if (end == ln->a && ln->pre[0])
				mpsfix_buf_adds(b, "  "); /* `)  # comment`, as ruff's formatter writes it */
			mpsfix_buf_add(b, w->s + from, T(w, ln->b - 1)->e - from);
		}
	}
}

/*
 * A line that holds more than one statement (`if ok: x = f(a, b)`,
 * `a = f(c); b = 2`): the code before and after a bracket pair cannot move
 * to lines of its own without more than line breaks, so only a bracket
 * pair is broken, its contents one step deeper than the line: the last one
 * whose first and last lines then fit, else the last one.  False when the
 * line has no pair with something inside.
 */
static bool shared_split(wctx *w, const wline *ln)
{
	int fallback, best = bracket_pair(w, ln, &fallback);
	wline head, body, tail;
	uint32_t o;

	if (best < 0 && (best = fallback) < 0)
		return false;
	o = (uint32_t)T(w, (uint32_t)best)->pair;
	head = part(ln, ln->a, o + 1);
	head.pre = ln->pre;
	body = part(ln, o + 1, (uint32_t)best);
	body.comma_ok = comma_may_follow(T(w, o)->parent);
	body.steps++;
	body.d0 = ln->d0 + 1;
	body.inside = true;
	body.body = true;
	tail = part(ln, (uint32_t)best, ln->b);
	tail.post = ln->post;
	ARRAY_PUSH(&w->out, head);
	transform(w, body, 1);
	transform(w, tail, 1); /* (a value in it ends at its `;`: value_of()) */
	return true;
}

static bool wrap_line(wctx *w, const mpsfix_source *src, TSNode root, uint32_t line,
		      mpsfix_edits *edits, uint32_t group)
{
	mpsfix_span span = mpsfix_source_line(src, line);
	uint32_t cs = mpsfix_indent_end(src->data, (uint32_t)src->len, span.start), ss, se;
	TSNode stmt;
	wline ln = {0};
	mpsfix_buf text = MPSFIX_BUF_INIT;
	bool changed = false, shared = false;

	w->toks.len = 0;
	w->out.len = 0;
	if (mpsfix_wrap_width(src->data + span.start, span.end - span.start, 0) <= w->limit)
		return false;
	if (!collect(w, root, cs, span.end) || !w->toks.len || T(w, 0)->kind == TOK_COMMENT)
		return false;
	settle(w);
	stmt = w->stmt;
	if (ts_node_is_null(stmt))
		return false;
	ss = ts_node_start_byte(stmt);
	se = header_end(stmt);
	ln = (wline){0, (uint32_t)w->toks.len, src->data + span.start, cs - span.start, 0, 0,
		     false, false, false, "", ""};
	for (size_t i = 0; i < w->toks.len && !shared; i++)
		shared = T(w, (uint32_t)i)->kind != TOK_COMMENT &&
			 (T(w, (uint32_t)i)->s < ss || T(w, (uint32_t)i)->e > se);
	if (shared) {
		/* another statement, or the body, shares the line */
		if (ss < span.start || !shared_split(w, &ln))
			return false;
	} else if (ss >= span.start && se <= span.end) {
		transform(w, ln, 0);
	} else {
		mpsfix_span next = {0, 0};
		uint32_t next_line = mpsfix_source_line_of(src, se) > line ? line + 1 : line;
		const char *cont = ln.base;
		size_t cont_len = ln.base_len;

		if (next_line != line) {
			next = mpsfix_source_line(src, next_line);
			cont = src->data + next.start;
			cont_len = mpsfix_indent_end(src->data, (uint32_t)src->len, next.start) - next.start;
		}
		pack(w, &ln, cont, cont_len);
	}
	if (w->out.len > 1) {
		render(w, mpsfix_source_newline_at(src, cs), &text);
		mpsfix_edits_add(edits, cs, T(w, (uint32_t)w->toks.len - 1)->e, text.data, text.len, group);
		changed = true;
	}
	mpsfix_buf_release(&text);
	return changed;
}

size_t mpsfix_wrap_lines(const mpsfix_source *src, TSNode root, const mpsfix_span *changed, size_t n,
			 uint32_t limit, mpsfix_edits *edits, uint32_t group)
{
	wctx w = {.s = src->data, .limit = limit, .step = "    ", .step_len = 4};
	mpsfix_span step;
	uint32_t last = 0;
	size_t count = 0;
	bool any = false;

	if (mpsfix_indent_step(root, src->data, (uint32_t)src->len, &step)) {
		w.step = src->data + step.start;
		w.step_len = step.end - step.start;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t first = mpsfix_source_line_of(src, changed[i].start);
		uint32_t end = mpsfix_source_line_of(src, changed[i].end > changed[i].start ?
							changed[i].end - 1 : changed[i].start);

		for (uint32_t line = first; line <= end; line++) {
			if (any && line <= last)
				continue;
			any = true;
			last = line;
			count += wrap_line(&w, src, root, line, edits, group);
		}
	}
	free(w.toks.items);
	free(w.out.items);
	free(w.path.items);
	return count;
}
