/*
 * uses.c: is a value used for more than being printed or logged (see
 * uses.h)?
 */
#include "uses.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "argparse.h"
#include "bindings.h"
#include "dynamic.h"
#include "literal.h"
#include "parse.h"
#include "truth.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static bool text_in(TSNode n, const char *src, const char *const *words, size_t n_words)
{
	for (size_t i = 0; i < n_words; i++)
		if (mpsfix_node_text_is(n, src, words[i]))
			return true;
	return false;
}

/* `n`, or the outermost parentheses around it. */
static TSNode outer(TSNode n)
{
	while (is(ts_node_parent(n), "parenthesized_expression"))
		n = ts_node_parent(n);
	return n;
}

static bool is_string(TSNode n)
{
	return is(n, "string") || is(n, "concatenated_string");
}

/* The call whose arguments `args` are, or a null node. */
static TSNode call_of(TSNode args)
{
	TSNode call = ts_node_parent(args);

	if (!is(args, "argument_list") || !is(call, "call") ||
	    !ts_node_eq(ts_node_child_by_field_name(call, "arguments", 9), args))
		return (TSNode){0};
	return call;
}

/* The arguments of `args` but comments. */
static uint32_t argument_count(TSNode args)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ts_node_named_child_count(args); i++)
		n += !ts_node_is_extra(ts_node_named_child(args, i));
	return n;
}

/* ---- what shows a value ------------------------------------------------------------ */

static const char *const log_methods[] = {
	"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
};
static const char *const loggers[] = {
	"logger", "_logger", "LOGGER", "_LOGGER", "log", "_log", "LOG", "logging",
};

/*
 * Does a call of `fn` only show its arguments: print(), warnings.warn(), a
 * logging call (`logging.info`, `logger.debug`, `self.log.warning`,
 * `logging.getLogger(__name__).error`)?
 */
static bool shows(mpsfix_names *names, const char *src, TSNode fn)
{
	mpsfix_buf name = MPSFIX_BUF_INIT;
	TSNode obj, method;
	bool yes = false;

	if (is(fn, "identifier")) {
		/* the builtin, not a local print or one imported from elsewhere */
		yes = mpsfix_node_text_is(fn, src, "print") &&
		      (!names || (mpsfix_names_qualify(names, fn, &name) == MPSFIX_NAME_RESOLVED &&
				  !strcmp(name.data, "print")));
		goto done;
	}
	if (!is(fn, "attribute"))
		goto done;
	if (mpsfix_names_name_of(names, fn, src, &name) && !strcmp(name.data, "warnings.warn")) {
		yes = true;
		goto done;
	}
	method = ts_node_child_by_field_name(fn, "attribute", 9);
	obj = mpsfix_unparenthesized(ts_node_child_by_field_name(fn, "object", 6));
	if (!text_in(method, src, log_methods, MPSFIX_ARRAY_SIZE(log_methods)))
		goto done;
	if (is(obj, "attribute")) /* self.logger */
		obj = ts_node_child_by_field_name(obj, "attribute", 9);
	if (is(obj, "identifier")) {
		yes = text_in(obj, src, loggers, MPSFIX_ARRAY_SIZE(loggers)) ||
		      (mpsfix_names_name_of(names, obj, src, &name) && !strcmp(name.data, "logging"));
	} else if (is(obj, "call") &&
		   mpsfix_names_name_of(names, ts_node_child_by_field_name(obj, "function", 8), src, &name)) {
		const char *dot = strrchr(name.data, '.');

		yes = !strcmp(dot ? dot + 1 : name.data, "getLogger");
	}
done:
	mpsfix_buf_release(&name);
	return yes;
}

/* Is `e` the right operand of `"..." % e`? */
static bool percent(const char *src, TSNode e)
{
	TSNode p = ts_node_parent(e);

	return is(p, "binary_operator") && mpsfix_node_text_is(ts_node_child_by_field_name(p, "operator", 8), src, "%") &&
	       ts_node_eq(ts_node_child_by_field_name(p, "right", 5), e) &&
	       is_string(mpsfix_unparenthesized(ts_node_child_by_field_name(p, "left", 4)));
}

