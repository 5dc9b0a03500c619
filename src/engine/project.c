/*
 * project.c: the calls the other modules of a project make to one of its
 * functions or classes (see project.h).  The project's files are listed
 * once per thread; a question reads those that hold the name as a word
 * and parses the Python ones among them.
 */
#include "project.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kwdict.h"
#include "parse.h"
#include "modpath.h"
#include "texts.h"
#include "projfiles.h"
#include "source.h"

/*
 * The most places one module may say the name asked about, or `import`,
 * for its calls to be read: each is looked up in the tree at a cost of its
 * depth, and a generated module of 30,000 nested calls `f(f(f(...)))`
 * would cost their square.
 */
#define PROJECT_MAX_MENTIONS 1024

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

typedef struct {
	char *key; /* "NAME\nPARAM\n", the question's other fields, "\nFILE" */
	mpsfix_project_verdict verdict;
	size_t ncalls;
} answer;

struct mpsfix_project_cache {
	mpsfix_project_files **projects; /* each where it was made: its files point at it */
	size_t nprojects, capprojects;
	answer *answers;
	size_t nanswers, capanswers;
	mpsfix_texts texts;  /* modules parsed for the questions */
	mpsfix_kwdict_store *kwdicts; /* what the modules' `**NAME` pass */
	char *file_path, *file_real, *file_root; /* the last file asked about */
};

mpsfix_project_cache *mpsfix_project_cache_new(void)
{
	return mpsfix_xcalloc(1, sizeof(mpsfix_project_cache));
}

void mpsfix_project_cache_free(mpsfix_project_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nprojects; i++) {
		mpsfix_project_files_release(c->projects[i]);
		free(c->projects[i]);
	}
	free(c->projects);
	for (size_t i = 0; i < c->nanswers; i++)
		free(c->answers[i].key);
	free(c->answers);
	mpsfix_texts_release(&c->texts);
	mpsfix_kwdict_store_free(c->kwdicts);
	free(c->file_path);
	free(c->file_real);
	free(c->file_root);
	free(c);
}

static mpsfix_project_files *project_of(mpsfix_project_cache *c, const char *root)
{
	mpsfix_project_files *p;

	for (size_t i = 0; i < c->nprojects; i++)
		if (!strcmp(c->projects[i]->root, root))
			return c->projects[i];
	mpsfix_grow((void **)&c->projects, &c->capprojects, c->nprojects + 1, sizeof(*c->projects));
	p = c->projects[c->nprojects++] = mpsfix_xcalloc(1, sizeof(*p));
	mpsfix_project_files_walk(p, root);
	return p;
}

/* ---- modules ---------------------------------------------------------- */

/* ---- one module's references ------------------------------------------ */

typedef struct {
	mpsfix_project_cache *c;
	const mpsfix_project_question *q;
	const char *ours;    /* the defining module's file (real path) */
	const char *root;
	mpsfix_project_files *p;
	char **words;        /* the names of its module and packages, then those of
				the modules that hand the name on (related()) */
	size_t nwords, capwords;
} asking;

/* A parsed module. */
typedef struct {
	mpsfix_text *text; /* its text and tree, in the cache (pinned) or owned */
	bool owned;
	TSTree *tree;
	const char *data;
	size_t len;
	char *dir;           /* its folder (real path) */
	TSNode *imports;     /* its import statements, in order */
	size_t nimports, capimports;
	TSNode *ids;         /* identifiers of the name */
	size_t nids, capids;
	bool string;         /* a string of it names the name (not in __all__) */
	bool crowded;        /* it says the name or `import` more than
				PROJECT_MAX_MENTIONS times: not read */
} module;

static void module_release(module *m)
{
	if (m->text)
		mpsfix_texts_put(m->text, m->owned);
	free(m->dir);
	free(m->imports);
	free(m->ids);
}

static bool text_is(TSNode n, const char *src, const char *s, size_t len)
{
	return ts_node_end_byte(n) - ts_node_start_byte(n) == len && !memcmp(src + ts_node_start_byte(n), s, len);
}

/* Is string content `n` in the value of `__all__ = [...]` (or `+=`)? */
static bool in_all(TSNode n, const char *src)
{
	for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p))
		if (is(p, "assignment") || is(p, "augmented_assignment"))
			return mpsfix_node_text_is(ts_node_child_by_field_name(p, "left", 4), src, "__all__");
		else if (is(p, "block") || is(p, "module"))
			return false;
	return false;
}

/*
 * May string content `node` run as code: a doctest (`>>> `), or any string
 * but a docstring (exec(code), `python -c`)?  (`f(...)` in a docstring's
 * prose does not.)
 */
