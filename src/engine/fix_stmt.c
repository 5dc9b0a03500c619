/*
 * fix_stmt.c: where a fix's statements go (see fix_stmt.h).
 */
#include "fix_stmt.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static TSNode first_statement(TSNode block)
{
	for (uint32_t i = 0; i < ts_node_named_child_count(block); i++)
		if (!ts_node_is_extra(ts_node_named_child(block, i)))
			return ts_node_named_child(block, i);
	return (TSNode){0};
}

/* The statement `n` is (itself, or the expression statement that is only
 * `n`), or a null node when `n` is part of a larger statement. */
static TSNode whole_statement(TSNode n)
{
	TSNode parent = ts_node_parent(n);

	if (is(parent, "expression_statement")) {
		uint32_t count = 0;

		for (uint32_t i = 0; i < ts_node_named_child_count(parent); i++)
			count += !ts_node_is_extra(ts_node_named_child(parent, i));
		if (count != 1)
			return (TSNode){0};
		n = parent;
		parent = ts_node_parent(n);
	}
	return is(parent, "block") || is(parent, "module") ? n : (TSNode){0};
}

static uint32_t skip_blanks(const char *s, uint32_t len, uint32_t at)
{
	while (at < len && (s[at] == ' ' || s[at] == '\t' || s[at] == '\f'))
		at++;
	return at;
}

/* Does only a `;`, a comment or the line's end follow byte `at` on its line? */
static bool ends_its_line(const char *s, uint32_t len, uint32_t at)
{
	at = skip_blanks(s, len, at);
	if (at < len && s[at] == ';')
		at = skip_blanks(s, len, at + 1);
	return at >= len || s[at] == '\n' || s[at] == '\r' || s[at] == '#';
}

char *mpsfix_fix_place_statements(const mpsfix_source *src, TSNode target, mpsfix_stmt_place *out)
{
	const char *s = src->data;
	uint32_t len = (uint32_t)src->len;
	TSNode stmt = whole_statement(target), block, colon;
	uint32_t start, line, indent_end;
	mpsfix_span step;
	const char *step_text = "    ";
	size_t step_len = 4;

	*out = (mpsfix_stmt_place){0};
	if (ts_node_is_null(stmt))
		return mpsfix_xstrdup("the fix's statements can replace only a whole statement, "
				      "and this code is part of one");
	if (!ends_its_line(s, len, ts_node_end_byte(stmt)))
		return mpsfix_xstrdup("the statement shares its line with the statements after it "
				      "(`;`): put it on a line of its own first");
	if (mpsfix_indent_step(target, s, len, &step)) {
		step_text = s + step.start;
		step_len = step.end - step.start;
	}
	start = ts_node_start_byte(stmt);
	line = mpsfix_line_start(s, start);
	indent_end = mpsfix_indent_end(s, len, line);
	if (indent_end == start) {
		/* in place: the statement starts its line */
		out->start = start;
		out->prefix = mpsfix_xstrdup("");
		out->indent = mpsfix_xstrndup(s + line, indent_end - line);
	} else {
		/* `if c: x()`: the whole block on its statement's line moves to lines of its own */
		TSNode header;
		mpsfix_buf b = MPSFIX_BUF_INIT;

		block = ts_node_parent(stmt);
		colon = ts_node_prev_sibling(block);
		if (!is(block, "block") || !ts_node_eq(first_statement(block), stmt) || !is(colon, ":") ||
		    skip_blanks(s, len, ts_node_end_byte(colon)) != start)
			return mpsfix_xstrdup("the statement shares its line with the statements before "
					      "it (`;`): put it on a line of its own first");
		header = ts_node_parent(block);
		line = mpsfix_line_start(s, ts_node_start_byte(header));
		indent_end = mpsfix_indent_end(s, len, line);
		mpsfix_buf_add(&b, s + line, indent_end - line);
		mpsfix_buf_add(&b, step_text, step_len);
		out->start = ts_node_end_byte(colon);
		out->indent = mpsfix_buf_detach(&b, NULL);
		out->prefix = mpsfix_xasprintf("%s%s", mpsfix_source_newline_at(src, out->start), out->indent);
	}
	out->layout = (mpsfix_template_layout){
		.indent = out->indent,
		.indent_len = strlen(out->indent),
		.step = step_text,
		.step_len = step_len,
	};
	return NULL;
}

void mpsfix_stmt_place_release(mpsfix_stmt_place *p)
{
	free(p->prefix);
	free(p->indent);
	*p = (mpsfix_stmt_place){0};
}
