/*
 * sibling.c: does a file import, from its own folder, a module whose import
 * fails on a Mac?  See sibling.h.  Each such module is read and parsed on
 * its own, with the questions reach.c and cuda_code.c ask of any module;
 * its imports are not followed.
 */
#include "sibling.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuda_code.h"
#include "cuda_script.h"
#include "instance.h"
#include "names.h"
#include "parse.h"
#include "reach.h"
#include "source.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* A module read on its own: its tree and imports. */
typedef struct {
	TSParser *parser;
	TSTree *tree;
	mpsfix_names *names;
	TSNode root;
} parsed;

/*
 * Parse the module whose text is `len` bytes at `data`.  False for text
 * that does not parse: such a module is not judged (its errors are reported
 * where it is checked itself).
 */
static bool parse_module(parsed *p, const char *name, const char *data, uint32_t len)
{
	memset(p, 0, sizeof(*p));
	if (mpsfix_parser_new(&p->parser) < 0 || mpsfix_parse_named(&p->tree, p->parser, name, data, len) < 0)
		return false;
	p->root = ts_tree_root_node(p->tree);
	if (ts_node_has_error(p->root))
		return false;
	p->names = mpsfix_names_new(p->root, data, len);
	return true;
}

static void parsed_release(parsed *p)
{
	if (p->names)
		mpsfix_names_free(p->names);
	if (p->tree)
		ts_tree_delete(p->tree);
	if (p->parser)
		ts_parser_delete(p->parser);
}

bool mpsfix_sibling_module_fails(const char *name, const char *data, uint32_t len)
{
	parsed p;
	mpsfix_cuda_defs defs = {0};
	mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
	mpsfix_reach_ctx cx = {.range = MPSFIX_TORCH_RANGE_MPS, .cuda_file = 0};
	bool fails = false;

	if (!parse_module(&p, name, data, len))
		goto done;
	mpsfix_cuda_defs_read(&defs, p.names, data, p.root);
	cx.src = data;
	cx.names = p.names;
	/* set up for CUDA, failing without it, or leaving where MPS is in use */
	fails = mpsfix_cuda_script(&defs, p.names, data, p.root, false) ||
		mpsfix_cuda_function(&defs, p.names, data, p.root, MPSFIX_CUDA_FAILING, seen) ||
		mpsfix_reach_module_exits(&cx, p.root);
done:
	mpsfix_cuda_defs_release(&defs);
	parsed_release(&p);
	return fails;
}

bool mpsfix_sibling_defines_class(const char *name, const char *data, uint32_t len, const char *cls,
				  const char *method)
{
	parsed p;
	bool yes = false;

	if (parse_module(&p, name, data, len))
		yes = mpsfix_instance_module_class(data, p.names, p.root, cls, method, NULL);
	parsed_release(&p);
	return yes;
}

typedef struct {
	char *file;              /* a module's file; for a class, "FILE\nCLASS\nMETHOD" */
	mpsfix_file_stamp stamp; /* the file as read */
	bool yes;                /* it fails on import; the class is the project's own */
} cached;

typedef struct {
	cached *items; /* sorted by file */
	size_t len, cap;
} table;

struct mpsfix_sibling_cache {
	table modules, classes;
};

mpsfix_sibling_cache *mpsfix_sibling_cache_new(void)
{
	return mpsfix_xcalloc(1, sizeof(mpsfix_sibling_cache));
}

static void table_release(table *t)
{
	for (size_t i = 0; i < t->len; i++)
		free(t->items[i].file);
	free(t->items);
}

void mpsfix_sibling_cache_free(mpsfix_sibling_cache *c)
{
	if (!c)
		return;
	table_release(&c->modules);
	table_release(&c->classes);
	free(c);
}

