/*
 * yaml_util.c: builds the mpsfix_yaml_node tree from libyaml's events, maps
 * offsets inside scalars back to the file, and has the small schema helpers
 * (typed scalars, known keys, "PATH:LINE:COL:" messages) loaders share.
 *
 * The event API (rather than libyaml's document loader) lets us refuse
 * aliases at the first one, before anything is expanded, and keeps the
 * exact style and marks of every scalar.
 */
#include "yaml_util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

typedef struct {
	const char *path;
	const char *data;
	size_t len;
	size_t bom;                /* 3 when the data starts with a UTF-8 BOM */
	size_t ci, bi;             /* cursor: character index ci is at byte bi */
	mpsfix_yaml_node *stack[MPSFIX_YAML_MAX_DEPTH];
	size_t depth;
	mpsfix_yaml_node *root;
} loader;

static bool is_continuation(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

/* Number of characters (UTF-8 code points) in s[0, n). */
static size_t count_chars(const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += !is_continuation((unsigned char)s[i]);
	return k;
}

/*
 * libyaml marks count characters (the BOM excluded); convert one to a byte
 * offset.  Marks mostly grow, so a cursor makes the conversion cheap.
 */
static size_t byte_of(loader *ld, size_t index)
{
	if (index < ld->ci) {
		ld->ci = 0;
		ld->bi = ld->bom;
	}
	while (ld->ci < index && ld->bi < ld->len) {
		ld->bi++;
		while (ld->bi < ld->len && is_continuation((unsigned char)ld->data[ld->bi]))
			ld->bi++;
		ld->ci++;
	}
	return ld->bi;
}

/* Advance (line, col) over data[from, to), counting line breaks as libyaml does. */
static void walk(const char *data, size_t from, size_t to, uint32_t *line, uint32_t *col)
{
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)data[i];

		if (c == '\r' && i + 1 < to && data[i + 1] == '\n')
			continue;
		if (c == '\n' || c == '\r') {
			(*line)++;
			*col = 1;
		} else if (!is_continuation(c)) {
			(*col)++;
		}
	}
}

static int fail_at(const loader *ld, uint32_t line, uint32_t col, const char *msg)
{
	return mpsfix_error_set(MPSFIX_ERROR, "%s:%u:%u: %s", ld->path, line, col, msg);
}

static int fail_mark(const loader *ld, const yaml_mark_t *m, const char *msg)
{
	return fail_at(ld, (uint32_t)m->line + 1, (uint32_t)m->column + 1, msg);
}

static int parser_fail(loader *ld, const yaml_parser_t *p)
{
	uint32_t line = 1, col = 1;
	const char *problem = p->problem ? p->problem : "YAML error";
	size_t at;

	if (p->error == YAML_MEMORY_ERROR)
		return mpsfix_error_set(MPSFIX_ERROR, "%s: out of memory reading YAML", ld->path);
	if (p->error == YAML_READER_ERROR) {
		at = p->problem_offset < ld->len ? p->problem_offset : ld->len;
		walk(ld->data, ld->bom < at ? ld->bom : at, at, &line, &col);
		return fail_at(ld, line, col, problem);
	}
	line = (uint32_t)p->problem_mark.line + 1;
	col = (uint32_t)p->problem_mark.column + 1;
	at = byte_of(ld, p->problem_mark.index);
	if (at < ld->len && ld->data[at] == '\t' && !strstr(problem, "tab"))
		return mpsfix_error_set(MPSFIX_ERROR, "%s:%u:%u: %s (YAML cannot indent with tabs)",
					ld->path, line, col, problem);
	if (p->context)
		return mpsfix_error_set(MPSFIX_ERROR, "%s:%u:%u: %s (%s at %u:%u)", ld->path,
					line, col, problem, p->context,
					(unsigned)p->context_mark.line + 1,
					(unsigned)p->context_mark.column + 1);
	return fail_at(ld, line, col, problem);
}

static void node_free(mpsfix_yaml_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nitems; i++)
		node_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n);
}

