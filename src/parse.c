/*
 * parse.c: the tree-sitter boundary for Python: the pinned grammar, parser
 * creation with an ABI check, and error counting that works at any depth.
 */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

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
	uint32_t abi = ts_language_version(lang);
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
/* the runtime's depth limit                                                 */

/*
 * The tree-sitter 0.20 runtime corrupts its heap (an invalid free() inside
 * ts_parser_parse) when it reaches the end of the input with a parse stack
 * deeper than about 65,535 entries: brackets left open, or long chains of
 * prefix or right-associative operators left dangling by syntax errors
 * (errors on successive lines add up).  Valid code never gets there, however
 * deep its brackets, because its constructs reduce as they close.  The scan
 * below is a cheap, conservative estimate of that depth from the tokens.
 */

enum tok { T_START, T_OPERAND, T_OPEN, T_CLOSE, T_SEP, T_OP };

typedef struct {
	char close;     /* the closer that ends this level; 0 at the top */
	uint32_t item;  /* tokens since the level's last comma or new line */
	uint32_t chain; /* right-associative operators in that item */
} level;

typedef struct {
	ARRAY(level) levels;
	uint64_t dangling; /* operators that may never reduce */
	uint32_t run;      /* prefix operators waiting for an operand */
	enum tok prev;
	bool prev_string;  /* prev is a string literal */
} depth_scan;

/* right-associative chains longer than this are counted as dangling */
#define CHAIN_OK 64
/* the most tokens of one open level counted as left on the stack */
#define ITEM_MAX 64

static level *top(depth_scan *s)
{
	return &s->levels.items[s->levels.len - 1];
}

static bool unary_position(const depth_scan *s)
{
	return s->prev != T_OPERAND && s->prev != T_CLOSE;
}

/* the waiting prefix operators got no operand: they may stay on the stack */
static void end_run(depth_scan *s)
{
	s->dangling += s->run;
	s->run = 0;
}

static void operand(depth_scan *s, bool string)
{
	/* two operands in a row are an error the runtime recovers from,
	 * except for adjacent strings */
	if (!unary_position(s) && !(string && s->prev_string))
		top(s)->chain = 0;
	s->run = 0;
	top(s)->item++;
	s->prev = T_OPERAND;
	s->prev_string = string;
}

static void chain(depth_scan *s)
{
	if (++top(s)->chain > CHAIN_OK)
		s->dangling++;
}

/* kw is a string literal: its length is known without strlen */
#define is_word(w, n, kw) ((n) == sizeof(kw) - 1 && memcmp((w), (kw), sizeof(kw) - 1) == 0)

static void word(depth_scan *s, const char *w, size_t n)
{
#define KW(k) {k, sizeof(k) - 1}
	static const struct {
		const char *s;
		size_t n;
	} keywords[] = {
		KW("and"), KW("as"), KW("assert"), KW("async"), KW("break"), KW("class"),
		KW("continue"), KW("def"), KW("del"), KW("elif"), KW("except"), KW("finally"),
		KW("for"), KW("from"), KW("global"), KW("import"), KW("in"), KW("is"),
		KW("nonlocal"), KW("or"), KW("pass"), KW("raise"), KW("return"), KW("try"),
		KW("while"), KW("with"),
	};
#undef KW

	/* every keyword is 2 to 8 letters, lower case but for True, False, None */
	if (n < 2 || n > 8 || (!(*w >= 'a' && *w <= 'z') && !strchr("TFN", *w))) {
		operand(s, false);
		return;
	}
	if (is_word(w, n, "True") || is_word(w, n, "False") || is_word(w, n, "None")) {
		operand(s, false);
		return;
	}
	bool prefix = is_word(w, n, "lambda") || is_word(w, n, "yield") ||
		      ((is_word(w, n, "not") || is_word(w, n, "await")) && unary_position(s));
	if (prefix) {
		s->run++;
		top(s)->item++;
		s->prev = T_OP;
		return;
	}
	if ((is_word(w, n, "if") || is_word(w, n, "else")) && !unary_position(s)) {
		chain(s); /* a conditional expression */
		top(s)->item++;
		s->prev = T_OP;
		return;
	}
	bool keyword = is_word(w, n, "not") || is_word(w, n, "if") || is_word(w, n, "else");
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(keywords) && !keyword; i++)
		keyword = keywords[i].n == n && memcmp(w, keywords[i].s, n) == 0;
	if (keyword) {
		end_run(s);
		top(s)->item++;
		s->prev = T_OP;
		return;
	}
	operand(s, false); /* a name (soft keywords included) */
}