static bool runs(TSNode node, const char *data)
{
	TSNode str = ts_node_parent(node);
	uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);

	for (uint32_t i = s; i + 3 <= e; i++)
		if (!memcmp(data + i, ">>>", 3))
			return true;
	/* a docstring (a string that is a statement of its own) is prose; a string
	   used as a value may be run: exec(code), python -c, textwrap.dedent(...) */
	return !is(ts_node_parent(str), "expression_statement");
}
/*
 * Find in `m` its import statements and the identifiers and strings that
 * name `q->name`: each occurrence of the word (and of `import`) is looked
 * up in the tree, so a question costs what the module says of the name,
 * not a walk of the module; past PROJECT_MAX_MENTIONS of them the module
 * is left unread (`crowded`: its calls unknown).
 */
static void scan_module(module *m, const mpsfix_project_question *q)
{
	TSNode root = ts_tree_root_node(m->tree);
	const char *data = m->data;
	size_t seen = 0;

	for (int pass = 0; pass < 2; pass++) {
		const char *w = pass ? "import" : q->name;
		size_t n = pass ? 6 : q->name_len;

		for (const char *p = data; (p = mpsfix_next_word(data, m->len, p, w, n)); p++) {
			uint32_t at = (uint32_t)(p - data);
			TSNode node, parent;

			if (++seen > PROJECT_MAX_MENTIONS) {
				m->crowded = true; /* each look costs the tree's depth: f(f(f(...))) */
				return;
			}
			node = ts_node_descendant_for_byte_range(root, at, at + (uint32_t)n);
			if (pass) {
				/* the keyword of `import a` or `from a import b` */
				parent = ts_node_parent(node);
				if (!ts_node_is_named(node) && (is(parent, "import_statement") ||
								 is(parent, "import_from_statement"))) {
					mpsfix_grow((void **)&m->imports, &m->capimports, m->nimports + 1,
						    sizeof(*m->imports));
					m->imports[m->nimports++] = parent;
				}
			} else if (is(node, "identifier") && ts_node_start_byte(node) == at &&
				   ts_node_end_byte(node) == at + n) {
				if (!mpsfix_in_import(node)) {
					mpsfix_grow((void **)&m->ids, &m->capids, m->nids + 1, sizeof(*m->ids));
					m->ids[m->nids++] = node;
				}
			} else if (is(node, "string_content") && !m->string) {
				uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);

				/* "f", "pkg.mod.f", "pkg.mod:f [x]", "f(1)" (exec(), a doctest); not an
				   annotation's "C" nor __all__, nor a name monkeypatch.setattr() or
				   mock.patch() rebinds */
				if (((s == at && e == at + n) || (at > s && (data[at - 1] == '.' || data[at - 1] == ':')) ||
				     (at + n < e && data[at + n] == '(' && runs(node, data))) &&
				    !in_all(node, data) && !mpsfix_in_annotation(ts_node_parent(node)) &&
				    !mpsfix_string_inert(node, data))
					m->string = true;
			}
		}
	}
}

static bool module_read(asking *a, module *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	if (!(m->text = mpsfix_texts_get(&a->c->texts, path, &m->owned)))
		return false;
	m->dir = mpsfix_modpath_dir(path);
	m->data = m->text->data;
	m->len = m->text->len;
	m->tree = m->text->tree;
	if (!m->tree)
		return false;
	scan_module(m, a->q);
	return true;
}

/* The dots of relative import `r` (`from ..a import b`) and its module name (null: none). */
static size_t relative(TSNode r, const char *src, TSNode *mod)
{
	TSNode prefix = mpsfix_first_named(r);

	*mod = ts_node_next_named_sibling(prefix);
	(void)src;
	return is(prefix, "import_prefix") ? ts_node_end_byte(prefix) - ts_node_start_byte(prefix) : 0;
}

typedef enum { NOT_OURS, OURS, UNSURE, UNBOUND } whose;

static whose reexports(asking *a, const char *file);

/*
 * Does dotted module name `mod` end with the name of the module asked
 * about (`loader`, `pkg.loader` for .../pkg/loader.py; a package's own
 * name for its __init__.py)?
 */
static bool names_ours(const asking *a, const char *mod, size_t len)
{
	const char *last = mod;

	for (size_t i = 0; i < len; i++)
		if (mod[i] == '.')
			last = mod + i + 1;
	return a->nwords && strlen(a->words[0]) == (size_t)(mod + len - last) &&
	       !memcmp(last, a->words[0], (size_t)(mod + len - last));
}
static whose imports_whose(asking *a, const module *m, int depth, bool *renamed, whose *star);

