/*
 * parse.c: the tree-sitter boundary for Python: the pinned grammar, parser
 * creation with an ABI check, error counting that works at any depth, and
 * what a few queries ask of a node (dotted names, purity, imports).
 */
#include "parse.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the Makefile reads it from grammars/tree-sitter-python.pin */
#ifndef MPSFIX_GRAMMAR_VERSION
#error "MPSFIX_GRAMMAR_VERSION is not defined: build with make"
#endif

/* ts_builtin_sym_error of tree_sitter/parser.h, which is the grammar's header */
#define SYM_ERROR ((TSSymbol)-1)

const TSLanguage *tree_sitter_python(void);

const TSLanguage *mpsfix_language(void)
{
	return tree_sitter_python();
}

const char *mpsfix_grammar_version(void)
{
	return MPSFIX_GRAMMAR_VERSION;
}

int mpsfix_parser_new(TSParser **out)
{
	const TSLanguage *lang = mpsfix_language();
	uint32_t abi = ts_language_abi_version(lang);
	TSParser *parser;

	*out = NULL;
	if (abi < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION ||
	    abi > TREE_SITTER_LANGUAGE_VERSION)
		return mpsfix_error_set(MPSFIX_ERROR,
					"grammar ABI %u is not supported by this tree-sitter runtime (%u..%u)",
					abi, (unsigned)TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
					(unsigned)TREE_SITTER_LANGUAGE_VERSION);
	parser = ts_parser_new();
	if (!ts_parser_set_language(parser, lang)) {
		ts_parser_delete(parser);
		return mpsfix_error_set(MPSFIX_ERROR,
					"tree-sitter cannot load the Python grammar (ABI %u)", abi);
	}
	*out = parser;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* parsing, with a time limit                                                */

typedef struct {
	const char *data;
	uint32_t len;
} string_input;

static const char *read_string(void *payload, uint32_t byte, TSPoint point, uint32_t *bytes_read)
{
	const string_input *in = payload;

	(void)point;
	if (byte >= in->len) {
		*bytes_read = 0;
		return "";
	}
	*bytes_read = in->len - byte;
	return in->data + byte;
}

typedef struct {
	struct timespec deadline;
	bool out_of_time;
} parse_clock;

/* the runtime's progress callback (every 100 parse operations): true stops */
static bool past_deadline(TSParseState *state)
{
	parse_clock *c = state->payload;
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) < 0)
		return false;
	if (now.tv_sec > c->deadline.tv_sec ||
	    (now.tv_sec == c->deadline.tv_sec && now.tv_nsec >= c->deadline.tv_nsec))
		c->out_of_time = true;
	return c->out_of_time;
}

int mpsfix_parse_timed(TSTree **out, TSParser *parser, const char *name,
		       const char *data, uint32_t len, uint64_t timeout_us)
{
	string_input in = {data, len};
	TSInput input = {.payload = &in, .read = read_string, .encoding = TSInputEncodingUTF8};
	parse_clock clock = {{0, 0}, false};
	TSParseOptions options = {.payload = &clock, .progress_callback = NULL};

	*out = NULL;
	/*
	 * The grammar's external scanner (0.23.6) keeps `inside_f_string` from
	 * the end of one parse into the next (its reset forgets that field): a
	 * file ending inside an f-string made the next file's dedents vanish, and
	 * its parse depend on which file came before.  Setting the language
	 * again gives the parser a new scanner.
	 */
	if (!ts_parser_set_language(parser, ts_parser_language(parser)))
		return mpsfix_error_set(MPSFIX_ERROR, "%s%scannot reset the parser's language",
					name ? name : "", name ? ": " : "");
	if (timeout_us && clock_gettime(CLOCK_MONOTONIC, &clock.deadline) == 0) {
		uint64_t ns = (uint64_t)clock.deadline.tv_nsec + (timeout_us % 1000000u) * 1000u;

		clock.deadline.tv_sec += (time_t)(timeout_us / 1000000u + ns / 1000000000u);
		clock.deadline.tv_nsec = (long)(ns % 1000000000u);
		options.progress_callback = past_deadline;
	}
	*out = ts_parser_parse_with_options(parser, NULL, input, options);
	if (*out)
		return 0;
	/* a stopped parse would otherwise resume on the next call */
	ts_parser_reset(parser);
	if (clock.out_of_time)
		return mpsfix_error_set(MPSFIX_ESKIP,
					"%s%sskipped: parsing took longer than %llu ms",
					name ? name : "", name ? ": " : "",
					(unsigned long long)(timeout_us / 1000));
	return mpsfix_error_set(MPSFIX_ERROR, "%s%stree-sitter stopped parsing (no language)",
				name ? name : "", name ? ": " : "");
}

