/*
 * suppress.c: inline suppression comments.  The text is searched for '#'
 * followed on its line by "noqa" or "mpsfix"; the tree then says whether
 * that '#' starts a real comment (a string may hold the same text).  The
 * directives found are kept in line order, so a finding looks up its lines
 * with a binary search.
 *
 * The grammar of the comments:
 *
 *   #[ \t]*noqa  (not followed by a letter, digit, '_' or '-'; case-insensitive),
 *       then optionally ':' [ \t]* CODE ([, \t]+ CODE)*, CODE = [A-Za-z]+[0-9]+.
 *       This is flake8's NOQA_INLINE_REGEX, searched anywhere in the comment
 *       (`# type: ignore # noqa` counts, `# see noqa docs` does not), a little
 *       more lenient on spaces (`#noqa`, `# noqa:  MPS001`).  As in flake8, a
 *       colon not followed by a code (`# noqa: MPS`) leaves a blanket noqa.
 *   #[ \t]*mpsfix[ \t]*:[ \t]*ignore   every rule
 *       ...ignore[ITEM, ITEM]          ITEM = codes, code prefixes or rule ids
 *       ...ignore-file                 the whole file
 *       (case-sensitive; a malformed list is no directive at all).
 *
 * "Unused" reporting: a blanket `# noqa` belongs to every linter (flake8,
 * ruff...) and is never reported; in a `# noqa:` list only codes starting
 * with "MPS" are ours, the others (E501, F401) are neither matched nor
 * reported.  Everything in `# mpsfix:` comments is ours.
 */
#include "suppress.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "parse.h"

typedef struct {
	char *text;        /* the code, prefix or id (owned) */
	bool ours;         /* reported when unused */
	bool used;
} sup_code;

typedef struct {
	uint32_t line, col;   /* 1-based, of the directive's '#' */
	bool all;             /* no list: every rule */
	bool ours;            /* reported when unused (all only) */
	bool used;            /* all only */
	sup_code *codes;      /* owned */
	size_t ncodes;
} sup_entry;

struct mpsfix_suppressions {
	const mpsfix_source *src; /* borrowed */
	sup_entry *items;         /* by line */
	size_t len, cap;
	bool file_ignored;
};

/* --- reading comments --------------------------------------------------------------- */

static bool is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Is `word` (lowercase) at s[i, n), compared case-insensitively? */
static bool word_at(const char *s, size_t n, size_t i, const char *word, bool icase)
{
	size_t k = strlen(word);

	if (n - i < k)
		return false;
	for (size_t j = 0; j < k; j++) {
		char c = s[i + j];

		if ((icase ? (char)tolower((unsigned char)c) : c) != word[j])
			return false;
	}
	return true;
}

/* Does s[0, n) contain `word` (lowercase), case-insensitively? */
static bool contains(const char *s, size_t n, const char *word)
{
	for (size_t i = 0; i < n; i++)
		if (word_at(s, n, i, word, true))
			return true;
	return false;
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
	while (i < n && is_blank(s[i]))
		i++;
	return i;
}

static void add_code(sup_entry *e, const char *s, size_t len, bool ours)
{
	e->codes = mpsfix_xrealloc(e->codes, (e->ncodes + 1) * sizeof(*e->codes));
	e->codes[e->ncodes++] = (sup_code){.text = mpsfix_xstrndup(s, len), .ours = ours};
}

static void entry_release(sup_entry *e)
{
	for (size_t i = 0; i < e->ncodes; i++)
		free(e->codes[i].text);
	free(e->codes);
}

/* Length of a flake8 code ([A-Za-z]+[0-9]+) at s[i, n), or 0. */
static size_t code_len(const char *s, size_t n, size_t i)
{
	size_t j = i, letters;

	while (j < n && isalpha((unsigned char)s[j]))
		j++;
	letters = j - i;
	while (j < n && isdigit((unsigned char)s[j]))
		j++;
	return letters && j - i > letters ? j - i : 0;
}