/*
 * The file of the project that the module `from_module` (an import's
 * module_name, or null) with `extra` appended (".f" for `from pkg import
 * f` as a module) names in module `m`, or NULL; `*named_ours`: none is
 * found, but the name ends with the module asked about's (`loader`,
 * `pkg.loader`, put on sys.path as this does not look).
 */
static char *locate(const asking *a, const module *m, TSNode from_module, const char *extra, size_t nextra,
		    bool *named_ours)
{
	mpsfix_buf mod = MPSFIX_BUF_INIT;
	size_t dots = 0;
	TSNode named = from_module;
	char *file;

	if (is(from_module, "relative_import"))
		dots = relative(from_module, m->data, &named);
	if (!ts_node_is_null(named))
		mpsfix_buf_add(&mod, m->data + ts_node_start_byte(named), ts_node_end_byte(named) - ts_node_start_byte(named));
	if (nextra) {
		if (mod.len)
			mpsfix_buf_addc(&mod, '.');
		mpsfix_buf_add(&mod, extra, nextra);
	}
	file = mpsfix_modpath_resolve(m->dir, dots, mod.data ? mod.data : "", mod.len, a->root);
	*named_ours = !file && mod.len && names_ours(a, mod.data, mod.len);
	mpsfix_buf_release(&mod);
	return file;
}

/*
 * Whose is the module locate() finds: ours; another file of the project,
 * ours when it imports the name from ours (one level, reexports()), unsure
 * when it imports it from elsewhere in the project or by a star (or at
 * `depth` 1); unsure when not found but named like ours; else not ours.
 */
static whose module_whose(asking *a, const module *m, TSNode from_module, const char *extra, size_t nextra,
			  int depth)
{
	bool named_ours;
	char *file = locate(a, m, from_module, extra, nextra, &named_ours);
	whose w = named_ours ? UNSURE : NOT_OURS;

	if (file)
		w = !strcmp(file, a->ours) ? OURS : depth ? UNSURE : reexports(a, file);
	free(file);
	return w;
}

/*
 * Whose is the name that `from X import *` (X: `from_module`) in `m` may
 * bind: ours when X is ours; not ours when X is no module of the project
 * (not named like ours), or one whose words say it cannot bind the name
 * (mpsfix_project_file_may_bind()) and the only module of the project of
 * its name that the import may find (mpsfix_modpath_only(): `python -m
 * scripts.run` finds the top's consts.py, not scripts/consts.py); else
 * unsure.
 */
static whose star_whose(asking *a, const module *m, TSNode from_module)
{
	bool named_ours;
	char *file = locate(a, m, from_module, NULL, 0, &named_ours);
	whose w = !file ? (named_ours ? UNSURE : NOT_OURS) : !strcmp(file, a->ours) ? OURS : UNSURE;

	if (w == UNSURE && (is(from_module, "relative_import") ||
			    mpsfix_modpath_only(m->dir, m->data + ts_node_start_byte(from_module),
						ts_node_end_byte(from_module) - ts_node_start_byte(from_module), a->root, file)))
		for (size_t i = 0; i < a->p->len; i++)
			if (!strcmp(a->p->files[i].path, file)) {
				if (!mpsfix_project_file_may_bind(&a->p->files[i], a->q->name, a->q->name_len))
					w = NOT_OURS;
				break;
			}
	free(file);
	return w;
}

/*
 * Is the module that `from_module` with `extra` appended names the one
 * asked about itself, or one named like it that is not found (put on
 * sys.path)?  A package above it, or another module, is not.
 */
static bool module_is_ours(asking *a, const module *m, TSNode from_module, const char *extra, size_t nextra)
{
	bool named_ours;
	char *file = locate(a, m, from_module, extra, nextra, &named_ours);
	bool yes = file ? !strcmp(file, a->ours) : named_ours;

	free(file);
	return yes;
}

/*
 * The name an import binds for its imported item `it` (`a` of `import a.b`,
 * the alias of `x as y`); `*aliased` when that is another name than the
 * item's (`from .buffer import ReplayBuffer as ReplayBuffer`, the explicit
 * re-export of PEP 484, binds the name itself).
 */
static TSNode bound_name(TSNode it, const char *src, bool *aliased)
{
	TSNode alias;

	*aliased = false;
	if (is(it, "aliased_import")) {
		alias = ts_node_child_by_field_name(it, "alias", 5);
		*aliased = !mpsfix_node_same_text(alias, ts_node_child_by_field_name(it, "name", 4), src);
		return alias;
	}
	return is(it, "dotted_name") ? ts_node_named_child(it, 0) : it;
}