/* Where `file` is in `c`, or would be. */
static size_t cache_find(const table *c, const char *file, bool *found)
{
	size_t lo = 0, hi = c->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(c->items[mid].file, file);

		if (cmp == 0) {
			*found = true;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Is there a regular file at `file`? */
static bool regular(const char *file)
{
	struct stat st;

	return stat(file, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The answer `judge` gives for the module in regular file `file` (`key` in
 * table `t`), read once per file stamp; false for a file that cannot be
 * read or is too large.
 */
static bool cached_answer(table *t, const char *file, const char *key, const char *arg, const char *arg2,
			  bool (*judge)(const char *name, const char *data, uint32_t len, const char *arg,
					const char *arg2))
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	bool found, yes;
	size_t at;

	/* one that cannot be read is not judged either */
	if (mpsfix_source_read_max(&s, file, MPSFIX_SIBLING_MAX) < 0)
		return false;
	at = cache_find(t, key, &found);
	if (found && mpsfix_file_stamp_same(&t->items[at].stamp, &s.stamp)) {
		yes = t->items[at].yes;
	} else {
		yes = judge(file, s.data, s.len, arg, arg2);
		if (!found) {
			mpsfix_grow((void **)&t->items, &t->cap, t->len + 1, sizeof(*t->items));
			memmove(&t->items[at + 1], &t->items[at], (t->len - at) * sizeof(*t->items));
			t->items[at].file = mpsfix_xstrdup(key);
			t->len++;
		}
		t->items[at].stamp = s.stamp;
		t->items[at].yes = yes;
	}
	mpsfix_source_release(&s);
	return yes;
}

static bool judge_fails(const char *name, const char *data, uint32_t len, const char *arg, const char *arg2)
{
	(void)arg;
	(void)arg2;
	return mpsfix_sibling_module_fails(name, data, len);
}

/* Does the module in regular file `file` fail when it is imported on a Mac? */
static bool module_fails(mpsfix_sibling_cache *c, const char *file)
{
	return regular(file) && cached_answer(&c->modules, file, file, NULL, NULL, judge_fails);
}

/* Does module `m` (an identifier, as `import m` names it) beside `path` fail on import? */
static bool sibling_fails(mpsfix_sibling_cache *c, const char *path, const char *src, TSNode m)
{
	uint32_t start = ts_node_start_byte(m), n = ts_node_end_byte(m) - start;
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path) + 1 : 0; /* its folder, with the slash */
	struct stat st;
	char *file;
	bool package, fails;

	if (is(m, "dotted_name") && mpsfix_named_count(m) == 1)
		m = ts_node_named_child(m, 0);
	if (!is(m, "identifier"))
		return false; /* a.b: a package's module, not one beside the file */
	/* a package of that name is imported before a module: Python's order */
	file = mpsfix_xasprintf("%.*s%.*s/__init__.py", dir, path, (int)n, src + start);
	package = stat(file, &st) == 0;
	free(file);
	file = mpsfix_xasprintf("%.*s%.*s.py", dir, path, (int)n, src + start);
	fails = !package && module_fails(c, file);
	free(file);
	return fails;
}

/* The module an imported name of an import statement names (`m` of `m as n`). */
static TSNode imported(TSNode n)
{
	return is(n, "aliased_import") ? ts_node_child_by_field_name(n, "name", 4) : n;
}

/* Does top-level statement `s` import a module beside `path` that fails on import? */
static bool statement_imports_fail(mpsfix_sibling_cache *c, const char *path, const char *src, TSNode s)
{
	TSNode from, prefix, m;
	bool fails = false;

	if (is(s, "import_statement")) {
		for (uint32_t i = 0; !fails && i < mpsfix_named_count(s); i++)
			fails = sibling_fails(c, path, src, imported(ts_node_named_child(s, i)));
		return fails;
	}
	if (!is(s, "import_from_statement"))
		return false;
	from = ts_node_child_by_field_name(s, "module_name", 11);
	if (is(from, "dotted_name"))
		return sibling_fails(c, path, src, from); /* from utils import x */
	if (!is(from, "relative_import"))
		return false;
	prefix = mpsfix_first_named(from);
	if (!is(prefix, "import_prefix") || !mpsfix_node_text_is(prefix, src, "."))
		return false; /* .. and beyond: a module of another folder */
	m = ts_node_next_named_sibling(prefix);
	if (!ts_node_is_null(m))
		return sibling_fails(c, path, src, m); /* from .utils import x */
	/* from . import utils, data */
	for (uint32_t i = 0; !fails && i < ts_node_named_child_count(s); i++) {
		TSNode name = ts_node_named_child(s, i);

		if (!ts_node_eq(name, from) && (is(name, "dotted_name") || is(name, "aliased_import")))
			fails = sibling_fails(c, path, src, imported(name));
	}
	return fails;
}

bool mpsfix_sibling_imports_fail(mpsfix_sibling_cache *cache, const char *path, const char *src, TSNode root)
{
	mpsfix_kids k;
	TSNode s;
	bool fails = false;

	mpsfix_kids_start(&k, root);
	while (!fails && mpsfix_kids_next(&k, &s))
		fails = statement_imports_fail(cache, path, src, s);
	mpsfix_kids_end(&k);
	return fails;
}

bool mpsfix_sibling_own_class(mpsfix_sibling_cache *c, const char *path, const char *cls, const char *method)
{
	/* a package comes before a module of the same name, as Python finds them */
	static const char *const forms[] = {"%s/%s/__init__.py", "%s/%s.py", "%s/src/%s/__init__.py", "%s/src/%s.py"};
	const char *dot = strrchr(cls, '.');
	char *dir = NULL, *mod = NULL, *file = NULL, *key = NULL, *slash, *git;
	bool yes = false, top = false;
	struct stat st;

	if (!dot || !(dir = realpath(path, NULL)))
		goto done;
	mod = mpsfix_xstrndup(cls, (size_t)(dot - cls)); /* a.b.C: the module a/b */
	for (char *p = mod; *p; p++)
		if (*p == '.')
			*p = '/';
	/* the file's folder, and those above it up to the repository's top */
	for (int level = 0; !top && level < MPSFIX_SIBLING_LEVELS && (slash = strrchr(dir, '/')); level++) {
		*slash = '\0';
		for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
			file = mpsfix_xasprintf(forms[i], dir, mod);
			if (regular(file)) {
				key = mpsfix_xasprintf("%s\n%s\n%s", file, dot + 1, method);
				yes = cached_answer(&c->classes, file, key, dot + 1, method, mpsfix_sibling_defines_class);
				goto done;
			}
			free(file);
			file = NULL;
		}
		git = mpsfix_xasprintf("%s/.git", dir);
		top = stat(git, &st) == 0;
		free(git);
	}
done:
	free(dir);
	free(mod);
	free(file);
	free(key);
	return yes;
}