/*
 * Is `e` a positional argument of a call that shows it, once it is put in
 * a string: `print(e)`, `logger.info("%s", e)`, `print(f"{e}")`,
 * `print("{}".format(e))`, `log.info("%s" % e)`, `print("%s %s" % (a, e))`?
 */
static bool shown(mpsfix_names *names, const char *src, TSNode e)
{
	TSNode p = ts_node_parent(e), call;

	if (is(p, "interpolation") && ts_node_eq(ts_node_child_by_field_name(p, "expression", 10), e)) {
		e = ts_node_parent(p); /* the f-string */
		if (!is(e, "string"))
			return false; /* {x:{e}} */
		if (is(ts_node_parent(e), "concatenated_string"))
			e = ts_node_parent(e);
	}
	e = outer(e);
	p = ts_node_parent(e);
	if (is(p, "keyword_argument") && ts_node_eq(ts_node_child_by_field_name(p, "value", 5), e))
		call = call_of(ts_node_parent(p)); /* "{d}".format(d=e) */
	else
		call = call_of(p);
	if (!ts_node_is_null(call)) {
		TSNode fn = ts_node_child_by_field_name(call, "function", 8);

		if (is(fn, "attribute") && mpsfix_node_text_is(ts_node_child_by_field_name(fn, "attribute", 9), src, "format") &&
		    is_string(mpsfix_unparenthesized(ts_node_child_by_field_name(fn, "object", 6)))) {
			e = outer(call);
			p = ts_node_parent(e);
		}
	} else if (percent(src, is(p, "tuple") ? outer(p) : e)) { /* "%s" % e, "%s %s" % (a, e) */
		e = outer(ts_node_parent(is(p, "tuple") ? outer(p) : e));
		p = ts_node_parent(e);
	}
	call = call_of(p); /* a positional argument */
	return !ts_node_is_null(call) && shows(names, src, ts_node_child_by_field_name(call, "function", 8));
}

/*
 * Is `e` an argument (positional or keyword) of a call into a library whose
 * devices are the CPU and CUDA alone, which raises on "mps":
 * `WhisperModel(size, device=e)` of faster_whisper (CTranslate2 beneath),
 * ctranslate2's own classes?  (Not whisperx, whose alignment models are
 * torch's and run on MPS.)  Such a choice places
 * nothing torch runs, and "mps" would make the library fail.
 */
static bool handed_to_no_mps(mpsfix_names *names, const char *src, TSNode e)
{
	static const char *const libraries[] = {"faster_whisper.", "ctranslate2."};
	TSNode p, call;
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool yes = false;

	e = outer(e);
	p = ts_node_parent(e);
	if (is(p, "keyword_argument") && ts_node_eq(ts_node_child_by_field_name(p, "value", 5), e))
		p = ts_node_parent(p);
	call = call_of(p);
	if (!ts_node_is_null(call) &&
	    mpsfix_names_name_of(names, ts_node_child_by_field_name(call, "function", 8), src, &name))
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(libraries) && !yes; i++)
			yes = !strncmp(name.data, libraries[i], strlen(libraries[i]));
	mpsfix_buf_release(&name);
	return yes;
}

/*
 * Is `e` compared with a CUDA device string (`e == "cuda"`, `"cuda:0" != e`)?
 * Such a test asks whether CUDA was chosen, and reads the same whether the
 * other choice is the CPU or MPS: optimum's `require_torch_gpu` skips its
 * test unless `torch_device == "cuda"`.
 */
