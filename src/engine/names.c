/*
 * names.c: the import table of one file, per scope.
 *
 * The first query walks the tree once with a cursor and an explicit stack of
 * frames (no recursion, no ts_node_parent), recording:
 *   - one scope record per module, def, lambda, class body and comprehension;
 *   - the bindings of each scope, in one open-addressing hash table keyed by
 *     (scope, name), merged as Python would see them (all imports of one
 *     qualified name, or a local);
 *   - a sorted list of segments [start byte, scope) telling which scope the
 *     code at a byte is evaluated in, with Python's exceptions (a def's name,
 *     decorators, defaults and annotations, a comprehension's first
 *     iterable are in the enclosing scope).
 * A query then costs a binary search and a few hash lookups.
 */
#include "names.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define NONE_U32 UINT32_MAX

enum scope_kind { SC_MODULE, SC_FUNCTION, SC_CLASS, SC_COMPREHENSION };
enum bind_kind { B_NONE, B_IMPORT, B_LOCAL };
enum decl_kind { D_NONE, D_GLOBAL, D_NONLOCAL };

typedef struct {
	uint32_t parent; /* NONE_U32 for the module */
	uint8_t kind;
} scope;

typedef struct {
	const char *name; /* into the source */
	uint32_t len;
	uint32_t scope;
	uint32_t qname, qlen; /* into n->strings, for B_IMPORT */
	uint32_t import_pos;  /* start byte of the last import binding, or NONE_U32 */
	uint8_t kind;         /* enum bind_kind */
	uint8_t decl;         /* enum decl_kind */
} entry;

typedef struct {
	uint32_t start;
	uint32_t scope;
} segment;

/* symbols and fields of the grammar, looked up once per table */
typedef struct {
	TSSymbol identifier, attribute, dotted_name, aliased_import, wildcard_import,
		import_statement, import_from_statement, future_import,
		function_definition, class_definition, lambda, parameters, lambda_parameters,
		default_parameter, typed_parameter, typed_default_parameter, list_splat_pattern,
		dictionary_splat_pattern, tuple_pattern, list_pattern, pattern_list, tuple, list,
		expression_list, parenthesized_expression, list_splat, as_pattern,
		as_pattern_target, assignment, augmented_assignment, for_statement, for_in_clause,
		named_expression, delete_statement, global_statement, nonlocal_statement,
		list_comprehension, set_comprehension, dictionary_comprehension,
		generator_expression, except_clause, try_statement, block, expression_statement,
		none, case_clause, case_pattern, keyword_pattern, splat_pattern, dict_pattern,
		comment;
	TSFieldId f_name, f_alias, f_module_name, f_parameters, f_body, f_type,
		f_left, f_right, f_key;
} grammar;

struct mpsfix_names {
	TSNode root;
	const char *src;
	uint32_t len;
	bool built;
	grammar g;
	ARRAY(scope) scopes;
	ARRAY(entry) entries;
	ARRAY(segment) segments;
	ARRAY(uint32_t) imports; /* indexes of entries bound by an import */
	uint32_t *slots;         /* hash: entry index + 1, 0 when empty */
	size_t nslots;
	mpsfix_buf strings;      /* qualified names */
	bool has_star;
	uint32_t star_module, star_module_len, star_byte;
	/* mpsfix_names_module_imports: the module's statements (comments left
	 * out) and, for each, the index + 1 of the last import among it and
	 * those before */
	TSNode *top;
	uint32_t *top_import;
	uint32_t ntop;
	bool top_built;
};

/* ---- the hash table ---------------------------------------------------------- */

