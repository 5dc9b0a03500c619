/*
 * defaults.c: is a parameter's default ever used (see defaults.h)?  The
 * text's identifiers and strings are read once, by hash; the first question
 * about a function finds its calls and what each passes, once.
 */
#include "defaults.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "callers.h"
#include "classbuild.h"
#include "kwdict.h"
#include "parse.h"
#include "project.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

typedef struct {
	mpsfix_defaults_memo *m;
	const char *src;
} reader;

/* gradio's events, which call their function with the inputs' values */
static const char *const gradio_events[] = {
	"blur", "change", "click", "focus", "input", "load", "release", "select", "submit", "success", "then", "upload",
};

/*
 * The call that hands function name `n` on as a gradio event's function,
 * `fn=` or its first argument: `btn.click(fn=f, ...)`, `gr.Interface(f,
 * ...)`; else null.
 */
static TSNode handed_to(TSNode n, const mpsfix_ancestors *up, const char *src)
{
	TSNode p = mpsfix_up(up, 1), args, call, fn, last;

	if (is(p, "keyword_argument") && mpsfix_field_is(p, "value", n) &&
	    mpsfix_node_text_is(ts_node_child_by_field_name(p, "name", 4), src, "fn"))
		args = mpsfix_up(up, 2), call = mpsfix_up(up, 3);
	else if (is(p, "argument_list") && ts_node_eq(mpsfix_first_named(p), n))
		args = p, call = mpsfix_up(up, 2);
	else
		return (TSNode){0};
	if (!is(args, "argument_list") || !is(call, "call"))
		return (TSNode){0};
	fn = ts_node_child_by_field_name(call, "function", 8);
	last = is(fn, "attribute") ? ts_node_child_by_field_name(fn, "attribute", 9) : fn;
	if (!is(last, "identifier"))
		return (TSNode){0};
	if (mpsfix_node_text_is(last, src, "Interface"))
		return call;
	for (size_t i = 0; i < sizeof(gradio_events) / sizeof(*gradio_events); i++)
		if (is(fn, "attribute") && mpsfix_node_text_is(last, src, gradio_events[i]))
			return call;
	return (TSNode){0};
}

/*
 * Keep name `n`, with where it stands read from its ancestors now, as the
 * walk passes (ts_node_parent() would cost the tree's depth per name).
 */
static mpsfix_walk_action read_name(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	reader *rd = payload;
	struct mpsfix_defaults_name name = {0};
	TSNode p = mpsfix_up(up, 1), g;

	if (!is(n, "identifier") && !is(n, "string_content"))
		return MPSFIX_WALK_DESCEND;
	name.hash = mpsfix_node_hash(n, rd->src);
	name.id = n;
	name.parent = p;
	/* x: Loader, -> "Loader" (from the string, not its content) */
	name.annotation = mpsfix_in_annotation_up(up, is(n, "string_content") ? 2 : 1);
	if (is(n, "identifier")) {
		name.in_def = (is(p, "function_definition") || is(p, "class_definition")) && mpsfix_field_is(p, "name", n);
		if (is(p, "call") && mpsfix_field_is(p, "function", n))
			name.call = p; /* f(...) */
		else if (is(p, "attribute") && mpsfix_field_is(p, "attribute", n) && is(g = mpsfix_up(up, 2), "call") &&
			 mpsfix_field_is(g, "function", p))
			name.call = g; /* x.f(...) */
		else if (!ts_node_is_null(g = handed_to(n, up, rd->src)))
			name.call = g, name.handed = true; /* btn.click(fn=f, ...) */
		if (!rd->m->gradio && mpsfix_node_text_is(n, rd->src, "gradio") && is(p, "dotted_name") &&
		    ts_node_eq(ts_node_named_child(p, 0), n) &&
		    (is(g = mpsfix_up(up, 2), "import_statement") || is(g, "aliased_import") ||
		     (is(g, "import_from_statement") && mpsfix_field_is(g, "module_name", p))))
			rd->m->gradio = true; /* import gradio (as gr), from gradio import ... */
		if (!rd->m->torch && mpsfix_node_text_is(n, rd->src, "torch") && is(p, "dotted_name") &&
		    ts_node_eq(ts_node_named_child(p, 0), n) && is(mpsfix_up(up, 2), "import_statement"))
			rd->m->torch = true; /* import torch, import torch.nn (not `as`) */
	}
	mpsfix_grow((void **)&rd->m->items, &rd->m->cap, rd->m->len + 1, sizeof(*rd->m->items));
	rd->m->items[rd->m->len++] = name;
	return MPSFIX_WALK_DESCEND;
}