int mpsfix_parse_named(TSTree **out, TSParser *parser, const char *name,
		       const char *data, uint32_t len)
{
	return mpsfix_parse_timed(out, parser, name, data, len, MPSFIX_PARSE_TIMEOUT_US(len));
}

int mpsfix_parse(TSTree **out, TSParser *parser, const char *data, uint32_t len)
{
	return mpsfix_parse_timed(out, parser, NULL, data, len, 0);
}

static bool is_bad(TSNode node)
{
	return ts_node_symbol(node) == SYM_ERROR || ts_node_is_missing(node);
}


bool mpsfix_node_in_error(TSNode node)
{
	if (ts_node_is_null(node))
		return false;
	if (ts_node_is_missing(node))
		return true;
	/* no error anywhere in the tree: nothing to walk */
	if (!ts_node_has_error(ts_tree_root_node(node.tree)))
		return false;
	for (TSNode n = node; !ts_node_is_null(n); n = ts_node_parent(n))
		if (ts_node_symbol(n) == SYM_ERROR)
			return true;
	return false;
}

TSSymbol mpsfix_symbol(const char *kind)
{
	return ts_language_symbol_for_name(mpsfix_language(), kind,
					   (uint32_t)strlen(kind), true);
}

bool mpsfix_walk(TSNode root, mpsfix_walk_action (*visit)(TSNode node, void *payload),
		 void *payload)
{
	TSTreeCursor cur = ts_tree_cursor_new(root);
	bool stopped = false;

	for (;;) {
		mpsfix_walk_action a = visit(ts_tree_cursor_current_node(&cur), payload);

		if (a == MPSFIX_WALK_STOP) {
			stopped = true;
			break;
		}
		if (a == MPSFIX_WALK_DESCEND && ts_tree_cursor_goto_first_child(&cur))
			continue;
		/* the cursor cannot leave `root`: its parent is out of reach */
		while (!ts_tree_cursor_goto_next_sibling(&cur))
			if (!ts_tree_cursor_goto_parent(&cur))
				goto done;
	}
done:
	ts_tree_cursor_delete(&cur);
	return !stopped;
}

TSNode mpsfix_up(const mpsfix_ancestors *up, size_t k)
{
	TSNode n;

	if (k == 0)
		return (TSNode){0};
	if (k <= up->len)
		return up->items[up->len - k];
	for (n = up->top, k -= up->len; k > 0 && !ts_node_is_null(n); k--)
		n = ts_node_parent(n);
	return n;
}

void mpsfix_ancestors_of(TSNode node, mpsfix_ancestors *out)
{
	TSNode a;

	out->len = 0;
	out->top = node;
	if (ts_node_is_null(node))
		return;
	out->top = ts_tree_root_node(node.tree);
	for (a = out->top; !ts_node_is_null(a) && !ts_node_eq(a, node);
	     a = ts_node_child_with_descendant(a, node))
		ARRAY_PUSH(out, a);
}

bool mpsfix_walk_parents(TSNode root,
			 mpsfix_walk_action (*visit)(TSNode node, const mpsfix_ancestors *up, void *payload),
			 void *payload)
{
	TSTreeCursor cur = ts_tree_cursor_new(root);
	mpsfix_ancestors up = {.top = root};
	bool stopped = false;

	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		mpsfix_walk_action a = visit(n, &up, payload);

		if (a == MPSFIX_WALK_STOP) {
			stopped = true;
			break;
		}
		if (a == MPSFIX_WALK_DESCEND && ts_tree_cursor_goto_first_child(&cur)) {
			ARRAY_PUSH(&up, n);
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&cur)) {
			if (!ts_tree_cursor_goto_parent(&cur))
				goto done;
			up.len--;
		}
	}