static uint32_t hash_name(uint32_t sc, const char *name, uint32_t len)
{
	uint32_t h = 2166136261u ^ (sc * 2654435761u);

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static void rehash(mpsfix_names *n)
{
	size_t cap = n->nslots ? n->nslots * 2 : 256;

	free(n->slots);
	n->slots = mpsfix_xcalloc(cap, sizeof(*n->slots));
	n->nslots = cap;
	for (uint32_t i = 0; i < n->entries.len; i++) {
		const entry *e = &n->entries.items[i];
		size_t k = hash_name(e->scope, e->name, e->len) & (cap - 1);

		while (n->slots[k])
			k = (k + 1) & (cap - 1);
		n->slots[k] = i + 1;
	}
}

/* The entry of `name` in scope `sc`, created (unbound) if `create`; NULL if absent. */
static entry *lookup(mpsfix_names *n, uint32_t sc, const char *name, uint32_t len, bool create)
{
	size_t k;

	if (!n->nslots)
		rehash(n);
	k = hash_name(sc, name, len) & (n->nslots - 1);
	while (n->slots[k]) {
		entry *e = &n->entries.items[n->slots[k] - 1];

		if (e->scope == sc && e->len == len && memcmp(e->name, name, len) == 0)
			return e;
		k = (k + 1) & (n->nslots - 1);
	}
	if (!create)
		return NULL;
	ARRAY_PUSH(&n->entries, ((entry){.name = name, .len = len, .scope = sc,
					 .import_pos = NONE_U32}));
	if (n->entries.len * 2 > n->nslots)
		rehash(n);
	else
		n->slots[k] = (uint32_t)n->entries.len;
	return &n->entries.items[n->entries.len - 1];
}

/* ---- bindings ---------------------------------------------------------------- */

/* The nearest function (or module) scope around `sc`, for `nonlocal` and walrus. */
static uint32_t enclosing_function(const mpsfix_names *n, uint32_t sc)
{
	uint32_t s = n->scopes.items[sc].parent;

	while (s != NONE_U32 && n->scopes.items[s].kind == SC_CLASS)
		s = n->scopes.items[s].parent;
	return s == NONE_U32 ? 0 : s;
}

/* Where a binding of `name` made in `sc` lands, following global / nonlocal. */
static entry *binding_entry(mpsfix_names *n, uint32_t sc, const char *name, uint32_t len)
{
	entry *e = lookup(n, sc, name, len, true);

	for (int hops = 0; hops < 64 && sc != 0 && e->decl != D_NONE; hops++) {
		sc = e->decl == D_GLOBAL ? 0 : enclosing_function(n, sc);
		e = lookup(n, sc, name, len, true);
	}
	return e;
}

static void bind_local(mpsfix_names *n, uint32_t sc, TSNode id)
{
	uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);

	if (b > a)
		binding_entry(n, sc, n->src + a, b - a)->kind = B_LOCAL;
}

static void bind_import(mpsfix_names *n, uint32_t sc, TSNode id, const char *qname, size_t qlen,
			uint32_t pos)
{
	uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);
	entry *e;

	if (b <= a)
		return;
	e = binding_entry(n, sc, n->src + a, b - a);
	e->import_pos = pos;
	if (e->kind == B_LOCAL)
		return;
	if (e->kind == B_IMPORT) {
		if (e->qlen != qlen || memcmp(n->strings.data + e->qname, qname, qlen) != 0)
			e->kind = B_LOCAL;
		return;
	}
	e->kind = B_IMPORT;
	e->qname = (uint32_t)n->strings.len;
	e->qlen = (uint32_t)qlen;
	mpsfix_buf_add(&n->strings, qname, qlen);
	mpsfix_buf_addc(&n->strings, '\0');
	ARRAY_PUSH(&n->imports, (uint32_t)(e - n->entries.items));
}

/* The identifiers of a dotted_name joined with dots (comments left out). */
static void add_dotted(const mpsfix_names *n, TSNode dotted, mpsfix_buf *out)
{
	uint32_t count = ts_node_named_child_count(dotted);

	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(dotted, i);

		if (ts_node_symbol(c) != n->g.identifier)
			continue;
		if (out->len && out->data[out->len - 1] != '.')
			mpsfix_buf_addc(out, '.');
		mpsfix_buf_add(out, n->src + ts_node_start_byte(c),
			       ts_node_end_byte(c) - ts_node_start_byte(c));
	}
}

static TSNode first_identifier(const mpsfix_names *n, TSNode dotted)
{
	TSNode c = ts_node_named_child(dotted, 0);

	while (!ts_node_is_null(c) && ts_node_symbol(c) != n->g.identifier)
		c = ts_node_next_named_sibling(c);
	return c;
}

