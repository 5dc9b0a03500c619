/*
 * style.c: each file's line length, from the lint configuration of the
 * nearest folder above it that sets one (see style.h): the files of a
 * folder read in ruff's, black's, yapf's and flake8's order, the first
 * length they set taken.
 */
#include "style.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "git.h"
#include "ini.h"
#include "pathutil.h"
#include "text.h"
#include "toml.h"
#include "yaml_util.h"

/* A lint configuration larger than this is not read. */
#define STYLE_FILE_MAX (4u * 1024u * 1024u)

/* Who a line length is for, in the order they win inside one file. */
enum { RUFF, BLACK, YAPF, FLAKE8, PYCODESTYLE, NTOOLS };

/* How a file is read. */
enum format {
	RUFF_TOML,       /* ruff.toml, .ruff.toml: line-length at the top */
	PYPROJECT,       /* [tool.ruff] and [tool.black] line-length, [tool.yapf] column_limit */
	YAPF_INI,        /* .style.yapf: [style] column_limit */
	SETUP_CFG,       /* setup.cfg: [yapf] column_limit, then as FLAKE8_INI */
	FLAKE8_INI,      /* tox.ini: [flake8] and [pycodestyle] max-line-length */
	FLAKE8_ONLY_INI  /* .flake8: [flake8] max-line-length */
};

/* The files of a folder, in the order they are read. */
static const struct {
	const char *name;
	enum format format;
} style_files[] = {
	{".ruff.toml", RUFF_TOML},
	{"ruff.toml", RUFF_TOML},
	{"pyproject.toml", PYPROJECT},
	{".style.yapf", YAPF_INI},
	{"setup.cfg", SETUP_CFG},
	{"tox.ini", FLAKE8_INI},
	{".flake8", FLAKE8_ONLY_INI},
};

/* One file being read: the first good length of each tool. */
typedef struct {
	enum format format;
	const char *shown;                  /* the file as the current folder sees it */
	mpsfix_style_warn_cb warn;
	void *payload;
	uint32_t length[NTOOLS], line[NTOOLS]; /* length 0: none yet */
} reading;

static void warn_of(const reading *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn_of(const reading *r, const char *fmt, ...)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	va_list ap;

	if (!r->warn)
		return;
	va_start(ap, fmt);
	mpsfix_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r->warn(r->payload, b.data);
	mpsfix_buf_release(&b);
}

/*
 * A value of `key` for tool `tool` at `line`, `written` as the file writes
 * it and `length` its number (-1: not a whole number): the tool's line
 * length when it is its first good one; a warning when it is no line length.
 */
static void take(reading *r, int tool, const char *key, long long length, const char *written, uint32_t line)
{
	if (length < 1 || length > MPSFIX_STYLE_LINE_LENGTH_MAX) {
		warn_of(r, "%s:%u: %s %s ignored: not a whole number from 1 to %d", r->shown, line, key, written,
			MPSFIX_STYLE_LINE_LENGTH_MAX);
		return;
	}
	if (r->length[tool])
		return;
	r->length[tool] = (uint32_t)length;
	r->line[tool] = line;
}

static void toml_value(void *payload, const mpsfix_toml_path *path, const mpsfix_toml_value *v, uint32_t line)
{
	reading *r = payload;
	int tool = -1;
	char *written;

	if (r->format == RUFF_TOML) {
		if (path->len == 1 && mpsfix_toml_path_is(path, 0, "line-length"))
			tool = RUFF;
	} else if (path->len == 3 && mpsfix_toml_path_is(path, 0, "tool") &&
		   mpsfix_toml_path_is(path, 2, "line-length")) {
		tool = mpsfix_toml_path_is(path, 1, "ruff") ? RUFF : mpsfix_toml_path_is(path, 1, "black") ? BLACK : -1;
	} else if (path->len == 3 && mpsfix_toml_path_is(path, 0, "tool") && mpsfix_toml_path_is(path, 1, "yapf") &&
		   mpsfix_toml_path_is(path, 2, "column_limit")) {
		tool = YAPF;
	}
	if (tool < 0)
		return;
	written = v->kind == MPSFIX_TOML_STRING ? mpsfix_xasprintf("\"%s\"", v->text) : mpsfix_xstrdup(v->text);
	take(r, tool, tool == YAPF ? "column_limit" : "line-length", v->kind == MPSFIX_TOML_INTEGER ? v->integer : -1,
	     written, line);
	free(written);
}