static bool compared_with_cuda(const char *src, TSNode e)
{
	TSNode p, op, other;
	mpsfix_literal lit;
	const char *s;
	bool yes;

	e = outer(e);
	p = ts_node_parent(e);
	if (!is(p, "comparison_operator") || ts_node_child_count(p) != 3 || mpsfix_named_count(p) != 2)
		return false; /* not a chain, nor one with a comment inside */
	op = ts_node_child(p, 1);
	if (strcmp(ts_node_type(op), "==") && strcmp(ts_node_type(op), "!="))
		return false;
	other = ts_node_named_child(p, ts_node_eq(ts_node_named_child(p, 0), e) ? 1 : 0);
	if (!(s = mpsfix_literal_string(&lit, mpsfix_unparenthesized(other), src)))
		return false;
	yes = mpsfix_truth_device_kind(s) == 'c';
	mpsfix_literal_release(&lit);
	return yes;
}

/* ---- what a function reads --------------------------------------------------------- */

typedef struct {
	const char *src;
	struct mpsfix_uses_scope *s;
	size_t cap;
} reader;

static mpsfix_walk_action read_name(TSNode n, void *payload)
{
	static const char *const dynamic[] = {"eval", "exec", "locals", "globals"};
	reader *rd = payload;
	TSNode p, fn;

	if (is(n, "call") && is(fn = ts_node_child_by_field_name(n, "function", 8), "identifier") &&
	    (text_in(fn, rd->src, dynamic, MPSFIX_ARRAY_SIZE(dynamic)) ||
	     (mpsfix_node_text_is(fn, rd->src, "vars") &&
	      !argument_count(ts_node_child_by_field_name(n, "arguments", 9)))))
		rd->s->dynamic = true;
	if (!is(n, "identifier"))
		return MPSFIX_WALK_DESCEND;
	p = ts_node_parent(n);
	if ((is(p, "attribute") && ts_node_eq(ts_node_child_by_field_name(p, "attribute", 9), n)) ||
	    (is(p, "keyword_argument") && ts_node_eq(ts_node_child_by_field_name(p, "name", 4), n)))
		return MPSFIX_WALK_DESCEND; /* x.NAME, f(NAME=...) */
	mpsfix_grow((void **)&rd->s->ids, &rd->cap, rd->s->nids + 1, sizeof(*rd->s->ids));
	rd->s->ids[rd->s->nids++] = (struct mpsfix_uses_name){mpsfix_node_hash(n, rd->src), n};
	return MPSFIX_WALK_DESCEND;
}

static int by_hash(const void *a, const void *b)
{
	const struct mpsfix_uses_name *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return ts_node_start_byte(x->id) < ts_node_start_byte(y->id) ? -1
	       : ts_node_start_byte(x->id) > ts_node_start_byte(y->id);
}

static void scope_read(struct mpsfix_uses_scope *s, TSNode fn, const char *src)
{
	reader rd = {src, s, 0};

	*s = (struct mpsfix_uses_scope){.scope = fn.id};
	s->bindings = mpsfix_bindings_index_new(fn, src);
	mpsfix_walk(ts_node_child_by_field_name(fn, "body", 4), read_name, &rd);
	if (s->nids > 1)
		qsort(s->ids, s->nids, sizeof(*s->ids), by_hash);
}

static void scope_release(struct mpsfix_uses_scope *s)
{
	mpsfix_bindings_index_free(s->bindings);
	free(s->ids);
}

static void module_release(struct mpsfix_uses_module *m)
{
	free(m->prefix);
	free(m->main);
}

void mpsfix_uses_memo_release(mpsfix_uses_memo *m)
{
	for (size_t i = 0; i < m->len; i++)
		scope_release(&m->items[i]);
	module_release(&m->module);
	mpsfix_defaults_memo_release(&m->defaults);
	free(m->items);
	*m = (mpsfix_uses_memo)MPSFIX_USES_MEMO_INIT;
}

/* Does `id` lie in a function, lambda, class or comprehension inside `fn`? */
static bool nested(TSNode id, TSNode fn)
{
	static const char *const scopes[] = {
		"function_definition", "lambda", "class_definition", "list_comprehension",
		"set_comprehension", "dictionary_comprehension", "generator_expression",
	};

	for (TSNode a = ts_node_parent(id); !ts_node_is_null(a) && !ts_node_eq(a, fn); a = ts_node_parent(a))
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(scopes); i++)
			if (is(a, scopes[i]))
				return true;
	return false;
}

