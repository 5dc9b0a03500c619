/*
 * fix_import.c: where a fix puts the `import ROOT` lines it adds: at the
 * place isort and ruff (I001, default settings) sort them to, in the
 * file's top import block (fix_import.h says which group and where).  The
 * module's statements come from the file's import table (names.h).
 *
 * The file is read as a list of members: its top-level import statements
 * before the code being fixed, each with its isort section and sort key,
 * its import block (code between two imports starts a new block) and its
 * group (so do blank lines and skipped `if TYPE_CHECKING:` or try blocks).
 * Each module gets a place (a byte offset at a line start, and the blank
 * lines around it); modules that share a place share one edit.
 */
#include "fix_import.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "notebook.h"
#include "parse.h"
#include "stdlib_names.h"
#include "text.h"

/* isort's sections, in their order; MIXED is a group with several */
typedef enum { S_FUTURE, S_STDLIB, S_OTHER, S_LOCAL, S_MIXED } section;

/* the node kinds read here, looked up once a call */
typedef struct {
	TSSymbol import, from, future, dotted, aliased, relative, prefix, identifier, attribute, if_stmt,
		try_stmt, except, except_group, func, cls, decorated, expr_stmt, string, concat, paren;
} syms;

/* a top-level import statement (with those that follow it on its line) */
typedef struct {
	uint32_t stmt;  /* its first byte */
	uint32_t first; /* the start of its first line, or of the comment lines just above it
			   when a blank line stands above those */
	uint32_t next;  /* the start of the line after its last one */
	section sec;
	bool from;      /* `from M import x` */
	uint32_t level; /* the dots of a relative import */
	bool aliased;   /* `import M as x`: after `import M` (isort, ruff's I001) */
	char *name;     /* M, its names joined by dots; "" for `from . import x` */
	uint32_t group, block;
} member;

typedef struct {
	const mpsfix_module_imports *n;
	syms s;
	member *m;
	uint32_t nm;
	bool cells;          /* a notebook's text: its cell lines part groups */
	uint32_t limit;      /* the line start of the statement holding `before` (len if none) */
	uint32_t empty_at;   /* where an import block starts when the file has none */
	uint32_t empty_eat;  /* the blank lines after that place it replaces */
	uint32_t empty_need; /* and the blank lines it writes after itself */
} layout;

/* where one module's line goes */
typedef struct {
	const char *module;
	uint32_t at;    /* a line start (or the end of the text) */
	bool lead;      /* a blank line before it: a new group after another */
	uint32_t trail; /* blank lines after it: a new group before another, or a new block */
	uint32_t eat;   /* bytes of blank lines after `at` that the edit replaces */
	int rank;       /* at one place: 0 the end of a group, 1 a new group, 2 the start of a group */
	section sec;
} place;

/* ---- lines ------------------------------------------------------------------- */

/* The start of the line after byte `b` (just after its line ending), or len. */
static uint32_t next_line(const mpsfix_module_imports *n, uint32_t b)
{
	while (b < n->len && n->src[b] != '\n' && n->src[b] != '\r')
		b++;
	if (b < n->len && n->src[b] == '\r')
		b++;
	else if (b < n->len)
		return b + 1;
	if (b < n->len && n->src[b] == '\n')
		b++;
	return b;
}

static bool has_bom(const mpsfix_module_imports *n)
{
	return n->len >= 3 && memcmp(n->src, "\xEF\xBB\xBF", 3) == 0;
}

/* The start of the line holding byte `b` (after a byte order mark on the first line). */
static uint32_t line_start(const mpsfix_module_imports *n, uint32_t b)
{
	uint32_t at = b;

	while (b > 0 && n->src[b - 1] != '\n' && n->src[b - 1] != '\r')
		b--;
	return b == 0 && at >= 3 && has_bom(n) ? 3 : b;
}

/* The start of the line before the one starting at `b` (b > 0). */
static uint32_t prev_line(const mpsfix_module_imports *n, uint32_t b)
{
	if (b > 0 && n->src[b - 1] == '\n')
		b--;
	if (b > 0 && n->src[b - 1] == '\r')
		b--;
	return line_start(n, b);
}

/* The first byte of the line at `b` that is not a space, tab or form feed. */
static char line_lead(const mpsfix_module_imports *n, uint32_t b)
{
	while (b < n->len && (n->src[b] == ' ' || n->src[b] == '\t' || n->src[b] == '\f'))
		b++;
	return b < n->len ? n->src[b] : '\n';
}