/*
 * Does module file `file` (not ours) hand on the name from ours: `from
 * .loader import f` in a package's __init__.py?  Ours when an import there
 * binds the name from ours; unsure when a star import of the project or an
 * import from elsewhere might; not ours otherwise.
 */
static whose reexports(asking *a, const char *file)
{
	module m;
	whose w = UNSURE, star;
	bool renamed = false;

	if (module_read(a, &m, file)) {
		w = imports_whose(a, &m, 1, &renamed, &star);
		w = renamed ? UNSURE : w == UNBOUND ? star : w; /* from .loader import *: ours */
		if (w == NOT_OURS && mpsfix_has_word(m.data, m.len, "__getattr__", 11))
			w = UNSURE; /* a module's __getattr__ (PEP 562) may hand on any name */
	}
	module_release(&m);
	return w;
}

/* What call `call` does with the parameter: passes it, leaves it out, or may (splats). */
static mpsfix_project_verdict call_passes(const asking *a, const module *m, TSNode call)
{
	TSNode args = ts_node_child_by_field_name(call, "arguments", 9), arg, value = {0};
	uint32_t positional = 0, splat_at = UINT32_MAX;
	bool kwsplat = false;
	long at = a->q->at;

	if (is(args, "generator_expression")) {
		positional = 1;
		value = args;
	} else {
		for (uint32_t i = 0; i < ts_node_named_child_count(args) && ts_node_is_null(value); i++) {
			arg = ts_node_named_child(args, i);
			if (is(arg, "keyword_argument")) {
				if (!a->q->posonly && text_is(ts_node_child_by_field_name(arg, "name", 4), m->data,
							     a->q->param, a->q->param_len))
					value = ts_node_child_by_field_name(arg, "value", 5);
			} else if (is(arg, "list_splat")) {
				splat_at = splat_at == UINT32_MAX ? positional : splat_at;
			} else if (is(arg, "dictionary_splat")) {
				mpsfix_kwdict_cache *kw = mpsfix_kwdict_store_get(&a->c->kwdicts, m->text->path,
										  &m->text->stamp, m->tree);
				TSNode d = kw ? mpsfix_kwdict_of(kw, arg, m->data) : (TSNode){0};

				if (ts_node_is_null(d))
					kwsplat = true;
				else if (!a->q->posonly)
					value = mpsfix_kwdict_value(d, m->data, a->q->param, a->q->param_len);
			} else if (!is(arg, "comment")) {
				if (at >= 0 && positional == (uint32_t)at && splat_at == UINT32_MAX)
					value = arg;
				positional++;
			}
		}
	}
	if (!ts_node_is_null(value))
		return a->q->given && mpsfix_falsy_literal(value, m->data) ? MPSFIX_PROJECT_DEFAULT_USED
									   : MPSFIX_PROJECT_PASSED;
	if (kwsplat || (at >= 0 && splat_at != UINT32_MAX))
		return MPSFIX_PROJECT_UNKNOWN;
	return MPSFIX_PROJECT_DEFAULT_USED;
}

/*
 * Which module a name bound by one of `m`'s imports stands for, with
 * `tail` (".b.c") read after it: `import a.b` binds a, `import a.b as X`
 * binds X for a.b, `from p import mod` binds mod for p.mod.  False when no
 * import binds `root`.
 */
static bool module_of_name(asking *a, const module *m, TSNode root, const char *tail, size_t ntail, whose *w)
{
	bool bound_any = false;
	whose all = NOT_OURS;

	for (size_t i = m->nimports; i-- > 0;) {
		TSNode s = m->imports[i], from = ts_node_child_by_field_name(s, "module_name", 11);

		for (uint32_t k = 0; k < ts_node_named_child_count(s); k++) {
			TSNode it = ts_node_named_child(s, k), bound, mod;
			bool aliased;
			mpsfix_buf full = MPSFIX_BUF_INIT;

			if (ts_node_eq(it, from) || is(it, "wildcard_import"))
				continue;
			bound = bound_name(it, m->data, &aliased);
			if (!mpsfix_node_same_text(bound, root, m->data))
				continue;
			if (is(s, "import_statement")) {
				TSNode empty = {0};

				/* import a.b: a.b.c reads module a.b.c; import a.b as X: X.c is a.b.c */
				mod = aliased ? ts_node_child_by_field_name(it, "name", 4) : (TSNode){0};
				if (!aliased) {
					mpsfix_buf_add(&full, m->data + ts_node_start_byte(root),
						       ts_node_end_byte(root) - ts_node_start_byte(root));
				} else {
					mpsfix_buf_add(&full, m->data + ts_node_start_byte(mod),
						       ts_node_end_byte(mod) - ts_node_start_byte(mod));
				}
				mpsfix_buf_add(&full, tail, ntail);
				*w = module_whose(a, m, empty, full.data, full.len, 0);
			} else {
				/* from p import mod (as X): X.c is p.mod.c */
				TSNode name = is(it, "aliased_import") ? ts_node_child_by_field_name(it, "name", 4) : it;

				mpsfix_buf_add(&full, m->data + ts_node_start_byte(name),
					       ts_node_end_byte(name) - ts_node_start_byte(name));
				mpsfix_buf_add(&full, tail, ntail);
				*w = module_whose(a, m, from, full.data, full.len, 0);
			}
			mpsfix_buf_release(&full);
			/* every import that binds the name (a try's two, a function's own):
			   which one a read sees is not followed */
			all = !bound_any || all == *w ? *w : UNSURE;
			bound_any = true;
		}
	}
	*w = all;
	return bound_any;
}

