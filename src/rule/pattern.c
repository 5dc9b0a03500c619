/*
 * pattern.c: compiling a pattern snippet into a matcher tree, and the
 * constraints a metavariable's binding is checked against while matching.
 */
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "pattern_internal.h"

/* U+00B5 MICRO SIGN: an identifier character that stands for '$'. */
#define MU0 '\xc2'
#define MU1 '\xb5'
#define MAX_PATTERN_DEPTH 256

void mpsfix_pattern__offset_map_release(mpsfix_offset_map *m)
{
	free(m->map);
	m->map = NULL;
	m->len = 0;
}

/* Capitals for pattern metavariables; lower case for signature parameters
 * (templates only: the rule loader checks both). */
static bool is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static void emit(mpsfix_buf *out, mpsfix_offset_map *map, size_t *cap,
		 const char *s, size_t n, uint32_t orig)
{
	mpsfix_grow((void **)&map->map, cap, map->len + n + 1, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		map->map[map->len++] = orig;
	mpsfix_buf_add(out, s, n);
}

int mpsfix_pattern__metavar_substitute(mpsfix_buf *out, mpsfix_offset_map *map,
				       const char *text, size_t len, uint32_t *err_offset)
{
	static const char mu[2] = {MU0, MU1};
	size_t cap = 0;

	(void)err_offset; /* every '$' that is not a metavariable is left to the parser */

	map->len = 0;
	for (size_t i = 0; i < len;) {
		size_t dollars = 0;

		while (i + dollars < len && text[i + dollars] == '$')
			dollars++;
		if ((dollars == 1 || dollars == 3) && i + dollars < len &&
		    is_name_start(text[i + dollars]) &&
		    (i == 0 || !is_name_char(text[i - 1]))) {
			for (size_t d = 0; d < dollars; d++)
				emit(out, map, &cap, mu, 2, (uint32_t)(i + d));
			i += dollars;
			while (i < len && is_name_char(text[i])) {
				emit(out, map, &cap, text + i, 1, (uint32_t)i);
				i++;
			}
			continue;
		}
		emit(out, map, &cap, text + i, 1, (uint32_t)i);
		i++;
	}
	/* one past the end maps to the end */
	mpsfix_grow((void **)&map->map, &cap, map->len + 1, sizeof(uint32_t));
	map->map[map->len] = (uint32_t)len;
	if (!out->data)
		mpsfix_buf_add(out, "", 0);
	return 0;
}

bool mpsfix_pattern__metavar_ident(const char *s, size_t n, const char **name,
				   size_t *name_len, bool *multi)
{
	size_t mus = 0;

	while (2 * mus + 1 < n && s[2 * mus] == MU0 && s[2 * mus + 1] == MU1)
		mus++;
	if (mus != 1 && mus != 3)
		return false;
	s += 2 * mus;
	n -= 2 * mus;
	if (n == 0 || !is_name_start(s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!is_name_char(s[i]))
			return false;
	*name = s;
	*name_len = n;
	*multi = mus == 3;
	return true;
}

int mpsfix_pattern__snippet_parse(mpsfix_snippet *out, TSParser *parser, const char *text,
				  size_t len, uint32_t *err_offset)
{
	TSNode bad;
	uint32_t at;
	int error;

	memset(out, 0, sizeof(*out));
	*err_offset = 0;
	if ((error = mpsfix_pattern__metavar_substitute(&out->text, &out->map, text, len,
						       err_offset)) < 0 ||
	    (error = mpsfix_parse(&out->tree, parser, out->text.data, (uint32_t)out->text.len)) < 0)
		return error;
	if (!mpsfix_first_error(ts_tree_root_node(out->tree), &bad))
		return 0;
	at = ts_node_start_byte(bad);
	*err_offset = out->map.map[at < out->map.len ? at : out->map.len];
	if (*err_offset < len && text[*err_offset] == '$')
		return mpsfix_error_set(MPSFIX_ERROR, "unexpected '$' (a metavariable is $NAME, "
					"$$$NAME or $_, NAME in capitals)");
	return mpsfix_error_set(MPSFIX_ERROR, "%s", ts_node_is_missing(bad) ? "missing token" : "syntax error");
}

void mpsfix_pattern__snippet_release(mpsfix_snippet *s)
{
	mpsfix_buf_release(&s->text);
	mpsfix_pattern__offset_map_release(&s->map);
	ts_tree_delete(s->tree);
	s->tree = NULL;
}

/* ---- compiling ------------------------------------------------------------ */

static bool node_is(TSNode n, const char *type)
{
	return strcmp(ts_node_type(n), type) == 0;
}

static bool named_only_kind(const char *type)
{
	static const char *const kinds[] = {
		"list", "tuple", "set", "dictionary", "expression_list",
		"pattern_list", "tuple_pattern", "list_pattern", "parameters",
		"lambda_parameters", "block", "module", "import_from_statement",
		"subscript", "with_clause", "global_statement", "nonlocal_statement",
		"delete_statement", "print_statement", "assert_statement",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(kinds); i++)
		if (!strcmp(type, kinds[i]))
			return true;
	return false;
}

typedef struct {
	mpsfix_pattern *p;
	const char *text2;          /* substituted text that was parsed */
	const mpsfix_offset_map *map;
	uint32_t err_offset;
} compiler;

static void pnode_free(mpsfix_pnode *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->nchildren; i++)
		pnode_free(n->children[i]);
	free(n->children);
	free(n->text);
	free(n->kwname);
	free(n);
}

static int add_metavar(compiler *c, TSNode node, const char *name, size_t len, bool multi)
{
	mpsfix_pattern *p = c->p;

	if (len == 1 && name[0] == '_')
		return -1;
	for (size_t i = 0; i < len; i++)
		if (name[i] >= 'a' && name[i] <= 'z') {
			c->err_offset = c->map->map[ts_node_start_byte(node)];
			mpsfix_error_set(MPSFIX_ERROR, "$%.*s: metavariable names are in capitals "
					 "(lower-case names are signature parameters, for templates)",
					 (int)len, name);
			return -2;
		}
	for (size_t i = 0; i < p->nmetavars; i++) {
		if (strlen(p->metavars[i].name) == len && !memcmp(p->metavars[i].name, name, len)) {
			if (p->metavars[i].multi != multi) {
				c->err_offset = c->map->map[ts_node_start_byte(node)];
				mpsfix_error_set(MPSFIX_ERROR, "$%.*s is used both as $%.*s and $$$%.*s",
						 (int)len, name, (int)len, name, (int)len, name);
				return -2;
			}
			return (int)i;
		}
	}
	p->metavars = mpsfix_xrealloc(p->metavars, (p->nmetavars + 1) * sizeof(*p->metavars));
	p->metavars[p->nmetavars] = (mpsfix_metavar){
		.name = mpsfix_xstrndup(name, len), .multi = multi, .constraint = NULL,
	};
	return (int)p->nmetavars++;
}

/* A metavariable written where the grammar wants an identifier or a statement. */
static bool node_metavar(TSNode node, const char *text, const char **name,
			 size_t *len, bool *multi, TSNode *ident)
{
	uint32_t s, e;

	if (node_is(node, "expression_statement") && ts_node_named_child_count(node) == 1)
		node = ts_node_named_child(node, 0);
	if (!node_is(node, "identifier"))
		return false;
	s = ts_node_start_byte(node);
	e = ts_node_end_byte(node);
	*ident = node;
	return mpsfix_pattern__metavar_ident(text + s, e - s, name, len, multi);
}

static int compile_node(compiler *c, mpsfix_pnode **out, TSNode node, int depth);

static int compile_children(compiler *c, mpsfix_pnode *pn, TSNode node, bool named_only, int depth)
{
	uint32_t n = ts_node_child_count(node);
	int error = 0;

	pn->children = mpsfix_xcalloc(n ? n : 1, sizeof(*pn->children));
	for (uint32_t i = 0; i < n; i++) {
		TSNode child = ts_node_child(node, i);

		if (ts_node_is_extra(child) || (named_only && !ts_node_is_named(child)))
			continue;
		error = compile_node(c, &pn->children[pn->nchildren], child, depth + 1);
		pn->nchildren++; /* freed with the parent even when it failed */
		if (error < 0)
			return error;
	}
	return 0;
}

/* `a.b.c` made of plain identifiers (no metavariable): its dotted text. */
static bool dotted_name(const compiler *c, TSNode node, mpsfix_buf *out)
{
	static const char mu[3] = {MU0, MU1, 0};

	return mpsfix_dotted_name(node, c->text2, out) && !strstr(out->data, mu);
}

static int compile_node(compiler *c, mpsfix_pnode **out, TSNode node, int depth)
{
	const char *type = ts_node_type(node);
	uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
	mpsfix_pnode *pn;
	const char *name;
	size_t name_len;
	bool multi;
	TSNode ident;
	int error;

	if (depth > MAX_PATTERN_DEPTH) {
		c->err_offset = c->map->map[s];
		return mpsfix_error_set(MPSFIX_ERROR, "nested more than %d levels deep", MAX_PATTERN_DEPTH);
	}
	pn = mpsfix_xcalloc(1, sizeof(*pn));
	*out = pn;
	pn->symbol = ts_node_symbol(node);
	pn->meta = -1;

	if (node_metavar(node, c->text2, &name, &name_len, &multi, &ident)) {
		int idx = add_metavar(c, ident, name, name_len, multi);

		if (idx == -2)
			return MPSFIX_ERROR;
		pn->kind = multi ? MPSFIX_PN_MULTI : MPSFIX_PN_META;
		pn->meta = idx;
		return 0;
	}
	if (!strcmp(type, "string")) {
		mpsfix_literal l = {0};
		uint32_t os = c->map->map[s], oe = c->map->map[e];

		if (mpsfix_literal_from_string(&l, c->p->text + os, oe - os)) {
			pn->kind = MPSFIX_PN_STRING;
			pn->text = l.s;
			pn->text_len = l.slen;
			return 0;
		}
		/* f-strings and friends: matched structurally */
	}
	if (!strcmp(type, "attribute")) {
		mpsfix_buf dotted = MPSFIX_BUF_INIT;

		if (dotted_name(c, node, &dotted)) {
			pn->kind = MPSFIX_PN_QNAME;
			pn->text = mpsfix_buf_detach(&dotted, &pn->text_len);
			return 0;
		}
		mpsfix_buf_release(&dotted);
	}
	if (ts_node_child_count(node) == 0) {
		pn->kind = MPSFIX_PN_LEAF;
		pn->text = mpsfix_xstrndup(c->text2 + s, e - s);
		pn->text_len = e - s;
		return 0;
	}
	if (!strcmp(type, "argument_list")) {
		pn->kind = MPSFIX_PN_ARGS;
		if ((error = compile_children(c, pn, node, true, depth)) < 0)
			return error;
		/* keyword arguments with a literal name are found by name */
		for (uint32_t i = 0, k = 0; i < ts_node_child_count(node); i++) {
			TSNode child = ts_node_child(node, i), kw;

			if (ts_node_is_extra(child) || !ts_node_is_named(child))
				continue;
			if (node_is(child, "keyword_argument")) {
				kw = ts_node_child_by_field_name(child, "name", 4);
				if (!ts_node_is_null(kw) && !node_metavar(kw, c->text2, &name, &name_len, &multi, &ident))
					pn->children[k]->kwname = mpsfix_xstrndup(
						c->text2 + ts_node_start_byte(kw),
						ts_node_end_byte(kw) - ts_node_start_byte(kw));
			}
			k++;
		}
		return 0;
	}
	pn->kind = MPSFIX_PN_NODE;
	pn->named_only = named_only_kind(type);
	return compile_children(c, pn, node, pn->named_only, depth);
}

static TSNode sole_statement(TSNode root, bool *ok)
{
	TSNode only = {0};
	uint32_t count = 0;

	for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
		TSNode child = ts_node_named_child(root, i);

		if (ts_node_is_extra(child))
			continue;
		only = child;
		count++;
	}
	*ok = count == 1;
	if (*ok && node_is(only, "expression_statement") && ts_node_named_child_count(only) == 1)
		only = ts_node_named_child(only, 0);
	return only;
}