static bool blank_line(const mpsfix_module_imports *n, uint32_t b)
{
	char c = line_lead(n, b);

	return c == '\n' || c == '\r';
}

/* Is there a blank line among the lines that start in [from, to)? */
static bool blank_between(const mpsfix_module_imports *n, uint32_t from, uint32_t to)
{
	for (uint32_t b = from; b < to && b < n->len; b = next_line(n, b))
		if (blank_line(n, b))
			return true;
	return false;
}

/* In a notebook's text, is there a cell line ("#\x1fN": notebook.h) among the lines in [from, to)? */
static bool cell_between(const layout *L, uint32_t from, uint32_t to)
{
	const mpsfix_module_imports *n = L->n;

	if (!L->cells)
		return false;
	for (uint32_t b = from; b < to && b < n->len; b = next_line(n, b))
		if (n->src[b] == '#' && b + 1 < n->len && n->src[b + 1] == '\x1f')
			return true;
	return false;
}

/*
 * The line start `at`, or the start of the comment lines just above it when
 * a blank line (at or after `floor`) stands above them: comments a blank
 * line sets apart belong to what follows them, those just below a header
 * (or the docstring) stay with it.
 */
static uint32_t with_comments_above(const mpsfix_module_imports *n, uint32_t at, uint32_t floor)
{
	uint32_t s = at;

	while (s > floor) {
		uint32_t p = prev_line(n, s);

		if (p < floor || line_lead(n, p) != '#')
			break;
		s = p;
	}
	if (s == at || s <= floor)
		return at;
	return blank_line(n, prev_line(n, s)) ? s : at;
}

/* ---- statements -------------------------------------------------------------- */

static syms read_syms(void)
{
	return (syms){
		.import = mpsfix_symbol("import_statement"),
		.from = mpsfix_symbol("import_from_statement"),
		.future = mpsfix_symbol("future_import_statement"),
		.dotted = mpsfix_symbol("dotted_name"),
		.aliased = mpsfix_symbol("aliased_import"),
		.relative = mpsfix_symbol("relative_import"),
		.prefix = mpsfix_symbol("import_prefix"),
		.identifier = mpsfix_symbol("identifier"),
		.attribute = mpsfix_symbol("attribute"),
		.if_stmt = mpsfix_symbol("if_statement"),
		.try_stmt = mpsfix_symbol("try_statement"),
		.except = mpsfix_symbol("except_clause"),
		.except_group = mpsfix_symbol("except_group_clause"),
		.func = mpsfix_symbol("function_definition"),
		.cls = mpsfix_symbol("class_definition"),
		.decorated = mpsfix_symbol("decorated_definition"),
		.expr_stmt = mpsfix_symbol("expression_statement"),
		.string = mpsfix_symbol("string"),
		.concat = mpsfix_symbol("concatenated_string"),
		.paren = mpsfix_symbol("parenthesized_expression"),
	};
}

static bool is_import(const syms *s, TSNode st)
{
	TSSymbol k = ts_node_symbol(st);

	return k == s->import || k == s->from || k == s->future;
}

static bool is_docstring(const syms *s, TSNode stmt)
{
	TSNode e;

	if (ts_node_symbol(stmt) != s->expr_stmt || ts_node_named_child_count(stmt) != 1)
		return false;
	e = ts_node_named_child(stmt, 0);
	while (ts_node_symbol(e) == s->paren && ts_node_named_child_count(e) == 1)
		e = ts_node_named_child(e, 0);
	return ts_node_symbol(e) == s->string || ts_node_symbol(e) == s->concat;
}

/*
 * Statements an import block goes on past: `if TYPE_CHECKING:` (or
 * `typing.TYPE_CHECKING`) blocks, and try blocks of imports (`try: import x`
 * with an except clause).
 */
static bool skipped_over(const layout *L, TSNode st)
{
	const syms *s = &L->s;
	TSSymbol k = ts_node_symbol(st);

	if (k == s->if_stmt) {
		TSNode c = ts_node_child_by_field_name(st, "condition", 9);

		if (!ts_node_is_null(c) && ts_node_symbol(c) == s->attribute)
			c = ts_node_child_by_field_name(c, "attribute", 9);
		return !ts_node_is_null(c) && ts_node_symbol(c) == s->identifier &&
		       mpsfix_node_text_is(c, L->n->src, "TYPE_CHECKING");
	}
	if (k == s->try_stmt) {
		TSNode body = ts_node_child_by_field_name(st, "body", 4);
		bool imports = false, except = false;
		uint32_t count = ts_node_named_child_count(st);

		for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); i++)
			imports = imports || is_import(s, ts_node_named_child(body, i));
		for (uint32_t i = 0; i < count; i++) {
			TSSymbol c = ts_node_symbol(ts_node_named_child(st, i));

			except = except || c == s->except || c == s->except_group;
		}
		return imports && except;
	}
	return false;
}

