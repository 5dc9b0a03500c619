/*
 * notebook.c: a Jupyter notebook read as one Python text (the whole file
 * validated as JSON and walked as bytes by json_scan.c; jansson decodes only
 * nbformat and each cell's cell_type and source, never the outputs), and
 * written back by replacing the `source` values of changed cells only.
 */
#include "notebook.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "text.h"

/* Cell magics whose body is Python (the rest, %%bash, %%html, ..., are left out). */
static const char *const python_cell_magics[] = {
	"time", "timeit", "capture", "prun", "debug", "python", "python3",
};

bool mpsfix_is_notebook_path(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, ".ipynb");
}

size_t mpsfix_notebook_size_limit(const char *name)
{
	return mpsfix_is_notebook_path(name) ? MPSFIX_NOTEBOOK_MAX : MPSFIX_SOURCE_MAX;
}

/* ---- where the cells' sources are in the bytes -------------------------------- */

/*
 * The notebook's structure, as bytes: the spans of the values mpsfix reads
 * (nbformat, and each cell's cell_type and source); start == end: absent.
 * Only these are decoded (jansson); outputs and metadata are validated as
 * JSON by mpsfix_json_valid and copied, never decoded.
 */
typedef struct {
	size_t start, end;
} nb_span;

typedef struct {
	nb_span type, source;
} nb_cell_spans;

typedef struct {
	nb_span nbformat;
	bool has_cells;         /* a "cells" member whose value is an array */
	ARRAY(nb_cell_spans) cells;
	const char *problem;    /* why the keys cannot be read: a duplicate, an escape */
	size_t problem_at;
	uint32_t problem_cell;  /* the cell whose keys it is, 0 for the notebook's */
} nb_spans;

static bool key_is(const char *data, size_t start, size_t end, const char *key)
{
	return end - start == strlen(key) && !memcmp(data + start, key, end - start);
}

/* Past the value the walk is at; its span. */
static nb_span skip_value(mpsfix_json_walk *w)
{
	nb_span v;

	mpsfix_json_skip(w, &v.start);
	v.end = w->i;
	return v;
}

/*
 * The members of the object the walk is in (after its '{'): calls `on` for
 * each with its key, the walk at its value, which `on` passes.  A key
 * written with an escape, or a key given twice, is a problem (set once):
 * what the key means would take decoding.
 */
static void walk_members(mpsfix_json_walk *w, nb_spans *sp, uint32_t cell,
			 void (*on)(nb_spans *, mpsfix_json_walk *, nb_span, void *), void *payload)
{
	ARRAY(nb_span) keys = {0};

	if (mpsfix_json_take(w, '}'))
		return;
	do {
		nb_span key;

		mpsfix_json_key(w, &key.start, &key.end);
		if (!sp->problem && memchr(w->s + key.start, '\\', key.end - key.start))
			sp->problem = "a key written with an escape", sp->problem_at = key.start,
			sp->problem_cell = cell;
		for (size_t k = 0; k < keys.len && !sp->problem; k++)
			if (keys.items[k].end - keys.items[k].start == key.end - key.start &&
			    !memcmp(w->s + keys.items[k].start, w->s + key.start, key.end - key.start))
				sp->problem = "a key given twice", sp->problem_at = key.start,
				sp->problem_cell = cell;
		ARRAY_PUSH(&keys, key);
		on(sp, w, key, payload);
	} while (mpsfix_json_take(w, ','));
	mpsfix_json_take(w, '}');
	free(keys.items);
}

static void on_cell_member(nb_spans *sp, mpsfix_json_walk *w, nb_span key, void *payload)
{
	nb_cell_spans *c = payload;
	nb_span value = skip_value(w);

	(void)sp;
	if (key_is(w->s, key.start, key.end, "cell_type"))
		c->type = value;
	else if (key_is(w->s, key.start, key.end, "source"))
		c->source = value;
}

/* A member of the notebook: nbformat is kept, the cells walked (once), the rest passed. */
static void on_member(nb_spans *sp, mpsfix_json_walk *w, nb_span key, void *payload)
{
	(void)payload;
	if (key_is(w->s, key.start, key.end, "nbformat")) {
		sp->nbformat = skip_value(w);
		return;
	}
	if (!key_is(w->s, key.start, key.end, "cells") || !mpsfix_json_take(w, '[')) {
		skip_value(w);
		return;
	}
	sp->has_cells = true;
	sp->cells.len = 0;
	if (mpsfix_json_take(w, ']'))
		return;
	do {
		nb_cell_spans c = {{0, 0}, {0, 0}};

		if (mpsfix_json_take(w, '{'))
			walk_members(w, sp, (uint32_t)sp->cells.len + 1, on_cell_member, &c);
		else
			skip_value(w);
		ARRAY_PUSH(&sp->cells, c);
	} while (mpsfix_json_take(w, ','));
	mpsfix_json_take(w, ']');
}