/* The function whose own code holds `n`, or a null node (the module, a class body). */
static TSNode function_of(TSNode n)
{
	for (TSNode a = ts_node_parent(n); !ts_node_is_null(a); a = ts_node_parent(a)) {
		if (is(a, "function_definition"))
			return a;
		if (is(a, "class_definition") || is(a, "lambda"))
			break;
	}
	return (TSNode){0};
}

/* Is `call` torch.device(...)? */
static bool torch_device(mpsfix_names *names, const char *src, TSNode call)
{
	mpsfix_buf name = MPSFIX_BUF_INIT;
	bool yes = mpsfix_names_name_of(names, ts_node_child_by_field_name(call, "function", 8), src, &name) &&
		   !strcmp(name.data, "torch.device");

	mpsfix_buf_release(&name);
	return yes;
}

/* The first of `n` names sorted by hash whose hash is `hash` (or n). */
static size_t first_of_hash(const struct mpsfix_uses_name *names, size_t n, uint64_t hash)
{
	return mpsfix_lower_bound64(names, n, sizeof(*names), offsetof(struct mpsfix_uses_name, hash), hash);
}

/* Is every read of `left`'s name in `fn` (read as `s`) only shown, handed to a library without MPS, or compared with "cuda"? */
static bool only_shown(const struct mpsfix_uses_scope *s, mpsfix_names *names, const char *src,
		       TSNode fn, TSNode left)
{
	uint64_t hash = mpsfix_node_hash(left, src);
	size_t lo;
	mpsfix_binding b;

	mpsfix_bindings_index_get(s->bindings, left, &b);
	if (b.count != 1 || b.dynamic || s->dynamic)
		return false;
	lo = first_of_hash(s->ids, s->nids, hash);
	for (; lo < s->nids && s->ids[lo].hash == hash; lo++) {
		TSNode id = s->ids[lo].id;

		if (ts_node_eq(id, left) || !mpsfix_node_same_text(id, left, src))
			continue;
		if (nested(id, fn) ||
		    !(shown(names, src, id) || handed_to_no_mps(names, src, id) || compared_with_cuda(src, id)))
			return false;
	}
	return true;
}

/* ---- a script's module name its __main__ block binds again ------------------------- */

/* What reading a script's module code finds (one walk, for the text's questions). */
typedef struct {
	const char *src;
	struct mpsfix_uses_module *m;
	const char **defined;    /* the names of the module's functions and classes */
	size_t ndefined, capdefined, capprefix, capmain;
	uint32_t index;          /* of the __main__ block's statement being read */
	bool in_main;
	TSNode skip;             /* the identifier a binding statement binds: not a read */
} module_reader;

static mpsfix_walk_action collect_defined(TSNode n, void *payload)
{
	module_reader *mr = payload;
	TSNode id;

	if (!is(n, "function_definition") && !is(n, "class_definition"))
		return MPSFIX_WALK_DESCEND;
	id = ts_node_child_by_field_name(n, "name", 4);
	if (!ts_node_is_null(id)) {
		mpsfix_grow((void **)&mr->defined, &mr->capdefined, mr->ndefined + 1, sizeof(*mr->defined));
		mr->defined[mr->ndefined++] = mr->src + ts_node_start_byte(id);
	}
	return MPSFIX_WALK_DESCEND;
}

static bool defined_name(const module_reader *mr, TSNode id)
{
	uint32_t len = ts_node_end_byte(id) - ts_node_start_byte(id);

	for (size_t i = 0; i < mr->ndefined; i++)
		if (!strncmp(mr->defined[i], mr->src + ts_node_start_byte(id), len) &&
		    !(isalnum((unsigned char)mr->defined[i][len]) || mr->defined[i][len] == '_'))
			return true;
	return false;
}