/* The identifiers of a dotted_name joined by dots, as a new string. */
static char *dotted_text(const layout *L, TSNode dotted)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	uint32_t count = ts_node_named_child_count(dotted);

	mpsfix_buf_adds(&b, "");
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(dotted, i);

		if (ts_node_symbol(c) != L->s.identifier)
			continue;
		if (b.len)
			mpsfix_buf_adds(&b, ".");
		mpsfix_buf_add(&b, L->n->src + ts_node_start_byte(c), ts_node_end_byte(c) - ts_node_start_byte(c));
	}
	return mpsfix_buf_detach(&b, NULL);
}

/* The module an import statement names first, its section and its sort key. */
static void read_member(const layout *L, TSNode st, member *m)
{
	const syms *s = &L->s;
	TSSymbol k = ts_node_symbol(st);
	TSNode mod;
	char *root;

	m->from = k != s->import;
	if (k == s->future) {
		m->sec = S_FUTURE;
		m->name = mpsfix_xstrdup("__future__");
		return;
	}
	if (k == s->import) {
		mod = ts_node_named_child(st, 0);
		if (!ts_node_is_null(mod) && ts_node_symbol(mod) == s->aliased) {
			mod = ts_node_child_by_field_name(mod, "name", 4);
			m->aliased = true;
		}
	} else {
		mod = ts_node_child_by_field_name(st, "module_name", 11);
	}
	if (!ts_node_is_null(mod) && ts_node_symbol(mod) == s->relative) {
		uint32_t count = ts_node_named_child_count(mod);

		for (uint32_t i = 0; i < count; i++) {
			TSNode c = ts_node_named_child(mod, i);

			if (ts_node_symbol(c) == s->prefix)
				for (uint32_t b = ts_node_start_byte(c); b < ts_node_end_byte(c); b++)
					m->level += L->n->src[b] == '.';
			else if (ts_node_symbol(c) == s->dotted && !m->name)
				m->name = dotted_text(L, c);
		}
		m->sec = S_LOCAL;
		if (!m->name)
			m->name = mpsfix_xstrdup("");
		return;
	}
	m->name = !ts_node_is_null(mod) && ts_node_symbol(mod) == s->dotted ? dotted_text(L, mod)
									   : mpsfix_xstrdup("");
	root = mpsfix_xstrndup(m->name, strcspn(m->name, "."));
	m->sec = mpsfix_stdlib_module(root) ? S_STDLIB : S_OTHER;
	free(root);
}

/* ---- sort order ------------------------------------------------------------ */

/*
 * Natural order (runs of digits compared by value), folded to lower case
 * when `fold`: the order of the natord crate that ruff sorts names with.
 */
static int natcmp(const char *a, const char *b, bool fold)
{
	while (*a || *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			la = strspn(a, "0123456789");
			lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			if (memcmp(a, b, la))
				return memcmp(a, b, la) < 0 ? -1 : 1;
			a += la;
			b += lb;
			continue;
		}
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;

		if (fold) {
			x = (unsigned char)tolower(x);
			y = (unsigned char)tolower(y);
		}
		if (x != y)
			return x < y ? -1 : 1;
		a++;
		b++;
	}
	return 0;
}

/*
 * isort's order within a section (ruff's defaults): `from __future__`
 * first, `import x` lines before `from x import y` lines, relative imports
 * the furthest first, then the module names, case-insensitively first.
 */
static int member_cmp(const member *a, const member *b)
{
	int c;

	if ((a->sec == S_FUTURE) != (b->sec == S_FUTURE))
		return a->sec == S_FUTURE ? -1 : 1;
	if (a->from != b->from)
		return a->from ? 1 : -1;
	if (a->level != b->level)
		return a->level > b->level ? -1 : 1;
	c = natcmp(a->name, b->name, true);
	if (!c)
		c = natcmp(a->name, b->name, false);
	return c ? c : (int)a->aliased - (int)b->aliased;
}