static TSNode last_identifier(const mpsfix_names *n, TSNode dotted)
{
	uint32_t count = ts_node_named_child_count(dotted);

	for (uint32_t i = count; i-- > 0;) {
		TSNode c = ts_node_named_child(dotted, i);

		if (ts_node_symbol(c) == n->g.identifier)
			return c;
	}
	return ts_node_named_child(dotted, count); /* null */
}

/* import a.b.c / import a.b as c */
static void record_import(mpsfix_names *n, uint32_t sc, TSNode stmt, mpsfix_buf *tmp)
{
	uint32_t count = ts_node_named_child_count(stmt), pos = ts_node_start_byte(stmt);

	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(stmt, i);
		TSSymbol s = ts_node_symbol(c);

		mpsfix_buf_clear(tmp);
		if (s == n->g.dotted_name) {
			TSNode first = first_identifier(n, c);

			if (!ts_node_is_null(first))
				bind_import(n, sc, first, n->src + ts_node_start_byte(first),
					    ts_node_end_byte(first) - ts_node_start_byte(first), pos);
		} else if (s == n->g.aliased_import) {
			TSNode name = ts_node_child_by_field_id(c, n->g.f_name);
			TSNode alias = ts_node_child_by_field_id(c, n->g.f_alias);

			if (ts_node_is_null(name) || ts_node_is_null(alias))
				continue;
			add_dotted(n, name, tmp);
			bind_import(n, sc, alias, tmp->data ? tmp->data : "", tmp->len, pos);
		}
	}
}

/* from M import a, b as c / from . import x / from M import * / from __future__ import x */
static void record_from_import(mpsfix_names *n, uint32_t sc, TSNode stmt, bool future,
			       mpsfix_buf *tmp)
{
	TSNode module = ts_node_child_by_field_id(stmt, n->g.f_module_name);
	bool relative = !future && (ts_node_is_null(module) ||
				    ts_node_symbol(module) != n->g.dotted_name);
	uint32_t count = ts_node_named_child_count(stmt), pos = ts_node_start_byte(stmt);

	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(stmt, i);
		TSSymbol s = ts_node_symbol(c);
		TSNode name, bound;

		if (s == n->g.wildcard_import) {
			if (sc == 0 && !n->has_star && !ts_node_is_null(module)) {
				n->has_star = true;
				n->star_module = ts_node_start_byte(module);
				n->star_module_len = ts_node_end_byte(module) - n->star_module;
				n->star_byte = pos;
			}
			continue;
		}
		if (s == n->g.dotted_name) {
			if (!future && ts_node_eq(c, module))
				continue; /* the module, not a name */
			name = c;
			bound = last_identifier(n, c);
		} else if (s == n->g.aliased_import) {
			name = ts_node_child_by_field_id(c, n->g.f_name);
			bound = ts_node_child_by_field_id(c, n->g.f_alias);
		} else {
			continue;
		}
		if (ts_node_is_null(name) || ts_node_is_null(bound))
			continue;
		if (relative) {
			bind_local(n, sc, bound);
			continue;
		}
		mpsfix_buf_clear(tmp);
		if (future)
			mpsfix_buf_adds(tmp, "__future__");
		else
			add_dotted(n, module, tmp);
		add_dotted(n, name, tmp);
		bind_import(n, sc, bound, tmp->data, tmp->len, pos);
	}
}

/* ---- the walk ---------------------------------------------------------------- */

enum ctx { C_NONE, C_TARGET, C_WALRUS, C_PARAM, C_PATTERN };

typedef struct {
	TSNode node;
	uint32_t scope;    /* where this node's code is evaluated */
	uint32_t newscope; /* the scope it opens for its body, or NONE_U32 */
	uint8_t ctx;
	bool first_for;    /* a comprehension's first for_in_clause */
	uint32_t nfor;     /* for_in_clauses seen, on a comprehension */
	bool no_bind;      /* the `name = None` idiom: the left side binds nothing */
} frame;

typedef ARRAY(frame) frame_stack;

static bool is_comprehension(const grammar *g, TSSymbol s)
{
	return s == g->list_comprehension || s == g->set_comprehension ||
	       s == g->dictionary_comprehension || s == g->generator_expression;
}

