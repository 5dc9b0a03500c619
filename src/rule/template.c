/*
 * template.c: rendering a fix from the bytes a match bound.
 */
#include "template.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "pattern_internal.h"

#define PREC_PRIMARY 16

typedef struct {
	char *name;          /* without '$' (owned) */
	bool multi;
	mpsfix_span span;    /* of the metavariable in the template text */
	int min_prec;        /* a bound expression below this needs parentheses */
	const char *container; /* the list it is an element of: "argument_list", "list", ... or NULL */
	bool positional_after; /* in an argument list, followed by something not `k=v`/`**k` */
	bool attr_head;      /* the object of an attribute: `1.x` needs `(1).x` */
	mpsfix_span elem;    /* the list element it is: itself, or the `k=$v` holding it */
	bool in_list;        /* elem is an element of a list or of call arguments */
	bool has_before;     /* an empty $$$: the comma before it, and the space */
	mpsfix_span before;  /*   up to the metavariable, can go with it ... */
	bool has_after;      /* ... or the comma after it and the space up to */
	mpsfix_span after;   /*   the next item */
	struct {
		uint32_t at;     /* a conditional expression around it (its offset) */
		int branch;      /* 0 the value if true, 1 the condition, 2 the value if false */
	} cond[4];           /* the innermost ones */
	int ncond;
} tmpl_var;

typedef struct {
	mpsfix_span span;    /* of the dotted name in the template text */
	char *name;          /* "torch.cuda.is_available" (owned) */
} tmpl_qname;

struct mpsfix_template {
	tmpl_qname *qnames;  /* dotted names, in text order: spelled with the file's aliases */
	size_t nqnames;
	char *text;
	size_t len;
	tmpl_var *vars;      /* in text order */
	size_t nvars;
	int root_prec;       /* precedence of the template's own top expression */
	int root_var;        /* the template is exactly one metavariable: its index, else -1 */
	bool root_splat;     /* its top expression is `*x` or `**x` */
	int root_parens;     /* its top expression is in parentheses: 1 a tuple `(a, b)`,
				2 another expression `(a if c else b)`; 0 neither */
	bool statements;     /* several statements, or a compound one: owns whole lines */
	mpsfix_span *strings; /* string literals of the template: no re-indenting inside */
	size_t nstrings;
	mpsfix_span step;    /* the template's own indentation step: the blanks that start
				its first indented line (empty: none) */
};

static bool is(TSNode n, const char *type)
{
	return strcmp(ts_node_type(n), type) == 0;
}

static int binary_op_prec(const char *op, size_t n)
{
	static const struct {
		const char *op;
		int prec;
	} ops[] = {
		{"|", 6}, {"^", 7}, {"&", 8}, {"<<", 9}, {">>", 9}, {"+", 10}, {"-", 10},
		{"*", 11}, {"/", 11}, {"//", 11}, {"%", 11}, {"@", 11}, {"**", 13},
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(ops); i++)
		if (strlen(ops[i].op) == n && !memcmp(ops[i].op, op, n))
			return ops[i].prec;
	return PREC_PRIMARY;
}

static int operator_prec(TSNode node, const char *src)
{
	TSNode op = ts_node_child_by_field_name(node, "operator", 8);
	uint32_t s, e;

	if (ts_node_is_null(op))
		return PREC_PRIMARY;
	s = ts_node_start_byte(op);
	e = ts_node_end_byte(op);
	if (is(node, "boolean_operator"))
		return (e - s == 2 && !memcmp(src + s, "or", 2)) ? 2 : 3;
	return binary_op_prec(src + s, e - s);
}

int mpsfix_expr_precedence(TSNode node, const char *src)
{
	const char *t = ts_node_type(node);

	if (!strcmp(t, "named_expression") || !strcmp(t, "expression_list") ||
	    !strcmp(t, "yield") || !strcmp(t, "list_splat") || !strcmp(t, "dictionary_splat"))
		return -1;
	if (!strcmp(t, "lambda"))
		return 0;
	if (!strcmp(t, "conditional_expression"))
		return 1;
	if (!strcmp(t, "boolean_operator") || !strcmp(t, "binary_operator"))
		return operator_prec(node, src);
	if (!strcmp(t, "not_operator"))
		return 4;
	if (!strcmp(t, "comparison_operator"))
		return 5;
	if (!strcmp(t, "unary_operator"))
		return 12;
	if (!strcmp(t, "await"))
		return 14;
	return PREC_PRIMARY;
}