/* The start of the line after the last cell line in [from, to), or `from`. */
static uint32_t cell_floor(const layout *L, uint32_t from, uint32_t to)
{
	uint32_t floor = from;

	for (uint32_t b = from; b < to && b < L->n->len; b = next_line(L->n, b))
		if (cell_between(L, b, b + 1))
			floor = next_line(L->n, b);
	return floor;
}

/* ---- the file's layout ------------------------------------------------------- */

/* Is top-level statement `st` an IPython line the notebook masked (`pass  #<mark>mK`: notebook.h)? */
static bool masked_line(const mpsfix_module_imports *n, TSNode st)
{
	static const char mask[] = "pass  #" MPSFIX_NB_MARK_STR "m";
	uint32_t s = ts_node_start_byte(st);

	return n->len - s >= sizeof(mask) - 1 && !memcmp(n->src + s, mask, sizeof(mask) - 1);
}

static void read_layout(layout *L, uint32_t before)
{
	const mpsfix_module_imports *n = L->n;
	uint32_t i = 0, floor = 0, prev_end, block = 0, group = 0, first_stmt;
	bool new_group = true;

	if (has_bom(n))
		floor = 3;
	L->limit = n->len;
	for (uint32_t k = 0; k < n->ntop; k++)
		if (ts_node_end_byte(n->top[k]) > before) {
			if (ts_node_start_byte(n->top[k]) <= before)
				L->limit = line_start(n, ts_node_start_byte(n->top[k]));
			break;
		}
	/* a notebook's IPython lines at the top (a cell magic must stay its
	   cell's first line): the imports go after them */
	while (L->cells && i < n->ntop && masked_line(n, n->top[i]) && ts_node_start_byte(n->top[i]) < L->limit)
		floor = next_line(n, ts_node_end_byte(n->top[i++]));
	if (i < n->ntop && is_docstring(&L->s, n->top[i]) && ts_node_start_byte(n->top[i]) < L->limit) {
		floor = next_line(n, ts_node_end_byte(n->top[i]));
		i++;
	}
	first_stmt = i;
	prev_end = floor;
	L->m = mpsfix_xcalloc(n->ntop ? n->ntop : 1, sizeof(*L->m));
	for (; i < n->ntop; i++) {
		TSNode st = n->top[i];
		uint32_t start = ts_node_start_byte(st);
		member *last = L->nm ? &L->m[L->nm - 1] : NULL;

		if (start >= L->limit)
			break;
		if (!is_import(&L->s, st)) {
			if (!skipped_over(L, st))
				block++;
			new_group = true;
		} else if (last && !new_group && start < last->next) {
			last->next = next_line(n, ts_node_end_byte(st)); /* `import a; import b` */
		} else {
			member *m = &L->m[L->nm++];
			uint32_t ls = line_start(n, start);

			if (new_group || !last || blank_between(n, last->next, ls) ||
			    cell_between(L, last->next, ls))
				group++;
			new_group = false;
			*m = (member){.stmt = start, .next = next_line(n, ts_node_end_byte(st)),
				      .group = group, .block = block};
			/* the comments above it, not above the cell's start */
			m->first = with_comments_above(n, ls, L->cells ? cell_floor(L, prev_end, ls) : prev_end);
			read_member(L, st, m);
		}
		prev_end = next_line(n, ts_node_end_byte(st));
	}

	/* no import block: it starts at the first statement (or the comments of it) */
	if (first_stmt < n->ntop) {
		TSNode st = n->top[first_stmt];
		TSSymbol k = ts_node_symbol(st);
		uint32_t at = line_start(n, ts_node_start_byte(st)), b;

		at = with_comments_above(n, at < floor ? floor : at, floor);
		/* one blank line above stays, the others make way for the ones it needs */
		for (b = at; b > floor && prev_line(n, b) >= floor && blank_line(n, prev_line(n, b));)
			b = prev_line(n, b);
		if (b < at)
			b = next_line(n, b);
		L->empty_at = b;
		L->empty_eat = at - b;
		L->empty_need = k == L->s.func || k == L->s.cls || k == L->s.decorated ? 2 : 1;
	} else {
		/* only comments (or nothing) after the docstring: after them */
		uint32_t b = floor;

		L->empty_at = floor;
		while (b < n->len && (blank_line(n, b) || line_lead(n, b) == '#'))
			L->empty_at = b = next_line(n, b);
		L->empty_need = 0;
	}
}

/* ---- one module's place ------------------------------------------------------ */