done:
	free(up.items);
	ts_tree_cursor_delete(&cur);
	return !stopped;
}

static mpsfix_walk_action find_error(TSNode n, void *payload)
{
	if (is_bad(n)) {
		*(TSNode *)payload = n;
		return MPSFIX_WALK_STOP;
	}
	return ts_node_has_error(n) ? MPSFIX_WALK_DESCEND : MPSFIX_WALK_SKIP;
}

bool mpsfix_first_error(TSNode node, TSNode *out)
{
	return !mpsfix_walk(node, find_error, out);
}

static mpsfix_walk_action count_error(TSNode n, void *payload)
{
	if (is_bad(n))
		(*(uint32_t *)payload)++;
	/* subtrees without errors are skipped */
	return ts_node_has_error(n) ? MPSFIX_WALK_DESCEND : MPSFIX_WALK_SKIP;
}

uint32_t mpsfix_error_count(TSNode node)
{
	uint32_t count = 0;

	if (ts_node_is_null(node) || !ts_node_has_error(node))
		return 0;
	mpsfix_walk(node, count_error, &count);
	return count;
}

TSNode mpsfix_next_token(TSNode n)
{
	TSNode p = ts_node_next_sibling(n);

	while (!ts_node_is_null(p) && ts_node_is_extra(p))
		p = ts_node_next_sibling(p);
	return p;
}

TSNode mpsfix_prev_token(TSNode n)
{
	TSNode p = ts_node_prev_sibling(n);

	while (!ts_node_is_null(p) && ts_node_is_extra(p))
		p = ts_node_prev_sibling(p);
	return p;
}

char *mpsfix_node_text(TSNode n, const char *src)
{
	return mpsfix_xstrndup(src + ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
}

bool mpsfix_node_text_is(TSNode n, const char *src, const char *s)
{
	uint32_t a, b;

	if (ts_node_is_null(n))
		return false;
	a = ts_node_start_byte(n);
	b = ts_node_end_byte(n);
	return strlen(s) == b - a && memcmp(src + a, s, b - a) == 0;
}

static bool dotted_at(TSNode node, const char *src, mpsfix_buf *out, int depth)
{
	const char *type = ts_node_type(node);

	if (depth > 256)
		return false;
	if (!strcmp(type, "identifier")) {
		mpsfix_buf_add(out, src + ts_node_start_byte(node),
			       ts_node_end_byte(node) - ts_node_start_byte(node));
		return true;
	}
	if (!strcmp(type, "attribute")) {
		TSNode obj = ts_node_child_by_field_name(node, "object", 6);
		TSNode attr = ts_node_child_by_field_name(node, "attribute", 9);

		if (ts_node_is_null(obj) || ts_node_is_null(attr) || !dotted_at(obj, src, out, depth + 1))
			return false;
		mpsfix_buf_addc(out, '.');
		return dotted_at(attr, src, out, depth + 1);
	}
	return false;
}

bool mpsfix_dotted_name(TSNode node, const char *src, mpsfix_buf *out)
{
	return dotted_at(node, src, out, 0);
}

static bool node_is(TSNode n, const char *type)
{
	return strcmp(ts_node_type(n), type) == 0;
}

static bool pure_at(TSNode n, int depth)
{
	const char *t = ts_node_type(n);

	if (depth > 64)
		return false;
	if (!strcmp(t, "identifier") || !strcmp(t, "integer") || !strcmp(t, "float") ||
	    !strcmp(t, "true") || !strcmp(t, "false") || !strcmp(t, "none") || !strcmp(t, "ellipsis"))
		return true;
	if (!strcmp(t, "string")) {
		for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
			if (node_is(ts_node_named_child(n, i), "interpolation"))
				return false;
		return true;
	}
	if (!strcmp(t, "unary_operator")) {
		TSNode arg = ts_node_child_by_field_name(n, "argument", 8);

		return !ts_node_is_null(arg) && (node_is(arg, "integer") || node_is(arg, "float"));
	}
	if (!strcmp(t, "attribute"))
		return pure_at(ts_node_child_by_field_name(n, "object", 6), depth + 1);
	if (!strcmp(t, "subscript") || !strcmp(t, "tuple") || !strcmp(t, "parenthesized_expression") ||
	    !strcmp(t, "concatenated_string") || !strcmp(t, "slice")) {
		for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
			TSNode c = ts_node_named_child(n, i);

			if (!ts_node_is_extra(c) && !pure_at(c, depth + 1))
				return false;
		}
		return true;
	}
	return false;
}