static bool is_target_container(const grammar *g, TSSymbol s)
{
	return s == g->pattern_list || s == g->tuple_pattern || s == g->list_pattern ||
	       s == g->tuple || s == g->list || s == g->expression_list ||
	       s == g->parenthesized_expression || s == g->list_splat_pattern ||
	       s == g->list_splat || s == g->as_pattern_target;
}

static uint32_t new_scope(mpsfix_names *n, uint32_t parent, uint8_t kind)
{
	ARRAY_PUSH(&n->scopes, ((scope){parent, kind}));
	return (uint32_t)n->scopes.len - 1;
}

/* The frame of child `c` (field `field`) of the node of frame `p`. */
static frame child_frame(mpsfix_names *n, frame *p, TSNode c, TSFieldId field)
{
	const grammar *g = &n->g;
	TSSymbol ps = ts_node_symbol(p->node), cs = ts_node_symbol(c);
	frame f = {.node = c, .scope = p->scope, .newscope = NONE_U32, .ctx = C_NONE};
	uint32_t outer = p->scope;

	if (ts_node_is_extra(c))
		return f;
	if (p->newscope != NONE_U32) {
		/* def / class / lambda / comprehension */
		if (ps == g->function_definition || ps == g->lambda) {
			if (field == g->f_parameters) {
				f.scope = p->newscope;
				f.ctx = C_PARAM;
			} else if (field == g->f_body) {
				f.scope = p->newscope;
			}
		} else if (ps == g->class_definition) {
			if (field == g->f_body)
				f.scope = p->newscope;
		} else {
			f.scope = p->newscope;
			if (cs == g->for_in_clause)
				f.first_for = p->nfor++ == 0;
		}
		return f;
	}
	switch (p->ctx) {
	case C_PARAM:
		outer = n->scopes.items[p->scope].parent;
		if (ps == g->default_parameter || ps == g->typed_default_parameter) {
			if (field == g->f_name)
				f.ctx = C_PARAM;
			else
				f.scope = outer;
		} else if (ps == g->typed_parameter) {
			if (field == g->f_type)
				f.scope = outer;
			else
				f.ctx = C_PARAM;
		} else if (ps == g->parameters || ps == g->lambda_parameters ||
			   ps == g->list_splat_pattern || ps == g->dictionary_splat_pattern ||
			   ps == g->tuple_pattern) {
			f.ctx = C_PARAM;
		}
		return f;
	case C_TARGET:
		if (is_target_container(g, ps))
			f.ctx = C_TARGET;
		return f;
	case C_PATTERN:
		if (ps == g->dict_pattern && field == g->f_key)
			return f;
		f.ctx = C_PATTERN;
		return f;
	default:
		break;
	}
	if (ps == g->assignment || ps == g->augmented_assignment || ps == g->for_statement) {
		if (field == g->f_left && !p->no_bind)
			f.ctx = C_TARGET;
	} else if (ps == g->for_in_clause) {
		if (field == g->f_left)
			f.ctx = C_TARGET;
		else if (field == g->f_right && p->first_for)
			f.scope = n->scopes.items[p->scope].parent;
	} else if (ps == g->as_pattern || ps == g->except_clause) {
		if (field == g->f_alias)
			f.ctx = C_TARGET;
	} else if (ps == g->named_expression) {
		if (field == g->f_name)
			f.ctx = C_WALRUS;
	} else if (ps == g->delete_statement) {
		f.ctx = C_TARGET;
	} else if (ps == g->case_clause) {
		if (cs == g->case_pattern)
			f.ctx = C_PATTERN;
	}
	return f;
}