static int by_hash(const void *a, const void *b)
{
	const struct mpsfix_defaults_name *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return ts_node_start_byte(x->id) < ts_node_start_byte(y->id) ? -1
	       : ts_node_start_byte(x->id) > ts_node_start_byte(y->id);
}

void mpsfix_defaults_memo_release(mpsfix_defaults_memo *m)
{
	struct mpsfix_project_cache *project = m->project;
	const char *path = m->path;

	free(m->items);
	free(m->kws);
	free(m->fns);
	free(m->calls);
	free(m->kwdicts);
	memset(m, 0, sizeof(*m));
	m->project = project; /* not the text's: kept */
	m->path = path;
}

/* The first of `n` names sorted by hash whose hash is `hash` (or n). */
static size_t first_of_hash(const struct mpsfix_defaults_name *names, size_t n, uint64_t hash)
{
	return mpsfix_lower_bound64(names, n, sizeof(*names), offsetof(struct mpsfix_defaults_name, hash), hash);
}

/*
 * Where parameter `param` stands among the positional parameters of
 * `params` (-1: keyword-only, or after `*args`), or -2 when it is not
 * there; `*posonly`: it stands before `/`.
 */
static long position(TSNode params, TSNode param, const char *src, bool *posonly)
{
	mpsfix_kids k;
	TSNode c;
	long at = 0, found = -2;
	bool keyword_only = false;

	*posonly = false;
	mpsfix_kids_start(&k, params);
	while (mpsfix_kids_next(&k, &c)) {
		const char *t = src + ts_node_start_byte(c);

		if (ts_node_eq(c, param))
			found = keyword_only ? -1 : at;
		else if (is(c, "positional_separator"))
			*posonly = *posonly || found >= 0;
		else if (is(c, "keyword_separator") || is(c, "list_splat_pattern") || *t == '*')
			keyword_only = true; /* `*`, `*args`, `*args: int` (and `**kw`, last) */
		else
			at++;
	}
	mpsfix_kids_end(&k);
	return found;
}

/* Keyword `kn` of a call, passing `value`, into the memo's keywords. */
static void add_keyword(mpsfix_defaults_memo *m, TSNode kn, TSNode value, const char *src)
{
	mpsfix_grow((void **)&m->kws, &m->capkws, m->nkws + 1, sizeof(*m->kws));
	m->kws[m->nkws++] = (struct mpsfix_defaults_name){.hash = mpsfix_node_hash(kn, src), .id = kn, .parent = value};
}

typedef struct {
	mpsfix_defaults_memo *m;
	const char *src;
} keying;

/* A key of the dictionary a `**NAME` passes, as a keyword (mpsfix_kwdict_keys()). */
static void add_key(TSNode key, TSNode value, void *payload)
{
	keying *k = payload;

	add_keyword(k->m, key, value, k->src);
}