/*
 * Code that runs: a function's body does not (its decorators, defaults and
 * annotations do), a lambda's may.  Each name read is kept; a function or
 * class of the module named (called, or handed on to be called), or eval()
 * and its kind, may read any name.
 */
static mpsfix_walk_action module_read(TSNode n, void *payload)
{
	static const char *const dynamic[] = {"eval", "exec", "locals", "globals", "vars", "__import__"};
	module_reader *mr = payload;
	struct mpsfix_uses_module *m = mr->m;
	TSNode p = ts_node_parent(n);

	if (is(p, "function_definition") && ts_node_eq(n, ts_node_child_by_field_name(p, "body", 4)))
		return MPSFIX_WALK_SKIP;
	if (!is(n, "identifier") || ts_node_eq(n, mr->skip))
		return MPSFIX_WALK_DESCEND;
	if ((is(p, "attribute") && ts_node_eq(ts_node_child_by_field_name(p, "attribute", 9), n)) ||
	    (is(p, "keyword_argument") && ts_node_eq(ts_node_child_by_field_name(p, "name", 4), n)) ||
	    ((is(p, "function_definition") || is(p, "class_definition")) &&
	     ts_node_eq(ts_node_child_by_field_name(p, "name", 4), n)))
		return MPSFIX_WALK_DESCEND;
	if (defined_name(mr, n) || text_in(n, mr->src, dynamic, MPSFIX_ARRAY_SIZE(dynamic))) {
		if (!mr->in_main)
			m->prefix_calls = true;
		else if (mr->index < m->main_calls)
			m->main_calls = mr->index;
		return MPSFIX_WALK_DESCEND;
	}
	if (!mr->in_main) {
		mpsfix_grow((void **)&m->prefix, &mr->capprefix, m->nprefix + 1, sizeof(*m->prefix));
		m->prefix[m->nprefix++] = (struct mpsfix_uses_name){mpsfix_node_hash(n, mr->src), n};
	} else {
		mpsfix_grow((void **)&m->main, &mr->capmain, m->nmain + 1, sizeof(*m->main));
		m->main[m->nmain++] = (struct mpsfix_uses_main_name){mpsfix_node_hash(n, mr->src), n, mr->index, 0};
	}
	return MPSFIX_WALK_DESCEND;
}

/* The name statement `s` binds alone, `NAME = value` (a null node if it is not such a statement). */
static TSNode bound_name(TSNode s)
{
	TSNode a = is(s, "expression_statement") ? mpsfix_first_named(s) : (TSNode){0}, left;

	if (!is(a, "assignment") || !is(left = ts_node_child_by_field_name(a, "left", 4), "identifier") ||
	    ts_node_is_null(ts_node_child_by_field_name(a, "right", 5)))
		return (TSNode){0};
	return left;
}

static int by_main_hash(const void *a, const void *b)
{
	const struct mpsfix_uses_main_name *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return (int)x->binds - (int)y->binds; /* a statement's reads before its binding */
}

/*
 * Read module `root` once: the names its statements before the __main__
 * block read (a module-level `NAME = value`'s NAME is bound, not read), and
 * those the block's statements read, by statement, with the statements
 * that bind a name alone.
 */
