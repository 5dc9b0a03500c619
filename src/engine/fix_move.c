/*
 * fix_move.c: code a fix puts before the first import of a module (see
 * fix_move.h).
 */
#include "fix_move.h"

#include <stdlib.h>
#include <string.h>

#include "fix_import.h"
#include "names.h"
#include "parse.h"
#include "strvec.h"
#include "template.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* The text a fix is written in. */
typedef struct {
	const mpsfix_source *src;
	TSNode root;
	mpsfix_names *names;
} fix_place;

/* The first component of a dotted name: the module to import. */
static char *root_of(const char *qname)
{
	return mpsfix_xstrndup(qname, strcspn(qname, "."));
}

/* Does a module-level `import ROOT` (or `import ROOT.x`) come before byte `before`? */
static bool imported_before(TSNode module, const char *src, const char *root, uint32_t before)
{
	for (uint32_t i = 0; i < ts_node_named_child_count(module); i++) {
		TSNode st = ts_node_named_child(module, i);

		if (ts_node_start_byte(st) >= before)
			break;
		if (!is(st, "import_statement"))
			continue;
		for (uint32_t k = 0; k < ts_node_named_child_count(st); k++) {
			TSNode name = ts_node_named_child(st, k);

			if (is(name, "dotted_name") && mpsfix_node_text_is(ts_node_named_child(name, 0), src, root))
				return true;
		}
	}
	return false;
}

/* Is `n` a string written out, with no {...} of an f-string? */
static bool plain_string(TSNode n)
{
	if (!is(n, "string"))
		return false;
	for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
		if (is(ts_node_named_child(n, i), "interpolation"))
			return false;
	return true;
}

/* The first argument of call `call`, or a null node. */
static TSNode first_argument(TSNode call)
{
	TSNode args = ts_node_child_by_field_name(call, "arguments", 9);

	return is(args, "argument_list") && ts_node_named_child_count(args) ? ts_node_named_child(args, 0)
									     : (TSNode){0};
}

/*
 * Is `use` (os.environ or environ, os.getenv or getenv...) used on one key
 * written out: os.environ["KEY"], os.environ.get("KEY"), "KEY" in
 * os.environ, os.getenv("KEY")?  Whether KEY is the moved one is the
 * strings' check.
 */
static bool one_key(TSNode use, bool mapping)
{
	TSNode p = ts_node_parent(use), call;

	if (!mapping) /* getenv("KEY"), putenv("KEY", v), unsetenv("KEY") */
		return is(p, "call") && ts_node_eq(ts_node_child_by_field_name(p, "function", 8), use) &&
		       plain_string(first_argument(p));
	if (is(p, "subscript") && ts_node_eq(ts_node_child_by_field_name(p, "value", 5), use))
		return plain_string(ts_node_child_by_field_name(p, "subscript", 9));
	if (is(p, "comparison_operator")) /* "KEY" in os.environ */
		return plain_string(ts_node_named_child(p, 0)) && ts_node_eq(ts_node_named_child(p, 1), use);
	call = ts_node_parent(p);
	return is(p, "attribute") && is(call, "call") &&
	       ts_node_eq(ts_node_child_by_field_name(call, "function", 8), p) && plain_string(first_argument(call));
}

/*
 * Does code under `n`, run where it stands (not a function's body or a
 * lambda's, unless `bodies`), read or set the fallback variable itself
 * ("PYTORCH_ENABLE_MPS_FALLBACK" in a string), or the environment as a whole
 * (os.environ copied, updated or handed on, getenv() of a computed key,
 * load_dotenv())?  Another key written out (os.environ["TOKENIZERS_
 * PARALLELISM"] = "false") neither sees nor undoes the moved line.
 */
typedef struct {
	const char *src;
	const char *seen;  /* where it is used, or NULL */
	bool bodies;       /* go into function and lambda bodies too */
} env_walk;