static mpsfix_yaml_node *node_new(loader *ld, mpsfix_yaml_type type, const yaml_event_t *ev)
{
	mpsfix_yaml_node *n = mpsfix_xcalloc(1, sizeof(*n));

	*n = (mpsfix_yaml_node){
		.type = type,
		.line = (uint32_t)ev->start_mark.line + 1,
		.col = (uint32_t)ev->start_mark.column + 1,
		.start = byte_of(ld, ev->start_mark.index),
	};
	n->end = byte_of(ld, ev->end_mark.index);
	if (type == MPSFIX_YAML_SCALAR) {
		static const mpsfix_yaml_style styles[] = {
			[YAML_PLAIN_SCALAR_STYLE] = MPSFIX_YAML_PLAIN,
			[YAML_SINGLE_QUOTED_SCALAR_STYLE] = MPSFIX_YAML_SINGLE_QUOTED,
			[YAML_DOUBLE_QUOTED_SCALAR_STYLE] = MPSFIX_YAML_DOUBLE_QUOTED,
			[YAML_LITERAL_SCALAR_STYLE] = MPSFIX_YAML_LITERAL,
			[YAML_FOLDED_SCALAR_STYLE] = MPSFIX_YAML_FOLDED,
		};
		yaml_scalar_style_t s = ev->data.scalar.style;

		n->style = (size_t)s < MPSFIX_ARRAY_SIZE(styles) ? styles[s] : MPSFIX_YAML_PLAIN;
		n->len = ev->data.scalar.length;
		n->value = mpsfix_xstrndup((const char *)ev->data.scalar.value, n->len);
	}
	return n;
}

/* Hang `n` under the open collection (or make it the root); takes ownership. */
static int attach(loader *ld, mpsfix_yaml_node *n)
{
	mpsfix_yaml_node *parent = ld->depth ? ld->stack[ld->depth - 1] : NULL;

	if (!parent) {
		ld->root = n;
		return 0;
	}
	mpsfix_grow((void **)&parent->items, &parent->cap, parent->nitems + 1,
		    sizeof(*parent->items));
	parent->items[parent->nitems++] = n;
	if (parent->type == MPSFIX_YAML_MAP && parent->nitems % 2 == 1 &&
	    n->type != MPSFIX_YAML_SCALAR)
		return fail_at(ld, n->line, n->col, "mapping keys must be plain strings");
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const mpsfix_yaml_node *x = *(const mpsfix_yaml_node *const *)a;
	const mpsfix_yaml_node *y = *(const mpsfix_yaml_node *const *)b;
	int c = memcmp(x->value, y->value, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Report the first (in document order) repeated key of `map`. */
static int check_duplicates(const loader *ld, const mpsfix_yaml_node *map)
{
	size_t n = mpsfix_yaml_npairs(map);
	const mpsfix_yaml_node **keys, *dup = NULL, *first = NULL;
	int error = 0;

	if (n < 2)
		return 0;
	keys = mpsfix_xmalloc(n * sizeof(*keys));
	for (size_t i = 0; i < n; i++)
		keys[i] = mpsfix_yaml_key(map, i);
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (size_t i = 1, head = 0; i < n; i++) {
		if (keys[i]->len != keys[head]->len ||
		    memcmp(keys[i]->value, keys[head]->value, keys[i]->len) != 0) {
			head = i;
			continue;
		}
		if (i == head + 1 && (!dup || keys[i]->start < dup->start)) {
			dup = keys[i];
			first = keys[head];
		}
	}
	if (dup)
		error = mpsfix_error_set(MPSFIX_ERROR, "%s:%u:%u: duplicate key '%s' "
					 "(first at line %u)", ld->path, dup->line, dup->col,
					 dup->value, first->line);
	free(keys);
	return error;
}

static bool has_tag(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return ev->data.scalar.tag != NULL;
	case YAML_SEQUENCE_START_EVENT:
		return ev->data.sequence_start.tag != NULL;
	case YAML_MAPPING_START_EVENT:
		return ev->data.mapping_start.tag != NULL;
	default:
		return false;
	}
}

/* Handle one event; sets *done at the end of the stream. */
static int on_event(loader *ld, const yaml_event_t *ev, int *ndocs, bool *done)
{
	mpsfix_yaml_node *n;
	int error;

	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		*done = true;
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if ((*ndocs)++)
			return fail_mark(ld, &ev->start_mark,
					 "a rule file holds one YAML document; "
					 "a second one starts here");
		return 0;
	case YAML_ALIAS_EVENT:
		return fail_mark(ld, &ev->start_mark, "aliases are not allowed in rule files");
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (has_tag(ev))
			return fail_mark(ld, &ev->start_mark, "tags are not allowed in rule files");
		n = node_new(ld, ev->type == YAML_SCALAR_EVENT ? MPSFIX_YAML_SCALAR
				 : ev->type == YAML_SEQUENCE_START_EVENT ? MPSFIX_YAML_SEQ
				 : MPSFIX_YAML_MAP, ev);
		if ((error = attach(ld, n)) < 0 || n->type == MPSFIX_YAML_SCALAR)
			return error;
		if (ld->depth == MPSFIX_YAML_MAX_DEPTH)
			return mpsfix_error_set(MPSFIX_ERROR, "%s:%u:%u: nested deeper than "
						"%d levels", ld->path, n->line, n->col,
						MPSFIX_YAML_MAX_DEPTH);
		ld->stack[ld->depth++] = n;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		n = ld->stack[--ld->depth];
		n->end = byte_of(ld, ev->end_mark.index);
		return n->type == MPSFIX_YAML_MAP ? check_duplicates(ld, n) : 0;
	default:
		return 0;
	}
}