/* The spans of a valid JSON text's notebook values. */
static void find_spans(nb_spans *sp, const char *data, size_t len)
{
	mpsfix_json_walk w = {data, len, 0};

	if (mpsfix_json_take(&w, '{'))
		walk_members(&w, sp, 0, on_member, NULL);
}

/* The value at `sp` decoded (a new reference), or NULL when absent. */
static json_t *decode(const char *data, nb_span sp)
{
	return sp.end > sp.start ? json_loadb(data + sp.start, sp.end - sp.start,
					      JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL) : NULL;
}

/* ---- IPython lines -------------------------------------------------------------- */

/* Where a line's statement stands: inside brackets, a triple-quoted string, a continuation. */
typedef struct {
	size_t depth;
	char triple;     /* the quote of an open triple-quoted string, or 0 */
	bool continued;  /* the last line ended with a backslash */
} line_state;

static void scan_line(line_state *st, const char *p, const char *end)
{
	st->continued = false;
	while (p < end) {
		char c = *p;

		if (st->triple) {
			if (c == '\\')
				p++;
			else if (c == st->triple && end - p >= 3 && p[1] == c && p[2] == c)
				st->triple = 0, p += 2;
			p++;
			continue;
		}
		if (c == '#')
			return;
		if (c == '"' || c == '\'') {
			if (end - p >= 3 && p[1] == c && p[2] == c) {
				st->triple = c;
				p += 3;
				continue;
			}
			for (p++; p < end && *p != c; p++)
				if (*p == '\\')
					p++;
		} else if (c == '(' || c == '[' || c == '{') {
			st->depth++;
		} else if ((c == ')' || c == ']' || c == '}') && st->depth) {
			st->depth--;
		} else if (c == '\\' && p + 1 < end && (p[1] == '\n' || p[1] == '\r')) {
			st->continued = true;
		}
		p++;
	}
}

/* Of an IPython line at a statement's start: the byte where its magic part starts, or -1. */
static long magic_at(const char *line, size_t n)
{
	size_t i = 0, e = n;

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	while (e > i && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\n' ||
			 line[e - 1] == '\r'))
		e--;
	if (i == e)
		return -1;
	if (line[i] == '%' || line[i] == '!' || line[i] == '?')
		return 0;
	if (line[e - 1] == '?' && !memchr(line + i, '#', e - i) && !memchr(line + i, '"', e - i) &&
	    !memchr(line + i, '\'', e - i))
		return 0; /* help: obj? or obj?? */
	/* an assignment from one: names = !cmd, t = %timeit -o f() */
	for (size_t k = i; k < e; k++) {
		char c = line[k];

		if (c == '=') {
			size_t v = k + 1;

			if (k == i || strchr("=!<>+-*/%&|^@:", line[k - 1]) || (v < e && line[v] == '='))
				return -1;
			while (v < e && (line[v] == ' ' || line[v] == '\t'))
				v++;
			return v < e && (line[v] == '!' || line[v] == '%') ? (long)v : -1;
		}
		if (!(c == '_' || c == '.' || c == ',' || c == ' ' || c == '\t' || c == '[' || c == ']' ||
		      (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return -1;
	}
	return -1;
}

static bool python_cell_magic(const char *code, size_t len)
{
	size_t n = 0;

	if (len < 2 || code[0] != '%' || code[1] != '%')
		return true;
	code += 2;
	len -= 2;
	while (n < len && code[n] != ' ' && code[n] != '\t' && code[n] != '\n' && code[n] != '\r')
		n++;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(python_cell_magics); i++)
		if (strlen(python_cell_magics[i]) == n && !memcmp(code, python_cell_magics[i], n))
			return true;
	return false;
}

typedef struct {
	char *orig, *masked;
} nb_mask;
typedef ARRAY(nb_mask) nb_masks;

/* Append cell `c`'s code to `out`, IPython lines masked (masks recorded in `masks`). */
static void add_code(mpsfix_buf *out, mpsfix_nb_cell *c, nb_masks *masks)
{
	const char *p = c->code, *end = c->code + c->code_len;
	line_state st = {0};

	c->first_mask = (uint32_t)masks->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl + 1 : end;
		size_t body = (size_t)(e - p);
		long at = -1;

		while (body && (p[body - 1] == '\n' || p[body - 1] == '\r'))
			body--;
		if (!st.depth && !st.triple && !st.continued)
			at = magic_at(p, body);
		if (at < 0) {
			mpsfix_buf_add(out, p, (size_t)(e - p));
			scan_line(&st, p, e);
		} else {
			mpsfix_buf m = MPSFIX_BUF_INIT;
			nb_mask mask;
			size_t k = masks->len;

			if (at == 0) {
				size_t ind = 0;

				while (ind < body && (p[ind] == ' ' || p[ind] == '\t'))
					ind++;
				mpsfix_buf_printf(&m, "%.*spass  #%cm%zu", (int)ind, p, MPSFIX_NB_MARK, k);
			} else {
				mpsfix_buf_printf(&m, "%.*s0  #%cm%zu", (int)at, p, MPSFIX_NB_MARK, k);
			}
			mask.orig = mpsfix_xstrndup(p, body);
			mask.masked = mpsfix_buf_detach(&m, NULL);
			mpsfix_buf_adds(out, mask.masked);
			mpsfix_buf_add(out, p + body, (size_t)(e - p) - body);
			ARRAY_PUSH(masks, mask);
			c->nmasks++;
			st.continued = false;
		}
		p = e;
	}
	if (c->code_len && end[-1] != '\n')
		mpsfix_buf_addc(out, '\n');
}