static void module_read_all(struct mpsfix_uses_module *m, TSNode root, const char *src)
{
	module_reader mr = {.src = src, .m = m};
	mpsfix_kids k;
	TSNode s;

	*m = (struct mpsfix_uses_module){.read = true, .main_calls = UINT32_MAX};
	m->block = mpsfix_main_block(root, src);
	if (ts_node_is_null(m->block))
		return;
	mpsfix_walk(root, collect_defined, &mr);
	mpsfix_kids_start(&k, root);
	while (mpsfix_kids_next(&k, &s) && !ts_node_eq(s, m->block)) {
		mr.skip = bound_name(s);
		mpsfix_walk(s, module_read, &mr);
	}
	mpsfix_kids_end(&k);
	mr.in_main = true;
	mpsfix_kids_start(&k, ts_node_child_by_field_name(m->block, "consequence", 11));
	for (; mpsfix_kids_next(&k, &s); mr.index++) {
		TSNode left = bound_name(s);

		mr.skip = left;
		mpsfix_walk(s, module_read, &mr);
		if (!ts_node_is_null(left)) { /* the binding itself, marked */
			mpsfix_grow((void **)&m->main, &mr.capmain, m->nmain + 1, sizeof(*m->main));
			m->main[m->nmain++] =
				(struct mpsfix_uses_main_name){mpsfix_node_hash(left, src), left, mr.index, 1};
		}
	}
	mpsfix_kids_end(&k);
	if (m->nprefix > 1)
		qsort(m->prefix, m->nprefix, sizeof(*m->prefix), by_hash);
	if (m->nmain > 1)
		qsort(m->main, m->nmain, sizeof(*m->main), by_main_hash);
	free(mr.defined);
}

/*
 * Does the __main__ block of the script whose module binds `name` at its
 * top level bind it again at its own top level before anything can read
 * the first value?
 */
static bool rebound_in_main(const struct mpsfix_uses_module *m, const char *src, TSNode name)
{
	uint64_t hash = mpsfix_node_hash(name, src);
	size_t lo;
	uint32_t bind = UINT32_MAX;

	if (ts_node_is_null(m->block) || m->prefix_calls ||
	    ts_node_start_byte(m->block) < ts_node_end_byte(name))
		return false;
	for (lo = first_of_hash(m->prefix, m->nprefix, hash); lo < m->nprefix && m->prefix[lo].hash == hash; lo++)
		if (mpsfix_node_same_text(m->prefix[lo].id, name, src))
			return false;
	lo = mpsfix_lower_bound64(m->main, m->nmain, sizeof(*m->main), offsetof(struct mpsfix_uses_main_name, hash),
				  hash);
	/* by statement: a read at or before the first binding statement (its
	   value included) comes first */
	for (; lo < m->nmain && m->main[lo].hash == hash && bind == UINT32_MAX; lo++) {
		if (!mpsfix_node_same_text(m->main[lo].id, name, src))
			continue;
		if (!m->main[lo].binds)
			return false;
		bind = m->main[lo].index;
	}
	return bind != UINT32_MAX && bind < m->main_calls;
}

/*
 * Is test `t` (parentheses aside) true exactly when name `*p` is None or
 * false (`falsy`: `P is None`, `not P`) or exactly when it is not (`P is
 * not None`, `P`)?  `*p` gets the name.
 */
static bool none_test(TSNode t, const char *src, bool falsy, TSNode *p)
{
	TSNode a, op;

	t = mpsfix_unparenthesized(t);
	if (is(t, "not_operator")) {
		a = mpsfix_unparenthesized(ts_node_child_by_field_name(t, "argument", 8));
		return falsy && is(*p = a, "identifier");
	}
	if (is(t, "identifier"))
		return !falsy && (*p = t, true);
	if (!is(t, "comparison_operator") || ts_node_child_count(t) != 3)
		return false;
	a = ts_node_child(t, 0);
	op = ts_node_child(t, 1);
	*p = a;
	return is(a, "identifier") && is(ts_node_child(t, 2), "none") &&
	       mpsfix_node_text_is(op, src, falsy ? "is" : "is not");
}

/*
 * Is `v` a fallback taken only where name P is None (or false), P being a
 * parameter of the function around it whose default is None and which
 * nothing else in the function binds:
 *
 *   P or v                        v if P is None else P
 *   P if P is not None else v     P if P else v
 *   if P is None:                 if not P:
 *       NAME = v                      self.NAME = v
 *
 * (`P = P or v` and the like, and `if P is None: P = v`, bind P again
 * where the fallback is taken: that binding is allowed.)  The parameter,
 * or a null node.
 */