/* What call argument list `args` passes, into the memo's calls. */
static void read_call(mpsfix_defaults_memo *m, TSNode args, const char *src)
{
	struct mpsfix_defaults_call c = {.splat_at = UINT32_MAX, .kw = m->nkws, .args = args};
	mpsfix_kids k;
	TSNode a;

	if (is(args, "generator_expression")) { /* f(x for x in y) */
		c.positional = 1;
	} else {
		mpsfix_kids_start(&k, args);
		while (mpsfix_kids_next(&k, &a)) {
			if (is(a, "keyword_argument")) {
				add_keyword(m, ts_node_child_by_field_name(a, "name", 4),
					    ts_node_child_by_field_name(a, "value", 5), src);
			} else if (is(a, "list_splat")) {
				if (c.splat_at == UINT32_MAX)
					c.splat_at = c.positional;
			} else if (is(a, "dictionary_splat")) {
				TSNode d;

				if (!m->kwdicts)
					m->kwdicts = mpsfix_xcalloc(1, sizeof(*m->kwdicts));
				if (ts_node_is_null(d = mpsfix_kwdict_of(m->kwdicts, a, src)))
					c.kwsplat = true;
				else
					mpsfix_kwdict_keys(d, add_key, &(keying){m, src});
			} else if (!is(a, "comment")) {
				c.positional++;
			}
		}
		mpsfix_kids_end(&k);
	}
	c.nkw = m->nkws - c.kw;
	if (c.nkw > 1)
		qsort(m->kws + c.kw, c.nkw, sizeof(*m->kws), by_hash);
	mpsfix_grow((void **)&m->calls, &m->capcalls, m->ncalls + 1, sizeof(*m->calls));
	m->calls[m->ncalls++] = c;
}

/*
 * What gradio event `call` passes the function it is handed: one
 * positional argument per input, `inputs=[a, b]` (or its second argument),
 * none without inputs; false when that is not written out.
 */
static bool read_handed(mpsfix_defaults_memo *m, TSNode call, const char *src)
{
	struct mpsfix_defaults_call c = {.splat_at = UINT32_MAX, .kw = m->nkws};
	TSNode args = ts_node_child_by_field_name(call, "arguments", 9), a, inputs = {0}, more = {0};
	mpsfix_kids k;
	uint32_t positional = 0;
	bool splat = false;

	mpsfix_kids_start(&k, args);
	while (mpsfix_kids_next(&k, &a)) {
		if (is(a, "keyword_argument")) {
			TSNode kn = ts_node_child_by_field_name(a, "name", 4);

			if (mpsfix_node_text_is(kn, src, "inputs"))
				inputs = ts_node_child_by_field_name(a, "value", 5);
			else if (mpsfix_node_text_is(kn, src, "additional_inputs"))
				more = ts_node_child_by_field_name(a, "value", 5);
		} else if (is(a, "list_splat") || is(a, "dictionary_splat")) {
			splat = true; /* may hold the inputs */
		} else if (positional++ == 1) {
			inputs = a;
		}
	}
	mpsfix_kids_end(&k);
	if (splat && ts_node_is_null(inputs))
		return false;
	/* gr.Interface's additional_inputs come after its inputs */
	for (int i = 0; i < 2; i++) {
		TSNode list = i ? more : inputs;

		if (ts_node_is_null(list) || is(list, "none"))
			continue;
		if (!is(list, "list"))
			return false; /* a name, a component alone (one input?), a set or dict */
		mpsfix_kids_start(&k, list);
		while (mpsfix_kids_next(&k, &a))
			if (is(a, "list_splat"))
				c.splat_at = c.splat_at == UINT32_MAX ? c.positional : c.splat_at;
			else
				c.positional++;
		mpsfix_kids_end(&k);
	}
	mpsfix_grow((void **)&m->calls, &m->capcalls, m->ncalls + 1, sizeof(*m->calls));
	m->calls[m->ncalls++] = c;
	return true;
}

/* Is decorated definition `dd` a @staticmethod? */
static bool static_method(TSNode dd, const char *src)
{
	mpsfix_kids k;
	TSNode d;
	bool yes = false;

	mpsfix_kids_start(&k, dd);
	while (!yes && mpsfix_kids_next(&k, &d))
		yes = is(d, "decorator") && mpsfix_node_text_is(mpsfix_first_named(d), src, "staticmethod");
	mpsfix_kids_end(&k);
	return yes;
}