/* ---- reading ----------------------------------------------------------------------- */

/* Decode cell `c`'s source (`v`, a string or a list of strings). */
static bool decode_source(mpsfix_nb_cell *c, json_t *v)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	size_t i;
	json_t *line;

	if (json_is_string(v)) {
		mpsfix_buf_add(&b, json_string_value(v), json_string_length(v));
	} else if (json_is_array(v)) {
		c->listed = true;
		json_array_foreach(v, i, line) {
			if (!json_is_string(line)) {
				mpsfix_buf_release(&b);
				return false;
			}
			mpsfix_buf_add(&b, json_string_value(line), json_string_length(line));
		}
	} else {
		return false;
	}
	c->code_len = b.len;
	c->code = b.data ? mpsfix_buf_detach(&b, NULL) : mpsfix_xstrdup("");
	return true;
}

static uint32_t count_lines(const char *s, size_t from, size_t to)
{
	uint32_t n = 0;

	for (const char *p = s + from, *end = s + to; p < end && (p = memchr(p, '\n', (size_t)(end - p)));
	     p++)
		n++;
	return n;
}

/* The 1-based line and column (in characters) of byte `at` of `data`. */
static void position(const char *data, size_t at, uint32_t *line, uint32_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < at; i++) {
		if (data[i] == '\n')
			*line += 1, *col = 1;
		else if (((unsigned char)data[i] & 0xc0) != 0x80)
			*col += 1;
	}
}