int mpsfix_yaml_load(mpsfix_yaml_doc *out, const char *path, const char *data, size_t len)
{
	loader ld = {.path = path, .data = data, .len = len};
	yaml_parser_t parser;
	yaml_event_t ev;
	int error = 0, ndocs = 0;
	bool done = false;

	*out = (mpsfix_yaml_doc){.path = path, .data = data, .len = len};
	if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		ld.bom = 3;
	ld.bi = ld.bom;
	if (!yaml_parser_initialize(&parser))
		return mpsfix_error_set(MPSFIX_ERROR, "%s: out of memory reading YAML", path);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			error = parser_fail(&ld, &parser);
			break;
		}
		error = on_event(&ld, &ev, &ndocs, &done);
		yaml_event_delete(&ev);
		if (error < 0)
			break;
	}
	yaml_parser_delete(&parser);
	if (error < 0)
		node_free(ld.root);
	else
		out->root = ld.root;
	return error;
}

void mpsfix_yaml_release(mpsfix_yaml_doc *doc)
{
	node_free(doc->root);
	doc->root = NULL;
}

bool mpsfix_yaml_is_null(const mpsfix_yaml_node *n)
{
	if (n->type != MPSFIX_YAML_SCALAR || n->style != MPSFIX_YAML_PLAIN)
		return false;
	return n->len == 0 || strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0 ||
	       strcmp(n->value, "Null") == 0 || strcmp(n->value, "NULL") == 0;
}

/* Byte offset of the line after the one holding byte `at`. */
static size_t next_line(const mpsfix_yaml_doc *doc, size_t at)
{
	while (at < doc->len && doc->data[at] != '\n' && doc->data[at] != '\r')
		at++;
	if (at < doc->len && doc->data[at] == '\r')
		at++;
	if (at < doc->len && doc->data[at] == '\n')
		at++;
	return at;
}

/* Content indentation of the block scalar whose indicator is at byte `at`. */
static uint32_t block_indent(const mpsfix_yaml_doc *doc, size_t at)
{
	const char *d = doc->data;
	size_t p = at + 1, ls = at;

	/* an explicit indentation indicator counts from the indentation of its line */
	while (p < doc->len && (d[p] == '-' || d[p] == '+' || (d[p] >= '0' && d[p] <= '9'))) {
		if (d[p] >= '1' && d[p] <= '9') {
			uint32_t base = 0;

			while (ls > 0 && d[ls - 1] != '\n' && d[ls - 1] != '\r')
				ls--;
			while (d[ls + base] == ' ')
				base++;
			return base + (uint32_t)(d[p] - '0');
		}
		p++;
	}
	for (p = next_line(doc, at); p < doc->len; p = next_line(doc, p)) {
		uint32_t n = 0;

		while (p + n < doc->len && d[p + n] == ' ')
			n++;
		if (p + n < doc->len && d[p + n] != '\n' && d[p + n] != '\r')
			return n;
	}
	return 0;
}