/*
 * The precedence an expression must have to stand as `child` of its parent
 * without parentheses.
 */
static int slot_prec(TSNode child, const char *src)
{
	TSNode parent = ts_node_parent(child);
	const char *pt;
	bool left;

	if (ts_node_is_null(parent))
		return 0;
	pt = ts_node_type(parent);
	left = ts_node_eq(ts_node_child_by_field_name(parent, "left", 4), child) ||
	       ts_node_eq(ts_node_child_by_field_name(parent, "argument", 8), child);
	if (!strcmp(pt, "binary_operator")) {
		int q = operator_prec(parent, src);

		if (q == 13) /* ** is right-associative; its right side may be unary */
			return left ? 14 : 12;
		return left ? q : q + 1;
	}
	if (!strcmp(pt, "boolean_operator")) {
		int q = operator_prec(parent, src);

		return left ? q : q + 1;
	}
	if (!strcmp(pt, "unary_operator"))
		return 12;
	if (!strcmp(pt, "not_operator"))
		return 4;
	if (!strcmp(pt, "comparison_operator"))
		return 6;
	if (!strcmp(pt, "conditional_expression")) {
		/* a if b else c: a and b need more than a conditional, c does not */
		TSNode last = ts_node_child_by_field_name(parent, "alternative", 11);
		uint32_t n = ts_node_named_child_count(parent);

		/* older grammars have no field: the last named child that is not a comment */
		while (ts_node_is_null(last) && n > 0) {
			TSNode c = ts_node_named_child(parent, --n);

			if (!ts_node_is_extra(c))
				last = c;
		}
		return ts_node_eq(last, child) ? 1 : 2;
	}
	if (!strcmp(pt, "attribute") || !strcmp(pt, "call") || !strcmp(pt, "subscript")) {
		TSNode head = ts_node_named_child(parent, 0);

		return ts_node_eq(head, child) ? PREC_PRIMARY : 0;
	}
	if (!strcmp(pt, "await"))
		return PREC_PRIMARY;
	if (!strcmp(pt, "list_splat") || !strcmp(pt, "dictionary_splat"))
		return 6;
	if (!strcmp(pt, "for_in_clause")) {
		/* `for x in <or-expression>` */
		TSNode right = ts_node_child_by_field_name(parent, "right", 5);

		return ts_node_eq(right, child) ? 2 : 0;
	}
	if (!strcmp(pt, "if_clause"))
		return 2;
	if (!strcmp(pt, "interpolation"))
		return 1; /* f"{lambda: 0}" does not parse */
	return 0;
}

static bool is_splat(TSNode n)
{
	return is(n, "list_splat") || is(n, "dictionary_splat") || is(n, "keyword_argument");
}

static bool is_comma(TSNode n)
{
	return !ts_node_is_null(n) && !ts_node_is_named(n) && is(n, ",");
}

typedef struct {
	mpsfix_template *t;
	const char *text2;
	const mpsfix_offset_map *map;
} tcompiler;

typedef ARRAY(tmpl_var) var_list;

typedef struct {
	tcompiler *c;
	var_list vars;
	ARRAY(mpsfix_span) strings;
	ARRAY(tmpl_qname) qnames;
} var_scan;

/* `a.b.c` of plain identifiers (no metavariable): its dotted text. */
static bool dotted(TSNode n, const char *text2, mpsfix_buf *out)
{
	static const char mu[3] = {'\xc2', '\xb5', 0};

	return mpsfix_dotted_name(n, text2, out) && !strstr(out->data, mu);
}