int mpsfix_notebook_read(mpsfix_notebook *nb, const char *path, const char *data, size_t len)
{
	nb_spans sp = {{0, 0}, false, {0}, NULL, 0, 0};
	json_t *format = NULL, *source = NULL, *type = NULL;
	mpsfix_buf text = MPSFIX_BUF_INIT;
	nb_masks masks = {0};
	ARRAY(mpsfix_source_cell) map = {0};
	uint32_t line = 1, file_line = 1, col;
	size_t scanned = 0, at;
	const char *why;
	int error = 0;

	*nb = (mpsfix_notebook)MPSFIX_NOTEBOOK_INIT;
	/* the whole file is JSON; only the values read below are decoded */
	if (!mpsfix_json_valid(data, len, &at, &why)) {
		position(data, at, &line, &col);
		return mpsfix_error_set(MPSFIX_ESKIP, "%s:%u:%u: skipped: not a notebook: %s expected%s",
					path, line, col, why, at == len ? " (the file ends there)" : "");
	}
	find_spans(&sp, data, len);
	format = decode(data, sp.nbformat);
	if (!json_is_integer(format)) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: not a notebook (no nbformat)", path);
		goto done;
	}
	if (json_integer_value(format) != 4) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: nbformat %lld notebook; mpsfix reads "
					 "nbformat 4 (jupyter nbconvert --to notebook upgrades it)",
					 path, (long long)json_integer_value(format));
		goto done;
	}
	if (sp.problem) {
		position(data, sp.problem_at, &line, &col);
		if (sp.problem_cell)
			error = mpsfix_error_set(MPSFIX_ESKIP, "%s:%u:%u: cell %u: skipped: %s", path, line, col,
						 sp.problem_cell, sp.problem);
		else
			error = mpsfix_error_set(MPSFIX_ESKIP, "%s:%u:%u: skipped: %s", path, line, col,
						 sp.problem);
		goto done;
	}
	if (!sp.has_cells) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: not a notebook (no cells)", path);
		goto done;
	}
	nb->ncells = sp.cells.len;
	nb->cells = mpsfix_xcalloc(nb->ncells ? nb->ncells : 1, sizeof(*nb->cells));
	line = 1;
	for (size_t i = 0; i < nb->ncells; i++) {
		mpsfix_nb_cell *c = &nb->cells[i];

		json_decref(type);
		json_decref(source);
		type = decode(data, sp.cells.items[i].type);
		source = decode(data, sp.cells.items[i].source);
		c->number = (uint32_t)i + 1;
		c->start = (uint32_t)sp.cells.items[i].source.start;
		c->end = (uint32_t)sp.cells.items[i].source.end;
		if (!json_is_string(type) || !decode_source(c, source)) {
			error = mpsfix_error_set(MPSFIX_ESKIP, "%s: cell %u: skipped: not a notebook cell "
						 "(no cell_type or source)", path, c->number);
			goto done;
		}
		file_line += count_lines(data, scanned, c->start);
		scanned = c->start;
		c->file_line = file_line;
		c->python = !strcmp(json_string_value(type), "code") && python_cell_magic(c->code, c->code_len);
		if (!c->python)
			continue;
		if (memchr(c->code, '\0', c->code_len) || memchr(c->code, MPSFIX_NB_MARK, c->code_len)) {
			error = mpsfix_error_set(MPSFIX_ESKIP, "%s: cell %u: skipped: the code holds a %s "
						 "character", path, c->number,
						 memchr(c->code, '\0', c->code_len) ? "NUL" : "U+001F");
			goto done;
		}
		if (map.len) {
			mpsfix_buf_printf(&text, "#%c%u\n", MPSFIX_NB_MARK, c->number);
			line++;
		}
		{
			/* a list laid out one line per element, as nbformat writes it */
			size_t elements = c->listed ? json_array_size(source) : 0;
			bool step = elements && count_lines(data, c->start, c->end) == elements + 1;
			mpsfix_source_cell sc = {line, c->number, c->file_line + step, step};

			ARRAY_PUSH(&map, sc);
		}
		{
			size_t before = text.len;

			add_code(&text, c, &masks);
			line += count_lines(text.data ? text.data : "", before, text.len);
		}
	}
	nb->text_len = text.len;
	nb->text = text.data ? mpsfix_buf_detach(&text, NULL) : mpsfix_xstrdup("");
	nb->map = map.items;
	nb->nmap = map.len;
	map.items = NULL;
	nb->nmasks = masks.len;
	nb->masks = mpsfix_xcalloc(nb->nmasks * 2 + 1, sizeof(char *));
	for (size_t k = 0; k < nb->nmasks; k++) {
		nb->masks[2 * k] = masks.items[k].orig;
		nb->masks[2 * k + 1] = masks.items[k].masked;
	}
	masks.len = 0;
done:
	for (size_t k = 0; k < masks.len; k++) {
		free(masks.items[k].orig);
		free(masks.items[k].masked);
	}
	free(masks.items);
	mpsfix_buf_release(&text);
	free(map.items);
	free(sp.cells.items);
	json_decref(format);
	json_decref(type);
	json_decref(source);
	if (error < 0)
		mpsfix_notebook_release(nb);
	return error;
}

/* ---- writing ------------------------------------------------------------------------ */

/* A JSON string as Python's json module writes it (ensure_ascii when `ascii`). */
static void put_string(mpsfix_buf *b, const char *s, size_t n, bool ascii)
{
	mpsfix_buf_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" :
				  c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b" :
				  c == '\f' ? "\\f" : NULL;

		if (esc) {
			mpsfix_buf_adds(b, esc);
		} else if (c < 0x20 || (ascii && c == 0x7f)) {
			mpsfix_buf_printf(b, "\\u%04x", c);
		} else if (ascii && c >= 0x80) {
			uint32_t cp = c;
			size_t len = mpsfix_text_utf8_char((const unsigned char *)s + i, n - i, &cp);

			if (!len) /* not UTF-8: jansson gives none such */
				len = 1;
			if (cp >= 0x10000)
				mpsfix_buf_printf(b, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
						  0xdc00 + ((cp - 0x10000) & 0x3ff));
			else
				mpsfix_buf_printf(b, "\\u%04x", cp);
			i += len - 1;
		} else {
			mpsfix_buf_addc(b, (char)c);
		}
	}
	mpsfix_buf_addc(b, '"');
}