static mpsfix_walk_action find_environment(TSNode n, void *payload)
{
	static const char *const maps[] = {"environ", "environb"};
	static const char *const calls[] = {"getenv", "getenvb", "putenv", "unsetenv"};
	env_walk *w = payload;
	const char *src = w->src;
	uint32_t s = ts_node_start_byte(n), len = ts_node_end_byte(n) - s;
	static const char key[] = "PYTORCH_ENABLE_MPS_FALLBACK";
	TSNode use = n;

	if (is(n, "function_definition") && !w->bodies) { /* its defaults run now, its body when called */
		mpsfix_walk(ts_node_child_by_field_name(n, "parameters", 10), find_environment, payload);
		return w->seen ? MPSFIX_WALK_STOP : MPSFIX_WALK_SKIP;
	}
	if (is(n, "lambda") && !w->bodies)
		return MPSFIX_WALK_SKIP;
	if (is(n, "string")) {
		for (uint32_t i = 0; i + sizeof(key) - 1 <= len; i++)
			if (!memcmp(src + s + i, key, sizeof(key) - 1))
				goto found;
		return MPSFIX_WALK_DESCEND;
	}
	if (!is(n, "identifier"))
		return MPSFIX_WALK_DESCEND;
	for (uint32_t i = 0; i + 6 <= len; i++)
		if (!memcmp(src + s + i, "dotenv", 6))
			goto found; /* load_dotenv() may set any key */
	if (is(ts_node_parent(n), "attribute") &&
	    ts_node_eq(ts_node_child_by_field_name(ts_node_parent(n), "attribute", 9), n))
		use = ts_node_parent(n); /* os.environ */
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(maps); i++)
		if (strlen(maps[i]) == len && !memcmp(src + s, maps[i], len) && !one_key(use, true))
			goto found;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(calls); i++)
		if (strlen(calls[i]) == len && !memcmp(src + s, calls[i], len) && !one_key(use, false))
			goto found;
	return MPSFIX_WALK_DESCEND;
found:
	w->seen = src + s;
	return MPSFIX_WALK_STOP;
}

/*
 * The function (or `NAME = lambda ...`) statement `st` defines, and its
 * code that runs when it is called: its name, or a null node.
 */
static TSNode defined_function(TSNode st, TSNode *body)
{
	TSNode d = is(st, "decorated_definition") ? ts_node_child_by_field_name(st, "definition", 10) : st;

	if (is(d, "function_definition")) {
		*body = ts_node_child_by_field_name(d, "body", 4);
		return ts_node_child_by_field_name(d, "name", 4);
	}
	if (is(st, "expression_statement") && is(d = ts_node_named_child(st, 0), "assignment") &&
	    is(ts_node_child_by_field_name(d, "left", 4), "identifier") &&
	    is(*body = ts_node_child_by_field_name(d, "right", 5), "lambda"))
		return ts_node_child_by_field_name(d, "left", 4);
	return (TSNode){0};
}

/* The names of the functions that use the environment (mpsfix_strvec), and the one found in use. */
typedef struct {
	const char *src;
	const mpsfix_strvec *readers;
	TSNode skip;       /* the definition's own name */
	const char *found;
} reader_walk;

static mpsfix_walk_action find_reader(TSNode n, void *payload)
{
	reader_walk *rw = payload;
	uint32_t s = ts_node_start_byte(n), len = ts_node_end_byte(n) - s;

	if (!is(n, "identifier") || ts_node_eq(n, rw->skip))
		return MPSFIX_WALK_DESCEND;
	for (size_t i = 0; i < rw->readers->len; i++)
		if (strlen(rw->readers->items[i]) == len && !memcmp(rw->readers->items[i], rw->src + s, len)) {
			rw->found = rw->readers->items[i];
			return MPSFIX_WALK_STOP;
		}
	return MPSFIX_WALK_DESCEND;
}

/*
 * Why the code cannot move up to byte `at` from `end`: a statement between
 * reads or sets the environment, and would see (or undo) the moved code's
 * value; or NULL.
 */
static char *environment_between(const fix_place *fc, uint32_t at, uint32_t end)
{
	mpsfix_strvec readers = MPSFIX_STRVEC_INIT; /* functions defined between whose body uses it */
	char *reason = NULL;

	for (int pass = 0; pass < 2 && !reason; pass++)
		for (uint32_t i = 0; i < ts_node_named_child_count(fc->root) && !reason; i++) {
			TSNode st = ts_node_named_child(fc->root, i), body = {0}, name;
			env_walk w = {fc->src->data, NULL, false};
			reader_walk rw = {.src = fc->src->data, .readers = &readers};

			if (ts_node_start_byte(st) < at || ts_node_end_byte(st) > end ||
			    is(st, "import_statement") || is(st, "import_from_statement"))
				continue; /* (an import alone uses nothing: its name, used, is seen) */
			name = defined_function(st, &body);
			if (pass == 0) {
				/* what runs here; then a function whose body uses it, which
				   may be called here (or decorate something) */
				mpsfix_walk(st, find_environment, &w);
				if (!w.seen && !ts_node_is_null(name)) {
					w.bodies = true;
					mpsfix_walk(body, find_environment, &w);
					if (w.seen)
						mpsfix_strvec_push_owned(&readers,
									 mpsfix_xstrndup(fc->src->data +
											 ts_node_start_byte(name),
											 ts_node_end_byte(name) -
											 ts_node_start_byte(name)));
					w.seen = NULL;
				}
				if (w.seen)
					reason = mpsfix_xasprintf("the code between the import and here uses the variable "
								  "or the whole environment (line %u), which moving it "
								  "would change", ts_node_start_point(st).row + 1);
			} else if (readers.len) {
				rw.skip = name;
				mpsfix_walk(st, find_reader, &rw);
				if (rw.found)
					reason = mpsfix_xasprintf("the code between the import and here uses `%s` (line %u), "
								  "which uses the variable or the whole environment: "
								  "moving it would change what that sees",
								  rw.found, ts_node_start_point(st).row + 1);
			}
		}
	mpsfix_strvec_release(&readers);
	return reason;
}