static mpsfix_walk_action collect_var(TSNode n, void *payload)
{
	var_scan *vs = payload;
	tcompiler *c = vs->c;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	TSNode slot = n, before, after;
	const char *name;
	size_t nlen;
	bool multi;
	tmpl_var v;

	if (is(n, "string")) {
		ARRAY_PUSH(&vs->strings, ((mpsfix_span){c->map->map[s], c->map->map[e]}));
		return MPSFIX_WALK_DESCEND; /* f-strings hold metavariables too */
	}
	if (is(n, "attribute")) {
		mpsfix_buf d = MPSFIX_BUF_INIT;

		if (dotted(n, c->text2, &d)) {
			ARRAY_PUSH(&vs->qnames, ((tmpl_qname){
				.span = {c->map->map[s], c->map->map[e]},
				.name = mpsfix_buf_detach(&d, NULL),
			}));
			return MPSFIX_WALK_SKIP;
		}
		mpsfix_buf_release(&d);
		return MPSFIX_WALK_DESCEND;
	}
	if (!is(n, "identifier") ||
	    !mpsfix_pattern__metavar_ident(c->text2 + s, e - s, &name, &nlen, &multi))
		return MPSFIX_WALK_DESCEND;
	v = (tmpl_var){
		.name = mpsfix_xstrndup(name, nlen),
		.multi = multi,
		.span = {c->map->map[s], c->map->map[e]},
	};
	/* a $$$X statement sits in an expression_statement */
	if (is(ts_node_parent(n), "expression_statement") &&
	    ts_node_named_child_count(ts_node_parent(n)) == 1)
		slot = ts_node_parent(n);
	v.min_prec = slot_prec(slot, c->text2);
	{
		TSNode parent = ts_node_parent(slot);
		static const char *const lists[] = {
			"argument_list", "list", "tuple", "set", "expression_list", "dictionary",
		};

		for (size_t k = 0; !ts_node_is_null(parent) && k < MPSFIX_ARRAY_SIZE(lists); k++)
			if (is(parent, lists[k]))
				v.container = lists[k];
		if (is(parent, "argument_list"))
			for (TSNode sib = ts_node_next_named_sibling(slot); !ts_node_is_null(sib);
			     sib = ts_node_next_named_sibling(sib))
				if (!ts_node_is_extra(sib) && !is(sib, "keyword_argument") &&
				    !is(sib, "dictionary_splat"))
					v.positional_after = true;
		v.attr_head = !ts_node_is_null(parent) && is(parent, "attribute") &&
			      ts_node_eq(ts_node_named_child(parent, 0), slot);
	}
	/* a signature parameter that was not passed takes its element away:
	 * `dim=$dim` as a whole */
	{
		TSNode parent = ts_node_parent(slot);

		if (!multi && !ts_node_is_null(parent) && is(parent, "keyword_argument") &&
		    ts_node_eq(ts_node_child_by_field_name(parent, "value", 5), slot))
			slot = parent;
		parent = ts_node_parent(slot);
		v.in_list = !ts_node_is_null(parent) &&
			    (is(parent, "argument_list") || is(parent, "list") || is(parent, "tuple") ||
			     is(parent, "set") || is(parent, "expression_list"));
		v.elem = (mpsfix_span){c->map->map[ts_node_start_byte(slot)], c->map->map[ts_node_end_byte(slot)]};
	}
	for (TSNode child = n, a = ts_node_parent(n); !ts_node_is_null(a) && v.ncond < 4;
	     child = a, a = ts_node_parent(a)) {
		if (!is(a, "conditional_expression"))
			continue;
		v.cond[v.ncond].at = ts_node_start_byte(a);
		v.cond[v.ncond].branch = 1;
		for (uint32_t k = 0; k < 3; k++)
			if (ts_node_eq(ts_node_named_child(a, k), child))
				v.cond[v.ncond].branch = (int)k;
		v.ncond++;
	}
	before = mpsfix_prev_token(slot);
	after = mpsfix_next_token(slot);
	if (is_comma(before)) {
		v.has_before = true;
		v.before = (mpsfix_span){c->map->map[ts_node_start_byte(before)], v.elem.start};
	}
	if (is_comma(after)) {
		TSNode next = mpsfix_next_token(after);
		uint32_t end = ts_node_is_null(next) ? ts_node_end_byte(after) : ts_node_start_byte(next);

		v.has_after = true;
		v.after = (mpsfix_span){v.elem.end, c->map->map[end]};
	}
	ARRAY_PUSH(&vs->vars, v);
	return MPSFIX_WALK_SKIP;
}