/* The section of the group m[from, to), or S_MIXED. */
static section group_section(const layout *L, uint32_t from, uint32_t to)
{
	section sec = L->m[from].sec;

	for (uint32_t i = from + 1; i < to; i++)
		if (L->m[i].sec != sec)
			return S_MIXED;
	return sec;
}

static bool group_has(const layout *L, uint32_t from, uint32_t to, section sec)
{
	for (uint32_t i = from; i < to; i++)
		if (L->m[i].sec == sec)
			return true;
	return false;
}

/* The end of the group that starts at member `from`. */
static uint32_t group_end(const layout *L, uint32_t from)
{
	uint32_t to = from + 1;

	while (to < L->nm && L->m[to].group == L->m[from].group)
		to++;
	return to;
}

/* Into the group m[from, to), at the place its order gives `key`. */
static void into_group(const layout *L, uint32_t from, uint32_t to, const member *key, place *p)
{
	uint32_t i, at = to;

	for (i = from; i <= to; i++)
		if ((i == from || member_cmp(&L->m[i - 1], key) <= 0) && (i == to || member_cmp(key, &L->m[i]) < 0))
			break;
	if (i > to) { /* an unsorted group: after the last member that sorts before it */
		for (i = to; i > from && member_cmp(&L->m[i - 1], key) > 0; i--)
			;
	}
	at = i;
	p->at = at == from ? L->m[from].first : L->m[at - 1].next;
	p->rank = at == from ? 2 : 0;
}

static void new_group_after(const layout *L, uint32_t from, place *p)
{
	p->at = L->m[group_end(L, from) - 1].next;
	p->lead = true;
	p->rank = 1;
}

static void new_group_before(const layout *L, uint32_t from, place *p)
{
	p->at = L->m[from].first;
	p->trail = 1;
	p->rank = 1;
}

/* The group of the first member that imports `module` or one of its submodules, or L->nm. */
static uint32_t group_importing(const layout *L, const char *module)
{
	size_t len = strlen(module);

	for (uint32_t i = 0; i < L->nm; i++) {
		const member *m = &L->m[i];

		if (m->sec != S_FUTURE && !m->level && !strncmp(m->name, module, len) &&
		    (m->name[len] == '\0' || m->name[len] == '.')) {
			while (i > 0 && L->m[i - 1].group == m->group)
				i--;
			return i;
		}
	}
	return L->nm;
}

/* The first group of block 0 of section `sec`, else the first one of several sections with it, or L->nm. */
static uint32_t group_of_section(const layout *L, section sec)
{
	uint32_t mixed = L->nm;

	for (uint32_t i = 0, to; i < L->nm && !L->m[i].block; i = to) {
		section gs;

		to = group_end(L, i);
		gs = group_section(L, i, to);
		if (gs == sec)
			return i;
		if (gs == S_MIXED && mixed == L->nm && group_has(L, i, to, sec))
			mixed = i;
	}
	return mixed;
}

static void find_place(const layout *L, const char *module, place *p)
{
	member key = {.sec = mpsfix_stdlib_module(module) ? S_STDLIB : S_OTHER, .name = (char *)module};
	uint32_t target = group_importing(L, module), after = L->nm;

	*p = (place){.module = module, .sec = key.sec};
	if (target == L->nm)
		target = group_of_section(L, key.sec);
	if (target != L->nm) {
		into_group(L, target, group_end(L, target), &key, p);
		return;
	}
	if (!L->nm || L->m[0].block) { /* no import block */
		p->at = L->empty_at;
		p->eat = L->empty_eat;
		p->trail = L->empty_need;
		p->rank = 1;
		return;
	}
	/* a new group: the standard library's after `from __future__`, the others' before local imports */
	for (uint32_t i = 0; i < L->nm && !L->m[i].block; i = group_end(L, i)) {
		section gs = group_section(L, i, group_end(L, i));

		if (key.sec == S_STDLIB ? gs != S_FUTURE : gs == S_LOCAL)
			break;
		after = i;
	}
	if (after != L->nm)
		new_group_after(L, after, p);
	else
		new_group_before(L, 0, p);
}

/* ---- the edits --------------------------------------------------------------- */

static int place_cmp(const void *a, const void *b)
{
	const place *x = a, *y = b;
	member kx = {.sec = x->sec, .name = (char *)x->module}, ky = {.sec = y->sec, .name = (char *)y->module};

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return member_cmp(&kx, &ky);
}