/* Is name `id` an argument of `super(...)` (`super(C, self).__init__()`)? */
static bool in_super(TSNode id, const char *src)
{
	TSNode args = ts_node_parent(id), call = ts_node_parent(args);

	return is(args, "argument_list") && is(call, "call") &&
	       mpsfix_node_text_is(ts_node_child_by_field_name(call, "function", 8), src, "super");
}

/* Where function definition `def` stands: its class (null: none), whether
   it is a static method or the `__init__` of a class built by its name
   (mpsfix_class_built_by_name()); false when its calls are not read here. */
static bool placed(TSNode def, const char *src, TSNode *cls, bool *is_static, bool *init)
{
	TSNode fname = ts_node_child_by_field_name(def, "name", 4), outer = def, body;
	const char *name = src + ts_node_start_byte(fname);
	uint32_t n = ts_node_end_byte(fname) - ts_node_start_byte(fname);

	*cls = (TSNode){0};
	*is_static = false;
	*init = false;
	body = ts_node_parent(def);
	if (n == 8 && !strncmp(name, "__init__", 8) && is(body, "block") &&
	    is(ts_node_parent(body), "class_definition") && mpsfix_class_built_by_name(ts_node_parent(body), src)) {
		*cls = ts_node_parent(body);
		*init = true;
		return true;
	}
	if ((n >= 4 && !strncmp(name, "__", 2) && !strncmp(name + n - 2, "__", 2)) ||
	    (n == 7 && !strncmp(name, "forward", 7)))
		return false;
	if (is(ts_node_parent(def), "decorated_definition")) {
		outer = ts_node_parent(def);
		if (!mpsfix_callers_plain_decorators(outer, src))
			return false;
		*is_static = static_method(outer, src);
	}
	body = ts_node_parent(outer);
	if (is(body, "block") && is(ts_node_parent(body), "class_definition")) {
		*cls = ts_node_parent(body);
		return true;
	}
	/* not under an if, a try, a loop: which definition runs is then not known */
	return is(body, "module") || (is(body, "block") && is(ts_node_parent(body), "function_definition"));
}

/* Is name `id` (a mention of method `fname` of class `cls`) the method of a call read here? */
static bool method_call(const struct mpsfix_defaults_name *id, TSNode cls, bool is_static, const char *src)
{
	TSNode p = ts_node_child_by_field_name(id->call, "function", 8), obj;

	if (!is(p, "attribute"))
		return false; /* f(...) */
	obj = ts_node_child_by_field_name(p, "object", 6);
	if (is_static && mpsfix_node_same_text(obj, ts_node_child_by_field_name(cls, "name", 4), src))
		return true;
	return (mpsfix_node_text_is(obj, src, "self") || mpsfix_node_text_is(obj, src, "cls")) &&
	       ts_node_start_byte(id->id) >= ts_node_start_byte(cls) && ts_node_end_byte(id->id) <= ts_node_end_byte(cls);
}

/* Is name `id` the attribute of `torch.f` or `torch.x.f`, in a text that imports torch: torch's own? */
static bool torch_attribute(const mpsfix_defaults_memo *m, const struct mpsfix_defaults_name *id, const char *src)
{
	TSNode p = id->parent, o;

	if (!m->torch || !is(p, "attribute") || !mpsfix_field_is(p, "attribute", id->id))
		return false;
	for (o = ts_node_child_by_field_name(p, "object", 6); is(o, "attribute");
	     o = ts_node_child_by_field_name(o, "object", 6))
		;
	return is(o, "identifier") && mpsfix_node_text_is(o, src, "torch");
}

typedef struct {
	mpsfix_defaults_memo *m;
	const char *src;
} cls_reader;

/* Read each `cls(...)` of the class's methods (mpsfix_class_cls_call()) as a call of its `__init__`. */
static mpsfix_walk_action read_cls_call(TSNode n, void *payload)
{
	cls_reader *cr = payload;

	if (is(n, "class_definition"))
		return MPSFIX_WALK_SKIP; /* a class inside: its own cls */
	if (mpsfix_class_cls_call(n, cr->src))
		read_call(cr->m, ts_node_child_by_field_name(ts_node_parent(n), "arguments", 9), cr->src);
	return MPSFIX_WALK_DESCEND;
}