static TSNode fallback_param(const char *src, TSNode v)
{
	TSNode p = ts_node_parent(v), name = {0}, fn, params, param, block, stmt, assign = {0};
	mpsfix_binding b;
	mpsfix_kids k;

	if (is(p, "boolean_operator") && mpsfix_field_is(p, "right", v) &&
	    mpsfix_node_text_is(ts_node_child_by_field_name(p, "operator", 8), src, "or")) {
		name = mpsfix_unparenthesized(ts_node_child_by_field_name(p, "left", 4));
	} else if (is(p, "conditional_expression") && mpsfix_named_count(p) == 3) {
		bool first = ts_node_eq(ts_node_named_child(p, 0), v);

		if (!first && !ts_node_eq(ts_node_named_child(p, 2), v))
			return (TSNode){0};
		if (!none_test(ts_node_named_child(p, 1), src, first, &name))
			return (TSNode){0};
	} else if ((is(p, "assignment") && mpsfix_field_is(p, "right", v)) &&
		   is(stmt = ts_node_parent(p), "expression_statement") && is(block = ts_node_parent(stmt), "block") &&
		   is(ts_node_parent(block), "if_statement") &&
		   mpsfix_field_is(ts_node_parent(block), "consequence", block)) {
		if (!none_test(ts_node_child_by_field_name(ts_node_parent(block), "condition", 9), src, true, &name))
			return (TSNode){0};
		assign = p;
	}
	if (ts_node_is_null(assign) && is(ts_node_parent(p), "assignment") &&
	    mpsfix_field_is(ts_node_parent(p), "right", p))
		assign = ts_node_parent(p); /* device = device or ... */
	if (!is(name, "identifier") || ts_node_is_null(fn = function_of(v)))
		return (TSNode){0};
	/* the parameter of that name, with a None default, bound nowhere else */
	params = ts_node_child_by_field_name(fn, "parameters", 10);
	param = (TSNode){0};
	mpsfix_kids_start(&k, params);
	for (TSNode c; ts_node_is_null(param) && mpsfix_kids_next(&k, &c);)
		if ((is(c, "default_parameter") || is(c, "typed_default_parameter")) &&
		    mpsfix_node_same_text(ts_node_child_by_field_name(c, "name", 4), name, src) &&
		    is(ts_node_child_by_field_name(c, "value", 5), "none"))
			param = c;
	mpsfix_kids_end(&k);
	if (ts_node_is_null(param))
		return param;
	/* bound by the parameter, and by the fallback's own `P = ...` if it is one */
	mpsfix_bindings_count(fn, src, &name, 1, &b);
	if (!ts_node_is_null(assign) &&
	    mpsfix_node_same_text(ts_node_child_by_field_name(assign, "left", 4), name, src))
		b.count--;
	return b.count == 1 && !b.dynamic ? param : (TSNode){0};
}

typedef struct {
	TSNode name;
	const char *src;
	bool read;
} param_reader;

/* A mention of the name, other than as an attribute (`x.device`) or a keyword (`f(device=...)`). */
static mpsfix_walk_action find_param_read(TSNode n, void *payload)
{
	param_reader *pr = payload;
	TSNode p;

	if (!is(n, "identifier") || !mpsfix_node_same_text(n, pr->name, pr->src))
		return MPSFIX_WALK_DESCEND;
	p = ts_node_parent(n);
	if ((is(p, "attribute") && mpsfix_field_is(p, "attribute", n)) ||
	    (is(p, "keyword_argument") && mpsfix_field_is(p, "name", n)))
		return MPSFIX_WALK_DESCEND;
	pr->read = true;
	return MPSFIX_WALK_STOP;
}

/* Does text [s, e) of `src` hold `w`? */
static bool says(const char *src, uint32_t s, uint32_t e, const char *w)
{
	size_t n = strlen(w);

	for (uint32_t i = s; i + n <= e; i++)
		if (!memcmp(src + i, w, n))
			return true;
	return false;
}

