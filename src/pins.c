/*
 * pins.c: torch pins in requirement files, pyproject.toml, setup.cfg,
 * setup.py and environment.yml (see pins.h for what is read).
 *
 * No full TOML or Python parser: pyproject.toml goes through a small TOML
 * reader that knows strings (all four kinds), arrays, inline tables, table
 * headers and comments, and reports every string value with its key path;
 * setup.py through a tokenizer that knows comments and string literals and
 * collects the strings inside the brackets after install_requires= and
 * extras_require=.  environment.yml is YAML, read with yaml_util.
 */
#include "pins.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "text.h"
#include "yaml_util.h"

/* A project file larger than this is not a dependency list. */
#define PIN_FILE_MAX (4u * 1024u * 1024u)
/* Nesting of TOML arrays and inline tables. */
#define TOML_MAX_DEPTH 32
#define TOML_MAX_PATH 16

typedef ARRAY(char *) name_list;

typedef struct {
	mpsfix_pins *out;
	char *root;              /* the root, real and absolute; NULL: includes are not followed */
	name_list visited;       /* real paths of the files read */
} scan;

static void warn(scan *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(scan *sc, const char *fmt, ...)
{
	mpsfix_pins *p = sc->out;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mpsfix_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	mpsfix_grow((void **)&p->warnings, &p->wcap, p->nwarnings + 1, sizeof(char *));
	p->warnings[p->nwarnings++] = mpsfix_buf_detach(&b, NULL);
}

static void add_pin(scan *sc, const char *file, uint32_t line, mpsfix_text_slice text, mpsfix_torch_range r)
{
	mpsfix_pins *p = sc->out;

	mpsfix_grow((void **)&p->items, &p->cap, p->len + 1, sizeof(*p->items));
	p->items[p->len++] = (mpsfix_pin){
		.file = mpsfix_xstrdup(file),
		.line = line,
		.text = mpsfix_xstrndup(text.s, text.n),
		.range = r,
	};
}

/* The result of parsing one dependency: a pin, nothing, or a warning. */
static void take(scan *sc, const char *file, uint32_t line, mpsfix_text_slice text, int rc,
		 mpsfix_torch_range r)
{
	text = mpsfix_text_trim(text);
	if (rc == 0)
		add_pin(sc, file, line, text, r);
	else if (rc == MPSFIX_ERROR)
		warn(sc, "%s:%u: torch pin '%.*s' ignored: %s", file, line, (int)text.n, text.s,
		     mpsfix_error_last()->message);
}

/* --- names and requirement strings ------------------------------------------------- */

/*
 * Is `name` the package `want` ("torch", "pytorch")?  pip compares names
 * without case and with runs of - _ . alike; neither name has those, so a
 * name with one is another package (torch-geometric, torch_scatter).
 */
static bool same_name(mpsfix_text_slice name, const char *want)
{
	return name.n == strlen(want) && !strncasecmp(name.s, want, name.n);
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/*
 * A wheel file name or URL ("https://x/torch-2.1.0%2Bcpu-cp311-...whl",
 * "./wheels/torch-2.1.0-....whl"): 0 with the version's range when it is a
 * torch wheel, else MPSFIX_ENOMATCH.
 */
static int wheel_version(mpsfix_torch_range *out, mpsfix_text_slice url)
{
	const char *base, *v, *end;
	size_t n;

	url = mpsfix_text_trim(url);
	/* "...whl#sha256=..." or "...whl?x=y": the file name ends before */
	for (size_t i = 0; i < url.n; i++)
		if (url.s[i] == '#' || url.s[i] == '?') {
			url.n = i;
			break;
		}
	if (url.n < 4 || strncasecmp(url.s + url.n - 4, ".whl", 4) != 0)
		return MPSFIX_ENOMATCH;
	base = url.s;
	for (size_t i = 0; i < url.n; i++)
		if (url.s[i] == '/' || url.s[i] == '\\')
			base = url.s + i + 1;
	n = (size_t)(url.s + url.n - base);
	if (n < 6 || strncasecmp(base, "torch-", 6) != 0)
		return MPSFIX_ENOMATCH;
	v = base + 6;
	end = memchr(v, '-', (size_t)(url.s + url.n - v));
	if (!end)
		return MPSFIX_ENOMATCH;
	/* "2.1.0%2Bcpu": the local part does not matter */
	for (const char *q = v; q < end; q++)
		if (*q == '%' || *q == '+') {
			end = q;
			break;
		}
	{
		char spec[64];

		if ((size_t)(end - v) + 3 > sizeof(spec))
			return mpsfix_error_set(MPSFIX_ERROR, "the wheel's version is too long");
		snprintf(spec, sizeof(spec), "==%.*s", (int)(end - v), v);
		return mpsfix_torch_range_parse(out, spec, strlen(spec), MPSFIX_TORCH_SYNTAX_PIP);
	}
}

int mpsfix_pins_parse_requirement(mpsfix_torch_range *out, const char *req, size_t len)
{
	mpsfix_text_slice t = mpsfix_text_trim((mpsfix_text_slice){req, len}), name, spec;
	size_t i = 0;
	const char *semi;

	while (i < t.n && is_name_char(t.s[i]))
		i++;
	name = (mpsfix_text_slice){t.s, i};
	if (!name.n || (name.n > 4 && !strncasecmp(name.s + name.n - 4, ".whl", 4)))
		return wheel_version(out, t); /* a bare URL or path, a wheel's file name */
	if (!same_name(name, "torch")) {
		/* a path to a wheel ("./wheels/torch-2.1.0-...whl") starts like a name */
		if (i < t.n && (t.s[i] == '/' || t.s[i] == ':'))
			return wheel_version(out, t);
		return MPSFIX_ENOMATCH;
	}
	while (i < t.n && isspace((unsigned char)t.s[i]))
		i++;
	if (i < t.n && t.s[i] == '[') {
		const char *close = memchr(t.s + i, ']', t.n - i);

		if (!close)
			return mpsfix_error_set(MPSFIX_ERROR, "the extras are not closed with ']'");
		i = (size_t)(close - t.s) + 1;
		while (i < t.n && isspace((unsigned char)t.s[i]))
			i++;
	}
	if (i < t.n && t.s[i] == '@') {
		/* a direct reference: "torch @ URL ; marker" */
		mpsfix_text_slice url = {t.s + i + 1, t.n - i - 1};
		const char *sp = NULL;

		for (size_t k = 0; k < url.n; k++)
			if (url.s[k] == ';' && k > 0 && isspace((unsigned char)url.s[k - 1])) {
				sp = url.s + k;
				break;
			}
		if (sp)
			url.n = (size_t)(sp - url.s);
		return wheel_version(out, url);
	}
	if (i < t.n && t.s[i] == '/')
		return wheel_version(out, t);
	semi = memchr(t.s + i, ';', t.n - i);
	spec = mpsfix_text_trim((mpsfix_text_slice){t.s + i,
						    (size_t)((semi ? semi : t.s + t.n) - (t.s + i))});
	if (!spec.n)
		return MPSFIX_ENOMATCH;
	return mpsfix_torch_range_parse(out, spec.s, spec.n, MPSFIX_TORCH_SYNTAX_PIP);
}

int mpsfix_pins_parse_conda(mpsfix_torch_range *out, const char *text, size_t len)
{
	mpsfix_text_slice t = mpsfix_text_trim((mpsfix_text_slice){text, len}), name, rest;
	const char *colons;
	size_t i = 0, end;

	/* channel::name, or channel/subdir::name */
	for (colons = t.s; colons + 1 < t.s + t.n; colons++)
		if (colons[0] == ':' && colons[1] == ':') {
			t = (mpsfix_text_slice){colons + 2, (size_t)(t.s + t.n - colons - 2)};
			break;
		}
	while (i < t.n && is_name_char(t.s[i]))
		i++;
	name = (mpsfix_text_slice){t.s, i};
	if (!same_name(name, "pytorch"))
		return MPSFIX_ENOMATCH;
	rest = mpsfix_text_trim((mpsfix_text_slice){t.s + i, t.n - i});
	if (rest.n && rest.s[0] == '[') {
		/* pytorch[version='>=2.0,<2.3', build=...] */
		const char *key = NULL;

		for (size_t k = 0; k + 7 <= rest.n; k++)
			if (!strncmp(rest.s + k, "version", 7)) {
				key = rest.s + k + 7;
				break;
			}
		if (!key)
			return MPSFIX_ENOMATCH;
		while (key < rest.s + rest.n && (isspace((unsigned char)*key) || *key == '='))
			key++;
		if (key < rest.s + rest.n && (*key == '\'' || *key == '"')) {
			const char *close = memchr(key + 1, *key, (size_t)(rest.s + rest.n - key - 1));

			if (!close)
				return mpsfix_error_set(MPSFIX_ERROR, "the version is not closed");
			return mpsfix_torch_range_parse(out, key + 1, (size_t)(close - key - 1),
							MPSFIX_TORCH_SYNTAX_CONDA);
		}
		end = strcspn(key, ",]");
		return mpsfix_torch_range_parse(out, key, end, MPSFIX_TORCH_SYNTAX_CONDA);
	}
	if (!rest.n)
		return MPSFIX_ENOMATCH;
	/*
	 * "pytorch 2.1.* build", "pytorch=2.1.0=py3.10_0", "pytorch>=2.0,<2.3":
	 * the version ends at a blank, or at an '=' after a version character
	 * (the build string follows).
	 */
	end = 0;
	while (end < rest.n && !isspace((unsigned char)rest.s[end])) {
		if (rest.s[end] == '=' && end > 0 && (isalnum((unsigned char)rest.s[end - 1]) ||
						      rest.s[end - 1] == '*'))
			break;
		end++;
	}
	return mpsfix_torch_range_parse(out, rest.s, end, MPSFIX_TORCH_SYNTAX_CONDA);
}

/* --- files --------------------------------------------------------------------------- */

/* Has `real` (a real path) been read? */
static bool visited(const scan *sc, const char *real)
{
	for (size_t i = 0; i < sc->visited.len; i++)
		if (!strcmp(sc->visited.items[i], real))
			return true;
	return false;
}

/* Has `real` been read?  If not, remember it: it is about to be. */
static bool seen(scan *sc, const char *real)
{
	if (visited(sc, real))
		return true;
	ARRAY_PUSH(&sc->visited, mpsfix_xstrdup(real));
	return false;
}

/* Read `path` (a regular file) into `b`; a warning naming `name` when it cannot be. */
static bool read_file(scan *sc, mpsfix_buf *b, const char *path, const char *name)
{
	if (mpsfix_yaml_read_file(b, path, PIN_FILE_MAX) == 0)
		return true;
	warn(sc, "%s (looking for torch pins in %s)", mpsfix_error_last()->message, name);
	return false;
}

static void scan_requirements(scan *sc, const char *name, const char *dir, const char *data,
			      size_t len);

/* `rel` relative to the root when `real` is inside it, else NULL. */
static const char *inside_root(const scan *sc, const char *real)
{
	size_t n = strlen(sc->root);

	if (!strcmp(sc->root, "/"))
		return real + 1;
	if (!strncmp(real, sc->root, n) && real[n] == '/')
		return real + n + 1;
	return NULL;
}

/* `-r FILE` / `-c FILE` in file `name` (line `line`), relative to folder `dir`. */
static void include(scan *sc, const char *name, uint32_t line, const char *dir, mpsfix_text_slice target)
{
	char *path = NULL, *real = NULL, *inc_dir = NULL, *slash;
	const char *rel;
	mpsfix_buf b = MPSFIX_BUF_INIT;

	target = mpsfix_text_trim(target);
	if (!sc->root || !target.n)
		return;
	for (size_t i = 0; i + 3 <= target.n; i++)
		if (!memcmp(target.s + i, "://", 3))
			return; /* a URL: nothing of the project's */
	if (target.n > 5 && !strncmp(target.s, "file:", 5) && target.s[5] != '/')
		target = (mpsfix_text_slice){target.s + 5, target.n - 5};
	path = target.s[0] == '/' ? mpsfix_xstrndup(target.s, target.n)
				  : mpsfix_xasprintf("%s/%.*s", dir, (int)target.n, target.s);
	if (!(real = realpath(path, NULL))) {
		warn(sc, "%s:%u: cannot read the included file '%.*s': %s", name, line, (int)target.n,
		     target.s, strerror(errno));
		goto done;
	}
	if (visited(sc, real))
		goto done; /* read already (a file included twice, or a loop) */
	if (!(rel = inside_root(sc, real))) {
		warn(sc, "%s:%u: the included file '%.*s' is outside the project folder; its torch "
		     "pins are not read", name, line, (int)target.n, target.s);
		goto done;
	}
	if (seen(sc, real) || !read_file(sc, &b, real, rel))
		goto done;
	inc_dir = mpsfix_xstrdup(real);
	slash = strrchr(inc_dir, '/');
	*(slash == inc_dir ? slash + 1 : slash) = '\0';
	scan_requirements(sc, rel, inc_dir, b.data ? b.data : "", b.len);
done:
	mpsfix_buf_release(&b);
	free(inc_dir);
	free(real);
	free(path);
}

/*
 * One logical line of a requirements file (comments and continuations
 * already folded): an option, or a requirement with options after it.
 */
static void requirement_line(scan *sc, const char *name, uint32_t line, const char *dir, mpsfix_text_slice t)
{
	static const char *const includes[] = {"--requirement", "--constraint", "-r", "-c"};
	mpsfix_torch_range r;
	int rc;

	t = mpsfix_text_trim(t);
	if (!t.n)
		return;
	if (t.s[0] == '-') {
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(includes); i++) {
			size_t n = strlen(includes[i]);

			if (t.n <= n || strncmp(t.s, includes[i], n) != 0)
				continue;
			if (n > 2 && t.s[n] != '=' && !isspace((unsigned char)t.s[n]))
				continue; /* --requirementsX: another option */
			if (dir)
				include(sc, name, line, dir, (mpsfix_text_slice){t.s + n + (t.s[n] == '='),
										 t.n - n - (t.s[n] == '=')});
			return;
		}
		return; /* -e, -i, --index-url, --find-links...: not a pin */
	}
	/* per-requirement options start at the first word that starts with '-' (as pip splits) */
	for (size_t i = 1; i + 1 < t.n; i++)
		if (t.s[i] == '-' && isspace((unsigned char)t.s[i - 1])) {
			t = mpsfix_text_trim((mpsfix_text_slice){t.s, i});
			break;
		}
	rc = mpsfix_pins_parse_requirement(&r, t.s, t.n);
	take(sc, name, line, t, rc, r);
}

/*
 * A pip requirements file: '#' starts a comment at the start of a line or
 * after a blank; a line ending in '\' goes on on the next line.
 */
static void scan_requirements(scan *sc, const char *name, const char *dir, const char *data,
			      size_t len)
{
	mpsfix_buf logical = MPSFIX_BUF_INIT;
	uint32_t line = 1, start_line = 1;
	size_t i = 0;

	while (i < len) {
		size_t eol = i, next;
		mpsfix_text_slice t;
		bool cont;

		while (eol < len && data[eol] != '\n')
			eol++;
		next = eol < len ? eol + 1 : len;
		t = (mpsfix_text_slice){data + i, eol - i};
		if (t.n && t.s[t.n - 1] == '\r')
			t.n--;
		/* a comment: '#' at the start or after a blank */
		for (size_t k = 0; k < t.n; k++)
			if (t.s[k] == '#' && (k == 0 || isspace((unsigned char)t.s[k - 1]))) {
				t.n = k;
				break;
			}
		cont = t.n && t.s[t.n - 1] == '\\';
		if (cont)
			t.n--;
		if (!logical.len)
			start_line = line;
		mpsfix_buf_add(&logical, t.s, t.n);
		if (!cont || next >= len) {
			requirement_line(sc, name, start_line, dir,
					 (mpsfix_text_slice){logical.data, logical.len});
			mpsfix_buf_clear(&logical);
		}
		line++;
		i = next;
	}
	mpsfix_buf_release(&logical);
}

/* --- pyproject.toml ------------------------------------------------------------------ */

typedef struct {
	scan *sc;
	const char *name;
	const char *p, *end;
	uint32_t line;
	char *path[TOML_MAX_PATH]; /* the key path of the value being read (owned) */
	size_t npath;
	size_t ntable;             /* how much of it the table header gave */
	int depth;
} toml;

static int toml_fail(toml *t, const char *what)
{
	warn(t->sc, "%s:%u: not read for torch pins: %s", t->name, t->line, what);
	return MPSFIX_ERROR;
}

static void toml_blank(toml *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

/* Blanks, newlines and comments (inside arrays and inline tables). */
static void toml_space(toml *t)
{
	for (;;) {
		toml_blank(t);
		if (t->p < t->end && *t->p == '#') {
			while (t->p < t->end && *t->p != '\n')
				t->p++;
		} else if (t->p < t->end && (*t->p == '\n' || *t->p == '\r')) {
			if (*t->p == '\n')
				t->line++;
			t->p++;
		} else {
			return;
		}
	}
}

/* The end of a line: blanks, a comment, a newline (or the end of the file). */
static int toml_eol(toml *t)
{
	toml_blank(t);
	if (t->p < t->end && *t->p == '#')
		while (t->p < t->end && *t->p != '\n')
			t->p++;
	if (t->p < t->end && *t->p == '\r')
		t->p++;
	if (t->p >= t->end)
		return 0;
	if (*t->p != '\n')
		return toml_fail(t, "unexpected text after a value");
	t->p++;
	t->line++;
	return 0;
}

/* A string at t->p (any of the four kinds): its value in *out (owned). */
static int toml_string(toml *t, char **out)
{
	char q = *t->p;
	bool multi = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;
	mpsfix_buf b = MPSFIX_BUF_INIT;

	t->p += multi ? 3 : 1;
	for (;;) {
		if (t->p >= t->end) {
			mpsfix_buf_release(&b);
			return toml_fail(t, "a string is not closed");
		}
		if (*t->p == q && (!multi || (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q))) {
			t->p += multi ? 3 : 1;
			/* """a"""" : up to two more quotes belong to the string */
			while (multi && t->p < t->end && *t->p == q) {
				mpsfix_buf_addc(&b, q);
				t->p++;
			}
			break;
		}
		if (*t->p == '\n') {
			if (!multi) {
				mpsfix_buf_release(&b);
				return toml_fail(t, "a string is not closed on its line");
			}
			t->line++;
		}
		if (q == '"' && *t->p == '\\' && t->p + 1 < t->end) {
			static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
			const char *e = strchr(from, t->p[1]);

			if (e && t->p[1]) {
				mpsfix_buf_addc(&b, to[e - from]);
				t->p += 2;
				continue;
			}
			if (t->p[1] == '\n') {
				/* a line-ending backslash: the line break and the blanks after it go */
				t->p++;
				while (t->p < t->end && isspace((unsigned char)*t->p)) {
					if (*t->p == '\n')
						t->line++;
					t->p++;
				}
				continue;
			}
		}
		mpsfix_buf_addc(&b, *t->p++);
	}
	*out = mpsfix_buf_detach(&b, NULL);
	return 0;
}

/* A key part: bare (A-Za-z0-9_-) or quoted. */
static int toml_key_part(toml *t, char **out)
{
	const char *s = t->p;

	if (t->p < t->end && (*t->p == '"' || *t->p == '\''))
		return toml_string(t, out);
	while (t->p < t->end && (isalnum((unsigned char)*t->p) || *t->p == '_' || *t->p == '-'))
		t->p++;
	if (t->p == s)
		return toml_fail(t, "a key is missing");
	*out = mpsfix_xstrndup(s, (size_t)(t->p - s));
	return 0;
}

/* A dotted key, appended to the path. */
static int toml_key(toml *t)
{
	for (;;) {
		char *part = NULL;
		int error;

		toml_blank(t);
		if ((error = toml_key_part(t, &part)) < 0)
			return error;
		if (t->npath == TOML_MAX_PATH) {
			free(part);
			return toml_fail(t, "keys nested too deeply");
		}
		t->path[t->npath++] = part;
		toml_blank(t);
		if (t->p < t->end && *t->p == '.') {
			t->p++;
			continue;
		}
		return 0;
	}
}

static void toml_cut(toml *t, size_t n)
{
	while (t->npath > n)
		free(t->path[--t->npath]);
}

static bool path_is(const toml *t, size_t i, const char *name)
{
	return i < t->npath && !strcmp(t->path[i], name);
}

/* A string value at the current path: is it a torch pin? */
static void toml_found(toml *t, const char *value, uint32_t line)
{
	size_t n = t->npath, dep = 0;
	mpsfix_text_slice v = {value, strlen(value)};
	mpsfix_torch_range r;
	int rc;

	/* PEP 508 requirement lists */
	if ((n == 2 && path_is(t, 0, "project") && path_is(t, 1, "dependencies")) ||
	    (n == 3 && path_is(t, 0, "project") && path_is(t, 1, "optional-dependencies")) ||
	    (n == 2 && path_is(t, 0, "dependency-groups")) ||
	    (n == 3 && path_is(t, 0, "tool") && path_is(t, 1, "uv") &&
	     (path_is(t, 2, "constraint-dependencies") || path_is(t, 2, "override-dependencies") ||
	      path_is(t, 2, "dev-dependencies")))) {
		rc = mpsfix_pins_parse_requirement(&r, v.s, v.n);
		take(t->sc, t->name, line, v, rc, r);
		return;
	}
	/* Poetry: tool.poetry[.group.G].(dev-)dependencies.NAME[.version|url|path|file] */
	if (n < 4 || !path_is(t, 0, "tool") || !path_is(t, 1, "poetry"))
		return;
	if (path_is(t, 2, "dependencies") || path_is(t, 2, "dev-dependencies"))
		dep = 3;
	else if (path_is(t, 2, "group") && path_is(t, 4, "dependencies"))
		dep = 5;
	if (!dep || dep >= n || !same_name((mpsfix_text_slice){t->path[dep], strlen(t->path[dep])}, "torch"))
		return;
	if (n == dep + 1 || (n == dep + 2 && path_is(t, dep + 1, "version"))) {
		rc = mpsfix_torch_range_parse(&r, v.s, v.n, MPSFIX_TORCH_SYNTAX_POETRY);
		take(t->sc, t->name, line, v, rc, r);
	} else if (n == dep + 2 && (path_is(t, dep + 1, "url") || path_is(t, dep + 1, "path") ||
				    path_is(t, dep + 1, "file"))) {
		rc = wheel_version(&r, v);
		take(t->sc, t->name, line, v, rc, r);
	}
}

static int toml_value(toml *t);

/* [ value, value, ... ] (the path stays: arrays are transparent) */
static int toml_array(toml *t)
{
	int error;

	t->p++;
	for (;;) {
		toml_space(t);
		if (t->p >= t->end)
			return toml_fail(t, "an array is not closed");
		if (*t->p == ']') {
			t->p++;
			return 0;
		}
		if ((error = toml_value(t)) < 0)
			return error;
		toml_space(t);
		if (t->p < t->end && *t->p == ',')
			t->p++;
		else if (t->p < t->end && *t->p != ']')
			return toml_fail(t, "expected ',' or ']' in an array");
	}
}

/* { key = value, ... } */
static int toml_inline_table(toml *t)
{
	size_t base = t->npath;
	int error;

	t->p++;
	for (;;) {
		toml_space(t);
		if (t->p >= t->end)
			return toml_fail(t, "an inline table is not closed");
		if (*t->p == '}') {
			t->p++;
			return 0;
		}
		if ((error = toml_key(t)) < 0)
			return error;
		toml_blank(t);
		if (t->p >= t->end || *t->p != '=')
			return toml_fail(t, "expected '=' after a key");
		t->p++;
		toml_blank(t);
		error = toml_value(t);
		toml_cut(t, base);
		if (error < 0)
			return error;
		toml_space(t);
		if (t->p < t->end && *t->p == ',')
			t->p++;
		else if (t->p < t->end && *t->p != '}')
			return toml_fail(t, "expected ',' or '}' in an inline table");
	}
}

static int toml_value(toml *t)
{
	const char *s = t->p;
	int error = 0;

	if (t->p >= t->end)
		return toml_fail(t, "a value is missing");
	if (++t->depth > TOML_MAX_DEPTH) {
		error = toml_fail(t, "values nested too deeply");
	} else if (*t->p == '"' || *t->p == '\'') {
		uint32_t line = t->line;
		char *value = NULL;

		if ((error = toml_string(t, &value)) == 0)
			toml_found(t, value, line);
		free(value);
	} else if (*t->p == '[') {
		error = toml_array(t);
	} else if (*t->p == '{') {
		error = toml_inline_table(t);
	} else {
		/* a number, a boolean, a date: up to the next delimiter */
		while (t->p < t->end && !strchr(",]}#\r\n", *t->p))
			t->p++;
		if (t->p == s)
			error = toml_fail(t, "a value is missing");
		else
			while (t->p > s && (t->p[-1] == ' ' || t->p[-1] == '\t'))
				t->p--;
	}
	t->depth--;
	return error;
}

static void scan_pyproject(scan *sc, const char *name, const char *data, size_t len)
{
	toml t = {.sc = sc, .name = name, .p = data, .end = data + len, .line = 1};

	while (t.p < t.end) {
		toml_blank(&t);
		if (t.p >= t.end)
			break;
		if (*t.p == '#' || *t.p == '\r' || *t.p == '\n') {
			if (toml_eol(&t) < 0)
				break;
			continue;
		}
		if (*t.p == '[') {
			/* [table] or [[array.of.tables]] */
			bool array = t.p + 1 < t.end && t.p[1] == '[';

			t.p += array ? 2 : 1;
			toml_cut(&t, 0);
			if (toml_key(&t) < 0)
				break;
			if (t.p >= t.end || *t.p != ']' || (array && (t.p + 1 >= t.end || t.p[1] != ']'))) {
				toml_fail(&t, "a table header is not closed");
				break;
			}
			t.p += array ? 2 : 1;
			t.ntable = t.npath;
			if (toml_eol(&t) < 0)
				break;
			continue;
		}
		if (toml_key(&t) < 0)
			break;
		if (t.p >= t.end || *t.p != '=') {
			toml_fail(&t, "expected '=' after a key");
			break;
		}
		t.p++;
		toml_blank(&t);
		if (toml_value(&t) < 0)
			break;
		toml_cut(&t, t.ntable);
		if (toml_eol(&t) < 0)
			break;
	}
	toml_cut(&t, 0);
}

/* --- setup.cfg ----------------------------------------------------------------------- */

/* One item of a setup.cfg value, with its line. */
typedef struct {
	mpsfix_text_slice text;
	uint32_t line;
} cfg_item;

typedef ARRAY(cfg_item) cfg_items;

/*
 * The items of one value: a value on its key's line alone is split at ';'
 * (as setuptools reads a one-line list), else each line is one requirement.
 */
static void cfg_value(scan *sc, const char *name, cfg_items *items, bool continued)
{
	for (size_t i = 0; i < items->len; i++) {
		mpsfix_text_slice rest = items->items[i].text;

		while (rest.n) {
			const char *semi = continued ? NULL : memchr(rest.s, ';', rest.n);
			mpsfix_text_slice item = {rest.s, semi ? (size_t)(semi - rest.s) : rest.n};
			mpsfix_torch_range r;
			int rc;

			rest = semi ? (mpsfix_text_slice){semi + 1, rest.n - item.n - 1}
				    : (mpsfix_text_slice){rest.s + rest.n, 0};
			/* an inline comment: '#' after a blank (a requirement never has one) */
			for (size_t k = 0; k < item.n; k++)
				if (item.s[k] == '#' && (k == 0 || isspace((unsigned char)item.s[k - 1]))) {
					item.n = k;
					break;
				}
			item = mpsfix_text_trim(item);
			if (!item.n)
				continue;
			rc = mpsfix_pins_parse_requirement(&r, item.s, item.n);
			take(sc, name, items->items[i].line, item, rc, r);
		}
	}
	items->len = 0;
}

static bool key_is(mpsfix_text_slice key, const char *want)
{
	size_t n = strlen(want);

	if (key.n != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)key.s[i]);

		if (c == '-')
			c = '_';
		if (c != want[i])
			return false;
	}
	return true;
}