bool mpsfix_node_pure(TSNode node, const char *src)
{
	(void)src;
	return pure_at(node, 0);
}

TSNode mpsfix_first_import_of(TSNode root, const char *src, const char *module)
{
	for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
		TSNode st = ts_node_named_child(root, i), name = {0};

		if (!strcmp(ts_node_type(st), "import_from_statement")) {
			name = ts_node_child_by_field_name(st, "module_name", 11);
			if (!strcmp(ts_node_type(name), "dotted_name") &&
			    mpsfix_node_text_is(ts_node_named_child(name, 0), src, module))
				return st;
		} else if (!strcmp(ts_node_type(st), "import_statement")) {
			for (uint32_t k = 0; k < ts_node_named_child_count(st); k++) {
				name = ts_node_named_child(st, k);
				if (!strcmp(ts_node_type(name), "aliased_import"))
					name = ts_node_child_by_field_name(name, "name", 4);
				if (!strcmp(ts_node_type(name), "dotted_name") &&
				    mpsfix_node_text_is(ts_node_named_child(name, 0), src, module))
					return st;
			}
		}
	}
	return (TSNode){0};
}

/* ---- indentation -------------------------------------------------------------- */

uint32_t mpsfix_line_start(const char *src, uint32_t at)
{
	while (at > 0 && src[at - 1] != '\n' && src[at - 1] != '\r')
		at--;
	return at;
}

uint32_t mpsfix_indent_end(const char *src, uint32_t len, uint32_t line_start)
{
	while (line_start < len && (src[line_start] == ' ' || src[line_start] == '\t'))
		line_start++;
	return line_start;
}

/* The step of `block`: how much deeper its first statement, on a line of its
 * own, is indented than the line its compound statement starts on. */
static bool block_step(TSNode block, const char *src, uint32_t len, mpsfix_span *step)
{
	TSNode header = ts_node_parent(block), first = {0};
	uint32_t hs, he, fs, fe;

	for (uint32_t i = 0; i < ts_node_named_child_count(block) && ts_node_is_null(first); i++)
		if (!ts_node_is_extra(ts_node_named_child(block, i)))
			first = ts_node_named_child(block, i);
	if (ts_node_is_null(first) || ts_node_is_null(header))
		return false;
	hs = mpsfix_line_start(src, ts_node_start_byte(header));
	he = mpsfix_indent_end(src, len, hs);
	fs = mpsfix_line_start(src, ts_node_start_byte(first));
	fe = mpsfix_indent_end(src, len, fs);
	if (fs <= hs || fe != ts_node_start_byte(first) || fe - fs <= he - hs ||
	    memcmp(src + fs, src + hs, he - hs) != 0)
		return false;
	*step = (mpsfix_span){fs + (he - hs), fe};
	return true;
}

typedef struct {
	const char *src;
	uint32_t len;
	TSSymbol block;
	mpsfix_span step;
	bool found;
} step_scan;