/* `name = None` in an except clause of a try whose body imports `name`. */
static bool none_idiom(mpsfix_names *n, const frame *stack, size_t depth)
{
	const grammar *g = &n->g;
	const frame *f = &stack[depth - 1];
	TSNode left = ts_node_child_by_field_id(f->node, g->f_left);
	TSNode right = ts_node_child_by_field_id(f->node, g->f_right);
	TSNode body;
	entry *e;
	uint32_t a;

	if (depth < 5 || ts_node_is_null(left) || ts_node_is_null(right) ||
	    ts_node_symbol(left) != g->identifier || ts_node_symbol(right) != g->none ||
	    ts_node_symbol(stack[depth - 2].node) != g->expression_statement ||
	    ts_node_symbol(stack[depth - 3].node) != g->block ||
	    ts_node_symbol(stack[depth - 4].node) != g->except_clause ||
	    ts_node_symbol(stack[depth - 5].node) != g->try_statement)
		return false;
	body = ts_node_child_by_field_id(stack[depth - 5].node, g->f_body);
	a = ts_node_start_byte(left);
	e = lookup(n, f->scope, n->src + a, ts_node_end_byte(left) - a, false);
	if (e && e->decl != D_NONE)
		e = binding_entry(n, f->scope, n->src + a, ts_node_end_byte(left) - a);
	return e && !ts_node_is_null(body) && e->import_pos != NONE_U32 &&
	       e->import_pos >= ts_node_start_byte(body) && e->import_pos < ts_node_end_byte(body);
}

static void declare(mpsfix_names *n, uint32_t sc, TSNode stmt, uint8_t decl)
{
	uint32_t count = ts_node_named_child_count(stmt);

	if (sc == 0)
		return;
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(stmt, i);
		uint32_t a = ts_node_start_byte(c);

		if (ts_node_symbol(c) == n->g.identifier)
			lookup(n, sc, n->src + a, ts_node_end_byte(c) - a, true)->decl = decl;
	}
}

/* Visit the node of the top frame: record what it binds; false to skip its children. */
static bool visit(mpsfix_names *n, frame *stack, size_t depth, mpsfix_buf *tmp)
{
	const grammar *g = &n->g;
	frame *f = &stack[depth - 1];
	TSNode node = f->node;
	TSSymbol s = ts_node_symbol(node);
	TSSymbol ps = depth > 1 ? ts_node_symbol(stack[depth - 2].node) : 0;

	if (s == g->identifier) {
		if (f->ctx == C_TARGET || f->ctx == C_PARAM)
			bind_local(n, f->scope, node);
		else if (f->ctx == C_WALRUS)
			bind_local(n, n->scopes.items[f->scope].kind == SC_COMPREHENSION ?
					      enclosing_function(n, f->scope) : f->scope, node);
		else if (f->ctx == C_PATTERN && (ps == g->splat_pattern || ps == g->as_pattern))
			bind_local(n, f->scope, node);
		return false;
	}
	if (s == g->import_statement) {
		record_import(n, f->scope, node, tmp);
		return false;
	}
	if (s == g->import_from_statement || s == g->future_import) {
		record_from_import(n, f->scope, node, s == g->future_import, tmp);
		return false;
	}
	if (s == g->global_statement || s == g->nonlocal_statement) {
		declare(n, f->scope, node, s == g->global_statement ? D_GLOBAL : D_NONLOCAL);
		return false;
	}
	if (f->ctx == C_PATTERN && s == g->dotted_name) {
		if ((ps == g->case_pattern || ps == g->keyword_pattern) &&
		    ts_node_named_child_count(node) == 1 &&
		    !mpsfix_node_text_is(ts_node_named_child(node, 0), n->src, "_"))
			bind_local(n, f->scope, ts_node_named_child(node, 0));
		return false;
	}
	if (s == g->function_definition || s == g->class_definition) {
		TSNode name = ts_node_child_by_field_id(node, g->f_name);

		if (!ts_node_is_null(name))
			bind_local(n, f->scope, name);
		f->newscope = new_scope(n, f->scope,
					s == g->class_definition ? SC_CLASS : SC_FUNCTION);
	} else if (s == g->lambda) {
		f->newscope = new_scope(n, f->scope, SC_FUNCTION);
	} else if (is_comprehension(g, s)) {
		f->newscope = new_scope(n, f->scope, SC_COMPREHENSION);
	} else if (s == g->assignment && none_idiom(n, stack, depth)) {
		f->no_bind = true;
	}
	return true;
}

static void add_segment(mpsfix_names *n, uint32_t start, uint32_t sc)
{
	if (n->segments.len && n->segments.items[n->segments.len - 1].start == start)
		n->segments.items[n->segments.len - 1].scope = sc;
	else
		ARRAY_PUSH(&n->segments, ((segment){start, sc}));
}

