/*
 * fix_import.c: where a fix puts the `import ROOT` line it adds: after the
 * module's last import before the code, else after its docstring, else
 * after the leading comments.  The module's statements and its imports come
 * from the file's import table (names.h).
 */
#include "fix_import.h"

#include <string.h>

#include "parse.h"

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

static uint32_t line_start(const mpsfix_module_imports *n, uint32_t b)
{
	while (b > 0 && n->src[b - 1] != '\n' && n->src[b - 1] != '\r')
		b--;
	return b;
}

static bool is_docstring(const mpsfix_module_imports *n, TSNode stmt)
{
	TSNode e;

	if (ts_node_symbol(stmt) != mpsfix_symbol("expression_statement") ||
	    ts_node_named_child_count(stmt) != 1)
		return false;
	e = ts_node_named_child(stmt, 0);
	while (ts_node_symbol(e) == mpsfix_symbol("parenthesized_expression") &&
	       ts_node_named_child_count(e) == 1)
		e = ts_node_named_child(e, 0);
	return ts_node_symbol(e) == mpsfix_symbol("string") ||
	       ts_node_symbol(e) == mpsfix_symbol("concatenated_string");
}

/* After the leading comment and blank lines (and a byte order mark). */
static uint32_t after_leading_comments(const mpsfix_module_imports *n)
{
	uint32_t b = 0, point = 0;

	if (n->len >= 3 && memcmp(n->src, "\xEF\xBB\xBF", 3) == 0)
		b = point = 3;
	while (b < n->len) {
		uint32_t p = b;

		while (p < n->len && (n->src[p] == ' ' || n->src[p] == '\t' || n->src[p] == '\f'))
			p++;
		if (p < n->len && n->src[p] != '#' && n->src[p] != '\n' && n->src[p] != '\r')
			break;
		b = point = next_line(n, p);
	}
	return point;
}

/* The number of statements in n->top whose end (or start) is at most `b`:
 * both are in order, the statements not overlapping. */
static uint32_t top_before(const mpsfix_module_imports *n, uint32_t b, bool by_end)
{
	uint32_t lo = 0, hi = n->ntop;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t at = by_end ? ts_node_end_byte(n->top[mid]) : ts_node_start_byte(n->top[mid]);

		if ((by_end && at <= b) || (!by_end && at < b))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t mpsfix_fix_import_point(mpsfix_names *names, uint32_t before, bool *needs_newline)
{
	mpsfix_module_imports mod;
	const mpsfix_module_imports *n = &mod;
	uint32_t limit = before, point = 0, i, before_limit;
	TSNode last_import = {{0}, NULL, NULL}, first_stmt = {{0}, NULL, NULL};
	bool found = false;

	mpsfix_names_module_imports(names, &mod);
	/* the top-level statement holding `before` starts the forbidden zone */
	i = top_before(n, before, true);
	if (i < n->ntop && ts_node_start_byte(n->top[i]) <= before)
		limit = ts_node_start_byte(n->top[i]);
	/* the statements before it: the first one, and the last import */
	before_limit = top_before(n, limit, false);
	if (before_limit) {
		first_stmt = n->top[0];
		if (n->top_import[before_limit - 1]) {
			last_import = n->top[n->top_import[before_limit - 1] - 1];
			found = true;
		}
	}
	if (found) {
		point = next_line(n, ts_node_end_byte(last_import));
		if (point > limit) /* `import a; target` on one line */
			point = line_start(n, ts_node_start_byte(last_import));
	} else if (!ts_node_is_null(first_stmt) && is_docstring(n, first_stmt)) {
		point = next_line(n, ts_node_end_byte(first_stmt));
		if (point > limit)
			point = after_leading_comments(n);
	} else {
		point = after_leading_comments(n);
	}
	if (point > limit)
		point = line_start(n, limit);
	if (needs_newline)
		*needs_newline = point == n->len && n->len > 0 && n->src[n->len - 1] != '\n' &&
				 n->src[n->len - 1] != '\r';
	return point;
}