/*
 * Read the calls of function definition `def` of the text at `root` (a
 * method of `cls`, when not null; a static one; with `init`, the class's
 * `__init__`, called as `Class(...)`) into a new entry.
 */
static struct mpsfix_defaults_fn *read_fn(mpsfix_defaults_memo *m, TSNode root, const char *src, TSNode def,
					  TSNode cls, bool is_static, bool init)
{
	TSNode fname = ts_node_child_by_field_name(init ? cls : def, "name", 4);
	uint64_t hash = mpsfix_node_hash(fname, src);
	struct mpsfix_defaults_fn f = {def.id, false, false, false, m->ncalls, 0};
	bool ok = true;

	if (!m->read) {
		reader rd = {m, src};

		m->read = true;
		mpsfix_walk_parents(root, read_name, &rd);
		if (m->len > 1)
			qsort(m->items, m->len, sizeof(*m->items), by_hash);
	}
	for (size_t i = first_of_hash(m->items, m->len, hash); ok && i < m->len && m->items[i].hash == hash; i++) {
		const struct mpsfix_defaults_name *id = &m->items[i];

		if (!mpsfix_node_same_text(id->id, fname, src) || ts_node_eq(id->id, fname))
			continue; /* another text of the same hash; the definition's own name */
		if ((ts_node_is_null(cls) || init) && torch_attribute(m, id, src))
			continue; /* torch.get_autocast_dtype(d) beside the file's own get_autocast_dtype() */
		if (id->annotation)
			continue; /* x: Loader, -> "Loader": names a type, calls nothing */
		if (is(id->id, "string_content") && mpsfix_string_inert(id->id, src))
			continue; /* monkeypatch.setattr(m, "f", g): rebinds it, calls nothing */
		if (is(id->id, "string_content") || id->in_def)
			ok = false; /* getattr(self, "f"), a second definition */
		else if (id->handed)
			ok = f.handed = m->gradio && ts_node_is_null(cls) && read_handed(m, id->call, src);
		else if (init && !is(id->call, "call") && mpsfix_class_attribute(id->id, id->parent, src))
			continue; /* C.from_file(...), C.VERSION: no instance built unnamed (mpsfix_class_built_by_name()) */
		else if (init && in_super(id->id, src))
			continue; /* super(C, self).__init__(): the instance's own base */
		else if (ts_node_is_null(cls) || init)
			ok = is(id->call, "call") && mpsfix_field_is(id->call, "function", id->id);
		else
			ok = is(id->call, "call") && method_call(id, cls, is_static, src);
		if (ok && !id->handed)
			read_call(m, ts_node_child_by_field_name(id->call, "arguments", 9), src);
	}
	if (ok && init) {
		cls_reader cr = {m, src};

		mpsfix_walk(ts_node_child_by_field_name(cls, "body", 4), read_cls_call, &cr);
	}
	f.n = m->ncalls - f.first;
	f.ok = ok;
	f.known = ok && f.n > 0;
	mpsfix_grow((void **)&m->fns, &m->capfns, m->nfns + 1, sizeof(*m->fns));
	m->fns[m->nfns] = f;
	return &m->fns[m->nfns++];
}

/*
 * Does call `c` pass parameter `pname` (whose text has hash `hash`) at
 * positional index `at` (-1: by keyword alone)?
 */
static bool passes(const mpsfix_defaults_memo *m, const struct mpsfix_defaults_call *c, TSNode pname,
		   uint64_t hash, long at, bool posonly, const char *src)
{
	if (!posonly && c->nkw > 0) /* kws is NULL while no call has a keyword */
		for (size_t i = c->kw + first_of_hash(m->kws + c->kw, c->nkw, hash);
		     i < c->kw + c->nkw && m->kws[i].hash == hash; i++)
			if (mpsfix_node_same_text(m->kws[i].id, pname, src))
				return true;
	/* not by its keyword: by position, where no *args comes first (which
	   may or may not reach it); **kwargs may or may not hold it */
	return at >= 0 && c->positional > (uint32_t)at && (c->splat_at == UINT32_MAX || c->splat_at > (uint32_t)at);
}