static void push_child(mpsfix_names *n, frame_stack *stack, TSTreeCursor *cur)
{
	frame *p = &stack->items[stack->len - 1];
	frame f = child_frame(n, p, ts_tree_cursor_current_node(cur),
			      ts_tree_cursor_current_field_id(cur));

	if (f.scope != p->scope)
		add_segment(n, ts_node_start_byte(f.node), f.scope);
	ARRAY_PUSH(stack, f);
}

static void pop_child(mpsfix_names *n, frame_stack *stack)
{
	frame *f = &stack->items[stack->len - 1], *p = f - 1;

	if (f->scope != p->scope)
		add_segment(n, ts_node_end_byte(f->node), p->scope);
	stack->len--;
}

static void load_grammar(grammar *g)
{
	const TSLanguage *lang = mpsfix_language();
#define SYM(field, kind) g->field = mpsfix_symbol(kind)
#define FIELD(field, name) g->field = ts_language_field_id_for_name(lang, name, (uint32_t)strlen(name))
	SYM(identifier, "identifier");
	SYM(attribute, "attribute");
	SYM(dotted_name, "dotted_name");
	SYM(aliased_import, "aliased_import");
	SYM(wildcard_import, "wildcard_import");
	SYM(import_statement, "import_statement");
	SYM(import_from_statement, "import_from_statement");
	SYM(future_import, "future_import_statement");
	SYM(function_definition, "function_definition");
	SYM(class_definition, "class_definition");
	SYM(lambda, "lambda");
	SYM(parameters, "parameters");
	SYM(lambda_parameters, "lambda_parameters");
	SYM(default_parameter, "default_parameter");
	SYM(typed_parameter, "typed_parameter");
	SYM(typed_default_parameter, "typed_default_parameter");
	SYM(list_splat_pattern, "list_splat_pattern");
	SYM(dictionary_splat_pattern, "dictionary_splat_pattern");
	SYM(tuple_pattern, "tuple_pattern");
	SYM(list_pattern, "list_pattern");
	SYM(pattern_list, "pattern_list");
	SYM(tuple, "tuple");
	SYM(list, "list");
	SYM(expression_list, "expression_list");
	SYM(parenthesized_expression, "parenthesized_expression");
	SYM(list_splat, "list_splat");
	SYM(as_pattern, "as_pattern");
	SYM(as_pattern_target, "as_pattern_target");
	SYM(assignment, "assignment");
	SYM(augmented_assignment, "augmented_assignment");
	SYM(for_statement, "for_statement");
	SYM(for_in_clause, "for_in_clause");
	SYM(named_expression, "named_expression");
	SYM(delete_statement, "delete_statement");
	SYM(global_statement, "global_statement");
	SYM(nonlocal_statement, "nonlocal_statement");
	SYM(list_comprehension, "list_comprehension");
	SYM(set_comprehension, "set_comprehension");
	SYM(dictionary_comprehension, "dictionary_comprehension");
	SYM(generator_expression, "generator_expression");
	SYM(except_clause, "except_clause");
	SYM(try_statement, "try_statement");
	SYM(block, "block");
	SYM(expression_statement, "expression_statement");
	SYM(none, "none");
	SYM(case_clause, "case_clause");
	SYM(case_pattern, "case_pattern");
	SYM(keyword_pattern, "keyword_pattern");
	SYM(splat_pattern, "splat_pattern");
	SYM(dict_pattern, "dict_pattern");
	SYM(comment, "comment");
	FIELD(f_name, "name");
	FIELD(f_alias, "alias");
	FIELD(f_module_name, "module_name");
	FIELD(f_parameters, "parameters");
	FIELD(f_body, "body");
	FIELD(f_type, "type");
	FIELD(f_left, "left");
	FIELD(f_right, "right");
	FIELD(f_key, "key");
#undef SYM
#undef FIELD
}