int mpsfix_pattern_compile(mpsfix_pattern **out, TSParser *parser,
			   const char *text, size_t len, uint32_t *err_offset)
{
	mpsfix_snippet sn = {0};
	mpsfix_pattern *p = mpsfix_xcalloc(1, sizeof(*p));
	TSNode top;
	compiler c = {0};
	bool ok;
	int error;

	*out = NULL;
	p->text = mpsfix_xstrndup(text, len);
	if ((error = mpsfix_pattern__snippet_parse(&sn, parser, text, len, err_offset)) < 0)
		goto done;
	top = sole_statement(ts_tree_root_node(sn.tree), &ok);
	if (!ok) {
		error = mpsfix_error_set(MPSFIX_ERROR, "a pattern must be exactly one expression or statement");
		goto done;
	}
	c = (compiler){.p = p, .text2 = sn.text.data, .map = &sn.map};
	if ((error = compile_node(&c, &p->root, top, 0)) < 0) {
		*err_offset = c.err_offset;
		goto done;
	}
	if (p->root->kind == MPSFIX_PN_META || p->root->kind == MPSFIX_PN_MULTI) {
		error = mpsfix_error_set(MPSFIX_ERROR, "a pattern must not be a lone metavariable");
		goto done;
	}
	*out = p;
	p = NULL;
done:
	mpsfix_pattern_free(p);
	mpsfix_pattern__snippet_release(&sn);
	return error;
}