static bool in_string(const mpsfix_template *t, size_t at);

/* The blanks that start the template's first indented line (outside strings). */
static void find_step(mpsfix_template *t)
{
	for (size_t i = 0; i < t->len; i++) {
		size_t j = i + 1;

		if (t->text[i] != '\n' || in_string(t, i))
			continue;
		while (j < t->len && (t->text[j] == ' ' || t->text[j] == '\t'))
			j++;
		if (j > i + 1 && j < t->len && t->text[j] != '\n' && t->text[j] != '\r') {
			t->step = (mpsfix_span){(uint32_t)(i + 1), (uint32_t)j};
			return;
		}
	}
}

static void collect_vars(tcompiler *c, TSNode root)
{
	var_scan vs = {.c = c};

	mpsfix_walk(root, collect_var, &vs);
	c->t->vars = vs.vars.items;
	c->t->nvars = vs.vars.len;
	c->t->strings = vs.strings.items;
	c->t->nstrings = vs.strings.len;
	c->t->qnames = vs.qnames.items;
	c->t->nqnames = vs.qnames.len;
}

int mpsfix_template_compile(mpsfix_template **out, TSParser *parser,
			    const char *text, size_t len, uint32_t *err_offset)
{
	mpsfix_snippet sn = {0};
	mpsfix_template *t = mpsfix_xcalloc(1, sizeof(*t));
	TSNode root, top = {0};
	uint32_t count = 0;
	int error;

	*out = NULL;
	/* a template ends where the replaced code ended: trailing blanks and
	 * line breaks (YAML block scalars end with one) are not part of it */
	while (len && strchr(" \t\r\n", text[len - 1]))
		len--;
	t->text = mpsfix_xstrndup(text, len);
	t->len = len;
	t->root_var = -1;
	if ((error = mpsfix_pattern__snippet_parse(&sn, parser, text, len, err_offset)) < 0)
		goto done;
	root = ts_tree_root_node(sn.tree);
	collect_vars(&(tcompiler){.t = t, .text2 = sn.text.data, .map = &sn.map}, root);
	find_step(t);
	t->root_prec = PREC_PRIMARY;
	for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
		TSNode child = ts_node_named_child(root, i);

		if (!ts_node_is_extra(child)) {
			top = child;
			count++;
		}
	}
	t->statements = count > 1 || (count == 1 && !is(top, "expression_statement"));
	if (count == 1 && is(top, "expression_statement") && ts_node_named_child_count(top) == 1) {
		TSNode e = ts_node_named_child(top, 0);
		uint32_t s = ts_node_start_byte(e), end = ts_node_end_byte(e);
		const char *name;
		size_t nlen;
		bool multi;

		t->root_prec = mpsfix_expr_precedence(e, sn.text.data);
		t->root_splat = is(e, "list_splat") || is(e, "dictionary_splat");
		if (sn.text.data[s] == '(' && sn.text.data[end - 1] == ')')
			t->root_parens = is(e, "tuple") ? 1 : is(e, "parenthesized_expression") ? 2 : 0;
		if (is(e, "identifier") &&
		    mpsfix_pattern__metavar_ident(sn.text.data + s, end - s, &name, &nlen, &multi) &&
		    t->nvars == 1)
			t->root_var = 0;
	}
	*out = t;
	t = NULL;
done:
	mpsfix_template_free(t);
	mpsfix_pattern__snippet_release(&sn);
	return error;
}

void mpsfix_template_free(mpsfix_template *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nvars; i++)
		free(t->vars[i].name);
	free(t->vars);
	free(t->strings);
	for (size_t i = 0; i < t->nqnames; i++)
		free(t->qnames[i].name);
	free(t->qnames);
	free(t->text);
	free(t);
}