/* `# noqa[: codes]` in comment c[0, n); the directive's offset in *at. */
static bool parse_noqa(sup_entry *e, const char *c, size_t n, size_t *at)
{
	for (size_t h = 0; h < n; h++) {
		size_t i, k;

		if (c[h] != '#')
			continue;
		i = skip_blanks(c, n, h + 1);
		if (!word_at(c, n, i, "noqa", true) ||
		    (i + 4 < n && (is_word(c[i + 4]) || c[i + 4] == '-')))
			continue;
		*at = h;
		i += 4;
		if (i < n && c[i] == ':') {
			i = skip_blanks(c, n, i + 1);
			while ((k = code_len(c, n, i)) > 0) {
				add_code(e, c + i, k, strncmp(c + i, "MPS", 3) == 0);
				i += k;
				while (i < n && (c[i] == ',' || is_blank(c[i])))
					i++;
			}
		}
		e->all = e->ncodes == 0;
		return true;
	}
	return false;
}

static bool is_item_char(char c)
{
	return is_word(c) || c == '-' || c == '.';
}

/*
 * The items of `[ITEM, ITEM]` from c[i] (after the '['), up to the ']'.  A
 * list that is empty, unclosed or holds anything else adds nothing.
 */
static bool parse_items(sup_entry *e, const char *c, size_t n, size_t i)
{
	for (;;) {
		size_t k;

		while (i < n && (c[i] == ',' || is_blank(c[i])))
			i++;
		if (i >= n || c[i] == ']')
			break;
		k = i;
		while (i < n && is_item_char(c[i]))
			i++;
		if (i == k)
			break; /* neither an item nor ']' */
		add_code(e, c + k, i - k, true);
	}
	if (i < n && c[i] == ']' && e->ncodes > 0)
		return true;
	for (size_t j = 0; j < e->ncodes; j++)
		free(e->codes[j].text);
	free(e->codes);
	e->codes = NULL;
	e->ncodes = 0;
	return false;
}

/*
 * `# mpsfix: ignore`, `ignore[...]` or `ignore-file` in comment c[0, n).
 * Returns false when there is none (or a malformed one).
 */
static bool parse_mpsfix(sup_entry *e, bool *file, const char *c, size_t n, size_t *at)
{
	for (size_t h = 0; h < n; h++) {
		size_t i, j;

		if (c[h] != '#')
			continue;
		i = skip_blanks(c, n, h + 1);
		if (!word_at(c, n, i, "mpsfix", false))
			continue;
		i = skip_blanks(c, n, i + 6);
		if (i >= n || c[i] != ':')
			continue;
		i = skip_blanks(c, n, i + 1);
		if (!word_at(c, n, i, "ignore", false))
			continue;
		i += 6;
		*at = h;
		if (word_at(c, n, i, "-file", false) && (i + 5 == n || !is_item_char(c[i + 5]))) {
			*file = true;
			return true;
		}
		j = skip_blanks(c, n, i);
		if (j < n && c[j] == '[') {
			if (parse_items(e, c, n, j + 1))
				return true;
		} else if (i == n || !is_item_char(c[i])) {
			e->all = e->ours = true;
			return true;
		}
	}
	return false;
}

static void push_entry(mpsfix_suppressions *s, sup_entry *e, uint32_t byte)
{
	uint32_t line, col;

	mpsfix_source_position(s->src, byte, &line, &col);
	e->line = line;
	e->col = col;
	mpsfix_grow((void **)&s->items, &s->cap, s->len + 1, sizeof(*s->items));
	s->items[s->len++] = *e;
}

/* The directives of the comment at src[start, end). */
static void read_comment(mpsfix_suppressions *s, uint32_t start, uint32_t end)
{
	const char *c = s->src->data + start;
	size_t n = end - start, at = 0;
	sup_entry e = {0};
	bool file = false;

	if (parse_noqa(&e, c, n, &at))
		push_entry(s, &e, start + (uint32_t)at);
	e = (sup_entry){0};
	if (parse_mpsfix(&e, &file, c, n, &at)) {
		if (file)
			s->file_ignored = true;
		else
			push_entry(s, &e, start + (uint32_t)at);
	} else {
		entry_release(&e);
	}
}

mpsfix_suppressions *mpsfix_suppressions_scan(TSNode root, const mpsfix_source *src)
{
	mpsfix_suppressions *s = mpsfix_xcalloc(1, sizeof(*s));
	TSSymbol comment = mpsfix_symbol("comment");
	const char *data = src->data, *end = src->data + src->len;
	const char *p = data;

	s->src = src;
	while (p < end && (p = memchr(p, '#', (size_t)(end - p)))) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		uint32_t at = (uint32_t)(p - data);
		TSNode n;

		if (!eol)
			eol = end;
		/* most comments are no directive: skip them without the tree */
		if (!contains(p, (size_t)(eol - p), "noqa") && !contains(p, (size_t)(eol - p), "mpsfix")) {
			p = eol;
			continue;
		}
		n = ts_node_descendant_for_byte_range(root, at, at + 1);
		if (!ts_node_is_null(n) && ts_node_symbol(n) == comment && ts_node_start_byte(n) == at) {
			read_comment(s, at, ts_node_end_byte(n));
			p = data + ts_node_end_byte(n);
		} else {
			p++; /* inside a string: the comment may come later on the line */
		}
	}
	return s;
}