/* How a cell's source value is written: its form, indentation and escaping. */
typedef struct {
	bool listed, ascii;
	const char *indent, *close; /* a list: before each element, before ']' */
	size_t nindent, nclose;
} nb_layout;

static void put_source(mpsfix_buf *b, const nb_layout *l, const char *code, size_t n)
{
	const char *p = code, *end = code + n;

	if (!l->listed) {
		put_string(b, code, n, l->ascii);
		return;
	}
	if (!n) {
		mpsfix_buf_adds(b, "[]");
		return;
	}
	mpsfix_buf_addc(b, '[');
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl + 1 : end;

		mpsfix_buf_adds(b, p == code ? "\n" : ",\n");
		mpsfix_buf_add(b, l->indent, l->nindent);
		put_string(b, p, (size_t)(e - p), l->ascii);
		p = e;
	}
	mpsfix_buf_addc(b, '\n');
	mpsfix_buf_add(b, l->close, l->nclose);
	mpsfix_buf_addc(b, ']');
}

/* The layout that gives back cell `c`'s bytes exactly; false when none does. */
static bool layout_of(nb_layout *l, const mpsfix_nb_cell *c, const char *data)
{
	const char *s = data + c->start, *e = data + c->end;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	bool found = false;

	*l = (nb_layout){.listed = c->listed};
	if (c->listed) {
		const char *q;

		if (e - s < 4 || s[1] != '\n' || e[-1] != ']')
			return false; /* "[]", or not one element per line */
		for (q = s + 2; q < e && (*q == ' ' || *q == '\t'); q++)
			;
		l->indent = s + 2;
		l->nindent = (size_t)(q - l->indent);
		for (q = e - 1; q > s && (q[-1] == ' ' || q[-1] == '\t'); q--)
			;
		if (q[-1] != '\n')
			return false;
		l->close = q;
		l->nclose = (size_t)(e - 1 - q);
	}
	for (int ascii = 0; ascii < 2 && !found; ascii++) {
		l->ascii = ascii;
		mpsfix_buf_clear(&b);
		put_source(&b, l, c->code, c->code_len);
		found = b.len == (size_t)(e - s) && !memcmp(b.data, s, b.len);
	}
	mpsfix_buf_release(&b);
	return found;
}

/* Cell `c`'s code in the fixed text `p`..`end` (up to the next cell line), masks restored. */
static int cell_code(mpsfix_buf *code, const mpsfix_notebook *nb, const mpsfix_nb_cell *c,
		     const char *path, const char **pp, const char *end)
{
	const char *p = *pp;
	uint32_t k = c->first_mask;

	while (p < end && !(p[0] == '#' && end - p > 1 && p[1] == MPSFIX_NB_MARK)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl + 1 : end;
		size_t body = (size_t)(e - p);

		while (body && (p[body - 1] == '\n' || p[body - 1] == '\r'))
			body--;
		if (memchr(p, MPSFIX_NB_MARK, body)) {
			const char *masked = k < c->first_mask + c->nmasks ? nb->masks[2 * k + 1] : NULL;

			if (!masked || strlen(masked) != body || memcmp(masked, p, body))
				return mpsfix_error_set(MPSFIX_ESKIP, "%s: cell %u: not fixed: a fix changed "
							"an IPython line", path, c->number);
			mpsfix_buf_adds(code, nb->masks[2 * k]);
			mpsfix_buf_add(code, p + body, (size_t)(e - p) - body);
			k++;
		} else {
			mpsfix_buf_add(code, p, (size_t)(e - p));
		}
		p = e;
	}
	if (k != c->first_mask + c->nmasks)
		return mpsfix_error_set(MPSFIX_ESKIP, "%s: cell %u: not fixed: a fix removed an IPython "
					"line", path, c->number);
	/* the newline the text added after a cell without one */
	if (c->code_len && c->code[c->code_len - 1] != '\n' && code->len && code->data[code->len - 1] == '\n')
		code->len--;
	*pp = p;
	return 0;
}