const char *mpsfix_template_text(const mpsfix_template *t)
{
	return t->text;
}

size_t mpsfix_template_qname_count(const mpsfix_template *t)
{
	return t->nqnames;
}

const char *mpsfix_template_qname(const mpsfix_template *t, size_t i)
{
	return t->qnames[i].name;
}

size_t mpsfix_template_metavar_count(const mpsfix_template *t)
{
	return t->nvars;
}

bool mpsfix_template_exclusive(const mpsfix_template *t, size_t a, size_t b)
{
	const tmpl_var *x = &t->vars[a], *y = &t->vars[b];

	for (int i = 0; i < x->ncond; i++)
		for (int j = 0; j < y->ncond; j++)
			if (x->cond[i].at == y->cond[j].at)
				return x->cond[i].branch != 1 && y->cond[j].branch != 1 &&
				       x->cond[i].branch != y->cond[j].branch;
	return false;
}

const char *mpsfix_template_metavar(const mpsfix_template *t, size_t i,
				    bool *multi, uint32_t *offset)
{
	if (multi)
		*multi = t->vars[i].multi;
	if (offset)
		*offset = t->vars[i].span.start;
	return t->vars[i].name;
}

/* ---- rendering ------------------------------------------------------------ */

typedef struct {
	mpsfix_buf *out;
	const char *newline;
	const char *indent;     /* after each line break of the template */
	size_t indent_len;
	const char *step;       /* the file's indentation step, for each of the template's own */
	size_t step_len;
	char *const *spellings; /* of the template's dotted names, or NULL: as written */
	char quote;             /* the file's quote, for the template's plain strings */
} emitter;

static bool in_string(const mpsfix_template *t, size_t at)
{
	for (size_t i = 0; i < t->nstrings; i++)
		if (t->strings[i].start < at && at < t->strings[i].end)
			return true;
	return false;
}

/* How many of the template's indentation steps the blanks [from, to) are; 0
 * when they are not whole steps. */
static size_t step_count(const mpsfix_template *t, size_t from, size_t to)
{
	size_t n = t->step.end - t->step.start, count = 0;

	if (!n || (to - from) % n)
		return 0;
	for (; from < to; from += n, count++)
		if (memcmp(t->text + from, t->text + t->step.start, n))
			return 0;
	return count;
}

/* Template text [from, from+n): line breaks become the file's, and lines
 * start with the replaced code's indentation, each step of the template's
 * own indentation written as the file's step, except inside string literals
 * (whose value must not change). */
/*
 * The template string literal starting at `at` written with `quote`: one
 * in the other quote with nothing in it that would change meaning (that
 * quote, a backslash, a prefix, three quotes).  Returns its length, or 0.
 */
static size_t requote(emitter *em, const mpsfix_template *t, size_t at, size_t limit)
{
	for (size_t k = 0; k < t->nstrings; k++) {
		size_t s = t->strings[k].start, e = t->strings[k].end;
		char other = em->quote == '\'' ? '"' : '\'';

		if (s != at || e > limit || e - s < 2 || t->text[s] != other || t->text[e - 1] != other)
			continue;
		if (e - s >= 6 && t->text[s + 1] == other && t->text[s + 2] == other)
			return 0;
		for (size_t i = s + 1; i + 1 < e; i++)
			if (t->text[i] == em->quote || t->text[i] == '\\' || t->text[i] == '\n')
				return 0;
		mpsfix_buf_addc(em->out, em->quote);
		mpsfix_buf_add(em->out, t->text + s + 1, e - s - 2);
		mpsfix_buf_addc(em->out, em->quote);
		return e - s;
	}
	return 0;
}