/* A whole number written in decimal digits alone, or -1 (over a million: a million, out of range all the same). */
static long long decimal(mpsfix_text_slice s)
{
	long long v = 0;

	if (!s.n)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		if (s.s[i] < '0' || s.s[i] > '9')
			return -1;
		v = v * 10 + (s.s[i] - '0');
		if (v > 1000000)
			return 1000000; /* out of range all the same */
	}
	return v;
}

static bool section_is(mpsfix_text_slice section, const char *name)
{
	return section.n == strlen(name) && !strncmp(section.s, name, section.n);
}

static void ini_line(void *payload, const mpsfix_ini_line *l)
{
	reading *r = payload;
	bool yapf = (r->format == YAPF_INI && section_is(l->section, "style")) ||
		    (r->format == SETUP_CFG && section_is(l->section, "yapf"));
	int tool = yapf ? YAPF : r->format == YAPF_INI ? -1 : section_is(l->section, "flake8") ? FLAKE8 :
		   section_is(l->section, "pycodestyle") && r->format != FLAKE8_ONLY_INI ? PYCODESTYLE : -1;
	const char *key = yapf ? "column_limit" : "max-line-length";
	char *written;

	if (tool < 0 || l->continued || !mpsfix_ini_name_is(l->key, key))
		return;
	written = mpsfix_xasprintf("'%.*s'", (int)l->value.n, l->value.s);
	take(r, tool, key, decimal(l->value), written, l->line);
	free(written);
}

/* Read style_files[fi] of folder `dir` when it is there: true, with *out, when it sets a line length. */
static bool read_file(mpsfix_style *out, const char *dir, size_t fi, mpsfix_style_warn_cb warn, void *payload)
{
	char *path = mpsfix_path_join(dir, style_files[fi].name), *shown = NULL;
	reading r = {.format = style_files[fi].format, .warn = warn, .payload = payload};
	mpsfix_buf b = MPSFIX_BUF_INIT;
	struct stat st;
	uint32_t line = 0;
	bool found = false;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		goto done; /* absent, a folder, a broken link: nothing to read */
	r.shown = shown = mpsfix_path_from_cwd(path);
	if (mpsfix_yaml_read_file(&b, path, STYLE_FILE_MAX) < 0) {
		warn_of(&r, "%s (looking for the line length in %s)", mpsfix_error_last()->message, shown);
		goto done;
	}
	if (r.format == RUFF_TOML || r.format == PYPROJECT) {
		/* the lengths before a problem count, as the pins before it do */
		if (mpsfix_toml_read_values(b.data ? b.data : "", b.len, toml_value, &r, &line) < 0)
			warn_of(&r, "%s:%u: not read for the line length: %s", shown, line,
				mpsfix_error_last()->message);
	} else {
		mpsfix_ini_read(b.data ? b.data : "", b.len, ini_line, &r);
	}
	for (int tool = 0; tool < NTOOLS && !found; tool++)
		if (r.length[tool]) {
			found = true;
			out->line_length = r.length[tool];
			out->origin = mpsfix_xasprintf("%s:%u", shown, r.line[tool]);
			out->summary = mpsfix_xasprintf("line length %u (%s)", out->line_length, out->origin);
		}
done:
	mpsfix_buf_release(&b);
	free(shown);
	free(path);
	return found;
}

bool mpsfix_style_read_folder(mpsfix_style *out, const char *dir, mpsfix_style_warn_cb warn, void *payload)
{
	*out = (mpsfix_style)MPSFIX_STYLE_INIT;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(style_files); i++)
		if (read_file(out, dir, i, warn, payload))
			return true;
	return false;
}