void mpsfix_pattern_free(mpsfix_pattern *p)
{
	if (!p)
		return;
	pnode_free(p->root);
	for (size_t i = 0; i < p->nmetavars; i++)
		free(p->metavars[i].name);
	free(p->metavars);
	free(p->text);
	free(p);
}

int mpsfix_pattern_metavar_index(const mpsfix_pattern *p, const char *name)
{
	for (size_t i = 0; i < p->nmetavars; i++)
		if (!strcmp(p->metavars[i].name, name))
			return (int)i;
	return -1;
}

/* ---- constraints ---------------------------------------------------------- */

static bool kind_in(TSNode node, const TSSymbol *kinds, size_t n)
{
	const char *type = ts_node_type(node);

	for (size_t i = 0; i < n; i++)
		if (ts_node_symbol(node) == kinds[i] ||
		    !strcmp(type, ts_language_symbol_name(mpsfix_language(), kinds[i])))
			return true;
	return false;
}

/* Is `node` a literal equal to one of `values`? */
static bool value_in(TSNode node, const char *src, const mpsfix_literal *values, size_t n)
{
	mpsfix_literal l;
	bool any = false;

	if (!mpsfix_literal_from_node(&l, node, src))
		return false;
	for (size_t i = 0; i < n && !any; i++)
		any = mpsfix_literal_equal(&l, &values[i]);
	mpsfix_literal_release(&l);
	return any;
}