void mpsfix_suppressions_free(mpsfix_suppressions *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->len; i++)
		entry_release(&s->items[i]);
	free(s->items);
	free(s);
}

bool mpsfix_suppressions_file_ignored(const mpsfix_suppressions *s)
{
	return s->file_ignored;
}

/* --- applying them ---------------------------------------------------------------------- */

static bool is_clause_with_header(const char *type)
{
	static const char *const clauses[] = {
		"elif_clause", "else_clause", "except_clause", "except_group_clause",
		"finally_clause", "case_clause",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(clauses); i++)
		if (strcmp(type, clauses[i]) == 0)
			return true;
	return false;
}

/*
 * A statement, or a part of a compound statement with its own header line:
 * `*_statement`, definitions, and the elif/else/except/finally/case clauses.
 */
static bool is_statement(TSNode n)
{
	const char *type = ts_node_type(n);
	size_t len = strlen(type);

	return (len > 10 && strcmp(type + len - 10, "_statement") == 0) ||
	       strcmp(type, "function_definition") == 0 || strcmp(type, "class_definition") == 0 ||
	       strcmp(type, "decorated_definition") == 0 || is_clause_with_header(type);
}

/* The first directive on `line`, or s->len. */
static size_t first_on(const mpsfix_suppressions *s, uint32_t line)
{
	return mpsfix_lower_bound(s->items, s->len, sizeof(*s->items), offsetof(sup_entry, line), line);
}

/* Does a directive on `line` cover `rule`?  Marks what applied as used. */
static bool covered_on(mpsfix_suppressions *s, uint32_t line, const mpsfix_rule *rule)
{
	for (size_t i = first_on(s, line); i < s->len && s->items[i].line == line; i++) {
		sup_entry *e = &s->items[i];
		bool hit = false;

		if (e->all) {
			e->used = true;
			return true;
		}
		for (size_t k = 0; k < e->ncodes; k++)
			if (mpsfix_selector_matches(e->codes[k].text, rule)) {
				e->codes[k].used = true;
				hit = true;
			}
		if (hit)
			return true;
	}
	return false;
}

bool mpsfix_suppressed(mpsfix_suppressions *s, const mpsfix_rule *rule, TSNode node)
{
	uint32_t line, stmt_line;
	TSNode n = node;

	if (s->file_ignored)
		return true;
	if (s->len == 0)
		return false;
	line = mpsfix_source_line_of(s->src, ts_node_start_byte(node));
	if (covered_on(s, line, rule))
		return true;
	while (!ts_node_is_null(n) && !is_statement(n))
		n = ts_node_parent(n);
	if (ts_node_is_null(n))
		return false;
	stmt_line = mpsfix_source_line_of(s->src, ts_node_start_byte(n));
	return stmt_line != line && covered_on(s, stmt_line, rule);
}

mpsfix_unused_suppression *mpsfix_suppressions_unused(const mpsfix_suppressions *s, size_t *n)
{
	mpsfix_unused_suppression *out = NULL;
	size_t len = 0, cap = 0;

	for (size_t i = 0; i < s->len; i++) {
		const sup_entry *e = &s->items[i];
		mpsfix_buf codes = MPSFIX_BUF_INIT;

		if (e->all && (!e->ours || e->used))
			continue;
		for (size_t k = 0; k < e->ncodes; k++) {
			if (!e->codes[k].ours || e->codes[k].used)
				continue;
			mpsfix_buf_printf(&codes, "%s%s", codes.len ? ", " : "", e->codes[k].text);
		}
		if (!e->all && codes.len == 0)
			continue;
		mpsfix_grow((void **)&out, &cap, len + 1, sizeof(*out));
		out[len++] = (mpsfix_unused_suppression){
			.line = e->line,
			.col = e->col,
			.codes = e->all ? NULL : mpsfix_buf_detach(&codes, NULL),
		};
		mpsfix_buf_release(&codes);
	}
	*n = len;
	return out;
}