/*
 * Whose is the name where module `m` reads it bare, as its imports bind
 * it (`depth` as module_whose() takes it): UNBOUND when none binds it by
 * name, and then `*star` says whose the project modules it star-imports
 * are (NOT_OURS: none).  `*renamed`: an import binds ours under another
 * name (`from pkg.loader import f as g`), which calls are not followed.
 */
static whose imports_whose(asking *a, const module *m, int depth, bool *renamed, whose *star)
{
	whose w = UNBOUND;

	*star = NOT_OURS;
	for (size_t i = 0; i < m->nimports; i++) {
		TSNode s = m->imports[i], from = ts_node_child_by_field_name(s, "module_name", 11);

		for (uint32_t k = 0; k < ts_node_named_child_count(s); k++) {
			TSNode it = ts_node_named_child(s, k), b;
			bool aliased;
			whose here;

			if (ts_node_eq(it, from))
				continue;
			if (is(it, "wildcard_import")) {
				here = star_whose(a, m, from);
				*star = here == NOT_OURS ? *star : *star == NOT_OURS ? here : *star == here ? here : UNSURE;
				continue;
			}
			b = bound_name(it, m->data, &aliased);
			if (is(s, "import_from_statement") && aliased &&
			    text_is(ts_node_child_by_field_name(it, "name", 4), m->data, a->q->name, a->q->name_len) &&
			    module_whose(a, m, from, NULL, 0, depth) != NOT_OURS)
				*renamed = true;
			if (!text_is(b, m->data, a->q->name, a->q->name_len))
				continue;
			/* import f (a module), from x import g as f: not ours */
			here = is(s, "import_from_statement") && !aliased ? module_whose(a, m, from, NULL, 0, depth)
									  : NOT_OURS;
			w = w == UNBOUND || w == here ? here : UNSURE;
		}
	}
	/* a name bound by name and a star import of the project: which comes last is not followed */
	return w != UNBOUND && *star != NOT_OURS ? UNSURE : w;
}

/*
 * Does one of `m`'s imports bind the module asked about itself (`from pkg
 * import loader`, `import pkg.loader`), or may it (not found, or a dynamic
 * import in a module that names it)?
 */
static bool binds_ours(asking *a, const module *m)
{
	static const char *const dynamic[] = {"__import__", "import_module", "modules", "import_file"};

	/* importlib.import_module("pkg.loader"), __import__, sys.modules["pkg.loader"] */
	for (size_t i = 0; a->nwords && i < MPSFIX_ARRAY_SIZE(dynamic); i++)
		if (mpsfix_has_word(m->data, m->len, dynamic[i], strlen(dynamic[i])) &&
		    mpsfix_has_word(m->data, m->len, a->words[0], strlen(a->words[0])))
			return true;
	for (size_t i = 0; i < m->nimports; i++) {
		TSNode s = m->imports[i], from = ts_node_child_by_field_name(s, "module_name", 11);

		for (uint32_t k = 0; k < ts_node_named_child_count(s); k++) {
			TSNode it = ts_node_named_child(s, k), name, empty = {0};

			if (ts_node_eq(it, from) || is(it, "wildcard_import"))
				continue;
			name = is(it, "aliased_import") ? ts_node_child_by_field_name(it, "name", 4) : it;
			if (module_is_ours(a, m, is(s, "import_statement") ? empty : from, m->data + ts_node_start_byte(name),
					   ts_node_end_byte(name) - ts_node_start_byte(name)))
				return true;
		}
	}
	return false;
}