/*
 * Where `param` stands among its function's positional parameters (`*at`,
 * as passes() takes it) and the function's entry with its calls read;
 * NULL where its calls are not read here.  With `local`, whether the
 * function is one no other module calls (mpsfix_defaults_kept()).
 */
static const struct mpsfix_defaults_fn *calls_of(mpsfix_defaults_memo *m, const char *src, TSNode param,
						 long *at, bool *posonly, bool *local, TSNode *owner)
{
	TSNode params = ts_node_parent(param), def = ts_node_parent(params), pname, cls, body;
	const struct mpsfix_defaults_fn *f = NULL;
	const char *fname;
	bool is_static, init;

	pname = ts_node_child_by_field_name(param, "name", 4);
	if (!is(params, "parameters") || !is(def, "function_definition") || !is(pname, "identifier"))
		return NULL;
	*at = position(params, param, src, posonly);
	if (*at == -2 || !placed(def, src, &cls, &is_static, &init))
		return NULL;
	/* what other modules may call: a function of the module, a class's __init__ */
	body = ts_node_parent(is(ts_node_parent(def), "decorated_definition") ? ts_node_parent(def) : def);
	*owner = init ? cls : is(body, "module") ? def : (TSNode){0};
	if (!ts_node_is_null(cls) && !is_static) {
		if (*at == 0)
			return NULL; /* `self` itself */
		*at = *at > 0 ? *at - 1 : *at; /* `self` is the call's object */
	}
	for (size_t i = 0; i < m->nfns && !f; i++)
		if (m->fns[i].def == def.id)
			f = &m->fns[i];
	if (!f)
		f = read_fn(m, ts_tree_root_node(def.tree), src, def, cls, is_static, init);
	if (!local)
		return f;
	if (!m->script)
		m->script = ts_node_is_null(mpsfix_main_block(ts_tree_root_node(def.tree), src)) ? -1 : 1;
	fname = src + ts_node_start_byte(ts_node_child_by_field_name(def, "name", 4));
	*local = ts_node_is_null(cls) && !init &&
		 (is(body, "block") || (m->script > 0 && ((fname[0] == '_' && fname[1] != '_') || f->handed)));
	return f;
}

/*
 * What the project's other modules pass (project.h) for parameter `param`
 * (named `pname`) of `owner`, a function of the module or a class: every
 * call passes it (`*more`: how many there are), or one leaves it out, or
 * unknown.
 */
static mpsfix_project_verdict elsewhere(const mpsfix_defaults_memo *m, const char *src, TSNode owner,
					TSNode pname, long at, bool posonly, bool given, size_t *more)
{
	TSNode name = ts_node_child_by_field_name(owner, "name", 4);
	mpsfix_project_question q = {
		.name = src + ts_node_start_byte(name),
		.name_len = ts_node_end_byte(name) - ts_node_start_byte(name),
		.is_class = is(owner, "class_definition"),
		.param = src + ts_node_start_byte(pname),
		.param_len = ts_node_end_byte(pname) - ts_node_start_byte(pname),
		.at = at,
		.posonly = posonly,
		.given = given,
	};

	*more = 0;
	if (!m->project || !m->path)
		return MPSFIX_PROJECT_UNKNOWN;
	return mpsfix_project_calls(m->project, m->path, &q, more);
}

/*
 * The value call `c` passes for parameter `pname` (hash `hash`) at
 * positional index `at`, when passes() says it passes it; null where it
 * is not written out (a gradio event's input).
 */