/* The notebook `data` with the cells of `fixed` (see mpsfix_notebook_render), not read back. */
static int render(mpsfix_buf *out, const mpsfix_notebook *nb, const char *path, const char *data,
		  size_t len, const char *fixed, size_t fixed_len)
{
	const char *p = fixed, *end = fixed + fixed_len;
	mpsfix_buf code = MPSFIX_BUF_INIT;
	size_t copied = 0;
	bool first = true;
	int error = 0;

	for (size_t i = 0; i < nb->ncells; i++) {
		const mpsfix_nb_cell *c = &nb->cells[i];
		nb_layout l;

		if (!c->python)
			continue;
		if (!first) {
			char mark[32];
			int n = snprintf(mark, sizeof(mark), "#%c%u\n", MPSFIX_NB_MARK, c->number);

			if (end - p < n || memcmp(p, mark, (size_t)n)) {
				error = mpsfix_error_set(MPSFIX_ESKIP, "%s: cell %u: not fixed: a fix moved "
							 "code across cells", path, c->number);
				goto done;
			}
			p += n;
		}
		first = false;
		mpsfix_buf_clear(&code);
		if ((error = cell_code(&code, nb, c, path, &p, end)) < 0)
			goto done;
		if (code.len == c->code_len && (!code.len || !memcmp(code.data, c->code, code.len)))
			continue;
		if (!layout_of(&l, c, data)) {
			error = mpsfix_error_set(MPSFIX_ESKIP, "%s: cell %u: not fixed: its source is not "
						 "written the way nbformat writes JSON, and mpsfix would "
						 "not give the other bytes back as they are", path, c->number);
			goto done;
		}
		mpsfix_buf_add(out, data + copied, c->start - copied);
		put_source(out, &l, code.data ? code.data : "", code.len);
		copied = c->end;
	}
	if (p != end) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not fixed: a fix moved code across cells", path);
		goto done;
	}
	mpsfix_buf_add(out, data + copied, len - copied);
done:
	mpsfix_buf_release(&code);
	return error;
}

int mpsfix_notebook_render(mpsfix_buf *out, mpsfix_notebook *back, const mpsfix_notebook *nb,
			   const char *path, const char *data, size_t len, const char *fixed,
			   size_t fixed_len)
{
	mpsfix_notebook local = MPSFIX_NOTEBOOK_INIT, *b = back ? back : &local;
	int error;

	if (back)
		*back = (mpsfix_notebook)MPSFIX_NOTEBOOK_INIT;
	if ((error = render(out, nb, path, data, len, fixed, fixed_len)) < 0)
		return error;
	/* what is written must read back as the fixed text, byte for byte */
	if (mpsfix_notebook_read(b, path, out->data ? out->data : "", out->len) < 0 ||
	    b->text_len != fixed_len || memcmp(b->text, fixed, fixed_len))
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not fixed: the notebook written would not "
					 "read back as fixed", path);
	if (error < 0 || !back)
		mpsfix_notebook_release(b);
	return error;
}

void mpsfix_notebook_attach(mpsfix_source *s, const mpsfix_notebook *nb)
{
	free(s->cells);
	s->cells = NULL;
	s->ncells = 0;
	if (!nb->nmap)
		return;
	s->cells = mpsfix_xcalloc(nb->nmap, sizeof(*s->cells));
	memcpy(s->cells, nb->map, nb->nmap * sizeof(*s->cells));
	s->ncells = (uint32_t)nb->nmap;
}

int mpsfix_notebook_source(mpsfix_source *src, mpsfix_notebook *nb, const char *path,
			   const char *data, size_t len)
{
	int error;

	*src = (mpsfix_source)MPSFIX_SOURCE_INIT;
	if ((error = mpsfix_notebook_read(nb, path, data, len)) < 0)
		return error;
	if ((error = mpsfix_source_from_buffer(src, path, nb->text, nb->text_len)) < 0) {
		mpsfix_notebook_release(nb);
		return error;
	}
	mpsfix_notebook_attach(src, nb);
	return 0;
}

void mpsfix_notebook_release(mpsfix_notebook *nb)
{
	if (!nb)
		return;
	for (size_t i = 0; i < nb->ncells; i++)
		free(nb->cells[i].code);
	free(nb->cells);
	for (size_t k = 0; k < 2 * nb->nmasks; k++)
		free(nb->masks[k]);
	free(nb->masks);
	free(nb->text);
	free(nb->map);
	*nb = (mpsfix_notebook)MPSFIX_NOTEBOOK_INIT;
}