static void emit_template(emitter *em, const mpsfix_template *t, size_t from, size_t n)
{
	const char *s = t->text + from;
	size_t q = 0, len;

	for (size_t i = 0; i < n; i++) {
		if (em->quote && (s[i] == '"' || s[i] == '\'') &&
		    (len = requote(em, t, from + i, from + n)) > 0) {
			i += len - 1;
			continue;
		}
		while (q < t->nqnames && t->qnames[q].span.start < from + i)
			q++;
		if (em->spellings && q < t->nqnames && t->qnames[q].span.start == from + i &&
		    t->qnames[q].span.end <= from + n) {
			mpsfix_buf_adds(em->out, em->spellings[q]);
			i = t->qnames[q].span.end - from - 1;
			q++;
			continue;
		}
		if (s[i] == '\n') {
			size_t j = i + 1, steps;

			mpsfix_buf_adds(em->out, em->newline);
			if ((i + 1 < n && (s[i + 1] == '\n' || s[i + 1] == '\r')) || in_string(t, from + i))
				continue;
			mpsfix_buf_add(em->out, em->indent, em->indent_len);
			while (j < n && (s[j] == ' ' || s[j] == '\t'))
				j++;
			if (em->step && (steps = step_count(t, from + i + 1, from + j)) > 0) {
				while (steps--)
					mpsfix_buf_add(em->out, em->step, em->step_len);
				i = j - 1;
			}
		} else {
			mpsfix_buf_addc(em->out, s[i]);
		}
	}
}

static void emit_source(emitter *em, mpsfix_spans *kept, const mpsfix_source *src,
			uint32_t start, uint32_t end)
{
	mpsfix_buf_add(em->out, src->data + start, end - start);
	if (kept && end > start) {
		mpsfix_grow((void **)&kept->items, &kept->cap, kept->len + 1, sizeof(*kept->items));
		kept->items[kept->len++] = (mpsfix_span){start, end};
	}
}

/* Are a and b neighbours in their list (nothing but commas and extras between)? */
static bool adjacent(TSNode a, TSNode b)
{
	TSNode n = ts_node_next_sibling(a);

	while (!ts_node_is_null(n) && (ts_node_is_extra(n) || !ts_node_is_named(n))) {
		if (ts_node_eq(n, b))
			return true;
		n = ts_node_next_sibling(n);
	}
	return !ts_node_is_null(n) && ts_node_eq(n, b);
}

static void emit_multi(emitter *em, mpsfix_spans *kept, const mpsfix_source *src,
		       const TSNode *nodes, uint32_t count)
{
	uint32_t i = 0;

	while (i < count) {
		uint32_t j = i;

		while (j + 1 < count && adjacent(nodes[j], nodes[j + 1]))
			j++;
		if (i > 0)
			mpsfix_buf_adds(em->out, ", ");
		emit_source(em, kept, src, ts_node_start_byte(nodes[i]), ts_node_end_byte(nodes[j]));
		i = j + 1;
	}
}

/*
 * May `*a`, `**k` or `k=v` stand where the template puts `v`?  `k=v` only
 * in call arguments, `**k` there or in a dict, `*a` in any list but a dict;
 * and in call arguments `k=v` and `**k` come after every positional one.
 */
static bool element_fits(const tmpl_var *v, TSNode node, const mpsfix_source *src)
{
	const char *c = v->container;
	bool keyword = is(node, "keyword_argument") || is(node, "dictionary_splat");
	bool fits;

	if (!c)
		fits = false;
	else if (is(node, "keyword_argument"))
		fits = !strcmp(c, "argument_list");
	else if (is(node, "dictionary_splat"))
		fits = !strcmp(c, "argument_list") || !strcmp(c, "dictionary");
	else
		fits = strcmp(c, "dictionary") != 0;
	if (fits && keyword && !strcmp(c, "argument_list") && v->positional_after) {
		mpsfix_error_set(MPSFIX_ERROR, "`%.*s` would come before a positional argument",
				 (int)(ts_node_end_byte(node) - ts_node_start_byte(node)),
				 src->data + ts_node_start_byte(node));
		return false;
	}
	if (!fits)
		mpsfix_error_set(MPSFIX_ERROR, "`%.*s` cannot stand where the template puts $%s%s",
				 (int)(ts_node_end_byte(node) - ts_node_start_byte(node)),
				 src->data + ts_node_start_byte(node), v->multi ? "$$" : "", v->name);
	return fits;
}