static bool starts_member(const layout *L, uint32_t at)
{
	for (uint32_t i = 0; i < L->nm; i++)
		if (L->m[i].stmt == at)
			return true;
	return false;
}

/* The edit for the places p[0, np), which share one offset. */
static void make_edit(const layout *L, const place *p, size_t np, const char *file_nl, mpsfix_import_edit *out)
{
	const mpsfix_module_imports *n = L->n;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	uint32_t at = p[0].at;
	/* the lines end as their neighbours do (a notebook's cells may differ) */
	const char *nl = mpsfix_text_newline_at(n->src, n->len, at);

	if (!nl)
		nl = file_nl;

	out->start = out->end = at;
	if (at > 0 && (n->src[at - 1] == '\n' || n->src[at - 1] == '\r')) {
		/* the line ending before it is part of the edit */
		out->start = at - 1;
		if (n->src[at - 1] == '\n' && at >= 2 && n->src[at - 2] == '\r')
			out->start = at - 2;
		mpsfix_buf_add(&b, n->src + out->start, at - out->start);
	} else if (at == n->len && n->len > 0) {
		mpsfix_buf_adds(&b, nl); /* the last line has no line ending */
	}
	if (p[0].lead)
		mpsfix_buf_adds(&b, nl);
	for (size_t i = 0; i < np; i++) {
		if (i && (p[i].rank != p[i - 1].rank || (p[i].rank == 1 && p[i].sec != p[i - 1].sec)))
			mpsfix_buf_adds(&b, nl);
		mpsfix_buf_printf(&b, "import %s%s", p[i].module, nl);
	}
	for (uint32_t i = 0; i < p[np - 1].trail; i++)
		mpsfix_buf_adds(&b, nl);
	out->end = at + p[np - 1].eat;
	if (out->start == at && starts_member(L, at)) {
		/* at the start of the text, before an import statement (which no fix
		 * edits, and whatever the code being fixed): its first character is
		 * part of the edit */
		out->end = at + 1;
		mpsfix_buf_add(&b, n->src + at, 1);
	}
	out->text = mpsfix_buf_detach(&b, NULL);
}

size_t mpsfix_fix_import_edits(mpsfix_names *names, uint32_t before, const char *const *modules, size_t n,
			       const char *nl, bool cells, mpsfix_import_edit *out)
{
	mpsfix_module_imports mod;
	layout L = {.n = &mod, .s = read_syms(), .cells = cells};
	place *p;
	size_t nout = 0;

	if (!n)
		return 0;
	mpsfix_names_module_imports(names, &mod);
	read_layout(&L, before);
	p = mpsfix_xcalloc(n, sizeof(*p));
	for (size_t i = 0; i < n; i++) {
		find_place(&L, modules[i], &p[i]);
		if (p[i].at > L.limit) { /* `import a; code` on the line of the code: before that line */
			p[i].at = L.limit;
			p[i].lead = false;
			p[i].trail = 0;
			p[i].eat = 0;
		}
	}
	qsort(p, n, sizeof(*p), place_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && p[j].at == p[i].at; j++)
			;
		make_edit(&L, p + i, j - i, nl, &out[nout++]);
	}
	free(p);
	for (uint32_t i = 0; i < L.nm; i++)
		free(L.m[i].name);
	free(L.m);
	return nout;
}

/* (see fix_import.h) */
TSNode mpsfix_fix_import_group_start(TSNode imp, const char *src)
{
	TSNode first = imp;

	for (;;) {
		TSNode prev = ts_node_prev_named_sibling(first);
		uint32_t gap_start, newlines = 0;

		/* (`from __future__` is a future_import_statement: it ends the walk) */
		if (ts_node_is_null(prev) || (strcmp(ts_node_type(prev), "import_statement") &&
					      strcmp(ts_node_type(prev), "import_from_statement")))
			break;
		gap_start = ts_node_end_byte(prev);
		for (uint32_t i = gap_start; i < ts_node_start_byte(first); i++)
			newlines += src[i] == '\n';
		if (newlines != 1)
			break;
		first = prev;
	}
	return first;
}

/* (see fix_import.h) */
bool mpsfix_fix_after_blank_line(const char *src, uint32_t at)
{
	uint32_t i = at;

	if (i == 0)
		return true;
	i--; /* the '\n' ending the line before */
	if (i > 0 && src[i - 1] == '\r')
		i--;
	while (i > 0 && (src[i - 1] == ' ' || src[i - 1] == '\t'))
		i--;
	return i == 0 || src[i - 1] == '\n';
}