static TSNode passed_value(const mpsfix_defaults_memo *m, const struct mpsfix_defaults_call *c, TSNode pname,
			   uint64_t hash, long at, bool posonly, const char *src)
{
	mpsfix_kids k;
	TSNode a, v = {0};
	long i = 0;

	if (!posonly && c->nkw > 0)
		for (size_t j = c->kw + first_of_hash(m->kws + c->kw, c->nkw, hash);
		     j < c->kw + c->nkw && m->kws[j].hash == hash; j++)
			if (mpsfix_node_same_text(m->kws[j].id, pname, src))
				return m->kws[j].parent;
	if (ts_node_is_null(c->args) || is(c->args, "generator_expression"))
		return is(c->args, "generator_expression") && at == 0 ? c->args : v;
	mpsfix_kids_start(&k, c->args);
	while (ts_node_is_null(v) && mpsfix_kids_next(&k, &a))
		if (!is(a, "keyword_argument") && !is(a, "list_splat") && !is(a, "dictionary_splat") &&
		    !is(a, "comment") && i++ == at)
			v = a;
	mpsfix_kids_end(&k);
	return v;
}

/* How many wrappers deep forwarded() follows calls. */
#define FORWARDS_MAX 4

/*
 * Does call `ci` (of m->calls) pass the parameter (named `pname`, at
 * positional index `at`), a value other than None, False, 0 or "" with
 * `mode` 1, either itself or as a wrapper's forwarding call
 * (forwarded())?
 */
static bool call_passes(mpsfix_defaults_memo *m, const char *src, size_t ci, TSNode pname, uint64_t hash,
			long at, bool posonly, int mode, unsigned depth);

/*
 * Is call `ci` the forwarding call of a wrapper, `f(*args, **kwargs)` in a
 * function whose parameters are just `*args, **kwargs`,
 *
 *   def loader_bos(*args, **kwargs):
 *       for x in loader_with_state(*args, **kwargs): yield x
 *
 * (no class's method: a function of the module or of another function),
 * and does every call of the wrapper pass the parameter: by its keyword or
 * at the same position, or through a wrapper of its own?  The wrapper's
 * calls are those mpsfix_defaults_overridden() would read for it (with the
 * project's other modules' for one of the module's top level).
 */
static bool forwarded(mpsfix_defaults_memo *m, const char *src, size_t ci, TSNode pname, uint64_t hash,
		      long at, bool posonly, int mode, unsigned depth)
{
	TSNode args = m->calls[ci].args, def, params, cls, outer;
	const struct mpsfix_defaults_fn *g = NULL;
	size_t first, n, more, gi;
	bool known, is_static, init;

	if (depth >= FORWARDS_MAX || !is(args, "argument_list") || ts_node_named_child_count(args) != 2 ||
	    !is(ts_node_named_child(args, 0), "list_splat") || !is(ts_node_named_child(args, 1), "dictionary_splat"))
		return false;
	for (def = ts_node_parent(args); !is(def, "function_definition"); def = ts_node_parent(def))
		if (ts_node_is_null(def) || is(def, "lambda") || is(def, "class_definition"))
			return false;
	params = ts_node_child_by_field_name(def, "parameters", 10);
	if (ts_node_named_child_count(params) != 2 ||
	    !is(ts_node_named_child(params, 0), "list_splat_pattern") ||
	    !is(ts_node_named_child(params, 1), "dictionary_splat_pattern") ||
	    !mpsfix_node_same_text(ts_node_named_child(ts_node_named_child(params, 0), 0),
				   ts_node_named_child(ts_node_named_child(args, 0), 0), src) ||
	    !mpsfix_node_same_text(ts_node_named_child(ts_node_named_child(params, 1), 0),
				   ts_node_named_child(ts_node_named_child(args, 1), 0), src) ||
	    !placed(def, src, &cls, &is_static, &init) || !ts_node_is_null(cls))
		return false;
	for (size_t i = 0; i < m->nfns && !g; i++)
		if (m->fns[i].def == def.id)
			g = &m->fns[i];
	if (!g)
		g = read_fn(m, ts_tree_root_node(def.tree), src, def, cls, false, false);
	/* (indices from here: reading another function's calls moves the arrays) */
	gi = (size_t)(g - m->fns);
	if (!g->ok)
		return false;
	first = g->first;
	n = g->n;
	known = g->known;
	for (size_t k = first; k < first + n; k++)
		if (!call_passes(m, src, k, pname, hash, at, posonly, mode, depth + 1))
			return false;
	outer = is(ts_node_parent(def), "decorated_definition") ? ts_node_parent(def) : def;
	if (!is(ts_node_parent(outer), "module"))
		return known; /* a function's own function: its calls are all here */
	switch (elsewhere(m, src, def, pname, at, posonly, mode == 1, &more)) {
	case MPSFIX_PROJECT_DEFAULT_USED:
		return false;
	case MPSFIX_PROJECT_PASSED:
		return m->fns[gi].n + more > 0;
	default:
		return known;
	}
}