static const mpsfix_binding *lookup(const mpsfix_match *m, const char *name)
{
	return mpsfix_match_var(m, name);
}

typedef struct {
	const char *src;
	unsigned single, dbl, seen, visited;
} quote_count;

static mpsfix_walk_action count_quote(TSNode n, void *payload)
{
	quote_count *qc = payload;
	const char *s;
	uint32_t len;

	if (++qc->visited > 4096)
		return MPSFIX_WALK_STOP; /* (the file's start says enough, and a walk per fix must stay short) */
	if (!is(n, "string"))
		return MPSFIX_WALK_DESCEND;
	s = qc->src + ts_node_start_byte(n);
	len = ts_node_end_byte(n) - ts_node_start_byte(n);
	if (len >= 2 && (s[0] == '"' || s[0] == '\'') && !(len >= 6 && s[1] == s[0] && s[2] == s[0])) {
		if (s[0] == '"')
			qc->dbl++;
		else
			qc->single++;
	}
	return ++qc->seen >= 200 ? MPSFIX_WALK_STOP : MPSFIX_WALK_SKIP;
}

/*
 * The quote the code around a match writes its strings with: that of the
 * match's own strings when it has some, else the file's more common one
 * (among its first strings); 0 when it writes none.
 */
static char file_quote(const mpsfix_source *src, const mpsfix_match *m, TSNode target)
{
	quote_count qc = {src->data, 0, 0, 0, 0};
	TSNode root = ts_node_is_null(m->node) ? target : m->node;

	mpsfix_walk(root, count_quote, &qc);
	if (!qc.single && !qc.dbl) {
		qc.visited = 0;
		mpsfix_walk(ts_tree_root_node(target.tree), count_quote, &qc);
	}
	if (!qc.single && !qc.dbl)
		return 0;
	return qc.single > qc.dbl ? '\'' : '"';
}

/* The file's indentation step near `target`, else PEP 8's four spaces. */
static void file_step(const mpsfix_source *src, TSNode target, const char **step, size_t *len)
{
	mpsfix_span sp;

	if (mpsfix_indent_step(target, src->data, (uint32_t)src->len, &sp)) {
		*step = src->data + sp.start;
		*len = sp.end - sp.start;
	} else {
		*step = "    ";
		*len = 4;
	}
}

static int render(mpsfix_buf *out, mpsfix_spans *kept, const mpsfix_template *t,
		  const mpsfix_match *m, const mpsfix_source *src, TSNode target,
		  char *const *spellings, const mpsfix_template_layout *layout);

int mpsfix_template_render(mpsfix_buf *out, mpsfix_spans *kept,
			   const mpsfix_template *t, const mpsfix_match *m,
			   const mpsfix_source *src, TSNode target, char *const *spellings)
{
	uint32_t tstart = ts_node_start_byte(target);
	uint32_t start = mpsfix_line_start(src->data, tstart);
	uint32_t end = mpsfix_indent_end(src->data, (uint32_t)src->len, start);
	mpsfix_template_layout layout = {.indent = src->data + start, .indent_len = end - start};

	if (t->statements && tstart != end)
		return mpsfix_error_set(MPSFIX_ERROR, "the fix's statements cannot replace code that "
					"shares its line with other code");
	if (t->step.end > t->step.start)
		file_step(src, target, &layout.step, &layout.step_len);
	return render(out, kept, t, m, src, target, spellings, &layout);
}

int mpsfix_template_render_at(mpsfix_buf *out, mpsfix_spans *kept,
			      const mpsfix_template *t, const mpsfix_match *m,
			      const mpsfix_source *src, TSNode target, char *const *spellings,
			      const mpsfix_template_layout *layout)
{
	return render(out, kept, t, m, src, target, spellings, layout);
}

bool mpsfix_template_is_statements(const mpsfix_template *t)
{
	return t->statements;
}

int mpsfix_template_parenthesized(const mpsfix_template *t)
{
	return t->root_parens;
}