/*
 * setup.cfg (INI, as configparser reads it): `install_requires` in
 * [options], every key of [options.extras_require]; a value goes on on the
 * indented lines below its key; lines starting with '#' or ';' are comments.
 */
static void scan_setup_cfg(scan *sc, const char *name, const char *data, size_t len)
{
	cfg_items items = {0};
	bool in_options = false, in_extras = false, collecting = false, continued = false;
	uint32_t line = 0;
	const char *p = data, *end = data + len;

	for (;;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		mpsfix_text_slice raw = {p, (size_t)((eol ? eol : end) - p)}, t;

		line++;
		t = mpsfix_text_trim(raw);
		if (collecting && t.n && isspace((unsigned char)raw.s[0])) {
			/* a continuation line (comment lines inside a value are skipped) */
			if (t.s[0] != '#' && t.s[0] != ';')
				ARRAY_PUSH(&items, ((cfg_item){t, line}));
			continued = true;
		} else if (t.n && t.s[0] != '#' && t.s[0] != ';') {
			cfg_value(sc, name, &items, continued);
			collecting = continued = false;
			if (t.s[0] == '[') {
				const char *close = memchr(t.s, ']', t.n);
				mpsfix_text_slice section =
					close ? mpsfix_text_trim((mpsfix_text_slice){t.s + 1,
								 (size_t)(close - t.s - 1)})
					      : (mpsfix_text_slice){"", 0};

				in_options = section.n == 7 && !strncmp(section.s, "options", 7);
				in_extras = key_is(section, "options.extras_require");
			} else if (in_options || in_extras) {
				size_t k = 0;
				mpsfix_text_slice key;

				while (k < t.n && t.s[k] != '=' && t.s[k] != ':')
					k++;
				key = mpsfix_text_trim((mpsfix_text_slice){t.s, k});
				if (k < t.n && (in_extras || key_is(key, "install_requires"))) {
					mpsfix_text_slice first = mpsfix_text_trim(
						(mpsfix_text_slice){t.s + k + 1, t.n - k - 1});

					collecting = true;
					if (first.n)
						ARRAY_PUSH(&items, ((cfg_item){first, line}));
				}
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	cfg_value(sc, name, &items, continued);
	free(items.items);
}

/* --- setup.py ------------------------------------------------------------------------ */

typedef struct {
	const char *p, *end;
	uint32_t line;
} pytok;

/*
 * Step over a string literal at t->p (after any prefix); its value (escapes
 * as written) in *value when not NULL.  False when it is not closed.
 */
static bool py_string(pytok *t, mpsfix_buf *value)
{
	char q = *t->p;
	bool triple = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;

	t->p += triple ? 3 : 1;
	while (t->p < t->end) {
		if (*t->p == '\\' && t->p + 1 < t->end) {
			if (t->p[1] == '\n')
				t->line++;
			if (value && t->p[1] != '\n')
				mpsfix_buf_add(value, t->p, 2);
			t->p += 2;
			continue;
		}
		if (*t->p == q && (!triple || (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q))) {
			t->p += triple ? 3 : 1;
			return true;
		}
		if (*t->p == '\n') {
			if (!triple)
				return false;
			t->line++;
		}
		if (value)
			mpsfix_buf_addc(value, *t->p);
		t->p++;
	}
	return false;
}

/* Is the identifier at [s, e) a string prefix (r, b, u, f, rb, br, fr...) before a quote? */
static bool string_prefix(const char *s, const char *e)
{
	if (e - s > 2)
		return false;
	for (const char *c = s; c < e; c++)
		if (!strchr("rRbBuUfF", *c))
			return false;
	return true;
}

/*
 * setup.py: every string literal inside the brackets that follow
 * `install_requires` / `extras_require` (a keyword argument, `name = [...]`
 * or a dict key "install_requires": [...]) is a requirement.
 */
static void scan_setup_py(scan *sc, const char *name, const char *data, size_t len)
{
	pytok t = {data, data + len, 1};
	mpsfix_buf str = MPSFIX_BUF_INIT;
	int armed = 0;     /* 1: saw the name; 2: and '=' or ':' */
	int depth = 0;     /* > 0: inside the collected brackets */

	while (t.p < t.end) {
		char c = *t.p;

		if (c == '#') {
			while (t.p < t.end && *t.p != '\n')
				t.p++;
		} else if (c == '\n') {
			t.line++;
			t.p++;
		} else if (isspace((unsigned char)c) || c == '\\') {
			t.p++;
		} else if (c == '"' || c == '\'') {
			uint32_t line = t.line;
			bool closed;

			mpsfix_buf_clear(&str);
			closed = py_string(&t, &str);
			if (!closed) {
				warn(sc, "%s:%u: not read for torch pins: a string is not closed", name, line);
				break;
			}
			if (depth > 0) {
				mpsfix_torch_range r;
				int rc = mpsfix_pins_parse_requirement(&r, str.data ? str.data : "", str.len);

				take(sc, name, line, (mpsfix_text_slice){str.data ? str.data : "", str.len},
				     rc, r);
			} else {
				armed = (str.len == 16 && !memcmp(str.data, "install_requires", 16)) ||
					(str.len == 14 && !memcmp(str.data, "extras_require", 14));
			}
		} else if (isalpha((unsigned char)c) || c == '_') {
			const char *s = t.p;

			while (t.p < t.end && (isalnum((unsigned char)*t.p) || *t.p == '_'))
				t.p++;
			if (t.p < t.end && (*t.p == '"' || *t.p == '\'') && string_prefix(s, t.p))
				continue; /* the string comes next */
			if (depth == 0 && armed == 2 && t.p - s == 4 && !memcmp(s, "dict", 4))
				continue; /* extras_require=dict(gpu=[...]) */
			if (depth == 0)
				armed = (t.p - s == 16 && !memcmp(s, "install_requires", 16)) ||
					(t.p - s == 14 && !memcmp(s, "extras_require", 14));
		} else if (strchr("([{", c)) {
			if (depth > 0 || armed == 2)
				depth++;
			armed = 0;
			t.p++;
		} else if (strchr(")]}", c)) {
			if (depth > 0)
				depth--;
			armed = 0;
			t.p++;
		} else if ((c == '=' || c == ':') && armed == 1 && depth == 0 &&
			   !(t.p + 1 < t.end && t.p[1] == '=')) {
			armed = 2;
			t.p++;
		} else {
			if (depth == 0)
				armed = 0;
			t.p++;
		}
	}
	mpsfix_buf_release(&str);
}

/* --- environment.yml ----------------------------------------------------------------- */

static void scan_conda_env(scan *sc, const char *name, const char *dir, const char *data, size_t len)
{
	mpsfix_yaml_doc doc = MPSFIX_YAML_DOC_INIT;
	const mpsfix_yaml_node *deps = NULL;

	if (mpsfix_yaml_load(&doc, name, data, len) < 0) {
		warn(sc, "%s (not read for torch pins)", mpsfix_error_last()->message);
		return;
	}
	if (doc.root && doc.root->type == MPSFIX_YAML_MAP)
		for (size_t i = 0; i < mpsfix_yaml_npairs(doc.root); i++)
			if (!strcmp(mpsfix_yaml_key(doc.root, i)->value, "dependencies"))
				deps = mpsfix_yaml_value(doc.root, i);
	for (size_t i = 0; deps && deps->type == MPSFIX_YAML_SEQ && i < deps->nitems; i++) {
		const mpsfix_yaml_node *d = deps->items[i];

		if (mpsfix_yaml_is_string(d)) {
			mpsfix_torch_range r;
			int rc = mpsfix_pins_parse_conda(&r, d->value, d->len);

			take(sc, name, d->line, (mpsfix_text_slice){d->value, d->len}, rc, r);
		} else if (d->type == MPSFIX_YAML_MAP) {
			for (size_t k = 0; k < mpsfix_yaml_npairs(d); k++) {
				const mpsfix_yaml_node *pip = mpsfix_yaml_value(d, k);

				if (strcmp(mpsfix_yaml_key(d, k)->value, "pip") != 0 || pip->type != MPSFIX_YAML_SEQ)
					continue;
				for (size_t j = 0; j < pip->nitems; j++)
					if (mpsfix_yaml_is_string(pip->items[j]))
						requirement_line(sc, name, pip->items[j]->line, dir,
								 (mpsfix_text_slice){pip->items[j]->value,
										     pip->items[j]->len});
			}
		}
	}
	mpsfix_yaml_release(&doc);
}

/* --- the project ----------------------------------------------------------------------- */

static void scan_data(scan *sc, mpsfix_pins_format format, const char *name, const char *dir,
		      const char *data, size_t len)
{
	switch (format) {
	case MPSFIX_PINS_REQUIREMENTS:
		scan_requirements(sc, name, dir, data, len);
		break;
	case MPSFIX_PINS_PYPROJECT:
		scan_pyproject(sc, name, data, len);
		break;
	case MPSFIX_PINS_SETUP_CFG:
		scan_setup_cfg(sc, name, data, len);
		break;
	case MPSFIX_PINS_SETUP_PY:
		scan_setup_py(sc, name, data, len);
		break;
	case MPSFIX_PINS_CONDA_ENV:
		scan_conda_env(sc, name, dir, data, len);
		break;
	}
}

void mpsfix_pins_scan_buffer(mpsfix_pins *out, mpsfix_pins_format format, const char *name,
			     const char *data, size_t len)
{
	scan sc = {.out = out};

	scan_data(&sc, format, name, NULL, data, len);
}

/* Read root-relative file `rel` when it is a regular file (or a link to one). */
static void scan_file(scan *sc, mpsfix_pins_format format, const char *rel)
{
	char *path = mpsfix_path_join(sc->root, rel), *real = NULL, *dir = NULL, *slash;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		goto done; /* absent, a folder, a broken link: nothing to read */
	if (!(real = realpath(path, NULL)) || seen(sc, real))
		goto done;
	if (!read_file(sc, &b, path, rel))
		goto done;
	dir = mpsfix_xstrdup(path);
	slash = strrchr(dir, '/');
	*(slash == dir ? slash + 1 : slash) = '\0';
	scan_data(sc, format, rel, dir, b.data ? b.data : "", b.len);
done:
	mpsfix_buf_release(&b);
	free(dir);
	free(real);
	free(path);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names in folder `sub` of the root (or the root itself, "") that match
 * `glob`, sorted, each prefixed with `sub/`.  Not a folder: none.
 */
static int list_names(name_list *out, const scan *sc, const char *sub, const char *glob)
{
	size_t before = out->len;
	char *path = *sub ? mpsfix_path_join(sc->root, sub) : mpsfix_xstrdup(sc->root);
	DIR *d = opendir(path);
	struct dirent *e;
	int error = 0;

	if (!d) {
		if (*sub == '\0')
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read the folder for torch "
						 "pins: %s", path, strerror(errno));
		free(path);
		return error;
	}
	while ((e = readdir(d)) != NULL)
		if (!fnmatch(glob, e->d_name, 0))
			ARRAY_PUSH(out, *sub ? mpsfix_xasprintf("%s/%s", sub, e->d_name)
					     : mpsfix_xstrdup(e->d_name));
	closedir(d);
	free(path);
	if (out->len > before)
		qsort(out->items + before, out->len - before, sizeof(char *), compare_names);
	return 0;
}

/* The files read besides the requirement files, in this order. */
static const struct {
	const char *name;
	mpsfix_pins_format format;
} fixed[] = {
	{"pyproject.toml", MPSFIX_PINS_PYPROJECT},
	{"setup.cfg", MPSFIX_PINS_SETUP_CFG},
	{"setup.py", MPSFIX_PINS_SETUP_PY},
	{"environment.yml", MPSFIX_PINS_CONDA_ENV},
	{"environment.yaml", MPSFIX_PINS_CONDA_ENV},
};

bool mpsfix_pins_present(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		found = !fnmatch("requirements*.txt", e->d_name, 0) || !strcmp(e->d_name, "requirements");
		for (size_t i = 0; !found && i < MPSFIX_ARRAY_SIZE(fixed); i++)
			found = !strcmp(e->d_name, fixed[i].name);
	}
	closedir(d);
	return found;
}

int mpsfix_pins_find(mpsfix_pins *out, const char *root)
{
	scan sc = {.out = out};
	name_list reqs = {0};
	int error;

	if (!(sc.root = realpath(root, NULL))) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read the folder for torch pins: %s",
					 root, strerror(errno));
		goto done;
	}
	if ((error = list_names(&reqs, &sc, "", "requirements*.txt")) < 0)
		goto done;
	/* then the *.txt of requirements/ (when there is such a folder) */
	if ((error = list_names(&reqs, &sc, "requirements", "*.txt")) < 0)
		goto done;
	for (size_t i = 0; i < reqs.len; i++)
		scan_file(&sc, MPSFIX_PINS_REQUIREMENTS, reqs.items[i]);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(fixed); i++)
		scan_file(&sc, fixed[i].format, fixed[i].name);
done:
	for (size_t i = 0; i < reqs.len; i++)
		free(reqs.items[i]);
	free(reqs.items);
	for (size_t i = 0; i < sc.visited.len; i++)
		free(sc.visited.items[i]);
	free(sc.visited.items);
	free(sc.root);
	return error;
}

void mpsfix_pins_release(mpsfix_pins *p)
{
	for (size_t i = 0; i < p->len; i++) {
		free(p->items[i].file);
		free(p->items[i].text);
	}
	free(p->items);
	for (size_t i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	memset(p, 0, sizeof(*p));
}