/*
 * Does the function of parameter `param` (a default_parameter) read it, or
 * may it: name it in its body (a nested function's included), or say
 * there a word of code that may read any name (exec, eval, globals,
 * locals, vars, import) or the call's frame or signature
 * (save_hyperparameters, currentframe, _getframe, getcallargs, signature,
 * getfullargspec), or have a decorator?
 */
static bool param_read(const char *src, TSNode param)
{
	static const char *const frame_readers[] = {
		"save_hyperparameters", "currentframe", "_getframe", "getcallargs", "signature", "getfullargspec",
	};
	TSNode def = ts_node_parent(ts_node_parent(param)), body = ts_node_child_by_field_name(def, "body", 4);
	param_reader pr = {ts_node_child_by_field_name(param, "name", 4), src, false};
	uint32_t s, e;

	if (!is(def, "function_definition") || !is(pr.name, "identifier") || ts_node_is_null(body) ||
	    is(ts_node_parent(def), "decorated_definition"))
		return true; /* a decorator may read the arguments (diffusers' @register_to_config) */
	s = ts_node_start_byte(body);
	e = ts_node_end_byte(body);
	if (!mpsfix_dynamic_free(src, s, e))
		return true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(frame_readers); i++)
		if (says(src, s, e, frame_readers[i]))
			return true; /* Lightning's save_hyperparameters() reads them from the frame */
	mpsfix_walk(body, find_param_read, &pr);
	return pr.read;
}

bool mpsfix_uses_used(mpsfix_uses_memo *memo, mpsfix_names *names, const char *src, TSNode node)
{
	struct mpsfix_uses_scope once, *s = NULL;
	TSNode v = outer(node), p = ts_node_parent(v), left, fn, fallback;
	bool dead;

	if (is(p, "argument_list") && !ts_node_is_null(call_of(p)) && argument_count(p) == 1 &&
	    torch_device(names, src, call_of(p))) {
		v = outer(call_of(p));
		p = ts_node_parent(v);
	}
	if ((is(p, "default_parameter") || is(p, "typed_default_parameter")) &&
	    ts_node_eq(ts_node_child_by_field_name(p, "value", 5), v))
		return param_read(src, p) && !mpsfix_defaults_overridden(memo ? &memo->defaults : NULL, src, p);
	if (!ts_node_is_null(fallback = fallback_param(src, v)) &&
	    mpsfix_defaults_given(memo ? &memo->defaults : NULL, src, fallback))
		return false; /* device or torch.device(...), where every call passes a device */
	if (is(p, "keyword_argument")) /* parser.add_argument("--device", default="cuda") */
		return !mpsfix_argparse_falls_back(names, src, v);
	if (!is(p, "assignment") || !ts_node_eq(ts_node_child_by_field_name(p, "right", 5), v) ||
	    !is(left = ts_node_child_by_field_name(p, "left", 4), "identifier") ||
	    !is(ts_node_parent(p), "expression_statement"))
		return true;
	fn = function_of(p);
	if (ts_node_is_null(fn)) {
		TSNode root = ts_node_parent(ts_node_parent(p));
		struct mpsfix_uses_module one = {0}, *m = memo ? &memo->module : &one;
		bool rebound;

		if (!is(root, "module"))
			return true;
		if (!m->read)
			module_read_all(m, root, src);
		rebound = rebound_in_main(m, src, left);
		if (!memo)
			module_release(&one);
		return !rebound;
	}
	for (size_t i = 0; memo && i < memo->len && !s; i++)
		if (memo->items[i].scope == fn.id)
			s = &memo->items[i];
	if (!s && memo) {
		mpsfix_grow((void **)&memo->items, &memo->cap, memo->len + 1, sizeof(*memo->items));
		s = &memo->items[memo->len++];
		scope_read(s, fn, src);
	} else if (!s) {
		s = &once;
		scope_read(s, fn, src);
	}
	dead = only_shown(s, names, src, fn, left);
	if (s == &once)
		scope_release(&once);
	return !dead;
}