static mpsfix_walk_action find_step(TSNode n, void *payload)
{
	step_scan *ss = payload;

	if (ts_node_symbol(n) == ss->block && block_step(n, ss->src, ss->len, &ss->step)) {
		ss->found = true;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

bool mpsfix_indent_step(TSNode node, const char *src, uint32_t len, mpsfix_span *step)
{
	step_scan ss = {src, len, mpsfix_symbol("block"), {0, 0}, false};
	TSNode root = node;

	for (TSNode a = node; !ts_node_is_null(a); a = ts_node_parent(a)) {
		if (ts_node_symbol(a) == ss.block && block_step(a, src, len, step))
			return true;
		root = a;
	}
	mpsfix_walk(root, find_step, &ss);
	*step = ss.step;
	return ss.found;
}

void mpsfix_kids_start(mpsfix_kids *k, TSNode n)
{
	k->live = !ts_node_is_null(n);
	k->more = false;
	if (k->live) {
		k->cur = ts_tree_cursor_new(n);
		k->more = ts_tree_cursor_goto_first_child(&k->cur);
	}
}

bool mpsfix_kids_next(mpsfix_kids *k, TSNode *out)
{
	while (k->more) {
		TSNode c = ts_tree_cursor_current_node(&k->cur);

		k->more = ts_tree_cursor_goto_next_sibling(&k->cur);
		if (ts_node_is_named(c) && !ts_node_is_extra(c)) {
			*out = c;
			return true;
		}
	}
	return false;
}

void mpsfix_kids_end(mpsfix_kids *k)
{
	if (k->live)
		ts_tree_cursor_delete(&k->cur);
	k->live = false;
}

bool mpsfix_node_same_text(TSNode a, TSNode b, const char *src)
{
	uint32_t len;

	if (ts_node_is_null(a) || ts_node_is_null(b))
		return false; /* a null node has no tree to measure it in */
	len = ts_node_end_byte(a) - ts_node_start_byte(a);
	return len == ts_node_end_byte(b) - ts_node_start_byte(b) &&
	       !memcmp(src + ts_node_start_byte(a), src + ts_node_start_byte(b), len);
}

uint64_t mpsfix_hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

uint64_t mpsfix_node_hash(TSNode n, const char *src)
{
	return mpsfix_hash_bytes(src + ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
}

uint32_t mpsfix_named_count(TSNode n)
{
	return ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
}

bool mpsfix_field_is(TSNode parent, const char *field, TSNode n)
{
	return ts_node_eq(ts_node_child_by_field_name(parent, field, (uint32_t)strlen(field)), n);
}

TSNode mpsfix_unparenthesized(TSNode n)
{
	TSNode inner;

	while (!ts_node_is_null(n) && !strcmp(ts_node_type(n), "parenthesized_expression") &&
	       !ts_node_is_null(inner = mpsfix_first_named(n)))
		n = inner;
	return n;
}

TSNode mpsfix_first_named(TSNode n)
{
	for (uint32_t i = 0; i < mpsfix_named_count(n); i++)
		if (!ts_node_is_extra(ts_node_named_child(n, i)))
			return ts_node_named_child(n, i);
	return (TSNode){0};
}

TSNode mpsfix_call_argument(TSNode args, const char *src, const char *name)
{
	TSNode first = {0};

	for (uint32_t i = 0; i < mpsfix_named_count(args); i++) {
		TSNode a = ts_node_named_child(args, i);

		if (!strcmp(ts_node_type(a), "keyword_argument")) {
			if (mpsfix_node_text_is(ts_node_child_by_field_name(a, "name", 4), src, name))
				return ts_node_child_by_field_name(a, "value", 5);
		} else if (ts_node_is_null(first) && !ts_node_is_extra(a)) {
			first = a;
		}
	}
	return first;
}

/* Is `n` the string "__main__" (either quote, no prefix)? */
static bool main_string(TSNode n, const char *src)
{
	return mpsfix_node_text_is(n, src, "\"__main__\"") || mpsfix_node_text_is(n, src, "'__main__'");
}

TSNode mpsfix_main_block(TSNode root, const char *src)
{
	mpsfix_kids k;
	TSNode s, cond, a, b, found = {0};

	mpsfix_kids_start(&k, root);
	while (ts_node_is_null(found) && mpsfix_kids_next(&k, &s)) {
		if (strcmp(ts_node_type(s), "if_statement"))
			continue;
		cond = mpsfix_unparenthesized(ts_node_child_by_field_name(s, "condition", 9));
		if (ts_node_is_null(cond) || strcmp(ts_node_type(cond), "comparison_operator") ||
		    mpsfix_named_count(cond) != 2 || ts_node_child_count(cond) != 3 ||
		    strcmp(ts_node_type(ts_node_child(cond, 1)), "=="))
			continue;
		a = ts_node_named_child(cond, 0);
		b = ts_node_named_child(cond, 1);
		if ((mpsfix_node_text_is(a, src, "__name__") && main_string(b, src)) ||
		    (main_string(a, src) && mpsfix_node_text_is(b, src, "__name__")))
			found = s;
	}
	mpsfix_kids_end(&k);
	return found;
}

TSNode mpsfix_param_name(TSNode p)
{
	const char *t = ts_node_is_null(p) ? "" : ts_node_type(p);

	if (!strcmp(t, "identifier"))
		return p;
	if (!strcmp(t, "default_parameter") || !strcmp(t, "typed_default_parameter"))
		return ts_node_child_by_field_name(p, "name", 4);
	if (!strcmp(t, "typed_parameter") || !strcmp(t, "list_splat_pattern") || !strcmp(t, "dictionary_splat_pattern"))
		return mpsfix_param_name(ts_node_named_child(p, 0));
	return (TSNode){0};
}

/* Is `n` a node of type `type` (false for a null node)? */
static bool is_type(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && node_is(n, type);
}

/*
 * The most nodes an annotation's name is read under (`Optional[Dict[str,
 * List[C]]]` is 8): a chain of 100,000 `x + x` is no annotation, and
 * climbing it for each of its names would take the square of its length.
 */
#define ANNOTATION_DEPTH 64

/* Can an annotation hold node `up` on the way to its `type`? */
static bool annotation_part(TSNode up)
{
	return is_type(up, "subscript") || is_type(up, "attribute") || is_type(up, "binary_operator") ||
	       is_type(up, "generic_type") || is_type(up, "type_parameter") || is_type(up, "string") ||
	       is_type(up, "concatenated_string");
}

bool mpsfix_in_annotation(TSNode n)
{
	TSNode up = ts_node_parent(n);

	for (int i = 0; i < ANNOTATION_DEPTH && !ts_node_is_null(up); i++, up = ts_node_parent(up)) {
		if (is_type(up, "type"))
			return true;
		if (!annotation_part(up))
			return false;
	}
	return false;
}

bool mpsfix_typing_only(TSNode id, const char *src)
{
	TSNode p = ts_node_parent(id), call;

	if (mpsfix_in_annotation(id))
		return true;
	if (is_type(p, "tuple"))
		p = ts_node_parent(p);
	if (!is_type(p, "argument_list") ||
	    !ts_node_eq(ts_node_named_child(p, 1), is_type(ts_node_parent(id), "tuple") ? ts_node_parent(id) : id))
		return false;
	call = ts_node_parent(p);
	return is_type(call, "call") &&
	       (mpsfix_node_text_is(ts_node_child_by_field_name(call, "function", 8), src, "isinstance") ||
		mpsfix_node_text_is(ts_node_child_by_field_name(call, "function", 8), src, "issubclass"));
}

/* The name a call's function ends with (`f`, `x.f`); `*obj` gets x (null: none). */
static bool last_name(TSNode fn, const char *src, const char *name, TSNode *obj)
{
	*obj = (TSNode){0};
	if (is_type(fn, "attribute")) {
		*obj = ts_node_child_by_field_name(fn, "object", 6);
		fn = ts_node_child_by_field_name(fn, "attribute", 9);
	}
	return is_type(fn, "identifier") && mpsfix_node_text_is(fn, src, name);
}

/* Is `n` a name or an attribute whose last name is `a` or `b` (mock, unittest.mock)? */
static bool one_of(TSNode n, const char *src, const char *a, const char *b)
{
	if (is_type(n, "attribute"))
		n = ts_node_child_by_field_name(n, "attribute", 9);
	return is_type(n, "identifier") && (mpsfix_node_text_is(n, src, a) || mpsfix_node_text_is(n, src, b));
}

bool mpsfix_string_inert(TSNode n, const char *src)
{
	TSNode str = ts_node_parent(n), args = ts_node_parent(str), call = ts_node_parent(args), fn, obj, o2, a;
	uint32_t positional = 0, at = UINT32_MAX;

	if (!is_type(str, "string") || !is_type(args, "argument_list") || !is_type(call, "call"))
		return false;
	for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
		a = ts_node_named_child(args, i);
		if (is_type(a, "keyword_argument") || is_type(a, "comment"))
			continue;
		if (is_type(a, "list_splat") || is_type(a, "dictionary_splat"))
			return false; /* where the string lands is not known */
		if (ts_node_eq(a, str))
			at = positional;
		positional++;
	}
	fn = ts_node_child_by_field_name(call, "function", 8);
	/* setattr(m, "f", g); monkeypatch.setattr(m, "f", g), monkeypatch.setattr("pkg.m.f", g) */
	if (last_name(fn, src, "setattr", &obj) && (ts_node_is_null(obj) || one_of(obj, src, "monkeypatch", "mp")))
		return (positional == 3 && at == 1) || (!ts_node_is_null(obj) && positional == 2 && at == 0);
	if (last_name(fn, src, "delattr", &obj) && (ts_node_is_null(obj) || one_of(obj, src, "monkeypatch", "mp")))
		return positional == 2 && at == 1;
	/* patch("pkg.m.f"), mock.patch(...), mocker.patch(...), unittest.mock.patch(...), and .object(m, "f") */
	if (last_name(fn, src, "patch", &obj) && (ts_node_is_null(obj) || one_of(obj, src, "mock", "mocker")))
		return at == 0;
	return last_name(fn, src, "object", &obj) && last_name(obj, src, "patch", &o2) &&
	       (ts_node_is_null(o2) || one_of(o2, src, "mock", "mocker")) && at == 1;
}

bool mpsfix_in_import(TSNode n)
{
	TSNode p = n;

	for (int up = 0; up < 3 && !ts_node_is_null(p = ts_node_parent(p)); up++)
		if (is_type(p, "import_statement") || is_type(p, "import_from_statement"))
			return true;
	return false;
}

bool mpsfix_attribute_root(TSNode obj, TSNode *root)
{
	while (is_type(obj, "attribute"))
		obj = ts_node_child_by_field_name(obj, "object", 6);
	*root = obj;
	return is_type(obj, "identifier");
}

bool mpsfix_in_annotation_up(const mpsfix_ancestors *up, size_t k)
{
	size_t last = k + ANNOTATION_DEPTH;

	for (TSNode a = mpsfix_up(up, k); k < last && !ts_node_is_null(a); a = mpsfix_up(up, ++k)) {
		if (is_type(a, "type"))
			return true;
		if (!annotation_part(a))
			return false;
	}
	return false;
}

bool mpsfix_class_attribute(TSNode id, TSNode parent, const char *src)
{
	TSNode attr;

	if (!is_type(parent, "attribute") || !mpsfix_field_is(parent, "object", id))
		return false;
	attr = ts_node_child_by_field_name(parent, "attribute", 9);
	return !mpsfix_node_text_is(attr, src, "__init__") && !mpsfix_node_text_is(attr, src, "__new__") &&
	       !mpsfix_node_text_is(attr, src, "__call__");
}

bool mpsfix_falsy_literal(TSNode n, const char *src)
{
	n = mpsfix_unparenthesized(n);
	if (ts_node_is_null(n))
		return false;
	if (is_type(n, "none") || is_type(n, "false"))
		return true;
	if (is_type(n, "integer"))
		return mpsfix_node_text_is(n, src, "0");
	/* "" or '': a string of no content (no string_content, no interpolation) */
	return is_type(n, "string") && mpsfix_named_count(n) == 2;
}