static void op(depth_scan *s, const char *o, size_t n)
{
	bool minus = n == 1 && (*o == '-' || *o == '+' || *o == '~');
	bool power = n == 2 && o[0] == '*' && o[1] == '*';
	bool assign = (n == 1 && *o == '=') || (n == 2 && o[0] == ':' && o[1] == '=');

	if (unary_position(s)) {
		/* `*`, `:` and `/` also appear alone in valid code (f(*, a), x[:]) */
		if (minus || power)
			s->run++;
	} else if (power || assign) {
		chain(s);
	}
	top(s)->item++;
	s->prev = T_OP;
}

static size_t skip_string(const char *p, const char *end)
{
	const char *q = p;
	char quote = *q;
	bool triple = end - q >= 3 && q[1] == quote && q[2] == quote;

	q += triple ? 3 : 1;
	while (q < end) {
		if (*q == '\\' && q + 1 < end) {
			q += 2;
			continue;
		}
		if (!triple && *q == '\n')
			break; /* unterminated: ends with its line */
		if (*q == quote && (!triple || (end - q >= 3 && q[1] == quote && q[2] == quote)))
			return (size_t)(q - p) + (triple ? 3 : 1);
		q++;
	}
	return (size_t)(q - p);
}

static bool name_byte(unsigned char c)
{
	return c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static bool string_prefix(const char *p, size_t n)
{
	if (n > 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("rRbBuUfF", p[i]))
			return false;
	return true;
}

uint32_t mpsfix_parse_open_estimate(const char *data, uint32_t len)
{
	static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "..."};
	static const char *const ops2[] = {
		"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=",
		"*=", "/=", "%=", "&=", "|=", "^=", "@=",
	};
	depth_scan s = {.prev = T_START};
	const char *p = data, *end = data + len;

	ARRAY_PUSH(&s.levels, ((level){0, 0, 0}));
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		size_t n = 1;

		if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
			p++;
			continue;
		}
		if (c == '\n') {
			if (s.levels.len == 1) { /* a logical line ends */
				end_run(&s);
				s.prev = T_START;
			}
			/* inside brackets, a new line starts the innermost level's
			 * tokens over (the runtime recovers there); chains go on */
			top(&s)->item = 0;
			if (s.levels.len == 1)
				top(&s)->chain = 0;
			p++;
			continue;
		}
		if (c == '#') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (c == '\\' && p + 1 < end && (p[1] == '\n' || p[1] == '\r')) {
			p += 2; /* a line continuation */
			continue;
		}
		if (c == '\'' || c == '"') {
			p += skip_string(p, end);
			operand(&s, true);
			continue;
		}
		if ((c >= '0' && c <= '9') || (c == '.' && p + 1 < end && p[1] >= '0' && p[1] <= '9')) {
			bool hex = c == '0' && p + 1 < end && (p[1] == 'x' || p[1] == 'X');
			while (p + n < end && (name_byte((unsigned char)p[n]) || p[n] == '.')) {
				if (!hex && (p[n] == 'e' || p[n] == 'E') && p + n + 1 < end &&
				    (p[n + 1] == '+' || p[n + 1] == '-'))
					n++;
				n++;
			}
			p += n;
			operand(&s, false);
			continue;
		}
		if (name_byte(c)) {
			while (p + n < end && name_byte((unsigned char)p[n]))
				n++;
			if (p + n < end && (p[n] == '\'' || p[n] == '"') && string_prefix(p, n)) {
				p += n + skip_string(p + n, end);
				operand(&s, true);
				continue;
			}
			word(&s, p, n);
			p += n;
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			s.run = 0;
			top(&s)->item++;
			ARRAY_PUSH(&s.levels, ((level){c == '(' ? ')' : c == '[' ? ']' : '}', 0, 0}));
			s.prev = T_OPEN;
			p++;
			continue;
		}
		if (c == ')' || c == ']' || c == '}') {
			end_run(&s);
			if (s.levels.len > 1 && top(&s)->close == (char)c)
				s.levels.len--; /* a mismatched closer closes nothing */
			s.prev = T_CLOSE;
			p++;
			continue;
		}
		if (c == ',' || c == ';') {
			end_run(&s);
			top(&s)->item = top(&s)->chain = 0;
			s.prev = T_SEP;
			p++;
			continue;
		}
		n = 0;
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(ops3) && !n; i++)
			if (end - p >= 3 && memcmp(p, ops3[i], 3) == 0)
				n = 3;
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(ops2) && !n; i++)
			if (end - p >= 2 && memcmp(p, ops2[i], 2) == 0)
				n = 2;
		if (!n)
			n = 1;
		if (n == 3 && p[0] == '.')
			operand(&s, false); /* ... */
		else
			op(&s, p, n);
		p += n;
	}
	end_run(&s);
	uint64_t total = s.dangling;
	/* an open bracket and what precedes it on its level; long items
	 * reduce or get folded into one ERROR node */
	for (size_t i = 1; i < s.levels.len; i++)
		total += 2 + (s.levels.items[i].item < ITEM_MAX ? s.levels.items[i].item : ITEM_MAX);
	free(s.levels.items);
	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