static bool blank_byte(char c)
{
	return c == ' ' || c == '\t' || c == '\f';
}

/*
 * Where the `;` before statement start `at` begins, blanks included, when
 * another statement ends on its line (`import os; import torch`): those
 * bytes become the line break before the inserted code (a `;` left at a
 * line's end is E703, its blank W291).  Else `at`.
 */
static uint32_t separator_before(const char *s, uint32_t at)
{
	uint32_t p = at;

	while (p > 0 && blank_byte(s[p - 1]))
		p--;
	if (p == 0 || s[p - 1] != ';')
		return at;
	p--;
	while (p > 0 && blank_byte(s[p - 1]))
		p--;
	return p;
}

char *mpsfix_fix_insert_before_import(const mpsfix_source *src, TSNode module, mpsfix_names *names,
				      const mpsfix_fix_edit *fe, const mpsfix_match *m, mpsfix_edits *edits,
				      uint32_t group)
{
	fix_place place = {src, module, names}, *fc = &place;
	const char *nl;
	TSNode imp = mpsfix_first_import_of(fc->root, fc->src->data, fe->module);
	mpsfix_buf text = MPSFIX_BUF_INIT;
	uint32_t at, from;
	char *reason = NULL;
	bool imports = false;

	if (ts_node_is_null(imp))
		return mpsfix_xasprintf("the file has no module-level import of %s to put the code before",
					fe->module);
	at = ts_node_start_byte(imp);
	if (at >= ts_node_start_byte(m->node))
		return mpsfix_xasprintf("the code already comes before the first import of %s", fe->module);
	/* a blank line away from the imports on each side, so that each group
	 * stays as sorted as it was (ruff's I001): before the group holding the
	 * import, or, when that group imports what the code needs, between
	 * those imports and this one */
	{
		uint32_t group_at = ts_node_start_byte(mpsfix_fix_import_group_start(imp, fc->src->data));
		bool needed_in_group = false;

		for (size_t q = 0; q < mpsfix_template_qname_count(fe->tmpl); q++) {
			char *root = root_of(mpsfix_template_qname(fe->tmpl, q));

			if (imported_before(fc->root, fc->src->data, root, at) &&
			    !imported_before(fc->root, fc->src->data, root, group_at))
				needed_in_group = true;
			free(root);
		}
		if (!needed_in_group)
			at = group_at;
	}
	if ((reason = environment_between(fc, at, ts_node_start_byte(m->node))) != NULL)
		return reason;
	from = separator_before(fc->src->data, at);
	nl = mpsfix_source_newline_at(fc->src, at);
	if (from != at || !mpsfix_fix_after_blank_line(fc->src->data, at))
		mpsfix_buf_adds(&text, nl);
	for (size_t q = 0; q < mpsfix_template_qname_count(fe->tmpl); q++) {
		char *root = root_of(mpsfix_template_qname(fe->tmpl, q));
		bool dup = false;

		for (size_t k = 0; k < q && !dup; k++) {
			char *other = root_of(mpsfix_template_qname(fe->tmpl, k));

			dup = !strcmp(other, root);
			free(other);
		}
		if (!dup && fc->names) {
			mpsfix_buf b = MPSFIX_BUF_INIT;

			if (mpsfix_names_spell(fc->names, imp, root, &b) == MPSFIX_SPELL_SHADOWED)
				reason = mpsfix_xasprintf("`%s` means something else in this file", root);
			mpsfix_buf_release(&b);
		}
		if (!dup && !reason && !imported_before(fc->root, fc->src->data, root, at)) {
			mpsfix_buf_printf(&text, "import %s%s", root, nl);
			imports = true;
		}
		free(root);
		if (reason)
			goto done;
	}
	if (imports)
		mpsfix_buf_adds(&text, nl);
	if (mpsfix_template_render(&text, NULL, fe->tmpl, m, fc->src, imp, NULL) < 0) {
		reason = mpsfix_xstrdup(mpsfix_error_last()->message);
		goto done;
	}
	mpsfix_buf_adds(&text, nl);
	mpsfix_buf_adds(&text, nl);
	mpsfix_edits_add(edits, from, at, text.data, text.len, group);
done:
	mpsfix_buf_release(&text);
	return reason;
}