bool mpsfix_constraint_accepts(const mpsfix_constraint *c, TSNode node, const char *src)
{
	uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);

	if (c->nkinds && !kind_in(node, c->kinds, c->nkinds))
		return false;
	if (c->nnot_kinds && kind_in(node, c->not_kinds, c->nnot_kinds))
		return false;
	if (c->nvalues && !value_in(node, src, c->values, c->nvalues))
		return false;
	if (c->nnot_values && value_in(node, src, c->not_values, c->nnot_values))
		return false;
	if (c->has_regex || c->has_not_regex) {
		if (e - s > MPSFIX_REGEX_MAX_TEXT)
			return false; /* too long to match in bounded time */
		char *text = mpsfix_xstrndup(src + s, e - s);
		bool ok = true;

		if (c->has_regex && !mpsfix_regex_search(&c->regex, text))
			ok = false;
		if (ok && c->has_not_regex && mpsfix_regex_search(&c->not_regex, text))
			ok = false;
		free(text);
		if (!ok)
			return false;
	}
	return true;
}

void mpsfix_constraint_release(mpsfix_constraint *c)
{
	if (!c)
		return;
	free(c->metavar);
	if (c->has_regex)
		mpsfix_regex_release(&c->regex);
	if (c->has_not_regex)
		mpsfix_regex_release(&c->not_regex);
	free(c->regex_src);
	free(c->not_regex_src);
	free(c->kinds);
	for (size_t i = 0; i < c->nvalues; i++)
		mpsfix_literal_release(&c->values[i]);
	free(c->values);
	for (size_t i = 0; i < c->nnot_values; i++)
		mpsfix_literal_release(&c->not_values[i]);
	free(c->not_values);
	free(c->not_kinds);
	for (size_t i = 0; i < c->nis; i++)
		mpsfix_pattern_free(c->is[i]);
	free(c->is);
	for (size_t i = 0; i < c->nhas; i++)
		mpsfix_pattern_free(c->has[i]);
	free(c->has);
	for (size_t i = 0; i < c->nnot_has; i++)
		mpsfix_pattern_free(c->not_has[i]);
	free(c->not_has);
	for (size_t i = 0; i < c->nnot_is; i++)
		mpsfix_pattern_free(c->not_is[i]);
	free(c->not_is);
	for (size_t i = 0; i < c->nany_of; i++)
		mpsfix_constraint_release(&c->any_of[i]);
	free(c->any_of);
	memset(c, 0, sizeof(*c));
}