int mpsfix_parse_check_depth(const char *name, const char *data, uint32_t len)
{
	/* fewer bytes than the limit cannot make that many stack entries */
	if (len > MPSFIX_PARSE_MAX_OPEN) {
		uint32_t open = mpsfix_parse_open_estimate(data, len);

		if (open > MPSFIX_PARSE_MAX_OPEN)
			return mpsfix_error_set(MPSFIX_ESKIP,
						"%s%sskipped: too deeply nested to parse safely "
						"(about %u constructs left open; the limit is %u)",
						name ? name : "", name ? ": " : "",
						open, MPSFIX_PARSE_MAX_OPEN);
	}
	return 0;
}

int mpsfix_parse_named(TSTree **out, TSParser *parser, const char *name,
		       const char *data, uint32_t len)
{
	int error;

	*out = NULL;
	if ((error = mpsfix_parse_check_depth(name, data, len)) < 0)
		return error;
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
	*out = ts_parser_parse_string(parser, NULL, data, len);
	if (*out)
		return 0;
	/* a stopped parse would otherwise resume on the next call */
	ts_parser_reset(parser);
	uint64_t timeout = ts_parser_timeout_micros(parser);
	const size_t *cancel = ts_parser_cancellation_flag(parser);
	if (timeout && !(cancel && *cancel))
		return mpsfix_error_set(MPSFIX_ESKIP,
					"%s%sskipped: parsing took longer than %llu ms",
					name ? name : "", name ? ": " : "",
					(unsigned long long)(timeout / 1000));
	return mpsfix_error_set(MPSFIX_ERROR, "%s%stree-sitter stopped parsing (%s)",
				name ? name : "", name ? ": " : "",
				cancel && *cancel ? "cancelled" : "no language");
}

int mpsfix_parse(TSTree **out, TSParser *parser, const char *data, uint32_t len)
{
	return mpsfix_parse_named(out, parser, NULL, data, len);
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