/*
 * Does `m` hand on the module asked about: a name that one of its imports
 * binds to it (`import pkg.loader as L`, `from pkg import loader`) read
 * other than as `L.x` (`run(L)`, `M = L`, `fire.Fire(loader)`)?
 */
static bool hands_module_on(asking *a, const module *m)
{
	TSNode root = ts_tree_root_node(m->tree);

	for (size_t i = 0; i < m->nimports; i++) {
		TSNode s = m->imports[i], from = ts_node_child_by_field_name(s, "module_name", 11);

		for (uint32_t k = 0; k < ts_node_named_child_count(s); k++) {
			TSNode it = ts_node_named_child(s, k), name, bound, empty = {0};
			bool aliased;
			const char *w;
			size_t n;

			if (ts_node_eq(it, from) || is(it, "wildcard_import"))
				continue;
			name = is(it, "aliased_import") ? ts_node_child_by_field_name(it, "name", 4) : it;
			if (!module_is_ours(a, m, is(s, "import_statement") ? empty : from, m->data + ts_node_start_byte(name),
					    ts_node_end_byte(name) - ts_node_start_byte(name)))
				continue;
			bound = bound_name(it, m->data, &aliased);
			w = m->data + ts_node_start_byte(bound);
			n = ts_node_end_byte(bound) - ts_node_start_byte(bound);
			/* each read of the bound name: the object of an attribute, or in an import */
			for (const char *p = m->data; (p = mpsfix_next_word(m->data, m->len, p, w, n)); p++) {
				uint32_t at = (uint32_t)(p - m->data);
				TSNode id, par;

				id = ts_node_descendant_for_byte_range(root, at, at + (uint32_t)n);
				if (!is(id, "identifier") || mpsfix_in_import(id))
					continue;
				par = ts_node_parent(id);
				if (!is(par, "attribute") || !mpsfix_field_is(par, "object", id))
					return true;
			}
		}
	}
	return false;
}

/* What module `m` (not ours) does with the name: the verdict of its calls, `*n` of them. */
static mpsfix_project_verdict module_calls(asking *a, const module *m, size_t *n, bool *hands_on)
{
	mpsfix_project_verdict v = MPSFIX_PROJECT_PASSED;
	bool renamed = false;
	int binds = -1;
	whose star, bare = imports_whose(a, m, 0, &renamed, &star);

	/* `from pkg.loader import f` (or `*`) binds ours: its importers may read it there */
	*hands_on = bare == OURS || (bare == UNBOUND && star == OURS);
	if (renamed || hands_module_on(a, m))
		return MPSFIX_PROJECT_UNKNOWN; /* g(...), run(loader): not followed */
	if (bare == UNBOUND) /* read through a star import of the project, or no name of ours */
		bare = star == NOT_OURS ? NOT_OURS : UNSURE;
	for (size_t i = 0; i < m->nids; i++) {
		TSNode id = m->ids[i], p = ts_node_parent(id), call = {0};
		whose w;

		if (is(p, "keyword_argument") && mpsfix_field_is(p, "name", id))
			continue; /* g(f=1) */
		if (is(p, "attribute") && mpsfix_field_is(p, "attribute", id)) {
			TSNode obj = ts_node_child_by_field_name(p, "object", 6), root;
			uint32_t tail = ts_node_end_byte(obj);

			if (!mpsfix_attribute_root(obj, &root) || !module_of_name(a, m, root, m->data + ts_node_end_byte(root),
									tail - ts_node_end_byte(root), &w)) {
				/* model.f, self.f: another object's, unless the module imports
				   ours and may keep it (self.mod.f, M = loader; M.f) */
				if (binds < 0)
					binds = binds_ours(a, m);
				if (binds)
					return MPSFIX_PROJECT_UNKNOWN;
				continue;
			}
			if (w == NOT_OURS)
				continue;
			if (w == UNSURE)
				return MPSFIX_PROJECT_UNKNOWN;
			call = ts_node_parent(p);
			if (!is(call, "call") || !mpsfix_field_is(call, "function", p))
				return MPSFIX_PROJECT_UNKNOWN; /* loader.f handed on */
		} else {
			if (bare == NOT_OURS)
				continue;
			if (bare == UNSURE)
				return MPSFIX_PROJECT_UNKNOWN;
			if (mpsfix_typing_only(id, m->data) || (a->q->is_class && mpsfix_class_attribute(id, p, m->data)))
				continue; /* x: C, isinstance(x, C), C.from_file(...) */
			if (!is(p, "call") || !mpsfix_field_is(p, "function", id))
				return MPSFIX_PROJECT_UNKNOWN; /* class D(C), partial(f), C.build(), f = ... */
			call = p;
		}
		(*n)++;
		switch (call_passes(a, m, call)) {
		case MPSFIX_PROJECT_DEFAULT_USED:
			return MPSFIX_PROJECT_DEFAULT_USED;
		case MPSFIX_PROJECT_UNKNOWN:
			v = MPSFIX_PROJECT_UNKNOWN;
			break;
		default:
			break;
		}
	}
	return v;
}