static void build(mpsfix_names *n)
{
	frame_stack stack = {0};
	mpsfix_buf tmp = MPSFIX_BUF_INIT;
	TSTreeCursor cur;

	if (n->built)
		return;
	n->built = true;
	load_grammar(&n->g);
	new_scope(n, NONE_U32, SC_MODULE);
	add_segment(n, 0, 0);
	if (ts_node_is_null(n->root))
		return;
	cur = ts_tree_cursor_new(n->root);
	ARRAY_PUSH(&stack, ((frame){.node = n->root, .scope = 0, .newscope = NONE_U32}));
	for (;;) {
		if (visit(n, stack.items, stack.len, &tmp) && ts_tree_cursor_goto_first_child(&cur)) {
			push_child(n, &stack, &cur);
			continue;
		}
		for (;;) {
			if (stack.len == 1)
				goto done;
			pop_child(n, &stack);
			if (ts_tree_cursor_goto_next_sibling(&cur)) {
				push_child(n, &stack, &cur);
				break;
			}
			ts_tree_cursor_goto_parent(&cur);
		}
	}
done:
	ts_tree_cursor_delete(&cur);
	free(stack.items);
	mpsfix_buf_release(&tmp);
}

/* ---- queries ----------------------------------------------------------------- */

mpsfix_names *mpsfix_names_new(TSNode root, const char *src, uint32_t len)
{
	mpsfix_names *n = mpsfix_xcalloc(1, sizeof(*n));

	n->root = root;
	n->src = src;
	n->len = len;
	return n;
}

void mpsfix_names_free(mpsfix_names *n)
{
	if (!n)
		return;
	free(n->scopes.items);
	free(n->entries.items);
	free(n->segments.items);
	free(n->imports.items);
	free(n->slots);
	free(n->top);
	free(n->top_import);
	mpsfix_buf_release(&n->strings);
	free(n);
}

