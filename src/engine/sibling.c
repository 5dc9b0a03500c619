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
#include "names.h"
#include "parse.h"
#include "reach.h"
#include "source.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

bool mpsfix_sibling_module_fails(const char *name, const char *data, uint32_t len)
{
	TSParser *parser = NULL;
	TSTree *tree = NULL;
	mpsfix_names *names = NULL;
	mpsfix_cuda_defs defs = {0};
	mpsfix_span seen[MPSFIX_CUDA_EVIDENCE];
	mpsfix_reach_ctx cx = {.range = MPSFIX_TORCH_RANGE_MPS, .cuda_file = 0};
	TSNode root;
	bool fails = false;

	/* a module that does not parse is not judged (its errors are reported
	   where it is checked itself) */
	if (mpsfix_parser_new(&parser) < 0 || mpsfix_parse_named(&tree, parser, name, data, len) < 0)
		goto done;
	root = ts_tree_root_node(tree);
	if (ts_node_has_error(root))
		goto done;
	names = mpsfix_names_new(root, data, len);
	mpsfix_cuda_defs_read(&defs, names, data, root);
	cx.src = data;
	cx.names = names;
	/* set up for CUDA, failing without it, or leaving where MPS is in use */
	fails = mpsfix_cuda_script(&defs, names, data, root, false) ||
		mpsfix_cuda_function(&defs, names, data, root, MPSFIX_CUDA_FAILING, seen) ||
		mpsfix_reach_module_exits(&cx, root);
done:
	mpsfix_cuda_defs_release(&defs);
	if (names)
		mpsfix_names_free(names);
	if (tree)
		ts_tree_delete(tree);
	if (parser)
		ts_parser_delete(parser);
	return fails;
}

typedef struct {
	char *file;
	mpsfix_file_stamp stamp; /* the file as read */
	bool fails;
} cached;

struct mpsfix_sibling_cache {
	cached *items; /* sorted by file */
	size_t len, cap;
};

mpsfix_sibling_cache *mpsfix_sibling_cache_new(void)
{
	return mpsfix_xcalloc(1, sizeof(mpsfix_sibling_cache));
}

void mpsfix_sibling_cache_free(mpsfix_sibling_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->len; i++)
		free(c->items[i].file);
	free(c->items);
	free(c);
}

/* Where `file` is in `c`, or would be. */
static size_t cache_find(const mpsfix_sibling_cache *c, const char *file, bool *found)
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

static bool same_stamp(const mpsfix_file_stamp *a, const mpsfix_file_stamp *b)
{
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

/* Does the module in regular file `file` fail when it is imported on a Mac? */
static bool module_fails(mpsfix_sibling_cache *c, const char *file)
{
	mpsfix_source s = MPSFIX_SOURCE_INIT;
	bool found, fails;
	size_t at;

	/* one that cannot be read is not judged either */
	if (mpsfix_source_read_max(&s, file, MPSFIX_SIBLING_MAX) < 0)
		return false;
	at = cache_find(c, file, &found);
	if (found && same_stamp(&c->items[at].stamp, &s.stamp)) {
		fails = c->items[at].fails;
	} else {
		fails = mpsfix_sibling_module_fails(file, s.data, s.len);
		if (!found) {
			mpsfix_grow((void **)&c->items, &c->cap, c->len + 1, sizeof(*c->items));
			memmove(&c->items[at + 1], &c->items[at], (c->len - at) * sizeof(*c->items));
			c->items[at].file = mpsfix_xstrdup(file);
			c->len++;
		}
		c->items[at].stamp = s.stamp;
		c->items[at].fails = fails;
	}
	mpsfix_source_release(&s);
	return fails;
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
	fails = !package && stat(file, &st) == 0 && S_ISREG(st.st_mode) && module_fails(c, file);
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