void mpsfix_styles_init(mpsfix_styles *s, uint32_t line_length, const char *origin)
{
	mpsfix_style run = {line_length, NULL, NULL};

	*s = (mpsfix_styles)MPSFIX_STYLES_INIT;
	s->forced = line_length != 0;
	if (s->forced) {
		run.origin = mpsfix_xstrdup(origin);
		run.summary = mpsfix_xasprintf("line length %u (%s)", line_length, origin);
	} else {
		run.line_length = MPSFIX_STYLE_LINE_LENGTH_DEFAULT;
		run.summary = mpsfix_xasprintf("line length %u", run.line_length);
	}
	mpsfix_grow((void **)&s->items, &s->cap, 1, sizeof(*s->items));
	s->items[s->len++] = run;
	mpsfix_nearest_init(&s->folders);
}

/* Where a folder's warnings go (mpsfix_nearest's payload). */
typedef struct {
	mpsfix_styles *s;
	mpsfix_style_warn_cb warn;
	void *payload;
} looking;

/* The style folder `dir` (real) gives: an index into s->items, or none. */
static size_t folder_style(void *payload, const char *dir)
{
	const looking *lk = payload;
	mpsfix_styles *s = lk->s;
	mpsfix_style st;

	if (!mpsfix_style_read_folder(&st, dir, lk->warn, lk->payload))
		return MPSFIX_NEAREST_NONE;
	mpsfix_grow((void **)&s->items, &s->cap, s->len + 1, sizeof(*s->items));
	s->items[s->len] = st;
	return s->len++;
}

void mpsfix_styles_find_run(mpsfix_styles *s, const char *config_dir, const char *path,
			    mpsfix_style_warn_cb warn, void *payload)
{
	const char *p = path && *path && strcmp(path, "-") != 0 ? path : ".";
	looking lk = {s, warn, payload};
	char *start, *slash;
	size_t k;

	if (s->forced)
		return;
	if (config_dir) {
		start = mpsfix_xstrdup(config_dir);
	} else if (!(start = mpsfix_git_worktree_top(p))) {
		if (!(start = realpath(p, NULL)))
			return;
		if (!mpsfix_path_is_dir(start) && (slash = strrchr(start, '/')) != NULL)
			*(slash == start ? slash + 1 : slash) = '\0';
	}
	k = mpsfix_nearest_upward(&s->folders, start, folder_style, &lk);
	if (k != MPSFIX_NEAREST_NONE)
		s->run = k;
	free(start);
}

size_t mpsfix_styles_of_file(mpsfix_styles *s, const char *path, const char *operand,
			     mpsfix_style_warn_cb warn, void *payload)
{
	looking lk = {s, warn, payload};
	size_t k;

	if (s->forced)
		return 0;
	k = mpsfix_nearest_of_file(&s->folders, path, operand, folder_style, &lk);
	return k == MPSFIX_NEAREST_NONE ? s->run : k; /* none: the run's */
}

size_t mpsfix_styles_of_folder(mpsfix_styles *s, const char *dir, mpsfix_style_warn_cb warn, void *payload)
{
	looking lk = {s, warn, payload};
	size_t k;

	if (s->forced)
		return 0;
	k = mpsfix_nearest_of_folder(&s->folders, dir, folder_style, &lk);
	return k == MPSFIX_NEAREST_NONE ? s->run : k;
}

int mpsfix_style_parse_line_length(uint32_t *out, const char *text, const char *what)
{
	long long n = text ? decimal((mpsfix_text_slice){text, strlen(text)}) : -1;

	if (n < 1 || n > MPSFIX_STYLE_LINE_LENGTH_MAX)
		return mpsfix_error_set(MPSFIX_ERROR, "invalid value '%s' for %s (give a number of columns "
					"from 1 to %d)", text ? text : "", what, MPSFIX_STYLE_LINE_LENGTH_MAX);
	*out = (uint32_t)n;
	return 0;
}

void mpsfix_style_release(mpsfix_style *st)
{
	free(st->origin);
	free(st->summary);
	*st = (mpsfix_style)MPSFIX_STYLE_INIT;
}

void mpsfix_styles_release(mpsfix_styles *s)
{
	for (size_t i = 0; i < s->len; i++)
		mpsfix_style_release(&s->items[i]);
	free(s->items);
	mpsfix_nearest_release(&s->folders);
	*s = (mpsfix_styles)MPSFIX_STYLES_INIT;
}