static bool call_passes(mpsfix_defaults_memo *m, const char *src, size_t ci, TSNode pname, uint64_t hash,
			long at, bool posonly, int mode, unsigned depth)
{
	const struct mpsfix_defaults_call *c = &m->calls[ci];

	if (passes(m, c, pname, hash, at, posonly, src))
		return mode == 0 || !mpsfix_falsy_literal(passed_value(m, c, pname, hash, at, posonly, src), src);
	return forwarded(m, src, ci, pname, hash, at, posonly, mode, depth);
}

/*
 * Does every known call of the function of `param` pass it (`mode` 0), pass
 * it a value other than None, False, 0 or "" (1), or does none, in a
 * function no other module calls (2)?
 */
static bool ask(mpsfix_defaults_memo *memo, const char *src, TSNode param, int mode)
{
	bool kept = mode == 2;
	mpsfix_defaults_memo once = {0}, *m = memo ? memo : &once;
	const struct mpsfix_defaults_fn *f;
	TSNode pname = ts_node_child_by_field_name(param, "name", 4), owner = {0};
	uint64_t hash = mpsfix_node_hash(pname, src);
	bool posonly, local = true, ok, known = false;
	size_t first = 0, n = 0;
	long at;

	f = calls_of(m, src, param, &at, &posonly, kept ? &local : NULL, &owner);
	/* the text's own calls first: one that leaves it out settles it */
	ok = f && f->ok && local;
	if (ok) { /* (a wrapper's calls, read on the way, move the arrays) */
		first = f->first;
		n = f->n;
		known = f->known;
	}
	for (size_t i = first; ok && i < first + n; i++) {
		const struct mpsfix_defaults_call *c = &m->calls[i];

		if (!kept)
			ok = call_passes(m, src, i, pname, hash, at, posonly, mode, 0);
		else /* and no **kwargs that may hold it, no *args that may reach it */
			ok = !c->kwsplat && !(at >= 0 && c->splat_at <= (uint32_t)at) &&
			     !passes(m, c, pname, hash, at, posonly, src);
	}
	if (ok && !kept && !ts_node_is_null(owner)) {
		/* then the calls of the project's other modules, where they are known */
		size_t more;

		switch (elsewhere(m, src, owner, pname, at, posonly, mode == 1, &more)) {
		case MPSFIX_PROJECT_DEFAULT_USED:
			ok = false;
			break;
		case MPSFIX_PROJECT_PASSED:
			ok = n + more > 0;
			break;
		default:
			/* as the text alone tells, for a function; a class may be
			   built from a configuration file, so its own calls say
			   too little */
			ok = known && !is(owner, "class_definition");
			break;
		}
	} else {
		ok = ok && known;
	}
	if (!memo)
		mpsfix_defaults_memo_release(&once);
	return ok;
}

bool mpsfix_defaults_overridden(mpsfix_defaults_memo *memo, const char *src, TSNode param)
{
	return ask(memo, src, param, 0);
}

bool mpsfix_defaults_given(mpsfix_defaults_memo *memo, const char *src, TSNode param)
{
	return ask(memo, src, param, 1);
}

bool mpsfix_defaults_kept(mpsfix_defaults_memo *memo, const char *src, TSNode param)
{
	return ask(memo, src, param, 2);
}