static int render(mpsfix_buf *out, mpsfix_spans *kept, const mpsfix_template *t,
		  const mpsfix_match *m, const mpsfix_source *src, TSNode target,
		  char *const *spellings, const mpsfix_template_layout *layout)
{
	uint32_t pos = 0;
	emitter em = {
		.out = out,
		.newline = mpsfix_source_newline_at(src, ts_node_start_byte(target)),
		.indent = layout->indent,
		.indent_len = layout->indent_len,
		.step = layout->step,
		.step_len = layout->step_len,
		.spellings = spellings,
		.quote = file_quote(src, m, target),
	};
	int root_prec = t->root_prec;
	bool splat = t->root_splat, wrap;

	/* validate first, so nothing is appended on error */
	for (size_t i = 0; i < t->nvars; i++) {
		const mpsfix_binding *b = lookup(m, t->vars[i].name);

		if (!b || b->multi != t->vars[i].multi)
			return mpsfix_error_set(MPSFIX_ERROR, "template names $%s%s, which the match did not bind",
						t->vars[i].multi ? "$$" : "", t->vars[i].name);
		if (!b->bound && !t->vars[i].in_list)
			return mpsfix_error_set(MPSFIX_ERROR, "the call does not pass `%s`, which the "
						"template needs", t->vars[i].name);
	}
	if (t->root_var >= 0) {
		const mpsfix_binding *b = lookup(m, t->vars[t->root_var].name);

		root_prec = b->multi ? PREC_PRIMARY : mpsfix_expr_precedence(b->node, src->data);
		splat = !b->multi && (is(b->node, "list_splat") || is(b->node, "dictionary_splat"));
	}
	/* (finding the target's parent costs a walk from the root: only when it matters);
	 * an argument may be `*x`, which parentheses would make a syntax error */
	wrap = root_prec < PREC_PRIMARY && root_prec < slot_prec(target, src->data) &&
	       !(splat && !ts_node_is_null(ts_node_parent(target)) &&
		 is(ts_node_parent(target), "argument_list"));
	if (wrap)
		mpsfix_buf_addc(out, '(');

	{
		mpsfix_span prev_erase = {0, 0};

		for (size_t i = 0; i < t->nvars; i++) {
			const tmpl_var *v = &t->vars[i];
			const mpsfix_binding *b = lookup(m, v->name);
			mpsfix_span erase = v->span;
			bool vanish = (v->multi && b->count == 0) || (!v->multi && !b->bound);

			if (!v->multi && !b->bound)
				erase = v->elem; /* a parameter not passed: its element goes */
			if (vanish) {
				if (v->has_before && v->before.start >= prev_erase.end && v->before.start >= pos)
					erase.start = v->before.start;
				else if (v->has_after)
					erase.end = v->after.end;
			}
			if (erase.start < pos)
				erase.start = pos;
			emit_template(&em, t, pos, erase.start - pos);
			if (!v->multi && !b->bound) {
				/* nothing */
			} else if (!v->multi) {
				bool paren = mpsfix_expr_precedence(b->node, src->data) < v->min_prec;

				if (is_splat(b->node)) {
					if (!element_fits(v, b->node, src))
						return MPSFIX_ERROR;
					paren = false;
				} else if (v->attr_head && is(b->node, "integer")) {
					paren = true; /* `1.real` would read as a float */
				}

				if (paren)
					mpsfix_buf_addc(out, '(');
				emit_source(&em, kept, src, ts_node_start_byte(b->node), ts_node_end_byte(b->node));
				if (paren)
					mpsfix_buf_addc(out, ')');
			} else if (b->count) {
				for (uint32_t k = 0; k < b->count; k++)
					if (is_splat(m->nodes[b->first + k]) && !element_fits(v, m->nodes[b->first + k], src))
						return MPSFIX_ERROR;
				emit_multi(&em, kept, src, m->nodes + b->first, b->count);
			}
			pos = erase.end;
			prev_erase = erase;
		}
		emit_template(&em, t, pos, t->len - pos);
	}
	if (wrap)
		mpsfix_buf_addc(out, ')');
	return 0;
}