static bool is_white(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Skip the escape sequence at d[r] of a double-quoted scalar; advance *v over
 * the bytes it stands for.  Returns the offset after the sequence.
 */
static size_t skip_escape(const char *d, size_t r, size_t end, size_t *v)
{
	unsigned long cp;
	size_t digits = 0;
	char c = d[r + 1];

	if (c == '\n' || c == '\r') { /* an escaped line break folds to nothing */
		for (r++; r < end && is_white(d[r]); r++)
			;
		return r;
	}
	if (c == 'x')
		digits = 2;
	else if (c == 'u')
		digits = 4;
	else if (c == 'U')
		digits = 8;
	if (digits == 0) {
		/* \N and \_ stand for 2 bytes of UTF-8, \L and \P for 3 */
		*v += c == 'N' || c == '_' ? 2 : c == 'L' || c == 'P' ? 3 : 1;
		return r + 2;
	}
	cp = 0;
	for (r += 2; digits > 0 && r < end && isxdigit((unsigned char)d[r]); digits--, r++)
		cp = cp * 16 + (unsigned long)(isdigit((unsigned char)d[r]) ? d[r] - '0'
					       : (tolower((unsigned char)d[r]) - 'a' + 10));
	*v += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	return r;
}

void mpsfix_yaml_position(const mpsfix_yaml_doc *doc, const mpsfix_yaml_node *s,
			  size_t offset, uint32_t *line, uint32_t *col)
{
	size_t r, end = s->end < doc->len ? s->end : doc->len;

	if (offset > s->len)
		offset = s->len;
	if (s->style == MPSFIX_YAML_LITERAL) {
		size_t nl = 0, ls = 0;

		for (size_t i = 0; i < offset; i++) {
			if (s->value[i] == '\n') {
				nl++;
				ls = i + 1;
			}
		}
		*line = s->line + 1 + (uint32_t)nl;
		*col = block_indent(doc, s->start) +
		       (uint32_t)count_chars(s->value + ls, offset - ls) + 1;
		return;
	}
	/*
	 * Other styles: walk the written text and the value together.  Equal
	 * bytes advance both, escapes are decoded, and a run of whitespace
	 * (indentation, folded line breaks) matches a run in the value.
	 */
	if (s->style == MPSFIX_YAML_FOLDED)
		r = next_line(doc, s->start);
	else if (s->style == MPSFIX_YAML_PLAIN)
		r = s->start;
	else
		r = s->start + 1;
	for (size_t v = 0; v < offset && r < end;) {
		const char *d = doc->data;

		if (s->style == MPSFIX_YAML_DOUBLE_QUOTED && d[r] == '\\' && r + 1 < end) {
			r = skip_escape(d, r, end, &v);
		} else if (s->style == MPSFIX_YAML_SINGLE_QUOTED && d[r] == '\'' && r + 1 < end &&
			   d[r + 1] == '\'') {
			r += 2;
			v++;
		} else if (is_white(d[r]) && is_white(s->value[v])) {
			/* a run of spaces and line breaks (maybe folded) against its
			 * value: in step while both are white, then the rest of the
			 * written run; white that an escape wrote is left to it */
			while (r < end && v < offset && is_white(d[r]) && is_white(s->value[v])) {
				r++;
				v++;
			}
			while (r < end && is_white(d[r]))
				r++;
		} else if (is_white(d[r]) || d[r] != s->value[v]) {
			r++;
		} else {
			r++;
			v++;
		}
	}
	/* land on the character itself, not on the indentation before it */
	while (offset < s->len && !is_white(s->value[offset]) && r < end && is_white(doc->data[r]))
		r++;
	*line = s->line;
	*col = s->col;
	walk(doc->data, s->start, r, line, col);
}

int mpsfix_yaml_read_file(mpsfix_buf *out, const char *path, size_t max)
{
	struct stat st;
	char chunk[65536];
	ssize_t n;
	size_t start = out->len;
	int fd, error = 0;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return mpsfix_error_set(MPSFIX_ERROR, "cannot open '%s': %s", path,
					strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not a regular file", path);
		goto done;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot read '%s': %s", path,
						 strerror(errno));
			goto done;
		}
		if (out->len - start + (size_t)n > max) {
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: the file is larger than "
						 "%zu KiB", path, max / 1024);
			goto done;
		}
		mpsfix_buf_add(out, chunk, (size_t)n);
	}
done:
	close(fd);
	return error;
}

/* --- schema helpers for loaders ---------------------------------------------- */

bool mpsfix_yaml_is_string(const mpsfix_yaml_node *n)
{
	return n->type == MPSFIX_YAML_SCALAR && !mpsfix_yaml_is_null(n);
}

bool mpsfix_yaml_number(const mpsfix_yaml_node *n, double *out)
{
	char buf[64], *end;
	size_t k = 0;
	const char *p;

	if (n->type != MPSFIX_YAML_SCALAR || n->style != MPSFIX_YAML_PLAIN)
		return false;
	p = n->value + (n->value[0] == '-' || n->value[0] == '+');
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return false;
	for (p = n->value; *p; p++) {
		if (*p == '_')
			continue;
		if (k + 1 >= sizeof(buf))
			return false;
		buf[k++] = *p;
	}
	buf[k] = '\0';
	*out = strtod(buf, &end);
	return *end == '\0';
}