/* ---- the question ----------------------------------------------------- */

/*
 * The words a module must hold to reach the one asked about: its name, the
 * names of the packages above it up to the project's top (`from pkg
 * import f` through pkg/__init__.py), and the top folder's own.
 */
static void module_words(asking *a, const char *file)
{
	size_t rootlen = strlen(a->root), n = 0;
	char *copy = mpsfix_xstrdup(file + (strncmp(file, a->root, rootlen) ? 0 : rootlen)), *save = NULL;
	char *parts[16], *dot;
	const char *top = strrchr(a->root, '/');

	for (char *t = strtok_r(copy, "/", &save); t && n < 15; t = strtok_r(NULL, "/", &save))
		parts[n++] = t;
	if (n && (dot = strchr(parts[n - 1], '.')))
		*dot = '\0'; /* loader.py: loader */
	if (n && !strcmp(parts[n - 1], "__init__"))
		n--; /* a package's __init__.py: the package */
	mpsfix_grow((void **)&a->words, &a->capwords, a->nwords + n + 1, sizeof(*a->words));
	while (n)
		a->words[a->nwords++] = mpsfix_xstrdup(parts[--n]);
	if (top && top[1])
		a->words[a->nwords++] = mpsfix_xstrdup(top + 1); /* the top folder, a package itself */
	free(copy);
}
/*
 * May module file `f` reach the module asked about: does it hold one of
 * module_words(), a relative import, a star import, or a dynamic import
 * (importlib, __import__, sys.modules)?  One that does not cannot name it.
 */
static bool related(const asking *a, mpsfix_project_file *f)
{
	static const char *const dynamic[] = {
		MPSFIX_PROJECT_WORD_RELATIVE, MPSFIX_PROJECT_WORD_STAR, "importlib", "__import__", "modules",
	};

	for (size_t i = 0; i < a->nwords; i++)
		if (mpsfix_project_file_may_hold(f, a->words[i], strlen(a->words[i])))
			return true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(dynamic); i++)
		if (mpsfix_project_file_may_hold(f, dynamic[i], strlen(dynamic[i])))
			return true;
	return false;
}

static mpsfix_project_verdict ask(asking *a, mpsfix_project_files *p, size_t *ncalls)
{
	mpsfix_project_verdict v = MPSFIX_PROJECT_PASSED;
	bool *done = mpsfix_xcalloc(p->len ? p->len : 1, sizeof(*done)), more = true;

	/* rounds: a module that hands the name on makes its importers related too */
	for (int round = 0; more && round < 16 && v != MPSFIX_PROJECT_DEFAULT_USED; round++) {
		more = false;
		for (size_t i = 0; i < p->len && v != MPSFIX_PROJECT_DEFAULT_USED; i++) {
			mpsfix_project_file *f = &p->files[i];
			char *data = NULL, *real;
			size_t len;
			int rc;
			module m;
			mpsfix_project_verdict here;
			bool hands_on = false;

			if (done[i] || !mpsfix_project_file_may_hold(f, a->q->name, a->q->name_len) ||
			    (f->kind == 1 && !related(a, f)))
				continue;
			done[i] = true;
			rc = mpsfix_project_file_read(f, &data, &len);
			if (rc != 0) {
				/* an unreadable or huge module or notebook may call it; a huge
				   configuration file is data */
				if (f->kind != 3)
					v = MPSFIX_PROJECT_UNKNOWN;
				free(data);
				continue;
			}
			if (!mpsfix_has_word(data, len, a->q->name, a->q->name_len)) {
				free(data);
				continue;
			}
			free(data);
			if (!(real = realpath(f->path, NULL))) {
				v = MPSFIX_PROJECT_UNKNOWN; /* gone since the walk */
				continue;
			}
			if (!strcmp(real, a->ours)) {
				free(real);
				continue; /* the module itself: defaults.c reads its calls */
			}
			if (f->kind != 1) {
				here = MPSFIX_PROJECT_UNKNOWN; /* a notebook's cell, a config's _target_ */
			} else if (!module_read(a, &m, real)) {
				here = MPSFIX_PROJECT_UNKNOWN;
				module_release(&m);
			} else {
				size_t n = 0;

				here = m.string || m.crowded ? MPSFIX_PROJECT_UNKNOWN : module_calls(a, &m, &n, &hands_on);
				*ncalls += n;
				module_release(&m);
			}
			if (hands_on) {
				module_words(a, real);
				more = true;
			}
			free(real);
			if (here != MPSFIX_PROJECT_PASSED)
				v = here == MPSFIX_PROJECT_DEFAULT_USED ? here : MPSFIX_PROJECT_UNKNOWN;
		}
	}
	if (more && v == MPSFIX_PROJECT_PASSED)
		v = MPSFIX_PROJECT_UNKNOWN; /* handed on further than followed */
	free(done);
	return v;
}