/* The scope the code at byte `b` is evaluated in. */
static uint32_t scope_at(const mpsfix_names *n, uint32_t b)
{
	size_t lo = 0, hi = n->segments.len; /* first segment starting after b */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (n->segments.items[mid].start <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? n->segments.items[lo - 1].scope : 0;
}

/* The binding `name` refers to from scope `sc`; NULL if bound nowhere visible. */
static const entry *resolve(mpsfix_names *n, uint32_t sc, const char *name, uint32_t len)
{
	bool first = true;
	uint32_t s = sc;

	while (s != NONE_U32) {
		const entry *e;

		if (!first && n->scopes.items[s].kind == SC_CLASS) {
			s = n->scopes.items[s].parent;
			continue;
		}
		first = false;
		e = lookup(n, s, name, len, false);
		if (e && s != 0 && e->decl == D_GLOBAL) {
			s = 0;
			continue;
		}
		if (e && e->kind != B_NONE && (s == 0 || e->decl != D_NONLOCAL))
			return e;
		s = n->scopes.items[s].parent;
	}
	return NULL;
}

mpsfix_name_kind mpsfix_names_qualify(mpsfix_names *n, TSNode node, mpsfix_buf *out)
{
	const grammar *g;
	ARRAY(TSNode) chain = {0};
	mpsfix_name_kind kind = MPSFIX_NAME_NOT_NAME;
	const entry *e;
	TSNode cur = node;
	uint32_t a;

	mpsfix_buf_clear(out);
	build(n);
	g = &n->g;
	while (!ts_node_is_null(cur) && ts_node_symbol(cur) == g->attribute) {
		TSNode attr = ts_node_child_by_field_name(cur, "attribute", 9);

		if (ts_node_is_null(attr) || ts_node_symbol(attr) != g->identifier)
			goto done;
		ARRAY_PUSH(&chain, attr);
		cur = ts_node_child_by_field_name(cur, "object", 6);
	}
	if (ts_node_is_null(cur) || ts_node_symbol(cur) != g->identifier)
		goto done;
	a = ts_node_start_byte(cur);
	e = resolve(n, scope_at(n, a), n->src + a, ts_node_end_byte(cur) - a);
	if (e && e->kind == B_LOCAL) {
		kind = MPSFIX_NAME_LOCAL;
		goto done;
	}
	if (!e && n->has_star) {
		kind = MPSFIX_NAME_STAR;
		goto done;
	}
	if (e)
		mpsfix_buf_add(out, n->strings.data + e->qname, e->qlen);
	else
		mpsfix_buf_add(out, n->src + a, ts_node_end_byte(cur) - a);
	for (size_t i = chain.len; i-- > 0;) {
		TSNode at = chain.items[i];

		mpsfix_buf_addc(out, '.');
		mpsfix_buf_add(out, n->src + ts_node_start_byte(at),
			       ts_node_end_byte(at) - ts_node_start_byte(at));
	}
	kind = MPSFIX_NAME_RESOLVED;
done:
	free(chain.items);
	if (kind != MPSFIX_NAME_RESOLVED)
		mpsfix_buf_clear(out);
	return kind;
}

mpsfix_spell_kind mpsfix_names_spell(mpsfix_names *n, TSNode at, const char *qname, mpsfix_buf *out)
{
	size_t qlen = strlen(qname), rootlen = strcspn(qname, ".");
	uint32_t sc;
	const entry *best = NULL, *root;
	bool best_root = false;

	mpsfix_buf_clear(out);
	build(n);
	sc = scope_at(n, ts_node_is_null(at) ? 0 : ts_node_start_byte(at));
	for (size_t i = 0; i < n->imports.len; i++) {
		const entry *e = &n->entries.items[n->imports.items[i]];
		const char *eq = n->strings.data + e->qname;
		bool is_root, better;

		if (e->kind != B_IMPORT || e->qlen > qlen || memcmp(eq, qname, e->qlen) != 0 ||
		    (e->qlen < qlen && qname[e->qlen] != '.'))
			continue;
		if (resolve(n, sc, e->name, e->len) != e)
			continue; /* not visible there, or shadowed */
		is_root = e->qlen == rootlen;
		if (!best)
			better = true;
		else if (is_root != best_root)
			better = is_root;
		else if (e->qlen != best->qlen)
			better = e->qlen > best->qlen;
		else /* the same qualified name: the plain spelling, else the first */
			better = e->len == e->qlen && memcmp(e->name, eq, e->len) == 0 &&
				 !(best->len == best->qlen &&
				   memcmp(best->name, n->strings.data + best->qname, best->len) == 0);
		if (better) {
			best = e;
			best_root = is_root;
		}
	}
	if (best) {
		mpsfix_buf_add(out, best->name, best->len);
		mpsfix_buf_add(out, qname + best->qlen, qlen - best->qlen);
		return MPSFIX_SPELL_OK;
	}
	root = resolve(n, sc, qname, (uint32_t)rootlen);
	if (!root)
		return MPSFIX_SPELL_NEED_IMPORT;
	return MPSFIX_SPELL_SHADOWED;
}

bool mpsfix_names_star_import(mpsfix_names *n, const char **module, size_t *module_len, uint32_t *byte)
{
	build(n);
	if (!n->has_star)
		return false;
	if (module)
		*module = n->src + n->star_module;
	if (module_len)
		*module_len = n->star_module_len;
	if (byte)
		*byte = n->star_byte;
	return true;
}

/* ---- the module's statements and imports ------------------------------------ */

/* The module's statements, in order, with one cursor walk: calling
 * ts_node_named_child(root, i) for each i walks from the first child every
 * time, which made placing an import (fix_import.c) quadratic in big modules. */
static void build_top(mpsfix_names *n)
{
	const grammar *g = &n->g;
	uint32_t cap, last = 0;
	TSTreeCursor cur;

	n->top_built = true;
	if (ts_node_is_null(n->root) || !(cap = ts_node_named_child_count(n->root)))
		return;
	n->top = mpsfix_xcalloc(cap, sizeof(*n->top));
	n->top_import = mpsfix_xcalloc(cap, sizeof(*n->top_import));
	cur = ts_tree_cursor_new(n->root);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode c = ts_tree_cursor_current_node(&cur);
			TSSymbol s = ts_node_symbol(c);

			if (!ts_node_is_named(c) || s == g->comment || ts_node_is_extra(c) ||
			    n->ntop == cap)
				continue;
			if (s == g->import_statement || s == g->import_from_statement ||
			    s == g->future_import)
				last = n->ntop + 1;
			n->top_import[n->ntop] = last;
			n->top[n->ntop++] = c;
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
}

void mpsfix_names_module_imports(mpsfix_names *n, mpsfix_module_imports *out)
{
	build(n);
	if (!n->top_built)
		build_top(n);
	*out = (mpsfix_module_imports){
		.src = n->src, .len = n->len, .top = n->top, .top_import = n->top_import, .ntop = n->ntop,
	};
}