bool mpsfix_yaml_bool(const mpsfix_yaml_node *n, bool *out)
{
	static const char *const words[] = {"false", "False", "FALSE", "true", "True", "TRUE"};

	if (n->type != MPSFIX_YAML_SCALAR || n->style != MPSFIX_YAML_PLAIN)
		return false;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(words); i++) {
		if (strcmp(n->value, words[i]) == 0) {
			*out = i >= 3;
			return true;
		}
	}
	return false;
}

int mpsfix_yaml_vfail_at(const mpsfix_yaml_doc *doc, uint32_t line, uint32_t col,
			 const char *fmt, va_list ap)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error;

	/* format first: an argument may point into the error slot itself */
	mpsfix_buf_vprintf(&b, fmt, ap);
	error = mpsfix_error_set(MPSFIX_ERROR, "%s:%u:%u: %s", doc->path, line, col,
				 b.data ? b.data : "");
	mpsfix_buf_release(&b);
	return error;
}

int mpsfix_yaml_fail_at(const mpsfix_yaml_doc *doc, uint32_t line, uint32_t col,
			const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mpsfix_yaml_vfail_at(doc, line, col, fmt, ap);
	va_end(ap);
	return error;
}

int mpsfix_yaml_fail(const mpsfix_yaml_doc *doc, const mpsfix_yaml_node *n, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mpsfix_yaml_vfail_at(doc, n->line, n->col, fmt, ap);
	va_end(ap);
	return error;
}

/* Optimal string alignment distance, case-insensitive; SIZE_MAX for long words. */
static size_t distance(const char *a, const char *b)
{
	size_t m = strlen(a), n = strlen(b), d[33][33];

	if (m > 32 || n > 32)
		return SIZE_MAX;
	for (size_t i = 0; i <= m; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= n; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= m; i++) {
		for (size_t j = 1; j <= n; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			size_t v = d[i - 1][j - 1] + (ca != cb);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[m][n];
}

static int unknown_key(const mpsfix_yaml_doc *doc, const mpsfix_yaml_node *key, const char *ctx,
		       const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t bestd = SIZE_MAX;
	char in[64] = "";

	for (size_t i = 0; i < n; i++) {
		size_t d = distance(key->value, names[i]);

		if (d <= (strlen(names[i]) <= 3 ? 1u : 2u) && d < bestd) {
			best = names[i];
			bestd = d;
		}
	}
	if (ctx)
		snprintf(in, sizeof(in), " in '%s'", ctx);
	if (best)
		return mpsfix_yaml_fail(doc, key, "unknown key '%s'%s (did you mean '%s'?)",
					key->value, in, best);
	return mpsfix_yaml_fail(doc, key, "unknown key '%s'%s", key->value, in);
}

size_t mpsfix_yaml_field_index(const char *const *names, size_t n, const char *name)
{
	size_t i = 0;

	while (i < n && strcmp(names[i], name) != 0)
		i++;
	return i;
}

int mpsfix_yaml_collect(mpsfix_yaml_fields *out, const mpsfix_yaml_doc *doc,
			const mpsfix_yaml_node *map, const char *ctx,
			const char *const *names, size_t n, unsigned required)
{
	*out = (mpsfix_yaml_fields){0};
	for (size_t i = 0; i < mpsfix_yaml_npairs(map); i++) {
		const mpsfix_yaml_node *k = mpsfix_yaml_key(map, i);
		size_t j = mpsfix_yaml_field_index(names, n, k->value);

		if (j == n)
			return unknown_key(doc, k, ctx, names, n);
		out->key[j] = k;
		out->val[j] = mpsfix_yaml_value(map, i);
	}
	return mpsfix_yaml_require(out, doc, map, ctx, names, n, required);
}

int mpsfix_yaml_require(const mpsfix_yaml_fields *f, const mpsfix_yaml_doc *doc,
			const mpsfix_yaml_node *map, const char *ctx,
			const char *const *names, size_t n, unsigned required)
{
	for (size_t j = 0; j < n; j++) {
		if (!(required & (1u << j)) || f->key[j])
			continue;
		if (ctx)
			return mpsfix_yaml_fail(doc, map, "missing required key '%s' in '%s'",
						names[j], ctx);
		return mpsfix_yaml_fail(doc, map, "missing required key '%s'", names[j]);
	}
	return 0;
}