/*
 * The real path of the file at `path` and its project's top (NULL: none),
 * found once for the questions about one file.
 */
static bool file_and_root(mpsfix_project_cache *c, const char *path, const char **real, const char **root)
{
	if (!c->file_path || strcmp(c->file_path, path)) {
		free(c->file_path);
		free(c->file_real);
		free(c->file_root);
		c->file_path = mpsfix_xstrdup(path);
		c->file_real = realpath(path, NULL);
		c->file_root = c->file_real ? mpsfix_project_root(c->file_real) : NULL;
	}
	*real = c->file_real;
	*root = c->file_root;
	return c->file_real && c->file_root;
}

mpsfix_project_verdict mpsfix_project_calls(mpsfix_project_cache *c, const char *path,
					    const mpsfix_project_question *q, size_t *ncalls)
{
	const char *ours, *root;
	char *key;
	mpsfix_project_verdict v = MPSFIX_PROJECT_UNKNOWN;
	mpsfix_project_files *p;

	*ncalls = 0;
	if (!c || !path || !file_and_root(c, path, &ours, &root))
		return v;
	/* the name first: keys of one file differ there */
	key = mpsfix_xasprintf("%.*s\n%.*s\n%ld%d%d%d\n%s", (int)q->name_len, q->name, (int)q->param_len, q->param,
			       q->at, q->posonly, q->is_class, q->given, ours);
	for (size_t i = 0; i < c->nanswers; i++)
		if (!strcmp(c->answers[i].key, key)) {
			*ncalls = c->answers[i].ncalls;
			free(key);
			return c->answers[i].verdict;
		}
	if ((p = project_of(c, root))->ok) {
		asking a = {.c = c, .q = q, .ours = ours, .root = root, .p = p};

		module_words(&a, ours);
		v = ask(&a, p, ncalls);
		for (size_t i = 0; i < a.nwords; i++)
			free(a.words[i]);
		free(a.words);
	}
	mpsfix_grow((void **)&c->answers, &c->capanswers, c->nanswers + 1, sizeof(*c->answers));
	c->answers[c->nanswers++] = (answer){key, v, *ncalls};
	return v;
}

bool mpsfix_project_unnamed(mpsfix_project_cache *c, const char *path, const char *name, size_t n)
{
	const char *ours, *root;
	mpsfix_project_files *p;
	char *key;
	bool unnamed = true;

	if (!c || !path || !n || !file_and_root(c, path, &ours, &root))
		return false;
	key = mpsfix_xasprintf("%.*s\n\nunnamed\n%s", (int)n, name, ours);
	for (size_t i = 0; i < c->nanswers; i++)
		if (!strcmp(c->answers[i].key, key)) {
			free(key);
			return c->answers[i].verdict == MPSFIX_PROJECT_PASSED;
		}
	p = project_of(c, root);
	unnamed = p->ok;
	for (size_t i = 0; unnamed && i < p->len; i++) {
		mpsfix_project_file *f = &p->files[i];
		char *data, *real;
		size_t len;

		if (!mpsfix_project_file_may_hold(f, name, n))
			continue;
		if (mpsfix_project_file_read(f, &data, &len) != 0) {
			/* an unreadable module may name it; a huge data file is data */
			unnamed = f->kind != 1;
			free(data);
			continue;
		}
		if (mpsfix_has_word(data, len, name, n)) {
			real = realpath(f->path, NULL);
			unnamed = real && !strcmp(real, ours); /* the file itself */
			free(real);
		}
		free(data);
	}
	mpsfix_grow((void **)&c->answers, &c->capanswers, c->nanswers + 1, sizeof(*c->answers));
	c->answers[c->nanswers++] = (answer){key, unnamed ? MPSFIX_PROJECT_PASSED : MPSFIX_PROJECT_UNKNOWN, 0};
	return unnamed;
}
